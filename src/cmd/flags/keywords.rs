//! Settings given as keywords (the Python API's `threshold=0.8`) rather than a command line.
//!
//! A shared flag's keyword is read by its flag's own parser ([`Parser::text`]), with the
//! flag's default when it is left out, so a keyword takes what the flag takes and is refused
//! with the message the command line gives (`invalid value 'lots' for '--max-memory
//! <SIZE>': …`), without a command-line parser in between. What is left after the shared
//! flags are taken ([`Values::take`]) are the command's own settings, which its file reads
//! with [`Keywords`]' methods.

use super::defs;
use super::flag::{Flag, Value};
use super::shared::Shared;
use crate::choice::Choice;
use crate::error::{Error, Result};
use std::str::FromStr;

/// A keyword's value as the caller gave it.
#[derive(Clone, Debug, PartialEq)]
pub enum Keyword {
    /// A truth value: a switch on or off (off leaves the flag out).
    Switch(bool),
    /// One value, as text (a list flag splits it at commas, as on the command line).
    One(String),
    /// Several values (a list flag's items).
    Many(Vec<String>),
}

/// A command's own flag (one outside the shared table) as the keyword API lists it: its
/// name, the names it also answers to, its default as the command line would be given it,
/// and whether a keyword may give it. Each command lists its own beside their definition
/// (`filter::OWN`, `clusters::OWN`); a test in `cmd` checks the lists against clap's.
#[derive(Clone, Copy, Debug)]
pub struct Own {
    /// The long name (`by`), or the id of a value given without a flag (`files`).
    pub long: &'static str,
    /// A value given without a flag (the input files): no keyword, no default.
    pub positional: bool,
    /// Other names of the flag (`pairs-format` of `format`).
    pub aliases: &'static [&'static str],
    /// What a left-out flag means, as the command line would give it (`false` for a switch):
    /// made from the typed default clap's definition uses too.
    pub default: Option<fn() -> String>,
    /// Whether the keyword API takes it: false for what is about files, formats and
    /// printing, which the API replaces by arguments and values.
    pub keyword: bool,
}

/// A switch left out.
fn off() -> String {
    false.to_string()
}

impl Own {
    /// A switch (off by default).
    pub const fn switch(long: &'static str, keyword: bool) -> Own {
        Own {
            long,
            positional: false,
            aliases: &[],
            default: Some(off),
            keyword,
        }
    }

    /// A flag that takes a value, `default` when left out (None: its absence means
    /// something of its own).
    pub const fn taking(long: &'static str, default: Option<fn() -> String>, keyword: bool) -> Own {
        Own {
            long,
            positional: false,
            aliases: &[],
            default,
            keyword,
        }
    }

    /// Values given without a flag (`files`), never a keyword.
    pub const fn positional(id: &'static str) -> Own {
        Own {
            long: id,
            positional: true,
            aliases: &[],
            default: None,
            keyword: false,
        }
    }

    /// The flag, also called `aliases`.
    pub const fn aka(self, aliases: &'static [&'static str]) -> Own {
        Own { aliases, ..self }
    }
}

/// The keywords of one call, by long flag name (`max-memory`), not yet read.
#[derive(Clone, Debug, Default)]
pub struct Keywords(Vec<(String, Keyword)>);

impl Keywords {
    /// The keywords given, in the caller's order; a switch turned off is as if left out.
    pub fn new(given: impl IntoIterator<Item = (String, Keyword)>) -> Self {
        Self(
            (given.into_iter())
                .filter(|(_, value)| *value != Keyword::Switch(false))
                .collect(),
        )
    }

    /// Adds keyword `long` (a setting the caller's function implies: `--pairs` for `pairs()`).
    pub fn push(&mut self, long: &str, value: Keyword) {
        self.0.push((long.to_string(), value));
    }

    /// Takes keyword `long` out, if given.
    fn remove(&mut self, long: &str) -> Option<Keyword> {
        let at = self.0.iter().position(|(name, _)| name == long)?;
        Some(self.0.remove(at).1)
    }

    /// Takes switch `long` out: whether it is on.
    pub fn switch(&mut self, long: &str) -> Result<bool> {
        match self.remove(long) {
            None => Ok(false),
            Some(Keyword::Switch(on)) => Ok(on),
            Some(Keyword::One(text)) => Err(unexpected_value(long, &text)),
            Some(Keyword::Many(items)) => {
                Err(unexpected_value(long, items.first().map_or("", |s| s)))
            }
        }
    }

