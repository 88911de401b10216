//! The single-file state of versions 2–7 (what `--state FILE` saved before the index
//! directory, [`super::index`]): still read, and converted to an index at the first save.
//!
//!
//! A state holds everything the sequencer needs to continue as if the stream had never
//! stopped: every windowed document (sequence number, id, sorted shingle fingerprints,
//! weights, kept text, compact signature, band keys, exact-index hash) in least-recently-used
//! order, the number of input lines consumed (line numbers and line ids continue from it), the
//! frozen IDF table of `--weights tfidf`, the filter's family summaries (which make the
//! family keys of the documents to come), the order of its limited buckets (which their
//! refreshes shaped), and the settings that shaped all of it.
//!
//! ```text
//! "NDSTATE\0" | u32 version | u32 len, settings (UTF-8) | u64 lines | u64 written
//!   | u64 len, IDF table (the `neardup idf` file format; 0 = none)
//!   | u64 documents | documents… | u64 xxh3-64 of every byte before it
//! document: u64 seq | id (u8 0 + u64 line | u8 1 string | u8 2 number; strings u32 len + UTF-8)
//!   | u32 n + n × u32 shingle fingerprints | u32 n + n × f32 weights | f64 total weight
//!   | u32 n + UTF-8 text | u32 n + n × u32 signature | u32 n + n × u64 band keys
//!   | u8 0, or u8 1 (in the exact-copy index) | u128 hash of the normalised text
//!   | 4 × u64 sketch (version 4 on; see `crate::sketch::lsh::Sketch`)
//! version 5 on, after the documents: u64 len, the family summaries
//!   (`crate::window::Family::write_to`)
//! version 6 on, then: u64 len, the limited buckets' order: u32 n + n × (u8 table | u32 key
//!   top bits | u32 protected | u32 m + m × u32 member, as its place among the documents
//!   above, from 0) (`crate::window::bucket_order::SavedBucket`)
//! version 7 on, after `written`: u64 the window's capacity | u8 why it evicts (0 it does not
//!   or `--window`, 1 memory, 2 memory refused, 3 disk) | u64 len, the output decided but not
//!   written when the run stopped (a closed pipe, a signal), written first on resume
//! ```
//! All integers are little-endian. Saving writes a temporary file beside the target, fsyncs
//! it, renames it over the target and fsyncs the directory: a crash while saving leaves the
//! previous state intact. Loading checks the magic, version, every length against the bytes
//! left (a corrupted length cannot make it allocate more than the file holds), UTF-8, and
//! finally the checksum before anything is used; every failure is a usage error naming the
//! file and the reason.

