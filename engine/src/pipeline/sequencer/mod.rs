//! The single-threaded, input-ordered stage: it takes the signed batches in input order
//! (signing one itself while the next is not ready), runs the in-order loop (signals,
//! checkpoints, progress, bad lines) and hands each document to its job's consumer
//! ([`consumer::Consumer`]): `sign`'s keys and the `--against` reference in `consumer`, the
//! filter in `filtered`, the pairs and graphs in `pairs`.

mod consumer;
mod filtered;
mod pairing;
mod pairs;

use super::clock::{Stage, StageClock, thread_cpu};
use super::helpers::Helpers;
use super::ordered::{self, Task};
use super::prepare::Prepared;
use super::presize::Presizer;
use super::signing::{Doc, Worker, ask_ahead, sign};
use super::summary::{Summary, limit_note};
use crate::config::Config;
use crate::error::{Error, Note, Notes, Result};
use crate::graph::GraphBuilder;
use crate::input::{BadLine, BadLines, Batch, Part};
use crate::job::Job;
use crate::output::Results;
use crate::state::Saved;
use crate::window::Window;
use consumer::{Consumer, Parallel, Shared};
use crossbeam_channel::{Receiver, Sender};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A batch read, and where its signed documents arrive (the ordered executor's task and
/// slot, [`ordered`]).
pub(super) type ToSign = Task<Batch, (Batch, Vec<Doc>)>;
pub(super) type Slot = ordered::Slot<(Batch, Vec<Doc>)>;

/// What the reader sends the sequencer, in input order.
pub(super) enum Ordered {
    Batch(Slot),
    Failed(Error),
}

/// The single-threaded, input-ordered stage: exact index, LSH window, verification, output.
pub(super) struct Sequencer<'c, W: Write> {
    config: &'c Config,
    /// What the run does with each document.
    job: &'c Job,
    /// The run's tables, saved with the window by `--state`.
    prepared: &'c Prepared,
    names: &'c [String],
    /// The window, the output, the counts and the report, which the consumer changes.
    at: Shared<'c, W>,
    /// What the job does with each document.
    consumer: Box<dyn Consumer<W> + 'c>,
    bad: BadLines,
    progress: bool,
    last_progress: Instant,
    /// `docs_read` at the last `--checkpoint-every` save.
    checkpointed: u64,
    /// Output lines written by the runs before (`--state`), for the next save.
    written_before: u64,
    /// Whether the note on the window reaching its memory or disk limit was said.
    limit_reported: bool,
    /// Notes made where no sink is at hand (a save), said at the next chance.
    unsaid: Vec<Note>,
    /// `--state`: output the run before could not write (taken at the start), or this run's
    /// when it is stopped (saved with the state).
    pending: Vec<u8>,
    /// Threads that look up and verify a batch's documents with the sequencer (none with
    /// `--threads 1`).
    helpers: Option<Helpers<'c>>,
    /// Where consumed batches' buffers go back to the reader.
    recycle: Sender<Vec<u8>>,
    /// Batches read, batches signed (by the workers or here), and batches taken here
    /// ([`Sequencer::wants_help`]).
    read: &'c AtomicUsize,
    signed: &'c AtomicUsize,
    taken: usize,
    /// Sizes the window for the whole input ([`super::presize`]) as batches are decided;
    /// a resumed window is sized already.
    presizer: Presizer,
    /// Batches waiting to be signed, taken while the next one in order is not ready.
    stealer: Stealer,
    /// The input line and output lines of this run's last save, and of the save it resumed.
    last_saved: Option<(u64, u64)>,
    resumed_from: Option<(u64, u64)>,
    /// Where this thread's CPU goes, by stage: what is not signing, speculating or writing
    /// is the commit.
    clock: &'c StageClock,
    /// This thread's CPU spent signing, speculating and writing so far (nanoseconds).
    elsewhere: u64,
}