    /// Takes value `long` out (`NAME` as `--help` names its value), parsed as the command
    /// line's `FromStr` parser does.
    pub fn one<T>(&mut self, long: &str, name: &str) -> Result<Option<T>>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        let text = match self.remove(long) {
            None => return Ok(None),
            Some(Keyword::One(text)) => text,
            Some(Keyword::Switch(_)) => return Err(no_value(long, name, &[])),
            Some(Keyword::Many(_)) => return Err(given_twice(long, name)),
        };
        (text.parse::<T>())
            .map(Some)
            .map_err(|e| invalid(long, name, &text, &e.to_string()))
    }

    /// Takes value `long` out as one of `T`'s names.
    pub fn choice<T: Choice>(&mut self, long: &str, name: &str) -> Result<Option<T>> {
        let names: Vec<String> = T::CHOICES.iter().map(|&(n, _, _)| n.into()).collect();
        let text = match self.remove(long) {
            None => return Ok(None),
            Some(Keyword::One(text)) if !text.is_empty() => text,
            Some(Keyword::One(_) | Keyword::Switch(_)) => {
                return Err(no_value(long, name, &names));
            }
            Some(Keyword::Many(_)) => return Err(given_twice(long, name)),
        };
        (T::from_name(&text))
            .map(Some)
            .ok_or_else(|| not_a_choice(long, name, &text, &names))
    }

    /// Takes the values of repeatable `long` out (none when it is left out).
    pub fn many<T>(&mut self, long: &str, name: &str) -> Result<Vec<T>>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        let items = match self.remove(long) {
            None => return Ok(Vec::new()),
            Some(Keyword::One(text)) => vec![text],
            Some(Keyword::Many(items)) => items,
            Some(Keyword::Switch(_)) => return Err(no_value(long, name, &[])),
        };
        (items.iter())
            .map(|text| {
                text.parse::<T>()
                    .map_err(|e| invalid(long, name, text, &e.to_string()))
            })
            .collect()
    }

    /// Refuses what is left: a keyword the command does not take.
    pub fn finish(self) -> Result<()> {
        match self.0.first() {
            None => Ok(()),
            Some((long, _)) => Err(Error::Usage(format!(
                "unexpected argument '--{long}' found"
            ))),
        }
    }
}

/// Takes the shared flags of `command` (`neardup` for the filter) out of `keywords` and
/// reads them into their fields, refusing as the command line would: a value its parser
/// refuses, a switch given a value or a value flag none, a single value given several, two
/// flags that exclude each other, a flag the command does not use. A flag left out has its
/// default.
pub fn take(command: &str, keywords: &mut Keywords) -> Result<Shared> {
    let used = defs::uses(command);
    let given = |long: &str| keywords.0.iter().any(|(name, _)| name == long);
    for flag in defs::all() {
        if let Some(other) = flag.conflicts
            && given(flag.long)
            && given(other)
        {
            // A name the table's own test checks.
            let other = defs::flag(other).expect("a flag of the table");
            return Err(Error::Usage(format!(
                "the argument '{}' cannot be used with '{}'",
                shown(flag),
                shown(other)
            )));
        }
    }
    let mut values = Shared::default();
    for flag in defs::all() {
        let Some(given) = keywords.remove(flag.long) else {
            default_of(flag, &mut values);
            continue;
        };
        if !used.contains(&flag.group) {
            return Err(Error::Usage(format!(
                "'neardup {command}' does not use --{}",
                flag.long
            )));
        }
        read(flag, given, &mut values)?;
    }
    Ok(values)
}

/// Puts in `flag`'s default, if it has one.
fn default_of(flag: &'static Flag, values: &mut Shared) {
    let mut set = |text: &str| {
        // The table's own default: the command line's test parses every one.
        (flag.set)(values, text.as_ref()).unwrap_or_else(|_| panic!("--{}'s default", flag.long));
    };
    match flag.value {
        Value::Switch | Value::One { default: None, .. } => {}
        Value::One {
            default: Some(default),
            ..
        } => set(&default()),
        Value::List { default, .. } => default.iter().for_each(|text| set(text)),
    }
}

/// The name of `flag`'s value in `--help` (`SIZE`), empty for a switch.
fn value_name(flag: &Flag) -> &'static str {
    match flag.value {
        Value::Switch => "",
        Value::One { name, .. } | Value::List { name, .. } => name,
    }
}

/// `flag` as clap's messages show it: `--max-memory <SIZE>`, `--quiet`.
fn shown(flag: &Flag) -> String {
    match value_name(flag) {
        "" => format!("--{}", flag.long),
        name => format!("--{} <{name}>", flag.long),
    }
}

