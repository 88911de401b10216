//! Where a dropped document differs from its match when the report's held starts of the two
//! are the same (`--report`, documents longer than [`crate::report::HELD_BYTES`]): the
//! dropped document's first word shingle that the kept one lacks, found from the kept
//! record's fingerprints, shown with the words around it.

use crate::config::{Config, VerifyMode, Weights};
use crate::report::DIFFERS_SEP as SEP;
use crate::text::normalize::Normalized;
use crate::text::shingle::{ShingleKind, Shingler};
use crate::verify::shingles::Fingerprint;

/// Words shown on each side of the first differing shingle.
const AROUND: usize = 12;

/// The words of `text` (normalised by the run's settings) around its first word shingle
/// whose fingerprint `kept` (sorted, a record's) lacks: the shingle's first word's place,
/// the words before it, the shingle's words and the words after, joined by [`SEP`] ([`crate::report::Example::differs`]); `None` when every shingle is in `kept`, or
/// when the run's shingles are not plain word n-gram sets verified by their fingerprints
/// (weights, bags, characters or stop-word shingles map elements to words otherwise).
pub(super) fn first_difference(
    config: &Config,
    text: &str,
    kept: &[Fingerprint],
) -> Option<String> {
    let ShingleKind::Words(n) = config.text.shingle else {
        return None;
    };
    if config.text.bag
        || config.sketch.weights != Weights::Set
        || config.verify.mode != VerifyMode::Jaccard
        || kept.is_empty()
    {
        return None;
    }
    let mut doc = Normalized::default();
    config.text.normalizer.normalize_into(text, &mut doc);
    let shingler = Shingler::new(ShingleKind::Words(n), false, config.sketch.seed);
    let tokens = doc.tokens.len();
    (0..=tokens.saturating_sub(n)).find_map(|i| {
        let last = (i + n).min(tokens) - 1;
        let hash = shingler.hash_of(&doc, i, last);
        let fingerprint = (hash >> 32) as Fingerprint;
        if kept.binary_search(&fingerprint).is_ok() {
            return None;
        }
        let (from, to) = (i.saturating_sub(AROUND), (last + 1 + AROUND).min(tokens));
        let words = |range: std::ops::Range<usize>| {
            range.map(|w| doc.token(w)).collect::<Vec<_>>().join(" ")
        };
        Some(format!(
            "{}{SEP}{}{}{SEP}{}{SEP}{}{}",
            i + 1,
            if from > 0 { "… " } else { "" },
            words(from..i),
            words(i..last + 1),
            words(last + 1..to),
            if to < tokens { " …" } else { "" },
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fingerprints of `text` as a record holds them under `config`.
    fn fingerprints(config: &Config, text: &str) -> Vec<Fingerprint> {
        let mut doc = Normalized::default();
        config.text.normalizer.normalize_into(text, &mut doc);
        let shingler = Shingler::new(config.text.shingle, false, config.sketch.seed);
        let mut hashes = Vec::new();
        shingler.shingles_into(&doc, &mut hashes);
        crate::verify::shingles::fingerprints(&hashes)
    }

    #[test]
    fn the_first_shingle_the_kept_text_lacks_is_found_with_its_words() {
        let config = Config::default();
        let kept: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let mut dropped = kept.clone();
        dropped[30] = "Other".into();
        let kept_prints = fingerprints(&config, &kept.join(" "));
        let found = first_difference(&config, &dropped.join(" "), &kept_prints).unwrap();
        let parts: Vec<&str> = found.split(SEP).collect();
        // Word shingles of five: the first holding word 31 starts at word 27.
        assert_eq!(parts[0], "27");
        assert_eq!(parts[2], "w26 w27 w28 w29 other");
        assert!(
            parts[1].starts_with("… w14 ") && parts[3].ends_with(" w39"),
            "{found}"
        );
        assert_eq!(
            first_difference(&config, &kept.join(" "), &kept_prints),
            None
        );
        // Elements that are not plain word shingles are not mapped to words.
        let mut chars = Config::default();
        chars.text.shingle = ShingleKind::Chars(5);
        assert_eq!(
            first_difference(&chars, &dropped.join(" "), &kept_prints),
            None
        );
        let mut weighted = Config::default();
        weighted.sketch.weights = Weights::Tf;
        assert_eq!(
            first_difference(&weighted, &dropped.join(" "), &kept_prints),
            None
        );
    }
}