/// What a run hands its sequencer besides the settings and the output.
pub(super) struct Start<'c> {
    /// The inputs' names (bad lines are reported by name and line).
    pub names: &'c [String],
    pub stderr_is_terminal: bool,
    /// The window `--state` saved, with its counts.
    pub saved: Option<Saved>,
    /// The `--against` reference.
    pub reference: Option<Window>,
    /// Threads that look up and verify a batch with the sequencer, if any.
    pub helpers: Option<Helpers<'c>>,
    /// Batches the reader has handed on so far (counted before they are sent).
    pub read: &'c AtomicUsize,
    /// Batches signed so far, by any thread.
    pub signed: &'c AtomicUsize,
    /// Where consumed batches' buffers go back to the reader.
    pub recycle: Sender<Vec<u8>>,
    /// The batches no worker has taken yet, and this thread's worker for them.
    pub stealer: Stealer,
    /// The rows of a columnar input written back as a table, if the output is one.
    pub table: Option<crate::output::table::TableWriter>,
    /// Where each thread's CPU is summed by stage.
    pub clock: &'c StageClock,
}

impl<'c, W: Write> Sequencer<'c, W> {
    pub(super) fn new(
        prepared: &'c Prepared,
        job: &'c Job,
        out: crate::output::Target<W>,
        start: Start<'c>,
    ) -> Self {
        let config = &prepared.config;
        let resumed = (start.saved.as_ref()).map(|s| (s.lines, s.written.unwrap_or(0)));
        let presizer = match start.saved.is_some() {
            true => Presizer::done(),
            false => Presizer::default(),
        };
        let (window, lines, written, pending) = match start.saved {
            Some(saved) => (saved.window, saved.lines, saved.written, saved.pending),
            None => {
                let settings = super::prepare::window_settings(config, job);
                (Window::with_settings(settings), 0, None, Vec::new())
            }
        };
        // On several threads the window's chores are not the in-order thread's.
        let window = window.with_chores(config.worker_threads());
        // A resumed window that evicts said so in the run that saved it.
        let limit_reported = window.limited().is_some();
        Sequencer {
            config,
            job,
            prepared,
            names: start.names,
            at: Shared {
                config,
                window,
                out: match start.table {
                    Some(table) => Results::of(out, job.format()).with_table(table),
                    None => Results::of(out, job.format()),
                },
                summary: Summary {
                    resumed,
                    max_memory: (
                        config.memory.max_memory as u64,
                        config.memory.memory_limit.as_ref().map(|l| l.source),
                    ),
                    ..Summary::default()
                },
                report: (job.report().is_some()).then(|| {
                    crate::report::Collector::new(config.verify.threshold, config.sketch.seed)
                        .within(config.memory.report_share())
                }),
                lines,
            },
            consumer: consumer::of(job, start.reference),
            bad: super::prepare::bad_lines(config),
            progress: config.progress && !config.quiet && start.stderr_is_terminal,
            last_progress: Instant::now(),
            checkpointed: 0,
            limit_reported,
            unsaid: Vec::new(),
            pending,
            written_before: written.unwrap_or(0),
            helpers: start.helpers,
            recycle: start.recycle,
            read: start.read,
            signed: start.signed,
            taken: 0,
            presizer,
            stealer: start.stealer,
            last_saved: None,
            resumed_from: resumed,
            clock: start.clock,
            elsewhere: 0,
        }
    }

    /// Adds this thread's CPU since `since` to `stage` (not the commit).
    fn spent(&mut self, stage: Stage, since: u64) {
        let now = self.clock.since(stage, since);
        self.elsewhere += now.saturating_sub(since);
    }

