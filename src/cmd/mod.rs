//! The commands: one file each, holding its flags, their validation into engine settings,
//! and its run (the layout of xsv's `src/cmd/`). [`Args`] is the whole command line;
//! [`Args::run`] validates it (a usage error, exit code 2, before any input is read) and runs the
//! command. Only this folder knows clap.
//!
//! | command | file |
//! |---|---|
//! | the filter (`--drop-dups`, `--only-dups`, `--annotate`, `--pairs`) | [`filter`] |
//! | `graph` | [`graph`] |
//! | `clusters` | [`clusters`] |
//! | `explain` | [`explain`] |
//! | `idf` | [`idf`] |
//! | `tune` | [`tune`] |
//! | `hist` | [`hist`] |
//! | `report` | [`report`] |
//! | `sample` | [`sample`] |
//! | `sign` | [`sign`] |
//! | `state` | [`state`] |
//! | `verify-pairs` | [`verify_pairs`] |
//!
//! Shared by them: the flags most commands take and their conversion into settings
//! ([`args`]), the values of enumerated flags (`values`), which shared flags each command
//! uses (`flags`), and small helpers (`util`). This file is the list of commands and the
//! entry points: [`main`], [`parse`] and [`long_flags`].
//!
//! Without the `cli` feature (the Python module) clap is not linked: what is left is the
//! keyword path, [`filter_keywords`] and [`clusters_keywords`] over the flag table and each
//! command's [`Own`] list, and the lists the module reads ([`long_flags`],
//! [`command_line_only`], [`flag_defaults`]), which a test checks against clap's definitions.