use super::saved::{Saved, conflict, limit_of, settings};
#[cfg(test)]
use super::saved::{limit_byte, temporary_path};
use crate::config::{Config, Weights};
use crate::error::{Error, Result};
use crate::input::DocId;
use crate::job::Job;
use crate::sketch::weights::IdfTable;
use crate::window::bucket_order::SavedBucket;
use crate::window::{Entry, Family, UNKNOWN_SKETCH, Window, WindowSettings};
use std::fs::File;
use std::io::{BufReader, Read};
#[cfg(test)]
use std::io::{BufWriter, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

const MAGIC: &[u8; 8] = b"NDSTATE\0";
const VERSION: u32 = 7;
/// The version before the window's capacity and the unwritten output were kept; still read.
const VERSION_WITHOUT_CAPACITY: u32 = 6;
/// The version before the order of the limited buckets was kept; still read (the buckets get
/// the order of the documents' insertion).
const VERSION_WITHOUT_BUCKET_ORDER: u32 = 5;
/// The version before the family summaries were kept; still read (the summaries start empty).
const VERSION_WITHOUT_FAMILY: u32 = 4;
/// The version before each document's sketch was kept; still read (its documents rank as
/// [`crate::window::UNKNOWN_SKETCH`]).
const VERSION_WITHOUT_SKETCH: u32 = 3;
/// The version before the output line count (`written`) was kept either; still read.
const VERSION_WITHOUT_WRITTEN: u32 = 2;

/// Writes a single-file state (version 7) atomically to `path` (temporary file, fsync,
/// rename, fsync directory): what runs saved before the index directory, kept to test that
/// they still load.
#[cfg(test)]
pub(super) fn save_file(
    path: &Path,
    settings: &str,
    window: &Window,
    lines: u64,
    written: u64,
    idf: Option<&IdfTable>,
    pending: &[u8],
) -> Result<()> {
    let name = path.display().to_string();
    let io = |what: &str, e| Error::io(format!("{what} {name}"), e);
    let (dir, tmp) = temporary_path(path)?;
    let result = (|| -> std::io::Result<()> {
        let file = File::create(&tmp)?;
        let mut w = Hashing::new(BufWriter::with_capacity(1 << 20, file));
        write_body(&mut w, settings, window, (lines, written), idf, pending)?;
        let sum = w.hash.digest();
        let mut inner = w.inner;
        inner.write_all(&sum.to_le_bytes())?;
        let file = inner.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // The rename is durable only once the directory is synced (not possible everywhere).
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io("saving state to", e));
    }
    Ok(())
}

#[cfg(test)]
fn write_body<W: Write>(
    w: &mut Hashing<W>,
    settings: &str,
    window: &Window,
    (lines, written): (u64, u64),
    idf: Option<&IdfTable>,
    pending: &[u8],
) -> std::io::Result<()> {
    w.put(MAGIC)?;
    w.put(&VERSION.to_le_bytes())?;
    w.put(&(settings.len() as u32).to_le_bytes())?;
    w.put(settings.as_bytes())?;
    w.put(&lines.to_le_bytes())?;
    w.put(&written.to_le_bytes())?;
    w.put(&(window.capacity() as u64).to_le_bytes())?;
    w.put(&[limit_byte(window.limited())])?;
    w.put(&(pending.len() as u64).to_le_bytes())?;
    w.put(pending)?;
    let mut idf_bytes = Vec::new();
    if let Some(table) = idf {
        table.write_to(&mut idf_bytes)?;
    }
    w.put(&(idf_bytes.len() as u64).to_le_bytes())?;
    w.put(&idf_bytes)?;
    w.put(&(window.len() as u64).to_le_bytes())?;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut e = Entry::default();
    for held in window.oldest_first() {
        window.load(held, &mut e)?;
        let seq = held.seq;
        buf.clear();
        buf.extend_from_slice(&seq.to_le_bytes());
        match &e.id {
            DocId::Line(n) => {
                buf.push(0);
                buf.extend_from_slice(&n.to_le_bytes());
            }
            DocId::Str(s) | DocId::Num(s) => {
                buf.push(if matches!(e.id, DocId::Str(_)) { 1 } else { 2 });
                put_bytes(&mut buf, s.as_bytes());
            }
        }
        put_items(&mut buf, &e.shingles, u32::to_le_bytes);
        put_items(&mut buf, &e.weights, f32::to_le_bytes);
        buf.extend_from_slice(&e.total_weight.to_le_bytes());
        put_bytes(&mut buf, e.text.as_bytes());
        put_items(&mut buf, &e.signature, u32::to_le_bytes);
        put_items(&mut buf, &e.band_keys, u64::to_le_bytes);
        buf.push(u8::from(e.copy_key.is_some()));
        buf.extend_from_slice(&e.text_hash.to_le_bytes());
        for word in e.sketch {
            buf.extend_from_slice(&word.to_le_bytes());
        }
        w.put(&buf)?;
    }
    let mut family = Vec::new();
    window.family().write_to(&mut family);
    w.put(&(family.len() as u64).to_le_bytes())?;
    w.put(&family)?;
    let mut order = Vec::new();
    window.write_bucket_order(&mut order);
    w.put(&(order.len() as u64).to_le_bytes())?;
    w.put(&order)?;
    Ok(())
}

#[cfg(test)]
/// A u32 count, then each item little-endian.
fn put_items<T: Copy, const N: usize>(buf: &mut Vec<u8>, items: &[T], to_le: fn(T) -> [u8; N]) {
    buf.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for &v in items {
        buf.extend_from_slice(&to_le(v));
    }
}

#[cfg(test)]
fn put_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    buf.extend_from_slice(bytes);
}

#[cfg(test)]
/// A writer that hashes what passes through it.
struct Hashing<W> {
    inner: W,
    hash: Xxh3,
}

#[cfg(test)]
impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Self {
        Hashing {
            inner,
            hash: Xxh3::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)
    }
}

