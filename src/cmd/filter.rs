//! The default command: the stream filter (`--drop-dups`, `--only-dups`, `--annotate`,
//! `--pairs`).

use super::args::{CommandInput, CommonArgs};
use super::flags::keywords::{Keywords, Own};
#[cfg(feature = "cli")]
use super::values::parse_pairs_format;
use crate::config::PairsFormat;
use crate::config::{RunSettings, Settings};
use crate::error::{Error, Result};
#[cfg(feature = "cli")]
use crate::input::Input;
use crate::job::{FilterJob, Job, Output, PairsJob, Reference, StateFile};
#[cfg(feature = "cli")]
use crate::pipeline::{self, Prepared};
#[cfg(feature = "cli")]
use clap::ArgGroup;
#[cfg(feature = "cli")]
use std::io::Write;
use std::path::PathBuf;

/// `--checkpoint-every` left out: the state is saved at the end only.
const CHECKPOINT_EVERY: u64 = 0;

/// The filter's own flags as the keyword API lists them ([`Own`]), besides
/// [`CommandInput::OWN`]: the modes are the API's functions, not keywords.
pub const OWN: &[Own] = &[
    Own::switch("drop-dups", false),
    Own::switch("only-dups", false),
    Own::switch("annotate", false),
    Own::switch("replace-annotations", false),
    Own::switch("pairs", false),
    Own::taking("format", None, false).aka(&["pairs-format"]),
    Own::switch("line-buffered", false),
    Own::taking("against", None, true),
    Own::switch("against-only", true),
    Own::taking("state", None, true),
    Own::taking(
        "checkpoint-every",
        Some(|| CHECKPOINT_EVERY.to_string()),
        false,
    ),
    Own::taking("report", None, true),
];

/// Arguments of the default filter command.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "cli", command(group(ArgGroup::new("mode").args(["drop_dups", "only_dups", "annotate", "pairs"]))))]
pub struct FilterArgs {
    /// Write the lines that are not duplicates of an earlier kept line (the default mode).
    ///
    /// A document is compared with the documents kept so far, never with dropped ones, so
    /// no two kept documents in the window are at or above the threshold and nothing is
    /// dropped by chaining.
    #[cfg_attr(feature = "cli", arg(long, help_heading = "Output"))]
    pub drop_dups: bool,

    /// Write only the lines that --drop-dups would drop.
    #[cfg_attr(feature = "cli", arg(long, help_heading = "Output"))]
    pub only_dups: bool,

    /// Write every document as JSON with a "neardup" member: dup_of, similarity, exact.
    ///
    /// JSON objects keep their members and gain "neardup"; plain-text lines become
    /// {"text": LINE, "neardup": {...}}. dup_of is the id of the most similar kept earlier
    /// document found at or above the threshold (null if none).
    #[cfg_attr(feature = "cli", arg(long, help_heading = "Output"))]
    pub annotate: bool,

    /// With --annotate on a table that already has neardup_* columns (an annotated table
    /// deduplicated again): leave those out and write new ones in their place.
    ///
    /// Without it such a table is refused, since two columns of one name make a table other
    /// readers refuse.
    #[cfg_attr(
        feature = "cli",
        arg(long, requires = "annotate", help_heading = "Output")
    )]
    pub replace_annotations: bool,

    /// Write verified pairs (earlier id, later id, similarity) instead of documents.
    ///
    /// Every pair of documents in the window at or above the threshold, ordered by the later
    /// document, then the earlier.
    #[cfg_attr(feature = "cli", arg(long, help_heading = "Output"))]
    pub pairs: bool,

    /// Output format of --pairs: tsv or jsonl (the other modes write input lines, or JSON
    /// with --annotate). The input's format is --input-format.
    #[cfg_attr(feature = "cli", arg(long, visible_alias = "pairs-format", value_parser = parse_pairs_format, value_name = "FORMAT", help_heading = "Output"))]
    pub format: Option<PairsFormat>,

    /// Flush the output after every batch of lines. Not needed for a live input: whenever it
    /// pauses, what is decided so far is flushed.
    #[cfg_attr(feature = "cli", arg(long, help_heading = "Output"))]
    pub line_buffered: bool,

    /// Input files and `--input-format`.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub input: CommandInput,

    /// Drop (or annotate) input documents that are near duplicates of a document in FILE: a
    /// corpus file (any input format, compressed or not) or a saved --state file. The
    /// reference is held in memory whole, never written, never modified; repeat for more.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", help_heading = "Reference")
    )]
    pub against: Vec<PathBuf>,

    /// With --against: compare the input with the reference only (its own duplicates are
    /// kept, and nothing of it is held in memory).
    #[cfg_attr(
        feature = "cli",
        arg(long, requires = "against", help_heading = "Reference")
    )]
    pub against_only: bool,

    /// Resume from FILE (the window, its LSH buckets and verification data, the IDF table,
    /// the line count) when it exists, and save to it at the end of input, and on
    /// SIGINT/SIGTERM (exit 130/143) or a closed output (exit 1) with the output not yet
    /// written, which the resumed run writes first. One run at a time may hold FILE.
    /// Settings that shape the window must match the saved ones.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", help_heading = "State")
    )]
    pub state: Option<PathBuf>,

    /// With --state: also save after every N documents, at the end of the batch that
    /// reaches N (0: only at the end). Refused with a table output (Parquet, Arrow, rows to
    /// -o FILE), which is written whole at the end.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = CHECKPOINT_EVERY, value_name = "N", help_heading = "State")
    )]
    pub checkpoint_every: u64,

    /// Also write an HTML page about the run to FILE, at its end: the numbers of --stats,
    /// the similarities of the dropped documents and of those just below the threshold,
    /// what other thresholds would drop, the largest groups, and borderline and random
    /// removals beside their kept match with the word diff. One file, no network needed.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", help_heading = "Output")
    )]
    pub report: Option<PathBuf>,
}

