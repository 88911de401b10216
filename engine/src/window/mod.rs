//! The LSH window: the recent documents a new one is compared with.
//!
//! Holds, for at most `capacity` documents (0 = unbounded), what verification needs (sorted
//! shingle fingerprints, or a compact signature when verification is off), each document's band
//! keys, and three indexes:
//! - `buckets` (the `buckets` module): band key → the documents with that key (the LSH
//!   tables; band keys already include the band number, so any table can hold any band).
//!   The keys are spread over [`SHARDS`] tables by their low bits, so that a batch's keys can
//!   be added on several threads at once, each thread owning some of the tables
//!   ([`Window::insert_unindexed`], [`Window::take_tables`], [`index_keys`]);
//! - `copies`: 128-bit hash of the normalised text → the first document with it;
//! - the recency list: inserting or matching a document moves it to the front; when the
//!   window is full the least recently inserted or matched document is evicted from all
//!   three indexes.
//!
//! Documents live in numbered slots (in chunks that never move, so a growing window never
//! copies its documents), linked into the recency list by slot number, and the indexes hold
//! slot numbers: a candidate's entry, its recency update and its id are reached
//! without a hash lookup (a keyed LRU map cost three probes per candidate, each a likely cache
//! miss). A freed slot is reused only after every index has forgotten it.
//!
//! Candidates come back sorted by sequence number, so the order in which they are verified,
//! and therefore the output, never depends on hash-map iteration order or slot reuse.

pub mod bucket_order;
mod buckets;
mod budget;
mod cells;
mod changed;
mod changes;
pub(crate) mod chores;
mod chunked;
mod codec;
mod family;
mod image;
mod journal;
mod keying;
mod limit;
mod lookup;
mod mapped;
mod marks;
mod rank;
mod recency;
mod reconcile;
mod record;
pub mod store;
mod tables;

pub(crate) use mapped::Image;
pub use mapped::Layout;

use crate::input::DocId;
use crate::prefetch::prefetch;
use crate::sketch::lsh::Sketch;

use buckets::Buckets;
pub(crate) use budget::Sizing;
use chunked::Chunked;
pub use family::Family;
pub(crate) use family::MAX_FAMILY_KEYS;
pub use limit::Limit;
pub(crate) use lookup::{Lookup, Rest};
pub(crate) use marks::Marks;
pub use rank::Rank;
pub(crate) use reconcile::{Reconciled, Reconciling};
pub use record::Entry;
pub(crate) use record::{UNKNOWN_SKETCH, View};
use std::io;
pub use store::StoreSettings;
pub(crate) use store::{Place, Store, check_spill_dir};
pub(crate) use tables::index_keys;

/// A document in the window: its sequence number and its slot. Valid while the document is
/// held: touches never invalidate it, an insert into a full window may (it evicts).
/// [`Window::load`], [`Window::touch`] and the prefetches take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Held {
    /// The document's sequence number.
    pub seq: u64,
    slot: u32,
}

impl Held {
    /// The document's slot: distinct among the documents held at once, below the most ever
    /// held, reused after an eviction.
    pub fn slot(self) -> usize {
        self.slot as usize
    }
}

/// Cache lines of a record [`Window::visit`] asks for ahead.
const PREFETCH_LINES: usize = 8;

/// No slot (ends of the recency list).
const NIL: u32 = u32::MAX;

/// A slot: what ranking a candidate reads (its sketch and sequence number), where its record
/// is, its neighbours in the recency list and the record's checksum, in one cache line. A
/// template family gives a query hundreds of candidates spread over the whole window: each
/// is one line to load, not one in each of four arrays (the record itself is in the store).
// Plain bytes (the derive checks there is no padding): an index's image holds the slots as
// they are in memory and maps them ([`mapped`]).
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
struct Slot {
    /// The sketch, which ranks the document as a candidate without reading its record.
    sketch: Sketch,
    /// The document's sequence number.
    seq: u64,
    /// The record (length 0: the slot is free).
    offset: u64,
    len: u32,
    /// Towards the most recent document.
    newer: u32,
    /// Towards the least recent document.
    older: u32,
    /// The record's checksum ([`store::record_sum`]; 0 until an index save computes it): a
    /// record read back from an index file is checked against it.
    sum: u32,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 64);