/// Reads `given` as `flag`'s value(s) into its field.
fn read(flag: &'static Flag, given: Keyword, values: &mut Shared) -> Result<()> {
    let (long, name) = (flag.long, value_name(flag));
    let (texts, single) = match (flag.value, given) {
        (Value::Switch, Keyword::Switch(_)) => {
            return (flag.set)(values, "".as_ref()).map_err(|_| unexpected_value(long, ""));
        }
        (Value::Switch, Keyword::One(text)) => return Err(unexpected_value(long, &text)),
        // The command line refuses the first of several.
        (Value::Switch, Keyword::Many(items)) => {
            return Err(unexpected_value(long, items.first().map_or("", |s| s)));
        }
        (_, Keyword::Switch(_)) => return Err(no_value(long, name, &flag.choices())),
        (Value::One { .. }, Keyword::One(text)) => (vec![text], true),
        (Value::One { .. }, Keyword::Many(items)) => (items, true),
        // A list's items are split at commas, as the command line splits them.
        (Value::List { .. }, Keyword::One(text)) => {
            (text.split(',').map(str::to_string).collect(), false)
        }
        (Value::List { .. }, Keyword::Many(items)) => (items, false),
    };
    for text in &texts {
        (flag.set)(values, text.as_ref()).map_err(|why| match (why, flag.choices()) {
            (None, choices) => no_value(long, name, &choices),
            (Some(why), choices) if choices.is_empty() => invalid(long, name, text, &why),
            (Some(_), choices) => not_a_choice(long, name, text, &choices),
        })?;
    }
    // As on the command line, each value is checked before a second one is refused.
    match single && texts.len() > 1 {
        true => Err(given_twice(long, name)),
        false => Ok(()),
    }
}

fn invalid(long: &str, name: &str, text: &str, why: &str) -> Error {
    Error::Usage(format!(
        "invalid value '{text}' for '--{long} <{name}>': {why}"
    ))
}

fn not_a_choice(long: &str, name: &str, text: &str, choices: &[String]) -> Error {
    Error::Usage(format!(
        "invalid value '{text}' for '--{long} <{name}>'\n  [possible values: {}]",
        choices.join(", ")
    ))
}

/// The command line's message for a value flag given no value; it lists the choices of one
/// that has them.
fn no_value(long: &str, name: &str, choices: &[String]) -> Error {
    let mut message = format!("a value is required for '--{long} <{name}>' but none was supplied");
    if !choices.is_empty() {
        message += &format!("\n  [possible values: {}]", choices.join(", "));
    }
    Error::Usage(message)
}

fn given_twice(long: &str, name: &str) -> Error {
    Error::Usage(format!(
        "the argument '--{long} <{name}>' cannot be used multiple times"
    ))
}

