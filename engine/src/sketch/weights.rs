//! Shingle weights: term frequency and TF-IDF, the IDF table and its file.
//!
//! # The measure
//! With `--weights tf` a document is the vector of its shingle counts and similarity is the
//! weighted Jaccard Σ min(tf) / Σ max(tf) — exactly the multiset Jaccard of `--bag`, which is
//! how it is computed: the k-th repeat of a shingle is its own element (one code path, so the
//! two agree exactly, not just in expectation). With `--weights tfidf` the weight of shingle
//! `s` in a document is `tf(s) · idf(s)` and similarity is the weighted Jaccard
//! Σ_s min(w_A(s), w_B(s)) / Σ_s max(w_A(s), w_B(s)), both in the signature and in
//! verification.
//!
//! # The sampler, and why not a general CWS scheme
//! Consistent weighted sampling for arbitrary real weights — ICWS (Ioffe 2010, O(nK) with
//! several logarithms per element and hash), BagMinHash (Ertl 2018), DartMinHash (Christiani
//! 2020, O(n + K log K) expected), TreeMinHash (Ertl 2025) — is needed when an element's
//! weight can be any real number in each document. Ours cannot: a shingle's weight is
//! `tf · idf(s)`, an integer multiple of a constant of the shingle, because the IDF table is
//! frozen before any document is signed. So each occurrence of a shingle is one element (as
//! in `--bag`) with the fixed weight idf(s), and weighted MinHash of a *set with fixed element
//! weights* is exact and cheap (Chum, Philbin & Zisserman, "Near duplicate image detection:
//! min-hash and tf-idf weighting", BMVC 2008): lane k takes the element minimising
//! `E_k(e)/w(e)` with `E_k(e)` a unit exponential, an exponential race in which element `e`
//! wins with probability w(e)/Σw, and two documents agree iff the winner of the union lies in
//! the intersection: probability Σ_{A∩B} w / Σ_{A∪B} w, the weighted Jaccard above.
//! [`crate::sketch::minhash::Signer::sign_weighted_into`] computes it from the same vectorised lanes as
//! set MinHash, one pass per distinct weight, and takes a logarithm only when a cheap bound
//! says the weight group can win a lane. Measured cost: `examples/sign_cost.rs` and the
//! docs/performance.md; ICWS on the same documents is in that example for comparison.
//!
//! # IDF
//! `idf(s) = ln((1 + N) / (1 + df(s))) + 1` (the smoothed form): always ≥ 1 and finite, so no
//! weight is ever zero, negative, infinite or NaN; a shingle the table does not know (df = 0)
//! gets the maximum, ln(1 + N) + 1. Document frequencies come from `neardup idf` (a file) or
//! from the first documents of the stream (`--idf-warmup`); either way the table is frozen
//! before the first signature, so no two signatures use different weights.
//!
//! Counting is bounded: lossy counting (Manku & Motwani 2002) with buckets of
//! [`DF_BUCKET_DOCS`] documents keeps only shingles that could have df above N /
//! [`DF_BUCKET_DOCS`], and under-counts any df by at most that much. The file keeps the
//! `--max-terms` shingles of highest df with df ≥ 2 (df = 1 is within a hair of unseen).
//!
//! # File format (version 1, little-endian)
//! ```text
//! "NDIDF\0" u16 version | u32 len, settings (UTF-8) | u64 N | u64 M | M × (u64 shingle, u32 df)
//! sorted by shingle | u64 xxh3 of everything before
//! ```
//! The settings string names everything a shingle hash depends on (kind, n, seed,
//! normalisation); loading a file made with other settings is an error, as is a truncated or
//! corrupted file (wrong magic, length, order, df > N, checksum).

use crate::error::{Error, Result};
use crate::hash::MixHasher;
use crate::text::normalize::{Normalized, Normalizer, Words};
use crate::text::shingle::Shingler;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::io::{Read, Write};
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 6] = b"NDIDF\0";
const VERSION: u16 = 1;

/// Documents per lossy-counting bucket: document frequencies are exact below this many
/// documents and under-counted by at most N / this beyond.
pub(crate) const DF_BUCKET_DOCS: u64 = 100_000;

type Map<V> = HashMap<u64, V, BuildHasherDefault<MixHasher>>;

