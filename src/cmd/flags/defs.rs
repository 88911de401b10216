//! The flags every command shares, each defined once ([`FLAGS`]), and the groups of them
//! each command takes ([`USES`]).
//!
//! From this table come the shared part of every command's clap definition ([`augment`]),
//! the refusal of a flag a command does not use ([`super::parse`]), the defaults and the
//! keywords the Python module reads ([`crate::cmd::flag_defaults`],
//! [`crate::cmd::command_line_only`]), and the checks that the README and the man page give
//! each flag with its default (`tests/docs.rs`). Adding a shared flag is one entry here plus
//! the line of [`crate::cmd::args::CommonArgs`]'s `config_of` that puts its value into the
//! settings.

use crate::cmd::values::{NgramArg, ShingleArg, VerifyArg, choice, parse_size};
use crate::config::{
    BadLinePolicy, Compression, DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_LINE_BYTES, DEFAULT_NGRAM,
    DEFAULT_NUM_PERM, DEFAULT_SEED, DEFAULT_THRESHOLD, Decompress, HelperPolicy, OutputFormat,
    Weights,
};
use crate::sketch::lsh::DEFAULT_RECALL;
use crate::text::normalize::Words;
use clap::builder::EnumValueParser;
use clap::{Command, value_parser};
use std::path::PathBuf;

use super::flag::Group::*;
use super::flag::{Flag, Group, Value};

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
    short: None,
    group: Output,
    heading: OUTPUT,
    value: Value::Switch,
    python: true,
    negative: false,
    conflicts: None,
    help: "",
    long_help: None,
};

