//! The read group of the settings: what the inputs are and how a document is taken from
//! each line or row ([`ReadSettings`], [`crate::Config::read`]), with the stage's enums
//! (`--input-format`, `--decompress`, `--on-bad-line`) beside it.

use crate::error::{Error, Result};

/// Default limit on a line's length: 64 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// How the inputs are read ([`crate::Config::read`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadSettings {
    /// Input format.
    pub format: InputFormat,
    /// Dotted path of the text field in JSONL input (the text column of a table).
    pub field: String,
    /// Dotted path of the id field in JSONL input; `None` uses the 1-based line number.
    pub id_field: Option<String>,
    /// With no `id_field`: JSON Lines whose first lines each have an `id` (a string or an
    /// integer) take it as the id ([`crate::input::LineReader::auto_ids`]); the command
    /// line's default, off with `--id-field none`.
    pub auto_ids: bool,
    /// How inputs are decompressed.
    pub decompress: Decompress,
    /// Lines longer than this many bytes are bad lines ("too long").
    pub max_line_bytes: usize,
    /// Not a flag: `max_line_bytes` was lowered to what the memory budget can sign
    /// ([`crate::memory::MemorySettings::document_limit`]), so a longer line is "over the
    /// memory budget" rather than "too long".
    pub budget_limited: bool,
    /// Bad-line policy.
    pub on_bad_line: BadLinePolicy,
    /// How many bad lines are reported one by one before only a count is kept.
    pub max_bad_line_reports: usize,
}

/// The command line's defaults: the format found from the first lines, the `text` field,
/// JSON Lines' own `id`s, bad lines written through and the first ten reported.
impl ReadSettings {
    /// Refuses an empty field name and a zero line limit; a field or an id field asked for
    /// makes `--input-format auto` JSON Lines, whatever the input starts with.
    pub fn validate(mut self) -> Result<ReadSettings> {
        if self.field.is_empty() {
            return Err(Error::config("field", "must not be empty"));
        }
        if self.max_line_bytes == 0 {
            return Err(Error::config("max-line-bytes", "must be at least 1"));
        }
        if self.format == InputFormat::Auto && (self.id_field.is_some() || self.field != "text") {
            self.format = InputFormat::Jsonl;
        }
        Ok(self)
    }
}

impl Default for ReadSettings {
    fn default() -> ReadSettings {
        ReadSettings {
            format: InputFormat::Auto,
            field: "text".to_string(),
            id_field: None,
            auto_ids: true,
            decompress: Decompress::Auto,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            budget_limited: false,
            on_bad_line: BadLinePolicy::Pass,
            max_bad_line_reports: 10,
        }
    }
}

/// How input lines are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// JSON Lines if most of the first non-empty lines start with `{` (or `--field` or
    /// `--id-field` is given), plain text otherwise.
    Auto,
    /// Each line is the document.
    Text,
    /// Each line is a JSON object; the document is the string at `field`.
    Jsonl,
    /// Apache Parquet files; the document is the text column `field`
    /// ([`crate::input::columnar`]).
    Parquet,
    /// Arrow IPC streams (or files); the document is the text column `field`.
    Arrow,
}

crate::choice::choices!(InputFormat {
    "auto" => Auto: "Detect from the first non-empty lines",
    "text" => Text: "One document per line",
    "jsonl" => Jsonl: "One JSON object per line",
    "parquet" => Parquet: "Apache Parquet (also recognised by its first bytes under auto)",
    "arrow" => Arrow: "An Arrow IPC stream or file (also recognised by its first bytes under auto)",
});

/// How inputs are decompressed (`--decompress`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Decompress {
    /// By each input's first bytes: gzip, zstd and xz by their magic, bzip2 by its header
    /// and first block magic; anything else is read as it is.
    #[default]
    Auto,
    /// Read every input as it is.
    None,
    /// gzip.
    Gzip,
    /// Zstandard.
    Zstd,
    /// xz.
    Xz,
    /// bzip2.
    Bzip2,
}

crate::choice::choices!(Decompress {
    "auto" => Auto: "By the first bytes",
    "none" => None: "Read as it is",
    "gzip" => Gzip: "gzip",
    "zstd" => Zstd: "Zstandard",
    "xz" => Xz: "xz",
    "bzip2" => Bzip2: "bzip2",
});

/// What happens to a line that cannot be read as a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadLinePolicy {
    /// Write it through unchanged (in the modes that write input lines); never a duplicate.
    Pass,
    /// Leave it out of the output.
    Skip,
    /// Stop with exit code 1.
    Fail,
}

crate::choice::choices!(BadLinePolicy {
    "pass" => Pass: "Write through unchanged",
    "skip" => Skip: "Leave out",
    "fail" => Fail: "Stop with exit status 1",
});
