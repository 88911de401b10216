//! The LSH window: the recent documents a new one is compared with.
//!
//! Holds, for at most `capacity` documents (0 = unbounded), what verification needs (sorted
//! shingle hashes, or a compact signature when verification is off), each document's band
//! keys, and three indexes:
//! - `buckets`: band key → the documents with that key (the LSH tables; one table serves all
//!   bands because band keys already include the band number);
//! - `exact`: 128-bit hash of the normalised text → the first document with it;
//! - `entries`: an LRU list (the `lru` crate) keyed by sequence number. Inserting or matching a
//!   document moves it to the front; when the window is full the least recently inserted or
//!   matched document is evicted from all three indexes.
//!
//! Candidates come back as sorted sequence numbers, so the order in which they are verified,
//! and therefore the output, never depends on hash-map iteration order.

use crate::input::DocId;
use lru::LruCache;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// What the window keeps of a document.
#[derive(Debug)]
pub struct Entry {
    /// The document's id, for `dup_of` and pairs.
    pub id: DocId,
    /// Sorted distinct shingle hashes (empty when verification is off).
    pub shingles: Box<[u64]>,
    /// `--weights tfidf`: each shingle element's weight (else empty).
    pub weights: Box<[f32]>,
    /// Sum of `weights`.
    pub total_weight: f64,
    /// Normalised text, kept only for text confirmation stages (else empty).
    pub text: Box<str>,
    /// Compact signature (empty unless verification is off).
    pub signature: Box<[u32]>,
    /// One key per band.
    pub band_keys: Box<[u64]>,
    /// Hash of the normalised text, when the document is in the exact index.
    pub exact: Option<u128>,
    /// Hash of the normalised text (always; verification skips the merge when two are equal).
    pub text_hash: u128,
}

impl Entry {
    /// Heap and inline bytes this entry holds (not counting the index entries).
    pub fn approx_bytes(&self) -> usize {
        std::mem::size_of::<Entry>()
            + self.shingles.len() * 8
            + self.weights.len() * 4
            + self.text.len()
            + self.signature.len() * 4
            + self.band_keys.len() * 8
            + match &self.id {
                DocId::Str(s) | DocId::Num(s) if s.is_heap_allocated() => s.len(),
                DocId::Str(_) | DocId::Num(_) => 0,
                DocId::Line(_) => 0,
            }
    }
}

/// A hasher for keys that are already well mixed or small integers: murmur3's finaliser on
/// the written value. Deterministic (no random state), so runs are reproducible.
#[derive(Default, Clone, Copy)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        crate::hash::mix64(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }

    fn write_u128(&mut self, n: u128) {
        self.0 ^= (n as u64) ^ ((n >> 64) as u64).rotate_left(31);
    }
}

type Mix = BuildHasherDefault<MixHasher>;

/// The bounded window of recent documents.
pub struct Window {
    capacity: usize,
    entries: LruCache<u64, Entry, Mix>,
    buckets: HashMap<u64, SmallVec<[u64; 2]>, Mix>,
    exact: HashMap<u128, u64, Mix>,
    evictions: u64,
}

impl Window {
    /// A window of at most `capacity` documents; 0 means unbounded.
    pub fn new(capacity: usize) -> Window {
        Window {
            capacity,
            entries: LruCache::unbounded_with_hasher(Mix::default()),
            buckets: HashMap::default(),
            exact: HashMap::default(),
            evictions: 0,
        }
    }

    /// Makes room for `docs` more documents with `keys` band keys in all (avoids rehashing
    /// while a saved window is loaded).
    pub fn reserve(&mut self, docs: usize, keys: usize) {
        self.buckets.reserve(keys);
        self.exact.reserve(docs);
    }

    /// Number of documents held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no document is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Documents evicted so far.
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// The documents held with their sequence numbers, least recently used first: inserting
    /// them in this order into an empty window rebuilds this one (what `--state` saves).
    pub fn oldest_first(&self) -> impl Iterator<Item = (u64, &Entry)> {
        self.entries.iter().rev().map(|(seq, e)| (*seq, e))
    }

    /// The document whose normalised text hashes to `hash`, if it is in the window.
    pub fn find_exact(&self, hash: u128) -> Option<u64> {
        self.exact.get(&hash).copied()
    }

