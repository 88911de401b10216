//! The window's image: its tables (slots, recency list, bucket tables, copy index, family
//! summaries) written as they are, so that a saved index is opened by reading them back in
//! one pass instead of re-inserting every document (`--state DIR`, [`crate::state`]). The
//! records are not part of it: they stay in the store's file, which the image's slots point
//! into.
//!
//! ```text
//! u64 slots | pad | slots × slot (4 × u64 sketch | u64 seq | u64 offset | u32 len
//!   | u32 newer | u32 older | u32 record checksum) | u64 n + n × u32 free slot
//!   | u32 newest | u32 oldest | u64 held | u64 evictions | u64 bands | u32 tables
//!   | tables × bucket table | bucket table (the copy index) | u64 n + n bytes, the family
//!   summaries
//! bucket table: u64 keys | u64 cells | pad | cells × (u32 top | u32 value) | u64 lists
//!   + lists × (u32 protected | u32 m + m × u32 slot) | u64 n + n × u32 spare list
//! ```
//! Little-endian (numbers as they are in memory: the records assume it too); `pad` is zeros
//! up to a multiple of 64 bytes from the start, so the slots and cells are mapped where they
//! are ([`Layout::InPlace`]). Index versions 8 and 9 wrote [`Layout::Fields`]: after the
//! count of slots, `slots × (u64 offset | u32 len | u32 newer | u32 older)`, then `slots ×
//! u64 seq`, `slots × 4 × u64 sketch`, `slots × u32 record checksum`, and no `pad`. Reading
//! checks every count against the bytes left, so a damaged image is an error, never a panic
//! or an allocation larger than the file.

use super::codec::{Get, Put, damaged};
use super::mapped::{ALIGN, Layout};
use super::{Buckets, Chunked, Family, Image, NIL, SHARDS, Slot, Window, WindowSettings};
use crate::sketch::lsh::Sketch;
use std::io::{self, Read, Write};
use std::path::Path;

/// A slot's place and links as the [`Layout::Fields`] image keeps them (20 bytes); the
/// sequence numbers, sketches and checksums follow as arrays of their own.
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, packed(4))]
struct SlotImage {
    offset: u64,
    len: u32,
    newer: u32,
    older: u32,
}

/// Slots read per piece (a [`Layout::Fields`] image's arrays are converted a piece at a
/// time).
const PIECE: usize = super::chunked::CHUNK;

/// Reads one field of every slot, written as an array, into the slots with `set`.
fn get_field<R: Read, T: bytemuck::Pod>(
    get: &mut Get<'_, R>,
    slots: &mut Chunked<Slot>,
    set: impl Fn(&mut Slot, T),
) -> io::Result<()> {
    let n = slots.len();
    let mut piece = vec![T::zeroed(); PIECE.min(n)];
    for start in (0..n).step_by(PIECE) {
        let piece = &mut piece[..PIECE.min(n - start)];
        get.raw(bytemuck::cast_slice_mut(piece))?;
        for (i, &value) in piece.iter().enumerate() {
            set(&mut slots[start + i], value);
        }
    }
    Ok(())
}

/// The slots of a [`Layout::Fields`] image, each record checked against `records_end`.
fn get_slot_fields<R: Read>(
    get: &mut Get<'_, R>,
    n: usize,
    records_end: u64,
) -> io::Result<Chunked<Slot>> {
    let mut slots = Chunked::default();
    slots.reserve(n);
    let mut piece = Vec::new();
    let mut left = n;
    while left > 0 {
        let k = left.min(PIECE);
        piece.clear();
        piece.resize(k, SlotImage::default());
        get.raw(bytemuck::cast_slice_mut(&mut piece))?;
        for &image in &piece {
            let (offset, len) = (image.offset, image.len);
            // A free slot (length 0) keeps the offset of the record it had.
            if len > 0 && offset.saturating_add(u64::from(len)) > records_end {
                return Err(damaged("a record lies past the records' end"));
            }
            slots.push(Slot {
                offset,
                len,
                newer: image.newer,
                older: image.older,
                ..Slot::default()
            });
        }
        left -= k;
    }
    // The sequence numbers, sketches and checksums, into the slots a piece at a time.
    get_field(get, &mut slots, |s, seq: u64| s.seq = seq)?;
    get_field(get, &mut slots, |s, sketch: Sketch| s.sketch = sketch)?;
    get_field(get, &mut slots, |s, sum: u32| s.sum = sum)?;
    Ok(slots)
}