    pub(super) fn run<D: Notes>(
        mut self,
        order: Receiver<Ordered>,
        diag: &mut D,
    ) -> Result<Finished> {
        let started = thread_cpu();
        let result = self.consume(order, diag);
        if self.progress {
            diag.progress("");
        }
        if let Err(stopped @ Error::Stopped { .. }) = result {
            // The stop ended the output and saved the state already (which may have a note).
            self.say_unsaid(diag);
            return Err(stopped);
        }
        // Flush what was written even when stopping on an error, unless the pipe is closed;
        // a table's footer is written (or its file removed) here.
        // A run whose lines were all bad fails (below): a table file is not put in place as
        // if it had succeeded.
        let all_bad =
            self.at.summary.docs_read > 0 && self.at.summary.bad_lines == self.at.summary.docs_read;
        let flushed = match (&result, self.job.state().is_some()) {
            (Ok(()), _) if all_bad && self.at.out.is_table() => {
                self.at.out.abandon();
                Ok(())
            }
            (Ok(()), _) => {
                let finished = self.at.out.finish();
                self.clock.add(Stage::Write, self.at.out.encoder_cpu());
                self.clock.add(Stage::Write, self.at.out.writer_cpu());
                self.clock.add(Stage::Write, self.at.window.chores_cpu());
                finished
            }
            (Err(_), false) => {
                self.at.out.abandon();
                Ok(())
            }
            (Err(_), true) => self.at.out.flush(),
        };
        if let Some(signal) = crate::guard::stop_requested()
            && (self.job.state().is_some() || result.is_err() || flushed.is_err())
        {
            let stopped = self.stop(Stop::Signal(signal));
            self.say_unsaid(diag);
            return Err(stopped);
        }
        if self.job.state().is_some() {
            let closed = |r: &Result<()>| matches!(r, Err(e) if e.is_broken_pipe());
            if closed(&result) || closed(&flushed) {
                let stopped = self.stop(Stop::ClosedOutput);
                self.say_unsaid(diag);
                return Err(stopped);
            }
        }
        result.map_err(|e| self.written_so_far(e))?;
        flushed.map_err(|e| self.written_so_far(e))?;
        self.save()?;
        self.say_unsaid(diag);
        self.bad.finish(diag);
        // Lines were read and none was a document: whatever was passed through, nothing was
        // deduplicated, and that is no success (said under `‹quiet›` too).
        if self.at.summary.docs_read > 0 && self.at.summary.bad_lines == self.at.summary.docs_read {
            return Err(Error::Data(format!(
                "none of the {n} lines read was a document: all are bad lines (reported above \
                 unless ‹quiet›), so nothing was deduplicated",
                n = self.at.summary.docs_read
            )));
        }
        self.at.summary.evictions = self.at.window.evictions();
        self.at.summary.window_docs = self.at.window.len() as u64;
        if self.config.stats {
            self.at.summary.window_bytes = self.at.window.approx_bytes() as u64;
            self.at.summary.window_ram_bytes = self.at.window.ram_bytes() as u64;
            self.at.summary.ram_bytes_per_doc = self.at.window.ram_bytes_per_doc();
            self.at.summary.window_disk_bytes = self.at.window.disk_bytes();
        }
        self.at.summary.reference_docs = self.consumer.reference_docs();
        let commit = thread_cpu().saturating_sub(started + self.elsewhere);
        self.clock.add(Stage::Commit, commit);
        let window = std::mem::replace(&mut self.at.window, Window::placeholder());
        let left = self.consumer.finish(window);
        Ok(Finished {
            summary: self.at.summary,
            graph: left.graph,
            window: left.window,
            report: self.at.report,
        })
    }

    /// A failed write (a full disk, a file size limit) says how far the output is
    /// complete: lines end at a whole line (the binary's `Stdout` writer); a table file is
    /// not left half-written (its temporary is removed, its target left as it was).
    fn written_so_far(&self, e: Error) -> Error {
        let path = self.prepared.config.run.output.as_deref();
        self.at.out.written_so_far(e, self.at.lines, path)
    }