/// Frozen document frequencies.
#[derive(Clone, Debug, PartialEq)]
pub struct IdfTable {
    docs: u64,
    settings: String,
    /// Document frequency and idf (computed once) of each stored shingle.
    terms: TermTable,
    /// idf of a shingle the table does not know.
    unseen: f32,
}

impl IdfTable {
    /// Documents counted (N).
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Shingles with a stored document frequency.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// True when no shingle has a stored frequency.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The settings the table was made with.
    pub fn settings(&self) -> &str {
        &self.settings
    }

    /// Document frequency of a shingle hash (0 when unknown).
    pub fn df(&self, shingle: u64) -> u32 {
        self.terms.get(shingle).map_or(0, |t| t.0)
    }

    /// `ln((1 + N) / (1 + df)) + 1`, as the f32 every weight is stored in.
    pub fn idf(&self, shingle: u64) -> f32 {
        self.terms.get(shingle).map_or(self.unseen, |t| t.1)
    }

    /// Hints the memory system that `shingle` will be looked up soon.
    #[inline]
    pub(crate) fn prefetch(&self, shingle: u64) {
        self.terms.prefetch(shingle);
    }

    fn new(docs: u64, settings: String, df: impl IntoIterator<Item = (u64, u32)>) -> IdfTable {
        let formula = |df: u32| (((1.0 + docs as f64) / (1.0 + f64::from(df))).ln() + 1.0) as f32;
        IdfTable {
            docs,
            settings,
            terms: TermTable::new(df.into_iter().map(|(h, d)| (h, d, formula(d))).collect()),
            unseen: formula(0),
        }
    }

    /// Writes the table in the file format above.
    pub fn write_to<W: Write>(&self, mut w: W) -> std::io::Result<()> {
        let mut entries: Vec<(u64, u32)> = self.terms.iter().map(|(h, d, _)| (h, d)).collect();
        entries.sort_unstable();
        let mut buf = Vec::with_capacity(40 + self.settings.len() + entries.len() * 12);
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.extend_from_slice(&(self.settings.len() as u32).to_le_bytes());
        buf.extend_from_slice(self.settings.as_bytes());
        buf.extend_from_slice(&self.docs.to_le_bytes());
        buf.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (h, d) in entries {
            buf.extend_from_slice(&h.to_le_bytes());
            buf.extend_from_slice(&d.to_le_bytes());
        }
        let sum = xxh3_64(&buf);
        buf.extend_from_slice(&sum.to_le_bytes());
        w.write_all(&buf)
    }

    /// Reads a table, checking every field; `name` is used in messages.
    pub fn read_from<R: Read>(mut r: R, name: &str) -> Result<IdfTable> {
        let mut buf = Vec::new();
        r.read_to_end(&mut buf)
            .map_err(|e| Error::io(format!("reading {name}"), e))?;
        let bad = |why: &str| Error::config("idf", format!("{name}: {why}"));
        if buf.len() < 8 || &buf[..6] != MAGIC {
            return Err(bad("not a neardup IDF file (made by 'neardup idf')"));
        }
        let version = u16::from_le_bytes([buf[6], buf[7]]);
        if version != VERSION {
            return Err(bad(&format!(
                "IDF file version {version}; this neardup reads version {VERSION}"
            )));
        }
        if buf.len() < 8 + 8 {
            return Err(bad("truncated"));
        }
        let (body, sum) = buf.split_at(buf.len() - 8);
        if xxh3_64(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err(bad("checksum mismatch: the file is truncated or corrupted"));
        }
        let mut at = 8;
        let mut take = |n: usize| -> Result<&[u8]> {
            let s = body.get(at..at + n).ok_or_else(|| bad("truncated"))?;
            at += n;
            Ok(s)
        };
        let settings_len = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        let settings = std::str::from_utf8(take(settings_len)?)
            .map_err(|_| bad("settings are not UTF-8"))?
            .to_string();
        let docs = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        let count = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        if count.checked_mul(12) != Some((body.len() - at) as u64) {
            return Err(bad("entry count does not match the file length"));
        }
        let mut df = Vec::with_capacity(count as usize);
        let mut last = None;
        for chunk in body[at..].chunks_exact(12) {
            let h = u64::from_le_bytes(chunk[..8].try_into().expect("8 bytes"));
            let d = u32::from_le_bytes(chunk[8..].try_into().expect("4 bytes"));
            if last.is_some_and(|l| l >= h) {
                return Err(bad("entries are not sorted"));
            }
            if d == 0 || u64::from(d) > docs {
                return Err(bad(&format!("document frequency {d} outside 1..={docs}")));
            }
            last = Some(h);
            df.push((h, d));
        }
        Ok(IdfTable::new(docs, settings, df))
    }

