//! The sketch group of the settings: how shingles become a signature and its band keys
//! ([`SketchSettings`], [`crate::Config::sketch`]), with the weighting's enum beside it.

use super::lsh::{DEFAULT_RECALL, LshParams};
use crate::error::{Error, Result};
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
    /// Resolved LSH parameters (set by [`SketchSettings::validate`]).
    pub lsh: LshParams,
    /// Shingle weighting.
    pub weights: Weights,
    /// `--idf FILE`: document frequencies for [`Weights::TfIdf`].
    pub idf_path: Option<PathBuf>,
    /// `--idf-warmup N`: learn document frequencies from the first N lines instead.
    pub idf_warmup: usize,
}

impl SketchSettings {
    /// Refuses K outside 1..=4096, a recall outside (0, 1), document frequencies without
    /// tf-idf or tf-idf without them, and a banding that does not fit K; resolves the LSH
    /// parameters (`lsh`): the banding given, or the one that reaches `recall` at
    /// `threshold` (the verify group's).
    pub fn validate(mut self, threshold: f64) -> Result<SketchSettings> {
        if self.num_perm == 0 || self.num_perm > 4096 {
            return Err(Error::config(
                "num-perm",
                format!("{} is not in 1..=4096", self.num_perm),
            ));
        }
        let idf_source = self.idf_path.is_some() || self.idf_warmup > 0;
        if self.weights == Weights::TfIdf && !idf_source {
            return Err(Error::config(
                "weights",
                "tfidf needs document frequencies: ‹idf› FILE (from 'neardup idf') or \
                 ‹idf-warmup› N",
            ));
        }
        if self.weights != Weights::TfIdf && idf_source {
            return Err(Error::config(
                if self.idf_path.is_some() {
                    "idf"
                } else {
                    "idf-warmup"
                },
                "document frequencies are only used with ‹weights› tfidf",
            ));
        }
        if self.idf_path.is_some() && self.idf_warmup > 0 {
            return Err(Error::config(
                "idf-warmup",
                "give either ‹idf› FILE or ‹idf-warmup› N, not both",
            ));
        }
        if !(self.recall > 0.0 && self.recall < 1.0) {
            return Err(Error::config(
                "recall",
                format!("{} is not in (0, 1)", self.recall),
            ));
        }
        self.lsh = match (self.bands, self.rows) {
            (None, None) => LshParams::for_recall(threshold, self.num_perm, self.recall),
            (Some(b), Some(r)) => LshParams { bands: b, rows: r },
            (Some(b), None) => {
                if b == 0 || !self.num_perm.is_multiple_of(b) {
                    return Err(Error::config(
                        "bands",
                        format!("{b} does not divide ‹num-perm› {}", self.num_perm),
                    ));
                }
                LshParams {
                    bands: b,
                    rows: self.num_perm / b,
                }
            }
            (None, Some(r)) => {
                if r == 0 || !self.num_perm.is_multiple_of(r) {
                    return Err(Error::config(
                        "rows",
                        format!("{r} does not divide ‹num-perm› {}", self.num_perm),
                    ));
                }
                LshParams {
                    bands: self.num_perm / r,
                    rows: r,
                }
            }
        };
        if self.lsh.bands == 0 || self.lsh.rows == 0 {
            return Err(Error::config("bands", "bands and rows must be at least 1"));
        }
        if self.lsh.bands * self.lsh.rows > self.num_perm {
            return Err(Error::config(
                "bands",
                format!(
                    "{} bands x {} rows needs {} values but ‹num-perm› is {}",
                    self.lsh.bands,
                    self.lsh.rows,
                    self.lsh.bands * self.lsh.rows,
                    self.num_perm
                ),
            ));
        }
        Ok(self)
    }
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
