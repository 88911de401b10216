//! `--state DIR`: the saved window as an index directory that is opened, not reloaded, and
//! saved by appending.
//!
//! ```text
//! DIR/records.R   the held documents' records (the window's store): appended to, never
//!                 overwritten below what the manifest names; a compaction writes the held
//!                 ones to records.R+1
//! DIR/tables.T    the window's tables (crate::window image: slots, recency, buckets, copy
//!                 index, family summaries), written whole now and then
//! DIR/log.T       what changed in tables.T since (crate::window journal segments), appended
//!                 to at the other saves
//! DIR/manifest    "NDINDEX\0" | u32 version | u32 len, settings | u64 lines | u64 written
//!                 | u64 capacity | u8 why it evicts | u64 len, pending output | u64 len, IDF
//!                 table | u64 R | u64 records end | u64 garbage | u64 T | u64 tables length
//!                 | u64 xxh3-64 of the tables | u64 documents | u64 log length
//!                 | u64 documents inserted by the log | u64 xxh3-64 of all before
//! ```
//! A save appends the records added since the last one and syncs them; then either appends
//! the window's journal to `log.T` (cut first to the length the manifest names) and syncs
//! it, or writes the tables whole to a new `tables.T+1` (no log yet) and syncs it; then it
//! replaces the manifest atomically (temporary file, sync, rename, sync of the directory)
//! and only then removes the files it no longer names. A crash at any point leaves a
//! manifest naming complete files and lengths; a writer opening the index cuts what a
//! crashed run appended after the records' end and removes unnamed files.
//!
//! The tables are written whole when the window has no journal of every change since they
//! were (the first save, a compaction, a window rebuilt under a memory budget), when the log
//! would outgrow them (or a run's changes pass a quarter of them), and at the first save of
//! a run that opened a log longer than [`FOLD`]th of them: each save costs what the run
//! changed, and an opening replays at most that share of the tables (except once, after a
//! crash of a run that checkpointed).
//!
//! Opening reads the manifest and the log and checks the tables against their checksum (each
//! read through the page cache), maps the tables copy-on-write ([`Image`]: a run reads the
//! pages of the slots and cells it touches, not the whole tables), replays the log, and
//! leaves the records in their file, read when a candidate needs one. Tables of versions 8
//! and 9 ([`Layout::Fields`]) are read into RAM instead, and a writer writes them whole in
//! today's layout at its first save.

use super::disk::{Hashing, WriteBehind, checksum, refuse_foreign, sync_dir};
use super::saved::{Saved, conflict, limit_byte, limit_of};
use crate::config::{Config, Weights};
use crate::error::{Error, Result};
use crate::sketch::weights::IdfTable;
use crate::window::store::{UNSAVED, mark_unsaved, open_no_follow};
use crate::window::{Image, Layout, Limit, Store, Window, WindowSettings, store::records_path};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

const MAGIC: &[u8; 8] = b"NDINDEX\0";
/// Index versions follow the state file's (7 was the last single file).
pub(crate) const VERSION: u32 = 10;
/// The version before the tables were laid out to be mapped (read into RAM; a writer
/// writes them whole at its first save, in today's layout).
const VERSION_WITHOUT_MAPPING: u32 = 9;
/// The version before the log (read as an index with an empty log).
const VERSION_WITHOUT_LOG: u32 = 8;
/// A run that opens a log longer than this share of its tables (1/FOLD) writes the tables
/// whole at its first save: replaying a log costs about eight times what reading as many
/// bytes of tables does (docs/performance.md), so an opening spends at most about an eighth
/// more on the log than on the tables.
pub(crate) const FOLD: u64 = 64;

/// The room a journal following tables of `tables_len` bytes and a log of `log_len` has:
/// what keeps the log shorter than the tables, and at most a quarter of them in RAM (a run
/// that inserts many documents writes the tables whole instead of holding their changes).
fn journal_room(tables_len: u64, log_len: u64) -> usize {
    tables_len.saturating_sub(log_len).min(tables_len / 4) as usize
}
pub(super) const MANIFEST: &str = "manifest";