/// Items of the command line alone (they need clap), left out without the `cli` feature.
macro_rules! cli_only {
    ($($item:item)*) => { $(#[cfg(feature = "cli")] $item)* };
}

pub mod args;
pub mod clusters;
pub mod filter;
pub mod flags;
mod values;
cli_only! {
    pub mod explain;
    pub mod graph;
    pub mod hist;
    pub mod idf;
    pub mod keep;
    mod plot;
    pub mod report;
    pub mod sample;
    pub mod sign;
    pub mod state;
    pub mod tune;
    mod util;
    pub mod verify_pairs;
}

use crate::config::Settings;
#[cfg(feature = "cli")]
use crate::error::Error;
use crate::error::Result;
use crate::job::Job;
use args::CommonArgs;
#[cfg(feature = "cli")]
use clap::{Parser, Subcommand};
use clusters::ClustersPlan;
use flags::keywords::Own;
#[cfg(feature = "cli")]
use std::ffi::OsString;
#[cfg(feature = "cli")]
use util::{clap_exit, fail, stdout_is_open};

#[cfg(feature = "cli")]
/// Find near-duplicate documents in a stream of lines.
///
/// Reads one document per line (plain text or JSON Lines) or per row (Parquet, Arrow) from
/// FILEs or standard input and, by default, writes every line (row) that is not a near
/// duplicate of an earlier one, unchanged and in input order (--drop-dups). Documents are compared by the Jaccard similarity of their
/// word n-gram shingles: MinHash signatures and LSH banding find candidates among the recent
/// documents (--window), and every candidate is verified exactly before it counts.
///
/// Commands: graph, clusters and explain group the verified pairs; idf counts document
/// frequencies for --weights tfidf; hist, sample and tune help choose n and the threshold;
/// sign writes LSH band keys for a distributed join (see 'neardup help COMMAND').
///
/// Exit status: 0 on success (whether or not duplicates were found), 1 on a runtime error
/// (I/O, or a bad line under --on-bad-line fail), 2 on a usage error, 130 or 143 when
/// --state saved the window on SIGINT or SIGTERM.
#[derive(Parser, Debug)]
#[command(
    name = "neardup",
    version,
    about = "Find near-duplicate documents in a stream of lines.",
    long_about,
    max_term_width = 100
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// A command other than filtering.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Filter-mode arguments.
    #[command(flatten)]
    pub filter: filter::FilterArgs,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

#[cfg(feature = "cli")]
/// The commands besides the default filter.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Write the similarity graph: documents as nodes, verified pairs as weighted edges.
    ///
    /// The graph is written at the end of input, nodes in input order, edges in the order
    /// they were found. Nodes carry the document id (label), a text snippet, the component
    /// and clique cluster they belong to, the component size, their degree and the
    /// --node-attr fields. Only documents with at least one edge are written unless
    /// --all-nodes is given.
    Graph(graph::GraphArgs),
    /// Write one JSON line per document: {"id", "cluster", "size"}, in input order.
    ///
    /// Clusters are connected components of the verified pairs (--by components), or
    /// disjoint cliques (--by cliques): every two members of a clique cluster are at or
    /// above the threshold, which splits chains whose ends share nothing.
    Clusters(clusters::ClustersArgs),
    /// Show how two documents are connected: the shortest chain of verified pairs, each
    /// hop's similarity and a word diff, and the two ends' own similarity.
    ///
    /// The input is read twice (standard input is copied to a file in --spill-dir for the
    /// second pass).
    Explain(explain::ExplainArgs),
    /// Count document frequencies and write an IDF file for --weights tfidf --idf FILE.
    ///
    /// Reads the corpus once (bad lines are skipped and counted) and writes a compact binary
    /// file to standard output: the number of documents, the shingling settings, and the
    /// document frequency of the --max-terms most frequent shingles (those seen at least
    /// twice). Shingles it does not list get the maximum IDF. Use the same --ngram,
    /// --char-ngram, --seed and normalisation flags as the runs that load it.
    Idf(idf::IdfArgs),
    /// Show the LSH bands x rows for a threshold and K: the S-curve P(candidate | J), the
    /// false-positive and false-negative areas, every alternative b x r = K, and an SVG plot.
    Tune(tune::TuneArgs),
    /// Histogram of pairwise Jaccard similarity per shingle length, to choose n and the
    /// threshold: a reservoir sample of the documents, every sampled pair exactly, a text
    /// table (counts and log10 per 0.05; pairs per million above common cut-offs) and an
    /// optional SVG plot with one curve per n. Use -n LO..HI for the lengths.
    Hist(hist::HistArgs),
    /// Example pairs per similarity bin, each with a word diff: what a threshold means on
    /// your data. Bins from 0.5 up are filled by LSH over all documents, lower bins from all
    /// pairs of a reservoir sample (--sample). The input is read more than once (standard
    /// input is copied to a file in --spill-dir).
    Sample(sample::SampleArgs),
    /// An HTML page about a --drop-dups run of the inputs, to standard output: the numbers
    /// of --stats, how similar the dropped documents were to what was kept, what other
    /// thresholds would drop, the largest groups, and borderline and random removals beside
    /// their match with the word diff (the filter's --report FILE writes the same page).
    Report(report::ReportArgs),
    /// Sign documents for a distributed join (a mapper for Spark's RDD.pipe or MapReduce):
    /// one line per document and LSH band, ID TAB BAND TAB KEY (16 hex digits), in input
    /// order; documents sharing a (BAND, KEY) are candidate pairs. --format jsonl writes one
    /// object per document instead; --signature adds the MinHash values.
    Sign(sign::SignArgs),
    /// Verify candidate pairs found elsewhere (e.g. by a Spark join of 'neardup sign' keys).
    ///
    /// Reads JSON Lines {"a": ID, "b": ID, "text_a": TEXT, "text_b": TEXT} and writes the
    /// pairs that pass the same check as the filter's (--verify chain, --threshold,
    /// weights), in input order, as --pairs does: A TAB B TAB SIMILARITY (or JSON with
    /// --pairs-format jsonl), ready for 'neardup clusters --from-edges'.
    VerifyPairs(verify_pairs::VerifyPairsArgs),
    /// Look at or compact a --state index directory: 'neardup state info DIR' prints what it
    /// holds ('--check' reads every record back), 'neardup state compact DIR' rewrites it
    /// without the records no longer used.
    State(state::StateArgs),
}

#[cfg(feature = "cli")]
impl Args {
    /// Validates the arguments and runs the command, writing to standard output and
    /// standard error.
    pub fn run(self) -> Result<()> {
        if self.command.is_none() {
            misplaced_command(&self.filter.input.files)?;
        }
        let common = self.common;
        // `-o FILE` of a command that writes lines: standard output becomes the file (the
        // filter decides itself, as it may write a table instead). A command that writes
        // one whole document at its end (`whole`) writes it beside FILE and puts it in place
        // when it succeeds. Neither `-o FILE` nor a redirected standard output may be one of
        // the inputs.
        let output = match &self.command {
            None => None,
            Some(Command::Graph(a)) => Some((a.common.output(), &a.input.files, true)),
            // `--keep` writes the survivors' rows, a table of them to FILE itself.
            Some(Command::Clusters(a)) => {
                Some((a.common.output(), &a.input.files, a.keep.is_none()))
            }
            Some(Command::Explain(a)) => Some((a.common.output(), &a.input.files, true)),
            Some(Command::Idf(a)) => Some((a.common.output(), &a.input.files, true)),
            Some(Command::Tune(a)) => Some((a.common.output(), &a.input.files, true)),
            Some(Command::Hist(a)) => Some((a.common.output(), &a.input.files, true)),
            Some(Command::Sample(a)) => Some((a.common.output(), &a.input.files, true)),
            Some(Command::Report(a)) => Some((a.common.output(), &a.input.files, true)),
            Some(Command::Sign(a)) => Some((a.common.output(), &a.input.files, false)),
            Some(Command::VerifyPairs(a)) => Some((a.common.output(), &a.files, false)),
            Some(Command::State(_)) => None,
        };
        let replacing = match output {
            Some((Some(path), inputs, true)) => util::redirect_stdout_whole(&path, inputs)?,
            Some((Some(path), inputs, false)) => {
                util::redirect_stdout(&path, inputs)?;
                None
            }
            Some((None, inputs, _)) => {
                util::refuse_input_as_stdout(inputs)?;
                None
            }
            None => None,
        };
        let ran = match self.command {
            None => self.filter.run(common),
            Some(Command::Graph(a)) => a.run(),
            Some(Command::Clusters(a)) => a.run(),
            Some(Command::Explain(a)) => a.run(),
            Some(Command::Idf(a)) => a.run(),
            Some(Command::Tune(a)) => a.run(),
            Some(Command::Hist(a)) => a.run(),
            Some(Command::Sample(a)) => a.run(),
            Some(Command::Report(a)) => a.run(),
            Some(Command::Sign(a)) => a.run(),
            Some(Command::VerifyPairs(a)) => a.run(),
            Some(Command::State(a)) => a.run(),
        };
        util::finish_whole(ran, replacing)
    }
}

#[cfg(feature = "cli")]
/// A filter's first input named like a command (`neardup -q graph f`: the options before
/// the command made clap take it for a file) and missing: a usage error naming the command,
/// not "opening graph: No such file".
fn misplaced_command(files: &[std::path::PathBuf]) -> Result<()> {
    use clap::CommandFactory;
    let Some(first) = files.first() else {
        return Ok(());
    };
    let Some(name) = first.to_str() else {
        return Ok(());
    };
    let known = Args::command()
        .get_subcommands()
        .any(|c| c.get_name() == name);
    if known && !first.exists() {
        return Err(Error::Usage(format!(
            "'{name}' is a command: give the options after it ('neardup {name} [OPTIONS] \
             FILE…'); a file of that name is ./{name}"
        )));
    }
    Ok(())
}

#[cfg(feature = "cli")]
/// Runs a whole command line (the program name first) as the binary does and returns the
/// exit code: 0 success (also when stdout is closed early, as with `| head`), 1 runtime
/// failure, 2 usage error. The `neardup` binary (also the Python package's `neardup-cli`)
/// calls this.
pub fn main<I, T>(argv: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match flags::parse::<Args, _, _>(argv) {
        Ok(args) => args,
        Err(e) => return clap_exit(&e),
    };
    // A closed stdout (`>&-`): Rust's stdout would take every write and drop it.
    if !stdout_is_open() {
        return fail(&Error::io(
            "writing output",
            std::io::Error::from_raw_os_error(libc::EBADF),
        ));
    }
    match args.run() {
        Ok(()) => 0,
        Err(e) if e.is_broken_pipe() => 0,
        // A run stopped where it can resume: its status (128 + the signal), quiet if asked.
        Err(Error::Stopped {
            status,
            message: None,
        }) => status as u8,
        Err(e) => fail(&e),
    }
}

/// The flags of the filter (`command` None) or `clusters` beside the shared ones, as the
/// keyword API lists them: the commands it serves (any other name gets the shared flags
/// alone).
fn own_flags(command: Option<&str>) -> Vec<Own> {
    let own: &[&[Own]] = match command {
        None => &[args::CommandInput::OWN, filter::OWN],
        Some("clusters") => &[
            args::CommandInput::OWN,
            clusters::OWN,
            args::GroupingArgs::OWN,
        ],
        Some(_) => &[],
    };
    own.concat()
}

/// The long flags (without `--`) the filter (`command` None) or `clusters` takes: what the
/// Python module names when a keyword is unknown.
pub fn long_flags(command: Option<&str>) -> Vec<String> {
    let own = own_flags(command).into_iter();
    (flags::defs::all().map(|f| f.long))
        .chain(own.filter(|o| !o.positional).map(|o| o.long))
        .map(str::to_string)
        .collect()
}

/// The flags of the filter (`command` None) or `clusters` that the Python API refuses by
/// name (it takes texts and returns values instead), with their other names: `files` for
/// the input files, and `help` (and the filter's `version`), which clap adds.
pub fn command_line_only(command: Option<&str>) -> Vec<String> {
    let generated = match command {
        None => &["help", "version"][..],
        Some(_) => &["help"],
    };
    let shared = (flags::defs::all()).filter(|f| !f.python).map(|f| f.long);
    let own = own_flags(command).into_iter().filter(|o| !o.keyword);
    let own = own.flat_map(|o| std::iter::once(o.long).chain(o.aliases.iter().copied()));
    (shared.chain(own).chain(generated.iter().copied()))
        .map(str::to_string)
        .collect()
}

/// The default of each flag of the filter (`command` None) or `clusters` that has one, as
/// the command line would be given it: `(long flag, value)`, `false` for a switch. The Python
/// module leaves out a keyword whose value is its flag's default, so the defaults live here
/// alone.
pub fn flag_defaults(command: Option<&str>) -> Vec<(String, String)> {
    use flags::flag::Value;
    let shared = flags::defs::all().filter_map(|f| match f.value {
        Value::Switch => Some((f.long, "false".to_string())),
        Value::One { default, .. } => default.map(|d| (f.long, d())),
        Value::List { default: [one], .. } => Some((f.long, one.to_string())),
        Value::List { .. } => None,
    });
    let own = own_flags(command).into_iter().filter(|o| !o.positional);
    let own = own.filter_map(|o| Some((o.long, (o.default?)())));
    (shared.chain(own))
        .map(|(long, value)| (long.to_string(), value))
        .collect()
}

#[cfg(feature = "cli")]
/// Parses a command line (the program name first) as the binary does, without running it,
/// with clap's message as a usage error (its first paragraph). `--help` and `--version` are
/// errors here too, whose message is the text they print. Programs that hold settings rather
/// than a command line use [`filter_keywords`] and [`clusters_keywords`].
pub fn parse<I, T>(argv: I) -> Result<Args>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    flags::parse::<Args, _, _>(argv).map_err(|e| {
        let text = e.render().to_string();
        // The first paragraph: what is wrong, without the pointer to --help.
        let first = text.split("\n\n").next().unwrap_or_default();
        Error::Usage(first.trim_start_matches("error: ").trim_end().to_string())
    })
}

