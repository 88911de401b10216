//! Candidate lookups: the documents that share band keys with a query, each once, in
//! sequence order or ranked by estimated similarity.

use super::marks::{BANDS, FAMILY};
use super::rank::{Rank, rank_of};
use super::{Held, Marks, Window, shard};
use crate::sketch::lsh::{Sketch, sketch_agreement};

/// Members of a family key's bucket a query looks at (the newest).
pub(super) const FAMILY_REACH: usize = 64;

/// Scratch of a thread's ranked lookups ([`Window::ranked_candidates_in`]): its marks and
/// the candidates being ranked, reused from one query to the next.
#[derive(Debug, Default)]
pub(crate) struct Lookup {
    marks: Marks,
    ranked: Vec<(Rank, Held)>,
}

impl Lookup {
    /// Every candidate the last call ranked ([`Window::ranked_candidates_in`]: the first
    /// tier, [`Window::ranked_rest_in`]: the second), in no particular order, with its rank:
    /// what [`Window::reconcile`] brings up to date.
    pub fn ranked(&self) -> &[(Rank, Held)] {
        &self.ranked
    }
}

/// What [`Window::ranked_candidates`] left for [`Window::ranked_rest`]: how many more
/// candidates may be handed out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub(crate) struct Rest {
    /// How many more candidates [`Window::ranked_rest`] may hand out.
    pub limit: usize,
}

impl Window {
    /// Writes into `out` (cleared first) the documents sharing at least one band key, sorted
    /// by sequence number, each once.
    pub fn candidates(&mut self, band_keys: &[u64], out: &mut Vec<Held>) {
        let mut marks = std::mem::take(&mut self.marks);
        self.candidates_before(band_keys, u64::MAX, &mut marks, out);
        self.marks = marks;
    }

    /// Writes into `out` (cleared first) the first of the documents sharing a key with the
    /// query, each once, in [`Rank`] order: the most similar by the sketches first. The
    /// filter verifies them in this order and may stop early. (Shared bands alone rank a
    /// family of documents all near the threshold almost at random: each band agrees with
    /// probability J^rows, a few bands' difference between J = 0.81 and 0.73.)
    ///
    /// This first tier holds the documents sharing a family key (at most `limit`), ranked
    /// by their sketches alone; [`Window::ranked_rest`] looks up the LSH bands for the
    /// others when the caller still wants them. In a template family the first tier
    /// usually holds the match, and the family's band buckets (hundreds of members each)
    /// would cost a visit per member for nothing. Together the two calls hand out at most
    /// `limit` candidates.
    #[cfg(test)]
    pub(crate) fn ranked_candidates(
        &mut self,
        band_keys: &[u64],
        sketch: &Sketch,
        limit: usize,
        out: &mut Vec<Held>,
    ) -> Rest {
        let mut scratch = Lookup {
            marks: std::mem::take(&mut self.marks),
            ranked: Vec::new(),
        };
        let rest = self.ranked_candidates_in(&mut scratch, band_keys, sketch, limit, out);
        self.marks = scratch.marks;
        rest
    }

    /// [`Window::ranked_candidates`] with the caller's scratch, so that threads can query a
    /// shared window at once (the filter's speculation).
    pub(crate) fn ranked_candidates_in(
        &self,
        scratch: &mut Lookup,
        band_keys: &[u64],
        sketch: &Sketch,
        limit: usize,
        out: &mut Vec<Held>,
    ) -> Rest {
        let Lookup { marks, ranked } = scratch;
        marks.start(self.slots.len());
        let keys = &band_keys[self.bands.min(band_keys.len())..];
        // A family key is precise: its newest members are the ones worth ranking. In a large
        // window each step of a lookup (cell, list, members, their marks) is a cache miss that
        // waits for the one before: the steps are asked for ahead, key by key, so that the
        // misses of a query's keys overlap instead of adding up.
        for &key in keys {
            self.buckets[shard(key)].prefetch(key);
        }
        for &key in keys {
            self.buckets[shard(key)].prefetch_members(key);
        }
        for &key in keys {
            crate::prefetch::prefetch_slice(self.family_members(key), FAMILY_REACH * 4 / 64);
        }
        // The mark's band count counts the family keys shared here (the second tier counts
        // bands only for documents without one).
        for (k, &key) in keys.iter().enumerate() {
            if let Some(&next) = keys.get(k + 1) {
                for &slot in self.family_members(next) {
                    marks.prefetch(slot);
                }
            }
            for &slot in self.family_members(key) {
                if let Some(mark) = marks.hit(slot, FAMILY | 1)
                    && *mark & BANDS != BANDS
                {
                    *mark += 1;
                }
            }
        }
        ranked.clear();
        ranked.extend(marks.found().iter().map(|&slot| (0, Held { seq: 0, slot })));
        let taken = self.hand_out(ranked, marks, sketch, limit, out);
        Rest {
            limit: limit - taken,
        }
    }