/// What a manifest says.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// What shaped the window ([`super::saved::settings`]).
    pub settings: String,
    /// Input lines consumed by the runs that made it.
    pub lines: u64,
    /// Output lines those runs wrote (with the pending ones).
    pub written: u64,
    /// The window's capacity (0: none).
    pub capacity: u64,
    /// Why the window evicts, when no `--window` said so.
    pub limit: Option<Limit>,
    /// Output decided but not written when the run stopped.
    pub pending: Vec<u8>,
    /// The IDF table of `--weights tfidf` (empty: none).
    pub idf: Vec<u8>,
    /// The records file's generation (`records.R`).
    pub records: u64,
    /// Where the saved records end in it.
    pub records_end: u64,
    /// Bytes of records below that end no longer used: evicted documents', and the old
    /// records of documents keyed again (the family summaries' warm-up, when an index
    /// saved before 512 documents is resumed).
    pub garbage: u64,
    /// The tables file's generation (`tables.T`).
    pub tables: u64,
    /// Its length.
    pub tables_len: u64,
    /// Its xxh3-64.
    pub tables_sum: u64,
    /// Documents held.
    pub documents: u64,
    /// Bytes of `log.T` that follow the tables (0: none).
    pub log_len: u64,
    /// Documents the log inserts.
    pub log_inserts: u64,
    /// Its version ([`VERSION`] once saved by this build).
    pub version: u32,
    /// How the tables are laid out (what the version says; a save writes today's).
    pub layout: Layout,
}

fn tables_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("tables.{generation}"))
}

fn log_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("log.{generation}"))
}

