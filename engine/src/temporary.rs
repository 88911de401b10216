//! Temporary files written beside the file they will replace (`-o FILE` tables, the
//! `--report` page, the `--state` check, the command line's `-o FILE` of a command that
//! writes one document at its end: [`Replacing`]), renamed over it when complete.
//!
//! A temporary is created with `O_CREAT|O_EXCL` under an unpredictable name ([`tempfile`]),
//! so that another local user cannot plant a symbolic link under its name and have the
//! run write through it (in `/tmp` and other shared directories). Its name still carries
//! the process id, `.NAME.neardup-PID-XXXXXX.tmp`, so that the temporaries a killed run left
//! are recognised and removed by the next run that writes the same file
//! ([`remove_stale`]), and only those: a process that still runs keeps its own.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The directory of `target` (`.` for a bare name).
pub(crate) fn directory_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The start of the names of the temporaries for `target` made by process `pid`.
fn prefix(target: &Path, pid: &str) -> String {
    let name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.neardup-{pid}-")
}

/// Whether a file written to `path` is written beside it and renamed over it (a regular
/// file, or a name not taken yet); `false` for a device, a FIFO or a socket (`-o /dev/null`,
/// `-o /dev/stdout`), which is written directly: a rename would replace it with a file.
pub fn replaces(path: &Path) -> bool {
    std::fs::metadata(path).map_or(true, |m| m.is_file())
}

/// A file with no name in `dir` (`O_TMPFILE` where the file system has it, else created
/// exclusively and unlinked at once): nothing is left behind however the run ends, and no
/// planted link is followed.
pub fn unnamed_in(dir: &Path) -> io::Result<File> {
    tempfile::tempfile_in(dir)
}

/// A new temporary file beside `target`, created exclusively (never through a link).
pub fn beside(target: &Path) -> io::Result<(File, PathBuf)> {
    remove_stale(target);
    use std::os::unix::fs::PermissionsExt;
    let named = tempfile::Builder::new()
        .prefix(&prefix(target, &std::process::id().to_string()))
        .suffix(".tmp")
        // As `File::create` would: the umask decides, not tempfile's private default, since
        // the temporary becomes the user's file.
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(directory_of(target))?;
    let (file, path) = named.keep().map_err(|e| e.error)?;
    Ok((file, path))
}

/// A file written whole or not at all: a temporary beside its target ([`beside`]) that
/// [`Replacing::commit`] renames over it. Dropped without a commit (the run failed), the
/// temporary is removed and the target keeps what it held.
#[derive(Debug)]
pub struct Replacing {
    /// The temporary, until it is renamed.
    temp: Option<PathBuf>,
    target: PathBuf,
}

/// The file a write to `path` reaches: `path`, or the file its symbolic link leads to (as
/// `File::create` follows it), so that a rename replaces that file and leaves the user's link
/// a link. A dangling link (or chain of links) leads to the file its last link names, which
/// the rename then creates; past 40 links (the system's own limit) the name is used as it is.
fn reached(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        if !link {
            return at;
        }
        if let Ok(whole) = std::fs::canonicalize(&at) {
            return whole;
        }
        match std::fs::read_link(&at) {
            Ok(to) => at = directory_of(&at).join(to),
            Err(_) => return at,
        }
    }
    path.to_path_buf()
}

impl Replacing {
    /// A new temporary beside `target` (beside the file it links to, for a symbolic link),
    /// open for writing.
    pub fn new(target: &Path) -> io::Result<(File, Replacing)> {
        let target = &reached(target);
        let (file, temp) = beside(target)?;
        let replacing = Replacing {
            temp: Some(temp),
            target: target.to_path_buf(),
        };
        Ok((file, replacing))
    }

    /// The file the temporary replaces.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Puts the temporary (written and flushed) in place: its bytes synced to the disk
    /// first, so that a crash after the rename cannot leave the target empty, then renamed
    /// over the target.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        // Any descriptor of the file syncs its data (the caller's may be standard output).
        File::open(&temp)
            .and_then(|file| file.sync_all())
            .and_then(|()| std::fs::rename(&temp, &self.target))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&temp);
            })
    }
}