/// The validated settings and job of the filter given as keywords rather than a command line
/// (the Python API): the shared flags read by their own parsers, with their defaults and the
/// command line's messages ([`flags::keywords`]), and the filter's own settings
/// ([`filter::FilterArgs::from_keywords`]).
pub fn filter_keywords(mut keywords: flags::keywords::Keywords) -> Result<(Settings, Job)> {
    let common = CommonArgs::from_keywords("neardup", &mut keywords)?;
    let filter = filter::FilterArgs::from_keywords(&mut keywords)?;
    keywords.finish()?;
    filter.settings(common)
}

/// The validated settings of `clusters` given as keywords (the Python API; without `keep`).
pub fn clusters_keywords(keywords: flags::keywords::Keywords) -> Result<ClustersPlan> {
    clusters::ClustersArgs::from_keywords(keywords)?.settings()
}

#[cfg(feature = "cli")]
impl Args {
    /// The validated settings and job of a filter command line (`--drop-dups`,
    /// `--only-dups`, `--annotate` or `--pairs`, with no command).
    pub fn filter_settings(self) -> Result<(Settings, Job)> {
        match self.command {
            None => self.filter.settings(self.common),
            Some(_) => Err(Error::Usage(
                "expected the filter's flags, not a command".into(),
            )),
        }
    }