impl Window {
    /// Writes the window's tables (not its records: the store keeps those), laid out
    /// [`Layout::InPlace`].
    pub(crate) fn write_image<W: Write>(&self, w: &mut W) -> io::Result<()> {
        let mut put = Put::new(w);
        put.u64(self.slots.len() as u64)?;
        put.align(ALIGN)?;
        for chunk in self.slots.chunks() {
            put.raw(bytemuck::cast_slice(chunk))?;
        }
        put.u32s(&self.free)?;
        put.u32(self.newest)?;
        put.u32(self.oldest)?;
        put.u64(self.len as u64)?;
        put.u64(self.evictions)?;
        put.u64(self.bands as u64)?;
        put.u32(self.buckets.len() as u32)?;
        for table in &self.buckets {
            table.write_image(&mut put)?;
        }
        self.copies.write_image(&mut put)?;
        let mut family = Vec::new();
        self.family.write_to(&mut family);
        put.u64(family.len() as u64)?;
        put.raw(&family)
    }

    /// The window `settings` describe holding what [`Window::write_image`] wrote (the
    /// mapped `image`, laid out as `layout` says), its records in `store` (whose bytes end
    /// at `records_end`). It holds what the image holds whatever the settings' limits:
    /// [`Window::settle`] applies them (after a log is replayed).
    ///
    /// A [`Layout::Fields`] image is read into RAM and every count, slot number and link
    /// checked, so a damaged one is an error, never a panic. A [`Layout::InPlace`] one is
    /// mapped and its counts and small parts checked; its slots and cells are trusted to be
    /// what the manifest's checksum of the whole file (checked before) says were written.
    pub(crate) fn read_image(
        settings: WindowSettings,
        store: super::Store,
        records_end: u64,
        image: &Image,
        layout: Layout,
    ) -> io::Result<Window> {
        let bucket_limit = settings.bucket_limit;
        let mut w = Window::with_settings(settings);
        w.store = store;
        let bytes = image.bytes();
        let mut cursor = io::Cursor::new(bytes);
        let mut get = Get::new(&mut cursor, bytes.len() as u64);
        let n = get.count(20)?;
        if n > super::buckets::MAX_SLOT as usize {
            return Err(damaged("too many slots"));
        }
        let slots = match layout {
            Layout::Fields => get_slot_fields(&mut get, n, records_end)?,
            Layout::InPlace => {
                get.align(ALIGN)?;
                // SAFETY: the first array mapped; the cursor moves past it, and every later
                // one is mapped (or read) from bytes after it.
                let slots = unsafe { Chunked::mapped(image, get.at(), n) }?;
                get.skip((n * std::mem::size_of::<Slot>()) as u64)?;
                slots
            }
        };
        let free = get.u32s()?;
        let (newest, oldest) = (get.u32()?, get.u32()?);
        let held = get.u64()? as usize;
        let evictions = get.u64()?;
        let bands = get.u64()? as usize;
        let tables = get.u32()? as usize;
        if tables != SHARDS {
            return Err(damaged("the number of bucket tables"));
        }
        let mut buckets = Vec::with_capacity(SHARDS);
        for _ in 0..SHARDS {
            buckets.push(Buckets::read_image(
                &mut get,
                image,
                layout,
                bucket_limit,
                n,
            )?);
        }
        let copies = Buckets::read_image(&mut get, image, layout, 0, n)?;
        let family_len = get.count(1)?;
        let mut family = Vec::with_capacity(family_len);
        get.all(family_len, 1, |b| {
            family.push(b[0]);
            Ok(())
        })?;
        let family = Family::read_from(&family).ok_or_else(|| damaged("family summaries"))?;
        if get.left() != 0 {
            return Err(damaged("bytes after the tables"));
        }
        let valid = |s: u32| s == NIL || (s as usize) < n;
        if held + free.len() > n || !valid(newest) || !valid(oldest) {
            return Err(damaged("the recency list's ends"));
        }
        if free.iter().any(|&f| f as usize >= n) {
            return Err(damaged("the free slots"));
        }
        w.slots = slots;
        w.free = free;
        w.newest = newest;
        w.oldest = oldest;
        w.len = held;
        w.evictions = evictions;
        w.bands = bands;
        w.buckets = buckets;
        w.copies = copies;
        w.family = family;
        // Every held record was summed by the save that wrote the image.
        w.unsummed = Some(Vec::new());
        if layout == Layout::Fields {
            w.check_links()?;
        }
        Ok(w)
    }