fn unexpected_value(long: &str, text: &str) -> Error {
    Error::Usage(format!(
        "unexpected value '{text}' for '--{long}' found; no more were expected"
    ))
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
    use crate::cmd;

    /// What a command line and the same settings as keywords give: the settings and job,
    /// or the message.
    fn both(argv: &[&str], keywords: &[(&str, Keyword)]) -> (String, String) {
        let clusters = argv.first() == Some(&"clusters");
        let argv = std::iter::once("neardup").chain(argv.iter().copied());
        let line = match clusters {
            true => (cmd::parse(argv))
                .and_then(|args| args.clusters_settings())
                .map(|plan| format!("{plan:?}")),
            false => (cmd::parse(argv))
                .and_then(|args| args.filter_settings())
                .map(|settings| format!("{settings:?}")),
        };
        let given = Keywords::new(keywords.iter().map(|(k, v)| (k.to_string(), v.clone())));
        let typed = match keywords.first() {
            Some(&("clusters", _)) => {
                let mut rest = given;
                rest.remove("clusters");
                cmd::clusters_keywords(rest).map(|plan| format!("{plan:?}"))
            }
            _ => cmd::filter_keywords(given).map(|settings| format!("{settings:?}")),
        };
        let shown = |r: Result<String>| r.unwrap_or_else(|e| format!("error: {e}"));
        (shown(line), shown(typed))
    }

    fn one(text: &str) -> Keyword {
        Keyword::One(text.to_string())
    }

    #[test]
    fn each_flag_as_a_keyword_gives_what_the_command_line_gives() {
        // The flag's choices, values of every type the table has, and texts no parser takes.
        const SAMPLES: &[&str] = &[
            "/nonexistent/x",
            "meta.name",
            "3",
            "64",
            "0.5",
            "3M",
            "1..3",
            "x",
            "-1",
            "",
        ];
        let mut compared = 0;
        for flag in defs::all() {
            let long = flag.long;
            let (on, many) = (
                format!("--{long}"),
                [format!("--{long}=3"), format!("--{long}=4")],
            );
            let mut cases: Vec<(Vec<String>, Keyword)> = vec![
                (vec![on.clone()], Keyword::Switch(true)),
                (many.to_vec(), Keyword::Many(vec!["3".into(), "4".into()])),
            ];
            for value in flag
                .choices()
                .iter()
                .map(String::as_str)
                .chain(SAMPLES.iter().copied())
            {
                cases.push((vec![format!("--{long}={value}")], one(value)));
            }
            for (argv, keyword) in cases {
                let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
                let (line, typed) = both(&argv, &[(long, keyword.clone())]);
                assert_eq!(line, typed, "{argv:?} and {long}={keyword:?}");
                compared += 1;
            }
        }
        assert!(compared > 300, "{compared}");
    }

    #[test]
    fn the_filters_and_clusters_own_keywords_and_their_refusals_match_the_command_line() {
        let t = Keyword::Switch(true);
        // A command line, and the same as keywords.
        type Case<'a> = (&'a [&'a str], &'a [(&'a str, Keyword)]);
        let cases: &[Case] = &[
            (&[], &[]),
            (&["--annotate"], &[("annotate", t.clone())]),
            (&["--pairs"], &[("pairs", t.clone())]),
            (&["--only-dups"], &[("only-dups", t.clone())]),
            (
                &["--annotate", "--pairs"],
                &[("annotate", t.clone()), ("pairs", t.clone())],
            ),
            (
                &["--against=a.jsonl", "--against=b.jsonl", "--against-only"],
                &[
                    (
                        "against",
                        Keyword::Many(vec!["a.jsonl".into(), "b.jsonl".into()]),
                    ),
                    ("against-only", t.clone()),
                ],
            ),
            (&["--against-only"], &[("against-only", t.clone())]),
            (
                &["--state=s", "--report=r.html"],
                &[("state", one("s")), ("report", one("r.html"))],
            ),
            (
                &["--pairs", "--report=r.html"],
                &[("pairs", t.clone()), ("report", one("r.html"))],
            ),
            (
                &["--idf=f", "--idf-warmup=3"],
                &[("idf-warmup", one("3")), ("idf", one("f"))],
            ),
            (&["--threshold=2"], &[("threshold", one("2"))]),
            (
                &["--weights=tfidf", "--idf-warmup=100", "-n", "3"],
                &[
                    ("weights", one("tfidf")),
                    ("idf-warmup", one("100")),
                    ("ngram", one("3")),
                ],
            ),
            (
                &[
                    "clusters",
                    "--by=cliques",
                    "--min-edge=0.9",
                    "--max-cluster=3",
                ],
                &[
                    ("clusters", t.clone()),
                    ("by", one("cliques")),
                    ("min-edge", one("0.9")),
                    ("max-cluster", one("3")),
                ],
            ),
            (
                &["clusters", "--by=rings"],
                &[("clusters", t.clone()), ("by", one("rings"))],
            ),
            (
                &["clusters", "--by="],
                &[("clusters", t.clone()), ("by", one(""))],
            ),
            (
                &["clusters", "--by"],
                &[("clusters", t.clone()), ("by", t.clone())],
            ),
            (
                &["clusters", "--min-edge=x"],
                &[("clusters", t.clone()), ("min-edge", one("x"))],
            ),
            (
                &["clusters", "--report=r.html", "--threshold=0.5"],
                &[
                    ("clusters", t.clone()),
                    ("report", one("r.html")),
                    ("threshold", one("0.5")),
                ],
            ),
        ];
        for (argv, keywords) in cases {
            let (line, typed) = both(argv, keywords);
            assert_eq!(line, typed, "{argv:?}");
        }
    }

    #[test]
    fn a_keyword_neither_the_table_nor_the_command_has_is_refused_by_name() {
        let given = Keywords::new([("no-such".to_string(), Keyword::Switch(true))]);
        let e = cmd::filter_keywords(given).unwrap_err().to_string();
        assert_eq!(e, "unexpected argument '--no-such' found");
        // A switch turned off is as if left out.
        let given = Keywords::new([("bag".to_string(), Keyword::Switch(false))]);
        assert!(cmd::filter_keywords(given).is_ok());
    }
}
