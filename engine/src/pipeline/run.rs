//! The ordered pipeline that runs a job over inputs: the reader thread cuts batches, the
//! signing workers sign them, the sequencer (this thread) takes them in input order (see
//! the module map in `super`). Also how the `--against` reference is loaded, since signing
//! its corpus files is a run of its own.

use super::clock::{Stage, Timed};
use super::family_counts::FamilyCounts;
use super::helpers::Helpers;
use super::ordered::{self, Task};
use super::prepare::{self, Prepared, Setup};
use super::reference;
use super::sequencer::{Finished, Ordered, Sequencer, Start, Stealer, ToSign};
use super::signing::{Worker, sign, sign_between};
use crate::error::{Error, Notes, Result};
use crate::input::{Batch, Source};
use crate::job::Job;
use crate::window::Window;
use crossbeam_channel::bounded;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

/// The `--against` reference `files` of a run of `prepared`, loaded into a window
/// ([`reference::load`]); its corpus files are signed by a run of the pipeline with the
/// reference's settings.
pub(super) fn load_reference<D: Notes>(
    prepared: &Prepared,
    files: &crate::job::Reference,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<Window> {
    reference::load(prepared, files, |reference, inputs| {
        let finished = run_inner(
            reference,
            &Job::Reference,
            Source::Lines(inputs),
            std::io::sink(),
            diagnostics,
            stderr_is_terminal,
        )?;
        (finished.window).ok_or_else(|| Error::Internal("the reference run kept no window".into()))
    })
}

/// Runs `job` with the settings of `prepared` over `source`: results to `out`, diagnostics
/// to `diagnostics`; what the run leaves ([`Finished`]).
pub(super) fn run_inner<W: Write + Send, D: Notes>(
    prepared: &Prepared,
    job: &Job,
    source: Source,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<Finished> {
    let start = Instant::now();
    let (prepared, source, saved) = prepare::resume(prepared, job, source)?;
    let load_seconds = start.elapsed().as_secs_f64();
    // The reference is signed with the run's frozen IDF table, before the input is read.
    let reference = match job.against() {
        None => None,
        Some(reference) => Some(load_reference(
            &prepared,
            reference,
            diagnostics,
            stderr_is_terminal,
        )?),
    };
    let prepared = &prepared;
    let config = &prepared.config;
    let Setup {
        threads,
        fit,
        mut reader,
        table,
        halts,
        recycle: recycle_tx,
    } = prepare::setup(prepared, job, source, saved.as_ref(), diagnostics)?;
    // The sequencer signs batches too while the next one in order is not signed yet, so it
    // is one of the `threads` signing threads: `-j 1` runs the whole pipeline but reading on
    // one thread, and `-j 2` keeps two cores busy with two threads.
    let workers = threads - 1;
    let names = reader.input_names();
    // The order queue holds every batch between the reader and the sequencer (those waiting
    // to be signed too): with the one the reader fills and the one the sequencer takes, two
    // more than its capacity.
    let order = (2 * threads + 2).min(fit.saturating_sub(2)).max(2);
    let (work_tx, work_rx) = bounded::<ToSign>((2 * threads).min(order / 2).max(1));
    let (order_tx, order_rx) = bounded::<Ordered>(order);
    // Batches read and batches signed (the sequencer compares them with what it has taken,
    // and with each other: every batch read signed leaves the signing threads idle).
    let (read, signed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let (read, signed) = (&read, &signed);
    let clock = super::clock::StageClock::default();
    let clock = &clock;
    // The filter's family summaries are counted as batches are signed, in input order,
    // beside the commit; they start from the counts a resumed window was saved with.
    let counts = (job.filters() && !config.all_pairs).then(|| {
        let resumed = saved.as_ref().map(|s| s.window.family().clone());
        Arc::new(FamilyCounts::new(&resumed.unwrap_or_default()))
    });
    let counts = &counts;

    let finished = std::thread::scope(|scope| {
        let reader_handle = crate::guard::spawn_scoped(scope, "neardup-reader", move || {
            let _read = Timed(clock, Stage::Read);
            for ordinal in 0.. {
                let batch = match reader.next_batch() {
                    Ok(Some(b)) => Batch { ordinal, ..b },
                    Ok(None) => break,
                    Err(e) => {
                        let _ = order_tx.send(Ordered::Failed(e));
                        break;
                    }
                };
                let (task, slot) = Task::new(batch);
                // Counted before it is sent: every batch signed was counted here first.
                read.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if order_tx.send(Ordered::Batch(slot)).is_err() || work_tx.send(task).is_err() {
                    break;
                }
            }
            reader.bytes_read()
        });
        // The other threads help look up and verify batches: every pair where every pair is
        // wanted (`--pairs`, the graph commands); in the filter modes, the lookups of a batch
        // against the window before it, which the in-order commit uses where the batch
        // changed nothing they read, or bring up to date from what it changed (`speculate`).
        // `sign` and the reference never look up. With two threads the second signs, and a
        // helper thread beside it would be asleep when a piece is offered, woken only after
        // the sequencer had taken every run (and its stack and allocator arena take address
        // space a small `ulimit -v` needs): the filter's signing thread serves the offers
        // between its documents instead. With more, `threads − 1` helper threads serve them.
        let (helper_threads, servers) = match job {
            Job::Filter(_) if threads == 2 => (0, workers),
            _ => (threads - 1, 0),
        };
        let helps = matches!(job, Job::Filter(_)) || job.lists_every_pair();
        let (helpers, mut servers) = match threads > 1 && helps {
            true => {
                let (helpers, servers) = Helpers::start(scope, (helper_threads, servers), clock);
                (Some(helpers), servers)
            }
            false => (None, Vec::new()),
        };
        for _ in 0..workers {
            let work_rx = work_rx.clone();
            let server = servers.pop();
            crate::guard::spawn_scoped(scope, "neardup-signer", move || {
                let mut worker = Worker::new(prepared, job).counting(counts.clone());
                match server {
                    Some(server) => server.sign_and_serve(clock, work_rx, |batch, between| {
                        sign_between(&mut worker, batch, signed, between)
                    }),
                    None => {
                        let _sign = Timed(clock, Stage::Sign);
                        ordered::serve(work_rx, |batch| sign(&mut worker, batch, signed));
                    }
                }
            });
        }
        let handed = Start {
            names: &names,
            stderr_is_terminal,
            saved,
            reference,
            helpers,
            read,
            signed,
            recycle: recycle_tx,
            stealer: Stealer {
                work: work_rx,
                worker: Worker::new(prepared, job).counting(counts.clone()),
            },
            table,
            clock,
        };
        // On several threads the lines are written on a thread of their own, so that the
        // in-order commit does not make the system calls; a table's rows have their own.
        let writes_lines = !matches!(job, Job::Graph(_) | Job::Reference);
        let out = match threads > 1 && writes_lines && handed.table.is_none() {
            true => crate::output::Target::beside(scope, out),
            false => crate::output::Target::Here(out),
        };
        let sequencer = Sequencer::new(prepared, job, out, handed);
        let result = sequencer.run(order_rx, diagnostics);
        // A signing thread waiting for its turn to count would wait for batches never signed.
        if let Some(counts) = counts {
            counts.close();
        }
        // A run may return before its input ends (a stop, a bad line under `fail`, a write
        // error): a reader waiting on an idle live input gives up within a poll step, one
        // sending a batch finds the queue gone, so the reader is joined at once.
        for halt in &halts {
            halt.halt();
        }
        let bytes_read = reader_handle
            .join()
            .map_err(|_| Error::Internal("the reader thread panicked".into()))?;
        let mut finished = result?;
        let summary = &mut finished.summary;
        summary.bytes_read = bytes_read;
        summary.seconds = start.elapsed().as_secs_f64();
        summary.peak_rss = crate::limits::peak_rss();
        if let Some((load, _)) = &mut summary.state_seconds {
            *load = load_seconds;
        }
        Ok(finished)
    });
    // Every thread has ended and added its CPU.
    finished.map(|mut finished| {
        finished.summary.cpu_seconds = clock.seconds();
        finished
    })
}
