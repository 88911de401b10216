//! The window's memory: what it holds in RAM and on disk, the budget (`--max-memory`) it
//! checks before it grows, and when a limit is reached, the eviction it turns to; and the
//! compaction that keeps the spill file within a few times the held records.

use super::limit::Limit;
use super::{Buckets, NIL, SHARDS, Slot, Window, buckets, shard};
use std::io;

/// Inserts between two checks of the memory budget.
const BUDGET_CHECK: usize = 64;

/// What [`Window::presize`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sizing {
    /// The tables are sized for the documents.
    Sized,
    /// Not sized: its records would not all fit in the store's RAM.
    RecordsWouldSpill,
    /// Not sized (nothing known yet, a limit, the budget, the system's memory, or nothing
    /// to size for).
    Left,
}

impl Window {
    /// Documents that may still be inserted without any eviction (`usize::MAX`: no limit
    /// is in sight). A batch inserted unindexed must fit.
    pub(crate) fn room(&self) -> usize {
        if self.capacity > 0 {
            return self.capacity - self.len;
        }
        if self.budget == 0 {
            return usize::MAX;
        }
        // Half of what the headroom holds at the ceiling per document: a batch indexed on
        // several threads grows its tables without `make_room`'s checks.
        let used = self.ram_bytes();
        let per_doc = self.bytes_per_doc_ceiling();
        (self.budget.saturating_sub(used + self.growth_reserve()) / per_doc.max(1)) / 2
    }

    /// Checks the budget and the disk limit before an insert: at the first that is reached,
    /// the window keeps its present size from then on (it evicts, like a `--window`).
    pub(super) fn make_room(&mut self, keys: &[u64]) {
        if self.len.is_multiple_of(BUDGET_CHECK) {
            let index = self.ram_bytes() - self.store.ram_bytes();
            self.store.adapt(index, self.budget);
        }
        if self.capacity > 0 || self.len == 0 {
            return;
        }
        // Checked at every insert, as the spill file grows by whole segments: the window stops
        // growing at half the limit, the other half taking the evicted records until the next
        // compaction ([`Store::needs_compaction`]).
        let disk = self.store.settings().disk;
        if disk > 0 && self.store.disk_bytes() + 2 * self.store.segment_bytes() as u64 > disk / 2 {
            self.limit(Limit::Disk);
            return;
        }
        // The tables this document's keys go to grow now, if they must, where a refusal can
        // still be answered by evicting instead (a table that has room never fails a push).
        for &key in keys {
            if !self.buckets[shard(key)].try_room_for(keys.len()) {
                self.limit(Limit::Refused);
                return;
            }
        }
        // The budget is summed over the 256 tables: every BUDGET_CHECK inserts is enough, as
        // the ceiling counts that many documents' worth of room.
        if !self.len.is_multiple_of(BUDGET_CHECK) {
            return;
        }
        if self.budget > 0
            && self.ram_bytes()
                + self.growth_reserve()
                + BUDGET_CHECK * self.bytes_per_doc_ceiling()
                > self.budget
        {
            self.limit(Limit::Memory);
        }
    }

    /// A resumed window's limit: it holds at most `capacity` documents, as the run that saved
    /// it settled on, for `why`.
    pub(crate) fn resume_limit(&mut self, capacity: usize, why: Limit) {
        self.capacity = capacity;
        self.limited = Some(why);
    }

    fn limit(&mut self, why: Limit) {
        // Held a little under the present count, so that no table grows again when the keys
        // of the documents that replace the evicted ones fall unevenly on the tables.
        self.capacity = (self.len - self.len / 32).max(1);
        self.limited = Some(why);
    }

