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
//! A line written as it was read need not be copied here at all: [`WriterThread::keep_line`]
//! notes where it is in its batch's buffer, and at the batch's end the buffer itself is
//! handed over ([`WriterThread::hand_over_kept`]) and the thread copies the lines out (on
//! ordinary text that copy was a tenth of the commit's CPU). Until then nothing else is
//! written: [`WriterThread::settle`] copies the noted lines here first, in their place.
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
    /// A batch's buffer and its lines to write ([`WriterThread::keep_line`]), and the
    /// input line the output is complete up to once they are.
    Kept(Vec<u8>, Vec<Kept>, u64),
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
    /// Lines of the batch being decided, noted and not copied yet; while there are any,
    /// `buf` is empty (they come first).
    kept: Vec<Kept>,
    /// Batch buffers whose lines the thread has written, to be read into again.
    used: Receiver<Vec<u8>>,
}

/// A line in its batch's buffer: the bytes from `start` to `end`, its terminator included
/// (a last line without one gets a line feed, as [`super::Results::line`] gives it).
pub(crate) type Span = (usize, usize);

/// A kept line: its span, and its input line (the output is complete up to it once the
/// line is written).
type Kept = (Span, u64);

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
        let (done_with, used) = unbounded::<Vec<u8>>();
        let failed = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&failed);
        let cpu = Arc::new(AtomicU64::new(0));
        let spent = Arc::clone(&cpu);
        crate::guard::spawn_scoped(scope, "neardup-writer", move || {
            serve(
                out,
                capacity,
                &to_do,
                (&answer, &give_back, &done_with),
                &flag,
                &spent,
            );
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
            kept: Vec::new(),
            used,
        }
    }

    /// The thread's CPU nanoseconds as of its last hand-over or sync.
    pub(crate) fn cpu(&self) -> u64 {
        self.cpu.load(Ordering::Relaxed)
    }

    /// Adds `bytes` (whole lines, or an over-long line's pieces) and hands the buffer's whole
    /// lines over once it is full.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.check_settled()?;
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
        let complete = crate::guard::complete_up_to(end == self.buf.len());
        self.hand_over_complete(end, complete)
    }

    /// [`WriterThread::hand_over`], complete up to input line `complete` once written.
    fn hand_over_complete(&mut self, end: usize, complete: u64) -> io::Result<()> {
        if self.failed.load(Ordering::Acquire) {
            self.sync(false)?;
        }
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

    /// Notes the line at `span` of the batch being decided, to be copied on the thread when
    /// the batch's buffer is handed over ([`WriterThread::hand_over_kept`]). False when it
    /// cannot wait (what is buffered ends part way through a line: an over-long line's
    /// pieces): write it instead.
    pub(crate) fn keep_line(&mut self, span: Span) -> io::Result<bool> {
        if self.kept.is_empty() && !self.buf.is_empty() {
            if self.buf.last() != Some(&b'\n') {
                return Ok(false);
            }
            // What is buffered goes first: the lines before the one being decided.
            let complete = crate::guard::complete_up_to(false);
            self.hand_over_complete(self.buf.len(), complete)?;
        }
        self.kept.push((span, crate::guard::line()));
        Ok(true)
    }

    /// Copies the lines noted in `data` (their batch's buffer) into the buffer, in their
    /// place, before something else is written, or when the batch's end is not reached.
    pub(crate) fn settle(&mut self, data: &[u8]) {
        for &(span, _) in &self.kept {
            copy_line(data, span, &mut self.buf);
        }
        self.kept.clear();
    }

    /// The end of the batch whose buffer is `data`: the lines noted in it go to the thread
    /// with the buffer, complete up to the input line being decided; the buffer comes back
    /// from [`WriterThread::used_buffers`]. Gives `data` back when no line was noted. After
    /// a failed write the lines are copied here instead, and the failure returned (what is
    /// not written is then [`WriterThread::take_pending`]'s).
    pub(crate) fn hand_over_kept(&mut self, data: Vec<u8>) -> io::Result<Option<Vec<u8>>> {
        if self.kept.is_empty() {
            return Ok(Some(data));
        }
        if self.failed.load(Ordering::Acquire) {
            self.settle(&data);
            self.sync(false)?;
            return Ok(Some(data));
        }
        let spans = std::mem::take(&mut self.kept);
        self.send(Job::Kept(data, spans, crate::guard::complete_up_to(true)))?;
        Ok(None)
    }

    /// The batch buffers the thread has written the lines of.
    pub(crate) fn used_buffers(&self) -> impl Iterator<Item = Vec<u8>> + '_ {
        self.used.try_iter()
    }

    /// An error where lines are still noted and not copied: writing or taking anything
    /// else now would put it before them ([`WriterThread::settle`] comes first).
    fn check_settled(&self) -> io::Result<()> {
        match self.kept.is_empty() {
            true => Ok(()),
            false => Err(io::Error::other(
                "internal error: output written before the batch's kept lines",
            )),
        }
    }

    /// Hands everything over and waits until it is written: the first failure since the
    /// last one returned, if any.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.check_settled()?;
        if !self.buf.is_empty() {
            self.hand_over(self.buf.len())?;
        }
        self.sync(false).map(drop)
    }

    /// The bytes not written yet, the thread's and then this side's (taken: dropping this
    /// writes nothing more).
    pub(crate) fn take_pending(&mut self) -> Vec<u8> {
        debug_assert!(self.kept.is_empty(), "lines noted and not settled");
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

/// Copies the line at `span` of `data` onto `out`, ending in a line feed.
fn copy_line(data: &[u8], (start, end): Span, out: &mut Vec<u8>) {
    let line = &data[start..end];
    out.extend_from_slice(line);
    if line.last() != Some(&b'\n') {
        out.push(b'\n');
    }
}

/// What the writer thread keeps between hand-overs.
struct Served<W> {
    out: W,
    /// Bytes a failed write left, tried again before anything else; and the input line the
    /// output is complete up to once they are written.
    left: Vec<u8>,
    left_complete: u64,
    error: Option<io::Error>,
    mid_line: bool,
}

impl<W: Write> Served<W> {
    /// Writes `lines` (after what a failure left), complete up to input line `complete`;
    /// a failure is kept for the next sync and flagged in `failed`.
    fn lines(&mut self, lines: &[u8], complete: u64, failed: &AtomicBool) {
        let result = match self.left.is_empty() {
            true => {
                let (done, result) = write(&mut self.out, lines, complete, &mut self.mid_line);
                if result.is_err() {
                    self.left.extend_from_slice(&lines[done..]);
                }
                result
            }
            false => {
                self.left.extend_from_slice(lines);
                let (done, result) = write(&mut self.out, &self.left, complete, &mut self.mid_line);
                self.left.drain(..done);
                result
            }
        };
        self.left_complete = complete;
        if let Err(e) = result {
            self.error.get_or_insert(e);
            failed.store(true, Ordering::Release);
        }
    }

    /// Writes what a failure left (or gives it back, `take`) and flushes.
    fn sync(&mut self, take: bool) -> Synced {
        let mut result = Ok(());
        let pending = match take {
            true => std::mem::take(&mut self.left),
            false => {
                if !self.left.is_empty() {
                    let (done, tried) = write(
                        &mut self.out,
                        &self.left,
                        self.left_complete,
                        &mut self.mid_line,
                    );
                    self.left.drain(..done);
                    result = tried;
                }
                if result.is_ok() {
                    result = self.out.flush();
                }
                Vec::new()
            }
        };
        let result = match self.error.take() {
            Some(e) => Err(e),
            None => result,
        };
        Synced {
            result,
            pending,
            mid_line: self.mid_line,
        }
    }
}

/// The writer thread: writes each hand-over, keeps what a failure left to try again, and
/// answers syncs; gives written buffers back (a batch's to `done_with`); notes its CPU in
/// `cpu`. A batch's kept lines go out in pieces of about `capacity` bytes.
fn serve<W: Write>(
    out: W,
    capacity: usize,
    jobs: &Receiver<Job>,
    (answer, give_back, done_with): (&Sender<Synced>, &Sender<Vec<u8>>, &Sender<Vec<u8>>),
    failed: &AtomicBool,
    cpu: &AtomicU64,
) {
    let mut served = Served {
        out,
        left: Vec::new(),
        left_complete: 0,
        error: None,
        mid_line: false,
    };
    // The kept lines of a batch, copied out of its buffer.
    let mut copied = Vec::new();
    for job in jobs {
        match job {
            Job::Lines(mut lines, complete) => {
                served.lines(&lines, complete, failed);
                lines.clear();
                let _ = give_back.send(lines);
            }
            Job::Kept(data, kept, complete) => {
                // Written in pieces of about a hand-over's size, each complete up to its
                // last line: a failed write cuts a file back to where that write began, so
                // a whole batch at once would lose up to a batch of lines instead.
                for &(span, line) in &kept {
                    copy_line(&data, span, &mut copied);
                    if copied.len() >= capacity {
                        served.lines(&copied, line, failed);
                        copied.clear();
                    }
                }
                let _ = done_with.send(data);
                if !copied.is_empty() {
                    served.lines(&copied, complete, failed);
                    copied.clear();
                }
            }
            Job::Sync { take } => {
                let synced = served.sync(take);
                failed.store(false, Ordering::Release);
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

    /// A writer that takes `room` bytes, and what it took.
    fn limited(room: usize) -> (Arc<Mutex<Vec<u8>>>, Limited) {
        let taken = Arc::new(Mutex::new(Vec::new()));
        let out = Limited {
            taken: Arc::clone(&taken),
            room,
        };
        (taken, out)
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
        let (taken, out) = limited(10_000);
        std::thread::scope(|scope| {
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

    /// The spans of `data`'s lines, and `data` with `n` lines (the last without its
    /// line feed when `open`).
    fn batch(n: usize, open: bool) -> (Vec<u8>, Vec<Span>) {
        let mut data = lines(n);
        if open {
            data.pop();
        }
        let mut spans = Vec::new();
        let mut start = 0;
        for line in data.split_inclusive(|&b| b == b'\n') {
            spans.push((start, start + line.len()));
            start += line.len();
        }
        (data, spans)
    }

    /// Lines noted in a batch's buffer come out in their place among the lines written
    /// here, whole (a last line gets its line feed), the smallest cases too; the buffers
    /// come back; settling copies them here instead.
    #[test]
    fn kept_lines_come_out_in_their_place() {
        for (n, open) in [
            (0, false),
            (1, true),
            (4, false),
            (4, true),
            (10_000, false),
        ] {
            let taken = Arc::new(Mutex::new(Vec::new()));
            let (data, spans) = batch(n, open);
            let mut expected = b"before\n".to_vec();
            // Every other line kept, as a filter keeps some.
            for &(start, end) in spans.iter().step_by(2) {
                expected.extend_from_slice(&data[start..end]);
                if data[end - 1] != b'\n' {
                    expected.push(b'\n');
                }
            }
            let kept_part = expected.len();
            expected.extend_from_slice(b"after\n");
            for settle in [false, true] {
                taken.lock().unwrap().clear();
                std::thread::scope(|scope| {
                    let out = Limited {
                        taken: Arc::clone(&taken),
                        room: usize::MAX,
                    };
                    let mut w = WriterThread::start(scope, out, 64);
                    w.write(b"before\n").unwrap();
                    for &span in spans.iter().step_by(2) {
                        assert!(w.keep_line(span).unwrap());
                    }
                    if !spans.is_empty() {
                        assert!(w.write(b"x\n").is_err(), "nothing goes before them");
                    }
                    let back = match settle {
                        true => {
                            w.settle(&data);
                            Some(data.clone())
                        }
                        false => w.hand_over_kept(data.clone()).unwrap(),
                    };
                    assert_eq!(back.is_some(), settle || spans.is_empty());
                    w.write(b"after\n").unwrap();
                    w.flush().unwrap();
                    let used = w.used_buffers().count();
                    assert_eq!(used, usize::from(back.is_none()), "{n} lines");
                    let taken = taken.lock().unwrap();
                    assert_eq!(taken.len(), expected.len(), "{n} lines, settled: {settle}");
                    assert!(*taken == expected, "{n} lines, settled: {settle}");
                    assert!(taken[..kept_part].ends_with(b"\n"));
                });
            }
        }
    }

    /// A full disk while kept lines are written: the failure comes back, and what was not
    /// written is given back in order; with what the output took it is every line.
    #[test]
    fn a_failure_keeps_the_kept_lines() {
        let (data, spans) = batch(5_000, false);
        let (taken, out) = limited(10_000);
        std::thread::scope(|scope| {
            let mut w = WriterThread::start(scope, out, 1024);
            let mut all = Vec::new();
            let mut failed = None;
            for chunk in spans.chunks(700) {
                for &span in chunk {
                    w.keep_line(span).unwrap();
                }
                all.extend_from_slice(&data[chunk[0].0..chunk[chunk.len() - 1].1]);
                if let Err(e) = w.hand_over_kept(data.clone()) {
                    failed = Some(e);
                    break;
                }
            }
            let failed = failed.or_else(|| w.flush().err());
            assert_eq!(failed.unwrap().kind(), io::ErrorKind::StorageFull);
            let pending = w.take_pending();
            let taken = taken.lock().unwrap().clone();
            assert_eq!(taken.len(), 10_000);
            assert!(all.starts_with(&taken));
            assert!(all[taken.len()..].starts_with(&pending));
            assert!(!pending.is_empty());
        });
    }
}