    /// Loads `path`, refusing a table made with other shingling settings than `expected`
    /// ([`settings_of`] the run's shingler).
    pub fn load(path: &std::path::Path, expected: &str) -> Result<IdfTable> {
        let name = path.display().to_string();
        let file =
            std::fs::File::open(path).map_err(|e| Error::io(format!("opening {name}"), e))?;
        let table = IdfTable::read_from(std::io::BufReader::new(file), &name)?;
        if table.settings != expected {
            let hint = old_words_hint(&table.settings, expected);
            return Err(Error::config(
                "idf",
                format!(
                    "{name} was made with other shingling settings ({}) than this run \
                     ({expected}){hint}",
                    table.settings,
                ),
            ));
        }
        Ok(table)
    }
}

/// Open addressing with linear probing over the shingle hashes (already uniform, so their low
/// bits are the slot), at most half full; slots can be prefetched before a batch of lookups,
/// which overlaps the cache misses of a large table.
#[derive(Clone, Debug, PartialEq)]
struct TermTable {
    mask: usize,
    count: usize,
    /// (shingle, df, idf); df = 0 marks an empty slot.
    slots: Vec<(u64, u32, f32)>,
}

impl TermTable {
    fn new(entries: Vec<(u64, u32, f32)>) -> TermTable {
        let size = (entries.len() * 2).next_power_of_two().max(16);
        let mut table = TermTable {
            mask: size - 1,
            count: 0,
            slots: vec![(0, 0, 0.0); size],
        };
        for (h, d, idf) in entries {
            debug_assert!(d > 0);
            let mut i = h as usize & table.mask;
            while table.slots[i].1 != 0 && table.slots[i].0 != h {
                i = (i + 1) & table.mask;
            }
            table.count += (table.slots[i].1 == 0) as usize;
            table.slots[i] = (h, d, idf);
        }
        table
    }

