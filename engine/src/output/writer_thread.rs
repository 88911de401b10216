//! Lines written on a thread of their own, beside the in-order commit: the commit fills a
//! buffer and hands it over whole, and the writer thread makes the system calls (into a
//! pipe they were a third of the commit's CPU on ordinary text). What [`super::LineBuffer`]
//! guarantees holds here too:
//! - only whole lines are handed over (a line longer than the buffer goes in pieces), and
//!   each hand-over is written inside the out-of-memory gate
//!   ([`crate::guard::begin_write`]), which it leaves saying the input line the output is
//!   then complete up to, known when it was handed over; so a run that runs out of memory
//!   still ends its output at a whole line and says how far it is complete;
//! - what a failed write did not write is kept, and the next write tries it again first;
//!   the failure is returned by the next hand-over, [`WriterThread::flush`] or
//!   [`WriterThread::take_pending`];
//! - [`WriterThread::flush`] returns once everything handed over is written (or failed),
//!   so a checkpoint and a live input's lines find their output out;
//! - [`WriterThread::take_pending`] gives back, in order, what is not written.
//!
//! The thread is a hand-over behind at most (one buffer waits for it), so the output's
//! memory is a few buffers and a full pipe still holds the commit back.

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

enum Job {
    /// Lines to write, and the input line the output is complete up to once they are.
    Lines(Vec<u8>, u64),
    /// Write what a failure left and flush (`take`: give it back instead).
    Sync { take: bool },
}

/// The answer to [`Job::Sync`].
struct Synced {
    /// The first failure not reported yet, else the flush's.
    result: io::Result<()>,
    /// What is not written (given back only when asked to take it).
    pending: Vec<u8>,
    /// Whether what was written ends part way through a line.
    mid_line: bool,
}

/// The in-order thread's side: a buffer of lines and the writer thread it hands them to.
pub(crate) struct WriterThread {
    buf: Vec<u8>,
    capacity: usize,
    jobs: Option<Sender<Job>>,
    synced: Receiver<Synced>,
    /// Buffers the thread has written, to fill again.
    spare: Receiver<Vec<u8>>,
    /// Set by the thread when a write failed, until a sync reports it.
    failed: Arc<AtomicBool>,
    mid_line: bool,
    /// The thread's CPU nanoseconds so far (`--stats`' `cpu_seconds.write`).
    cpu: Arc<AtomicU64>,
}