impl Slot {
    fn place(&self) -> Place {
        Place {
            offset: self.offset,
            len: self.len,
        }
    }
}

/// Number of bucket tables; a key's table is its low bits (each table's own probing starts
/// from its top bits). The table number is part of what tells two keys apart (a cell keeps
/// 32 more bits of the key), so more tables mean fewer keys sharing a cell.
pub(crate) const SHARDS: usize = 256;

/// The table of a band key.
#[inline]
fn shard(key: u64) -> usize {
    (key as usize) & (SHARDS - 1)
}

/// Bucket tables taken out of a window, each with its number.
pub(crate) type Tables = Vec<(usize, Buckets)>;

/// The bounded window of recent documents.
pub struct Window {
    capacity: usize,
    slots: Chunked<Slot>,
    free: Vec<u32>,
    /// The slots given a record without a checksum since the last save
    /// ([`Window::sync_index`] computes them); `None`: look at every held one (a window
    /// that was never saved, or one that inserted too many to list).
    unsummed: Option<Vec<u32>>,
    /// The most recently inserted or matched document.
    newest: u32,
    /// The least recently inserted or matched document (evicted first).
    oldest: u32,
    len: usize,
    /// [`SHARDS`] bucket tables (empty while [`Window::take_tables`] has them).
    buckets: Vec<Buckets>,
    /// The low 64 bits of a text hash → the first held document with that text (a bucket
    /// table, as compact as the LSH ones: its cells keep 32 bits of the key, so the record's
    /// whole hash is checked, [`Window::find_copy`]).
    copies: Buckets,
    evictions: u64,
    /// Marks for [`Window::candidates`] (other threads bring their own).
    marks: Marks,
    /// The records.
    store: Store,
    /// RAM the window may use (0: no limit); past it, it stops growing and evicts.
    budget: usize,
    /// Set when the budget or the disk limit made the window evict.
    limited: Option<Limit>,
    /// Record bytes (encoding, compaction).
    bytes: Vec<u8>,
    /// A record read from disk on the owning thread (eviction).
    words: Vec<u64>,
    /// An evicted document's band keys.
    keys: Vec<u64>,
    /// What the filter modes' family keys are made from ([`Window::add_family_keys`]).
    family: Family,
    /// Band keys of a record before its family keys (the LSH bands).
    bands: usize,
    /// What changed since the tables were saved whole (an index's window).
    journal: changes::Journal,
    /// What changed since a batch's speculative lookups ([`Window::track_changes`]).
    changed: Option<changed::Changed>,
}

/// What a window is made with ([`Window::with_settings`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowSettings {
    /// Most documents held (0: no limit but the budget).
    pub capacity: usize,
    /// Most members of a bucket (0: no limit; see [`Window::with_bucket_limit`]).
    pub bucket_limit: usize,
    /// Where the records are kept.
    pub store: StoreSettings,
    /// RAM the window may use in all (0: no limit).
    pub budget: usize,
}

impl Window {
    /// A window of at most `capacity` documents; 0 means unbounded. Records stay in RAM
    /// until [`Window::with_store`] says otherwise.
    pub fn new(capacity: usize) -> Window {
        Window {
            capacity,
            buckets: (0..SHARDS).map(|_| Buckets::new()).collect(),
            ..Window::placeholder()
        }
    }

    /// The window with bucket lists of at most `limit` documents each, the most recently
    /// inserted (0: no limit): a template family can share a band key among thousands of documents,
    /// and the filter looks at no more than the newest few. Call on a new window.
    pub(crate) fn with_bucket_limit(mut self, limit: usize) -> Window {
        self.buckets = (0..SHARDS).map(|_| Buckets::with_limit(limit)).collect();
        self
    }