    #[inline]
    fn get(&self, h: u64) -> Option<(u32, f32)> {
        let mut i = h as usize & self.mask;
        loop {
            let (key, df, idf) = self.slots[i];
            if df == 0 {
                return None;
            }
            if key == h {
                return Some((df, idf));
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline]
    fn prefetch(&self, h: u64) {
        crate::prefetch::prefetch(&self.slots[h as usize & self.mask]);
    }

    fn len(&self) -> usize {
        self.count
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn iter(&self) -> impl Iterator<Item = (u64, u32, f32)> + '_ {
        self.slots.iter().copied().filter(|s| s.1 != 0)
    }
}

/// Everything a shingle hash depends on, as stored in IDF files: the shingler's settings
/// and the normalisation. Files written before `--words` existed split words on spaces only
/// and name no `words:`, so the word rule is named only when it is not that one: such files
/// still load with `--words spaces`, and are refused (see [`OLD_WORDS_HINT`]) otherwise.
pub fn settings_of(shingler: &Shingler, normalizer: &Normalizer) -> String {
    let n = normalizer;
    let words = match n.words {
        Words::Unicode => " words:unicode",
        Words::Spaces => "",
    };
    format!(
        "{} lowercase:{} nfkc:{} strip_html:{} strip_punct:{}{words}",
        shingler.settings(),
        n.lowercase,
        n.nfkc,
        n.strip_html,
        n.strip_punct
    )
}

/// Added to the error for a file made with other settings when the file names no word rule
/// and the run splits words by script: the file was written before words were.
pub(crate) const OLD_WORDS_HINT: &str = "; the file was written before neardup split the words of \
     scripts without spaces (Chinese, Japanese, Thai …): ‹words› spaces reads it as it was written";

/// [`OLD_WORDS_HINT`] when a file's `saved` settings lack the word rule that `current` names.
pub(crate) fn old_words_hint(saved: &str, current: &str) -> &'static str {
    if current.contains(" words:") && !saved.contains(" words:") {
        OLD_WORDS_HINT
    } else {
        ""
    }
}

/// Bounded document-frequency counting (lossy counting).
#[derive(Debug, Default)]
pub struct DfCounter {
    /// shingle → (count, maximum undercount when first seen).
    counts: Map<(u32, u32)>,
    docs: u64,
}

impl DfCounter {
    /// Counts one document's distinct shingles (sorted, distinct).
    pub fn add(&mut self, shingles: &[u64]) {
        self.docs += 1;
        let bucket = self.docs.div_ceil(DF_BUCKET_DOCS) as u32;
        for &h in shingles {
            self.counts.entry(h).or_insert((0, bucket - 1)).0 += 1;
        }
        if self.docs.is_multiple_of(DF_BUCKET_DOCS) {
            self.counts.retain(|_, (c, d)| *c + *d > bucket);
        }
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// The frozen table: the `max_terms` shingles of highest df with df ≥ 2 (ties: lower
    /// hash), under `settings`.
    pub fn finish(self, max_terms: usize, settings: String) -> IdfTable {
        let mut entries: Vec<(u32, u64)> = self
            .counts
            .into_iter()
            .filter(|(_, (c, _))| *c >= 2)
            .map(|(h, (c, _))| (c, h))
            .collect();
        entries.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        entries.truncate(max_terms);
        IdfTable::new(
            self.docs,
            settings,
            entries.into_iter().map(|(c, h)| (h, c)),
        )
    }
}

/// Learns a frozen table from `texts`, as `--idf-warmup` does from its first lines (for the
/// in-process [`crate::pipeline::Deduper`]): a text that is not a document
/// ([`Normalizer::document_into`]) counts for nothing.
pub fn learn<'a>(
    normalizer: &Normalizer,
    shingler: &Shingler,
    texts: impl IntoIterator<Item = &'a str>,
) -> IdfTable {
    let mut counter = DfCounter::default();
    let (mut normalized, mut shingles) = (Normalized::default(), Vec::new());
    for text in texts {
        if normalizer.document_into(text, &mut normalized).is_ok() {
            shingler.shingles_into(&normalized, &mut shingles);
            counter.add(&shingles);
        }
    }
    counter.finish(usize::MAX, settings_of(shingler, normalizer))
}

/// A document's weighted elements, built with reusable buffers.
#[derive(Debug, Default)]
pub struct Weigher {
    scratch: Vec<u64>,
    pairs: Vec<(u64, u64)>,
    weighed: Vec<(u64, f32)>,
    /// Weight groups: (weight bits, elements), heaviest first after `weigh`.
    groups: Vec<(u32, Vec<u64>)>,
    used: usize,
    /// Sorted distinct elements.
    pub elements: Vec<u64>,
    /// Their weights.
    pub weights: Vec<f32>,
    /// Sum of the weights.
    pub total: f64,
}

impl Weigher {
    /// Weighs `doc`: every occurrence of shingle `s` is an element of weight idf(s).
    pub fn weigh(&mut self, shingler: &Shingler, doc: &Normalized, table: &IdfTable) {
        shingler.elements_with_shingles_into(doc, &mut self.scratch, &mut self.pairs);
        self.weighed.clear();
        for &(_, s) in &self.pairs {
            table.prefetch(s);
        }
        // Repeats of a shingle are adjacent: one lookup per distinct shingle.
        let mut last = (None, 0.0f32);
        self.weighed.extend(self.pairs.iter().map(|&(e, s)| {
            if last.0 != Some(s) {
                last = (Some(s), table.idf(s));
            }
            (e, last.1)
        }));
        self.weighed.sort_unstable_by_key(|x| x.0);
        self.weighed.dedup_by_key(|x| x.0);
        // Group by weight: a document has few distinct weights (most shingles are rare and
        // share the maximum), so a linear search over the groups is the fast path.
        for g in &mut self.groups[..self.used] {
            g.1.clear();
        }
        self.used = 0;
        self.elements.clear();
        self.weights.clear();
        self.total = 0.0;
        for &(e, w) in &self.weighed {
            self.elements.push(e);
            self.weights.push(w);
            self.total += f64::from(w);
            let bits = w.to_bits();
            match self.groups[..self.used].iter().position(|g| g.0 == bits) {
                Some(i) => self.groups[i].1.push(e),
                None => {
                    if self.used == self.groups.len() {
                        self.groups.push((bits, Vec::new()));
                    }
                    self.groups[self.used].0 = bits;
                    self.groups[self.used].1.push(e);
                    self.used += 1;
                }
            }
        }
        // Heaviest group first (total weight, then weight; positive floats order as their
        // bits): it sets each lane's minimum early so the signer's bound skips most lanes of
        // the others. The order is canonical, so ties break the same way in every document.
        self.groups[..self.used].sort_unstable_by(|a, b| {
            let total = |g: &(u32, Vec<u64>)| f64::from(f32::from_bits(g.0)) * g.1.len() as f64;
            total(b).total_cmp(&total(a)).then(b.0.cmp(&a.0))
        });
    }

