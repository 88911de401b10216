//! Candidate lookups: the documents that share band keys with a query, each once, in
//! sequence order or ranked by estimated similarity.

use super::marks::{BANDS, FAMILY};
use super::{Held, Marks, Window, shard};
use crate::lsh::{Sketch, sketch_agreement};
use std::cmp::Reverse;

/// The order of [`Window::ranked_candidates`]: a document sharing a family key first (it
/// lacks what the query lacks, see the `family` module), then the sketch agreeing most with
/// the query's (the estimated similarity), then more shared bands, then the earlier.
pub type Rank = (Reverse<bool>, Reverse<u32>, Reverse<u8>, u64);

/// Members of a family key's bucket a query looks at (the newest).
const FAMILY_REACH: usize = 32;

impl Window {
    /// Writes into `out` (cleared first) the documents sharing at least one band key, sorted
    /// by sequence number, each once.
    pub fn candidates(&mut self, band_keys: &[u64], out: &mut Vec<Held>) {
        let mut marks = std::mem::take(&mut self.marks);
        self.candidates_before(band_keys, u64::MAX, &mut marks, out);
        self.marks = marks;
    }

    /// Writes into `out` (cleared first) the first `limit` of the documents sharing at least
    /// one band key, each once, in [`Rank`] order: the most similar by the sketches first.
    /// The filter verifies them in this order and may stop early. (Shared bands alone
    /// rank a family of documents all near the threshold almost at random: each band agrees
    /// with probability J^rows, a few bands' difference between J = 0.81 and 0.73.)
    pub fn ranked_candidates(
        &mut self,
        band_keys: &[u64],
        sketch: &Sketch,
        limit: usize,
        out: &mut Vec<Held>,
    ) {
        let mut ranked = std::mem::take(&mut self.ranked);
        self.candidates_with_rank(band_keys, sketch, &mut ranked);
        // Only the first `limit` are wanted, so they are selected first (a template family
        // gives hundreds of candidates, and sorting them all cost more than verifying).
        if ranked.len() > limit {
            ranked.select_nth_unstable_by_key(limit, |r| r.0);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by_key(|r| r.0);
        out.clear();
        out.extend(ranked.iter().map(|r| r.1));
        self.ranked = ranked;
    }

    /// The [`Rank`] of candidate `held` for a query with `sketch` (its shared bands counted
    /// in `marks`).
    #[inline]
    fn rank(&self, held: &Held, sketch: &Sketch, marks: &Marks) -> Rank {
        (
            Reverse(marks.shares_family_key(held.slot)),
            Reverse(sketch_agreement(sketch, &self.sketches[held.slot as usize])),
            Reverse(marks.shared_bands(held.slot)),
            held.seq,
        )
    }

    /// Writes into `out` (cleared first) the documents sharing at least one band key, each
    /// once, unordered, with their rank: `Rank` orders them as
    /// [`Window::ranked_candidates`] does, for a caller that verifies them in that order but
    /// drops some first.
    pub fn candidates_with_rank(
        &mut self,
        band_keys: &[u64],
        sketch: &Sketch,
        out: &mut Vec<(Rank, Held)>,
    ) {
        out.clear();
        let mut marks = std::mem::take(&mut self.marks);
        self.count_shared_bands(band_keys, &mut marks, |held| {
            out.push(((Reverse(false), Reverse(0), Reverse(0), 0), held))
        });
        // The sketches are far apart in memory: each asked for a few candidates ahead.
        const AHEAD: usize = 8;
        for k in 0..out.len() {
            if let Some(&(_, ahead)) = out.get(k + AHEAD) {
                crate::prefetch::prefetch(&self.sketches[ahead.slot as usize]);
            }
            let held = out[k].1;
            out[k].0 = self.rank(&held, sketch, &marks);
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
        // Keys past the LSH bands are family keys: a hit there sets the family bit.
        let bands = self.bands.min(band_keys.len());
        for (i, &key) in band_keys.iter().enumerate() {
            let hit = if i < bands { 1 } else { FAMILY };
            let members = self.buckets[shard(key)].get(key);
            // A family key is precise: its newest members are the ones worth ranking first.
            let members = match hit {
                FAMILY => &members[members.len().saturating_sub(FAMILY_REACH)..],
                _ => members,
            };
            for &slot in members {
                let mark = &mut marks.marks[slot as usize];
                if *mark >> 8 != query {
                    *mark = query << 8 | hit;
                    found(Held {
                        seq: self.seqs[slot as usize],
                        slot,
                    });
                } else if hit == FAMILY {
                    *mark |= FAMILY;
                } else if *mark & BANDS != BANDS {
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
