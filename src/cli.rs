//! The command line: clap definitions and their conversion into a [`Config`].
//!
//! This is the only module that knows clap. `Args::into_config` validates everything, so a
//! bad flag fails with exit code 2 before any input is read.

use crate::config::{
    BadLinePolicy, Config, DEFAULT_MAX_LINE_BYTES, DEFAULT_NGRAM, DEFAULT_NUM_PERM, DEFAULT_SEED,
    DEFAULT_THRESHOLD, InputFormat, Mode, PairsFormat, ShingleKind, VerifyMode,
};
use crate::error::Result;
use crate::normalize::Normalizer;
use clap::{ArgGroup, Parser, ValueEnum};
use std::path::PathBuf;

/// Find near-duplicate documents in a stream of lines.
///
/// Reads one document per line (plain text or JSON Lines) from FILEs or standard input and,
/// by default, writes every line that is not a near duplicate of an earlier line, unchanged
/// and in input order (--drop-dups). Documents are compared by the Jaccard similarity of their
/// word n-gram shingles: MinHash signatures and LSH banding find candidates among the recent
/// documents (--window), and every candidate is verified exactly before it counts.
///
/// Exit status: 0 on success (whether or not duplicates were found), 1 on a runtime error
/// (I/O, or a bad line under --on-bad-line fail), 2 on a usage error.
#[derive(Parser, Debug)]
#[command(name = "neardup", version, about, long_about, max_term_width = 100)]
#[command(group(ArgGroup::new("mode").args(["drop_dups", "only_dups", "annotate", "pairs"])))]
pub struct Args {
    /// Input files; '-' or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Write the lines that are not duplicates of an earlier line (the default mode).
    #[arg(long, help_heading = "Output")]
    pub drop_dups: bool,

    /// Write only the lines that --drop-dups would drop.
    #[arg(long, help_heading = "Output")]
    pub only_dups: bool,

    /// Write every document as JSON with a "neardup" member: dup_of, similarity, exact.
    ///
    /// JSON objects keep their members and gain "neardup"; plain-text lines become
    /// {"text": LINE, "neardup": {...}}. dup_of is the id of the most similar earlier
    /// document at or above the threshold (null if none).
    #[arg(long, help_heading = "Output")]
    pub annotate: bool,

    /// Write verified pairs (earlier id, later id, similarity) instead of documents.
    ///
    /// Every pair of documents in the window at or above the threshold, ordered by the later
    /// document, then the earlier.
    #[arg(long, help_heading = "Output")]
    pub pairs: bool,

    /// Format of --pairs output.
    #[arg(long, value_enum, default_value_t = PairsFormatArg::Tsv, value_name = "FORMAT", help_heading = "Output")]
    pub pairs_format: PairsFormatArg,

    /// Print a one-line JSON summary to stderr at the end.
    #[arg(long, help_heading = "Output")]
    pub stats: bool,

    /// Print no warnings or progress on stderr (errors are still printed).
    #[arg(short, long, help_heading = "Output")]
    pub quiet: bool,

    /// Flush the output after every batch of lines (for pipelines that need results early).
    #[arg(long, help_heading = "Output")]
    pub line_buffered: bool,

    /// Never show progress (it is shown only when stderr is a terminal anyway).
    #[arg(long, help_heading = "Output")]
    pub no_progress: bool,

    /// Input format: auto looks at the first non-empty line ('{' means JSON Lines).
    #[arg(long, value_enum, default_value_t = FormatArg::Auto, value_name = "FORMAT", help_heading = "Input")]
    pub format: FormatArg,

