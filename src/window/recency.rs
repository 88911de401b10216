//! The recency list: held documents linked by slot number, the most recently inserted or
//! matched first; the window evicts from its other end.

use super::{Held, NIL, Window};

impl Window {
    /// Marks a held document as just matched, protecting it from eviction.
    pub fn touch(&mut self, held: Held) {
        debug_assert_eq!(self.slots[held.slot as usize].seq, held.seq, "stale handle");
        self.journal_touch(held.slot);
        if self.newest != held.slot {
            self.unlink(held.slot);
            self.link_newest(held.slot);
        }
    }

    pub(super) fn unlink(&mut self, slot: u32) {
        let (newer, older) = {
            let s = &self.slots[slot as usize];
            (s.newer, s.older)
        };
        match newer {
            NIL => self.newest = older,
            n => self.slots[n as usize].older = older,
        }
        match older {
            NIL => self.oldest = newer,
            o => self.slots[o as usize].newer = newer,
        }
    }

    pub(super) fn link_newest(&mut self, slot: u32) {
        let previous = self.newest;
        {
            let s = &mut self.slots[slot as usize];
            s.newer = NIL;
            s.older = previous;
        }
        match previous {
            NIL => self.oldest = slot,
            p => self.slots[p as usize].newer = slot,
        }
        self.newest = slot;
    }
}
