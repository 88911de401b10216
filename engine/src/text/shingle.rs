//! Shingling: a normalised document → the sorted set of its shingles' 64-bit hashes.
//!
//! A word shingle is `n` consecutive tokens; a character shingle is `n` consecutive characters
//! of the normalised text (tokens joined by single spaces). Because the normaliser joins tokens
//! with one space, every shingle is a contiguous slice of one string, hashed in place with
//! seeded xxh3: no shingle string is ever built or kept. A document shorter than `n` is one
//! shingle (its whole text), so short documents still compare.
//!
//! Set semantics (default) keep each distinct shingle once. Bag semantics (`--bag`, methods
//! §1) keep repeats: the k-th repeat (k ≥ 1) of shingle `h` becomes the distinct element
//! `mix(h, k)`, so set Jaccard over these elements is the multiset Jaccard
//! Σmin(count)/Σmax(count).

use crate::hash::mix64;
use crate::text::normalize::Normalized;
use std::collections::HashSet;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// What a shingle is made of, as users name it (`--shingle`); its length is the run's
/// (`-n`, `--char-ngram`), and the two make a [`ShingleKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShingleUnit {
    /// Consecutive words.
    Words,
    /// Consecutive characters.
    Chars,
    /// Spot signatures anchored at stop words.
    Stopword,
}

crate::choice::choices!(ShingleUnit {
    "words" => Words: "Consecutive words",
    "chars" => Chars: "Consecutive characters",
    "stopword" => Stopword: "Spot signatures anchored at stop words",
});

/// What a shingle is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShingleKind {
    /// `n` consecutive word tokens.
    Words(usize),
    /// `n` consecutive characters of the normalised text.
    Chars(usize),
    /// Spot signatures (SpotSigs, methods §2): at every stop word, the stop word followed by
    /// the next `n` words that are not stop words.
    Stopword(usize),
}

impl ShingleKind {
    /// What its shingles are made of, as `--shingle` names it.
    pub fn unit(&self) -> ShingleUnit {
        match self {
            ShingleKind::Words(_) => ShingleUnit::Words,
            ShingleKind::Chars(_) => ShingleUnit::Chars,
            ShingleKind::Stopword(_) => ShingleUnit::Stopword,
        }
    }
}

/// Words that anchor spot signatures ([`ShingleKind::Stopword`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopWords(HashSet<Box<str>>);

/// Common English function words: the built-in anchors of `--shingle stopword`.
const ENGLISH: &str = "a about above after again against all am an and any are as at be because \
    been before being below between both but by can could did do does doing down during each \
    few for from further had has have having he her here hers herself him himself his how i if \
    in into is it its itself just me more most my myself no nor not now of off on once only or \
    other our ours ourselves out over own same she should so some such than that the their \
    theirs them themselves then there these they this those through to too under until up very \
    was we were what when where which while who whom why will with would you your yours \
    yourself yourselves said says also";

impl StopWords {
    /// The built-in English list (about 150 function words).
    pub(crate) fn english() -> StopWords {
        StopWords(ENGLISH.split_whitespace().map(Box::from).collect())
    }

    /// One word per line (blank lines and lines starting with `#` ignored), normalised like
    /// the documents so that they match their tokens.
    pub fn parse(text: &str, normalizer: &crate::text::normalize::Normalizer) -> StopWords {
        let mut normalized = Normalized::default();
        let mut set = HashSet::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            normalizer.normalize_into(line, &mut normalized);
            for i in 0..normalized.tokens.len() {
                set.insert(Box::from(normalized.token(i)));
            }
        }
        StopWords(set)
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when `word` is a stop word.
    pub fn contains(&self, word: &str) -> bool {
        self.0.contains(word)
    }

    /// An order-independent hash of the list (IDF files record it).
    pub(crate) fn fingerprint(&self) -> u64 {
        self.0
            .iter()
            .map(|w| mix64(xxh3_64_with_seed(w.as_bytes(), 0)))
            .fold(0, u64::wrapping_add)
    }
}

/// Turns normalised documents into shingle hash sets.
#[derive(Clone, Debug)]
pub struct Shingler {
    kind: ShingleKind,
    bag: bool,
    seed: u64,
    stopwords: Arc<StopWords>,
}

impl Shingler {
    /// A shingler of `kind`; `bag` selects multiset semantics; `seed` seeds xxh3.
    pub fn new(kind: ShingleKind, bag: bool, seed: u64) -> Shingler {
        Shingler {
            kind,
            bag,
            seed,
            stopwords: Arc::new(StopWords::english()),
        }
    }

    /// A shingler of this kind and seed (the stop words of [`ShingleKind::Stopword`] as
    /// given); with `bag`, repeated shingles are counted.
    pub(crate) fn with_stopwords(
        kind: ShingleKind,
        bag: bool,
        seed: u64,
        stopwords: &Arc<StopWords>,
    ) -> Shingler {
        Shingler {
            kind,
            bag,
            seed,
            stopwords: Arc::clone(stopwords),
        }
    }

    /// Everything a shingle's hash depends on besides the normalisation: kind, length,
    /// seed, and the stop-word list of [`ShingleKind::Stopword`] (by fingerprint).
    pub fn settings(&self) -> String {
        let kind = match self.kind {
            ShingleKind::Words(n) => format!("words:{n}"),
            ShingleKind::Chars(n) => format!("chars:{n}"),
            ShingleKind::Stopword(n) => {
                format!("stopword:{n} list:{:016x}", self.stopwords.fingerprint())
            }
        };
        format!("{kind} seed:{}", self.seed)
    }

