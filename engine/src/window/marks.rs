//! Per-query marks on the window's slots: how a candidate query lets each document through
//! once, and counts the keys it shares, without hashing or sorting the bucket hits.

/// Per slot, the current query's mark of the document there (0: not found by it): a query
/// finds the same document in most of its keys (ten times as many hits as documents at
/// 16 × 8), and the marks let each through once without sorting the hits. One per querying
/// thread, reused across queries; the documents a query found are listed, and their marks
/// cleared when the next query starts.
///
/// A mark is one byte, so that every querying thread holds a byte per held document: with
/// the query's number in it (4 bytes a slot, no clearing) a window of a few hundred thousand
/// documents passed the second-level cache, and many threads over a window of millions held
/// a large share of its RAM outside its budget.
///
/// A found document's mark is whether the query shares a family key with it ([`FAMILY`])
/// and the keys it shares ([`BANDS`], saturating, at least 1: the family keys when it shares
/// one, else the LSH bands).
#[derive(Debug, Default)]
pub(crate) struct Marks {
    marks: Vec<u8>,
    /// The slots the current query found, in the order found.
    found: Vec<u32>,
}

/// The bits of a mark counting shared keys.
pub(super) const BANDS: u8 = 0x7f;
/// The bit of a mark set when a family key is shared.
pub(super) const FAMILY: u8 = 0x80;

impl Marks {
    /// Starts a query over a window of `slots` slots: no document found yet.
    pub(super) fn start(&mut self, slots: usize) {
        for &slot in &self.found {
            self.marks[slot as usize] = 0;
        }
        self.found.clear();
        if self.marks.len() < slots {
            self.marks.resize(slots, 0);
        }
    }

    /// The mark of the document in `slot` if the current query found it before; else `None`,
    /// and the document is found now, with the mark `first` (not 0).
    #[inline]
    pub(super) fn hit(&mut self, slot: u32, first: u8) -> Option<&mut u8> {
        debug_assert_ne!(first, 0);
        let mark = &mut self.marks[slot as usize];
        if *mark == 0 {
            *mark = first;
            self.found.push(slot);
            return None;
        }
        Some(mark)
    }

    /// The documents the current query found, in the order found.
    #[inline]
    pub(super) fn found(&self) -> &[u32] {
        &self.found
    }

    /// The current query's mark of the document in `slot` (one it found).
    #[inline]
    pub(super) fn mark(&self, slot: u32) -> u8 {
        self.marks[slot as usize]
    }

    /// Asks the CPU to start loading the mark of `slot`.
    #[inline]
    pub(super) fn prefetch(&self, slot: u32) {
        crate::prefetch::prefetch(&self.marks[slot as usize]);
    }

    /// Bytes held (for a window's RAM).
    pub(super) fn bytes(&self) -> usize {
        self.marks.capacity() + self.found.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each slot is found once per query, and its mark kept until the next query starts,
    /// which finds nothing yet.
    #[test]
    fn each_slot_is_found_once_per_query() {
        let mut rng = crate::hash::test_rng(5);
        let mut marks = Marks::default();
        for _ in 0..40 {
            let slots = 1 + rng(5_000) as usize;
            marks.start(slots);
            let mut seen = std::collections::HashSet::new();
            for _ in 0..3 * slots {
                let slot = rng(slots as u64) as u32;
                match marks.hit(slot, 1) {
                    None => assert!(seen.insert(slot), "slot {slot} found twice"),
                    Some(mark) => {
                        assert!(seen.contains(&slot));
                        *mark = (*mark + 1).min(BANDS);
                    }
                }
            }
            assert_eq!(marks.found().len(), seen.len());
            assert!(marks.found().iter().all(|&s| marks.mark(s) > 0));
        }
    }
}
