//! The shared flags under "Input" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "field",
        set: set!(config.read.field = String),
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "PATH",
            default: Some(|| ReadSettings::default().field),
            parse: parser!(String),
        },
        python: false,
        help: "Dotted path of the text field in JSON Lines input",
        man: "Dotted path of the text field in JSON Lines (default `text`). When most lines of \
            the first batch lack it, the run stops before writing anything (exit status 2), \
            naming the string fields the lines have and the one to use; a few lines without it \
            are bad lines.",
        summary: "dotted path of the text in JSON Lines (`body.text`); in Parquet and Arrow, the text \
            column (a name, or a dotted path into struct columns; `Utf8`, `LargeUtf8`, \
            `Utf8View` or dictionary-encoded)",
        ..FLAG
    },
    Flag {
        long: "id-field",
        set: set!(id_field: String),
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "PATH",
            default: None,
            parse: parser!(String),
        },
        python: false,
        help: "Dotted path of the id field in JSON Lines input. Default: the `id` field when each \
            of the first lines has one (a string or an integer; said once on stderr), else the \
            1-based line number; 'none': line numbers always",
        man: "Dotted path of the id field (a string or number). Default: the `id` field when each \
            of the first lines (up to 32) has one that is a string or an integer (said once on \
            stderr), else the 1-based line number over all inputs; `none`: line numbers always.",
        summary: "dotted path of the id in JSON Lines (in Parquet and Arrow, a column of text or \
            integers); `none`: line (row) numbers",
        default_text: Some("`id` if every first line has one, else line number"),
        ..FLAG
    },
    Flag {
        long: "on-bad-line",
        set: set!(config.read.on_bad_line = choice BadLinePolicy),
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "POLICY",
            default: Some(|| ReadSettings::default().on_bad_line.to_string()),
            parse: parser!(choice BadLinePolicy),
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
        man: "What to do with a line that is not a document: invalid JSON or UTF-8, not an \
            object, a missing or non-string text field, a missing id, an empty line, a line \
            longer than `--max-line-bytes`, or no words after normalisation. `pass` (default) \
            writes it through unchanged in `--drop-dups` and `--annotate` and never treats it \
            as a duplicate; `skip` leaves it out; `fail` stops with exit status 1. The first 10 \
            bad lines are reported with file and line number, then a total.",
        summary: "policy for lines that are not documents (below)",
        ..FLAG
    },
    Flag {
        long: "max-line-bytes",
        set: set!(config.read.max_line_bytes = usize),
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "BYTES",
            default: Some(|| DEFAULT_MAX_LINE_BYTES.to_string()),
            parse: parser!(usize),
        },
        python: false,
        help: "Lines longer than this many bytes are bad lines",
        man: "Lines longer than this are bad lines (default 67108864). They are read in pieces of \
            about this size and written through piece by piece (`pass`) or dropped as they \
            arrive, so memory stays bounded by the limit however long a line is.",
        summary: "longer lines are bad lines, read in pieces (such a line costs about 2N of memory, \
            whatever the reader downstream)",
        default_text: Some("67108864 (64 MiB)"),
        ..FLAG
    },
    Flag {
        long: "decompress",
        set: set!(config.read.decompress = choice Decompress),
        group: Group::Input,
        heading: INPUT,
        value: Value::One {
            name: "HOW",
            default: Some(|| ReadSettings::default().decompress.to_string()),
            parse: parser!(choice Decompress),
        },
        help: "How inputs are decompressed: auto recognises gzip, zstd and xz by their first \
            bytes and bzip2 by its header and first block; none reads every input as it is",
        man: "`auto` (default): gzip, zstd and xz are recognised by their first bytes, bzip2 by \
            its header and first block magic; `none` reads every input as it is; `gzip`, \
            `zstd`, `xz` or `bzip2` names the format. An input that is not valid in the format \
            assumed is an error that says which format and why.",
        summary: "`auto`: gzip, zstd and xz by their first bytes, bzip2 by its header and first block \
            magic; `none` reads every input as it is; or `gzip`, `zstd`, `xz`, `bzip2`",
        ..FLAG
    },
];
