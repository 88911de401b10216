//! Family keys: extra bucket keys that find, inside a template family, the kept document
//! that changed the same places.
//!
//! In a family made from one template, every member shares the family's band keys, so a
//! bucket of the window holds thousands of them and a bounded bucket keeps only the newest.
//! Two members that changed the same positions (with different words) are the near pairs,
//! yet they share no rare shingle: what they share is what they *lack*. A MinHash row whose
//! template minimum came from a lost shingle falls back to the template's next value, the
//! same value in every member that lost that shingle. So, per row, the family's usual value
//! (its mode), its fallback values (frequent, but not the mode) and a member's own new words
//! (rare) can be told apart by how often each value was seen, and the set of a document's
//! fallback values names the places it changed.
//!
//! [`Family`] counts, for each row, the most frequent values seen (a Misra–Gries summary
//! with [`SLOTS`] counters, updated in input order, so keys never depend on threads) and
//! turns a document's fallbacks into keys ([`keys_of_fallbacks`]). Text that is not templated has
//! no frequent values and gets no keys; the keys only add candidates, each verified exactly
//! like any other.
//!
//! The first [`WARM_DOCS`] documents are keyed before the summaries know the family: their
//! minima are kept, and once the summaries are warm the window keys them again
//! ([`Family::take_warm`]), since a template's earliest members are the ones kept.

use super::cells::pair_masks;
use crate::hash::mix64;

/// Counters per row: the family's value, its fallbacks, and room for the rare ones (eight:
/// a row is looked at in one go, `pair_masks`).
const SLOTS: usize = 8;
const _: () = assert!(SLOTS == 8, "pair_masks looks at eight pairs");

/// A value counts as the row's mode or a fallback once the row's summary has seen it this
/// often (a value seen twice is a near copy, not a family).
const MIN_COUNT: u32 = 4;

/// Documents with more fallback values than this changed too much to be keyed this way (and
/// a row summary without a clear mode gives noise, not a family).
const MAX_FALLBACKS: usize = 24;

/// Fallbacks in a key, and keys of a document with more than `PICK` fallbacks.
const PICK: usize = 3;
const PICKS: u64 = 16;

/// The most family keys a document gets ([`keys_of_fallbacks`]): a small set's own key and
/// one without each element, or one per order.
pub(crate) const MAX_FAMILY_KEYS: usize = if PICK + 1 > PICKS as usize {
    PICK + 1
} else {
    PICKS as usize
};

/// Salt keeping family keys apart from band keys.
const SALT: u64 = 0x6661_6d69_6c79_6b65;

/// A stream with no templated document for this many documents is quiet: only one document
/// in [`QUIET_STRIDE`] is counted (and keyed) until a templated one shows up again, so that
/// ordinary text pays little for the summaries.
const QUIET_AFTER: u32 = 1024;
const QUIET_STRIDE: u64 = 16;

/// Documents keyed again once the summaries have seen this many.
pub(crate) const WARM_DOCS: u64 = 512;

/// The per-row summaries of the values seen, and the warm-up documents' minima.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Family {
    /// Row-major: a [`Row`] of `SLOTS` [value, count] pairs per row.
    counters: Vec<[u32; 2]>,
    /// Documents offered so far (the quiet stride counts them).
    offered: u64,
    /// Documents offered since the last templated one (half its rows or more have the row's
    /// usual value).
    since_templated: u32,
    /// Documents kept during the warm-up: sequence number and minima.
    warm: Vec<(u64, Vec<u32>)>,
    /// Scratch: the fallbacks of the document being keyed.
    fallbacks: Vec<u64>,
    /// The minima of documents decided since the counts were last taken from the pipeline's
    /// counter ([`Family::take_counts`]), which counted them ahead: counted here before a
    /// save ([`Family::settle`]).
    uncounted: Vec<Vec<u32>>,
}

