//! What a shared flag is ([`Flag`]: its name, value, default, help, group), the clap
//! argument it becomes, and how its value fills its field of [`Shared`] ([`Set`], made by
//! [`set!`] from the field and the value's type: the same parse for a command line and for
//! keywords). The flags themselves are in [`super::defs`].

use super::shared::Shared;
#[cfg(feature = "cli")]
use clap::builder::ValueParser;
#[cfg(feature = "cli")]
use clap::{Arg, ArgAction};
use std::ffi::OsStr;

/// One shared flag.
#[derive(Clone, Copy)]
pub struct Flag {
    /// The long name (`--max-memory`), also the flag's id in clap's matches.
    pub long: &'static str,
    /// Puts one value (a switch: any text) into the flag's field, or says why the text is
    /// not one (None: the text is no value at all, as an empty path is to clap).
    pub set: Set,
    /// The one-letter name, if any.
    pub short: Option<char>,
    /// The commands that take it: those whose [`super::defs::uses`] lists this group.
    pub group: Group,
    /// The section of `--help` it is listed in.
    pub heading: &'static str,
    /// A switch, or the value it takes.
    pub value: Value,
    /// Whether the Python API takes it as a keyword (`max_memory="1G"`); false for what is
    /// about files, formats and printing, which the API replaces by arguments and values.
    pub python: bool,
    /// A value may start with '-' (a similarity given as -0.1 is then refused by its range,
    /// not taken for a flag).
    pub negative: bool,
    /// Another flag it cannot be given with.
    pub conflicts: Option<&'static str>,
    /// `-h`'s line.
    pub help: &'static str,
    /// `--help`'s text, when it says more than `help`.
    pub long_help: Option<&'static str>,
    /// The man page's text (its entry is made from the flag, [`super::man`]): plain text
    /// with `code` in bold and *names* in italics; empty, the man page says `help`.
    pub man: &'static str,
    /// The README's phrase for it, in Markdown (its row is made from the flag,
    /// [`super::readme`]); empty, the README says `help`.
    pub summary: &'static str,
    /// How the README states the default, where the value's own default does not say it
    /// (one computed at run time, or none given to clap).
    pub default_text: Option<&'static str>,
}

/// What a flag takes.
#[derive(Clone, Copy)]
pub enum Value {
    /// Nothing: given, it is on.
    Switch,
    /// One value (the last one given counts).
    One {
        /// The value's name in `--help` (`SIZE`).
        name: &'static str,
        /// What a left-out flag means, as the command line would give it; None: the flag is
        /// optional (its absence means something of its own, said in its help).
        default: Option<fn() -> String>,
        /// The parser, which also gives the value's type.
        parse: Parser,
    },
    /// A comma-separated list; repeating the flag adds to it.
    List {
        /// The value's name in `--help`.
        name: &'static str,
        /// The list a left-out flag means.
        default: &'static [&'static str],
        /// The parser of one item.
        parse: Parser,
    },
}

/// How a flag fills its field of [`Shared`] from one value as given (the command line's,
/// after clap checked it with the flag's [`Parser`], or a keyword's), or why it is not one.
/// A path is taken as the operating system gave it (it need not be UTF-8); any other value
/// must be text.
pub type Set = fn(&mut Shared, &OsStr) -> Result<(), Option<String>>;

/// How clap reads a flag's value: its messages, and the choices `--help` lists. [`parser!`]
/// makes it from the same type as [`set!`]'s parse, so both refuse the same texts.
#[derive(Clone, Copy)]
pub struct Parser {
    /// The names an enumerated value takes ([`crate::choice::Choice::CHOICES`]), in
    /// `--help`'s order; empty for any other value.
    pub names: fn() -> Vec<&'static str>,
    /// clap's parser.
    #[cfg(feature = "cli")]
    pub clap: fn() -> ValueParser,
}

/// The [`Parser`] of a flag's value: `parser!(usize)` (any `FromStr` type clap's
/// `value_parser!` takes the same way), `parser!(size)` (`512M`), `parser!(choice T)`
/// (an engine enum's names, [`crate::choice::Choice`]).
macro_rules! parser {
    (size) => {
        $crate::cmd::flags::flag::Parser {
            names: Vec::new,
            #[cfg(feature = "cli")]
            clap: || $crate::cmd::args::parse_size.into(),
        }
    };
    (choice $t:ty) => {
        $crate::cmd::flags::flag::Parser {
            names: || {
                (<$t as $crate::choice::Choice>::CHOICES.iter())
                    .map(|c| c.0)
                    .collect()
            },
            #[cfg(feature = "cli")]
            clap: || $crate::cmd::args::choice::<$t>().into(),
        }
    };
    (PathBuf) => {
        $crate::cmd::flags::flag::Parser {
            names: Vec::new,
            #[cfg(feature = "cli")]
            clap: || clap::value_parser!(PathBuf),
        }
    };
    ($t:ty) => {
        $crate::cmd::flags::flag::Parser {
            names: Vec::new,
            #[cfg(feature = "cli")]
            clap: || clap::value_parser!($t).into(),
        }
    };
}
pub(crate) use parser;