    /// Dotted path of the text field in JSON Lines input.
    #[arg(
        long,
        default_value = "text",
        value_name = "PATH",
        help_heading = "Input"
    )]
    pub field: String,

    /// Dotted path of the id field in JSON Lines input [default: the 1-based line number].
    #[arg(long, value_name = "PATH", help_heading = "Input")]
    pub id_field: Option<String>,

    /// What to do with a line that is not a document (invalid JSON or UTF-8, missing field,
    /// empty, too long).
    ///
    /// pass: write it through unchanged (in --drop-dups and --annotate; it is never a
    /// duplicate); skip: leave it out; fail: stop with exit status 1. Every bad line is
    /// counted; the first 10 are reported on stderr with their line numbers.
    #[arg(long, value_enum, default_value_t = BadLineArg::Pass, value_name = "POLICY", help_heading = "Input")]
    pub on_bad_line: BadLineArg,

    /// Lines longer than this many bytes are bad lines.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", help_heading = "Input")]
    pub max_line_bytes: usize,

    /// Remove HTML tags and decode HTML entities before tokenising.
    #[arg(long, help_heading = "Normalisation")]
    pub strip_html: bool,

    /// Treat punctuation and symbols as word separators.
    #[arg(long, help_heading = "Normalisation")]
    pub strip_punct: bool,

    /// Do not lower-case the text.
    #[arg(long, help_heading = "Normalisation")]
    pub keep_case: bool,

    /// Do not apply Unicode NFKC normalisation.
    #[arg(long, help_heading = "Normalisation")]
    pub no_nfkc: bool,

    /// Shingle length in words.
    #[arg(short = 'n', long, default_value_t = DEFAULT_NGRAM, value_name = "N", help_heading = "Similarity")]
    pub ngram: usize,

    /// Use shingles of N characters instead of words.
    #[arg(long, value_name = "N", help_heading = "Similarity")]
    pub char_ngram: Option<usize>,

    /// Multiset semantics: a repeated shingle counts once per occurrence.
    #[arg(long, help_heading = "Similarity")]
    pub bag: bool,

    /// Jaccard similarity at or above which a document is a duplicate, in (0, 1].
    #[arg(short, long, default_value_t = DEFAULT_THRESHOLD, value_name = "T", help_heading = "Similarity")]
    pub threshold: f64,

    /// How candidates are confirmed: exact Jaccard of the shingle sets, or none (trust the
    /// MinHash estimate and keep no shingles in memory).
    #[arg(long, value_enum, default_value_t = VerifyArg::Jaccard, value_name = "METHOD", help_heading = "Similarity")]
    pub verify: VerifyArg,

    /// Number of MinHash values per document (K).
    #[arg(short = 'k', long, default_value_t = DEFAULT_NUM_PERM, value_name = "K", help_heading = "MinHash and LSH")]
    pub num_perm: usize,

    /// LSH bands [default: chosen from --threshold].
    #[arg(long, value_name = "B", help_heading = "MinHash and LSH")]
    pub bands: Option<usize>,

    /// LSH rows per band [default: chosen from --threshold].
    #[arg(long, value_name = "R", help_heading = "MinHash and LSH")]
    pub rows: Option<usize>,

    /// Seed for shingle hashing and MinHash.
    #[arg(long, default_value_t = DEFAULT_SEED, value_name = "SEED", help_heading = "MinHash and LSH")]
    pub seed: u64,

    /// Keep at most N documents to compare with (least recently matched are evicted);
    /// 0 keeps all.
    #[arg(
        short,
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "MinHash and LSH"
    )]
    pub window: usize,

    /// Signing threads; 0 uses all cores.
    #[arg(
        short = 'j',
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "Performance"
    )]
    pub threads: usize,
}

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// Detect from the first non-empty line.
    Auto,
    /// One document per line.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// `--pairs-format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PairsFormatArg {
    /// id_a TAB id_b TAB similarity.
    Tsv,
    /// {"id_a":…,"id_b":…,"similarity":…}.
    Jsonl,
}

/// `--on-bad-line` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BadLineArg {
    /// Write through unchanged.
    Pass,
    /// Leave out.
    Skip,
    /// Stop with exit status 1.
    Fail,
}

/// `--verify` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum VerifyArg {
    /// Exact Jaccard of the shingle sets.
    Jaccard,
    /// Trust the MinHash estimate.
    None,
}

impl Args {
    /// Converts parsed arguments into a validated [`Config`].
    pub fn into_config(self) -> Result<Config> {
        let mode = if self.only_dups {
            Mode::OnlyDups
        } else if self.annotate {
            Mode::Annotate
        } else if self.pairs {
            Mode::Pairs
        } else {
            Mode::DropDups
        };
        Config {
            inputs: self.files,
            mode,
            pairs_format: match self.pairs_format {
                PairsFormatArg::Tsv => PairsFormat::Tsv,
                PairsFormatArg::Jsonl => PairsFormat::Jsonl,
            },
            format: match self.format {
                FormatArg::Auto => InputFormat::Auto,
                FormatArg::Text => InputFormat::Text,
                FormatArg::Jsonl => InputFormat::Jsonl,
            },
            field: self.field,
            id_field: self.id_field,
            normalizer: Normalizer {
                lowercase: !self.keep_case,
                nfkc: !self.no_nfkc,
                strip_html: self.strip_html,
                strip_punct: self.strip_punct,
            },
            shingle: match self.char_ngram {
                Some(n) => ShingleKind::Chars(n),
                None => ShingleKind::Words(self.ngram),
            },
            bag: self.bag,
            num_perm: self.num_perm,
            seed: self.seed,
            threshold: self.threshold,
            bands: self.bands,
            rows: self.rows,
            window: self.window,
            verify: match self.verify {
                VerifyArg::Jaccard => VerifyMode::Jaccard,
                VerifyArg::None => VerifyMode::None,
            },
            on_bad_line: match self.on_bad_line {
                BadLineArg::Pass => BadLinePolicy::Pass,
                BadLineArg::Skip => BadLinePolicy::Skip,
                BadLineArg::Fail => BadLinePolicy::Fail,
            },
            max_line_bytes: self.max_line_bytes,
            threads: self.threads,
            stats: self.stats,
            quiet: self.quiet,
            line_buffered: self.line_buffered,
            progress: !self.no_progress,
            ..Config::default()
        }
        .validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_app() {
        Args::command().debug_assert();
    }

    #[test]
    fn modes_are_exclusive() {
        assert!(Args::try_parse_from(["neardup", "--drop-dups", "--pairs"]).is_err());
        let c = Args::try_parse_from(["neardup", "--pairs", "-t", "0.5"])
            .unwrap()
            .into_config()
            .unwrap();
        assert_eq!(c.mode, Mode::Pairs);
        assert_eq!((c.lsh.bands, c.lsh.rows), (32, 4));
    }

    #[test]
    fn default_mode_is_drop_dups() {
        let c = Args::try_parse_from(["neardup", "x"])
            .unwrap()
            .into_config()
            .unwrap();
        assert_eq!(c.mode, Mode::DropDups);
        assert_eq!(c.inputs, vec![PathBuf::from("x")]);
    }
}