/// The shared flags, in the order `--help` lists them.
pub static FLAGS: &[Flag] = &[
    Flag {
        long: "stats",
        group: Group::Output,
        heading: OUTPUT,
        value: Value::Switch,
        python: false,
        help: "Print a one-line JSON summary to stderr at the end",
        ..FLAG
    },
    Flag {
        long: "output",
        short: Some('o'),
        group: Group::Output,
        heading: OUTPUT,
        value: Value::One {
            name: "FILE",
            default: None,
            parse: || value_parser!(PathBuf),
        },
        help: "Write the output to FILE instead of standard output. A table (Parquet, Arrow) is \
            written under a temporary name and renamed to FILE when the run ends; a failed run \
            leaves FILE as it was",
        ..FLAG
    },
    Flag {
        long: "output-format",
        group: Group::Table,
        heading: OUTPUT,
        value: Value::One {
            name: "FORMAT",
            default: Some(|| OutputFormat::Auto.to_string()),
            parse: || choice::<OutputFormat>().into(),
        },
        help: "What the filter modes write: auto goes by -o FILE's extension (.parquet, .arrow), \
            else by the input (Parquet or Arrow rows as a table of their kind, lines as \
            lines); lines writes Parquet or Arrow rows as JSON objects",
        ..FLAG
    },
    Flag {
        long: "compression",
        group: Group::Table,
        heading: OUTPUT,
        value: Value::One {
            name: "CODEC",
            default: None,
            parse: || choice::<Compression>().into(),
        },
        help: "Parquet output's compression [default: zstd]",
        ..FLAG
    },
    Flag {
        long: "quiet",
        short: Some('q'),
        group: Group::Output,
        heading: OUTPUT,
        value: Value::Switch,
        help: "Print no warnings or progress on stderr (errors are still printed)",
        ..FLAG
    },
    Flag {
        long: "no-progress",
        group: Group::Output,
        heading: OUTPUT,
        value: Value::Switch,
        python: false,
        help: "Never show progress (it is shown only when stderr is a terminal anyway)",
        ..FLAG
    },
    Flag {
        long: "field",
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "PATH",
            default: Some(|| "text".into()),
            parse: || value_parser!(String),
        },
        python: false,
        help: "Dotted path of the text field in JSON Lines input",
        ..FLAG
    },
    Flag {
        long: "id-field",
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "PATH",
            default: None,
            parse: || value_parser!(String),
        },
        python: false,
        help: "Dotted path of the id field in JSON Lines input. Default: the `id` field when each \
            of the first lines has one (a string or an integer; said once on stderr), else the \
            1-based line number; 'none': line numbers always",
        ..FLAG
    },
    Flag {
        long: "on-bad-line",
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "POLICY",
            default: Some(|| BadLinePolicy::Pass.to_string()),
            parse: || choice::<BadLinePolicy>().into(),
        },
        help: "What to do with a line that is not a document (invalid JSON or UTF-8, missing \
            field, empty, too long)",
        long_help: Some(
            "What to do with a line that is not a document (invalid JSON or UTF-8, missing \
            field, empty, too long).\n\npass: write it through unchanged (in --drop-dups and \
            --annotate; it is never a duplicate); skip: leave it out; fail: stop with exit \
            status 1. Every bad line is counted; the first 10 are reported on stderr with \
            their line numbers.",
        ),
        ..FLAG
    },
    Flag {
        long: "max-line-bytes",
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "BYTES",
            default: Some(|| DEFAULT_MAX_LINE_BYTES.to_string()),
            parse: || value_parser!(usize).into(),
        },
        python: false,
        help: "Lines longer than this many bytes are bad lines",
        ..FLAG
    },
    Flag {
        long: "decompress",
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "HOW",
            default: Some(|| Decompress::Auto.to_string()),
            parse: || choice::<Decompress>().into(),
        },
        help: "How inputs are decompressed: auto recognises gzip, zstd and xz by their first \
            bytes and bzip2 by its header and first block; none reads every input as it is",
        ..FLAG
    },
    Flag {
        long: "strip-html",
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Remove HTML tags and decode HTML entities before tokenising",
        ..FLAG
    },
    Flag {
        long: "strip-punct",
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Treat punctuation and symbols as word separators",
        ..FLAG
    },
    Flag {
        long: "keep-case",
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Do not lower-case the text",
        ..FLAG
    },
    Flag {
        long: "no-nfkc",
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Do not apply Unicode NFKC normalisation",
        ..FLAG
    },
    Flag {
        long: "words",
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::One {
            name: "WORDS",
            default: Some(|| Words::Unicode.to_string()),
            parse: || choice::<Words>().into(),
        },
        help: "What a word is: unicode (runs between white space, but each character of Chinese, \
            Japanese, Thai, Lao, Khmer, Myanmar and other scripts written without spaces is a \
            word of its own) or spaces (runs between white space only, as earlier versions \
            did; a Chinese sentence is then one word)",
        ..FLAG
    },
    Flag {
        long: "ngram",
        short: Some('n'),
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "N",
            default: Some(|| DEFAULT_NGRAM.to_string()),
            parse: || value_parser!(NgramArg).into(),
        },
        help: "Shingle length in words (hist: a range such as 1..7)",
        ..FLAG
    },
    Flag {
        long: "shingle",
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "KIND",
            default: Some(|| "words".into()),
            parse: || EnumValueParser::<ShingleArg>::new().into(),
        },
        help: "What a shingle is: words (-n consecutive words), chars (-n consecutive characters, \
            or --char-ngram), or stopword (spot signatures: at each stop word, the stop word \
            and the next -n words that are not stop words; robust to boilerplate around the \
            text)",
        ..FLAG
    },
    Flag {
        long: "stopwords",
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "FILE",
            default: None,
            parse: || value_parser!(PathBuf),
        },
        help: "Stop words for --shingle stopword, one per line [default: a built-in English list]",
        ..FLAG
    },
    Flag {
        long: "char-ngram",
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "N",
            default: None,
            parse: || value_parser!(usize).into(),
        },
        help: "Use shingles of N characters instead of words",
        ..FLAG
    },
    Flag {
        long: "weights",
        group: Group::Weights,
        heading: SIMILARITY,
        value: Value::One {
            name: "WEIGHTS",
            default: Some(|| Weights::Set.to_string()),
            parse: || choice::<Weights>().into(),
        },
        help: "Shingle weights: set (each distinct shingle weighs 1), tf (counts: weighted \
            Jaccard of shingle counts, the same as --bag) or tfidf (tf x idf; needs --idf or \
            --idf-warmup)",
        ..FLAG
    },
    Flag {
        long: "idf",
        group: Group::Weights,
        heading: SIMILARITY,
        value: Value::One {
            name: "FILE",
            default: None,
            parse: || value_parser!(PathBuf),
        },
        help: "Document frequencies for --weights tfidf, from 'neardup idf'",
        conflicts: Some("idf-warmup"),
        ..FLAG
    },
    Flag {
        long: "idf-warmup",
        group: Group::Weights,
        heading: SIMILARITY,
        value: Value::One {
            name: "N",
            default: Some(|| 0.to_string()),
            parse: || value_parser!(usize).into(),
        },
        help: "Learn document frequencies for --weights tfidf from the first N lines, then freeze \
            them and process those lines and the rest of the stream with the same weights",
        ..FLAG
    },
    Flag {
        long: "block-by",
        group: Group::Block,
        heading: SIMILARITY,
        value: Value::One {
            name: "PATH",
            default: None,
            parse: || value_parser!(String),
        },
        python: false,
        help: "Only compare documents whose JSON field PATH has the same value (e.g. the date, as \
            in news deduplication); documents without it form one block of their own",
        ..FLAG
    },
    Flag {
        long: "bag",
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::Switch,
        help: "Multiset semantics: a repeated shingle counts once per occurrence",
        ..FLAG
    },
    Flag {
        long: "threshold",
        short: Some('t'),
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "T",
            default: Some(|| DEFAULT_THRESHOLD.to_string()),
            parse: || value_parser!(f64).into(),
        },
        help: "Jaccard similarity at or above which a document is a duplicate, in (0, 1]",
        negative: true,
        ..FLAG
    },
    Flag {
        long: "verify",
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::List {
            name: "METHODS",
            default: &["jaccard"],
            parse: || EnumValueParser::<VerifyArg>::new().into(),
        },
        help: "How candidates are confirmed, as a comma-separated chain: jaccard (exact Jaccard \
            of the shingles, at least --threshold), none alone (trust the MinHash estimate; no \
            shingles kept), and the text stages edit (relative edit distance at most \
            --max-edit), cosine (word-count cosine at least --min-cosine), lcs (longest common \
            substring / shorter length at least --min-lcs). Without jaccard the text stages \
            decide alone. Text stages keep each windowed document's normalised text",
        ..FLAG
    },
    Flag {
        long: "max-edit",
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "D",
            default: Some(|| 0.05.to_string()),
            parse: || value_parser!(f64).into(),
        },
        help: "--verify edit: largest relative edit distance (distance / longer length, \
            characters)",
        negative: true,
        ..FLAG
    },
    Flag {
        long: "min-cosine",
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "C",
            default: Some(|| 0.95.to_string()),
            parse: || value_parser!(f64).into(),
        },
        help: "--verify cosine: smallest cosine similarity of the word counts",
        negative: true,
        ..FLAG
    },
    Flag {
        long: "min-lcs",
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "R",
            default: Some(|| 0.6.to_string()),
            parse: || value_parser!(f64).into(),
        },
        help: "--verify lcs: smallest longest-common-substring ratio (to the shorter text)",
        negative: true,
        ..FLAG
    },
    Flag {
        long: "exact",
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::Switch,
        help: "Exact similarity join (All-Pairs prefix filtering) instead of MinHash + LSH: every \
            pair at or above --threshold in the window is found (set or bag semantics)",
        ..FLAG
    },
    Flag {
        long: "num-perm",
        short: Some('k'),
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "K",
            default: Some(|| DEFAULT_NUM_PERM.to_string()),
            parse: || value_parser!(usize).into(),
        },
        help: "Number of MinHash values per document (K)",
        ..FLAG
    },
    Flag {
        long: "bands",
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "B",
            default: None,
            parse: || value_parser!(usize).into(),
        },
        help: "LSH bands [default: chosen from --threshold and --recall]",
        ..FLAG
    },
    Flag {
        long: "rows",
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "R",
            default: None,
            parse: || value_parser!(usize).into(),
        },
        help: "LSH rows per band [default: chosen from --threshold and --recall]",
        ..FLAG
    },
    Flag {
        long: "recall",
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "R",
            default: Some(|| DEFAULT_RECALL.to_string()),
            parse: || value_parser!(f64).into(),
        },
        help: "Recall target of the LSH banding: a pair exactly at --threshold becomes a \
            candidate with at least this probability (pairs above it more often). Lower is \
            faster",
        negative: true,
        ..FLAG
    },
    Flag {
        long: "seed",
        group: Group::Shingles,
        heading: SKETCH,
        value: Value::One {
            name: "SEED",
            default: Some(|| DEFAULT_SEED.to_string()),
            parse: || value_parser!(u64).into(),
        },
        help: "Seed for shingle hashing and MinHash",
        ..FLAG
    },
    Flag {
        long: "window",
        short: Some('w'),
        group: Group::Window,
        heading: SKETCH,
        value: Value::One {
            name: "N",
            default: Some(|| 0.to_string()),
            parse: || value_parser!(usize).into(),
        },
        help: "Keep at most N documents to compare with (least recently matched are evicted); 0 \
            keeps all",
        ..FLAG
    },
    Flag {
        long: "max-memory",
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "SIZE",
            default: None,
            parse: || parse_size.into(),
        },
        help: "RAM the run may use, e.g. 512M or 8G (K, M, G, T: powers of 1024). Held documents \
            cost their index entries in RAM (about 300 bytes each) and their records on disk \
            (--spill-dir); when the window reaches the limit it keeps its size from then on, \
            evicting the least recently matched, and says so once. The limit bounds the whole \
            process's peak RSS (the window takes what the pipeline's buffers leave). Default: \
            half the smallest of the physical memory, the memory cgroup's limit (a \
            container's) and the address-space limit (ulimit -v); --stats says which; 0: no \
            limit",
        ..FLAG
    },
    Flag {
        long: "spill-dir",
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "DIR",
            default: None,
            parse: || value_parser!(PathBuf),
        },
        help: "Directory of the spill file holding the held documents' records (shingle \
            fingerprints, band keys, ids) past the RAM share of --spill-cache. The file is \
            unlinked as soon as it is created, so nothing is left behind however the run ends; \
            a directory that cannot hold one is refused before any input is read. Default: the \
            system's temporary directory ($TMPDIR or /tmp); 'none' keeps every record in RAM",
        ..FLAG
    },
    Flag {
        long: "spill-cache",
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "SIZE",
            default: None,
            parse: || parse_size.into(),
        },
        help: "RAM for the newest held records before they go to the spill file. Default: 64M, or \
            an eighth of --max-memory if that is less",
        ..FLAG
    },
    Flag {
        long: "max-disk",
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "SIZE",
            default: Some(|| "0".into()),
            parse: || parse_size.into(),
        },
        help: "Most bytes the spill file may take: the window stops growing at half of it \
            (evicting from then on, said once), and evicted records' space is reclaimed before \
            the file reaches it. No effect with --spill-dir none. Default 0: no limit but the \
            disk's (a full disk stops the run with exit status 1, the output ending at a whole \
            line)",
        ..FLAG
    },
    Flag {
        long: "max-candidates",
        group: Group::Candidates,
        heading: SKETCH,
        value: Value::One {
            name: "N",
            default: Some(|| DEFAULT_MAX_CANDIDATES.to_string()),
            parse: || value_parser!(usize).into(),
        },
        help: "Filter modes and clusters components: verify at most N candidates per document, \
            the most promising first (those lacking what it lacks in a template family, then \
            the most similar by a sketch of the signature), and keep at most 2N documents in \
            each LSH bucket, so that the work per document is bounded however many near copies \
            came before it. 0: no bound (the exact greedy answer with --exact)",
        ..FLAG
    },
    Flag {
        long: "threads",
        short: Some('j'),
        group: Group::Threads,
        heading: PERFORMANCE,
        value: Value::One {
            name: "N",
            default: Some(|| 0.to_string()),
            parse: || value_parser!(usize).into(),
        },
        help: "Signing threads (the sequencer is one of them: it signs while the next batch in \
            order is not ready), and threads looking up and verifying a batch's candidates; 0 \
            uses all cores",
        ..FLAG
    },
    Flag {
        long: "helpers",
        group: Group::Helpers,
        heading: PERFORMANCE,
        value: Value::One {
            name: "WHEN",
            default: Some(|| HelperPolicy::Auto.to_string()),
            parse: || choice::<HelperPolicy>().into(),
        },
        help: "--pairs and the graph commands: when the sequencer shares a batch's LSH lookups \
            and verification with helper threads (with more than one thread): auto (when \
            signed batches queue up behind it: it is then the slower stage), always, or never. \
            The output is the same",
        ..FLAG
    },
];

/// The shared flag `long`.
pub fn flag(long: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.long == long)
}

/// `command` with the shared flags added (clap's `Args::augment_args` of
/// [`crate::cmd::args::CommonArgs`]): the command's name says which it uses.
pub fn augment(command: Command) -> Command {
    let name = command.get_name().to_string();
    let used = uses(&name);
    command.args(FLAGS.iter().map(|f| f.arg(!used.contains(&f.group))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_help_lines_are_one_sentence_each() {
        for (i, f) in FLAGS.iter().enumerate() {
            let later = &FLAGS[i + 1..];
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

    #[test]
    fn every_group_has_a_flag_and_the_filter_takes_them_all() {
        for &group in ALL {
            assert!(FLAGS.iter().any(|f| f.group == group), "{group:?}");
        }
        assert!(USES.iter().all(|(_, groups)| groups.contains(&Output)));
        assert_eq!(uses("neardup"), ALL);
        assert!(!uses("idf").contains(&Verify) && uses("graph").contains(&Verify));
    }
}
