//! Verification: whether a candidate pair is a duplicate, and how similar it is.
//!
//! [`Verifier::decide`] is the one decision, used for the window's candidates and by
//! `neardup verify-pairs`: the exact (weighted) Jaccard of the shingle fingerprints
//! ([`shingles`]), or the MinHash estimate (`‹verify› none`), then the text stages
//! ([`text`]) in the order given. A [`Verifier`] holds the settings it needs, and nothing
//! else of the run's.

pub mod sample_pairs;
pub mod settings;
pub mod shingles;
pub mod text;

pub use shingles::{
    Fingerprint, Weighted, fingerprints, jaccard, jaccard_at_least, weighted_fingerprints,
    weighted_jaccard,
};
pub(crate) use shingles::{
    fingerprints_into, weighted_fingerprints_into, weighted_jaccard_at_least,
};

use crate::sketch::weights::{IdfTable, Weigher};
use crate::text::normalize::Normalized;
use crate::text::normalize::Words;
use crate::text::shingle::Shingler;
use settings::{VerifyMode, VerifySettings};

/// What verification compares of one document (from the window or just signed).
#[derive(Clone, Copy, Debug)]
pub struct Compared<'a> {
    /// Sorted shingle fingerprints (or weighted elements).
    pub shingles: &'a [Fingerprint],
    /// `--weights tfidf`: each element's weight (else empty).
    pub weights: &'a [f32],
    /// Sum of `weights`.
    pub total_weight: f64,
    /// Normalised text (text stages only).
    pub text: Option<&'a str>,
    /// Compact signature (`--verify none`).
    pub signature: &'a [u32],
    /// Hash of the normalised text (with the `--block-by` value mixed in).
    pub text_hash: u128,
}

/// The settings of verification: what is compared, from what similarity on, and the text
/// stages that must confirm. Borrowed from the run's settings, so it is free to make.
#[derive(Clone, Copy, Debug)]
pub struct Verifier<'a> {
    /// The threshold, what is compared first and the text stages that must confirm, in
    /// order (`‹threshold›`, `‹verify›`).
    pub settings: &'a VerifySettings,
    /// What a word is, for the text stages that count words.
    pub words: Words,
}

impl Verifier<'_> {
    /// The verification of a candidate pair: `Some(similarity)` when it is a duplicate,
    /// `None` otherwise. The same decision for the window's candidates and for
    /// `neardup verify-pairs`.
    pub fn decide(&self, a: Compared<'_>, b: Compared<'_>) -> Option<f64> {
        // Equal normalised texts have equal shingles, weights, signatures and texts: every
        // check gives 1 (copies of boilerplate are most of the candidates on some corpora).
        if a.text_hash == b.text_hash {
            return Some(1.0);
        }
        let threshold = self.settings.threshold;
        let similarity = match self.settings.mode {
            VerifyMode::Jaccard if !a.weights.is_empty() => weighted_jaccard_at_least(
                (a.shingles, a.weights, a.total_weight),
                (b.shingles, b.weights, b.total_weight),
                threshold,
            ),
            VerifyMode::Jaccard => jaccard_at_least(a.shingles, b.shingles, threshold),
            VerifyMode::None => {
                let e = crate::sketch::minhash::estimate(a.signature, b.signature);
                (e >= threshold).then_some(e)
            }
            VerifyMode::Stages => Some(f64::NAN),
        };
        // Text stages confirm in order; alone, the first one's similarity is reported.
        similarity.and_then(|mut s| {
            if self.settings.text_stages.is_empty() {
                return Some(s);
            }
            let (a, b) = (a.text?, b.text?);
            for stage in &self.settings.text_stages {
                let v = stage.check(a, b, self.words)?;
                if s.is_nan() {
                    s = v;
                }
            }
            Some(s)
        })
    }

    /// The similarity of a pair below the threshold (one [`Verifier::decide`] refused): the
    /// exact (weighted) Jaccard, or the MinHash estimate under `‹verify› none`; `None` when
    /// the first check is a text stage, which has no similarity to give.
    pub(crate) fn similarity_below(&self, a: Compared<'_>, b: Compared<'_>) -> Option<f64> {
        match self.settings.mode {
            VerifyMode::Jaccard if !a.weights.is_empty() => Some(weighted_jaccard(
                (a.shingles, a.weights, a.total_weight),
                (b.shingles, b.weights, b.total_weight),
            )),
            VerifyMode::Jaccard => Some(jaccard(a.shingles, b.shingles)),
            VerifyMode::None => Some(crate::sketch::minhash::estimate(a.signature, b.signature)),
            VerifyMode::Stages => None,
        }
    }
}

/// The verification elements of a normalised document: its sorted, distinct shingle
/// fingerprints under `shingler` (as a worker keeps them for `--weights set` and `tf`).
pub fn shingle_set(shingler: &Shingler, doc: &Normalized) -> Vec<Fingerprint> {
    let mut shingles = Vec::new();
    shingler.shingles_into(doc, &mut shingles);
    fingerprints(&shingles)
}

/// The exact similarity of two normalised documents, with no threshold: the Jaccard of their
/// shingle fingerprints, or under `idf` the weighted Jaccard of their TF-IDF elements. The
/// measure a verified pair carries, for the commands that compare texts outside the window.
pub fn similarity(
    shingler: &Shingler,
    idf: Option<&IdfTable>,
    a: &Normalized,
    b: &Normalized,
) -> f64 {
    let Some(table) = idf else {
        return jaccard(&shingle_set(shingler, a), &shingle_set(shingler, b));
    };
    let (mut wa, mut wb) = (Weigher::default(), Weigher::default());
    wa.weigh(shingler, a, table);
    wb.weigh(shingler, b, table);
    let (fa, ga) = weighted_fingerprints(&wa.elements, &wa.weights);
    let (fb, gb) = weighted_fingerprints(&wb.elements, &wb.weights);
    weighted_jaccard((&fa, &ga, wa.total), (&fb, &gb, wb.total))
}