    /// `--state`, stopped by a signal or a closed output before the input ended: saves the
    /// state as of the last input line decided, with the output decided but not written
    /// (the resumed run writes it first), and returns [`Error::Stopped`]: status 128 + the
    /// signal, or 1 for a closed output, and what was kept. (A live input's wait ends when
    /// the run returns: [`crate::input::Halt`].) Or the error of a save that failed.
    fn stop(&mut self, stop: Stop) -> Error {
        // What can still go out goes out (nothing, on a closed pipe or a reader that does
        // not read: a stopped write gives up at once).
        let _ = self.at.out.flush();
        if self.at.out.is_table() || self.job.state().is_none() {
            // A table output, stopped: its rows so far with their footer, renamed into
            // place; then, with `--state`, the state as of the same rows (a table holds no
            // pending output: the resumed run's table follows this one's).
            let finished = self.at.out.finish();
            let (what, status) = match stop {
                Stop::Signal(signal) => (format!("interrupted (signal {signal})"), 128 + signal),
                Stop::ClosedOutput => ("the output was closed".to_string(), 1),
            };
            let mut outcome = match (&finished, self.at.out.is_table()) {
                (Ok(()), true) => format!(
                    "the output is a complete table of the {} rows decided before it",
                    self.at.summary.written
                ),
                // A line longer than a pipe's atomic write, begun when the reader stopped
                // reading and not taken within the stop's grace (the binary's `Stdout`).
                (_, false) if self.at.out.ends_mid_line() => {
                    "the output ends part way through a line its reader did not take".to_string()
                }
                (Ok(()), false) => "the output ends at a whole line".to_string(),
                (Err(e), true) => format!("the output could not be ended: {e}"),
                (Err(_), false) => {
                    "the output ends at a whole line; what was decided after it is not written"
                        .to_string()
                }
            };
            if finished.is_ok() && self.job.state().is_some() {
                self.pending.clear();
                if let Err(e) = self.save() {
                    return e;
                }
                outcome.push_str(
                    "; state saved as of the same input line (the resumed run's table holds the \
                     rows after it)",
                );
                if let Some(lock) = &self.prepared.state_lock {
                    lock.release();
                }
            }
            return Error::Stopped {
                status,
                message: Some(format!(
                    "{what} after input line {}; {outcome}",
                    self.at.lines
                )),
            };
        }
        self.pending = self.at.out.take_pending();
        if let Err(e) = self.save() {
            return e;
        }
        let pending_lines = memchr::memchr_iter(b'\n', &self.pending).count() as u64;
        let decided = self.written_before + self.at.summary.written;
        let (what, status) = match stop {
            Stop::Signal(signal) => (format!("interrupted (signal {signal})"), 128 + signal),
            Stop::ClosedOutput => ("the output was closed".to_string(), 1),
        };
        // A pipe whose reader stopped reading too takes whole `PIPE_BUF` pieces only: the
        // output may end part way through a line, whose rest the state holds.
        let partial = self.at.out.ends_mid_line();
        let tail = match (pending_lines, partial) {
            (0, _) => String::new(),
            (n, false) => format!(
                "; the {n} output lines decided after them are in the state and are written \
                 first when it resumes"
            ),
            (n, true) => format!(
                " and the start of the next; that line's rest and the {} output lines decided \
                 after it are in the state and are written first when it resumes (lines a \
                 reader stopped with this run did not read are lost: write to a file, -o FILE, \
                 for an exact resume)",
                n - 1
            ),
        };
        let message = (!self.config.quiet || status == 1).then(|| {
            format!(
                "{what}; state saved after input line {}; the output holds {} {}lines{tail}",
                self.at.lines,
                decided - pending_lines,
                if partial { "whole " } else { "" }
            )
        });
        if let Some(lock) = &self.prepared.state_lock {
            lock.release();
        }
        Error::Stopped { status, message }
    }

    /// `--state`: writes the window and the line count (output must be flushed first, so
    /// that the state never covers documents whose output was lost, or what was not
    /// written must be in [`Sequencer::pending`]).
    fn save(&mut self) -> Result<()> {
        let Some(path) = self.job.state().map(|state| &state.path) else {
            return Ok(());
        };
        self.checkpointed = self.at.summary.docs_read;
        // Saved mid-batch (a stop), the summaries count the documents decided since the
        // counts the family counter last handed over.
        self.at.window.settle_counts();
        let saving = Instant::now();
        let progress = (self.at.lines, self.written_before + self.at.summary.written);
        let converted = crate::state::save(
            path,
            &crate::state::settings(self.config, self.job, &self.prepared.shingling()),
            &mut self.at.window,
            progress,
            self.prepared.idf.as_deref(),
            &self.pending,
        )
        .map_err(|e| self.save_failed(e))?;
        self.unsaid.extend(converted);
        self.last_saved = Some(progress);
        self.at.summary.state_seconds.get_or_insert((0.0, 0.0)).1 += saving.elapsed().as_secs_f64();
        Ok(())
    }

    /// Says the notes made where no sink was at hand.
    fn say_unsaid<D: Notes>(&mut self, diag: &mut D) {
        for note in self.unsaid.drain(..) {
            diag.note(note);
        }
    }

    /// A save that failed (a full disk): says which save the state still holds, and that
    /// the output already goes past it, so the user knows what a resumed run would repeat.
    fn save_failed(&self, e: Error) -> Error {
        let Error::Io { context, source } = e else {
            return e;
        };
        let held = match self.last_saved.or(self.resumed_from) {
            Some((line, written)) => format!(
                "the state still holds the save after input line {line}, with {written} output \
                 lines; the output goes on past it (input line {}), so before resuming from it \
                 keep only the output's first {written} lines",
                self.at.lines
            ),
            None => format!(
                "no state was saved; the output holds what was decided up to input line {}",
                self.at.lines
            ),
        };
        Error::io(format!("{context} ({held})"), source)
    }