/// Reads and checks `DIR/manifest`; `None` when there is none.
pub(crate) fn read_manifest(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(MANIFEST);
    let name = dir.display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    let bad = |why: &str| Error::config("state", format!("{name}: {why}"));
    if !bytes.starts_with(MAGIC) {
        return Err(bad("its manifest is not a neardup index manifest"));
    }
    if bytes.len() < 8 + 4 + 8 {
        return Err(bad("its manifest is truncated"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != sum {
        return Err(bad(
            "checksum mismatch in its manifest: truncated or corrupted",
        ));
    }
    let mut b = &body[8..];
    let version = u32::from_le_bytes(take(&mut b)?);
    if !(VERSION_WITHOUT_LOG..=VERSION).contains(&version) {
        return Err(bad(&format!(
            "index version {version}; this neardup reads version {VERSION}"
        )));
    }
    let u64_of = |b: &mut &[u8]| take::<8>(b).map(u64::from_le_bytes);
    let n = u32::from_le_bytes(take(&mut b)?) as usize;
    let settings = String::from_utf8(bytes_of(&mut b, n)?.to_vec())
        .map_err(|_| bad("its manifest is corrupted (settings not UTF-8)"))?;
    let lines = u64_of(&mut b)?;
    let written = u64_of(&mut b)?;
    let capacity = u64_of(&mut b)?;
    let limit = limit_of(take::<1>(&mut b)?[0]);
    let n = u64_of(&mut b)? as usize;
    let pending = bytes_of(&mut b, n)?.to_vec();
    let n = u64_of(&mut b)? as usize;
    let idf = bytes_of(&mut b, n)?.to_vec();
    let mut m = Manifest {
        settings,
        lines,
        written,
        capacity,
        limit,
        pending,
        idf,
        records: u64_of(&mut b)?,
        records_end: u64_of(&mut b)?,
        garbage: u64_of(&mut b)?,
        tables: u64_of(&mut b)?,
        tables_len: u64_of(&mut b)?,
        tables_sum: u64_of(&mut b)?,
        documents: u64_of(&mut b)?,
        log_len: 0,
        log_inserts: 0,
        version,
        layout: match version {
            VERSION_WITHOUT_LOG | VERSION_WITHOUT_MAPPING => Layout::Fields,
            _ => Layout::InPlace,
        },
    };
    if version > VERSION_WITHOUT_LOG {
        m.log_len = u64_of(&mut b)?;
        m.log_inserts = u64_of(&mut b)?;
    }
    if !b.is_empty() {
        return Err(bad("its manifest is corrupted (trailing bytes)"));
    }
    Ok(Some(m))
}

fn truncated() -> Error {
    Error::config("state", "an index manifest is truncated or corrupted")
}

fn take<const N: usize>(b: &mut &[u8]) -> Result<[u8; N]> {
    let (head, rest) = b.split_first_chunk::<N>().ok_or_else(truncated)?;
    *b = rest;
    Ok(*head)
}

fn bytes_of<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if n > b.len() {
        return Err(truncated());
    }
    let (head, rest) = b.split_at(n);
    *b = rest;
    Ok(head)
}

fn write_manifest(dir: &Path, m: &Manifest) -> std::io::Result<()> {
    let mut b = Vec::with_capacity(256 + m.pending.len() + m.idf.len());
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&(m.settings.len() as u32).to_le_bytes());
    b.extend_from_slice(m.settings.as_bytes());
    for v in [m.lines, m.written, m.capacity] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.push(limit_byte(m.limit));
    b.extend_from_slice(&(m.pending.len() as u64).to_le_bytes());
    b.extend_from_slice(&m.pending);
    b.extend_from_slice(&(m.idf.len() as u64).to_le_bytes());
    b.extend_from_slice(&m.idf);
    for v in [
        m.records,
        m.records_end,
        m.garbage,
        m.tables,
        m.tables_len,
        m.tables_sum,
        m.documents,
        m.log_len,
        m.log_inserts,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    let tmp = dir.join(format!(".{MANIFEST}.tmp{}", std::process::id()));
    let result = (|| {
        // A leftover (or a planted link) is removed, never written through.
        let _ = std::fs::remove_file(&tmp);
        let mut f = File::options().write(true).create_new(true).open(&tmp)?;
        f.write_all(&b)?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join(MANIFEST))?;
        sync_dir(dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// What a save records besides the window.
pub struct Progress<'a> {
    /// What shaped the window ([`super::saved::settings`]).
    pub settings: &'a str,
    /// Input lines consumed so far.
    pub lines: u64,
    /// Output lines written so far (with the pending ones).
    pub written: u64,
    /// The frozen IDF table of `--weights tfidf`.
    pub idf: Option<&'a IdfTable>,
    /// Output decided but not written.
    pub pending: &'a [u8],
}

/// Saves `window` as the index in `dir` (made if missing): appends its new records, writes
/// its tables and then the manifest; removes the files the manifest no longer names.
pub fn save(dir: &Path, window: &mut Window, p: &Progress) -> Result<()> {
    let name = dir.display().to_string();
    let io = |e| Error::io(format!("saving state to {name}"), e);
    match std::fs::create_dir(dir) {
        Ok(()) => sync_dir(
            dir.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(e)),
    }
    let old = read_manifest(dir).ok().flatten();
    // Until its manifest is in place, a first save's files are marked as such: a run that
    // finds them without the manifest (this one was killed) starts again, where a directory
    // with an index's files and no manifest or mark is a damaged index.
    if old.is_none() {
        mark_unsaved(dir).map_err(io)?;
    }
    let next = |g: Option<u64>| g.map_or(1, |g| g + 1);
    let (records, records_end, garbage) = window
        .sync_index(dir, next(old.as_ref().map(|m| m.records)))
        .map_err(io)?;
    // The journal follows the tables the last manifest names (and the records it names):
    // append it to their log, if the log stays shorter than them.
    let appended = match old.as_ref() {
        Some(m) if m.records == records && window.journal_base() == Some(m.tables) => {
            append_log(dir, m, window).map_err(io)?
        }
        _ => None,
    };
    let (tables, tables_len, tables_sum, log_len, log_inserts) = match (appended, old.as_ref()) {
        (Some(log_len), Some(m)) => (
            m.tables,
            m.tables_len,
            m.tables_sum,
            log_len,
            m.log_inserts + window.journal_inserts(),
        ),
        _ => {
            let tables = next(old.as_ref().map(|m| m.tables).max(largest(dir, "tables.")));
            let (len, sum) = write_tables(dir, tables, window).map_err(io)?;
            (tables, len, sum, 0, 0)
        }
    };
    let mut idf = Vec::new();
    if let Some(table) = p.idf {
        table.write_to(&mut idf).map_err(io)?;
    }
    let manifest = Manifest {
        settings: p.settings.to_string(),
        lines: p.lines,
        written: p.written,
        capacity: window.capacity() as u64,
        limit: window.limited(),
        pending: p.pending.to_vec(),
        idf,
        records,
        records_end,
        garbage,
        tables,
        tables_len,
        tables_sum,
        documents: window.len() as u64,
        log_len,
        log_inserts,
        version: VERSION,
        layout: Layout::InPlace,
    };
    write_manifest(dir, &manifest).map_err(io)?;
    let _ = std::fs::remove_file(dir.join(UNSAVED));
    window.index_committed();
    window.start_journal(tables, journal_room(tables_len, log_len));
    remove_unnamed(dir, old.as_ref(), &manifest);
    Ok(())
}

/// Appends `window`'s journal to the log of the tables `m` names, after the length `m`
/// gives it (what a failed or crashed save left after it is cut), and syncs it: the log's
/// new length, or `None` when it would outgrow the tables (they are then written whole).
fn append_log(dir: &Path, m: &Manifest, window: &Window) -> std::io::Result<Option<u64>> {
    let segment = window.journal_segment();
    let len = m.log_len + segment.len() as u64;
    if len > m.tables_len {
        return Ok(None);
    }
    let path = log_path(dir, m.tables);
    let new = m.log_len == 0;
    // Never through a planted link: the length set below would cut what it points to.
    let mut file = open_no_follow(
        File::options().create(true).truncate(false).write(true),
        &path,
    )?;
    file.set_len(m.log_len)?;
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(m.log_len))?;
    file.write_all(&segment)?;
    file.sync_all()?;
    if new {
        sync_dir(dir);
    }
    Ok(Some(len))
}

/// Writes `window`'s tables whole to `tables.{generation}` and syncs them: their length and
/// checksum. A failed write leaves no file.
fn write_tables(dir: &Path, generation: u64, window: &Window) -> std::io::Result<(u64, u64)> {
    let path = tables_path(dir, generation);
    (|| -> std::io::Result<(u64, u64)> {
        let file = WriteBehind::new(no_follow_create(&path)?);
        let mut w = Hashing::new(BufWriter::with_capacity(1 << 20, file));
        window.write_image(&mut w)?;
        let (inner, len, sum) = w.finish();
        let file = inner.into_inner().map_err(|e| e.into_error())?.into_file();
        file.sync_all()?;
        Ok((len, sum))
    })()
    .inspect_err(|_| {
        let _ = std::fs::remove_file(&path);
    })
}

/// Creates (or truncates) the index file `path`, never through a symbolic link.
pub(crate) fn no_follow_create(path: &Path) -> std::io::Result<File> {
    open_no_follow(
        File::options().write(true).create(true).truncate(true),
        path,
    )
}

/// The largest generation of the files named `prefix`N in `dir`.
fn largest(dir: &Path, prefix: &str) -> Option<u64> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix(prefix)?.parse().ok())
        .max()
}

/// Removes what the save that wrote `m` replaced: the files the manifest before it (`old`)
/// named and `m` does not, and the files a crashed save of this index left (generations
/// past those `old` named, which only a writer holding the lock makes) and its manifest
/// temporaries. Nothing else is touched, whatever its name: a file the index never listed
/// may be the user's.
fn remove_unnamed(dir: &Path, old: Option<&Manifest>, m: &Manifest) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let keep = [
        format!("records.{}", m.records),
        format!("tables.{}", m.tables),
        format!("log.{}", m.tables),
    ];
    let (records_before, tables_before) = old.map_or((0, 0), |o| (o.records, o.tables));
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let generation = |prefix: &str| name.strip_prefix(prefix)?.parse::<u64>().ok();
        let ours = match (
            generation("records."),
            generation("tables."),
            generation("log."),
        ) {
            (Some(g), _, _) => g >= records_before,
            (_, Some(g), _) | (_, _, Some(g)) => g >= tables_before,
            _ => name.starts_with(&format!(".{MANIFEST}.tmp")),
        };
        if ours && !keep.iter().any(|k| k == name) && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Opens the index in `dir` for a run with `config` whose settings are `expected` (`None`
/// when `dir` holds no manifest): the manifest and tables are read and checked, the records
/// stay in their file. `writable`: the run will save the index (it holds the lock: what a
/// crash left is cleaned); else it only reads it (`--against`) and never changes a file.
pub fn open(
    dir: &Path,
    expected: &str,
    config: &Config,
    window: WindowSettings,
    writable: bool,
) -> Result<Option<Saved>> {
    let name = dir.display().to_string();
    let Some((m, opened)) = open_window(dir, Some(expected), window, writable)? else {
        refuse_foreign(dir, MANIFEST)?;
        return Ok(None);
    };
    let idf = idf_of(&m, &name)?;
    if config.sketch.weights == Weights::TfIdf && idf.is_none() {
        return Err(Error::config(
            "state",
            format!("{name}: the index has no IDF table"),
        ));
    }
    Ok(Some(Saved {
        lines: m.lines,
        written: Some(m.written),
        idf,
        window: opened,
        pending: m.pending,
    }))
}

/// The IDF table a manifest holds, if any.
fn idf_of(m: &Manifest, name: &str) -> Result<Option<IdfTable>> {
    match m.idf.is_empty() {
        true => Ok(None),
        false => IdfTable::read_from(&m.idf[..], &format!("{name} (IDF table)")).map(Some),
    }
}

/// The manifest and window of the index in `dir` (`None` without a manifest), its settings
/// checked against `expected` when given.
fn open_window(
    dir: &Path,
    expected: Option<&str>,
    window: WindowSettings,
    writable: bool,
) -> Result<Option<(Manifest, Window)>> {
    let name = dir.display().to_string();
    // A reader may find the files of the manifest it read replaced by a writer's save
    // in between: it reads the new manifest.
    let mut tries = 0;
    loop {
        let Some(m) = read_manifest(dir)? else {
            return Ok(None);
        };
        if let Some(expected) = expected
            && m.settings != expected
        {
            return Err(conflict(&name, &m.settings, expected));
        }
        let records = records_path(dir, m.records);
        let tables = tables_path(dir, m.tables);
        let opened = File::options()
            .read(true)
            .write(writable)
            .open(&records)
            .and_then(|r| File::open(&tables).map(|t| (r, t)))
            .and_then(|(r, t)| Ok((r, t, read_log(dir, &m)?)));
        let (records_file, tables_file, log) = match opened {
            Ok(files) => files,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !writable && tries < 5 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let missing = [&records, &tables, &log_path(dir, m.tables)]
                    .into_iter()
                    .find(|p| !p.exists())
                    .map_or_else(|| name.clone(), |p| p.display().to_string());
                return Err(Error::config(
                    "state",
                    format!(
                        "{name} is a damaged index: {missing}, which its manifest lists, is \
                         missing (restore it from a backup, or give another directory to start \
                         a new index; nothing in {name} was changed)"
                    ),
                ));
            }
            Err(e) => return Err(Error::io(format!("opening the index {name}"), e)),
        };
        let bad = |why: String| Error::config("state", format!("{name}: {why}"));
        let lens = (
            records_file.metadata().map(|m| m.len()),
            tables_file.metadata().map(|m| m.len()),
        );
        match lens {
            (Ok(r), Ok(t)) if r >= m.records_end && t == m.tables_len => {}
            (Ok(_), Ok(_)) => {
                return Err(bad(
                    "its records or tables are shorter than its manifest says (truncated)".into(),
                ));
            }
            (Err(e), _) | (_, Err(e)) => {
                return Err(Error::io(format!("reading the index {name}"), e));
            }
        }
        if writable {
            remove_unnamed(dir, Some(&m), &m);
        }
        let store = Store::open_index(
            window.store.clone(),
            dir,
            m.records,
            records_file,
            (m.records_end, m.garbage),
            writable,
        )
        .map_err(|e| Error::io(format!("opening the index {name}"), e))?;
        let capacity = window.capacity;
        let settings = window.clone();
        // The checksum is read through the page cache, not the mapping, so that the pages
        // it passes are not the run's memory.
        match checksum(&tables_file) {
            Ok(sum) if sum == m.tables_sum => {}
            Ok(_) => {
                return Err(bad(
                    "checksum mismatch in its tables: truncated or corrupted".into(),
                ));
            }
            Err(e) => return Err(Error::io(format!("reading the index {name}"), e)),
        }
        crate::guard::mapping(&tables);
        let image = Image::map(&tables_file)
            .map_err(|e| Error::io(format!("mapping the index {name}'s tables"), e))?;
        let mut opened = Window::read_image(window, store, m.records_end, &image, m.layout)
            .map_err(|e| bad(e.to_string()))?;
        opened
            .replay_log(&log, m.records_end)
            .map_err(|e| bad(format!("its log: {e}")))?;
        if opened.len() as u64 != m.documents {
            return Err(bad(format!(
                "it holds {} documents, its manifest says {}",
                opened.len(),
                m.documents
            )));
        }
        if writable {
            opened.start_journal(m.tables, journal_room(m.tables_len, m.log_len));
            if m.log_len.saturating_mul(FOLD) > m.tables_len || m.layout != Layout::InPlace {
                // Replayed at this opening: written whole at the next save, so that the
                // next opening maps them without a replay. Tables of an earlier
                // layout are written whole in today's.
                opened.stop_journal();
            }
        }
        let mut opened = opened.settle(settings).map_err(|e| bad(e.to_string()))?;
        if let Some(why) = m.limit
            && capacity == 0
        {
            let capacity = usize::try_from(m.capacity).unwrap_or(usize::MAX).max(1);
            opened.resume_limit(capacity, why);
        }
        return Ok(Some((m, opened)));
    }
}

/// The log the manifest `m` names, read whole and checked against the length it gives (a
/// crashed save may have left more after it).
fn read_log(dir: &Path, m: &Manifest) -> std::io::Result<Vec<u8>> {
    if m.log_len == 0 {
        return Ok(Vec::new());
    }
    let mut file = File::open(log_path(dir, m.tables))?;
    if file.metadata()?.len() < m.log_len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "its log is shorter than its manifest says (truncated)",
        ));
    }
    let mut log = vec![0; usize::try_from(m.log_len).unwrap_or(usize::MAX)];
    file.read_exact(&mut log)?;
    Ok(log)
}

