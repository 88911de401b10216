//! Where the window keeps what verification reads of a held document (its record): the
//! newest records in RAM, the older ones in a spill file read back with `pread`.
//!
//! Records are appended to one byte sequence. Its newest part stays in RAM in segments (a
//! quarter of the RAM share the store was given, 4 KiB to 1 MiB), up to that share; when a
//! new segment would pass it, the oldest segment is written to the spill file at its own offset and its buffer is
//! reused. A record is read from the RAM segments when it is there, else from the file (the
//! page cache serves the recent part of it; that memory is the system's, not the process').
//! A document is compared with few candidates (a quarter of a candidate per document on
//! ordinary text), so most records, once written, are never read again.
//!
//! The spill file is created in the spill directory and unlinked at once: it is gone from the
//! directory while the run goes on and its space is freed when the process ends, whatever
//! ends it (a signal, an abort, `kill -9`). Evicted records are garbage: [`Store::freed`]
//! counts them, and when there is enough of it ([`Store::needs_compaction`]) the window moves
//! its live records down over it, in place ([`Store::relocate`], [`Store::truncate`]): a
//! compaction needs no second copy of the records, in RAM or on disk, so `--max-disk` and the
//! RAM budget hold through it.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

mod index;
pub(crate) use index::{UNSAVED, mark_unsaved, open_no_follow};

use super::chores::Chores;
use index::Index;
pub(crate) use index::{record_sum, records_path};

/// Largest RAM segment: a quarter of the RAM share, between 4 KiB and 1 MiB (a small share
/// still spills, so that small inputs can test the disk path).
const MAX_SEGMENT: usize = 1 << 20;
const MIN_SEGMENT: usize = 4 << 10;

/// Garbage below this is never worth a compaction.
const MIN_GARBAGE: u64 = 64 << 20;

/// How a store holds its records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreSettings {
    /// Directory of the spill file; `None`: everything stays in RAM.
    pub dir: Option<PathBuf>,
    /// RAM the newest records may use (rounded to whole segments, at least one).
    pub ram: usize,
    /// Bytes the spill file may reach (0: no limit but the disk's).
    pub disk: u64,
    /// The `--state` index directory whose records file the store spills to, instead of a
    /// spill file in `dir` (which must be set too): the records a save will need are then
    /// written once, not spilled and then copied into the index.
    pub index: Option<PathBuf>,
}

impl Default for StoreSettings {
    /// Everything in RAM (the library's default; the command line spills).
    fn default() -> Self {
        StoreSettings {
            dir: None,
            ram: usize::MAX,
            disk: 0,
            index: None,
        }
    }
}

/// A record's place in the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    /// Offset of its first byte.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u32,
}

/// Records appended in RAM and on disk.
#[derive(Debug)]
pub(crate) struct Store {
    settings: StoreSettings,
    /// The spill file, created at the first spill.
    file: Option<File>,
    /// The newest bytes, oldest segment first; each full but the last.
    segments: std::collections::VecDeque<Vec<u8>>,
    /// Offset of the first byte of `segments[0]`.
    ram_start: u64,
    /// Bytes appended in all.
    end: u64,
    /// Bytes of records freed (evicted).
    garbage: u64,
    /// A buffer kept for the next segment.
    spare: Option<Vec<u8>>,
    /// Bytes per segment.
    segment: usize,
    /// The RAM share it was given: [`Store::adapt`] lends it more while the window is small.
    base_ram: usize,
    /// Set when the records are an index's (`--state DIR`) rather than a spill file's.
    index: Option<Index>,
    /// The thread that prepares new segments ahead ([`Store::with_chores`]), if any.
    chores: Option<Chores>,
}

/// Records and indexes together may take this many times the store's RAM share before
/// records are spilled ([`Store::adapt`]).
const LENT_SHARES: usize = 4;

