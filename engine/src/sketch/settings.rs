//! The sketch group of the settings: how shingles become a signature and its band keys
//! ([`SketchSettings`], [`crate::Config::sketch`]), with the weighting's enum beside it.

use super::lsh::{DEFAULT_RECALL, LshParams};
use std::path::PathBuf;

/// Default number of MinHash values: 128 (see README "Choosing K").
pub const DEFAULT_NUM_PERM: usize = 128;
/// Default seed ("near" in ASCII).
pub const DEFAULT_SEED: u64 = 0x6e65_6172;

/// How shingles are weighted (see [`crate::sketch::weights`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// Every distinct shingle weighs 1 (Jaccard of sets; of multisets with `--bag`).
    Set,
    /// Shingle counts: weighted Jaccard Σmin(tf)/Σmax(tf), the same as `--bag`.
    Tf,
    /// `tf · idf`: weighted Jaccard of TF-IDF vectors.
    TfIdf,
}

crate::choice::choices!(Weights {
    "set" => Set: "Every distinct shingle weighs 1",
    "tf" => Tf: "Shingle counts",
    "tfidf" => TfIdf: "Counts times inverse document frequency",
});

/// The signature, its weights and its banding ([`crate::Config::sketch`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SketchSettings {
    /// Number of MinHash values per signature (K).
    pub num_perm: usize,
    /// Seed for shingle hashing and MinHash.
    pub seed: u64,
    /// Explicit bands (`--bands`); derived from the threshold when `None`.
    pub bands: Option<usize>,
    /// Explicit rows per band (`--rows`).
    pub rows: Option<usize>,
    /// Recall target of the banding chosen when neither `bands` nor `rows` is given:
    /// P(candidate | J = threshold) at least this ([`LshParams::for_recall`]).
    pub recall: f64,
    /// Resolved LSH parameters (set by [`crate::Config::validate`]).
    pub lsh: LshParams,
    /// Shingle weighting.
    pub weights: Weights,
    /// `--idf FILE`: document frequencies for [`Weights::TfIdf`].
    pub idf_path: Option<PathBuf>,
    /// `--idf-warmup N`: learn document frequencies from the first N lines instead.
    pub idf_warmup: usize,
}

/// The command line's defaults: 128 values, the banding for recall 0.99 at 0.8, sets.
impl Default for SketchSettings {
    fn default() -> SketchSettings {
        SketchSettings {
            num_perm: DEFAULT_NUM_PERM,
            seed: DEFAULT_SEED,
            bands: None,
            rows: None,
            recall: DEFAULT_RECALL,
            lsh: LshParams { bands: 16, rows: 6 },
            weights: Weights::Set,
            idf_path: None,
            idf_warmup: 0,
        }
    }
}
