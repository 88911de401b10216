//! Which of the shared flags ([`super::args::CommonArgs`]) each command uses.
//!
//! Every command flattens the same shared flags, so without this `neardup idf --verify lcs`
//! would run and ignore `--verify`. A command's unused flags are hidden from its `--help`
//! and, given on its command line, are a usage error (exit 2) naming the flag.

use clap::parser::ValueSource;
use clap::{ArgMatches, Command, CommandFactory, FromArgMatches};

/// The flags where documents are held (the LSH window and its memory).
const WINDOW: &[&str] = &[
    "window",
    "max_memory",
    "spill_dir",
    "spill_cache",
    "max_disk",
];

/// The flags of the exact check of a candidate.
const VERIFY: &[&str] = &["threshold", "verify", "max_edit", "min_cosine", "min_lcs"];

/// The flags of MinHash and LSH.
const SKETCH: &[&str] = &["exact", "num_perm", "bands", "rows", "recall"];

/// The flags of shingle weights.
const WEIGHTS: &[&str] = &["weights", "idf", "idf_warmup"];

/// The flags of a table output (Parquet, Arrow): the filter modes write rows.
const TABLE: &[&str] = &["output_format", "compression"];

/// Per command, the shared flags (argument ids) it does not use, by group. `sign` and
/// `verify-pairs` take the similarity flags of both halves of a distributed join on purpose:
/// the Spark job passes one set of engine flags to both.
const UNUSED: &[(&str, &[&[&str]])] = &[
    (
        "idf",
        &[
            WINDOW,
            VERIFY,
            SKETCH,
            WEIGHTS,
            &["block_by", "max_candidates", "helpers"],
            TABLE,
        ],
    ),
    (
        "hist",
        &[
            WINDOW,
            VERIFY,
            SKETCH,
            WEIGHTS,
            &["block_by", "max_candidates", "helpers"],
            TABLE,
        ],
    ),
    ("tune", &[WINDOW, &["helpers"], TABLE]),
    ("graph", &[&["max_candidates"], TABLE]),
    ("sign", &[WINDOW, &["max_candidates", "helpers"], TABLE]),
    (
        "verify-pairs",
        &[&["window", "max_candidates", "helpers"], TABLE],
    ),
    ("explain", &[TABLE]),
    ("sample", &[TABLE]),
    ("report", &[TABLE]),
];

/// The command line's definition `A` with each command's unused shared flags hidden.
pub fn command<A: CommandFactory>() -> Command {
    let mut root = A::command();
    for &(name, groups) in UNUSED {
        root = root.mut_subcommand(name, |mut sub| {
            for id in groups.iter().copied().flatten() {
                sub = sub.mut_arg(*id, |a| a.hide(true));
            }
            sub
        });
    }
    root
}

/// Parses a command line (the program name first): clap's errors, and a usage error naming
/// the first flag given to a command that does not use it.
pub fn parse<A, I, T>(argv: I) -> Result<A, clap::Error>
where
    A: CommandFactory + FromArgMatches,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut root = command::<A>();
    let matches = root.try_get_matches_from_mut(argv)?;
    if let Some((name, sub)) = matches.subcommand()
        && let Some(flag) = unused_given(name, sub)
    {
        let command = root.find_subcommand_mut(name).expect("a parsed command");
        return Err(command.error(
            clap::error::ErrorKind::ArgumentConflict,
            format!("'neardup {name}' does not use --{flag}"),
        ));
    }
    A::from_arg_matches(&matches)
}

/// The first shared flag on `name`'s command line that `name` does not use.
fn unused_given(name: &str, matches: &ArgMatches) -> Option<String> {
    let (_, groups) = UNUSED.iter().find(|(n, _)| *n == name)?;
    groups
        .iter()
        .copied()
        .flatten()
        .filter(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
        .min_by_key(|id| matches.index_of(id))
        .map(|id| id.replace('_', "-"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::Args;

    fn parse<const N: usize>(argv: [&str; N]) -> Result<Args, clap::Error> {
        super::parse(argv)
    }

    fn usage_error(argv: &[&str]) -> String {
        match super::parse::<Args, _, _>(argv) {
            Ok(_) => panic!("{argv:?} parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_flag_a_command_does_not_use_is_refused_by_name() {
        let e = usage_error(&["neardup", "idf", "--weights", "tfidf", "f"]);
        assert!(e.contains("'neardup idf' does not use --weights"), "{e}");
        let e = usage_error(&["neardup", "hist", "--max-memory", "1G", "f"]);
        assert!(e.contains("--max-memory"), "{e}");
        let e = usage_error(&["neardup", "sign", "--max-candidates", "8", "f"]);
        assert!(e.contains("--max-candidates"), "{e}");
    }

    #[test]
    fn used_flags_and_defaults_pass() {
        parse(["neardup", "idf", "-n", "3", "--seed", "7", "f"]).unwrap();
        parse([
            "neardup",
            "sign",
            "-t",
            "0.5",
            "--verify",
            "jaccard,edit",
            "f",
        ])
        .unwrap();
        parse(["neardup", "verify-pairs", "--bands", "8", "--rows", "4"]).unwrap();
        parse(["neardup", "--max-candidates", "8", "--window", "9", "f"]).unwrap();
        parse(["neardup", "clusters", "--max-candidates", "8", "f"]).unwrap();
    }

    #[test]
    fn every_listed_flag_is_a_shared_flag_of_that_command() {
        let root = Args::command();
        for &(name, groups) in UNUSED {
            let sub = root.find_subcommand(name).expect(name);
            for id in groups.iter().copied().flatten() {
                assert!(
                    sub.get_arguments().any(|a| a.get_id() == *id),
                    "{name} {id}"
                );
            }
        }
    }

    #[test]
    fn help_leaves_unused_flags_out() {
        let mut root = command::<Args>();
        let help = root
            .find_subcommand_mut("idf")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(!help.contains("--max-memory") && !help.contains("--verify"));
        assert!(help.contains("--ngram"));
    }
}
