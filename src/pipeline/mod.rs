//! The pipeline: reader → signing workers → ordered sequencer → writer.
//!
//! ```text
//!  reader thread ──(batch, result slot)──▶ N − 1 workers: extract, normalise, shingle, sign
//!        │                                        │
//!        └──(result slots, in input order)──▶ sequencer (this thread): exact index,
//!                                              LSH window, verify, write; signs too
//!                                              while the next batch is not ready
//! ```
//!
//! The reader cuts the input into batches and sends each to the worker pool together with a
//! one-shot result channel; it sends the receiving ends, in input order, to the sequencer
//! (the ordered-pipeline pattern of gzp). The sequencer therefore sees documents in input
//! order whatever the scheduling, and it alone touches the window and stdout: the output
//! never depends on the thread count. Channels are bounded (2 × threads) for back-pressure.
//! When the sequencer stops early (closed pipe, `--on-bad-line fail`), dropping its receiver
//! makes the reader stop, which closes the work channel and lets the workers finish.
//!
//! | file | stage |
//! |---|---|
//! | [`prepare`] | before the run: `--state` window, frozen IDF table |
//! | `reference` | before the run: the `--against` documents, in a window of their own |
//! | [`signing`] | a worker: one line → a signed document |
//! | `sequencer` | input order: exact index, LSH window, verification, output |
//! | `filter` | the filter modes' decision for one document (the sequencer's and `Deduper`'s) |
//! | `deduper` | [`Deduper`]: that decision in process, one document or a batch at a time |
//! | `components` | the sequencer's union–find when only components are wanted |
//! | `helpers` | threads sharing a batch's lookups and verification with the sequencer |
//! | [`summary`] | the counts `--stats` prints |

mod components;
mod deduper;
mod filter;
mod helpers;
pub mod prepare;
mod reference;
mod sequencer;
pub mod signing;
pub mod summary;

pub use deduper::{Deduper, Match, Outcome};
pub use prepare::Prepared;
pub use signing::{Doc, NodeData, Signed, Worker};
pub use summary::Summary;

use crate::config::Mode;
use crate::error::{Error, Result};
use crate::graph::DupGraph;
use crate::input::{Input, LineReader};
use crossbeam_channel::bounded;
use helpers::Helpers;
use sequencer::{Finished, Ordered, Sequencer, Stealer};
use signing::{ToSign, sign};
use std::io::{IsTerminal, Write};
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

