//! A speculated lookup brought up to date: the filter speculates a piece's lookups against
//! the window as it stood before the piece (`pipeline/speculate.rs`), and when the piece's
//! own inserts, refreshes and evictions changed a bucket one of them read, the commit
//! adjusts that lookup's counts from the changed buckets alone, before and now
//! ([`Window::reconcile`]), instead of reading every bucket again.
//!
//! Why the result is the fresh lookup's: a candidate's [`Rank`] is a function of its sketch
//! and sequence number, which do not change while it is held, and of how many of the
//! query's buckets hold it (a family key's newest `FAMILY_REACH`, a band key's whole
//! bucket). The buckets that did not change give the counts they gave; each changed one
//! (`window/changed.rs` keeps its members as they were) takes back what it gave then and
//! gives what it holds now. A candidate whose counts fall to zero left every bucket the
//! query reads (evicted, or pushed out of a bucket or a reach); one that was in none comes
//! in with the counts it has now. A slot freed since holds another document, if any: it
//! comes in as new. The tiers and their first `limit` are then chosen by the same total
//! order as [`Window::ranked_candidates`] and [`Window::ranked_rest`]. What the speculation
//! did not count (the bands of a document sharing a family key, or the bands at all when
//! only the family keys were read) is never guessed: the caller looks up again.

use super::lookup::select_first;
use super::marks::BANDS;
use super::rank::{Rank, parts_of, rank_of};
use super::{Held, Window};
use crate::sketch::lsh::{Sketch, sketch_agreement};

/// A change of a candidate's counts: its slot (the document in it then, or the one in it
/// now if it was freed since), and the family keys and bands gained or lost.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    slot: u32,
    families: i32,
    bands: i32,
    /// Met in the ranking.
    ranked: bool,
}

/// Scratch of [`Window::reconcile`], reused from one document to the next: the two tiers
/// brought up to date.
#[derive(Debug, Default)]
pub(crate) struct Reconciling {
    counts: Vec<Counts>,
    /// Per slot: the reconcile that last saw it (`stamp`), and where its changes are in
    /// `counts` (1 + place; 0: none), for the document it held then and for a new one.
    places: Vec<(u32, u32, u32)>,
    /// A bit per slot number modulo [`CHANGED_BITS`], set for the slots with changes in
    /// this reconcile: a ranked candidate whose bit is clear has none, without a look at
    /// its `places` entry (one cache miss per candidate in a large window).
    changed: Vec<u64>,
    stamp: u32,
    first: Vec<(Rank, Held)>,
    /// The first tier's candidates whose counts changed, placed by their counts now.
    first_changed: Vec<(Rank, Held)>,
    rest: Vec<(Rank, Held)>,
    /// The second tier cannot be made (its counts were not all kept).
    rest_unknown: bool,
}

/// Bits of [`Reconciling::changed`]: a few changed slots per document leave most clear.
const CHANGED_BITS: usize = 4096;

/// Where slot `slot`'s bit is in [`Reconciling::changed`]: its word and mask.
#[inline]
fn changed_bit(slot: u32) -> (usize, u64) {
    let bit = slot as usize % CHANGED_BITS;
    (bit / 64, 1 << (bit % 64))
}

/// What [`Window::reconcile`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reconciled {
    /// No candidate's counts changed: the speculated lookup is the fresh one.
    Same,
    /// Counts changed: [`Window::reconciled_first`] and [`Window::reconciled_rest`] give the
    /// fresh lookup's tiers.
    Changed,
    /// The speculation did not count what is needed: look the document up again.
    Unknown,
}