impl Drop for Replacing {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Removes the temporaries for `target` ([`beside`]) of processes that are no longer
/// running. Only regular files of exactly that naming are touched, and only where the
/// process table can be read (`/proc`).
pub(crate) fn remove_stale(target: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(directory_of(target)) else {
        return;
    };
    let start = prefix(target, "");
    // The names' start before the process id.
    let start = &start[..start.len() - 1];
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(start)) else {
            continue;
        };
        let Some((pid, tail)) = rest.split_once('-') else {
            continue;
        };
        let ours = !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
            && tail.ends_with(".tmp")
            && entry.file_type().is_ok_and(|t| t.is_file());
        if ours && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_is_put_in_place_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.graphml");
        std::fs::write(&target, b"old").unwrap();
        let (mut file, replacing) = Replacing::new(&target).unwrap();
        std::io::Write::write_all(&mut file, b"half").unwrap();
        drop(replacing);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let (mut file, replacing) = Replacing::new(&target).unwrap();
        std::io::Write::write_all(&mut file, b"new").unwrap();
        replacing.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_replacement_through_a_link_replaces_the_file_it_links_to() {
        let dir = tempfile::tempdir().unwrap();
        let (real, link) = (dir.path().join("real.out"), dir.path().join("link.out"));
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink("real.out", &link).unwrap();
        // Writes `bytes` through `link` and checks that the link is still a link.
        let write_through = |link: &Path, bytes: &[u8]| {
            let (mut file, replacing) = Replacing::new(link).unwrap();
            std::io::Write::write_all(&mut file, bytes).unwrap();
            replacing.commit().unwrap();
            let meta = std::fs::symlink_metadata(link).unwrap();
            assert!(meta.file_type().is_symlink(), "{}", link.display());
        };
        write_through(&link, b"new");
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A dangling link: the file it names is made, the link stays.
        let (gone, dangling) = (dir.path().join("gone.out"), dir.path().join("dangling.out"));
        std::os::unix::fs::symlink("gone.out", &dangling).unwrap();
        write_through(&dangling, b"made");
        assert_eq!(std::fs::read(&gone).unwrap(), b"made");
        // A dangling chain: the file its last link names is made, both links stay links.
        let (end, middle, first) = (
            dir.path().join("end.out"),
            dir.path().join("middle.out"),
            dir.path().join("first.out"),
        );
        std::os::unix::fs::symlink("end.out", &middle).unwrap();
        std::os::unix::fs::symlink("middle.out", &first).unwrap();
        write_through(&first, b"chained");
        assert!(
            std::fs::symlink_metadata(&middle)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&end).unwrap(), b"chained");
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("neardup-temporary-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A link planted under the name a temporary could take is never written through: the
    /// name is unpredictable, and an existing name is never opened.
    #[test]
    fn a_planted_link_is_not_followed() {
        let dir = scratch("link");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let target = dir.join("out.parquet");
        for n in 0..64 {
            let planted = dir.join(format!(
                "{}{n:06}.tmp",
                prefix(&target, &std::process::id().to_string())
            ));
            std::os::unix::fs::symlink(&victim, planted).unwrap();
        }
        let (mut file, path) = beside(&target).unwrap();
        std::io::Write::write_all(&mut file, b"new").unwrap();
        assert!(
            !std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A dead process' temporary goes; a live one's, another file's and a look-alike stay.
    #[test]
    fn only_dead_processes_temporaries_are_removed() {
        let dir = scratch("stale");
        let target = dir.join("t.parquet");
        let dead = dir.join(format!("{}abc123.tmp", prefix(&target, "4999999")));
        let live = dir.join(format!(
            "{}abc123.tmp",
            prefix(&target, &std::process::id().to_string())
        ));
        let other = dir.join(format!(
            "{}abc123.tmp",
            prefix(&dir.join("u.parquet"), "4999999")
        ));
        let odd = dir.join(format!("{}abc123.tmp", prefix(&target, "49x")));
        for f in [&dead, &live, &other, &odd] {
            std::fs::write(f, "x").unwrap();
        }
        remove_stale(&target);
        assert!(!dead.exists());
        assert!(live.exists() && other.exists() && odd.exists());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