    /// The window keeping its records as `settings` say, within `budget` bytes of RAM in all
    /// (0: no limit). Call on a new window.
    pub(crate) fn with_store(mut self, settings: StoreSettings, budget: usize) -> Window {
        self.store = Store::new(settings);
        self.budget = budget;
        self
    }

    /// The window `settings` describe.
    pub(crate) fn with_settings(settings: WindowSettings) -> Window {
        Window::new(settings.capacity)
            .with_store(settings.store, settings.budget)
            .with_bucket_limit(settings.bucket_limit)
    }

    /// An empty stand-in that allocates nothing (while a window is lent to other threads).
    pub fn placeholder() -> Window {
        Window {
            capacity: 0,
            slots: Chunked::default(),
            free: Vec::new(),
            unsummed: None,
            newest: NIL,
            oldest: NIL,
            len: 0,
            buckets: Vec::new(),
            copies: Buckets::new(),
            evictions: 0,
            marks: Marks::default(),
            store: Store::new(StoreSettings::default()),
            budget: 0,
            limited: None,
            bytes: Vec::new(),
            words: Vec::new(),
            keys: Vec::new(),
            family: Family::default(),
            bands: usize::MAX,
            journal: changes::Journal::default(),
            changed: None,
        }
    }

    /// Number of documents held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no document is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Documents evicted so far.
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// Why the window evicts although no `--window` was given (`None`: it does not).
    pub fn limited(&self) -> Option<Limit> {
        self.limited
    }