impl Window {
    /// Brings the speculated lookup `ranking` (every candidate the speculation ranked, from
    /// [`super::Lookup::ranked`]: the first tier, its first `limit` sorted at its front,
    /// then the second; `every`: whether it read the LSH bands) of a query with
    /// `band_keys` and `sketch` up to date with the buckets as they are now, into `scratch`.
    pub(crate) fn reconcile(
        &mut self,
        scratch: &mut Reconciling,
        (ranking, every): (&[(Rank, Held)], bool),
        band_keys: &[u64],
        sketch: &Sketch,
        limit: usize,
    ) -> Reconciled {
        if self.all_changed() {
            return Reconciled::Unknown;
        }
        let slots = self.slots.len();
        let Reconciling {
            counts,
            places,
            changed,
            stamp,
            first,
            first_changed,
            rest,
            rest_unknown,
        } = scratch;
        counts.clear();
        changed.clear();
        changed.resize(CHANGED_BITS / 64, 0);
        if places.len() < slots {
            places.resize(slots, (0, 0, 0));
        }
        *stamp = stamp.wrapping_add(1);
        if *stamp == 0 {
            places.fill((0, 0, 0));
            *stamp = 1;
        }
        let bands = self.bands.min(band_keys.len());
        for (i, &key) in band_keys.iter().enumerate() {
            let family = i >= bands;
            if !family && !every {
                continue;
            }
            let Some(deltas) = self.changes_of(key, family) else {
                continue;
            };
            for d in deltas {
                let (word, mask) = changed_bit(d.slot);
                changed[word] |= mask;
                let place = &mut places[d.slot as usize];
                if place.0 != *stamp {
                    *place = (*stamp, 0, 0);
                }
                let at = if d.new { &mut place.2 } else { &mut place.1 };
                if *at == 0 {
                    counts.push(Counts {
                        slot: d.slot,
                        ..Counts::default()
                    });
                    *at = counts.len() as u32;
                }
                let c = &mut counts[*at as usize - 1];
                match family {
                    true => c.families += d.by,
                    false => c.bands += d.by,
                }
            }
        }
        if counts.iter().all(|c| c.families == 0 && c.bands == 0) {
            return Reconciled::Same;
        }
        first.clear();
        first_changed.clear();
        rest.clear();
        *rest_unknown = !every;
        // Where a candidate's changes are in `counts` (1 + place), if it has any.
        let change_of = |held: Held| {
            let (word, mask) = changed_bit(held.slot);
            match changed[word] & mask {
                0 => 0,
                _ => match places[held.slot as usize] {
                    (s, at, _) if s == *stamp => at,
                    _ => 0,
                },
            }
        };
        // The speculation sorted its first tier's first `limit` (the rest of that tier ranks
        // after them); an unchanged candidate past them is looked at only if needed (below).
        let tier = ranking.partition_point(|r| r.0 >> 63 == 0);
        let sorted = limit.min(tier);
        debug_assert!(ranking[..sorted].is_sorted_by_key(|r| r.0));
        debug_assert!(
            ranking[tier..].iter().all(|r| r.0 >> 63 == 1),
            "first tier first"
        );
        let mut beyond = false;
        for (i, &(rank, held)) in ranking.iter().enumerate() {
            let change = match change_of(held) {
                0 => {
                    match rank >> 63 == 0 {
                        true if i < sorted => first.push((rank, held)),
                        true => beyond = true,
                        false => rest.push((rank, held)),
                    }
                    continue;
                }
                at => &mut counts[at as usize - 1],
            };
            change.ranked = true;
            let (family, agreement, count) = parts_of(rank);
            let count = i32::from(count);
            if count >= BANDS as i32 {
                return Reconciled::Unknown;
            }
            let families = if family { count } else { 0 } + change.families;
            let known = every && !family;
            // Bands not counted then are not counted now.
            let bands = if known { count + change.bands } else { 0 };
            if !place_in_tier(
                (held, agreement, families, bands, known),
                first_changed,
                rest,
                rest_unknown,
            ) {
                return Reconciled::Unknown;
            }
            if families == 0 && !known {
                let s = &self.slots[held.slot as usize];
                let left = self.was_freed(held.slot) && (s.len == 0 || s.seq != held.seq);
                *rest_unknown |= !left;
            }
        }
        for c in counts.iter().filter(|c| !c.ranked) {
            if c.families == 0 && c.bands == 0 {
                continue;
            }
            // Only a candidate the speculation ranked can lose a count.
            if c.families < 0 || c.bands < 0 {
                return Reconciled::Unknown;
            }
            let s = &self.slots[c.slot as usize];
            let held = Held {
                seq: s.seq,
                slot: c.slot,
            };
            let agreement = sketch_agreement(sketch, &s.sketch);
            // Without the bands read, one sharing no family key now may share bands unseen.
            if !every && c.families == 0 {
                *rest_unknown = true;
            }
            if !place_in_tier(
                (held, agreement, c.families, c.bands, every),
                first_changed,
                rest,
                rest_unknown,
            ) {
                return Reconciled::Unknown;
            }
        }
        // An unchanged candidate past the sorted ones ranks after every one of them, so the
        // first `limit` never reach it while `limit` rank no later than the last of them.
        if beyond && sorted > 0 {
            let last = ranking[sorted - 1].0;
            let ahead = first.len() + first_changed.iter().filter(|r| r.0 <= last).count();
            if ahead < limit {
                let past = ranking[sorted..tier].iter();
                first.extend(past.filter(|r| change_of(r.1) == 0));
            }
        }
        first.extend_from_slice(first_changed);
        Reconciled::Changed
    }