impl WriterThread {
    /// Starts a thread of `scope` writing to `out` in hand-overs of about `capacity` bytes.
    pub(crate) fn start<'scope, W: Write + Send + 'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        out: W,
        capacity: usize,
    ) -> WriterThread {
        let (jobs, to_do) = bounded::<Job>(1);
        let (answer, synced) = bounded::<Synced>(1);
        let (give_back, spare) = unbounded::<Vec<u8>>();
        let failed = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&failed);
        let cpu = Arc::new(AtomicU64::new(0));
        let spent = Arc::clone(&cpu);
        crate::guard::spawn_scoped(scope, "neardup-writer", move || {
            serve(out, &to_do, (&answer, &give_back), &flag, &spent);
        });
        WriterThread {
            buf: Vec::with_capacity(capacity),
            capacity,
            jobs: Some(jobs),
            synced,
            spare,
            failed,
            mid_line: false,
            cpu,
        }
    }

    /// The thread's CPU nanoseconds as of its last hand-over or sync.
    pub(crate) fn cpu(&self) -> u64 {
        self.cpu.load(Ordering::Relaxed)
    }

    /// Adds `bytes` (whole lines, or an over-long line's pieces) and hands the buffer's whole
    /// lines over once it is full.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= self.capacity {
            match memchr::memrchr(b'\n', &self.buf) {
                Some(last) => self.hand_over(last + 1)?,
                None if self.buf.len() >= 4 * self.capacity => self.hand_over(self.buf.len())?,
                None => {}
            }
        }
        Ok(())
    }

    /// Hands `self.buf[..end]` over, keeping the rest; first returns a failure the thread
    /// met since the last hand-over.
    fn hand_over(&mut self, end: usize) -> io::Result<()> {
        if self.failed.load(Ordering::Acquire) {
            self.sync(false)?;
        }
        let complete = crate::guard::complete_up_to(end == self.buf.len());
        let mut next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(self.capacity));
        next.extend_from_slice(&self.buf[end..]);
        let mut lines = std::mem::replace(&mut self.buf, next);
        lines.truncate(end);
        self.send(Job::Lines(lines, complete))
    }

    fn send(&mut self, job: Job) -> io::Result<()> {
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        match sent {
            true => Ok(()),
            false => Err(gone()),
        }
    }

    /// Asks the thread to write what a failure left (or to give it back, `take`) and to
    /// flush, and waits for its answer.
    fn sync(&mut self, take: bool) -> io::Result<Vec<u8>> {
        self.send(Job::Sync { take })?;
        let synced = self.synced.recv().map_err(|_| gone())?;
        self.mid_line = synced.mid_line;
        synced.result.map(|()| synced.pending)
    }

    /// Hands everything over and waits until it is written: the first failure since the
    /// last one returned, if any.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            self.hand_over(self.buf.len())?;
        }
        self.sync(false).map(drop)
    }

    /// The bytes not written yet, the thread's and then this side's (taken: dropping this
    /// writes nothing more).
    pub(crate) fn take_pending(&mut self) -> Vec<u8> {
        let mut pending = match self.send(Job::Sync { take: true }) {
            Ok(()) => match self.synced.recv() {
                Ok(synced) => {
                    self.mid_line = synced.mid_line;
                    synced.pending
                }
                Err(_) => Vec::new(),
            },
            Err(_) => Vec::new(),
        };
        pending.append(&mut self.buf);
        pending
    }

    /// Whether what was written ends part way through a line (known as of the last flush or
    /// take): the line's rest is then the first of the pending bytes.
    pub(crate) fn ends_mid_line(&self) -> bool {
        self.mid_line
    }
}

impl Drop for WriterThread {
    fn drop(&mut self) {
        // As the line buffer does: what is buffered goes out; errors are for explicit
        // flushes. Then the thread ends, and its scope joins it.
        let _ = self.flush();
        self.jobs = None;
    }
}

fn gone() -> io::Error {
    io::Error::other("the output's writer thread ended")
}

/// Writes `bytes` ([`super::write_gated`]) and notes whether they end part way through a
/// line; how many went out, and the error that stopped the rest.
fn write<W: Write>(
    out: &mut W,
    bytes: &[u8],
    complete: u64,
    mid_line: &mut bool,
) -> (usize, io::Result<()>) {
    let (done, result) = super::write_gated(out, bytes, complete);
    if done > 0 {
        *mid_line = bytes[done - 1] != b'\n';
    }
    (done, result)
}

