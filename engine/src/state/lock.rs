//! One writer per state file: an advisory lock (`flock`) on a file beside the state, which
//! holds the writer's process id.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The one writer of a state file. The lock file is removed when the lock is dropped or
/// [released](Lock::release); if the process dies first, the kernel drops the lock with the
/// descriptor and the small file stays, to be taken by the next run.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Locks `lock_path` for the state file `state`, or fails naming the holder.
    pub(super) fn take(lock_path: PathBuf, state: &Path) -> Result<Lock> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::fs::OpenOptionsExt;
        let failed = |e| Error::io(format!("locking {}", lock_path.display()), e);
        loop {
            // Never through a link: a link planted under the lock's name (by another user,
            // in a shared directory) would have the run truncate and write its target.
            let mut file = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&lock_path)
                .map_err(|e| match e.raw_os_error() {
                    Some(libc::ELOOP) => Error::config(
                        "state",
                        format!(
                            "{} is a symbolic link, which a lock file never is: remove it \
                             (someone else may have put it there)",
                            lock_path.display()
                        ),
                    ),
                    _ => failed(e),
                })?;
            if !file.metadata().map_err(failed)?.is_file() {
                return Err(Error::config(
                    "state",
                    format!("{} is not a regular file: remove it", lock_path.display()),
                ));
            }
            // SAFETY: flock on a descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let holder = std::fs::read_to_string(&lock_path).unwrap_or_default();
                let holder = match holder.trim() {
                    "" => String::new(),
                    pid => format!(" (process {pid})"),
                };
                return Err(Error::config(
                    "state",
                    format!(
                        "{} is being written by another run{holder}: one run at a time may \
                         use a state file",
                        state.display()
                    ),
                ));
            }
            // The holder before may have removed the file between our open and our lock:
            // the lock counts only on the file the path still names.
            let held = file.metadata().map_err(failed)?;
            match std::fs::symlink_metadata(&lock_path) {
                Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => {
                    let _ = file.set_len(0);
                    let _ = write!(file, "{}", std::process::id());
                    return Ok(Lock {
                        file,
                        path: lock_path,
                    });
                }
                _ => continue,
            }
        }
    }

    /// Removes the lock file (the lock itself goes with the descriptor): for a process
    /// that ends without dropping its lock.
    pub fn release(&self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        self.release();
    }
}
