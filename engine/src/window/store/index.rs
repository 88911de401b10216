//! The store of an index's records (`--state DIR`): opened on the index's records file,
//! made into one at a first save, synced at each save, and compacted into the next
//! generation's file instead of in place, so that a crash at any point leaves the last saved
//! index whole.

use super::{Place, Store, StoreSettings};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Where an index's records are: `DIR/records.GEN`, never overwritten below what a saved
/// manifest names, so that a crash at any point leaves the last saved index whole. A
/// compaction writes the held records to the next generation's file instead of moving them
/// down in place; the generation a manifest names is removed only once a newer manifest is
/// saved ([`Store::committed`]).
#[derive(Debug)]
pub(super) struct Index {
    pub(super) dir: PathBuf,
    pub(super) generation: u64,
    /// The generation the last saved manifest names (`None`: no manifest names a file of
    /// this store yet).
    pub(super) committed: Option<u64>,
    /// Bytes of the file already written (the RAM segments below it are copies).
    pub(super) written: u64,
    /// False for a reader: nothing is appended or compacted.
    pub(super) writable: bool,
}

/// A record's checksum: 32 bits of its xxh3, never 0 (which means "none").
pub(crate) fn record_sum(record: &[u8]) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(record) as u32) | 1
}

/// The records file of generation `generation` of the index in `dir`.
pub(crate) fn records_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("records.{generation}"))
}

/// The file an index directory holds until its first save is complete.
pub(crate) const UNSAVED: &str = ".unsaved";

/// Puts the [`UNSAVED`] sentinel in `dir` ([`open_no_follow`]).
pub(crate) fn mark_unsaved(dir: &Path) -> io::Result<()> {
    open_no_follow(File::options().write(true).create(true), &dir.join(UNSAVED)).map(drop)
}

/// Opens the index file `path` with `options`, never through a symbolic link another user
/// planted in a shared directory (opening one would create, cut or write whatever it points
/// to): the refusal says what the file is and what to do.
pub(crate) fn open_no_follow(options: &mut std::fs::OpenOptions, path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => io::Error::other(format!(
                "{} is a symbolic link, which an index file never is: remove it (someone else \
                 may have put it there)",
                path.display()
            )),
            _ => e,
        })
}

impl Index {
    /// The index in `dir` of a store that no save has named yet.
    pub(super) fn fresh(dir: &Path) -> Index {
        Index {
            dir: dir.to_path_buf(),
            generation: 1,
            committed: None,
            written: 0,
            writable: true,
        }
    }

    /// A new records file of the index, made with its directory, under a generation no file
    /// there has yet: it never touches one a manifest names.
    pub(super) fn new_file(&mut self) -> io::Result<File> {
        std::fs::create_dir_all(&self.dir)?;
        // Records spilled before the index's first save is complete: the sentinel tells the
        // next run that the directory's files are an unfinished first save of neardup's, not
        // an index whose manifest was lost (`state/index.rs`, which names the manifest).
        if !self.dir.join("manifest").exists() {
            mark_unsaved(&self.dir)?;
        }
        let last = std::fs::read_dir(&self.dir)?
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_prefix("records.")?
                    .parse()
                    .ok()
            })
            .max();
        self.generation = last.map_or(1, |g: u64| g + 1);
        File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(records_path(&self.dir, self.generation))
    }
}

impl Store {
    /// A store whose records are the first `end` bytes of the index file `file`
    /// (`DIR/records.GEN`), `garbage` of them evicted: new records are appended to the file
    /// after them (a writer, which cuts off what a crashed run appended after `end`), or
    /// nothing is appended (`writable` false, a reader).
    pub(crate) fn open_index(
        settings: StoreSettings,
        dir: &Path,
        generation: u64,
        file: File,
        (end, garbage): (u64, u64),
        writable: bool,
    ) -> io::Result<Store> {
        if writable && file.metadata()?.len() > end {
            file.set_len(end)?;
        }
        let mut store = Store::new(StoreSettings {
            dir: Some(dir.to_path_buf()),
            ..settings
        });
        store.file = Some(file);
        store.ram_start = end;
        store.end = end;
        store.garbage = garbage;
        store.index = Some(Index {
            dir: dir.to_path_buf(),
            generation,
            committed: Some(generation),
            written: end,
            writable,
        });
        Ok(store)
    }

    /// Makes the store an index's in `dir`: the held records `places` (sorted by offset;
    /// updated) are written to the file of generation `generation`, which the store then
    /// appends to. What a save does first with a window that was not opened from an index.
    pub(crate) fn persist(
        &mut self,
        dir: &Path,
        generation: u64,
        places: &mut [Place],
    ) -> io::Result<()> {
        // The generation before is not removed by the rewrite: a manifest may name it until
        // the next one is saved.
        self.index = Some(Index {
            dir: dir.to_path_buf(),
            generation: generation.wrapping_sub(1),
            committed: Some(generation.wrapping_sub(1)),
            written: 0,
            writable: true,
        });
        self.settings.dir = Some(dir.to_path_buf());
        self.rewrite(places)
    }

