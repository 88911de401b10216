//! The flags every command shares, each defined once ([`all`]: one file per `--help`
//! heading), and the groups of them each command takes ([`USES`]).
//!
//! From this table come the shared part of every command's clap definition ([`augment`]),
//! the refusal of a flag a command does not use ([`super::parse`]), the defaults and the
//! keywords the Python module reads ([`crate::cmd::flag_defaults`],
//! [`crate::cmd::command_line_only`]), and the man page's entries and the README's table
//! ([`super::man`], [`super::readme`]). Adding a
//! shared flag is one entry here, whose `set` names the setting it writes
//! (`set!(config.read.max_line_bytes = usize)`) and whose default is that setting's
//! `Default` (so the engine and the command line cannot disagree), and the stage that reads
//! the setting; `NEARDUP_BLESS=1 cargo test` then writes its man page entry and README row
//! ([`super::man`], [`super::readme`]). Only a flag whose value is combined with another's
//! (`--ngram` with `--char-ngram`, `--verify` with its bounds) or converted (`--spill-dir
//! none`) keeps a field of [`super::shared::Shared`] that
//! [`crate::cmd::args::CommonArgs::config`] reads.

use crate::cmd::values::NgramArg;
use crate::config::{
    BadLinePolicy, Compression, DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_DISK, DEFAULT_MAX_LINE_BYTES,
    DEFAULT_NGRAM, DEFAULT_NUM_PERM, DEFAULT_SEED, DEFAULT_THREADS, DEFAULT_THRESHOLD,
    DEFAULT_WINDOW, Decompress, HelperPolicy, OutputFormat, ReadSettings, RunSettings,
    SketchSettings, TextSettings, Weights,
};
use crate::sketch::lsh::DEFAULT_RECALL;
use crate::text::normalize::Words;
use crate::text::shingle::ShingleUnit;
use crate::verify::settings::{Method, StageBounds};
#[cfg(feature = "cli")]
use clap::Command;
#[cfg(feature = "cli")]
use std::path::PathBuf;

use super::flag::Group::*;
use super::flag::{Flag, Group, Value, parser, set};

mod input;
mod memory;
mod output;
mod performance;
mod similarity;
mod sketch;
mod text;

/// Every group.
const ALL: &[Group] = &[
    Output, Table, Input, Text, Shingles, Weights, Block, Verify, Sketch, Window, Memory,
    Candidates, Threads, Helpers,
];

/// The groups of shared flags each command takes; a command not listed (`neardup` alone,
/// the filter, and `clusters`) takes them all. `sign` and `verify-pairs` take the similarity
/// flags of both halves of a distributed join on purpose: the Spark job passes one set of
/// engine flags to both.
pub const USES: &[(&str, &[Group])] = &[
    ("idf", &[Output, Input, Text, Shingles, Threads]),
    ("hist", &[Output, Input, Text, Shingles, Threads]),
    (
        "tune",
        &[
            Output, Input, Text, Shingles, Weights, Block, Verify, Sketch, Candidates, Threads,
        ],
    ),
    (
        "graph",
        &[
            Output, Input, Text, Shingles, Weights, Block, Verify, Sketch, Window, Memory, Threads,
            Helpers,
        ],
    ),
    (
        "sign",
        &[
            Output, Input, Text, Shingles, Weights, Block, Verify, Sketch, Threads,
        ],
    ),
    (
        "verify-pairs",
        &[
            Output, Input, Text, Shingles, Weights, Block, Verify, Sketch, Memory, Threads,
        ],
    ),
    ("explain", EVERY_BUT_TABLE),
    ("sample", EVERY_BUT_TABLE),
    ("report", EVERY_BUT_TABLE),
];

/// What the commands that write no table take.
const EVERY_BUT_TABLE: &[Group] = &[
    Output, Input, Text, Shingles, Weights, Block, Verify, Sketch, Window, Memory, Candidates,
    Threads, Helpers,
];

/// The groups of shared flags `command` takes.
pub fn uses(command: &str) -> &'static [Group] {
    USES.iter()
        .find(|(name, _)| *name == command)
        .map_or(ALL, |(_, groups)| groups)
}

const OUTPUT: &str = "Output";
const INPUT: &str = "Input";
const NORMALISATION: &str = "Normalisation";
const SIMILARITY: &str = "Similarity";
const SKETCH: &str = "MinHash and LSH";
const MEMORY: &str = "Memory";
const PERFORMANCE: &str = "Performance";

/// What an entry leaves out.
const FLAG: Flag = Flag {
    long: "",
    set: |_, _| Ok(()),
    short: None,
    group: Output,
    heading: OUTPUT,
    value: Value::Switch,
    python: true,
    negative: false,
    conflicts: None,
    help: "",
    long_help: None,
    man: "",
    summary: "",
    default_text: None,
};

/// The shared flags by heading, in the order `--help` and the man page list them.
static HEADINGS: &[&[Flag]] = &[
    output::FLAGS,
    input::FLAGS,
    text::FLAGS,
    similarity::FLAGS,
    sketch::FLAGS,
    memory::FLAGS,
    performance::FLAGS,
];