/// What `neardup state info` says of an index.
#[derive(Debug)]
pub struct Info {
    /// Its manifest.
    pub manifest: Manifest,
    /// Bytes of its records file (held and evicted records, and what a run appended after
    /// the last save).
    pub records_bytes: u64,
    /// Bytes of its tables file.
    pub tables_bytes: u64,
    /// RAM its window takes once opened (tables; the records stay on disk), besides
    /// `mapped_bytes`.
    pub ram_bytes: usize,
    /// Bytes of its tables mapped, not read: a run reads the pages it touches.
    pub mapped_bytes: usize,
    /// With `check`: a digest of the held documents (their sequence numbers and records, in
    /// recency order) and of the tables ([`Window::tables_digest`]), after every record was
    /// read back and checked against its checksum. Two indexes with the same digest hold the
    /// same documents and answer every lookup alike.
    pub digest: Option<u64>,
}

/// Reads the index in `dir` without changing it; with `check`, every record too.
pub fn info(dir: &Path, check: bool) -> Result<Info> {
    if !dir.is_dir() {
        return Err(not_an_index(dir));
    }
    let Some((m, window)) = open_window(dir, None, WindowSettings::default(), false)? else {
        return Err(not_an_index(dir));
    };
    let name = dir.display().to_string();
    let size = |p: PathBuf| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let digest = match check {
        false => None,
        true => {
            let mut hash = Xxh3::new();
            let mut entry = crate::window::Entry::default();
            for held in window.oldest_first() {
                window
                    .load(held, &mut entry)
                    .map_err(|e| Error::config("state", format!("{name}: {e}")))?;
                hash.update(&held.seq.to_le_bytes());
                hash.update(format!("{entry:?}").as_bytes());
            }
            let tables = window
                .tables_digest()
                .map_err(|e| Error::config("state", format!("{name}: {e}")))?;
            hash.update(&tables.to_le_bytes());
            Some(hash.digest())
        }
    };
    Ok(Info {
        records_bytes: size(records_path(dir, m.records)),
        tables_bytes: size(tables_path(dir, m.tables)),
        ram_bytes: window.ram_bytes() - window.mapped_bytes(),
        mapped_bytes: window.mapped_bytes(),
        manifest: m,
        digest,
    })
}