    fn consume<D: Notes>(&mut self, order: Receiver<Ordered>, diag: &mut D) -> Result<()> {
        // Every run stops on SIGINT/SIGTERM between batches: lines end at a whole line, a
        // table gets its footer, `--state` is saved (the library's host, which may not want
        // its signals taken, is not the program).
        let watching = crate::guard::is_program();
        if watching {
            crate::guard::catch_termination()
                .map_err(|e| Error::io("installing signal handlers", e))?;
        }
        // The output the stopped run before decided but could not write comes first.
        let pending = std::mem::take(&mut self.pending);
        self.at.out.raw(&pending)?;
        loop {
            let item = loop {
                if watching && let Some(signal) = crate::guard::stop_requested() {
                    return Err(self.stop(Stop::Signal(signal)));
                }
                match order.recv_timeout(Duration::from_millis(100)) {
                    Ok(item) => break Some(item),
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break None,
                }
            };
            let Some(item) = item else { break };
            let slot = match item {
                Ordered::Batch(slot) => slot,
                Ordered::Failed(e) => return Err(e),
            };
            let (mut batch, docs) = self.wait_for(&slot)?;
            if self.taken == 0 {
                self.check_fields(&batch, &docs)?;
            }
            // Said only where the output shows ids: a filter that writes its input lines
            // as they are (no report page) shows none, and its logs stay quiet.
            let shows_ids = !matches!(
                self.job.output(),
                Some(crate::job::Output::DropDups | crate::job::Output::OnlyDups)
            ) || self.job.report().is_some();
            if batch.ids_decided && shows_ids && !self.config.quiet && *self.job != Job::Reference {
                diag.note(crate::input::fields::ids_note(&batch));
            }
            if let Some(note) = &batch.note
                && !self.config.quiet
            {
                diag.note(Note::info(note.to_string()));
            }
            self.taken += 1;
            if let Err(e) = self.decide_batch(&batch, docs, diag) {
                // The lines decided before the failure go out as they would have.
                self.at.out.settle(&batch);
                return Err(e);
            }
            let since = thread_cpu();
            self.at.out.end_batch(&batch)?;
            // The reader fills the buffer again (when its pool is full, it is freed), once the
            // writer thread copied out the lines kept from it. A buffer an over-long line grew
            // is freed: the pool would keep that size many times over.
            let data = std::mem::take(&mut batch.data);
            for data in self.at.out.hand_over_batch(data)? {
                if data.capacity() <= RECYCLED_BYTES {
                    let _ = self.recycle.try_send(data);
                }
            }
            self.spent(Stage::Write, since);
            let (docs, verified) = (self.at.summary.docs_read, self.at.summary.candidates);
            let window = &mut self.at.window;
            (self.presizer).after_batch(&batch, self.names, (docs, verified), window);
            // A live input waiting for its next line: the lines decided so far go out now
            // (unless more batches are ready), so a crawler downstream sees each document's
            // line as it is decided, while a file or a fast pipe keeps whole buffers.
            if self.config.run.line_buffered || (batch.idle && order.is_empty()) {
                self.at.out.flush()?;
            }
            if let Some(note) = self.consumer.note()
                && !self.config.quiet
            {
                diag.note(Note::info(note.to_string()));
            }
            if !self.limit_reported
                && let Some(limit) = self.at.window.limited()
            {
                self.limit_reported = true;
                if !self.config.quiet {
                    diag.note(limit_note(
                        self.config,
                        limit,
                        &self.at.window,
                        self.at.lines,
                    ));
                }
            }
            let every = self.job.state().map_or(0, |state| state.checkpoint_every);
            if every > 0 && self.at.summary.docs_read - self.checkpointed >= every {
                self.at.out.flush()?;
                self.save()?;
                self.say_unsaid(diag);
            }
            if self.progress && self.last_progress.elapsed() >= Duration::from_millis(500) {
                self.last_progress = Instant::now();
                diag.progress(&format!(
                    "{} docs, {} duplicates, {} in window",
                    self.at.summary.docs_read,
                    self.at.summary.duplicates(),
                    self.at.window.len()
                ));
            }
        }
        Ok(())
    }

