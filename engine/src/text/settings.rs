//! The text group of the settings: how a document's text becomes shingles
//! ([`TextSettings`], [`crate::Config::text`]).

use super::normalize::Normalizer;
use super::shingle::ShingleKind;
use crate::error::{Error, Result};
use std::path::PathBuf;

/// Default shingle length in words.
pub const DEFAULT_NGRAM: usize = 5;

/// How a text is normalised and shingled ([`crate::Config::text`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TextSettings {
    /// Text normalisation.
    pub normalizer: Normalizer,
    /// Shingle kind and length.
    pub shingle: ShingleKind,
    /// Multiset semantics: the k-th repeat of a shingle is a distinct element.
    pub bag: bool,
    /// `--stopwords FILE`: the stop words of [`ShingleKind::Stopword`], one per line (else a
    /// built-in English list). Loaded when the run is prepared.
    pub stopwords_path: Option<PathBuf>,
}

impl TextSettings {
    /// Refuses a shingle of no words or characters.
    pub fn check(&self) -> Result<()> {
        match self.shingle {
            ShingleKind::Words(0) | ShingleKind::Stopword(0) => {
                Err(Error::config("ngram", "must be at least 1"))
            }
            ShingleKind::Chars(0) => Err(Error::config("char-ngram", "must be at least 1")),
            _ => Ok(()),
        }
    }
}

/// The command line's defaults: the normaliser's, word 5-grams, each shingle once.
impl Default for TextSettings {
    fn default() -> TextSettings {
        TextSettings {
            normalizer: Normalizer::default(),
            shingle: ShingleKind::Words(DEFAULT_NGRAM),
            bag: false,
            stopwords_path: None,
        }
    }
}
