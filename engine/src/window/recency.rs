//! The recency list: held documents linked by slot number, the most recently inserted or
//! matched first; the window evicts from its other end.

use super::{Held, NIL, View, Window, shard};
use std::io;

impl Window {
    /// Marks a held document as just matched, protecting it from eviction.
    pub(crate) fn touch(&mut self, held: Held) {
        debug_assert_eq!(self.slots[held.slot as usize].seq, held.seq, "stale handle");
        self.journal.touch(held.slot);
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

    /// Evicts the least recently used document: out of the recency list, its buckets and
    /// the copy index; its record's bytes become garbage.
    pub(super) fn evict_oldest(&mut self) -> io::Result<()> {
        self.journal.evict();
        self.evict(true)
    }

    /// [`Window::evict_oldest`] replayed from a journal: the record's bytes were counted as
    /// garbage when the journal was saved.
    pub(super) fn evict_oldest_replayed(&mut self) -> io::Result<()> {
        self.evict(false)
    }

    fn evict(&mut self, free_record: bool) -> io::Result<()> {
        let slot = self.oldest;
        if slot == NIL {
            return Ok(());
        }
        let place = self.slots[slot as usize].place();
        let mut keys = std::mem::take(&mut self.keys);
        let copy_key = {
            let sum = self.slots[slot as usize].sum;
            let view = View::parse(self.store.get(place, &mut self.words, sum)?)?;
            keys.clear();
            keys.extend_from_slice(view.band_keys);
            view.copy_key()
        };
        self.unlink(slot);
        self.slots[slot as usize].len = 0;
        if free_record {
            self.store.freed(place);
        }
        self.len -= 1;
        self.evictions += 1;
        self.before_change(&keys);
        for &key in &keys {
            self.buckets[shard(key)].remove(key, slot);
        }
        if let Some(h) = copy_key {
            self.copies.remove(h as u64, slot);
            self.note_copy(h as u64);
        }
        self.keys = keys;
        self.note_freed(slot);
        self.free.push(slot);
        Ok(())
    }
}