/// The error for a path that holds no index: a single-file state of an earlier version, or
/// anything else.
fn not_an_index(path: &Path) -> Error {
    let mut head = [0u8; 8];
    let old = File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && super::file::has_magic(&head);
    let name = path.display();
    Error::config(
        "state",
        match old {
            true => format!(
                "{name} is a single-file state of an earlier version: a run with ‹state› \
                 {name} turns it into an index"
            ),
            false => format!("{name} is not an index directory (it has no manifest)"),
        },
    )
}

/// Rewrites the index in `dir` without the records of evicted documents (the lock must be
/// held): returns the records file's bytes before and after.
pub fn compact(dir: &Path) -> Result<(u64, u64)> {
    if !dir.is_dir() {
        return Err(not_an_index(dir));
    }
    let Some((m, mut window)) = open_window(dir, None, WindowSettings::default(), true)? else {
        return Err(not_an_index(dir));
    };
    let name = dir.display().to_string();
    let before = std::fs::metadata(records_path(dir, m.records))
        .map(|m| m.len())
        .unwrap_or(0);
    window
        .compact_index()
        .map_err(|e| Error::io(format!("compacting {name} (it is left as it was)"), e))?;
    let idf = idf_of(&m, &name)?;
    save(
        dir,
        &mut window,
        &Progress {
            settings: &m.settings,
            lines: m.lines,
            written: m.written,
            idf: idf.as_ref(),
            pending: &m.pending,
        },
    )?;
    let after = read_manifest(dir)?.map_or(0, |m| m.records_end);
    Ok((before, after))
}
