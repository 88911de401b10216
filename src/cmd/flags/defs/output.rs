//! The shared flags under "Output" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "stats",
        set: set!(config.stats: switch),
        group: Group::Output,
        heading: OUTPUT,
        value: Value::Switch,
        python: false,
        help: "Print a one-line JSON summary to stderr at the end",
        man: "Print a one-line JSON summary to standard error at the end: docs_read, written, \
            dropped, dropped_exact, dropped_near, bad_lines, candidates_checked, pairs, \
            evictions, window_docs, window_bytes, bytes_read, seconds, docs_per_sec, \
            mb_per_sec.",
        summary: "JSON summary on stderr at the end",
        ..FLAG
    },
    Flag {
        long: "output",
        set: set!(config.run.output: PathBuf),
        short: Some('o'),
        group: Group::Output,
        heading: OUTPUT,
        value: Value::One {
            name: "FILE",
            default: None,
            parse: parser!(PathBuf),
        },
        help: "Write the output to FILE instead of standard output. A table (Parquet, Arrow) and \
            the one document a command writes at its end (graph, clusters) are written under a \
            temporary name and renamed to FILE when the run ends; a failed run leaves FILE as it \
            was",
        man: "Write the output to *FILE* instead of standard output (every command). A Parquet or \
            Arrow output is written under a temporary name beside it and renamed when the run \
            ends, on SIGINT and SIGTERM too (a valid table of the rows decided); a failed run \
            removes it and leaves *FILE* as it was. So is the one document that graph, \
            clusters (without --keep), explain, idf, tune, hist, sample and report write at \
            their end, which a run stopped by a signal leaves as it was too. Lines (the filter \
            modes, sign, verify-pairs, clusters --keep) go into *FILE* as they are decided; a \
            write that fails (a full disk) leaves *FILE* ending at a whole line, and the \
            message says the input line the output is complete up to.",
        summary: "write the output to FILE; a table, a graph or clusters are written beside it \
            under a temporary name and renamed when the run ends: a failed run leaves FILE as \
            it was",
        default_text: Some("stdout"),
        ..FLAG
    },
    Flag {
        long: "output-format",
        set: set!(config.run.output_format = choice OutputFormat),
        group: Group::Table,
        heading: OUTPUT,
        value: Value::One {
            name: "FORMAT",
            default: Some(|| RunSettings::default().output_format.to_string()),
            parse: parser!(choice OutputFormat),
        },
        help: "What the filter modes write: auto goes by -o FILE's extension (.parquet, .arrow), \
            else by the input (Parquet or Arrow rows as a table of their kind, lines as \
            lines); lines writes Parquet or Arrow rows as JSON objects",
        man: "What the filter modes write: `auto` (default) goes by the extension of `-o` \
            (`.parquet`, `.arrow`), else by the first input (Parquet rows as Parquet, Arrow \
            rows as an Arrow IPC stream, lines as lines); `lines` writes Parquet and Arrow rows \
            as JSON objects. Parquet and Arrow output need Parquet or Arrow input, and are not \
            written to a terminal.",
        summary: "what the filter modes write: `auto` goes by `-o`'s extension (`.parquet`, \
            `.arrow`), else by the input (Parquet rows as Parquet, Arrow as an Arrow stream, \
            lines as lines); `lines` writes Parquet and Arrow rows as JSON objects",
        ..FLAG
    },
    Flag {
        long: "compression",
        set: set!(config.run.compression: choice Compression),
        group: Group::Table,
        heading: OUTPUT,
        value: Value::One {
            name: "CODEC",
            default: None,
            parse: parser!(choice Compression),
        },
        help: "Parquet output's compression [default: zstd]",
        man: "Page compression of Parquet output (default `zstd`, level 1).",
        summary: "Parquet output's page compression",
        default_text: Some("`zstd`"),
        ..FLAG
    },
    Flag {
        long: "quiet",
        set: set!(config.quiet: switch),
        short: Some('q'),
        group: Group::Output,
        heading: OUTPUT,
        value: Value::Switch,
        help: "Print no warnings or progress on stderr (errors are still printed)",
        man: "Print no warnings or progress (errors are still printed).",
        summary: "no warnings or progress on stderr (errors still)",
        ..FLAG
    },
    Flag {
        long: "no-progress",
        set: set!(config.progress: off),
        group: Group::Output,
        heading: OUTPUT,
        value: Value::Switch,
        python: false,
        help: "Never show progress (it is shown only when stderr is a terminal anyway)",
        man: "Never show progress. Progress is shown only when standard error is a terminal.",
        summary: "never show progress (shown only when stderr is a terminal)",
        ..FLAG
    },
];