    /// The validated settings of a `clusters` command line (without `--keep`).
    pub fn clusters_settings(self) -> Result<ClustersPlan> {
        match self.command {
            Some(Command::Clusters(args)) => args.settings(),
            _ => Err(Error::Usage("expected the 'clusters' command".into())),
        }
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
    use crate::config::PairsFormat;
    use crate::job::Output;
    use clap::CommandFactory;
    use std::path::PathBuf;

    /// The filter's (`command` None) or a command's command-line definition.
    fn definition(command: Option<&str>) -> clap::Command {
        let root = Args::command();
        match command {
            Some(name) => root.find_subcommand(name).cloned().unwrap_or(root),
            None => root,
        }
    }

    fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
        items.sort();
        items
    }

    /// The keyword API's lists of the filter's and `clusters`' flags, made without clap
    /// from the flag table and each command's [`Own`] list, are what clap's definitions
    /// say: every long flag, the defaults clap gives, and the flags the API refuses.
    #[test]
    fn the_keyword_lists_are_the_command_lines() {
        for command in [None, Some("clusters")] {
            let mut clap = definition(command);
            let longs = (clap.get_arguments())
                .filter_map(|a| a.get_long().map(str::to_string))
                .collect();
            assert_eq!(sorted(long_flags(command)), sorted(longs), "{command:?}");
            // Built: `--help`, `--version` and the switches' implied "false" are there.
            clap.build();
            let defaults = (clap.get_arguments())
                .filter_map(|a| match a.get_default_values() {
                    [value] => Some((a.get_long()?.to_string(), value.to_string_lossy().into())),
                    _ => None,
                })
                .collect();
            assert_eq!(
                sorted(flag_defaults(command)),
                sorted(defaults),
                "{command:?}"
            );
            // Every flag of clap's is a shared flag, one of the command's own or one clap
            // adds, and its names are refused when the table or the list says so.
            let own = own_flags(command);
            let mut refused = Vec::new();
            for a in clap.get_arguments() {
                let id = a.get_long().unwrap_or(a.get_id().as_str());
                let keyword = match (flags::defs::flag(id), own.iter().find(|o| o.long == id)) {
                    (Some(flag), _) => flag.python,
                    (None, Some(own)) => own.keyword,
                    (None, None) if ["help", "version"].contains(&id) => false,
                    (None, None) => panic!("{command:?}: --{id} is not in its Own list"),
                };
                if !keyword {
                    refused.extend(
                        (a.get_long_and_visible_aliases())
                            .unwrap_or_else(|| vec![a.get_id().as_str()])
                            .into_iter()
                            .map(str::to_string),
                    );
                }
            }
            assert_eq!(
                sorted(command_line_only(command)),
                sorted(refused),
                "{command:?}"
            );
        }
    }