    /// RAM a table's growth takes at once, at most: the old and the new cells coexist while
    /// it is rehashed (the new half as big again; twice the largest table bounds it), and a
    /// record segment.
    /// Records kept in RAM (no spill file) also leave evicted ones behind there, up to a
    /// quarter of the held ones before a compaction ([`super::Store::needs_compaction`]).
    fn growth_reserve(&self) -> usize {
        let garbage = match self.store.settings().dir {
            None => self.store.live_bytes() as usize / 4,
            Some(_) => 0,
        };
        self.buckets
            .iter()
            .map(Buckets::approx_bytes)
            .max()
            .unwrap_or(0)
            * 2
            + self.store.segment_bytes()
            + garbage
    }

    /// What one more document may add to the window's RAM, at most: its slot (with its
    /// sequence number and sketch) and query mark (4), its copy-index cell and a share of
    /// bucket lists (40), and its bucket cells in tables 3/8 full (emptier than the 8/15 of a
    /// table just grown).
    fn bytes_per_doc_ceiling(&self) -> usize {
        let keys = self.buckets_keys_per_doc();
        std::mem::size_of::<Slot>() + 4 + 40 + keys * buckets::CELL_BYTES * 8 / 3
    }

    /// Makes room for `docs` more documents with `keys` band keys in all (avoids rehashing
    /// while a saved window is loaded).
    pub(crate) fn reserve(&mut self, docs: usize, keys: usize) {
        let per_table = keys_per_table(keys);
        for table in &mut self.buckets {
            table.reserve(per_table);
        }
        self.copies.reserve(docs);
        self.slots.reserve(docs);
    }

    /// Sizes the window for `docs` more documents at once: the copy index and the band
    /// tables, at the keys per document held so far, on the sizes they would grow to. A table
    /// that grows as documents come re-inserts every key it holds each time it grows by half
    /// (each key about twice over a long run); a table sized from what the input's size
    /// promises does not. At most what the `--window` capacity leaves.
    ///
    /// All or nothing: not at all unless the window those documents make (at the RAM per
    /// document so far, [`Window::bytes_per_doc_ceiling`] and the records) fits in a quarter
    /// of the memory budget, and, unless `records_may_spill`, all its records in the RAM of a
    /// store that spills ([`super::Store::ram_before_spilling`]): tables sized early leave
    /// the records less RAM from the start, so the caller that allows it must trust its
    /// estimate. The budget's quarter keeps the window's size, and so the output, the one a
    /// window grown as documents come would have. An empty window (no keys per document known
    /// yet) or one whose limit is reached is left as it is.
    pub(crate) fn presize(&mut self, docs: usize, records_may_spill: bool) -> Sizing {
        if self.len == 0 || self.limited().is_some() {
            return Sizing::Left;
        }
        let docs = match self.capacity {
            0 => docs,
            capacity => docs.min(capacity.saturating_sub(self.len)),
        };
        let per_doc = self.bytes_per_doc_ceiling() + self.store.live_bytes() as usize / self.len;
        let window = self.len.saturating_add(docs).saturating_mul(per_doc);
        if docs == 0 || (self.budget > 0 && window > self.budget / 4) {
            return Sizing::Left;
        }
        if !records_may_spill && (self.store.ram_before_spilling()).is_some_and(|ram| window > ram)
        {
            return Sizing::RecordsWouldSpill;
        }
        // Slots come in chunks that never move: only the tables would grow by copying. The
        // tables are grown while the system gives the memory; a refusal ends the sizing.
        let per_table = keys_per_table(docs.saturating_mul(self.buckets_keys_per_doc()));
        for table in &mut self.buckets {
            if !table.try_room_for(per_table) {
                return Sizing::Left;
            }
        }
        self.copies.try_room_for(docs);
        Sizing::Sized
    }

    fn buckets_keys_per_doc(&self) -> usize {
        let keys: usize = self.buckets.iter().map(Buckets::len).sum();
        if self.len == 0 {
            return 16;
        }
        keys.div_ceil(self.len).max(1)
    }

