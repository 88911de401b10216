//! The shared flags' values, each in a typed field of its own ([`Shared`]): what a command
//! line or the Python module's keywords gave, else the flag's default. Each entry of the
//! table ([`super::defs`]) fills its field with its `set` ([`super::flag::set!`]), so no
//! value is looked up by name or cast from an untyped one.

use crate::cmd::values::NgramArg;
use crate::config::{BadLinePolicy, Compression, Decompress, HelperPolicy, OutputFormat, Weights};
use crate::text::normalize::Words;
use crate::text::shingle::ShingleUnit;
use crate::verify::settings::Method;
use std::path::PathBuf;

/// Every shared flag's value: a switch given or not, a value given (or its default; `None`
/// for a flag left out that has none), a list's items.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// `--field`.
    pub field: Option<String>,
    /// `--id-field`.
    pub id_field: Option<String>,
    /// `--on-bad-line`.
    pub on_bad_line: Option<BadLinePolicy>,
    /// `--max-line-bytes`.
    pub max_line_bytes: Option<usize>,
    /// `--decompress`.
    pub decompress: Option<Decompress>,
    /// `--max-memory`.
    pub max_memory: Option<u64>,
    /// `--spill-dir`.
    pub spill_dir: Option<PathBuf>,
    /// `--spill-cache`.
    pub spill_cache: Option<u64>,
    /// `--max-disk`.
    pub max_disk: Option<u64>,
    /// `--stats` given.
    pub stats: bool,
    /// `--output`.
    pub output: Option<PathBuf>,
    /// `--output-format`.
    pub output_format: Option<OutputFormat>,
    /// `--compression`.
    pub compression: Option<Compression>,
    /// `--quiet` given.
    pub quiet: bool,
    /// `--no-progress` given.
    pub no_progress: bool,
    /// `--threads`.
    pub threads: Option<usize>,
    /// `--helpers`.
    pub helpers: Option<HelperPolicy>,
    /// `--ngram`.
    pub ngram: Option<NgramArg>,
    /// `--shingle`.
    pub shingle: Option<ShingleUnit>,
    /// `--stopwords`.
    pub stopwords: Option<PathBuf>,
    /// `--char-ngram`.
    pub char_ngram: Option<usize>,
    /// `--weights`.
    pub weights: Option<Weights>,
    /// `--idf`.
    pub idf: Option<PathBuf>,
    /// `--idf-warmup`.
    pub idf_warmup: Option<usize>,
    /// `--block-by`.
    pub block_by: Option<String>,
    /// `--bag` given.
    pub bag: bool,
    /// `--threshold`.
    pub threshold: Option<f64>,
    /// `--verify`.
    pub verify: Vec<Method>,
    /// `--max-edit`.
    pub max_edit: Option<f64>,
    /// `--min-cosine`.
    pub min_cosine: Option<f64>,
    /// `--min-lcs`.
    pub min_lcs: Option<f64>,
    /// `--exact` given.
    pub exact: bool,
    /// `--num-perm`.
    pub num_perm: Option<usize>,
    /// `--bands`.
    pub bands: Option<usize>,
    /// `--rows`.
    pub rows: Option<usize>,
    /// `--recall`.
    pub recall: Option<f64>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--window`.
    pub window: Option<usize>,
    /// `--max-candidates`.
    pub max_candidates: Option<usize>,
    /// `--strip-html` given.
    pub strip_html: bool,
    /// `--strip-punct` given.
    pub strip_punct: bool,
    /// `--keep-case` given.
    pub keep_case: bool,
    /// `--no-nfkc` given.
    pub no_nfkc: bool,
    /// `--words`.
    pub words: Option<Words>,
}