    #[test]
    fn verify_app() {
        Args::command().debug_assert();
    }

    /// The defaults listed are the ones a command line without the flag runs with.
    #[test]
    fn flag_defaults_are_what_a_bare_command_line_gets() {
        let defaults: std::collections::HashMap<String, String> =
            flag_defaults(None).into_iter().collect();
        let (settings, _) = filter_settings(&["neardup"]);
        assert_eq!(defaults["threshold"], settings.verify.threshold.to_string());
        let n: usize = defaults["ngram"].parse().unwrap();
        assert_eq!(settings.text.shingle, crate::config::ShingleKind::Words(n));
        assert_eq!(
            defaults["max-candidates"],
            settings.max_candidates.to_string()
        );
        assert_eq!(defaults["against-only"], "false");
        assert_eq!(defaults["on-bad-line"], "pass");
        // A flag without a default is not listed; a command's own flags are.
        assert!(!defaults.contains_key("idf"));
        let clusters: Vec<_> = flag_defaults(Some("clusters"));
        assert!(
            clusters.contains(&("by".into(), "components".into())),
            "{clusters:?}"
        );
    }

    /// The flags the Python API refuses by name, over the filter and every command: those
    /// about files, formats and printing (the list the module kept by hand before the flag
    /// table said it per flag).
    #[test]
    fn the_python_api_refuses_the_command_line_only_flags() {
        let mut all: Vec<String> = [None, Some("clusters")]
            .into_iter()
            .flat_map(command_line_only)
            .collect();
        all.sort();
        all.dedup();
        let expected = [
            "annotate",
            "block-by",
            "checkpoint-every",
            "drop-dups",
            "field",
            "files",
            "format",
            "from-edges",
            "help",
            "id-field",
            "input-format",
            "keep",
            "line-buffered",
            "max-line-bytes",
            "no-progress",
            "only-dups",
            "pairs",
            "pairs-format",
            "replace-annotations",
            "stats",
            "version",
        ];
        assert_eq!(all, expected);
    }