    /// The window [`Window::read_image`] read (and a log replayed onto it) made to fit the
    /// run's `settings`: at most its capacity, within its memory budget (which may rebuild
    /// it, [`Window::fit_budget`]).
    pub(crate) fn settle(mut self, settings: WindowSettings) -> io::Result<Window> {
        // Walking the links of a mapped window would read every slot's page: what mapping
        // saves (its bytes are the checksummed file's and the log's checked changes).
        if !self.slots.is_mapped() {
            self.check_links()?;
        }
        if self.capacity > 0 {
            while self.len > self.capacity {
                self.evict_oldest()?;
            }
        }
        self.fit_budget(settings)
    }

    /// A window opened under a memory budget (`settings.budget`) its documents do not fit:
    /// the most recently used ones that do, in a window made with `settings` (the others
    /// are evicted as they are inserted, oldest first, as one run under that budget would
    /// have done; a limited bucket's order is then the insertion order). The tables are
    /// built anew, the records read back: this costs what loading a whole state did, and
    /// happens only when the budget is below what the index holds. A window the budget
    /// itself limited fits and is kept as it is.
    fn fit_budget(self, settings: WindowSettings) -> io::Result<Window> {
        let budget = settings.budget as u64;
        if budget == 0 || self.ram_bytes_per_doc() * self.len as u64 <= budget {
            return Ok(self);
        }
        // Its records go to a spill file (the index's own are the ones being read), and
        // into the index at the next save.
        let mut fitted = Window::with_settings(WindowSettings {
            store: super::StoreSettings {
                index: None,
                ..settings.store
            },
            ..settings
        });
        fitted.family = self.family.clone();
        fitted.bands = self.bands;
        let mut entry = super::Entry::default();
        for held in self.oldest_first() {
            self.load(held, &mut entry)?;
            fitted.insert(held.seq, std::mem::take(&mut entry))?;
        }
        Ok(fitted)
    }

    /// A digest of what the tables say of the held documents, in recency order: each one's
    /// sequence number, sketch and record checksum, the members of each of its buckets in
    /// their order (as sequence numbers), and the document its text finds in the copy
    /// index. Two windows with the same digest answer every lookup alike, however their
    /// tables are laid out (written whole, or replayed from a log).
    pub(crate) fn tables_digest(&self) -> io::Result<u64> {
        let mut hash = xxhash_rust::xxh3::Xxh3::new();
        let mut scratch = Vec::new();
        for held in self.oldest_first() {
            let s = self.slots[held.slot as usize];
            hash.update(&s.seq.to_le_bytes());
            hash.update(bytemuck::cast_slice(&s.sketch));
            hash.update(&s.sum.to_le_bytes());
            let view = self.view(held, &mut scratch)?;
            for &key in view.band_keys {
                for &member in self.buckets[super::shard(key)].get(key) {
                    hash.update(&self.slots[member as usize].seq.to_le_bytes());
                }
                hash.update(b"|");
            }
            if let Some(h) = view.copy_key() {
                let first = self.find_copy(h)?.map_or(u64::MAX, |c| c.seq);
                hash.update(&first.to_le_bytes());
            }
        }
        Ok(hash.digest())
    }