    /// Writes into `out` (cleared first) the sorted, distinct sequence numbers of documents
    /// sharing at least one band key.
    pub fn candidates(&self, band_keys: &[u64], out: &mut Vec<u64>) {
        out.clear();
        for key in band_keys {
            if let Some(bucket) = self.buckets.get(key) {
                out.extend_from_slice(bucket);
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// The entry of document `seq`, without changing its recency.
    pub fn get(&self, seq: u64) -> Option<&Entry> {
        self.entries.peek(&seq)
    }

    /// Marks document `seq` as just matched, protecting it from eviction.
    pub fn touch(&mut self, seq: u64) {
        self.entries.promote(&seq);
    }

    /// Adds document `seq` (larger than every earlier one), evicting the least recently
    /// used document when the window is full. `entry.exact` is indexed when it is set and no
    /// document with the same text is held.
    pub fn insert(&mut self, seq: u64, mut entry: Entry) {
        for &key in entry.band_keys.iter() {
            self.buckets.entry(key).or_default().push(seq);
        }
        if let Some(h) = entry.exact {
            match self.exact.entry(h) {
                std::collections::hash_map::Entry::Occupied(_) => entry.exact = None,
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(seq);
                }
            }
        }
        self.entries.push(seq, entry);
        if self.capacity > 0 {
            while self.entries.len() > self.capacity {
                self.evict_one();
            }
        }
    }

    fn evict_one(&mut self) {
        let Some((seq, entry)) = self.entries.pop_lru() else {
            return;
        };
        self.evictions += 1;
        for key in entry.band_keys.iter() {
            if let Some(bucket) = self.buckets.get_mut(key) {
                bucket.retain(|s| *s != seq);
                if bucket.is_empty() {
                    self.buckets.remove(key);
                }
            }
        }
        if let Some(h) = entry.exact {
            self.exact.remove(&h);
        }
    }

    /// Approximate bytes held by entries and indexes (for `--stats`).
    pub fn approx_bytes(&self) -> usize {
        let entries: usize = self
            .entries
            .iter()
            .map(|(_, e)| e.approx_bytes() + 48)
            .sum();
        let bucket_bytes =
            self.buckets.capacity() * (8 + std::mem::size_of::<SmallVec<[u64; 2]>>() + 1);
        let exact_bytes = self.exact.capacity() * (16 + 8 + 1);
        entries + bucket_bytes + exact_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(keys: &[u64], exact: Option<u128>) -> Entry {
        Entry {
            id: DocId::Line(0),
            shingles: Box::new([]),
            weights: Box::new([]),
            total_weight: 0.0,
            text: "".into(),
            signature: Box::new([]),
            band_keys: keys.into(),
            exact,
            text_hash: 0,
        }
    }

    #[test]
    fn candidates_are_sorted_and_distinct() {
        let mut w = Window::new(0);
        w.insert(5, entry(&[1, 2], None));
        w.insert(3, entry(&[2, 3], None));
        w.insert(9, entry(&[7], None));
        let mut c = Vec::new();
        w.candidates(&[3, 2, 1], &mut c);
        assert_eq!(c, vec![3, 5]);
        w.candidates(&[42], &mut c);
        assert!(c.is_empty());
    }

    #[test]
    fn evicts_least_recently_matched() {
        let mut w = Window::new(2);
        w.insert(1, entry(&[10], Some(100)));
        w.insert(2, entry(&[20], None));
        w.touch(1);
        w.insert(3, entry(&[30], None));
        assert_eq!(w.len(), 2);
        assert_eq!(w.evictions(), 1);
        assert!(w.get(2).is_none());
        assert!(w.get(1).is_some());
        let mut c = Vec::new();
        w.candidates(&[20], &mut c);
        assert!(c.is_empty(), "evicted documents leave the buckets");
        w.insert(4, entry(&[40], None));
        assert!(w.get(1).is_none());
        assert_eq!(
            w.find_exact(100),
            None,
            "evicted documents leave the exact index"
        );
    }

    #[test]
    fn exact_index_keeps_the_first_document() {
        let mut w = Window::new(0);
        w.insert(1, entry(&[1], Some(7)));
        w.insert(2, entry(&[1], Some(7)));
        assert_eq!(w.find_exact(7), Some(1));
    }

    #[test]
    fn memory_stays_bounded_under_churn() {
        let mut w = Window::new(100);
        for seq in 0..10_000u64 {
            w.insert(seq, entry(&[seq, seq / 2, seq % 17], Some(seq as u128)));
        }
        assert_eq!(w.len(), 100);
        assert!(w.buckets.len() <= 300);
        assert!(w.exact.len() <= 100);
    }
}
