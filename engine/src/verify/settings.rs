//! The verify group of the settings: the similarity a pair must reach and how it is
//! checked ([`VerifySettings`], [`crate::Config::verify`]), with the stage's enums.

use crate::error::Error;

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

/// A method of a verification chain, as users name it (`--verify jaccard,edit`): the shingle
/// check, trusting the estimate, or a text stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Exact Jaccard of the shingles.
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

crate::choice::choices!(Method {
    "jaccard" => Jaccard: "Exact Jaccard of the shingle sets",
    "none" => None: "Trust the MinHash estimate",
    "edit" => Edit: "Relative edit distance",
    "cosine" => Cosine: "Cosine of word counts",
    "lcs" => Lcs: "Longest common substring ratio",
});

/// The bounds of the text stages (`--max-edit`, `--min-cosine`, `--min-lcs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageBounds {
    /// Largest relative edit distance.
    pub max_edit: f64,
    /// Smallest cosine of the word counts.
    pub min_cosine: f64,
    /// Smallest longest-common-substring ratio.
    pub min_lcs: f64,
}

/// The text stages' bounds when none is given: the command line's defaults, and the
/// library's.
impl Default for StageBounds {
    fn default() -> StageBounds {
        StageBounds {
            max_edit: 0.05,
            min_cosine: 0.95,
            min_lcs: 0.6,
        }
    }
}

/// The shingle check and the text stages, in order, of a chain of `methods`; an error says
/// why the methods are not a chain (one given twice, `none` with another).
pub fn chain(
    methods: &[Method],
    bounds: StageBounds,
) -> Result<(VerifyMode, Vec<TextStage>), String> {
    let mut stages = Vec::new();
    let mut mode = VerifyMode::Stages;
    for (i, &method) in methods.iter().enumerate() {
        if methods[..i].contains(&method) {
            return Err(format!("{method} is given twice"));
        }
        match method {
            Method::Jaccard => mode = VerifyMode::Jaccard,
            Method::None if methods.len() == 1 => mode = VerifyMode::None,
            Method::None => {
                return Err(
                    "none (trust the estimate) cannot be chained with other methods".into(),
                );
            }
            Method::Edit => stages.push(TextStage::Edit(bounds.max_edit)),
            Method::Cosine => stages.push(TextStage::Cosine(bounds.min_cosine)),
            Method::Lcs => stages.push(TextStage::Lcs(bounds.min_lcs)),
        }
    }
    Ok((mode, stages))
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

impl VerifySettings {
    /// Refuses a threshold outside (0, 1], a text stage's bound outside [0, 1], and
    /// `--verify` with no confirmation stage at all.
    pub fn check(&self) -> crate::error::Result<()> {
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(Error::config(
                "threshold",
                format!("{} is not in (0, 1]", self.threshold),
            ));
        }
        for stage in &self.text_stages {
            let (flag, v) = match *stage {
                TextStage::Edit(v) => ("max-edit", v),
                TextStage::Cosine(v) => ("min-cosine", v),
                TextStage::Lcs(v) => ("min-lcs", v),
            };
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::config(flag, format!("{v} is not in [0, 1]")));
            }
        }
        if self.mode == VerifyMode::Stages && self.text_stages.is_empty() {
            return Err(Error::config("verify", "no confirmation stage given"));
        }
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Choice;

    #[test]
    fn a_chain_of_methods_gives_the_shingle_check_and_the_text_stages_in_order() {
        let bounds = StageBounds {
            max_edit: 0.1,
            min_cosine: 0.9,
            min_lcs: 0.5,
        };
        let of = |names: &[&str]| {
            let methods: Vec<Method> = names
                .iter()
                .map(|n| Method::from_name(n).unwrap())
                .collect();
            chain(&methods, bounds)
        };
        assert_eq!(of(&["jaccard"]), Ok((VerifyMode::Jaccard, vec![])));
        assert_eq!(of(&["none"]), Ok((VerifyMode::None, vec![])));
        assert_eq!(
            of(&["lcs", "jaccard", "edit"]),
            Ok((
                VerifyMode::Jaccard,
                vec![TextStage::Lcs(0.5), TextStage::Edit(0.1)]
            ))
        );
        assert_eq!(
            of(&["cosine"]),
            Ok((VerifyMode::Stages, vec![TextStage::Cosine(0.9)]))
        );
        assert_eq!(of(&["edit", "edit"]), Err("edit is given twice".into()));
        assert!(
            of(&["none", "jaccard"])
                .unwrap_err()
                .contains("cannot be chained")
        );
    }
}