/// Runs the whole pipeline over `inputs`, writing results to `out` and diagnostics to
/// `diagnostics`.
pub fn run<W: Write, D: Write>(
    prepared: &Prepared,
    inputs: Vec<Input>,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<Summary> {
    run_inner(prepared, inputs, out, diagnostics, stderr_is_terminal).map(|f| f.summary)
}

/// Runs the pipeline in [`Mode::Graph`] (whatever the mode of `prepared` says) and returns
/// the graph of documents and verified pairs. Nothing is written but diagnostics.
pub fn collect_graph<D: Write>(
    prepared: &Prepared,
    inputs: Vec<Input>,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<(Summary, DupGraph)> {
    let mut prepared = prepared.clone();
    prepared.config.mode = Mode::Graph;
    let finished = run_inner(
        &prepared,
        inputs,
        std::io::sink(),
        diagnostics,
        stderr_is_terminal,
    )?;
    let builder = finished.graph.unwrap_or_default();
    if !prepared.config.quiet
        && let Some((id, a, b)) = builder.first_repeated_id()
    {
        let _ = writeln!(
            diagnostics,
            "neardup: warning: lines {a} and {b} have the same id ({id}), so the output names \
             two documents alike (check ‹id-field›; without it, ids are line numbers)"
        );
    }
    let graph = builder.finish();
    Ok((finished.summary, graph))
}

fn run_inner<W: Write, D: Write>(
    prepared: &Prepared,
    inputs: Vec<Input>,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<Finished> {
    let start = Instant::now();
    let (prepared, inputs, saved) = prepare::resume(prepared, inputs)?;
    let load_seconds = start.elapsed().as_secs_f64();
    // The reference is signed with the run's frozen IDF table, before the input is read.
    let reference = match prepared.config.against.is_empty() {
        true => None,
        false => Some(reference::load(&prepared, diagnostics, stderr_is_terminal)?),
    };
    let prepared = &prepared;
    let config = &prepared.config;
    if let Some(warning) = config.banding_warning()
        && !config.quiet
        && config.mode != Mode::Reference
    {
        let _ = writeln!(diagnostics, "neardup: warning: {warning}");
    }
    let threads = config.worker_threads().max(1);
    // The sequencer signs batches too while the next one in order is not signed yet, so it
    // is one of the `threads` signing threads: `-j 1` runs the whole pipeline but reading on
    // one thread, and `-j 2` keeps two cores busy with two threads.
    let workers = threads - 1;
    let lines_before = saved.as_ref().map_or(0, |s| s.lines);
    let written_before = saved.as_ref().and_then(|s| s.written);
    // Where a resumed run starts, and what of the output goes with it: after a kill -9, the
    // output's first `written` lines are the ones to keep.
    if let Some(saved) = &saved
        && !config.quiet
        && config.mode != Mode::Reference
    {
        let held = match saved.written {
            Some(n) => format!("the output already holds {n} lines"),
            None => "the state does not say how many output lines go with it (version 2)".into(),
        };
        let _ = writeln!(
            diagnostics,
            "neardup: resuming after input line {}; {held}",
            saved.lines
        );
    }
    // Batch buffers in flight: the channels' capacities plus one per thread; more are freed.
    let (recycle_tx, recycle_rx) = bounded::<Vec<u8>>(4 * threads + 4);
    let mut reader = LineReader::new(inputs, config.format)
        .cutting_lines_over(config.max_line_bytes)
        .numbered_after(lines_before)
        .recycling(recycle_rx);
    let names = reader.input_names();
    let (work_tx, work_rx) = bounded::<ToSign>(2 * threads);
    let (order_tx, order_rx) = bounded::<Ordered>(2 * threads + 2);
    // Batches signed (the sequencer compares it with what it has taken).
    let signed = AtomicUsize::new(0);
    let signed = &signed;

    std::thread::scope(|scope| {
        let reader_handle = scope.spawn(move || {
            loop {
                let batch = match reader.next_batch() {
                    Ok(Some(b)) => b,
                    Ok(None) => break,
                    Err(e) => {
                        let _ = order_tx.send(Ordered::Failed(e));
                        break;
                    }
                };
                let (slot_tx, slot_rx) = bounded(1);
                if order_tx.send(Ordered::Batch(slot_rx)).is_err() {
                    break;
                }
                if work_tx
                    .send(ToSign {
                        batch,
                        slot: slot_tx,
                    })
                    .is_err()
                {
                    break;
                }
            }
            reader.bytes_read()
        });
        for _ in 0..workers {
            let work_rx = work_rx.clone();
            scope.spawn(move || {
                let mut worker = Worker::new(prepared);
                for work in work_rx {
                    sign(&mut worker, work, signed);
                }
            });
        }

        // The other threads help look up and verify batches where every pair is wanted
        // (`--pairs`, the graph commands). In the filter modes each document's verdict
        // depends on the verdicts before it (only kept documents are compared with), and
        // `sign` never looks up.
        let helpers = (threads > 1 && config.lists_every_pair())
            .then(|| Helpers::start(scope, config, threads - 1));
        let mut sequencer =
            Sequencer::new(prepared, out, &names, stderr_is_terminal, helpers, signed);
        if let Some(saved) = saved {
            sequencer.window = saved.window;
            sequencer.summary.resumed = Some((saved.lines, saved.written.unwrap_or(0)));
        }
        sequencer.written_before = written_before.unwrap_or(0);
        sequencer.reference = reference;
        sequencer.lines = lines_before;
        sequencer.recycle = Some(recycle_tx);
        sequencer.stealer = Some(Stealer {
            work: work_rx,
            worker: Worker::new(prepared),
        });
        let result = sequencer.run(order_rx, diagnostics);
        let bytes_read = reader_handle
            .join()
            .map_err(|_| Error::Internal("the reader thread panicked".into()))?;
        let mut finished = result?;
        let summary = &mut finished.summary;
        summary.bytes_read = bytes_read;
        summary.seconds = start.elapsed().as_secs_f64();
        if let Some((load, _)) = &mut summary.state_seconds {
            *load = load_seconds;
        }
        Ok(finished)
    })
}

/// True when standard error is a terminal (progress is shown only then).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}