    /// The first tier of the lookup [`Window::reconcile`] brought up to date: the first
    /// `limit` into `out`, like [`Window::ranked_candidates`]; returns how many more the
    /// second tier may give.
    pub(crate) fn reconciled_first(
        &self,
        scratch: &mut Reconciling,
        limit: usize,
        out: &mut Vec<Held>,
    ) -> usize {
        out.clear();
        let taken = select_first(&mut scratch.first, limit);
        out.extend(scratch.first[..taken].iter().map(|r| r.1));
        limit - taken
    }

    /// The second tier of the lookup [`Window::reconcile`] brought up to date: the
    /// candidates sharing no family key, the first `limit` into `out`, like
    /// [`Window::ranked_rest`]. False when the speculation did not count it.
    pub(crate) fn reconciled_rest(
        &self,
        scratch: &mut Reconciling,
        limit: usize,
        out: &mut Vec<Held>,
    ) -> bool {
        out.clear();
        if scratch.rest_unknown {
            return false;
        }
        let taken = select_first(&mut scratch.rest, limit);
        out.extend(scratch.rest[..taken].iter().map(|r| r.1));
        true
    }
}

/// Puts a candidate with these counts in its tier; `known`: its bands were counted. False
/// when a count is past what a mark holds (or below zero).
fn place_in_tier(
    (held, agreement, families, bands, known): (Held, u32, i32, i32, bool),
    first: &mut Vec<(Rank, Held)>,
    rest: &mut Vec<(Rank, Held)>,
    rest_unknown: &mut bool,
) -> bool {
    if !(0..BANDS as i32).contains(&families) || !(0..BANDS as i32).contains(&bands) {
        return false;
    }
    if families > 0 {
        first.push((rank_of(true, agreement, families as u8, held.seq), held));
    } else if known && bands > 0 {
        rest.push((rank_of(false, agreement, bands as u8, held.seq), held));
    } else if !known && bands != 0 {
        *rest_unknown = true;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{Entry, Lookup};

    /// A document of the test: three band keys, then (for most) family keys from a small
    /// set, so that family buckets outgrow a lookup's reach and band buckets their limit.
    fn document(rng: &mut impl FnMut(u64) -> u64) -> (Vec<u64>, Sketch) {
        let mut keys: Vec<u64> = (0..3).map(|b| b << 8 | rng(4)).collect();
        if rng(5) > 0 {
            for f in 0..1 + rng(3) {
                keys.push(1 << 16 | f << 8 | rng(3));
            }
        }
        let sketch = [rng(u64::MAX), rng(u64::MAX), rng(u64::MAX), rng(u64::MAX)];
        (keys, sketch)
    }

    /// Both tiers of a fresh lookup, and every candidate it ranked.
    fn fresh(
        w: &Window,
        lookup: &mut Lookup,
        (keys, sketch): &(Vec<u64>, Sketch),
        limit: usize,
    ) -> (Vec<Held>, Vec<Held>, Vec<(Rank, Held)>) {
        let (mut first, mut rest) = (Vec::new(), Vec::new());
        let left = w.ranked_candidates_in(lookup, keys, sketch, limit, &mut first);
        let mut ranking = lookup.ranked().to_vec();
        w.ranked_rest_in(lookup, keys, sketch, left, &mut rest);
        ranking.extend_from_slice(lookup.ranked());
        (first, rest, ranking)
    }

    /// Whatever the window does between a speculated lookup and its commit (inserts that
    /// evict, refreshes, buckets at their limit, slots freed and taken again), the lookup
    /// brought up to date hands out the candidates a fresh lookup hands out, in order, or
    /// says it cannot.
    #[test]
    fn a_reconciled_lookup_is_the_fresh_lookup() {
        let mut rng = crate::hash::test_rng(21);
        let (mut same, mut changed, mut unknown, mut rests) = (0, 0, 0, 0);
        for round in 0..60 {
            let capacity = [0, 40, 150][round % 3];
            let mut w = Window::new(capacity).with_bucket_limit(12 + round % 90);
            w.bands = 3;
            let mut seq = 0;
            let mut held: Vec<(Held, Vec<u64>)> = Vec::new();
            let mut insert = |w: &mut Window, held: &mut Vec<(Held, Vec<u64>)>, rng: &mut _| {
                let (keys, sketch) = document(rng);
                let entry = Entry {
                    band_keys: keys.clone(),
                    sketch,
                    ..Entry::default()
                };
                let h = w.insert(seq, entry).unwrap();
                seq += 1;
                held.push((h, keys));
                let live = |h: &Held| {
                    let s = &w.slots[h.slot as usize];
                    s.seq == h.seq && s.len > 0
                };
                held.retain(|(h, _)| live(h));
            };
            for _ in 0..200 + rng(200) {
                insert(&mut w, &mut held, &mut rng);
            }
            let queries: Vec<_> = (0..20).map(|_| document(&mut rng)).collect();
            let limit = [1, 5, 30, usize::MAX][round % 4];
            let mut lookup = Lookup::default();
            let speculated: Vec<_> = (queries.iter())
                .map(|q| fresh(&w, &mut lookup, q, limit).2)
                .collect();
            w.track_changes();
            for _ in 0..rng(40) {
                match rng(3) {
                    0 if !held.is_empty() => {
                        let (h, keys) = held[rng(held.len() as u64) as usize].clone();
                        w.touch_in_buckets(h, &keys);
                    }
                    _ => insert(&mut w, &mut held, &mut rng),
                }
            }
            let mut scratch = Reconciling::default();
            for (q, ranking) in queries.iter().zip(&speculated) {
                let (first, rest, _) = fresh(&w, &mut lookup, q, limit);
                match w.reconcile(&mut scratch, (ranking, true), &q.0, &q.1, limit) {
                    Reconciled::Same => {
                        same += 1;
                        // Nothing it counted changed: the ranking is the fresh one.
                        let mut again: Vec<(Rank, Held)> = ranking.clone();
                        let mut now = fresh(&w, &mut lookup, q, limit).2;
                        again.sort_unstable();
                        now.sort_unstable();
                        assert_eq!(again, now, "round {round}");
                    }
                    Reconciled::Changed => {
                        changed += 1;
                        let mut got = Vec::new();
                        let left = w.reconciled_first(&mut scratch, limit, &mut got);
                        assert_eq!(got, first, "round {round}: first tier");
                        if left > 0 && w.reconciled_rest(&mut scratch, left, &mut got) {
                            assert_eq!(got, rest, "round {round}: second tier");
                            rests += 1;
                        }
                    }
                    Reconciled::Unknown => unknown += 1,
                }
            }
            w.stop_tracking();
        }
        let counts =
            format!("{same} same, {changed} changed ({rests} second tiers), {unknown} unknown");
        assert!(changed > 300 && same > 20 && rests > 100, "{counts}");
    }
}