    /// Checks that the recency list runs through exactly the held slots and that every free
    /// slot is empty: what eviction and the iterators rely on.
    fn check_links(&self) -> io::Result<()> {
        let n = self.slots.len() as u32;
        let valid = |s: u32| s == NIL || s < n;
        if !valid(self.newest) || !valid(self.oldest) {
            return Err(damaged("the recency list's ends"));
        }
        let mut seen = 0usize;
        let (mut slot, mut prev) = (self.oldest, NIL);
        while slot != NIL {
            let s = self.slots[slot as usize];
            let (newer, older, len) = (s.newer, s.older, s.len);
            if seen >= self.len || older != prev || !valid(newer) || len == 0 {
                return Err(damaged("the recency list"));
            }
            seen += 1;
            prev = slot;
            slot = newer;
        }
        if seen != self.len || prev != self.newest {
            return Err(damaged("the recency list's length"));
        }
        let free_ok = self
            .free
            .iter()
            .all(|&f| f < n && self.slots[f as usize].len == 0);
        if !free_ok || self.free.len() + self.len > n as usize {
            return Err(damaged("the free slots"));
        }
        Ok(())
    }
}

impl Window {
    /// Makes the window's records an index's in `dir` ([`super::Store::persist`]) unless
    /// they are already, then writes what is only in RAM and syncs it: the records'
    /// generation, end and garbage, which the manifest names.
    pub(crate) fn sync_index(
        &mut self,
        dir: &Path,
        generation: u64,
    ) -> io::Result<(u64, u64, u64)> {
        self.sum_records()?;
        if self.store.index_dir() != Some(dir) {
            let mut held = self.oldest_first().map(|h| h.slot).collect::<Vec<_>>();
            held.sort_unstable_by_key(|&s| self.slots[s as usize].offset);
            let mut places: Vec<_> = held
                .iter()
                .map(|&s| self.slots[s as usize].place())
                .collect();
            self.store.persist(dir, generation, &mut places)?;
            for (&s, place) in held.iter().zip(&places) {
                self.slots[s as usize].offset = place.offset;
            }
        }
        self.store.sync()
    }

    /// Computes the checksum of every held record that has none yet (those added since the
    /// last save), before they are saved: the listed ones, or every held one when the list
    /// was given up (a window opened from a mapped index must not read every slot's page).
    fn sum_records(&mut self) -> io::Result<()> {
        let slots = match self.unsummed.replace(Vec::new()) {
            Some(listed) => listed,
            None => self.oldest_first().map(|h| h.slot).collect(),
        };
        let mut scratch = Vec::new();
        for slot in slots {
            let s = self.slots[slot as usize];
            if s.len > 0 && s.sum == 0 {
                let record = self.store.get(s.place(), &mut scratch, 0)?;
                let sum = super::store::record_sum(record);
                self.slots[slot as usize].sum = sum;
                self.journal.sum(slot, sum);
            }
        }
        Ok(())
    }

    /// Lists `slot` as given a record without a checksum ([`Window::sum_records`]), unless
    /// the list would pass a sixteenth of the slots: every held one is looked at then.
    pub(super) fn unsummed_push(&mut self, slot: u32) {
        if let Some(listed) = &mut self.unsummed {
            if listed.len() > self.slots.len() / 16 + 4096 {
                self.unsummed = None;
            } else {
                listed.push(slot);
            }
        }
    }

    /// A manifest naming what [`Window::sync_index`] returned is saved.
    pub(crate) fn index_committed(&mut self) {
        self.store.committed();
    }

    /// Moves the held records over the evicted ones now (an index's: into its next
    /// generation), whatever the garbage.
    pub(crate) fn compact_index(&mut self) -> io::Result<()> {
        self.compact()
    }

    /// The index directory was renamed to `dir`.
    pub(crate) fn index_moved(&mut self, dir: &Path) {
        self.store.moved_index(dir);
    }
}