/// Distinguishes the spill files of one process.
static FILES: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// An empty store; nothing is created on disk until the RAM share is full.
    pub fn new(settings: StoreSettings) -> Store {
        let segment = (settings.ram / 4).clamp(MIN_SEGMENT, MAX_SEGMENT);
        // A disk limit holds at least 16 segments: the window stops growing when the spill
        // file comes within two segments of half the limit, so 1 MiB segments under a 2 MiB
        // `--max-disk` stopped it at one document (deduplication silently off).
        let segment = match settings.disk {
            0 => segment,
            disk => segment
                .min(usize::try_from(disk / 16).unwrap_or(usize::MAX))
                .max(MIN_SEGMENT),
        };
        let index = match (&settings.index, &settings.dir) {
            (Some(dir), Some(_)) => Some(Index::fresh(dir)),
            _ => None,
        };
        Store {
            segment,
            base_ram: settings.ram,
            settings,
            file: None,
            segments: std::collections::VecDeque::new(),
            ram_start: 0,
            end: 0,
            garbage: 0,
            spare: None,
            index,
            chores: None,
        }
    }

    /// The store with its new segments prepared on a thread of its own ([`Chores`]), when
    /// the system gives one.
    pub(crate) fn with_chores(mut self) -> Store {
        self.chores = Chores::start();
        self
    }

    /// The chores thread, if the store has one.
    pub(crate) fn chores(&self) -> Option<&Chores> {
        self.chores.as_ref()
    }

    /// The chores thread, to hand it work, if the store has one.
    pub(crate) fn chores_mut(&mut self) -> Option<&mut Chores> {
        self.chores.as_mut()
    }

    /// A buffer for a new segment: one the chores thread prepared if it is ready, else a
    /// new one (`None` when the memory is not there). The next one is asked for while the
    /// RAM share has room for it beside the segment being opened, so that a prepared
    /// buffer is always one the share could hold.
    fn new_buffer(&mut self) -> Option<Vec<u8>> {
        let room = (self.ram_segments()).saturating_sub(self.segments.len().saturating_add(1));
        let prepared = (self.chores.as_mut()).and_then(|c| c.segment(self.segment, room));
        prepared.or_else(|| {
            let mut b = Vec::new();
            crate::guard::fallibly(|| b.try_reserve_exact(self.segment)).ok()?;
            Some(b)
        })
    }

    /// The settings it was made with.
    pub fn settings(&self) -> &StoreSettings {
        &self.settings
    }

    /// Most segments held in RAM.
    fn ram_segments(&self) -> usize {
        if self.settings.dir.is_none() {
            return usize::MAX;
        }
        (self.settings.ram / self.segment).max(1)
    }

    /// Sets the RAM share for a window whose indexes take `index_bytes`: the share given, or
    /// more while the indexes are small, records and indexes together up to four times the
    /// share and never past the window's `budget` (0: none). Small runs then never write the
    /// spill file (whose writing-back takes a core from a 2-core machine), and large ones
    /// keep their RAM per document.
    pub(crate) fn adapt(&mut self, index_bytes: usize, budget: usize) {
        if self.settings.dir.is_some() && self.base_ram > 0 {
            let mut lent = LENT_SHARES
                .saturating_mul(self.base_ram)
                .saturating_sub(index_bytes);
            if budget > 0 {
                // The four times are a quarter of the budget's pipeline share only when the
                // window takes half the budget; a window given less (a columnar input's run)
                // lends no more than it has.
                lent = lent.min(budget.saturating_sub(index_bytes));
            }
            self.settings.ram = self.base_ram.max(lent);
        }
    }

    /// The RAM records and indexes may take together before records go to the spill file
    /// ([`Store::adapt`]); `None` when records never leave RAM.
    pub(crate) fn ram_before_spilling(&self) -> Option<usize> {
        (self.settings.dir.is_some() && self.base_ram > 0)
            .then(|| LENT_SHARES.saturating_mul(self.base_ram))
    }

    /// Appends the `len` bytes `write` appends to the vector it is given, and returns where
    /// they are: written straight into the newest segment when they fit there (most records:
    /// no copy through a buffer), else into `scratch` (cleared first) and appended from it.
    pub(crate) fn append_with(
        &mut self,
        len: usize,
        write: impl FnOnce(&mut Vec<u8>),
        scratch: &mut Vec<u8>,
    ) -> io::Result<Place> {
        let writable = self.index.as_ref().is_none_or(|i| i.writable);
        match self.segments.back_mut() {
            Some(last) if writable && len <= self.segment - last.len() && len > 0 => {
                let start = last.len();
                write(last);
                debug_assert_eq!(
                    last.len() - start,
                    len,
                    "the length written is the one given"
                );
                let place = Place {
                    offset: self.end,
                    len: len as u32,
                };
                self.end += len as u64;
                Ok(place)
            }
            _ => {
                scratch.clear();
                write(scratch);
                self.append(scratch)
            }
        }
    }

    /// Appends `record` and returns where it is.
    pub fn append(&mut self, record: &[u8]) -> io::Result<Place> {
        if self.index.as_ref().is_some_and(|i| !i.writable) {
            return Err(io::Error::other("an index opened to read is not added to"));
        }
        let len = u32::try_from(record.len())
            .map_err(|_| io::Error::other("a window record over 4 GiB"))?;
        let place = Place {
            offset: self.end,
            len,
        };
        let mut rest = record;
        while !rest.is_empty() {
            if self.segments.back().is_none_or(|s| s.len() == self.segment) {
                self.new_segment()?;
            }
            let last = self.segments.back_mut().expect("a segment to fill");
            let n = rest.len().min(self.segment - last.len());
            last.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
        self.end += record.len() as u64;
        Ok(place)
    }

    /// Opens a segment at the end, spilling the oldest one when RAM holds its share.
    fn new_segment(&mut self) -> io::Result<()> {
        let mut buffer = None;
        if self.segments.len() < self.ram_segments()
            && self.spare.is_none()
            && self.settings.dir.is_some()
            && !self.segments.is_empty()
        {
            // A new buffer, if the memory is there; else the RAM share ends here (the
            // segments held go on being reused).
            match self.new_buffer() {
                Some(b) => self.spare = Some(b),
                None => self.settings.ram = self.segments.len() * self.segment,
            }
        }
        while self.segments.len() >= self.ram_segments() {
            let disk = self.settings.disk;
            let oldest_len = self.segments.front().map_or(0, Vec::len) as u64;
            if disk > 0 && self.ram_start + oldest_len > disk {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    format!("the spill file would pass ‹max-disk› ({disk} bytes)"),
                ));
            }
            self.spill_file()?;
            let (file, oldest) = (
                self.file.as_ref().expect("just opened"),
                self.segments
                    .front()
                    .expect("a full RAM share has segments"),
            );
            let written = self.index.as_ref().map_or(0, |i| i.written);
            if self.ram_start + oldest.len() as u64 > written {
                file.write_all_at(oldest, self.ram_start)?;
            }
            let mut oldest = self.segments.pop_front().expect("checked above");
            self.ram_start += oldest.len() as u64;
            oldest.clear();
            buffer = Some(oldest);
        }
        let segment = match buffer.or_else(|| self.spare.take()) {
            Some(b) => b,
            None => self
                .new_buffer()
                .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?,
        };
        self.segments.push_back(segment);
        Ok(())
    }

    /// The spill file, created (and unlinked) on first use.
    fn spill_file(&mut self) -> io::Result<&File> {
        if self.file.is_none() {
            self.file = Some(match &mut self.index {
                // A new records file of the index ([`Index::new_file`]).
                Some(index) => index.new_file()?,
                None => {
                    let dir = self
                        .settings
                        .dir
                        .as_deref()
                        .expect("only a spilling store spills");
                    create_unlinked(dir)?
                }
            });
        }
        Ok(self.file.as_ref().expect("just created"))
    }

    /// The record at `place` when it lies in one RAM segment, 8-byte aligned (what
    /// [`Store::get`] returns without reading a file); None otherwise.
    pub(crate) fn in_ram(&self, place: Place) -> Option<&[u8]> {
        let from = usize::try_from(place.offset.checked_sub(self.ram_start)?).ok()?;
        let segment = self.segments.get(from / self.segment)?;
        let within = from % self.segment;
        let record = segment.get(within..within + place.len as usize)?;
        (record.as_ptr().align_offset(8) == 0).then_some(record)
    }

    /// The record at `place`, 8-byte aligned: in place when it lies in one RAM segment, else
    /// read into `scratch` and, when `sum` is not 0, checked against it ([`record_sum`]): a
    /// record read back from a file that a crash or a disk may have damaged is an error,
    /// never a silently different document.
    pub fn get<'a>(
        &'a self,
        place: Place,
        scratch: &'a mut Vec<u64>,
        sum: u32,
    ) -> io::Result<&'a [u8]> {
        if let Some(record) = self.in_ram(place) {
            return Ok(record);
        }
        let len = place.len as usize;
        scratch.clear();
        scratch.resize(len.div_ceil(8), 0);
        let buf = &mut bytemuck::cast_slice_mut::<u64, u8>(scratch)[..len];
        self.read_into(place.offset, buf)?;
        if sum != 0 && record_sum(buf) != sum {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a record of the index in {} is damaged (checksum mismatch at byte {})",
                    self.index_dir()
                        .map_or("?".into(), |d| d.display().to_string()),
                    place.offset
                ),
            ));
        }
        Ok(buf)
    }

    /// Reads the record at `place` into `out` (replacing its content).
    #[cfg(test)]
    pub fn read(&self, place: Place, out: &mut Vec<u8>) -> io::Result<()> {
        out.clear();
        out.resize(place.len as usize, 0);
        self.read_into(place.offset, out)
    }

    /// Fills `out` with the bytes from `offset` on.
    fn read_into(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let len = out.len();
        let mut at = offset;
        let mut filled = 0;
        if at < self.ram_start {
            let n = len.min((self.ram_start - at) as usize);
            let file = self
                .file
                .as_ref()
                .ok_or_else(|| io::Error::other("a spilled record without a spill file"))?;
            file.read_exact_at(&mut out[..n], at)?;
            filled = n;
            at += n as u64;
        }
        while filled < len {
            let from_start = (at - self.ram_start) as usize;
            let segment = &self.segments[from_start / self.segment];
            let within = from_start % self.segment;
            let n = (len - filled).min(segment.len() - within);
            out[filled..filled + n].copy_from_slice(&segment[within..within + n]);
            filled += n;
            at += n as u64;
        }
        Ok(())
    }

    /// Asks the CPU to start loading the first `lines` cache lines of the record at `place`,
    /// when it is in RAM.
    #[inline]
    pub(crate) fn prefetch(&self, place: Place, lines: usize) {
        if place.offset < self.ram_start {
            return;
        }
        let from = (place.offset - self.ram_start) as usize;
        if let Some(segment) = self.segments.get(from / self.segment) {
            let within = from % self.segment;
            let end = (within + place.len as usize).min(segment.len());
            crate::prefetch::prefetch_slice(&segment[within..end], lines);
        }
    }

    /// Counts the record at `place` as garbage (its document left the window).
    pub fn freed(&mut self, place: Place) {
        self.garbage += u64::from(place.len);
    }

    /// True when evicted records are worth moving the held ones over: in RAM (no spill
    /// file) when they pass a quarter of the held ones, as they count against the memory
    /// budget; in a spill file when they outweigh the held ones (and [`MIN_GARBAGE`]), or
    /// when the file nears `--max-disk`.
    pub(crate) fn needs_compaction(&self) -> bool {
        let live = self.live_bytes();
        if self.settings.dir.is_none() {
            return self.garbage >= (self.segment as u64).max(live / 4);
        }
        let disk = self.settings.disk;
        let near_limit = disk > 0 && self.ram_start + 2 * self.segment as u64 > disk - disk / 8;
        (near_limit && self.garbage >= self.segment as u64)
            || (self.garbage >= MIN_GARBAGE && self.garbage > live)
    }

    /// Bytes of held records in the spill file, about: the held bytes less those in RAM
    /// (exact after a compaction; between two, evicted records are the oldest, which lie in
    /// the file).
    pub(crate) fn live_disk_bytes(&self) -> u64 {
        self.live_bytes()
            .saturating_sub(self.end - self.ram_start)
            .min(self.ram_start)
    }

    /// Moves the held records `places` (sorted by offset; updated) down over the garbage
    /// between them, in place, and ends the store after the last ([`Store::truncate`]).
    /// The moved bytes form one run from offset 0, written in large pieces; the spill file
    /// is read ahead in large pieces too, so a compaction costs a few system calls per
    /// megabyte, not two per record. A piece written ends before the next record to read
    /// begins (each record moves down), so nothing is overwritten before it is read.
    pub fn compact(&mut self, places: &mut [Place]) -> io::Result<()> {
        const PIECE: usize = 1 << 20;
        if self.index.is_some() {
            return self.rewrite(places);
        }
        let mut out: Vec<u8> = Vec::with_capacity(PIECE);
        let mut out_start = 0u64;
        let mut ahead: Vec<u8> = Vec::new();
        let mut ahead_start = 0u64;
        for place in places.iter_mut() {
            let (from, len) = (place.offset, place.len as usize);
            let to = out_start + out.len() as u64;
            debug_assert!(to <= from);
            if from + len as u64 <= self.ram_start {
                let cached =
                    from >= ahead_start && from + len as u64 <= ahead_start + ahead.len() as u64;
                if !cached {
                    let n = (PIECE.max(len) as u64).min(self.ram_start - from) as usize;
                    ahead.resize(n, 0);
                    self.read_into(from, &mut ahead)?;
                    ahead_start = from;
                }
                let at = (from - ahead_start) as usize;
                out.extend_from_slice(&ahead[at..at + len]);
            } else {
                let at = out.len();
                out.resize(at + len, 0);
                self.read_into(from, &mut out[at..])?;
            }
            place.offset = to;
            if out.len() >= PIECE {
                self.write_at(out_start, &out)?;
                out_start += out.len() as u64;
                out.clear();
            }
        }
        self.write_at(out_start, &out)?;
        self.truncate(out_start + out.len() as u64)
    }

    /// Overwrites appended bytes from `offset` on.
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let mut at = offset;
        let mut done = 0;
        if at < self.ram_start {
            let n = bytes.len().min((self.ram_start - at) as usize);
            let file = self
                .file
                .as_ref()
                .ok_or_else(|| io::Error::other("a spilled record without a spill file"))?;
            file.write_all_at(&bytes[..n], at)?;
            done = n;
            at += n as u64;
        }
        while done < bytes.len() {
            let from_start = (at - self.ram_start) as usize;
            let segment = &mut self.segments[from_start / self.segment];
            let within = from_start % self.segment;
            let n = (bytes.len() - done).min(segment.len() - within);
            segment[within..within + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
            at += n as u64;
        }
        Ok(())
    }

    /// Ends the store at `end`, after the held records were moved below it: what lay past it
    /// is gone (RAM segments back to the spare, the file cut), and no garbage is left.
    pub fn truncate(&mut self, end: u64) -> io::Result<()> {
        if end >= self.ram_start {
            let keep = (end - self.ram_start) as usize;
            while self.segments.len() > keep.div_ceil(self.segment) {
                let mut gone = self.segments.pop_back().expect("more segments than kept");
                if self.spare.is_none() {
                    gone.clear();
                    self.spare = Some(gone);
                }
            }
            let before_last = self.segments.len().saturating_sub(1) * self.segment;
            if let Some(last) = self.segments.back_mut() {
                last.truncate(keep - before_last);
            }
        } else {
            while let Some(mut gone) = self.segments.pop_back() {
                if self.spare.is_none() {
                    gone.clear();
                    self.spare = Some(gone);
                }
            }
            if let Some(file) = &self.file {
                file.set_len(end)?;
            }
            self.ram_start = end;
        }
        self.end = end;
        self.garbage = 0;
        Ok(())
    }

    /// Bytes of RAM the store holds (its segments).
    pub fn ram_bytes(&self) -> usize {
        self.segments.iter().map(Vec::capacity).sum::<usize>()
            + self.spare.as_ref().map_or(0, Vec::capacity)
    }

    /// Bytes in the spill file.
    pub(crate) fn disk_bytes(&self) -> u64 {
        self.ram_start
    }

    /// Bytes of records in RAM (held or freed, not yet compacted away).
    pub(crate) fn ram_records(&self) -> u64 {
        self.end - self.ram_start
    }

    /// Bytes of held (not freed) records.
    pub(crate) fn live_bytes(&self) -> u64 {
        self.end - self.garbage
    }

    /// Bytes the store holds in RAM at most with its present share (for tests).
    #[cfg(test)]
    pub(crate) fn ram_ceiling(&self) -> usize {
        match self.settings.dir {
            None => usize::MAX,
            Some(_) => (self.ram_segments() + 1).saturating_mul(self.segment),
        }
    }

    /// Bytes per RAM segment (what the spill file grows by).
    pub(crate) fn segment_bytes(&self) -> usize {
        self.segment
    }
}