    /// Every shared flag given alone (a switch on, a value other than its default) reaches
    /// the settings: the type its parser gives is the one `CommonArgs` reads it as, and the
    /// value is not lost on the way.
    #[test]
    fn every_shared_flag_given_alone_reaches_the_settings() {
        use flags::flag::Value;
        let input = args::CommandInput::default;
        let config_of = |argv: &[&str]| {
            let args = Args::try_parse_from(argv).ok()?;
            Some(format!("{:?}", args.common.config(input()).ok()?))
        };
        // Values tried in turn until one changes the settings: the flag's own choices, then
        // a path, a field path, numbers, a size; so a new flag needs no line here.
        const SAMPLES: &[&str] = &["/nonexistent/x", "meta.name", "3", "64", "0.5", "3M"];
        for flag in flags::defs::all() {
            // The text stages' bounds mean something with their stages only.
            let context: &[&str] = match flag.long {
                "max-edit" | "min-cosine" | "min-lcs" => &["--verify=jaccard,edit,cosine,lcs"],
                _ => &[],
            };
            let bare = [&["neardup"], context].concat();
            let unchanged = config_of(&bare).expect("a bare command line parses");
            let candidates: Vec<String> = match flag.value {
                Value::Switch => vec![format!("--{}", flag.long)],
                Value::One { .. } | Value::List { .. } => (flag.choices().into_iter())
                    .chain(SAMPLES.iter().map(|v| v.to_string()))
                    .map(|v| format!("--{}={v}", flag.long))
                    .collect(),
            };
            let changes = candidates.iter().find(|given| {
                config_of(&[&bare[..], &[given.as_str()]].concat())
                    .is_some_and(|config| config != unchanged)
            });
            assert!(
                changes.is_some(),
                "none of {candidates:?} changed the settings"
            );
        }
    }

    /// The filter's settings and job from a command line.
    fn filter_settings(argv: &[&str]) -> (Settings, Job) {
        let args = Args::try_parse_from(argv).unwrap();
        assert!(args.command.is_none());
        args.filter.settings(args.common).unwrap()
    }

    /// `Config::default()` is a bare command line's settings, so that a program using the
    /// library gets the defaults the binary has (memory limit, spill directory, ids …).
    #[test]
    fn config_default_is_a_bare_command_line() {
        let (cli, _) = filter_settings(&["neardup"]);
        let library = crate::Config::default().validate().unwrap();
        assert_eq!(format!("{library:#?}"), format!("{cli:#?}"));
    }

    #[test]
    fn modes_are_exclusive() {
        assert!(Args::try_parse_from(["neardup", "--drop-dups", "--pairs"]).is_err());
        let (c, job) = filter_settings(&["neardup", "--pairs", "-t", "0.5"]);
        assert_eq!(job, Job::Pairs(PairsFormat::Tsv.into()));
        assert_eq!((c.sketch.lsh.bands, c.sketch.lsh.rows), (35, 3));
    }

    #[test]
    fn default_mode_is_drop_dups() {
        let (c, job) = filter_settings(&["neardup", "x"]);
        assert_eq!(job, Job::Filter(Output::DropDups.into()));
        assert_eq!(c.inputs, vec![PathBuf::from("x")]);
    }
}
