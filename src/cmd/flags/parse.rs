//! Parsing a command line with the shared flags a command does not use refused.
//!
//! Every command has the same shared flags ([`super::defs::all`]), so without this
//! `neardup idf --verify lcs` would run and ignore `--verify`. A command's unused flags are
//! hidden from its `--help` ([`super::defs::uses`]) and, given on its command line, are a
//! usage error (exit 2) naming the flag.

use super::defs;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};

/// Parses a command line (the program name first): clap's errors, and a usage error naming
/// the first flag given to a command that does not use it.
pub fn parse<A, I, T>(argv: I) -> Result<A, clap::Error>
where
    A: CommandFactory + FromArgMatches,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut root = A::command();
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
fn unused_given(name: &str, matches: &ArgMatches) -> Option<&'static str> {
    let used = defs::uses(name);
    defs::all()
        .filter(|f| !used.contains(&f.group))
        .map(|f| f.long)
        .filter(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
        .min_by_key(|id| matches.index_of(id))
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
    fn every_command_named_in_the_table_is_a_command() {
        let root = Args::command();
        for &(name, _) in defs::USES {
            assert!(root.find_subcommand(name).is_some(), "{name}");
        }
    }

    #[test]
    fn help_leaves_unused_flags_out() {
        let mut root = Args::command();
        let help = root
            .find_subcommand_mut("idf")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(!help.contains("--max-memory") && !help.contains("--verify"));
        assert!(help.contains("--ngram"));
    }
}