/// True when `head` (a file's first bytes) begins as a state file does.
pub(crate) fn has_magic(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// Loads a single-file state (version 2–7).
pub(super) fn load_file(
    path: &Path,
    config: &Config,
    job: &Job,
    shingling: &str,
    window: WindowSettings,
) -> Result<Option<Saved>> {
    let name = path.display().to_string();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("opening {name}"), e)),
    };
    let len = file
        .metadata()
        .map_err(|e| Error::io(format!("reading {name}"), e))?
        .len();
    let bad = |why: String| Error::config("state", format!("{name}: {why}"));
    if len < 8 + 4 + 8 {
        // A short file that starts as ours was cut; anything else is not ours at all.
        let mut head = [0u8; 8];
        let ours = std::io::Read::read_exact(&mut &file, &mut head).is_ok() && &head == MAGIC;
        return Err(bad(if ours {
            "truncated: the file ends inside its header".into()
        } else {
            "not a neardup state file (made by 'neardup ‹state›')".into()
        }));
    }
    let mut r = Reader {
        inner: BufReader::with_capacity(1 << 20, file),
        hash: Xxh3::new(),
        left: len - 8,
        name: &name,
    };
    if &r.array::<8>()? != MAGIC {
        return Err(bad(
            "not a neardup state file (made by 'neardup ‹state›')".into()
        ));
    }
    let version = u32::from_le_bytes(r.array()?);
    if !(VERSION_WITHOUT_WRITTEN..=VERSION).contains(&version) {
        return Err(bad(format!(
            "state file version {version}; this neardup reads version {VERSION}"
        )));
    }
    let saved_settings = r.string()?;
    let lines = r.u64()?;
    let written = match version {
        VERSION_WITHOUT_WRITTEN => None,
        _ => Some(r.u64()?),
    };
    // A window that evicted for want of memory or disk keeps the capacity it settled on, so
    // that a resumed run holds what one run would (a new count under the budget would
    // differ: the loaded window's tables are sized at once, not grown).
    let mut limit = None;
    let mut pending = Vec::new();
    if version > VERSION_WITHOUT_CAPACITY {
        let capacity = r.u64()?;
        let why = limit_of(r.array::<1>()?[0]);
        if let Some(why) = why
            && window.capacity == 0
        {
            limit = Some((usize::try_from(capacity).unwrap_or(usize::MAX).max(1), why));
        }
        let len = r.u64()?;
        pending = r.bytes(len, 1)?;
    }
    let idf_len = r.u64()?;
    let idf_bytes = r.bytes(idf_len, 1)?;
    let count = r.u64()?;
    // Everything is read before the checksum is known, but nothing is used before it is
    // checked. Each document takes at least 40 bytes, so a corrupt count fails here.
    if count > r.left / 40 {
        return Err(bad("document count does not match the file length".into()));
    }
    // Documents go into the window as they are read (holding them all first would cost
    // their whole size in RAM); it is dropped if the checks below fail.
    let keep = match window.capacity {
        0 => count as usize,
        n => n.min(count as usize),
    };
    // Its records are spilled, not written to an index: the path is this file.
    let mut window = Window::with_settings(WindowSettings {
        store: crate::window::StoreSettings {
            index: None,
            ..window.store
        },
        ..window
    });
    if let Some((capacity, why)) = limit {
        window.resume_limit(capacity, why);
    }
    window.reserve(keep, keep * config.sketch.lsh.bands);
    // The documents' sequence numbers in the file's order (the buckets' order names them).
    let mut documents = Vec::with_capacity(keep);
    for _ in 0..count {
        let (seq, entry) = r.entry(version <= VERSION_WITHOUT_SKETCH)?;
        documents.push(seq);
        window
            .insert(seq, entry)
            .map_err(|e| Error::io(format!("loading {name} into the window"), e))?;
    }
    if version > VERSION_WITHOUT_FAMILY {
        let len = r.u64()?;
        let bytes = r.bytes(len, 1)?;
        let family = Family::read_from(&bytes)
            .ok_or_else(|| bad("the family summaries are malformed".into()))?;
        window.set_family(family);
    }
    let order = match version > VERSION_WITHOUT_BUCKET_ORDER {
        true => {
            let len = r.u64()?;
            let bytes = r.bytes(len, 1)?;
            SavedBucket::read_all(&bytes, &documents)
                .ok_or_else(|| bad("the order of the buckets is malformed".into()))?
        }
        false => Vec::new(),
    };
    if r.left != 0 {
        return Err(bad("trailing bytes after the last document".into()));
    }
    let computed = r.hash.digest();
    let mut sum = [0u8; 8];
    r.inner
        .read_exact(&mut sum)
        .map_err(|e| Error::io(format!("reading {name}"), e))?;
    if u64::from_le_bytes(sum) != computed {
        return Err(bad(
            "checksum mismatch: the file is truncated or corrupted".into()
        ));
    }
    let expected = settings(config, job, shingling);
    if *saved_settings != *expected {
        return Err(conflict(&name, &saved_settings, &expected));
    }
    window.restore_buckets(&order);
    let idf = if idf_bytes.is_empty() {
        None
    } else {
        Some(IdfTable::read_from(
            &idf_bytes[..],
            &format!("{name} (IDF table)"),
        )?)
    };
    if config.sketch.weights == Weights::TfIdf && idf.is_none() {
        return Err(bad("the state has no IDF table".into()));
    }

    Ok(Some(Saved {
        lines,
        written,
        idf,
        window,
        pending,
    }))
}