    /// The elements grouped by weight, for [`crate::sketch::minhash::Signer::sign_weighted_into`].
    pub fn groups(&self) -> Vec<(f64, &[u64])> {
        self.groups[..self.used]
            .iter()
            .map(|(w, e)| (f64::from(f32::from_bits(*w)), &e[..]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> IdfTable {
        let mut c = DfCounter::default();
        c.add(&[1, 2, 3]);
        c.add(&[2, 3]);
        c.add(&[3, 4]);
        c.finish(10, "words:5 test".into())
    }

    #[test]
    fn idf_is_smoothed_and_positive() {
        let t = table();
        assert_eq!((t.docs(), t.len()), (3, 2), "df = 1 is not stored");
        assert_eq!(t.df(3), 3);
        assert_eq!(t.df(2), 2);
        assert_eq!(t.df(1), 0);
        assert!((t.idf(3) - 1.0).abs() < 1e-6, "in every document: idf 1");
        assert!((f64::from(t.idf(99)) - (4f64.ln() + 1.0)).abs() < 1e-6);
        assert!(t.idf(2) > t.idf(3) && t.idf(99) > t.idf(2));
        assert!(DfCounter::default().finish(5, String::new()).idf(7) == 1.0);
        // Read back, the table computes the same weights.
        let mut bytes = Vec::new();
        t.write_to(&mut bytes).unwrap();
        let back = IdfTable::read_from(&bytes[..], "x").unwrap();
        assert_eq!((back.idf(2), back.idf(99)), (t.idf(2), t.idf(99)));
    }

    #[test]
    fn file_round_trip_and_corruption() {
        let t = table();
        let mut bytes = Vec::new();
        t.write_to(&mut bytes).unwrap();
        assert_eq!(IdfTable::read_from(&bytes[..], "x").unwrap(), t);
        for cut in [0, 5, 8, 20, bytes.len() - 1] {
            assert!(
                IdfTable::read_from(&bytes[..cut], "x").is_err(),
                "cut {cut}"
            );
        }
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x10;
            let err = IdfTable::read_from(&flipped[..], "x").unwrap_err();
            assert_eq!(err.exit_code(), 2, "byte {i}: {err}");
        }
    }

    #[test]
    fn max_terms_keeps_the_most_frequent() {
        let mut c = DfCounter::default();
        for d in 0..10u64 {
            let doc: Vec<u64> = (0..=d).collect();
            c.add(&doc);
        }
        let t = c.finish(3, String::new());
        assert_eq!(t.len(), 3);
        assert_eq!((t.df(0), t.df(1), t.df(2), t.df(3)), (10, 9, 8, 0));
    }

    #[test]
    fn lossy_counting_bounds_the_error() {
        // 250,000 documents: shingle 7 in every fourth, a fresh shingle in each.
        let mut c = DfCounter::default();
        for d in 0..250_000u64 {
            if d % 4 == 0 {
                c.add(&[7, 1_000_000 + d]);
            } else {
                c.add(&[1_000_000 + d]);
            }
        }
        assert!(
            c.counts.len() < 2 * DF_BUCKET_DOCS as usize,
            "{}",
            c.counts.len()
        );
        let t = c.finish(100, String::new());
        let err = 250_000 / DF_BUCKET_DOCS as u32;
        assert!(t.df(7) <= 62_500 && t.df(7) + err >= 62_500, "{}", t.df(7));
    }
}