    /// Moves the held records down over the evicted ones, in offset order, and cuts the
    /// store after the last: in place, so a compaction takes no second copy of the records.
    pub(super) fn compact(&mut self) -> io::Result<()> {
        // The records move: the tables are written whole at the next save.
        self.journal.stop();
        let mut held: Vec<u32> = Vec::with_capacity(self.len);
        let mut slot = self.oldest;
        while slot != NIL {
            held.push(slot);
            slot = self.slots[slot as usize].newer;
        }
        held.sort_unstable_by_key(|&s| self.slots[s as usize].offset);
        let mut places: Vec<_> = held
            .iter()
            .map(|&s| self.slots[s as usize].place())
            .collect();
        self.store.compact(&mut places)?;
        for (&s, place) in held.iter().zip(&places) {
            self.slots[s as usize].offset = place.offset;
        }
        Ok(())
    }

    /// Under `--max-disk`: evicts the least recently matched documents (and keeps the
    /// window that much smaller from then on) while the held records in the spill file pass
    /// half the limit, so that the file, which grows by the evicted records until a
    /// compaction, stays within it.
    pub(super) fn shed_for_disk(&mut self) -> io::Result<()> {
        let disk = self.store.settings().disk;
        if disk == 0 || self.store.live_disk_bytes() <= disk / 2 {
            return Ok(());
        }
        while self.len > 1 && self.store.live_disk_bytes() > disk / 2 {
            self.evict_oldest()?;
        }
        self.capacity = self.len;
        self.limited.get_or_insert(Limit::Disk);
        Ok(())
    }

    /// Bytes of RAM held by the indexes, the slots and the store's RAM part.
    pub fn ram_bytes(&self) -> usize {
        let slots = self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.free.capacity() * 4
            + self.marks.bytes();
        let bucket_bytes: usize = self.buckets.iter().map(Buckets::approx_bytes).sum();
        slots + bucket_bytes + self.copies.approx_bytes() + self.store.ram_bytes()
    }

    /// Bytes of [`Window::ram_bytes`] that are a mapped index's tables, read from the file
    /// (or the page cache) as a run touches them instead of held.
    pub fn mapped_bytes(&self) -> usize {
        let slots = self.slots.mapped_len() * std::mem::size_of::<Slot>();
        let cells: usize = self.buckets.iter().map(Buckets::mapped_bytes).sum();
        slots + cells + self.copies.mapped_bytes()
    }

    /// RAM a held document costs, from what the documents use rather than what is
    /// allocated (a new table's cells, the store's first segment): so it means the same
    /// after one document as after a million.
    pub fn ram_bytes_per_doc(&self) -> u64 {
        if self.len == 0 {
            return 0;
        }
        // The slot and its mark.
        let per_slot = std::mem::size_of::<Slot>() + 4;
        let keys: usize = self.buckets.iter().map(Buckets::used_bytes).sum();
        let records = self.store.live_bytes().min(self.store.ram_records());
        ((per_slot * self.len + keys + self.copies.used_bytes()) as u64 + records) / self.len as u64
    }

    /// Bytes of the spill file (held and evicted records not yet compacted away).
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.store.disk_bytes()
    }

    /// Bytes of the held documents' records, in RAM or on disk (for tests).
    #[cfg(test)]
    pub(crate) fn record_bytes(&self) -> u64 {
        self.store.live_bytes()
    }

    /// Approximate bytes held by entries and indexes (for `--stats`): RAM and records.
    pub(crate) fn approx_bytes(&self) -> usize {
        self.ram_bytes() + self.store.disk_bytes() as usize
    }
}

/// Room for `keys` keys spread over the tables: a table's share, give or take the few
/// percent by which keys fall unevenly.
fn keys_per_table(keys: usize) -> usize {
    let per_table = keys.div_ceil(SHARDS);
    per_table + per_table / 8 + 16
}

#[cfg(test)]
mod tests {
    use super::super::{Entry, StoreSettings};
    use super::*;
    use crate::input::DocId;

