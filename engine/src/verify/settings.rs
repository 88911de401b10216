//! The verify group of the settings: the similarity a pair must reach and how it is
//! checked ([`VerifySettings`], [`crate::Config::verify`]), with the stage's enums.

/// Default similarity cut-off.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// How a candidate pair is confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyMode {
    /// Exact (multi)set Jaccard of the stored shingle fingerprints (32-bit).
    Jaccard,
    /// Trust the MinHash estimate (fraction of equal signature values).
    None,
    /// No shingle check: the text stages of [`VerifySettings::text_stages`] decide alone.
    Stages,
}

/// A verification stage on the normalised texts of a pair, with its bound
/// (`--verify edit|cosine|lcs`; the measures are in [`crate::verify::text`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TextStage {
    /// Relative edit distance at most this.
    Edit(f64),
    /// Cosine of word counts at least this.
    Cosine(f64),
    /// Longest common substring / shorter length at least this.
    Lcs(f64),
}

/// The threshold and the checks a candidate pair passes ([`crate::Config::verify`]).
#[derive(Clone, Debug, PartialEq)]
pub struct VerifySettings {
    /// Similarity cut-off T in (0, 1].
    pub threshold: f64,
    /// Candidate confirmation.
    pub mode: VerifyMode,
    /// Text stages run after (or, with [`VerifyMode::Stages`], instead of) the shingle
    /// check, in order (`--verify edit,cosine,lcs`).
    pub text_stages: Vec<TextStage>,
}

/// The command line's defaults: 0.8, exact Jaccard, no text stage.
impl Default for VerifySettings {
    fn default() -> VerifySettings {
        VerifySettings {
            threshold: DEFAULT_THRESHOLD,
            mode: VerifyMode::Jaccard,
            text_stages: Vec::new(),
        }
    }
}