/// Every shared flag, in the order `--help` lists them.
pub fn all() -> impl Iterator<Item = &'static Flag> + Clone {
    HEADINGS.iter().flat_map(|flags| flags.iter())
}

/// The shared flag `long`.
pub fn flag(long: &str) -> Option<&'static Flag> {
    all().find(|f| f.long == long)
}

#[cfg(feature = "cli")]
/// `command` with the shared flags added (clap's `Args::augment_args` of
/// [`crate::cmd::args::CommonArgs`]): the command's name says which it uses.
pub fn augment(command: Command) -> Command {
    let name = command.get_name().to_string();
    let used = uses(&name);
    command.args(all().map(|f| f.arg(!used.contains(&f.group))))
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_help_lines_are_one_sentence_each() {
        let flags: Vec<&Flag> = all().collect();
        for (i, f) in flags.iter().enumerate() {
            let later = &flags[i + 1..];
            assert!(later.iter().all(|g| g.long != f.long), "--{} twice", f.long);
            if let Some(c) = f.short {
                assert!(later.iter().all(|g| g.short != Some(c)), "-{c} twice");
            }
            // clap lists `help` after the flag on one line of `-h`; a long text is `long_help`.
            assert!(
                !f.help.contains('\n') && !f.help.ends_with('.'),
                "--{}",
                f.long
            );
            if let Some(other) = f.conflicts {
                assert!(
                    flag(other).is_some(),
                    "--{} conflicts with --{other}",
                    f.long
                );
            }
        }
    }

    /// A text each flag takes: its default, its first choice, or one of a few plain values.
    fn a_value_of(flag: &Flag) -> String {
        let mut candidates: Vec<String> = match flag.value {
            Value::Switch => return String::new(),
            Value::One {
                default: Some(default),
                ..
            } => vec![default()],
            Value::List { default, .. } => default.iter().map(|d| d.to_string()).collect(),
            Value::One { default: None, .. } => Vec::new(),
        };
        candidates.extend(flag.choices());
        candidates.extend(["3", "0.5", "512M", "words"].map(String::from));
        let mut scratch = crate::cmd::flags::shared::Shared::default();
        (candidates.into_iter())
            .find(|text| (flag.set)(&mut scratch, text.as_ref()).is_ok())
            .unwrap_or_else(|| panic!("--{} takes none of the texts tried", flag.long))
    }

    /// Each flag writes one field, its own: a value other than its default changes the
    /// settings (or `Shared`'s own field), at a field no other flag writes.
    #[test]
    fn each_flag_fills_its_own_field_and_no_other() {
        use crate::cmd::flags::shared::Shared;
        let empty = format!("{:?}", Shared::default());
        // The name of the field where `text` first differs from the empty settings'.
        let field_of = |text: &str| {
            let at = (text.bytes().zip(empty.bytes()))
                .position(|(a, b)| a != b)
                .unwrap_or(text.len().min(empty.len()));
            let before = &text[..at];
            let colon = before.rfind(": ").expect("a field before the change");
            let start = before[..colon]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            before[start..colon].to_string()
        };
        let mut written: Vec<(String, &str)> = Vec::new();
        for flag in all() {
            let mut texts: Vec<String> = match flag.value {
                Value::Switch => vec![String::new()],
                _ => ["3", "0.5", "512M", "words", "x"].map(String::from).into(),
            };
            texts.extend(flag.choices());
            let changed = texts.iter().find_map(|text| {
                let mut filled = Shared::default();
                (flag.set)(&mut filled, text.as_ref()).ok()?;
                let filled = format!("{filled:?}");
                (filled != empty).then(|| field_of(&filled))
            });
            let field = changed.unwrap_or_else(|| panic!("--{} changes nothing", flag.long));
            if let Some((_, other)) = written.iter().find(|(f, _)| *f == field) {
                panic!("--{} and --{other} both write {field}", flag.long);
            }
            written.push((field, flag.long));
        }
    }

    /// Each entry names its value's kind twice, for clap (`parse`) and for its field (`set`):
    /// both take and refuse the same texts.
    #[test]
    fn clap_and_the_setter_take_the_same_values() {
        let command = augment(Command::new("neardup"));
        for flag in all() {
            if let Value::Switch = flag.value {
                continue;
            }
            let mut texts: Vec<String> = ["", "0", "3", "-1", "0.5", "1.5", "512M", "x", "words"]
                .map(String::from)
                .into();
            texts.extend(flag.choices());
            texts.push(a_value_of(flag));
            for text in texts {
                let clap = (command.clone())
                    .try_get_matches_from(["neardup", &format!("--{}={text}", flag.long)])
                    .is_ok();
                let mut shared = crate::cmd::flags::shared::Shared::default();
                let set = (flag.set)(&mut shared, text.as_ref()).is_ok();
                assert_eq!(clap, set, "--{} {text:?}", flag.long);
            }
        }
    }

    #[test]
    fn every_group_has_a_flag_and_the_filter_takes_them_all() {
        for &group in ALL {
            assert!(all().any(|f| f.group == group), "{group:?}");
        }
        assert!(USES.iter().all(|(_, groups)| groups.contains(&Output)));
        assert_eq!(uses("neardup"), ALL);
        assert!(!uses("idf").contains(&Verify) && uses("graph").contains(&Verify));
    }
}
