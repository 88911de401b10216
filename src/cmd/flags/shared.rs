//! The shared flags' values ([`Shared`]): what a command line or the Python module's
//! keywords gave, else the flag's default. Most flags write straight into their field of
//! the engine's settings ([`Shared::config`], which starts as [`Config::default`], so a
//! left-out flag means the engine's own default); the few whose value is combined with
//! another's, or converted, when the settings are made ([`crate::cmd::args`]) keep a typed
//! field here. Each entry of the table ([`super::defs`]) fills its field with its `set`
//! ([`super::flag::set!`]), so no value is looked up by name or cast from an untyped one.

use crate::cmd::values::NgramArg;
use crate::config::Config;
use crate::text::shingle::ShingleUnit;
use crate::verify::settings::Method;
use std::path::PathBuf;

/// Every shared flag's value: in the settings, or in a field of its own when the settings'
/// value is made from it and another flag's.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// The settings the flags without a field below write into.
    pub config: Config,
    /// `--id-field` (`none`: no ids at all; left out: line numbers).
    pub id_field: Option<String>,
    /// `--max-memory` (given, it replaces the limit probed from the machine).
    pub max_memory: Option<u64>,
    /// `--spill-dir` (`none`: no spill file).
    pub spill_dir: Option<PathBuf>,
    /// `--spill-cache`.
    pub spill_cache: Option<u64>,
    /// `--ngram` (a range for `neardup hist`).
    pub ngram: Option<NgramArg>,
    /// `--shingle`.
    pub shingle: Option<ShingleUnit>,
    /// `--char-ngram`.
    pub char_ngram: Option<usize>,
    /// `--verify`.
    pub verify: Vec<Method>,
    /// `--max-edit`.
    pub max_edit: Option<f64>,
    /// `--min-cosine`.
    pub min_cosine: Option<f64>,
    /// `--min-lcs`.
    pub min_lcs: Option<f64>,
}
