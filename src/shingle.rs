//! Shingling: a normalised document → the sorted set of its shingles' 64-bit hashes.
//!
//! A word shingle is `n` consecutive tokens; a character shingle is `n` consecutive characters
//! of the normalised text (tokens joined by single spaces). Because the normaliser joins tokens
//! with one space, every shingle is a contiguous slice of one string, hashed in place with
//! seeded xxh3: no shingle string is ever built or kept. A document shorter than `n` is one
//! shingle (its whole text), so short documents still compare.
//!
//! Set semantics (default) keep each distinct shingle once. Bag semantics (`--bag`, SEEDS.md
//! §1) keep repeats: the k-th repeat (k ≥ 1) of shingle `h` becomes the distinct element
//! `mix(h, k)`, so set Jaccard over these elements is the multiset Jaccard
//! Σmin(count)/Σmax(count).

use crate::config::ShingleKind;
use crate::hash::mix64;
use crate::normalize::Normalized;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Turns normalised documents into shingle hash sets.
#[derive(Clone, Copy, Debug)]
pub struct Shingler {
    kind: ShingleKind,
    bag: bool,
    seed: u64,
}

impl Shingler {
    /// A shingler of `kind`; `bag` selects multiset semantics; `seed` seeds xxh3.
    pub fn new(kind: ShingleKind, bag: bool, seed: u64) -> Shingler {
        Shingler { kind, bag, seed }
    }

    /// Writes the sorted, distinct element hashes of `doc` into `out` (cleared first).
    /// An empty document gives an empty set.
    pub fn shingles_into(&self, doc: &Normalized, out: &mut Vec<u64>) {
        self.raw_into(doc, out);
        out.sort_unstable();
        if self.bag {
            let mut i = 0;
            while i < out.len() {
                let h = out[i];
                let mut k = 1u64;
                i += 1;
                while i < out.len() && out[i] == h {
                    out[i] = repeat_element(h, k);
                    k += 1;
                    i += 1;
                }
            }
            out.sort_unstable();
        }
        out.dedup();
    }

    /// Bag elements with the shingle each stands for: `(element, shingle)` for every
    /// occurrence (the first occurrence of shingle `h` is `h` itself, the k-th repeat the same
    /// element as in bag semantics), unsorted. `scratch` is reused. With set semantics each
    /// shingle appears once.
    pub fn elements_with_shingles_into(
        &self,
        doc: &Normalized,
        scratch: &mut Vec<u64>,
        out: &mut Vec<(u64, u64)>,
    ) {
        out.clear();
        self.raw_into(doc, scratch);
        scratch.sort_unstable();
        let mut i = 0;
        while i < scratch.len() {
            let h = scratch[i];
            out.push((h, h));
            let mut k = 1u64;
            i += 1;
            while i < scratch.len() && scratch[i] == h {
                if self.bag {
                    out.push((repeat_element(h, k), h));
                }
                k += 1;
                i += 1;
            }
        }
    }

    /// The hash of every shingle occurrence of `doc`, in text order.
    fn raw_into(&self, doc: &Normalized, out: &mut Vec<u64>) {
        out.clear();
        if doc.is_empty() {
            return;
        }
        let text = doc.text.as_slice();
        match self.kind {
            ShingleKind::Words(n) => {
                let t = &doc.tokens;
                if t.len() <= n {
                    out.push(xxh3_64_with_seed(text, self.seed));
                } else {
                    out.extend(
                        (0..=t.len() - n)
                            .map(|i| xxh3_64_with_seed(&text[t[i].0..t[i + n - 1].1], self.seed)),
                    );
                }
            }
            ShingleKind::Chars(n) => {
                if doc.text.is_ascii() {
                    if text.len() <= n {
                        out.push(xxh3_64_with_seed(text, self.seed));
                    } else {
                        out.extend(text.windows(n).map(|w| xxh3_64_with_seed(w, self.seed)));
                    }
                } else {
                    let mut bounds: Vec<usize> =
                        doc.as_str().char_indices().map(|(i, _)| i).collect();
                    bounds.push(text.len());
                    let chars = bounds.len() - 1;
                    if chars <= n {
                        out.push(xxh3_64_with_seed(text, self.seed));
                    } else {
                        out.extend((0..=chars - n).map(|i| {
                            xxh3_64_with_seed(&text[bounds[i]..bounds[i + n]], self.seed)
                        }));
                    }
                }
            }
        }
    }
}

/// The element standing for the k-th repeat (k ≥ 1) of shingle hash `h` in bag semantics:
/// mixed so that (h, k) pairs land far from each other and from the plain shingle hashes.
fn repeat_element(h: u64, k: u64) -> u64 {
    mix64(h ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::Normalizer;

    fn shingles(kind: ShingleKind, bag: bool, text: &str) -> Vec<u64> {
        let mut n = Normalized::default();
        Normalizer::default().normalize_into(text, &mut n);
        let mut out = Vec::new();
        Shingler::new(kind, bag, 7).shingles_into(&n, &mut out);
        out
    }

    #[test]
    fn counts_table() {
        let w = ShingleKind::Words;
        let c = ShingleKind::Chars;
        let cases: &[(ShingleKind, bool, &str, usize)] = &[
            (w(2), false, "a b c d", 3),
            (w(2), false, "a b a b", 2), // "a b", "b a", "a b" again
            (w(2), true, "a b a b", 3),
            (w(5), false, "too short", 1),
            (w(1), false, "", 0),
            (c(3), false, "abcd", 2),
            (c(3), false, "ab", 1),
            (c(2), false, "çéç", 2),
            (c(2), true, "aaaa", 3),
        ];
        for &(kind, bag, text, expected) in cases {
            assert_eq!(
                shingles(kind, bag, text).len(),
                expected,
                "{kind:?} bag={bag} {text:?}"
            );
        }
    }

    #[test]
    fn output_is_sorted_and_distinct() {
        let s = shingles(ShingleKind::Words(1), true, "x y x z x y");
        let mut sorted = s.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(s, sorted);
        assert_eq!(s.len(), 6);
    }

    #[test]
    fn shingle_hash_is_xxh3_of_the_slice() {
        let s = shingles(ShingleKind::Words(2), false, "Hello  World");
        assert_eq!(s, vec![xxh3_64_with_seed(b"hello world", 7)]);
    }

    #[test]
    fn case_and_spacing_do_not_matter_by_default() {
        let w = ShingleKind::Words(3);
        assert_eq!(
            shingles(w, false, "The quick brown fox"),
            shingles(w, false, "the   QUICK brown\tfox")
        );
    }
}