impl Family {
    /// The counts alone (no warm-up documents, nothing uncounted): what the pipeline's
    /// counter hands the window with a document ([`Family::take_counts`]).
    pub(crate) fn counts(&self) -> Family {
        Family {
            counters: self.counters.clone(),
            offered: self.offered,
            since_templated: self.since_templated,
            ..Family::default()
        }
    }

    /// Takes the counts of `counted` (made by [`Family::counts`] after a document that
    /// another thread counted in input order), keeping the warm-up documents. Returns the
    /// minima kept since the counts were last taken, to be freed.
    pub(crate) fn take_counts(&mut self, counted: Family) -> Vec<Vec<u32>> {
        self.counters = counted.counters;
        self.offered = counted.offered;
        self.since_templated = counted.since_templated;
        let room = self.uncounted.len();
        std::mem::replace(&mut self.uncounted, Vec::with_capacity(room))
    }

    /// A document counted ahead by another thread was decided after the counts last taken.
    pub(crate) fn counted_elsewhere(&mut self, minima: Vec<u32>) {
        self.uncounted.push(minima);
    }

    /// Counts the documents decided since the counts were last taken, so that the summaries
    /// are the ones after the last document decided (before a save).
    pub(crate) fn settle(&mut self) {
        let mut fallbacks = Vec::new();
        for minima in std::mem::take(&mut self.uncounted) {
            self.fallbacks_then_count(&minima, &mut fallbacks);
        }
    }

    /// Appends to `keys` the family keys of a document with MinHash minima `minima` (one per
    /// row; rows beyond the first call's count are ignored), as of the documents seen so far,
    /// then counts its values. Empty minima: nothing.
    pub(crate) fn keys_then_count(&mut self, minima: &[u32], keys: &mut Vec<u64>) {
        let mut fallbacks = std::mem::take(&mut self.fallbacks);
        self.fallbacks_then_count(minima, &mut fallbacks);
        keys_of_fallbacks(&fallbacks, keys);
        self.fallbacks = fallbacks;
    }

    /// [`Family::keys_then_count`] without making the keys: the fallback values whose keys
    /// [`keys_of_fallbacks`] makes (on any thread), into `out` (cleared first).
    pub(crate) fn fallbacks_then_count(&mut self, minima: &[u32], out: &mut Vec<u64>) {
        out.clear();
        if minima.is_empty() {
            return;
        }
        if self.counters.is_empty() {
            self.counters = vec![[0, 0]; minima.len() * SLOTS];
        }
        self.offered += 1;
        if self.since_templated >= QUIET_AFTER && !self.offered.is_multiple_of(QUIET_STRIDE) {
            return;
        }
        let mut modal = 0;
        for (row, (&value, counters)) in minima
            .iter()
            .zip(self.counters.as_chunks_mut::<SLOTS>().0)
            .enumerate()
        {
            match count(counters, value) {
                Some(Kind::Mode) => modal += 1,
                Some(Kind::Fallback) => out.push(fallback(row, value)),
                None => {}
            }
        }
        if modal * 2 >= minima.len() {
            self.since_templated = 0;
        } else {
            self.since_templated = self.since_templated.saturating_add(1);
        }
    }

    /// Whether a document just offered is in the warm-up (then the window gives its minima to
    /// [`Family::remember`] if it keeps it).
    pub(crate) fn warming(&self) -> bool {
        self.offered <= WARM_DOCS
    }

    /// Keeps the minima of warm-up document `seq`, to key it again when the summaries are warm.
    pub(crate) fn remember(&mut self, seq: u64, minima: Vec<u32>) {
        self.warm.push((seq, minima));
    }

    /// Once the warm-up is over (and only once): the warm-up documents to key again.
    pub(crate) fn take_warm(&mut self) -> Option<Vec<(u64, Vec<u32>)>> {
        (self.offered > WARM_DOCS && !self.warm.is_empty()).then(|| std::mem::take(&mut self.warm))
    }