    /// Decides the documents of `batch` (signed: `docs`) and writes what they give.
    fn decide_batch<D: Notes>(
        &mut self,
        batch: &Batch,
        docs: Vec<Doc>,
        diag: &mut D,
    ) -> Result<()> {
        // A batch that cannot evict anything may be verified on all threads; otherwise
        // each document's matches must be refreshed before the next insert may evict.
        if self.consumer.parallel()
            && self.helpers.is_some()
            && self.wants_help()
            && docs.len() <= self.at.window.room()
        {
            let parallel = Parallel {
                helpers: self.helpers.as_ref(),
                bad: &mut self.bad,
                names: self.names,
                diag,
            };
            self.consumer
                .batch_in_parallel(&mut self.at, batch, docs, parallel)?;
        } else {
            // With helpers to share it, the lookups of a piece of the batch are made on
            // every core first, and the loop below commits them in order.
            let speculating = self.helpers.is_some() && self.wants_help();
            let mut left = docs.into_iter();
            let mut base = 0;
            while left.len() > 0 {
                let n = match speculating {
                    true => self.consumer.piece().min(left.len()),
                    false => left.len(),
                };
                // Decided in order as it is: no copy of the documents into a piece.
                let piece: Vec<Doc> = match speculating {
                    true => left.by_ref().take(n).collect(),
                    false => std::mem::take(&mut left).collect(),
                };
                let piece = match &self.helpers {
                    Some(helpers) if speculating => {
                        let since = thread_cpu();
                        let (piece, in_order) =
                            self.consumer
                                .speculate(&mut self.at, batch, (base, piece), helpers)?;
                        // What had to be done in order stays the commit's.
                        self.spent(Stage::Speculate, since + in_order);
                        piece
                    }
                    _ => piece,
                };
                let mut docs = piece.into_iter();
                let mut k = 0;
                while let Some(doc) = docs.next() {
                    ask_ahead(&self.at.window, docs.as_slice());
                    self.document(batch, base + k, doc, diag)?;
                    k += 1;
                }
                self.consumer.batch_done(&mut self.at);
                base += n;
            }
        }
        Ok(())
    }

    /// The next batch in order, signed: while it is not, this thread signs batches that no
    /// worker has taken yet (later ones: their results wait in their slots), so that it
    /// never waits while there is signing to do.
    fn wait_for(&mut self, slot: &Slot) -> Result<(Batch, Vec<Doc>)> {
        let since = thread_cpu();
        let Stealer { work, worker } = &mut self.stealer;
        let signed = self.signed;
        let got = ordered::wait_in_order(slot, Some(&*work), |batch| sign(worker, batch, signed));
        self.spent(Stage::Sign, since);
        got
    }

    /// Whether the helpers are called for the batch just taken
    /// ([`HelperPolicy::calls`](crate::config::HelperPolicy::calls), with [`BEHIND`] and
    /// whether every batch read so far is signed). Alone, the sequencer spends less CPU per
    /// document than with the helpers; with two threads on two cores the signing is the slower stage and helpers only take CPU
    /// from it; with more threads the signing outpaces the sequencer, signed batches queue
    /// up, and it is helped. Once the input has ended (or while it is slower than the
    /// signing) the signing threads have nothing to do: the last batches, which the queue
    /// test never helped, cost the most where the window's work grows with it (every pair
    /// of a templated input, `--pairs` and the graph commands), and a short input is all
    /// last batches.
    fn wants_help(&self) -> bool {
        let signed = self.signed.load(Ordering::Relaxed);
        let idle = signed >= self.read.load(Ordering::Relaxed);
        (self.config.helpers).calls(signed.saturating_sub(self.taken), BEHIND, idle)
    }

    fn document<D: Notes>(
        &mut self,
        batch: &Batch,
        i: usize,
        doc: Doc,
        diag: &mut D,
    ) -> Result<()> {
        let line = batch.lines[i];
        if line.part.continues() {
            return self.rest_of_long_line(batch, i);
        }
        self.at.summary.docs_read += 1;
        self.at.lines = line.number;
        crate::guard::set_line(line.number);
        let signed = match doc {
            Doc::Good(s) => s,
            Doc::Bad(reason) => return self.bad_line(batch, i, &reason, diag),
        };
        self.consumer.document(&mut self.at, batch, i, signed)
    }