    /// Cells of all the window's tables: the band tables and the copy index.
    fn table_cells(w: &Window) -> usize {
        w.buckets.iter().map(Buckets::cells).sum::<usize>() + w.copies.cells()
    }

    /// Ten keys of its own and one of 50 shared keys; 4 KiB of fingerprints.
    fn presize_doc(seq: u64) -> Entry {
        let mut band_keys: Vec<u64> = (0..10).map(|b| crate::hash::mix64(seq << 4 | b)).collect();
        band_keys.push((1 << 60) | (seq % 50));
        Entry {
            id: DocId::Line(seq),
            shingles: (0..1024)
                .map(|i| (i as u32).wrapping_mul(seq as u32 | 1))
                .collect(),
            band_keys,
            copy_key: Some(u128::from(seq)),
            text_hash: u128::from(seq),
            ..Entry::default()
        }
    }

    /// A window sized for the documents to come holds them without a table growing, and
    /// gives the answers of a window that grew as they came.
    #[test]
    fn a_presized_window_holds_its_documents_without_growing() {
        let (mut grown, mut sized) = (Window::new(0), Window::new(0));
        sized.presize(5000, false);
        assert_eq!(
            table_cells(&sized),
            table_cells(&grown),
            "an empty window stays"
        );
        for w in [&mut grown, &mut sized] {
            w.insert(0, presize_doc(0)).unwrap();
        }
        sized.presize(5000, false);
        let cells = table_cells(&sized);
        assert!(cells > table_cells(&grown));
        for seq in 1..=5000 {
            grown.insert(seq, presize_doc(seq)).unwrap();
            sized.insert(seq, presize_doc(seq)).unwrap();
        }
        assert_eq!(table_cells(&sized), cells, "no table grew");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for key in (0..50).map(|k| (1 << 60) | k) {
            grown.candidates(&[key], &mut a);
            sized.candidates(&[key], &mut b);
            assert_eq!(a, b);
            assert!(a.len() >= 100);
        }
        for seq in [0, 17, 5000] {
            assert_eq!(
                sized.find_copy(u128::from(seq)).unwrap().map(|h| h.seq),
                Some(seq)
            );
        }
    }

    /// A window with no memory budget and no spill file asked to make room for more
    /// documents than an address space holds (a size estimated from a huge input) is left as
    /// it is, and keeps working.
    #[test]
    fn presizing_past_any_memory_leaves_the_window_as_it_is() {
        let mut w = Window::new(0);
        w.insert(0, presize_doc(0)).unwrap();
        let before = table_cells(&w);
        w.presize(usize::MAX, false);
        w.presize(usize::MAX / 64, false);
        assert_eq!(table_cells(&w), before);
        w.insert(1, presize_doc(1)).unwrap();
        assert_eq!(w.len(), 2);
        assert_eq!(w.find_copy(1).unwrap().map(|h| h.seq), Some(1));
    }

    /// `--window N` caps the sizing at N documents; a window that would pass a quarter of
    /// the budget, or whose records would not all stay in RAM, gets no sizing at all.
    #[test]
    fn presizing_stops_at_the_capacity_the_budget_and_where_records_would_spill() {
        let sized_for = |capacity: usize, docs: usize| {
            let mut w = Window::new(capacity);
            w.insert(0, presize_doc(0)).unwrap();
            w.presize(docs, false);
            table_cells(&w)
        };
        assert_eq!(sized_for(100, 1_000_000), sized_for(100, 99));
        assert!(sized_for(100, 99) > sized_for(100, 0));
        let spilling = |docs: usize| {
            let mut w = Window::new(0).with_store(
                StoreSettings {
                    dir: Some(std::env::temp_dir()),
                    ram: 1 << 20,
                    disk: 0,
                    index: None,
                },
                0,
            );
            w.insert(0, presize_doc(0)).unwrap();
            let before = table_cells(&w);
            w.presize(docs, false);
            table_cells(&w) > before
        };
        // 4 KiB records: 4 MiB of RAM before spilling holds about 900 of them.
        assert!(spilling(100));
        assert!(!spilling(2000));
        let within = |budget: usize| {
            let mut w = Window::new(0).with_store(StoreSettings::default(), budget);
            w.insert(0, presize_doc(0)).unwrap();
            let before = table_cells(&w);
            w.presize(100, false);
            table_cells(&w) > before
        };
        // 101 documents of about 4.3 KiB: 440 KiB, a quarter of 1.7 MiB.
        assert!(within(4 << 20));
        assert!(!within(1 << 20));
    }