    /// The members of a family key's bucket a query looks at: the newest [`FAMILY_REACH`].
    #[inline]
    fn family_members(&self, key: u64) -> &[u32] {
        let members = self.buckets[shard(key)].get(key);
        &members[members.len().saturating_sub(FAMILY_REACH)..]
    }

    /// Writes into `out` (cleared first) the documents sharing an LSH band with the query
    /// of the last [`Window::ranked_candidates`] call (made with the same keys and sketch,
    /// no other query since) but no family key, in [`Rank`] order, at most `rest.limit`.
    #[cfg(test)]
    pub(crate) fn ranked_rest(
        &mut self,
        band_keys: &[u64],
        sketch: &Sketch,
        rest: Rest,
        out: &mut Vec<Held>,
    ) {
        let mut scratch = Lookup {
            marks: std::mem::take(&mut self.marks),
            ranked: Vec::new(),
        };
        self.ranked_rest_in(&mut scratch, band_keys, sketch, rest, out);
        self.marks = scratch.marks;
    }

    /// [`Window::ranked_rest`] with the caller's scratch (the one its
    /// [`Window::ranked_candidates_in`] used).
    pub(crate) fn ranked_rest_in(
        &self,
        scratch: &mut Lookup,
        band_keys: &[u64],
        sketch: &Sketch,
        rest: Rest,
        out: &mut Vec<Held>,
    ) {
        let Lookup { marks, ranked } = scratch;
        // The first tier's documents are found already (each with a family key); the ones
        // found from here on are this tier's.
        let first = marks.found().len();
        for &key in &band_keys[..self.bands.min(band_keys.len())] {
            for &slot in self.buckets[shard(key)].get(key) {
                // Shared bands are counted for the second tier only.
                if let Some(mark) = marks.hit(slot, 1)
                    && *mark & (FAMILY | BANDS) < BANDS
                {
                    *mark += 1;
                }
            }
        }
        ranked.clear();
        ranked.extend(
            marks.found()[first..]
                .iter()
                .map(|&slot| (0, Held { seq: 0, slot })),
        );
        self.hand_out(ranked, marks, sketch, rest.limit, out);
    }

    /// Ranks the candidates in `ranked` (with the current query's `marks`) and writes the
    /// first `limit` of them into `out` (cleared first), in order. Returns how many it wrote.
    fn hand_out(
        &self,
        ranked: &mut [(Rank, Held)],
        marks: &Marks,
        sketch: &Sketch,
        limit: usize,
        out: &mut Vec<Held>,
    ) -> usize {
        self.rank_all(ranked, marks, sketch);
        let taken = select_first(ranked, limit);
        out.clear();
        out.extend(ranked[..taken].iter().map(|r| r.1));
        taken
    }

