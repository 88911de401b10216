//! Candidate lookups: the documents that share band keys with a query, each once, in
//! sequence order or ranked by the bands they share.

use super::{Held, Marks, Window, shard};
use std::cmp::Reverse;

/// The order of [`Window::ranked_candidates`]: more shared bands first, then the earlier.
pub type Rank = (Reverse<u8>, u64);

impl Window {
    /// Writes into `out` (cleared first) the documents sharing at least one band key, sorted
    /// by sequence number, each once.
    pub fn candidates(&mut self, band_keys: &[u64], out: &mut Vec<Held>) {
        let mut marks = std::mem::take(&mut self.marks);
        self.candidates_before(band_keys, u64::MAX, &mut marks, out);
        self.marks = marks;
    }

    /// Writes into `out` (cleared first) the first `limit` of the documents sharing at least
    /// one band key, each once, those sharing the most bands first (ties: the earlier
    /// first). The filter verifies them in this order and may stop early: a document that
    /// shares more bands is more similar on average (each band agrees with probability
    /// J^rows).
    pub fn ranked_candidates(&mut self, band_keys: &[u64], limit: usize, out: &mut Vec<Held>) {
        out.clear();
        let mut marks = std::mem::take(&mut self.marks);
        self.count_shared_bands(band_keys, &mut marks, |held| out.push(held));
        // Only the first `limit` are wanted, so they are selected first (a template family
        // gives hundreds of candidates, and sorting them all cost more than verifying).
        let key = |h: &Held| (Reverse(marks.shared_bands(h.slot)), h.seq);
        if out.len() > limit {
            out.select_nth_unstable_by_key(limit, key);
            out.truncate(limit);
        }
        out.sort_unstable_by_key(key);
        self.marks = marks;
    }

    /// Writes into `out` (cleared first) the documents sharing at least one band key, each
    /// once, unordered, with their rank: `Rank` orders them as
    /// [`Window::ranked_candidates`] does, for a caller that verifies them in that order but
    /// drops some first.
    pub fn candidates_with_rank(&mut self, band_keys: &[u64], out: &mut Vec<(Rank, Held)>) {
        out.clear();
        let mut marks = std::mem::take(&mut self.marks);
        self.count_shared_bands(band_keys, &mut marks, |held| {
            out.push(((Reverse(0), 0), held))
        });
        for (rank, held) in out.iter_mut() {
            *rank = (Reverse(marks.shared_bands(held.slot)), held.seq);
        }
        self.marks = marks;
    }

    /// Calls `found` once for each document sharing at least one band key, and leaves in
    /// `marks` how many bands each shares.
    fn count_shared_bands(
        &self,
        band_keys: &[u64],
        marks: &mut Marks,
        mut found: impl FnMut(Held),
    ) {
        let query = marks.start(self.slots.len());
        for &key in band_keys {
            for &slot in self.buckets[shard(key)].get(key) {
                let mark = &mut marks.marks[slot as usize];
                if *mark >> 8 != query {
                    *mark = query << 8 | 1;
                    found(Held {
                        seq: self.seqs[slot as usize],
                        slot,
                    });
                } else if *mark & 0xff != 0xff {
                    *mark += 1;
                }
            }
        }
    }

    /// [`Window::candidates`] among the documents with a sequence number below `before`,
    /// with the caller's marks (so that threads can query at once).
    pub fn candidates_before(
        &self,
        band_keys: &[u64],
        before: u64,
        marks: &mut Marks,
        out: &mut Vec<Held>,
    ) {
        out.clear();
        let query = marks.start(self.slots.len());
        for &key in band_keys {
            for &slot in self.buckets[shard(key)].get(key) {
                let mark = &mut marks.marks[slot as usize];
                if *mark >> 8 != query {
                    *mark = query << 8;
                    let seq = self.seqs[slot as usize];
                    if seq < before {
                        out.push(Held { seq, slot });
                    }
                }
            }
        }
        out.sort_unstable_by_key(|h| h.seq);
    }

    /// Asks the CPU to start loading the buckets of these band keys (call it one document
    /// ahead of [`Window::candidates`]: the bucket table is far larger than the caches).
    #[inline]
    pub fn prefetch_buckets(&self, band_keys: &[u64]) {
        for &key in band_keys {
            self.buckets[shard(key)].prefetch(key);
        }
    }
}