    /// The keys of a document with `minima` as of now, without counting it.
    pub(crate) fn keys_of(&mut self, minima: &[u32], keys: &mut Vec<u64>) {
        self.fallbacks.clear();
        for (row, (&value, counters)) in minima
            .iter()
            .zip(self.counters.as_chunks::<SLOTS>().0)
            .enumerate()
        {
            if look(counters, value).0 == Some(Kind::Fallback) {
                self.fallbacks.push(fallback(row, value));
            }
        }
        keys_of_fallbacks(&self.fallbacks, keys);
    }

    /// The summaries as bytes (for `--state`): u64 offered, u32 since templated, u32 n +
    /// n × (u32 value, u32 count), u32 m + m × (u64 seq, u32 k + k × u32 minima), little-endian.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offered.to_le_bytes());
        out.extend_from_slice(&self.since_templated.to_le_bytes());
        out.extend_from_slice(&(self.counters.len() as u32).to_le_bytes());
        for &[v, c] in &self.counters {
            out.extend_from_slice(&v.to_le_bytes());
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&(self.warm.len() as u32).to_le_bytes());
        for (seq, minima) in &self.warm {
            out.extend_from_slice(&seq.to_le_bytes());
            out.extend_from_slice(&(minima.len() as u32).to_le_bytes());
            for &m in minima {
                out.extend_from_slice(&m.to_le_bytes());
            }
        }
    }

    /// What [`Family::write_to`] wrote; `None` when the bytes are not that.
    pub fn read_from(mut bytes: &[u8]) -> Option<Family> {
        let u32_of = |b: &mut &[u8]| take::<4>(b).map(u32::from_le_bytes);
        let offered = u64::from_le_bytes(take::<8>(&mut bytes)?);
        let since_templated = u32_of(&mut bytes)?;
        let n = u32_of(&mut bytes)? as usize;
        if !n.is_multiple_of(SLOTS) || n > bytes.len() / 8 {
            return None;
        }
        let mut counters = Vec::with_capacity(n);
        for _ in 0..n {
            counters.push([u32_of(&mut bytes)?, u32_of(&mut bytes)?]);
        }
        let m = u32_of(&mut bytes)? as usize;
        if m as u64 > WARM_DOCS {
            return None;
        }
        let mut warm = Vec::with_capacity(m);
        for _ in 0..m {
            let seq = u64::from_le_bytes(take::<8>(&mut bytes)?);
            let k = u32_of(&mut bytes)? as usize;
            if k > bytes.len() / 4 {
                return None;
            }
            let minima = (0..k).map(|_| u32_of(&mut bytes)).collect::<Option<_>>()?;
            warm.push((seq, minima));
        }
        bytes.is_empty().then_some(Family {
            counters,
            offered,
            since_templated,
            warm,
            ..Family::default()
        })
    }
}

/// The first `N` bytes of `bytes`, which move on past them (`None` when there are fewer).
pub(super) fn take<const N: usize>(bytes: &mut &[u8]) -> Option<[u8; N]> {
    let (head, rest) = bytes.split_first_chunk::<N>()?;
    *bytes = rest;
    Some(*head)
}

/// A fallback: row and value in one hash.
fn fallback(row: usize, value: u32) -> u64 {
    mix64((row as u64) << 32 | u64::from(value))
}