    /// For an index: writes what is only in RAM to the file and syncs it; returns the
    /// records' generation, end and garbage (what a manifest names). A reader is not saved.
    pub fn sync(&mut self) -> io::Result<(u64, u64, u64)> {
        if self.index.as_ref().is_some_and(|i| i.writable) {
            self.spill_file()?;
        }
        let (file, index) = match (&self.file, &mut self.index) {
            (Some(file), Some(index)) if index.writable => (file, index),
            _ => return Err(io::Error::other("only an index opened to write is saved")),
        };
        let mut at = index.written.max(self.ram_start);
        for (i, segment) in self.segments.iter().enumerate() {
            let start = self.ram_start + (i * self.segment) as u64;
            let end = start + segment.len() as u64;
            if end > at {
                file.write_all_at(&segment[(at - start) as usize..], at)?;
                at = end;
            }
        }
        file.sync_data()?;
        index.written = self.end;
        Ok((index.generation, self.end, self.garbage))
    }

    /// For an index: a manifest naming the generation [`Store::sync`] returned is saved, so
    /// an older generation's file, if any, is no longer needed.
    pub fn committed(&mut self) {
        if let Some(index) = &mut self.index {
            if let Some(old) = index.committed
                && old != index.generation
            {
                let _ = std::fs::remove_file(records_path(&index.dir, old));
            }
            index.committed = Some(index.generation);
        }
    }

    /// Writes the held records `places` (sorted by offset; updated) one after another to
    /// the index's next generation, which becomes the store's file (the RAM segments are
    /// dropped: every record is in the file). A generation no manifest names is removed.
    pub(super) fn rewrite(&mut self, places: &mut [Place]) -> io::Result<()> {
        const PIECE: usize = 1 << 20;
        let index = self.index.as_ref().expect("an index store");
        let generation = index.generation.wrapping_add(1);
        let path = records_path(&index.dir, generation);
        let mut options = File::options();
        options.read(true).write(true).create(true).truncate(true);
        let file = open_no_follow(&mut options, &path)?;
        // The places are updated only once the new generation is whole: a failed write (a
        // full disk) leaves the store and its places as they were, and removes the part
        // written, which no manifest names and which would keep the disk full.
        let mut moved: Vec<u64> = Vec::with_capacity(places.len());
        let mut out: Vec<u8> = Vec::with_capacity(PIECE);
        let mut written = 0u64;
        let copied = (|| {
            for place in places.iter() {
                let at = out.len();
                out.resize(at + place.len as usize, 0);
                self.read_into(place.offset, &mut out[at..])?;
                moved.push(written + at as u64);
                if out.len() >= PIECE {
                    file.write_all_at(&out, written)?;
                    written += out.len() as u64;
                    out.clear();
                }
            }
            file.write_all_at(&out, written)?;
            written += out.len() as u64;
            Ok(())
        })();
        if let Err(e) = copied {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        for (place, offset) in places.iter_mut().zip(moved) {
            place.offset = offset;
        }
        let index = self.index.as_mut().expect("an index store");
        let previous = index.generation;
        if index.committed != Some(previous) && self.file.is_some() {
            let _ = std::fs::remove_file(records_path(&index.dir, previous));
        }
        index.generation = generation;
        index.written = written;
        while let Some(mut gone) = self.segments.pop_back() {
            if self.spare.is_none() {
                gone.clear();
                self.spare = Some(gone);
            }
        }
        self.file = Some(file);
        self.ram_start = written;
        self.end = written;
        self.garbage = 0;
        Ok(())
    }

    /// The directory of the index whose records the store holds (`None`: a spill store).
    pub(crate) fn index_dir(&self) -> Option<&Path> {
        self.index.as_ref().map(|i| i.dir.as_path())
    }

    /// The index's directory was renamed to `dir` (its files are open: only new ones are
    /// made there).
    pub(crate) fn moved_index(&mut self, dir: &Path) {
        if let Some(index) = &mut self.index {
            index.dir = dir.to_path_buf();
            self.settings.dir = Some(dir.to_path_buf());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link planted under the sentinel's name (in a shared directory, between the run's
    /// look at it and its write) is refused, and what it points to stays as it was.
    #[test]
    fn the_sentinel_is_not_written_through_a_planted_link() {
        let dir = std::env::temp_dir().join(format!("neardup-sentinel-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let state = dir.join("state");
        std::fs::create_dir_all(&state).unwrap();
        std::os::unix::fs::symlink(&victim, state.join(UNSAVED)).unwrap();
        assert!(Index::fresh(&state).new_file().is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        // Without the link the sentinel is made, and the first records file beside it.
        std::fs::remove_file(state.join(UNSAVED)).unwrap();
        Index::fresh(&state).new_file().unwrap();
        assert!(state.join(UNSAVED).is_file());
        assert!(records_path(&state, 1).is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