impl FilterArgs {
    /// The filter's own settings given as keywords (the Python API): the mode, the
    /// reference, the state and the report, refused as the command line refuses them. The
    /// keywords about files and formats are the command line's alone; `keywords` is left
    /// with what the filter does not take.
    pub fn from_keywords(keywords: &mut Keywords) -> Result<Self> {
        let mut modes = Vec::new();
        for mode in ["drop-dups", "only-dups", "annotate", "pairs"] {
            if keywords.switch(mode)? {
                modes.push(mode);
            }
        }
        if let [first, second, ..] = modes[..] {
            return Err(Error::Usage(format!(
                "the argument '--{first}' cannot be used with '--{second}'"
            )));
        }
        let mode = |name| modes.contains(&name);
        let against = keywords.many("against", "FILE")?;
        let against_only = keywords.switch("against-only")?;
        if against_only && against.is_empty() {
            return Err(Error::Usage(
                "the following required arguments were not provided:\n  --against <FILE>".into(),
            ));
        }
        Ok(FilterArgs {
            input: CommandInput::default(),
            drop_dups: mode("drop-dups"),
            only_dups: mode("only-dups"),
            annotate: mode("annotate"),
            replace_annotations: false,
            pairs: mode("pairs"),
            format: None,
            line_buffered: false,
            against,
            against_only,
            state: keywords.one("state", "FILE")?,
            checkpoint_every: CHECKPOINT_EVERY,
            report: keywords.one("report", "FILE")?,
        })
    }

    /// The validated settings of the filter, and its job (the filter or `--pairs`).
    pub fn settings(self, common: CommonArgs) -> Result<(Settings, Job)> {
        if let (Some(format), false) = (self.format, self.pairs) {
            let name = format!("{format:?}").to_lowercase();
            return Err(Error::Usage(format!(
                "--format {name} is the output's format of --pairs; this mode writes input \
                 lines (or JSON with --annotate); for the input's format use --input-format \
                 {name}"
            )));
        }
        let mut config = common.config(self.input)?;
        config.run = RunSettings {
            line_buffered: self.line_buffered,
            replace_annotations: self.replace_annotations,
            ..config.run
        };
        let config = config.validate()?;
        let state = StateFile::new(self.state, self.checkpoint_every)?;
        let reference = Reference::new(self.against, self.against_only, &config.inputs)?;
        let output = if self.only_dups {
            Output::OnlyDups
        } else if self.annotate {
            Output::Annotate
        } else {
            Output::DropDups
        };
        let job = match self.pairs {
            false => Job::Filter(FilterJob {
                output,
                against: reference,
                state,
                report: self.report,
            }),
            true if !reference.is_empty() => {
                return Err(Error::config(
                    "against",
                    "only the filter modes (‹drop-dups›, ‹only-dups›, ‹annotate›) filter \
                     against a reference",
                ));
            }
            true if self.report.is_some() => {
                return Err(Error::config(
                    "report",
                    "only the filter modes (‹drop-dups›, ‹only-dups›, ‹annotate›), `graph` \
                     and `clusters` write a report; for ‹pairs› use `neardup hist` and \
                     `neardup sample`",
                ));
            }
            true => Job::Pairs(PairsJob {
                format: self.format.unwrap_or(PairsFormat::Tsv),
                state,
            }),
        };
        Ok((config, job))
    }

    /// Filters the inputs to standard output.
    #[cfg(feature = "cli")]
    pub fn run(self, common: CommonArgs) -> Result<()> {
        let (config, job) = self.settings(common)?;
        run_prepared(
            &Prepared::new(config)?.with_standard_output(crate::stdout::for_table),
            &job,
        )
    }
}

#[cfg(feature = "cli")]
/// Runs `job` (the filter, `--pairs` or `sign`) from its inputs to standard output;
/// `--stats` prints the summary.
pub(super) fn run_prepared(prepared: &Prepared, job: &Job) -> Result<()> {
    let config = &prepared.config;
    // Nothing the run writes may be one of its inputs: each is refused before anything is
    // read or truncated.
    let files = &config.inputs;
    match &config.run.output {
        Some(path) => super::util::refuse_input_as("-o", path, files)?,
        None => super::util::refuse_input_as_stdout(files)?,
    }
    if let Some(path) = job.report() {
        super::util::refuse_input_as("--report", path, files)?;
    }
    if let Some(state) = job.state() {
        super::util::refuse_input_as("--state", &state.path, files)?;
    }
    let mut inputs = Input::open_all(files, config.read.decompress)?;
    // `-o FILE` of lines: standard output becomes the file; a table writes FILE itself.
    if let Some(path) = &config.run.output
        && pipeline::prepare::table_encoding(config, job, &mut inputs)?.is_none()
    {
        super::util::redirect_stdout(path, files)?;
    }
    let mut stderr = super::util::diagnostics();
    let terminal = pipeline::stderr_is_terminal();
    let (summary, report) = pipeline::run_reporting(
        prepared,
        job,
        inputs,
        // Every run stops at a whole line on SIGINT/SIGTERM, also while its pipe is full.
        crate::stdout::Stdout::new().stoppable(true),
        &mut stderr,
        terminal,
    )?;
    let stats = summary.to_json();
    if config.stats {
        let _ = writeln!(stderr, "{stats}");
    }
    if let (Some(path), Some(report)) = (job.report(), report) {
        let mode = crate::report::filter_mode(
            job.output().unwrap_or(Output::DropDups),
            crate::error::Wording::Flags,
        );
        crate::report::write(config, mode, false, &stats, &report, path)?;
    }
    Ok(())
}
