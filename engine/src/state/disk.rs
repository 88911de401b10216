//! Getting an index's files to the disk: the tables written front to back with their
//! checksum computed on the way and their pages handed to the disk as they fill, the
//! checksum of a file read back, and the directory synced after a rename.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Makes renames and new files in `dir` durable (not possible everywhere).
pub(super) fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A writer that hashes and counts what passes through it.
pub(super) struct Hashing<W> {
    inner: W,
    hash: Xxh3,
    len: u64,
}

impl<W: Write> Hashing<W> {
    pub(super) fn new(inner: W) -> Hashing<W> {
        Hashing {
            inner,
            hash: Xxh3::new(),
            len: 0,
        }
    }

    /// The inner writer, the bytes written and their xxh3-64.
    pub(super) fn finish(self) -> (W, u64, u64) {
        (self.inner, self.len, self.hash.digest())
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A file written front to back whose pages are handed to the disk as they fill
/// (`sync_file_range`, every [`WRITE_BEHIND`] bytes), so that the `fsync` a save ends with
/// waits for the last stretch instead of the whole tables file: writing and the disk overlap.
/// The `fsync` still decides when the file is durable.
pub(super) struct WriteBehind {
    file: File,
    written: u64,
    started: u64,
}

/// Bytes between two write-behind requests.
const WRITE_BEHIND: u64 = 8 << 20;

impl WriteBehind {
    pub(super) fn new(file: File) -> WriteBehind {
        WriteBehind {
            file,
            written: 0,
            started: 0,
        }
    }

    /// The file (to sync).
    pub(super) fn into_file(self) -> File {
        self.file
    }
}

impl Write for WriteBehind {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITE_BEHIND {
            start_writeback(&self.file, self.started, self.written - self.started);
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Asks the kernel to start writing `len` bytes of `file` at `offset` to the disk, without
/// waiting. Only a hint: where it is not available the final `fsync` does all the work.
fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor; it reads no memory of ours.
        unsafe {
            libc::sync_file_range(
                file.as_raw_fd(),
                offset as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// The xxh3-64 of `file`'s bytes, read from its start.
pub(super) fn checksum(mut file: &File) -> std::io::Result<u64> {
    let mut hash = Xxh3::new();
    let mut buf = vec![0; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(hash.digest()),
            Ok(n) => hash.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// A directory given as an index that holds no manifest: a new index starts there only when
/// it is empty. One that holds an index's files without their manifest is a damaged index;
/// one that holds anything else is not neardup's to write in. Both are refused (exit 2),
/// listing what is there, and nothing is changed. `manifest` is the name of the index's
/// manifest file.
pub(super) fn refuse_foreign(dir: &Path, manifest: &str) -> crate::error::Result<()> {
    use crate::window::store::UNSAVED;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    let name = dir.display();
    let index_file = |n: &String| {
        ["records.", "tables.", "log."]
            .iter()
            .any(|p| n.strip_prefix(p).is_some_and(|g| g.parse::<u64>().is_ok()))
    };
    // A first save that never finished (a killed run): its own files, marked, go.
    let ours =
        |n: &String| index_file(n) || n == UNSAVED || n.starts_with(&format!(".{manifest}.tmp"));
    if names.iter().any(|n| n == UNSAVED) && names.iter().all(ours) {
        for n in &names {
            let _ = std::fs::remove_file(dir.join(n));
        }
        return Ok(());
    }
    let shown = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    let more = match names.len() {
        n if n > 8 => format!(" and {} more", n - 8),
        _ => String::new(),
    };
    Err(crate::error::Error::config(
        "state",
        match names.iter().any(index_file) {
            true => format!(
                "{name} is a damaged index: {name}/{manifest} is missing beside {shown}{more} \
                 (restore the manifest from a backup, or give another directory; nothing in \
                 {name} was changed)"
            ),
            false => format!(
                "{name} is not empty and holds no index ({shown}{more}): give an empty or new \
                 directory, so that no file neardup did not write is changed"
            ),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What passes through a hashing writer is counted and hashed as one xxh3 of it all,
    /// and a written file's checksum read back is the same hash.
    #[test]
    fn the_hash_on_the_way_is_the_checksum_read_back() {
        let dir = std::env::temp_dir().join(format!("neardup-disk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t");
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut w = Hashing::new(WriteBehind::new(File::create(&path).unwrap()));
        for piece in bytes.chunks(100_003) {
            w.write_all(piece).unwrap();
        }
        let (inner, len, sum) = w.finish();
        inner.into_file().sync_all().unwrap();
        assert_eq!(len, bytes.len() as u64);
        assert_eq!(sum, xxhash_rust::xxh3::xxh3_64(&bytes));
        assert_eq!(checksum(&File::open(&path).unwrap()).unwrap(), sum);
        sync_dir(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