/// Reads the state file, hashing every byte and never past the checksum.
struct Reader<'a, R> {
    inner: R,
    hash: Xxh3,
    /// Bytes left before the checksum.
    left: u64,
    name: &'a str,
}

impl<R: Read> Reader<'_, R> {
    fn truncated(&self) -> Error {
        Error::config(
            "state",
            format!(
                "{}: truncated or corrupted (a length runs past the end)",
                self.name
            ),
        )
    }

    fn fill(&mut self, buf: &mut [u8]) -> Result<()> {
        if buf.len() as u64 > self.left {
            return Err(self.truncated());
        }
        self.inner
            .read_exact(buf)
            .map_err(|e| Error::io(format!("reading {}", self.name), e))?;
        self.left -= buf.len() as u64;
        self.hash.update(buf);
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        self.fill(&mut a)?;
        Ok(a)
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// `n` items of `size` bytes, refused before allocating when they cannot fit.
    fn bytes(&mut self, n: u64, size: u64) -> Result<Vec<u8>> {
        let total = n.checked_mul(size).ok_or_else(|| self.truncated())?;
        if total > self.left {
            return Err(self.truncated());
        }
        let mut v = vec![0u8; total as usize];
        self.fill(&mut v)?;
        Ok(v)
    }

    fn string(&mut self) -> Result<Box<str>> {
        let n = self.u32()?;
        let v = self.bytes(n.into(), 1)?;
        String::from_utf8(v)
            .map(String::into_boxed_str)
            .map_err(|_| {
                Error::config(
                    "state",
                    format!("{}: corrupted (a string is not UTF-8)", self.name),
                )
            })
    }

    /// What [`put_items`] wrote.
    fn items<T, const N: usize>(&mut self, from_le: fn([u8; N]) -> T) -> Result<Vec<T>> {
        let n = self.u32()?;
        let v = self.bytes(n.into(), N as u64)?;
        Ok(v.chunks_exact(N)
            .map(|c| from_le(c.try_into().expect("N bytes")))
            .collect())
    }

    fn entry(&mut self, without_sketch: bool) -> Result<(u64, Entry)> {
        let seq = self.u64()?;
        let id = match self.array::<1>()?[0] {
            0 => DocId::Line(self.u64()?),
            1 => DocId::Str(self.string()?.into()),
            2 => DocId::Num(self.string()?.into()),
            t => {
                return Err(Error::config(
                    "state",
                    format!("{}: corrupted (id tag {t})", self.name),
                ));
            }
        };
        let shingles = self.items(u32::from_le_bytes)?;
        let weights = self.items(f32::from_le_bytes)?;
        let total_weight = f64::from_le_bytes(self.array()?);
        let text = self.string()?.into();
        let signature = self.items(u32::from_le_bytes)?;
        let band_keys = self.items(u64::from_le_bytes)?;
        let indexed = match self.array::<1>()?[0] {
            t @ (0 | 1) => t == 1,
            t => {
                return Err(Error::config(
                    "state",
                    format!("{}: corrupted (exact tag {t})", self.name),
                ));
            }
        };
        let text_hash = u128::from_le_bytes(self.array()?);
        let copy_key = indexed.then_some(text_hash);
        let mut sketch = UNKNOWN_SKETCH;
        if !without_sketch {
            for word in &mut sketch {
                *word = u64::from_le_bytes(self.array()?);
            }
        }
        Ok((
            seq,
            Entry {
                id,
                shingles,
                weights,
                total_weight,
                text,
                signature,
                band_keys,
                copy_key,
                text_hash,
                sketch,
            },
        ))
    }
}
