//! The process' standard output, written directly: the writer the binary hands the
//! engine's line buffer ([`neardup_engine::output::LineBuffer`]) for the filter's lines, so
//! that what a failed or stopped write leaves behind is known. Descriptor-level work (a
//! file cut back, a pipe written in `PIPE_BUF` pieces) is the process' business, so it
//! lives here in the binary's crate and not in the engine a Python interpreter loads.

use std::io::Write;

/// How long a stopped write to a full pipe waits for room, in milliseconds, each time.
const POLL_MS: u64 = 100;

/// How long, in milliseconds, a stopped run waits for its reader to take the rest of a
/// line it began writing (a line longer than `PIPE_BUF`), before it gives up part way.
const MID_LINE_GRACE: u64 = 2000;

/// The process' standard output written directly (no second buffer behind the
/// [`LineBuffer`]), so that what a failed or stopped write leaves behind is known:
/// - a write that fails part way on a regular file (a full disk, a file size limit) cuts the
///   file back to where it began, which the line buffer makes a line boundary;
/// - [`Stdout::stoppable`] on a pipe: a write waiting for a reader that does not read
///   gives up within 100 ms of a signal asking the run to stop
///   ([`neardup_engine::guard::request_stop`]), having written whole pieces of at most `PIPE_BUF`
///   bytes that end at a line's end (unless a line is longer), so that the run stops at
///   once whatever the reader does and the pipe holds whole lines. A line longer than
///   `PIPE_BUF` that is part written when the stop comes is finished first while the reader
///   takes it ([`MID_LINE_GRACE`]): a reader that stops reading with the run then gets its
///   whole last line, and only one that stays full that long is left with part of it.
pub struct Stdout {
    regular: bool,
    pipe: bool,
    stoppable: bool,
}

impl Stdout {
    /// Descriptor 1, as it is.
    pub fn new() -> Stdout {
        // SAFETY: fstat writes into `stat` only.
        let mode = unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            match libc::fstat(1, &mut stat) {
                0 => stat.st_mode & libc::S_IFMT,
                _ => 0,
            }
        };
        Stdout {
            regular: mode == libc::S_IFREG,
            pipe: mode == libc::S_IFIFO || mode == libc::S_IFSOCK,
            stoppable: false,
        }
    }

    /// Whether a write waiting on a full pipe gives up when the run is asked to stop.
    pub fn stoppable(mut self, yes: bool) -> Stdout {
        self.stoppable = yes;
        self
    }

    /// Waits until the pipe takes a `PIPE_BUF` write without blocking; an error when the
    /// run is asked to stop meanwhile, unless the output is `mid_line`: then the stop waits
    /// up to [`MID_LINE_GRACE`] for the reader to make room.
    fn wait_writable(&self, mid_line: bool) -> std::io::Result<()> {
        let mut stopped_polls = 0;
        loop {
            if let Some(signal) = neardup_engine::guard::stop_requested() {
                if !mid_line || stopped_polls * POLL_MS >= MID_LINE_GRACE {
                    return Err(std::io::Error::other(format!(
                        "stopped by signal {signal} while the output waited for its reader"
                    )));
                }
                stopped_polls += 1;
            }
            let mut poll = libc::pollfd {
                fd: 1,
                events: libc::POLLOUT,
                revents: 0,
            };
            // SAFETY: one pollfd, living through the call.
            let ready = unsafe { libc::poll(&mut poll, 1, POLL_MS as i32) };
            if ready > 0 {
                return Ok(());
            }
            if ready < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// Standard output for a table (Parquet, an Arrow stream, rows as JSON) written there: a
/// file of its own (a duplicate of descriptor 1) that the table writer's encoder thread
/// owns. Its writes block as long as the reader takes: a stopped run still ends the table
/// with its footer, which a [`Stdout::stoppable`] write would give up on.
pub fn for_table() -> std::io::Result<Box<dyn Write + Send>> {
    use std::os::fd::FromRawFd;
    // SAFETY: dup returns a new descriptor this process owns, or -1.
    let fd = unsafe { libc::dup(1) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor owned by nothing else.
    Ok(Box::new(unsafe { std::fs::File::from_raw_fd(fd) }))
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout::new()
    }
}

impl Write for Stdout {
    /// Writes all of `bytes`, or fails having written none of them to a regular file; a
    /// stopped write returns the count written before it stopped.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // SAFETY: lseek only reads the descriptor's offset.
        let start = match self.regular {
            true => unsafe { libc::lseek(1, 0, libc::SEEK_CUR) },
            false => -1,
        };
        let mut done = 0;
        while done < bytes.len() {
            let mut piece = bytes.len() - done;
            if self.stoppable && self.pipe {
                let mid_line = done > 0 && bytes[done - 1] != b'\n';
                if let Err(e) = self.wait_writable(mid_line) {
                    return if done > 0 { Ok(done) } else { Err(e) };
                }
                if piece > libc::PIPE_BUF {
                    // Each piece ends a line where it can, so that a stop between pieces
                    // leaves whole lines in the pipe.
                    let window = &bytes[done..done + libc::PIPE_BUF];
                    piece = memchr::memrchr(b'\n', window).map_or(libc::PIPE_BUF, |at| at + 1);
                }
            }
            // SAFETY: the range lies within `bytes`.
            let n = unsafe { libc::write(1, bytes[done..].as_ptr().cast(), piece) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                if done > 0 && start >= 0 {
                    // SAFETY: cuts descriptor 1's file back to where this write began.
                    unsafe {
                        libc::ftruncate(1, start);
                        libc::lseek(1, start, libc::SEEK_SET);
                    }
                } else if done > 0 {
                    // What a pipe took is out: the caller keeps the rest, and the next
                    // write meets the error again.
                    return Ok(done);
                }
                return Err(e);
            }
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            done += n as usize;
        }
        Ok(done)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
