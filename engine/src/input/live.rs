//! An input that can run dry (standard input, a FIFO), read so that the run can end while
//! it waits: a read waits for data in steps of [`STEP_MS`] and gives up once the run has
//! stopped ([`Halt::halt`]). Without it, a run stopped by a signal or a closed output could
//! not join its reader thread while the writer upstream sends nothing, and only ending the
//! process would end the run, which is not a library's to do.

use std::io::{self, Read};
use std::os::fd::RawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How long a read waits for data before it looks whether the run has stopped.
const STEP_MS: i32 = 100;

/// Tells the reads of one live input that the run has stopped (cloned: one for the input,
/// one for whoever stops it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Halt(Arc<AtomicBool>);

impl Halt {
    /// Makes every later read of the input fail at once, and a read waiting for data fail
    /// within [`STEP_MS`].
    pub(crate) fn halt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn halted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// `inner`, whose data arrives on descriptor `fd`, read only when data (or its end) is there.
pub(super) struct Live<R> {
    inner: R,
    fd: RawFd,
    halt: Halt,
}

impl<R: Read> Live<R> {
    /// Reads `inner` (data on `fd`) until `halt` is halted.
    pub(super) fn new(inner: R, fd: RawFd, halt: Halt) -> Live<R> {
        Live { inner, fd, halt }
    }
}

impl<R: Read> Read for Live<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.halt.halted() {
                // Not `Interrupted`, which readers retry.
                return Err(io::Error::other(
                    "the run stopped while it waited for input",
                ));
            }
            let mut poll = libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd, living through the call.
            let ready = unsafe { libc::poll(&mut poll, 1, STEP_MS) };
            if ready > 0 {
                // Data, its end (POLLHUP) or an error: the read says which.
                return self.inner.read(buf);
            }
            if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                // A descriptor poll cannot wait on: read it as it is.
                return self.inner.read(buf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_waiting_read_gives_up_when_halted_and_data_passes_before() {
        let (reader, mut writer) = io::pipe().unwrap();
        let fd = reader.as_raw_fd();
        let halt = Halt::default();
        let mut live = Live::new(reader, fd, halt.clone());
        writer.write_all(b"a line\n").unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(live.read(&mut buf).unwrap(), 7);
        // Nothing more comes and the writer stays open: the read waits until halted.
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(250));
            halt.halt();
        });
        let started = std::time::Instant::now();
        let e = live.read(&mut buf).unwrap_err();
        assert!(e.to_string().contains("stopped"), "{e}");
        assert!(started.elapsed() >= std::time::Duration::from_millis(200));
        stopper.join().unwrap();
        drop(writer);
    }

    #[test]
    fn the_end_of_a_live_input_is_its_end() {
        let (reader, writer) = io::pipe().unwrap();
        let fd = reader.as_raw_fd();
        drop(writer);
        let mut live = Live::new(reader, fd, Halt::default());
        assert_eq!(live.read(&mut [0u8; 8]).unwrap(), 0);
    }
}
