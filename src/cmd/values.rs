//! The values of the enumerated flags (`--format`, `--verify`, `--words`, …), `-n`, sizes and
//! similarities: what clap parses and `--help` lists, before [`super::args`] turns them into
//! engine settings.

use crate::config::PairsFormat;
use crate::error::{Error, Result};
use clap::ValueEnum;

/// `--decompress` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DecompressArg {
    /// By the first bytes.
    Auto,
    /// Read as it is.
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

impl DecompressArg {
    /// The setting.
    pub fn setting(self) -> crate::config::Decompress {
        use crate::config::Decompress as D;
        match self {
            DecompressArg::Auto => D::Auto,
            DecompressArg::None => D::None,
            DecompressArg::Gzip => D::Gzip,
            DecompressArg::Zstd => D::Zstd,
            DecompressArg::Xz => D::Xz,
            DecompressArg::Bzip2 => D::Bzip2,
        }
    }
}

/// `--helpers` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum HelpersArg {
    /// When signed batches queue up behind the sequencer.
    Auto,
    /// On every batch.
    Always,
    /// Never.
    Never,
}

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// Detect from the first non-empty lines.
    Auto,
    /// One document per line.
    Text,
    /// One JSON object per line.
    Jsonl,
    /// Apache Parquet (also recognised by its first bytes under auto).
    Parquet,
    /// An Arrow IPC stream or file (also recognised by its first bytes under auto).
    Arrow,
}

/// The filter's `--format` (the output's, for `--pairs`): `tsv` or `jsonl`. An input format
/// (`text`, `auto`) is refused pointing to `--input-format`, which it used to be.
pub fn parse_pairs_format(text: &str) -> std::result::Result<PairsFormatArg, String> {
    match text {
        "tsv" => Ok(PairsFormatArg::Tsv),
        "jsonl" => Ok(PairsFormatArg::Jsonl),
        "text" | "auto" => Err(format!(
            "--format is the output's format (tsv or jsonl, for --pairs); the input's format \
             is --input-format {text}"
        )),
        _ => Err(
            "expected tsv or jsonl (the output's format, for --pairs; the input's \
                  format is --input-format)"
                .into(),
        ),
    }
}

/// `--pairs-format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PairsFormatArg {
    /// id_a TAB id_b TAB similarity.
    Tsv,
    /// {"id_a":…,"id_b":…,"similarity":…}.
    Jsonl,
}

impl From<PairsFormatArg> for PairsFormat {
    fn from(arg: PairsFormatArg) -> PairsFormat {
        match arg {
            PairsFormatArg::Tsv => PairsFormat::Tsv,
            PairsFormatArg::Jsonl => PairsFormat::Jsonl,
        }
    }
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    /// Exact Jaccard of the shingle sets.
    Jaccard,
    /// Trust the MinHash estimate.
    None,
    /// Relative edit distance.
    Edit,
    /// Cosine of word counts.
    Cosine,
    /// Longest common substring ratio.
    Lcs,
}

/// `--ngram`: one length, or an inclusive range `LO..HI` (only `neardup hist` takes ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NgramArg(pub usize, pub usize);

impl std::str::FromStr for NgramArg {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}' is not a number or a range LO..HI"))
        };
        match s.split_once("..") {
            None => num(s).map(|n| NgramArg(n, n)),
            Some((lo, hi)) => {
                let (lo, hi) = (num(lo)?, num(hi.trim_start_matches('='))?);
                if lo > hi || lo == 0 {
                    return Err(format!("'{s}' is not a range 1 <= LO <= HI"));
                }
                Ok(NgramArg(lo, hi))
            }
        }
    }
}

impl std::fmt::Display for NgramArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == self.1 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{}..{}", self.0, self.1)
        }
    }
}

/// `--words` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WordsArg {
    /// Runs between white space; each character of a script written without spaces is a
    /// word of its own.
    Unicode,
    /// Runs between white space only.
    Spaces,
}

/// `--shingle` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShingleArg {
    /// Consecutive words.
    Words,
    /// Consecutive characters.
    Chars,
    /// Spot signatures anchored at stop words.
    Stopword,
}

/// `--weights` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WeightsArg {
    /// Every distinct shingle weighs 1.
    Set,
    /// Shingle counts.
    Tf,
    /// Counts times inverse document frequency.
    Tfidf,
}

/// A size such as `512M`, `8G`, `1.5G` or `1048576` (K, M, G and T are powers of 1024; a
/// trailing `B` or `iB` is allowed).
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix("ib"))
        .or_else(|| t.strip_suffix(['B', 'b']))
        .unwrap_or(t);
    let (number, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 512M, 8G, 1048576)"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !(0.0..1.8e19).contains(&bytes) {
        return Err(format!("'{text}' is not a size between 0 and 16 EiB"));
    }
    Ok(bytes as u64)
}

/// `value` if it is a similarity in [0, 1], else a usage error naming `setting`.
pub fn check_similarity(setting: &'static str, value: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(Error::config(setting, format!("{value} is not in [0, 1]")))
    }
}

/// `--output-format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OutputFormatArg {
    /// By -o FILE's extension (.parquet, .arrow), else as the input: Parquet or Arrow rows as
    /// a table of their kind, lines as lines.
    Auto,
    /// Lines as read; Parquet or Arrow rows as JSON objects, one per line.
    Lines,
    /// Apache Parquet: the rows with all their columns and the input's schema.
    Parquet,
    /// An Arrow IPC stream: the rows with all their columns.
    Arrow,
}

impl OutputFormatArg {
    /// The setting.
    pub fn setting(self) -> crate::config::OutputFormat {
        use crate::config::OutputFormat;
        match self {
            OutputFormatArg::Auto => OutputFormat::Auto,
            OutputFormatArg::Lines => OutputFormat::Lines,
            OutputFormatArg::Parquet => OutputFormat::Parquet,
            OutputFormatArg::Arrow => OutputFormat::Arrow,
        }
    }
}

/// `--compression` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CompressionArg {
    /// Zstandard (level 1).
    Zstd,
    /// Snappy.
    Snappy,
    /// gzip.
    Gzip,
    /// LZ4.
    Lz4,
    /// None.
    None,
}

impl CompressionArg {
    /// The setting.
    pub fn setting(self) -> crate::config::Compression {
        use crate::config::Compression;
        match self {
            CompressionArg::Zstd => Compression::Zstd,
            CompressionArg::Snappy => Compression::Snappy,
            CompressionArg::Gzip => Compression::Gzip,
            CompressionArg::Lz4 => Compression::Lz4,
            CompressionArg::None => Compression::None,
        }
    }
}