    /// Writes the sorted, distinct element hashes of `doc` into `out` (cleared first).
    /// An empty document gives an empty set.
    pub fn shingles_into(&self, doc: &Normalized, out: &mut Vec<u64>) {
        self.raw_into(doc, out);
        SCRATCH.with_borrow_mut(|scratch| crate::hash::sort_hashes(out, scratch));
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
            SCRATCH.with_borrow_mut(|scratch| crate::hash::sort_hashes(out, scratch));
        }
        out.dedup();
    }

    /// The hash of the word shingle of `doc` from token `first` to token `last` (inclusive),
    /// as [`Shingler::shingles_into`] makes it for word shingles: to find which of a
    /// document's shingles another lacks (the report's pairs).
    pub(crate) fn hash_of(&self, doc: &Normalized, first: usize, last: usize) -> u64 {
        let t = &doc.tokens;
        xxh3_64_with_seed(&doc.text[t[first].0..t[last].1], self.seed)
    }

    /// Bag elements with the shingle each stands for: `(element, shingle)` for every
    /// occurrence (the first occurrence of shingle `h` is `h` itself, the k-th repeat the same
    /// element as in bag semantics), unsorted. `scratch` is reused. With set semantics each
    /// shingle appears once.
    pub(crate) fn elements_with_shingles_into(
        &self,
        doc: &Normalized,
        scratch: &mut Vec<u64>,
        out: &mut Vec<(u64, u64)>,
    ) {
        out.clear();
        self.raw_into(doc, scratch);
        SCRATCH.with_borrow_mut(|buffer| crate::hash::sort_hashes(scratch, buffer));
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
            ShingleKind::Stopword(n) => {
                let stop: Vec<bool> = (0..doc.tokens.len())
                    .map(|i| self.stopwords.contains(doc.token(i)))
                    .collect();
                let mut buf = Vec::new();
                for i in 0..stop.len() {
                    if !stop[i] {
                        continue;
                    }
                    buf.clear();
                    buf.extend_from_slice(doc.token(i).as_bytes());
                    let mut taken = 0;
                    for j in (i + 1..stop.len()).filter(|&j| !stop[j]).take(n) {
                        buf.push(b' ');
                        buf.extend_from_slice(doc.token(j).as_bytes());
                        taken += 1;
                    }
                    if taken == n {
                        out.push(xxh3_64_with_seed(&buf, self.seed));
                    }
                }
                // A text without any complete spot signature is one shingle, as a short
                // document is in the other kinds.
                if out.is_empty() {
                    out.push(xxh3_64_with_seed(text, self.seed));
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

thread_local! {
    /// The sort's scratch buffer, one per thread (`Shingler` is shared between threads).
    static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Makes this thread's sort buffer exist. Its destructor is registered with the C library
/// on first use, which allocates outside the guarded allocator ([`crate::guard`]) and aborts
/// the process when that fails: a thread that shingles calls this when it starts, so that
/// the registration never waits until memory has run out (the sequencer signs only when it
/// would wait, which may first happen late in a run).
pub(crate) fn prepare_thread() {
    SCRATCH.with(|_| {});
}

/// The element standing for the k-th repeat (k ≥ 1) of shingle hash `h` in bag semantics:
/// mixed so that (h, k) pairs land far from each other and from the plain shingle hashes.
fn repeat_element(h: u64, k: u64) -> u64 {
    mix64(h ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize::Normalizer;

    /// A kind's unit is what `--shingle` names it, whatever its length.
    #[test]
    fn a_kind_names_its_unit() {
        use crate::choice::Choice;
        for (kind, name) in [
            (ShingleKind::Words(5), "words"),
            (ShingleKind::Chars(3), "chars"),
            (ShingleKind::Stopword(2), "stopword"),
        ] {
            assert_eq!(kind.unit(), ShingleUnit::from_name(name).unwrap());
            assert_eq!(kind.unit().to_string(), name);
        }
    }

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

    fn spot(text: &str, n: usize, words: Option<&str>) -> Vec<u64> {
        let mut shingler = Shingler::new(ShingleKind::Stopword(n), false, 1);
        if let Some(w) = words {
            shingler.stopwords = Arc::new(StopWords::parse(w, &Normalizer::default()));
        }
        let mut norm = Normalized::default();
        Normalizer::default().normalize_into(text, &mut norm);
        let mut out = Vec::new();
        shingler.shingles_into(&norm, &mut out);
        out
    }

    #[test]
    fn spot_signatures_start_at_stop_words_and_skip_them() {
        let h = |s: &str| xxh3_64_with_seed(s.as_bytes(), 1);
        let mut expected = vec![h("the cat"), h("on mat"), h("the mat")];
        expected.sort_unstable();
        assert_eq!(spot("The cat sat on the mat", 1, None), expected);
        let mut two = vec![h("the cat sat"), h("on mat ran"), h("the mat ran")];
        two.sort_unstable();
        assert_eq!(spot("the cat sat on the mat ran", 2, None), two);
        // No complete signature: the whole text is one shingle.
        assert_eq!(spot("cat sat mat", 1, None), vec![h("cat sat mat")]);
        // Navigation words without stop words add nothing (SpotSigs' point).
        let article = "the minister said that the budget would be cut by a third in the spring";
        assert_eq!(
            spot(
                &format!("Home News Sports Login Weather {article}"),
                2,
                None
            ),
            spot(article, 2, None)
        );
        // A custom list, normalised like the text.
        let mut custom = vec![h("alpha b c")];
        custom.sort_unstable();
        assert_eq!(spot("x alpha b c", 2, Some("# anchors\nALPHA\n")), custom);
        assert_eq!(
            StopWords::parse("\n# none\n", &Normalizer::default()).len(),
            0
        );
        assert!(StopWords::english().contains("the"));
        assert_ne!(
            StopWords::english().fingerprint(),
            StopWords::parse("the", &Normalizer::default()).fingerprint()
        );
    }
}