    /// The first batch of JSON Lines: when most of its lines lack the text field (or the id
    /// field), the run stops before writing anything (a usage error naming the fields the
    /// lines have and the one to use), instead of passing every line through as a bad one.
    /// Where only some lines lack it, they are bad lines as `‹on-bad-line›` says.
    fn check_fields(&self, batch: &Batch, docs: &[Doc]) -> Result<()> {
        use crate::input::fields::{Wanted, missing_message};
        if batch.format != crate::config::InputFormat::Jsonl {
            return Ok(());
        }
        let firsts = (batch.lines.iter()).filter(|l| !l.part.continues()).count();
        let count = |f: fn(&BadLine) -> bool| {
            docs.iter()
                .filter(|d| matches!(d, Doc::Bad(reason) if f(reason)))
                .count()
        };
        let no_text = count(|r| matches!(r, BadLine::MissingField(_)));
        let no_id = count(|r| matches!(r, BadLine::MissingId(_)));
        let input = batch
            .lines
            .first()
            .map_or("-", |l| self.names[l.input as usize].as_str());
        if no_text * 2 > firsts {
            let path = &self.config.read.field;
            let m = missing_message(batch, input, "field", path, no_text, Wanted::Text);
            return Err(Error::Usage(m));
        }
        if let Some(path) = &self.config.read.id_field
            && no_id * 2 > firsts
        {
            let m = missing_message(batch, input, "id-field", path, no_id, Wanted::Id);
            return Err(Error::Usage(m));
        }
        Ok(())
    }

    /// Whether `--on-bad-line pass` writes bad lines in this mode (the reference of
    /// `--against` is never written).
    fn passes_bad_lines(&self) -> bool {
        (self.job.output()).is_some_and(|output| output.passes(self.config.read.on_bad_line))
    }

    /// A later piece of an over-long line ([`Part`]): its first piece was the bad line, so
    /// the piece is only written through when that was.
    fn rest_of_long_line(&mut self, batch: &Batch, i: usize) -> Result<()> {
        if !self.passes_bad_lines() {
            return Ok(());
        }
        self.at.out.settle(batch);
        match batch.lines[i].part {
            Part::Last => self.at.out.line(batch.raw(i)),
            _ => self.at.out.piece(batch.raw(i)),
        }
    }

    /// A line that is not a document: counted, reported (up to the limit), and passed
    /// through, skipped or fatal as `--on-bad-line` says.
    fn bad_line<D: Notes>(
        &mut self,
        batch: &Batch,
        i: usize,
        reason: &BadLine,
        diag: &mut D,
    ) -> Result<()> {
        let line = batch.lines[i];
        // Only the filter's outputs that write input lines pass a bad line through (not
        // `--only-dups`); the other jobs (`--pairs`, the graphs, `sign`, the `--against`
        // reference) skip it.
        let policy = self.config.read.on_bad_line;
        let passes = self.consumer.bad_line(policy, &mut self.at.summary);
        let place = consumer::place(self.names, &line);
        let action = match passes {
            true => "passed through",
            false => "skipped",
        };
        self.bad.add(place, reason, action, diag)?;
        if passes {
            match line.part {
                Part::First => {
                    self.at.out.settle(batch);
                    self.at.out.piece(batch.raw(i))?;
                }
                _ => self.at.out.document(batch, i)?,
            }
        }
        Ok(())
    }
}

/// Largest batch buffer that goes back to the reader: a few ordinary batches' worth.
const RECYCLED_BYTES: usize = 4 * crate::input::BATCH_BYTES;

/// What a run leaves: its counts, and the graph ([`Job::Graph`]) or the window
/// ([`Job::Reference`]) it built.
pub(super) struct Finished {
    pub summary: Summary,
    pub graph: Option<GraphBuilder>,
    pub window: Option<Window>,
    /// `--report`: what the page shows.
    pub report: Option<crate::report::Collector>,
}

/// `--helpers auto` calls the helpers when this many signed batches wait behind the one the
/// sequencer takes (the order queue holds 2 × threads + 2). With fewer, on two cores they
/// were called often enough to cost time (docs/performance.md).
const BEHIND: usize = 4;

/// What the sequencer signs with while it would wait: the work channel and a worker.
pub(super) struct Stealer {
    /// Batches no worker has taken yet.
    pub work: Receiver<ToSign>,
    /// This thread's signing state.
    pub worker: Worker,
}

/// How a `--state` run was stopped before its input ended.
enum Stop {
    Signal(i32),
    ClosedOutput,
}