    /// Fills in each candidate's sequence number and [`Rank`], with the marks of the
    /// current query. (The lookups leave the sequence number out, so that the loads of a
    /// large window's sequence numbers and sketches are asked for ahead here instead of
    /// waited for one by one while the buckets are read.)
    fn rank_all(&self, ranked: &mut [(Rank, Held)], marks: &Marks, sketch: &Sketch) {
        // The sketch agreement counts bits: without the CPU's own count (the build targets
        // every x86-64) it is a dozen instructions a word, which is what a template's
        // hundreds of candidates a query cost most in this loop, beside the slots' loads.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU counts bits (popcnt), checked just above.
            return unsafe { self.rank_all_popcnt(ranked, marks, sketch) };
        }
        self.rank_all_with(ranked, marks, sketch);
    }

    /// [`Window::rank_all`] with the CPU's bit count.
    ///
    /// # Safety
    /// The CPU must have popcnt (the caller checks with `is_x86_feature_detected!`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn rank_all_popcnt(&self, ranked: &mut [(Rank, Held)], marks: &Marks, sketch: &Sketch) {
        self.rank_all_with(ranked, marks, sketch);
    }

    /// [`Window::rank_all`]'s loop, compiled into each caller for its CPU features.
    #[inline(always)]
    fn rank_all_with(&self, ranked: &mut [(Rank, Held)], marks: &Marks, sketch: &Sketch) {
        const AHEAD: usize = 48;
        for k in 0..ranked.len() {
            if let Some(&(_, ahead)) = ranked.get(k + AHEAD) {
                crate::prefetch::prefetch(&self.slots[ahead.slot as usize]);
            }
            let mark = marks.mark(ranked[k].1.slot);
            let slot = &self.slots[ranked[k].1.slot as usize];
            ranked[k].1.seq = slot.seq;
            ranked[k].0 = rank_of(
                mark & FAMILY != 0,
                sketch_agreement(sketch, &slot.sketch),
                mark & BANDS,
                slot.seq,
            );
        }
    }

    /// Writes into `out` (cleared first) the documents sharing at least one key (band or
    /// family), each once, unordered, with their [`Rank`] (shared bands counted for every
    /// one, family keys or not), for a caller that verifies them in that order but drops
    /// some first (`clusters`, which verifies past the first match).
    pub(crate) fn candidates_with_rank(
        &mut self,
        band_keys: &[u64],
        sketch: &Sketch,
        out: &mut Vec<(Rank, Held)>,
    ) {
        let mut marks = std::mem::take(&mut self.marks);
        self.count_shared_bands(band_keys, &mut marks);
        out.clear();
        out.extend(marks.found().iter().map(|&slot| (0, Held { seq: 0, slot })));
        // The sequence numbers are filled in here, their loads asked for ahead.
        self.rank_all(out, &marks, sketch);
        self.marks = marks;
    }

    /// Finds in `marks` each document sharing at least one key, with how many bands it
    /// shares and whether it shares a family key.
    fn count_shared_bands(&self, band_keys: &[u64], marks: &mut Marks) {
        marks.start(self.slots.len());
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
                if let Some(mark) = marks.hit(slot, hit) {
                    if hit == FAMILY {
                        *mark |= FAMILY;
                    } else if *mark & BANDS != BANDS {
                        *mark += 1;
                    }
                }
            }
        }
    }

    /// [`Window::candidates`] among the documents with a sequence number below `before`,
    /// with the caller's marks (so that threads can query at once).
    pub(crate) fn candidates_before(
        &self,
        band_keys: &[u64],
        before: u64,
        marks: &mut Marks,
        out: &mut Vec<Held>,
    ) {
        out.clear();
        marks.start(self.slots.len());
        for &key in band_keys {
            for &slot in self.buckets[shard(key)].get(key) {
                if marks.hit(slot, 1).is_none() {
                    let seq = self.slots[slot as usize].seq;
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
    pub(crate) fn prefetch_buckets(&self, band_keys: &[u64]) {
        for &key in band_keys {
            self.buckets[shard(key)].prefetch(key);
        }
    }

    /// Asks the CPU to start loading where [`Window::find_copy`] looks up `text_hash` (call
    /// it one document ahead, like [`Window::prefetch_buckets`]).
    #[inline]
    pub(crate) fn prefetch_copy(&self, text_hash: u128) {
        self.copies.prefetch(text_hash as u64);
    }
}

/// Puts the `limit` lowest-ranked of `ranked` first, in order; returns how many that is.
pub(super) fn select_first(ranked: &mut [(Rank, Held)], limit: usize) -> usize {
    // Only the first `limit` are wanted, so they are selected first (a template family
    // gives hundreds of candidates, and sorting them all cost more than verifying).
    let taken = limit.min(ranked.len());
    if ranked.len() > taken && taken > 0 {
        ranked.select_nth_unstable_by_key(taken - 1, |r| r.0);
    }
    ranked[..taken].sort_unstable_by_key(|r| r.0);
    taken
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Entry;

    #[test]
    fn packed_ranks_order_like_their_parts() {
        let mut rng = crate::hash::test_rng(3);
        let parts: Vec<(bool, u32, u8, u64)> = (0..400)
            .map(|_| (rng(2) == 1, rng(129) as u32, rng(20) as u8, rng(50)))
            .collect();
        for a in &parts {
            for b in &parts {
                let key = |p: &(bool, u32, u8, u64)| {
                    (
                        std::cmp::Reverse(p.0),
                        std::cmp::Reverse(p.1),
                        std::cmp::Reverse(p.2),
                        p.3,
                    )
                };
                assert_eq!(
                    rank_of(a.0, a.1, a.2, a.3).cmp(&rank_of(b.0, b.1, b.2, b.3)),
                    key(a).cmp(&key(b)),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    /// The two tiers hand out the first `limit` of one ranking: the documents sharing a family
    /// key by sketch agreement, then shared family keys; then the others by agreement and
    /// shared bands.
    #[test]
    fn the_two_tiers_are_the_first_of_one_ranking() {
        let mut rng = crate::hash::test_rng(8);
        let mut w = Window::new(0);
        // Three band keys, then (for some documents) two family keys.
        w.bands = 3;
        let mut docs = Vec::new();
        for seq in 0..300 {
            let mut keys: Vec<u64> = (0..3).map(|b| b << 8 | rng(6)).collect();
            if rng(3) == 0 {
                keys.push(1 << 16 | rng(4));
                keys.push(2 << 16 | rng(2));
            }
            let sketch = [rng(u64::MAX), rng(u64::MAX), rng(u64::MAX), rng(u64::MAX)];
            let entry = Entry {
                band_keys: keys.clone(),
                sketch,
                ..Entry::default()
            };
            w.insert(seq, entry).unwrap();
            docs.push((keys, sketch));
        }
        for _ in 0..50 {
            let mut query: Vec<u64> = (0..3).map(|b| b << 8 | rng(8)).collect();
            query.push(1 << 16 | rng(6));
            query.push(2 << 16 | rng(2));
            let sketch = [rng(u64::MAX), rng(u64::MAX), rng(u64::MAX), rng(u64::MAX)];
            let mut expected: Vec<(Rank, u64)> = Vec::new();
            for (seq, (keys, theirs)) in docs.iter().enumerate() {
                let shared = |at: std::ops::Range<usize>| {
                    at.filter(|&k| keys.get(k) == Some(&query[k])).count() as u8
                };
                let (families, bands) = (shared(3..5), shared(0..3));
                let family = families > 0;
                if family || bands > 0 {
                    let agreement = sketch_agreement(&sketch, theirs);
                    let bands = if family { families } else { bands };
                    expected.push((rank_of(family, agreement, bands, seq as u64), seq as u64));
                }
            }
            expected.sort_unstable();
            for limit in [1, 5, 40, usize::MAX] {
                let mut got = Vec::new();
                let mut out = Vec::new();
                let rest = w.ranked_candidates(&query, &sketch, limit, &mut out);
                got.extend(out.iter().map(|h| h.seq));
                if rest.limit > 0 {
                    w.ranked_rest(&query, &sketch, rest, &mut out);
                    got.extend(out.iter().map(|h| h.seq));
                }
                let want: Vec<u64> = expected.iter().take(limit).map(|e| e.1).collect();
                assert_eq!(got, want, "limit {limit}");
            }
        }
    }
}