/// The writer thread: writes each hand-over, keeps what a failure left to try again, and
/// answers syncs; gives written buffers back; notes its CPU in `cpu`.
fn serve<W: Write>(
    mut out: W,
    jobs: &Receiver<Job>,
    (answer, give_back): (&Sender<Synced>, &Sender<Vec<u8>>),
    failed: &AtomicBool,
    cpu: &AtomicU64,
) {
    // Bytes a failed write left, tried again before anything else; and the input line the
    // output is complete up to once they are written.
    let mut left: Vec<u8> = Vec::new();
    let mut left_complete = 0;
    let mut error: Option<io::Error> = None;
    let mut mid_line = false;
    for job in jobs {
        match job {
            Job::Lines(mut lines, complete) => {
                let result = match left.is_empty() {
                    true => {
                        let (done, result) = write(&mut out, &lines, complete, &mut mid_line);
                        if result.is_err() {
                            left.extend_from_slice(&lines[done..]);
                        }
                        result
                    }
                    false => {
                        left.extend_from_slice(&lines);
                        let (done, result) = write(&mut out, &left, complete, &mut mid_line);
                        left.drain(..done);
                        result
                    }
                };
                left_complete = complete;
                if let Err(e) = result {
                    error.get_or_insert(e);
                    failed.store(true, Ordering::Release);
                }
                lines.clear();
                let _ = give_back.send(lines);
            }
            Job::Sync { take } => {
                let mut result = Ok(());
                let pending = match take {
                    true => std::mem::take(&mut left),
                    false => {
                        if !left.is_empty() {
                            let (done, tried) =
                                write(&mut out, &left, left_complete, &mut mid_line);
                            left.drain(..done);
                            result = tried;
                        }
                        if result.is_ok() {
                            result = out.flush();
                        }
                        Vec::new()
                    }
                };
                let result = match error.take() {
                    Some(e) => Err(e),
                    None => result,
                };
                failed.store(false, Ordering::Release);
                let synced = Synced {
                    result,
                    pending,
                    mid_line,
                };
                cpu.store(crate::cpu::thread_cpu(), Ordering::Relaxed);
                if answer.send(synced).is_err() {
                    return;
                }
                continue;
            }
        }
        cpu.store(crate::cpu::thread_cpu(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A writer that takes at most `room` bytes, then fails as a full disk does; the
    /// bytes it took are shared with the test.
    struct Limited {
        taken: Arc<Mutex<Vec<u8>>>,
        room: usize,
    }

    impl Write for Limited {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let mut taken = self.taken.lock().unwrap();
            let n = bytes.len().min(self.room - taken.len().min(self.room));
            if n == 0 {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
            taken.extend_from_slice(&bytes[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn lines(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect()
    }

    /// Everything written comes out in order, in hand-overs that end at a line, and a flush
    /// waits for it; the smallest cases too.
    #[test]
    fn lines_come_out_whole_and_in_order() {
        for (count, capacity) in [(0, 64), (1, 64), (4, 64), (10_000, 64), (10_000, 1 << 16)] {
            let taken = Arc::new(Mutex::new(Vec::new()));
            let data = lines(count);
            std::thread::scope(|scope| {
                let out = Limited {
                    taken: Arc::clone(&taken),
                    room: usize::MAX,
                };
                let mut w = WriterThread::start(scope, out, capacity);
                for line in data.split_inclusive(|&b| b == b'\n') {
                    w.write(line).unwrap();
                }
                w.flush().unwrap();
                assert_eq!(*taken.lock().unwrap(), data, "{count} lines");
                assert!(w.take_pending().is_empty());
                assert!(!w.ends_mid_line());
            });
        }
    }

    /// A full disk: the failure comes back, what was not written is given back in order,
    /// and with what the output took it is all the lines.
    #[test]
    fn a_failure_comes_back_with_what_was_not_written() {
        let data = lines(5_000);
        let taken = Arc::new(Mutex::new(Vec::new()));
        std::thread::scope(|scope| {
            let out = Limited {
                taken: Arc::clone(&taken),
                room: 10_000,
            };
            let mut w = WriterThread::start(scope, out, 1024);
            let mut failed = None;
            for line in data.split_inclusive(|&b| b == b'\n') {
                if let Err(e) = w.write(line) {
                    failed = Some(e);
                    break;
                }
            }
            let failed = failed.or_else(|| w.flush().err());
            assert_eq!(
                failed.expect("the disk fills").kind(),
                io::ErrorKind::StorageFull
            );
            let pending = w.take_pending();
            let taken = taken.lock().unwrap().clone();
            assert_eq!(taken.len(), 10_000);
            assert!(data.starts_with(&taken));
            assert!(data[taken.len()..].starts_with(&pending));
            // The output ends part way through a line (this writer takes any count).
            assert_eq!(w.ends_mid_line(), !taken.ends_with(b"\n"));
        });
    }
}