/// Whether a spill file can be made in `dir`: one is created and dropped.
pub(crate) fn check_spill_dir(dir: &Path) -> io::Result<()> {
    create_unlinked(dir).map(drop)
}

/// A new file in `dir`, already unlinked: only this process' descriptor reaches it.
fn create_unlinked(dir: &Path) -> io::Result<File> {
    for _ in 0..100 {
        let name = format!(
            ".neardup-spill-{}-{}",
            std::process::id(),
            FILES.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free spill file name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records() -> Vec<Vec<u8>> {
        let mut rng = crate::hash::test_rng(3);
        (0..3000)
            .map(|i| (0..rng(2000) as usize).map(|j| (i + j) as u8).collect())
            .collect()
    }

    #[test]
    fn the_ram_lent_to_records_stays_within_the_windows_budget() {
        let share = 16 << 20;
        let mut store = Store::new(StoreSettings {
            dir: Some(std::env::temp_dir()),
            ram: share,
            disk: 0,
            index: None,
        });
        // Small indexes: four times the share, less the indexes.
        store.adapt(1 << 20, 0);
        assert_eq!(store.settings().ram, 4 * share - (1 << 20));
        store.adapt(1 << 20, 128 << 20);
        assert_eq!(store.settings().ram, 4 * share - (1 << 20));
        // A window given 40 MiB lends its records what the indexes leave of it.
        store.adapt(1 << 20, 40 << 20);
        assert_eq!(store.settings().ram, 39 << 20);
        // Never less than the share itself (the budget's check then limits the window).
        store.adapt(30 << 20, 40 << 20);
        assert_eq!(store.settings().ram, share);
    }

    #[test]
    fn records_read_back_from_ram_and_disk() {
        let dir = std::env::temp_dir().join(format!("neardup-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Segments of 4,096 bytes, of 4,099 (records cross them at odd places), of 1 MiB;
        // each with new segments prepared by a chores thread and without.
        let cases = [(false, 0), (true, 0), (true, 4 * 4099), (true, MAX_SEGMENT)];
        for ((spill, ram), chores) in cases.into_iter().flat_map(|c| [(c, false), (c, true)]) {
            let mut store = Store::new(StoreSettings {
                dir: spill.then(|| dir.clone()),
                ram,
                disk: 0,
                index: None,
            });
            if chores {
                store = store.with_chores();
                assert!(store.chores().is_some());
            }
            let records = records();
            // Every other record written in place: into the newest segment when it fits
            // there, else through the scratch buffer, across segments.
            let mut scratch = Vec::new();
            let places: Vec<Place> = records
                .iter()
                .enumerate()
                .map(|(i, r)| match i % 2 {
                    0 => store.append(r).unwrap(),
                    _ => store
                        .append_with(r.len(), |out| out.extend_from_slice(r), &mut scratch)
                        .unwrap(),
                })
                .collect();
            assert_eq!(store.disk_bytes() > 0, spill);
            assert!(!spill || store.ram_bytes() <= store.ram_ceiling());
            let mut out = Vec::new();
            for (r, p) in records.iter().zip(&places) {
                store.read(*p, &mut out).unwrap();
                assert_eq!(&out, r);
                let mut scratch = Vec::new();
                assert_eq!(store.get(*p, &mut scratch, record_sum(r)).unwrap(), &r[..]);
            }
        }
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "spill files are unlinked"
        );
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_disk_limit_is_an_error_not_a_panic() {
        let mut store = Store::new(StoreSettings {
            dir: Some(std::env::temp_dir()),
            ram: 0,
            disk: 1,
            index: None,
        });
        let record = vec![7u8; MIN_SEGMENT];
        store.append(&record).unwrap();
        let e = store.append(&record).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    }

    /// Records freed at random and the rest moved down in place, in RAM and across the
    /// spill file's boundary: every held record reads back whole, the store ends at the
    /// last, the file shrinks with it, and appending goes on.
    #[test]
    fn compaction_in_place_keeps_every_held_record() {
        let dir = std::env::temp_dir();
        for (spill, ram) in [(false, 0), (true, 0), (true, 64 << 10)] {
            let mut store = Store::new(StoreSettings {
                dir: spill.then(|| dir.clone()),
                ram,
                disk: 0,
                index: None,
            });
            let records = records();
            let mut held: Vec<(usize, Place)> = records
                .iter()
                .enumerate()
                .map(|(i, r)| (i, store.append(r).unwrap()))
                .collect();
            let mut rng = crate::hash::test_rng(9);
            held.retain(|&(_, place)| {
                let keep = rng(3) == 0;
                if !keep {
                    store.freed(place);
                }
                keep
            });
            let before = store.disk_bytes();
            held.sort_by_key(|&(_, p)| p.offset);
            let mut places: Vec<Place> = held.iter().map(|&(_, p)| p).collect();
            store.compact(&mut places).unwrap();
            for (h, p) in held.iter_mut().zip(&places) {
                h.1 = *p;
            }
            let end: u64 = places.iter().map(|p| u64::from(p.len)).sum();
            assert_eq!(store.live_bytes(), end);
            assert!(!spill || store.disk_bytes() <= before.min(end));
            let mut out = Vec::new();
            for &(i, place) in &held {
                store.read(place, &mut out).unwrap();
                assert_eq!(out, records[i], "record {i} (spill {spill}, ram {ram})");
            }
            let more = store.append(&records[0]).unwrap();
            assert_eq!(more.offset, end);
            store.read(more, &mut out).unwrap();
            assert_eq!(out, records[0]);
        }
    }

    #[test]
    fn garbage_is_counted() {
        let mut store = Store::new(StoreSettings::default());
        let p = store
            .append(&vec![1u8; (MIN_GARBAGE as usize) + 10])
            .unwrap();
        let q = store.append(&[2u8; 5]).unwrap();
        assert!(!store.needs_compaction());
        store.freed(p);
        assert!(store.needs_compaction());
        assert_eq!(store.live_bytes(), u64::from(q.len));
    }
}