    /// A bounded window over a spill file: evicted records are garbage, and once they
    /// outweigh the held ones the held ones are rewritten, so the file stays within about
    /// twice them; every held record reads back whole.
    #[test]
    fn compaction_keeps_the_spill_file_bounded() {
        let dir = std::env::temp_dir();
        let mut w = Window::new(20).with_store(
            StoreSettings {
                dir: Some(dir),
                ram: 0,
                disk: 0,
                index: None,
            },
            0,
        );
        let big = |seq: u64| Entry {
            id: DocId::Line(seq),
            // 256 KiB of fingerprints each: 600 of them pass the compaction threshold.
            shingles: (0..65_536)
                .map(|i| (i as u32).wrapping_mul(seq as u32 | 1))
                .collect(),
            band_keys: vec![seq, 1_000_000 + seq % 3],
            copy_key: Some(u128::from(seq)),
            text_hash: u128::from(seq),
            ..Entry::default()
        };
        for seq in 1..=600u64 {
            w.insert(seq, big(seq)).unwrap();
        }
        assert_eq!(w.len(), 20);
        let live = w.record_bytes();
        assert!(
            w.disk_bytes() <= 3 * live + (64 << 20),
            "{} > 3 x {live}",
            w.disk_bytes()
        );
        for held in w.oldest_first().collect::<Vec<_>>() {
            let mut e = Entry::default();
            w.load(held, &mut e).unwrap();
            assert_eq!(format!("{e:?}"), format!("{:?}", big(held.seq)));
        }
        assert_eq!(w.find_copy(590).unwrap().map(|h| h.seq), Some(590));
        let mut c = Vec::new();
        w.candidates(&[1_000_000], &mut c);
        assert_eq!(c.len(), 7);
    }

    /// `--max-disk`: the window stops growing, evicts and compacts so that the spill file
    /// never passes the limit, whatever the records' sizes; every held record reads back.
    #[test]
    fn a_disk_limit_is_kept_at_every_insert() {
        let disk = 256 << 10;
        let mut w = Window::new(0).with_store(
            StoreSettings {
                dir: Some(std::env::temp_dir()),
                ram: 0,
                disk,
                index: None,
            },
            0,
        );
        let doc = |seq: u64| Entry {
            id: DocId::Line(seq),
            // 0.5 to 8 KiB of fingerprints: later documents larger than the first.
            shingles: (0..(128 + (seq % 16) * 128 + seq / 10) as u32)
                .map(|i| i.wrapping_mul(seq as u32 | 1))
                .collect(),
            band_keys: vec![seq, 7_000_000 + seq % 5],
            copy_key: Some(u128::from(seq)),
            text_hash: u128::from(seq),
            ..Entry::default()
        };
        for seq in 1..=3000u64 {
            w.insert(seq, doc(seq)).unwrap();
            assert!(
                w.disk_bytes() <= disk,
                "{} > {disk} at {seq}",
                w.disk_bytes()
            );
        }
        assert_eq!(w.limited(), Some(Limit::Disk));
        assert!(w.evictions() > 0);
        for held in w.oldest_first().collect::<Vec<_>>() {
            let mut e = Entry::default();
            w.load(held, &mut e).unwrap();
            assert_eq!(format!("{e:?}"), format!("{:?}", doc(held.seq)));
        }
    }
}