/// One value read as the kind [`parser!`] names, without clap: the value, or why it is not
/// one (None: no value at all).
macro_rules! text {
    (size) => {
        (|s: &std::ffi::OsStr| {
            $crate::cmd::args::parse_size($crate::cmd::flags::flag::utf8(s)?).map_err(Some)
        })
    };
    (choice $t:ty) => {
        (|s: &std::ffi::OsStr| match $crate::cmd::flags::flag::utf8(s)? {
            "" => Err(None),
            s => <$t as $crate::choice::Choice>::from_name(s).ok_or(Some(String::new())),
        })
    };
    (PathBuf) => {
        (|s: &std::ffi::OsStr| match s.is_empty() {
            true => Err(None),
            false => Ok(std::path::PathBuf::from(s)),
        })
    };
    ($t:ty) => {
        (|s: &std::ffi::OsStr| {
            $crate::cmd::flags::flag::utf8(s)?
                .parse::<$t>()
                .map_err(|e| Some(e.to_string()))
        })
    };
}
pub(crate) use text;

/// A value that must be text, or why it is not.
pub fn utf8(value: &OsStr) -> Result<&str, Option<String>> {
    value
        .to_str()
        .ok_or_else(|| Some("invalid UTF-8 was detected in one or more arguments".to_string()))
}

/// The [`Set`] of a flag, from where its value goes: `set!(config.quiet: switch)` turns a
/// setting on and `set!(config.progress: off)` off, `set!(config.threads = usize)` (any kind
/// [`parser!`] takes) puts the value in the setting, `set!(config.run.compression: choice
/// Compression)` puts it in an `Option`; `set!(verify: list choice Method)` adds an item to
/// a list of [`Shared`]'s own.
macro_rules! set {
    ($first:ident $(.$rest:ident)* : switch) => {
        |values: &mut $crate::cmd::flags::shared::Shared, _: &std::ffi::OsStr| {
            values.$first $(.$rest)* = true;
            Ok(())
        }
    };
    ($first:ident $(.$rest:ident)* : off) => {
        |values: &mut $crate::cmd::flags::shared::Shared, _: &std::ffi::OsStr| {
            values.$first $(.$rest)* = false;
            Ok(())
        }
    };
    ($first:ident $(.$rest:ident)* : list $($kind:tt)+) => {
        |values: &mut $crate::cmd::flags::shared::Shared, text: &std::ffi::OsStr| {
            values.$first $(.$rest)*.push($crate::cmd::flags::flag::text!($($kind)+)(text)?);
            Ok(())
        }
    };
    ($first:ident $(.$rest:ident)* = $($kind:tt)+) => {
        |values: &mut $crate::cmd::flags::shared::Shared, text: &std::ffi::OsStr| {
            values.$first $(.$rest)* = $crate::cmd::flags::flag::text!($($kind)+)(text)?;
            Ok(())
        }
    };
    ($first:ident $(.$rest:ident)* : $($kind:tt)+) => {
        |values: &mut $crate::cmd::flags::shared::Shared, text: &std::ffi::OsStr| {
            values.$first $(.$rest)* = Some($crate::cmd::flags::flag::text!($($kind)+)(text)?);
            Ok(())
        }
    };
}
pub(crate) use set;

/// The groups of shared flags: the unit a command takes or leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Where the output goes and what is printed.
    Output,
    /// A table output's format (the filter modes' Parquet or Arrow rows).
    Table,
    /// Reading lines: fields, bad lines, decompression.
    Input,
    /// Text normalisation.
    Text,
    /// What a shingle is, and the hashing seed.
    Shingles,
    /// Shingle weights.
    Weights,
    /// Comparing only documents of the same block.
    Block,
    /// The exact check of a candidate.
    Verify,
    /// MinHash and LSH.
    Sketch,
    /// How many documents are held.
    Window,
    /// RAM and the spill file.
    Memory,
    /// The bound on candidates verified per document.
    Candidates,
    /// Worker threads.
    Threads,
    /// Helper threads of the sequencer.
    Helpers,
}

impl Flag {
    /// The values it takes, if it takes one of a few names (an enumerated value).
    pub fn choices(&self) -> Vec<String> {
        let parse = match self.value {
            Value::Switch => return Vec::new(),
            Value::One { parse, .. } | Value::List { parse, .. } => parse,
        };
        (parse.names)().into_iter().map(str::to_string).collect()
    }

    /// Its value as the man page and the README show it: the choices of a single value
    /// among a few, else the value's name; `None` for a switch.
    pub fn shown_value(&self) -> Option<Vec<String>> {
        match self.value {
            Value::Switch => None,
            Value::One { name, .. } => {
                let choices = self.choices();
                match choices.len() {
                    2..=6 => Some(choices),
                    _ => Some(vec![name.to_string()]),
                }
            }
            Value::List { name, .. } => Some(vec![name.to_string()]),
        }
    }

    /// The clap argument; `hidden` from `--help` (a command that does not use it).
    #[cfg(feature = "cli")]
    pub fn arg(&self, hidden: bool) -> Arg {
        let mut arg = Arg::new(self.long)
            .long(self.long)
            .help(self.help)
            .help_heading(self.heading)
            .hide(hidden);
        if let Some(c) = self.short {
            arg = arg.short(c);
        }
        if let Some(text) = self.long_help {
            arg = arg.long_help(text);
        }
        if let Some(other) = self.conflicts {
            arg = arg.conflicts_with(other);
        }
        arg = match self.value {
            Value::Switch => arg.action(ArgAction::SetTrue),
            Value::One {
                name,
                default,
                parse,
            } => {
                let arg = arg
                    .action(ArgAction::Set)
                    .value_name(name)
                    .value_parser((parse.clap)());
                match default {
                    Some(default) => arg.default_value(default()),
                    None => arg,
                }
            }
            Value::List {
                name,
                default,
                parse,
            } => arg
                .action(ArgAction::Append)
                .value_name(name)
                .value_delimiter(',')
                .value_parser((parse.clap)())
                .default_values(default),
        };
        arg.allow_negative_numbers(self.negative)
    }
}