    /// The most documents held at once (0: no limit).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn held(&self, slot: u32) -> Held {
        Held {
            seq: self.slots[slot as usize].seq,
            slot,
        }
    }

    /// The held documents least recently used first: inserting them in this order into an
    /// empty window rebuilds this one (what `--state` saves).
    pub(crate) fn oldest_first(&self) -> impl Iterator<Item = Held> + '_ {
        let mut slot = self.oldest;
        std::iter::from_fn(move || {
            if slot == NIL {
                return None;
            }
            let item = self.held(slot);
            slot = self.slots[slot as usize].newer;
            Some(item)
        })
    }

    /// The sequence number of the most recently inserted or matched document (0 when empty).
    pub(crate) fn newest_seq(&self) -> u64 {
        match self.newest {
            NIL => 0,
            slot => self.slots[slot as usize].seq,
        }
    }

    /// Takes the documents out with their sequence numbers, least recently used first (to
    /// insert them into another window).
    pub(crate) fn into_entries(self) -> io::Result<Vec<(u64, Entry)>> {
        let mut entries = Vec::with_capacity(self.len);
        for held in self.oldest_first() {
            let mut entry = Entry::default();
            self.load(held, &mut entry)?;
            entries.push((held.seq, entry));
        }
        Ok(entries)
    }

    /// The document whose normalised text hashes to `hash`, if it is in the window.
    pub(crate) fn find_copy(&self, hash: u128) -> io::Result<Option<Held>> {
        let mut words = Vec::new();
        for &slot in self.copies.get(hash as u64) {
            let held = self.held(slot);
            if self.view(held, &mut words)?.text_hash() == hash {
                return Ok(Some(held));
            }
        }
        Ok(None)
    }

    /// A held document's record, read in place when it is in RAM (else into `scratch`),
    /// without changing its recency.
    pub(crate) fn view<'a>(
        &'a self,
        held: Held,
        scratch: &'a mut Vec<u64>,
    ) -> io::Result<View<'a>> {
        let slot = &self.slots[held.slot as usize];
        debug_assert_eq!(slot.seq, held.seq, "stale handle");
        View::parse(self.store.get(slot.place(), scratch, slot.sum)?)
    }

    /// A held document's whole entry, into `into` (its buffers reused).
    pub fn load(&self, held: Held, into: &mut Entry) -> io::Result<()> {
        into.sketch = self.slots[held.slot as usize].sketch;
        self.view(held, &mut Vec::new())?.to_entry(into)
    }

    /// The id of a held document.
    pub fn id(&self, held: Held) -> io::Result<DocId> {
        self.view(held, &mut Vec::new())?.id()
    }

    /// Asks the CPU to start loading a held document's slot.
    #[inline]
    pub(crate) fn prefetch_slot(&self, held: Held) {
        prefetch(&self.slots[held.slot as usize]);
    }

    /// Asks the CPU to start loading the first lines of a held document's record, when it is
    /// in RAM (verification reads its header and fingerprints next).
    #[inline]
    fn prefetch_record(&self, held: Held) {
        self.store
            .prefetch(self.slots[held.slot as usize].place(), PREFETCH_LINES);
    }

    /// Calls `visit` with each of `held` (in order) and its record, read from the store.
    #[inline]
    pub(crate) fn visit(
        &self,
        held: &[Held],
        mut visit: impl FnMut(Held, &View),
    ) -> io::Result<()> {
        self.visit_while(held, |h, entry| {
            visit(h, entry);
            true
        })
    }

    /// [`Window::visit`] while `visit` returns true.
    #[inline]
    pub(crate) fn visit_while(
        &self,
        held: &[Held],
        mut visit: impl FnMut(Held, &View) -> bool,
    ) -> io::Result<()> {
        // A rolling window of loads in flight: slots a few documents ahead, then (once a
        // slot is in) the start of the record it points to, when that is in RAM.
        const SLOTS_AHEAD: usize = 8;
        const RECORDS_AHEAD: usize = 3;
        for &h in held.iter().take(SLOTS_AHEAD) {
            self.prefetch_slot(h);
        }
        for &h in held.iter().take(RECORDS_AHEAD) {
            self.prefetch_record(h);
        }
        let mut words = Vec::new();
        for (k, &h) in held.iter().enumerate() {
            if let Some(&ahead) = held.get(k + SLOTS_AHEAD) {
                self.prefetch_slot(ahead);
            }
            if let Some(&ahead) = held.get(k + RECORDS_AHEAD) {
                self.prefetch_record(ahead);
            }
            if !visit(h, &self.view(h, &mut words)?) {
                break;
            }
        }
        Ok(())
    }

    /// [`Window::touch`], and in the buckets of `band_keys` (the query's: those it shares
    /// with `held` are the ones a similar document will look in) `held` moves to the newest
    /// end, so that a bucket limit drops it last: in a template family thousands of kept
    /// documents share the family's band keys, and the one that keeps matching would
    /// otherwise be pushed out by newer ones that match nothing.
    pub(crate) fn touch_in_buckets(&mut self, held: Held, band_keys: &[u64]) {
        self.touch(held);
        // Only the buckets that hold the match change. The query shares some of its keys
        // with the match, and a refresh in a bucket without it scans the whole list to find
        // that out (in a template family most of a query's refreshes, each a long list):
        // the match's own keys, from its record when that is in RAM (verification just
        // read it), say which to pass over; a record on disk is not read for this.
        let mut own = std::mem::take(&mut self.keys);
        own.clear();
        let place = self.slots[held.slot as usize].place();
        let known = match self.store.in_ram(place).map(View::parse) {
            Some(Ok(view)) => {
                own.extend_from_slice(view.band_keys);
                true
            }
            _ => false,
        };
        let bands = self.bands.min(band_keys.len());
        for (k, &key) in band_keys.iter().enumerate() {
            if known && !own.contains(&key) {
                continue;
            }
            // A refresh reorders a bucket and never changes its members: a lookup reads a
            // band key's members whole, in any order, so only a family key longer than the
            // reach a lookup looks at (its newest members) changes what a lookup sees.
            if self.recorded(key) {
                let family = k >= bands;
                match family && self.buckets[shard(key)].get(key).len() > lookup::FAMILY_REACH {
                    true => self.before_change(&[key]),
                    false => self.reordering(key),
                }
            }
            self.buckets[shard(key)].refresh(key, held.slot);
        }
        self.keys = own;
        self.journal.refresh(held.slot, band_keys);
    }

    /// Adds document `seq` (larger than every earlier one), evicting the least recently
    /// used document when the window is full. `entry.copy_key` is indexed when it is set and no
    /// document with the same text is held. Returns the new document's handle (valid while
    /// it is held: with a capacity of 1 it is evicted by the next insert). Fails when the
    /// record cannot be stored (the spill file's disk is full or fails).
    pub fn insert(&mut self, seq: u64, entry: Entry) -> io::Result<Held> {
        self.make_room(&entry.band_keys);
        let slot = self.free_slot();
        self.before_change(&entry.band_keys);
        for &key in entry.band_keys.iter() {
            self.buckets[shard(key)].push(key, slot);
        }
        let held = self.place(seq, slot, &entry);
        self.discard(entry);
        held
    }

    /// [`Window::insert`] without adding the band keys to the buckets: for a batch whose keys
    /// [`index_keys`] adds afterwards, before any lookup. The window must have room (nothing
    /// is evicted).
    pub(crate) fn insert_unindexed(&mut self, seq: u64, entry: &Entry) -> io::Result<Held> {
        assert!(
            self.capacity == 0 || self.len < self.capacity,
            "an unindexed insert never evicts"
        );
        let slot = self.free_slot();
        self.place(seq, slot, entry)
    }

    /// A free slot (reused or new).
    fn free_slot(&mut self) -> u32 {
        match self.free.pop() {
            Some(slot) => slot,
            None => {
                let slot = u32::try_from(self.slots.len())
                    .ok()
                    .filter(|&s| s < buckets::MAX_SLOT)
                    .expect("fewer than 2^31 documents in the window");
                self.slots.push(Slot {
                    newer: NIL,
                    older: NIL,
                    ..Slot::default()
                });
                slot
            }
        }
    }

    /// Stores `entry` in `slot` as the newest document: record, copy index, recency, and
    /// eviction of the oldest while over capacity.
    fn place(&mut self, seq: u64, slot: u32, entry: &Entry) -> io::Result<Held> {
        let mut indexed = None;
        if let Some(h) = entry.copy_key
            && self.find_copy(h)?.is_none()
        {
            self.copies.push(h as u64, slot);
            self.note_copy(h as u64);
            indexed = Some(h);
        }
        let place = match self.store.append_with(
            record::encoded_len(entry),
            |out| record::encode_onto(entry, indexed, out),
            &mut self.bytes,
        ) {
            Ok(place) => place,
            Err(e) => {
                // Undo what was done for this document, so the window stays consistent.
                if let Some(h) = indexed {
                    self.copies.remove(h as u64, slot);
                }
                for &key in entry.band_keys.iter() {
                    if let Some(table) = self.buckets.get_mut(shard(key)) {
                        table.remove(key, slot);
                    }
                }
                self.free.push(slot);
                // A bucket at its limit may have let a member go for this push.
                self.journal.stop();
                return Err(e);
            }
        };
        {
            let s = &mut self.slots[slot as usize];
            s.seq = seq;
            s.sketch = entry.sketch;
            s.sum = 0;
            s.offset = place.offset;
            s.len = place.len;
        }
        self.unsummed_push(slot);
        self.link_newest(slot);
        self.len += 1;
        self.journal.insert(
            seq,
            slot,
            (place.offset, place.len),
            &entry.sketch,
            indexed.map(|h| h as u64),
            &entry.band_keys,
        );
        if self.capacity > 0 {
            while self.len > self.capacity {
                self.evict_oldest()?;
            }
            self.shed_for_disk()?;
        }
        if self.store.needs_compaction() {
            self.compact()?;
        }
        Ok(Held { seq, slot })
    }

    /// The held document with sequence number `seq` (a scan: for tests).
    #[cfg(test)]
    pub(crate) fn find_seq(&self, seq: u64) -> Option<Held> {
        (0..self.slots.len() as u32)
            .find(|&slot| self.slots[slot as usize].len > 0 && self.slots[slot as usize].seq == seq)
            .map(|slot| self.held(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(keys: &[u64], copy_key: Option<u128>) -> Entry {
        Entry {
            band_keys: keys.into(),
            copy_key,
            text_hash: copy_key.unwrap_or(0),
            sketch: [keys.first().copied().unwrap_or(0); 4],
            ..Entry::default()
        }
    }

    fn seqs(held: &[Held]) -> Vec<u64> {
        held.iter().map(|h| h.seq).collect()
    }

    #[test]
    fn candidates_are_sorted_and_distinct() {
        let mut w = Window::new(0);
        w.insert(5, entry(&[1, 2], None)).unwrap();
        w.insert(3, entry(&[2, 3], None)).unwrap();
        w.insert(9, entry(&[7], None)).unwrap();
        let mut c = Vec::new();
        w.candidates(&[3, 2, 1], &mut c);
        assert_eq!(seqs(&c), vec![3, 5]);
        w.candidates(&[42], &mut c);
        assert!(c.is_empty());
    }

    #[test]
    fn candidates_before_a_sequence_number_leave_out_later_documents() {
        let mut w = Window::new(0);
        for seq in [2, 4, 6, 8] {
            w.insert(seq, entry(&[1, seq], None)).unwrap();
        }
        let (mut marks, mut c) = (Marks::default(), Vec::new());
        w.candidates_before(&[1], 6, &mut marks, &mut c);
        assert_eq!(seqs(&c), vec![2, 4]);
        w.candidates_before(&[8, 1], 9, &mut marks, &mut c);
        assert_eq!(seqs(&c), vec![2, 4, 6, 8]);
        w.candidates_before(&[6], 6, &mut marks, &mut c);
        assert!(c.is_empty());
    }

    #[test]
    fn tables_indexed_in_groups_equal_one_by_one_inserts() {
        // Keys from a small range, so that buckets hold several documents and most tables
        // are used; two batches, the second indexed with the tables split three ways.
        let mut rng = crate::hash::test_rng(5);
        let keys: Vec<Vec<u64>> = (0..300)
            .map(|_| {
                (0..6)
                    .map(|_| rng(1000).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .collect()
            })
            .collect();
        let mut one_by_one = Window::new(0);
        let mut batched = Window::new(0);
        for (batch, range) in [(0..120), (120..300)].into_iter().enumerate() {
            let mut held = Vec::new();
            for i in range {
                one_by_one
                    .insert(i as u64, entry(&keys[i], Some(i as u128)))
                    .unwrap();
                let e = entry(&keys[i], Some(i as u128));
                let h = batched.insert_unindexed(i as u64, &e).unwrap();
                held.push((h, e));
            }
            let mut groups: Vec<Tables> = (0..batch * 2 + 1).map(|_| Vec::new()).collect();
            for (number, table) in batched.take_tables() {
                let n = groups.len();
                groups[number % n].push((number, table));
            }
            let mut back = Vec::new();
            for mut group in groups {
                index_keys(&held, &mut group);
                back.extend(group);
            }
            batched.put_tables(back);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for k in &keys {
            one_by_one.candidates(k, &mut a);
            batched.candidates(k, &mut b);
            assert_eq!(a, b);
            assert!(!a.is_empty());
        }
        assert_eq!(
            (0..SHARDS)
                .map(|t| one_by_one.buckets[t].len())
                .collect::<Vec<_>>(),
            (0..SHARDS)
                .map(|t| batched.buckets[t].len())
                .collect::<Vec<_>>()
        );
        assert!(one_by_one.buckets.iter().filter(|t| !t.is_empty()).count() > SHARDS / 2);
    }

    /// A query's marks are cleared for the next, which finds the same documents again, and
    /// one over more slots than the last (the window grew) finds the new ones.
    #[test]
    fn candidates_are_found_again_by_the_next_query() {
        let mut w = Window::new(0);
        w.insert(1, entry(&[1, 2], None)).unwrap();
        w.insert(2, entry(&[2], None)).unwrap();
        let mut c = Vec::new();
        for _ in 0..4 {
            w.candidates(&[1, 2], &mut c);
            assert_eq!(seqs(&c), vec![1, 2]);
        }
        w.insert(3, entry(&[1], None)).unwrap();
        w.candidates(&[1, 2], &mut c);
        assert_eq!(seqs(&c), vec![1, 2, 3]);
    }

    #[test]
    fn evicts_least_recently_matched() {
        let mut w = Window::new(2);
        w.insert(1, entry(&[10], Some(100))).unwrap();
        w.insert(2, entry(&[20], None)).unwrap();
        w.touch(w.find_seq(1).expect("held"));
        w.insert(3, entry(&[30], None)).unwrap();
        assert_eq!(w.len(), 2);
        assert_eq!(w.evictions(), 1);
        assert!(w.find_seq(2).is_none());
        assert!(w.find_seq(1).is_some());
        let mut c = Vec::new();
        w.candidates(&[20], &mut c);
        assert!(c.is_empty(), "evicted documents leave the buckets");
        w.insert(4, entry(&[40], None)).unwrap();
        assert!(w.find_seq(1).is_none());
        assert_eq!(
            w.find_copy(100).unwrap(),
            None,
            "evicted documents leave the exact index"
        );
    }

    #[test]
    fn exact_index_keeps_the_first_document() {
        let mut w = Window::new(0);
        w.insert(1, entry(&[1], Some(7))).unwrap();
        w.insert(2, entry(&[1], Some(7))).unwrap();
        assert_eq!(w.find_copy(7).unwrap().map(|h| h.seq), Some(1));
    }

    /// The window against a plain model (a list in recency order, scanned): random inserts,
    /// queries and touches with slot reuse must give the same candidates, evictions, exact
    /// matches and order.
    #[test]
    fn equals_a_scanned_recency_list() {
        let mut next = crate::hash::test_rng(5u64);
        for capacity in [0usize, 1, 3, 20] {
            let mut w = Window::new(capacity);
            // (seq, keys, exact hash), most recent last.
            let mut model: Vec<(u64, Vec<u64>, u128)> = Vec::new();
            let mut found = Vec::new();
            for seq in 1..600u64 {
                let keys: Vec<u64> = (0..3).map(|b| b * 100 + next(12)).collect();
                w.candidates(&keys, &mut found);
                let mut expected: Vec<u64> = model
                    .iter()
                    .filter(|(_, k, _)| k.iter().any(|x| keys.contains(x)))
                    .map(|(s, _, _)| *s)
                    .collect();
                expected.sort_unstable();
                assert_eq!(seqs(&found), expected, "capacity {capacity}, seq {seq}");
                // Match about half of the candidates, in a scrambled order.
                for h in found.iter().rev().filter(|h| h.seq % 2 == seq % 2) {
                    let mut e = Entry::default();
                    w.load(*h, &mut e).unwrap();
                    assert_eq!(e.band_keys.len(), 3);
                    w.touch(*h);
                    let at = model.iter().position(|m| m.0 == h.seq).expect("held");
                    let m = model.remove(at);
                    model.push(m);
                }
                let exact = u128::from(next(40));
                w.insert(seq, entry(&keys, Some(exact))).unwrap();
                model.push((seq, keys, exact));
                if capacity > 0 && model.len() > capacity {
                    model.remove(0);
                }
                // The exact index names a held document with that text.
                if let Some(h) = w.find_copy(exact).unwrap() {
                    assert!(model.iter().any(|m| m.0 == h.seq && m.2 == exact));
                }
                assert_eq!(w.len(), model.len());
                let order: Vec<u64> = w.oldest_first().map(|h| h.seq).collect();
                let order_model: Vec<u64> = model.iter().map(|m| m.0).collect();
                assert_eq!(order, order_model, "capacity {capacity}, seq {seq}");
            }
            assert_eq!(w.evictions() as usize, 599 - w.len());
        }
    }

    #[test]
    fn memory_stays_bounded_under_churn() {
        let mut w = Window::new(100);
        for seq in 0..10_000u64 {
            w.insert(seq, entry(&[seq, seq / 2, seq % 17], Some(seq as u128)))
                .unwrap();
        }
        assert_eq!(w.len(), 100);
        assert!(w.buckets.len() <= 300);
        assert!(w.copies.len() <= 100);
        assert!(w.slots.len() <= 101, "freed slots are reused");
    }
}