/// Appends the keys of a set of fallbacks. A key is a set of fallbacks (the sum of their
/// hashes), so the same set gives the same key whichever way it was chosen. A small set
/// (at most `PICK`) gives itself and itself without each element (a new word may hide one
/// fallback of either document). A larger one (several places changed: new words hide
/// some fallbacks, so two members rarely have the whole set in common) gives, for each of
/// `PICKS` random orders, the `PICK` fallbacks that come first (MinHash on the set): two sets
/// with Jaccard J share such a key with probability about J^PICK, and a small set's own key
/// is among a larger one's when it is what comes first.
///
/// A pure function of the fallbacks ([`Family::fallbacks_then_count`]), so any thread may
/// make them.
pub(crate) fn keys_of_fallbacks(fallbacks: &[u64], keys: &mut Vec<u64>) {
    let n = fallbacks.len();
    if n == 0 || n > MAX_FALLBACKS {
        return;
    }
    let key = |set: &mut dyn Iterator<Item = u64>| mix64(set.fold(SALT, u64::wrapping_add));
    if n <= PICK {
        keys.push(key(&mut fallbacks.iter().copied()));
        if n >= 2 {
            for skip in 0..n {
                keys.push(key(&mut (0..n)
                    .filter(|&i| i != skip)
                    .map(|i| fallbacks[i])));
            }
        }
        return;
    }
    for pick in 0..PICKS {
        let salt = mix64(SALT ^ pick);
        let mut firsts = [(u64::MAX, 0); PICK];
        for &f in fallbacks {
            let mut h = (mix64(f ^ salt), f);
            for first in firsts.iter_mut() {
                if h.0 < first.0 {
                    std::mem::swap(&mut h, first);
                }
            }
        }
        keys.push(key(&mut firsts.iter().map(|&(_, f)| f)));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The row's most frequent value.
    Mode,
    /// Frequent, not the mode.
    Fallback,
}

/// A row summary: [`SLOTS`] counters, each a value and its count (free when 0).
type Row = [[u32; 2]; SLOTS];

/// What `value` is in a row summary (the row's most frequent value, a fallback, or rare:
/// `None`), its counter and a free counter. One pass over the counters.
fn look(counters: &Row, value: u32) -> (Option<Kind>, Option<usize>, Option<usize>) {
    // Without branches: which counter is which varies document by document, and the
    // mispredictions cost more than the comparisons (a templated stream counts 128 rows a
    // document).
    let (free_bits, own_bits) = pair_masks(bytemuck::cast_ref(counters), value, 0);
    let mode_count = counters.iter().map(|c| c[1]).max().unwrap_or(0);
    let at = |bits: u32| (bits != 0).then(|| bits.trailing_zeros() as usize);
    let (own, free) = (at(own_bits), at(free_bits));
    let kind = own.and_then(|i| {
        let c = counters[i][1];
        if c < MIN_COUNT {
            None
        } else if c == mode_count {
            Some(Kind::Mode)
        } else if mode_count >= 2 * c {
            Some(Kind::Fallback)
        } else {
            None
        }
    });
    (kind, own, free)
}

/// Counts `value` in a row summary and says what it was before (see [`look`]). Misra–Gries:
/// a full summary meeting a new value lowers every counter instead, so a value's count never
/// exceeds how often it was seen, and rare values never build up.
fn count(counters: &mut Row, value: u32) -> Option<Kind> {
    let (kind, own, free) = look(counters, value);
    match (own, free) {
        (Some(i), _) => counters[i][1] += 1,
        (None, Some(i)) => counters[i] = [value, 1],
        (None, None) => counters.iter_mut().for_each(|c| c[1] -= 1),
    }
    kind
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minima of a family member: row r is `100 + r` (the template), or `200 + r` (the
    /// fallback) in the rows of `lost`, or a value of its own in the rows of `own`.
    fn member(lost: &[usize], own: &[(usize, u32)]) -> Vec<u32> {
        let mut m: Vec<u32> = (0..32).map(|r| 100 + r).collect();
        for &r in lost {
            m[r] = 200 + r as u32;
        }
        for &(r, v) in own {
            m[r] = v;
        }
        m
    }

    /// A family summary that has seen many members, some of which lost each row.
    fn warm() -> Family {
        let mut f = Family::default();
        let mut keys = Vec::new();
        for i in 0..600u32 {
            let lost = [(i % 32) as usize];
            f.keys_then_count(
                &member(&lost, &[(((i + 7) % 32) as usize, 10_000 + i)]),
                &mut keys,
            );
        }
        f
    }

    #[test]
    fn counts_taken_from_a_counter_then_settled_are_the_counts_in_order() {
        let docs: Vec<Vec<u32>> = (0..700u32)
            .map(|i| {
                member(
                    &[(i % 32) as usize],
                    &[(((i + 7) % 32) as usize, 10_000 + i)],
                )
            })
            .collect();
        let mut in_order = Family::default();
        let mut counter = Family::default();
        let mut window = Family::default();
        window.remember(3, vec![1, 2, 3]);
        let mut out = Vec::new();
        for (i, minima) in docs.iter().enumerate() {
            in_order.fallbacks_then_count(minima, &mut out);
            counter.fallbacks_then_count(minima, &mut out);
            // The counter hands its counts over now and then; the documents in between are
            // counted by the window only when it settles.
            match i % 97 == 0 {
                true => drop(window.take_counts(counter.counts())),
                false => window.counted_elsewhere(minima.clone()),
            }
        }
        window.settle();
        assert_eq!(window.counts(), in_order.counts());
        assert_eq!(
            window.warm,
            vec![(3, vec![1, 2, 3])],
            "the warm-up documents stay"
        );
    }

    #[test]
    fn misra_gries_keeps_frequent_values_and_drops_rare_ones() {
        let mut row = [[0, 0]; SLOTS];
        for i in 0..100 {
            count(&mut row, 1);
            if i % 5 == 0 {
                count(&mut row, 2);
            }
            count(&mut row, 1_000 + i);
        }
        assert_eq!(look(&row, 1).0, Some(Kind::Mode));
        assert_eq!(look(&row, 2).0, Some(Kind::Fallback));
        assert_eq!(look(&row, 1_099).0, None);
        assert_eq!(look(&row, 5).0, None);
    }

    #[test]
    fn members_that_lost_the_same_rows_share_a_key_despite_their_own_words() {
        let mut f = warm();
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let lost = [3, 4, 9, 20, 21, 27];
        // One of a's fallbacks is hidden by its own word; b has other words of its own.
        f.keys_of(&member(&lost, &[(4, 55_555), (12, 66_666)]), &mut a);
        f.keys_of(&member(&lost, &[(15, 77_777)]), &mut b);
        f.keys_of(&member(&[5, 6, 10, 22, 23, 28], &[]), &mut c);
        assert_eq!(a.len(), PICKS as usize);
        assert!(a.iter().any(|k| b.contains(k)), "same places, a shared key");
        assert!(
            !a.iter().any(|k| c.contains(k)),
            "other places, no shared key"
        );
    }

    #[test]
    fn small_sets_match_with_one_fallback_hidden() {
        let mut f = warm();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        f.keys_of(&member(&[3, 9], &[]), &mut a);
        f.keys_of(&member(&[3, 9], &[(9, 4_242)]), &mut b);
        assert_eq!(a.len(), 3);
        assert!(a.iter().any(|k| b.contains(k)));
    }

    #[test]
    fn ordinary_text_gets_no_keys_and_goes_quiet() {
        let mut f = Family::default();
        let mut keys = Vec::new();
        for i in 0..3_000u32 {
            let minima: Vec<u32> = (0..32)
                .map(|r| mix64(u64::from(i * 64 + r)) as u32)
                .collect();
            f.keys_then_count(&minima, &mut keys);
        }
        assert!(keys.is_empty());
        assert!(f.since_templated >= QUIET_AFTER);
    }

    #[test]
    fn warm_up_documents_are_handed_back_once() {
        let mut f = Family::default();
        let mut keys = Vec::new();
        for i in 0..WARM_DOCS + 1 {
            f.keys_then_count(&member(&[], &[]), &mut keys);
            if f.warming() {
                f.remember(i, vec![1, 2]);
            }
            if i < WARM_DOCS {
                assert!(f.take_warm().is_none());
            }
        }
        assert_eq!(f.take_warm().map(|w| w.len()), Some(WARM_DOCS as usize));
        assert!(f.take_warm().is_none());
    }

    #[test]
    fn bytes_round_trip_and_refuse_garbage() {
        let mut f = warm();
        f.remember(7, vec![1, 2, 3]);
        f.fallbacks.clear();
        let mut bytes = Vec::new();
        f.write_to(&mut bytes);
        assert_eq!(Family::read_from(&bytes), Some(f));
        assert_eq!(Family::read_from(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Family::read_from(&[]), None);
    }
}
