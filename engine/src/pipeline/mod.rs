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
//! | [`prepare`] | before the run: `--state` window, frozen IDF table; each stage's settings |
//! | `reference` | before the run: the `--against` documents, in a window of their own |
//! | [`signing`] | a worker: one line → a signed document |
//! | `ordered` | the ordered executor: tasks with result slots, consumed in order, the consumer signing while it waits (the binary's and `Deduper`'s) |
//! | `run` | the ordered pipeline's threads, and loading the `--against` reference |
//! | `sequencer` | the in-order loop; each job's consumer: `sequencer/filtered.rs` (the filter's verdicts), `sequencer/pairs.rs` (pairs, graphs), sign and reference in `sequencer/mod.rs` |
//! | `decision` | the filter modes' decision for one document (the sequencer's and `Deduper`'s) |
//! | `filter` | the filter job's consumer (the sequencer's and `Deduper`'s): decides, counts, names a match |
//! | `deduper` | [`Deduper`]: that decision in process, one document or a batch at a time |
//! | `differing` | where a dropped long text differs from its match, for the report page |
//! | `batch` | a program's batch signed on every thread and handed to `Deduper` in order |
//! | `components` | the sequencer's union–find when only components are wanted |
//! | `clock` | each thread's CPU summed by stage (`--stats` "cpu_seconds") |
//! | `helpers` | threads sharing a batch's lookups and verification with the sequencer |
//! | `pace` | how the filter's speculation cuts batches into pieces, adapting to how many hold, and whether it pays |
//! | `family_counts` | the filter's family summaries counted in input order by the signing threads, beside the commit |
//! | `speculate` | the filter's lookups of a batch made on every core, then committed in order where still valid |
//! | [`summary`] | the counts `--stats` prints |

mod batch;
mod clock;
mod components;
mod decision;
mod deduper;
mod differing;
mod family_counts;
mod filter;
mod helpers;
mod ordered;
mod outcome;
mod pace;
pub mod prepare;
mod presize;
mod reference;
mod run;
mod sequencer;
pub mod signing;
mod speculate;
pub mod summary;

pub use batch::DocText;
pub use deduper::{BatchError, Deduper};
pub use outcome::{Match, Outcome};
pub use prepare::{Prepared, bad_lines, reading, verifier};
pub use signing::{Doc, NodeData, Signed, Worker};
pub use summary::Summary;

use crate::error::{Note, Notes, Result};
use crate::graph::DupGraph;
use crate::input::{Input, Source};
use crate::job::{GraphJob, Job};
use run::run_inner;
use std::io::{IsTerminal, Write};

/// Runs `job` with the settings of `prepared` over `inputs`, writing results to `out` and
/// diagnostics to `diagnostics`.
pub fn run<W: Write + Send, D: Notes>(
    prepared: &Prepared,
    job: &Job,
    inputs: Vec<Input>,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<Summary> {
    run_reporting(prepared, job, inputs, out, diagnostics, stderr_is_terminal).map(|r| r.0)
}

/// [`run`], and with `--report` what the page shows ([`crate::report::page`]).
pub fn run_reporting<W: Write + Send, D: Notes>(
    prepared: &Prepared,
    job: &Job,
    inputs: Vec<Input>,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<(Summary, Option<crate::report::Collector>)> {
    let source = Source::Lines(inputs);
    run_inner(prepared, job, source, out, diagnostics, stderr_is_terminal)
        .map(|f| (f.summary, f.report))
}

/// Runs [`Job::Graph`] with `graph`'s settings over `source` (inputs, or a program's own
/// batches) and returns the graph of documents and verified pairs. Nothing is written but
/// diagnostics.
pub fn collect_graph<D: Notes>(
    prepared: &Prepared,
    graph: GraphJob,
    source: impl Into<Source>,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<(Summary, DupGraph)> {
    collect_graph_reporting(prepared, graph, source, diagnostics, stderr_is_terminal)
        .map(|(summary, graph, _)| (summary, graph))
}

/// [`collect_graph`], and with `--report` what the page shows of the documents and their
/// most similar earlier ones.
pub fn collect_graph_reporting<D: Notes>(
    prepared: &Prepared,
    graph: GraphJob,
    source: impl Into<Source>,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<(Summary, DupGraph, Option<crate::report::Collector>)> {
    let finished = run_inner(
        prepared,
        &Job::Graph(graph),
        source.into(),
        std::io::sink(),
        diagnostics,
        stderr_is_terminal,
    )?;
    let builder = finished.graph.unwrap_or_default();
    if !prepared.config.quiet
        && let Some((id, a, b)) = builder.first_repeated_id()
    {
        diagnostics.note(Note::warning(format!(
            "lines {a} and {b} have the same id ({id}), so the output names two documents \
             alike (check ‹id-field›; without it, ids are line numbers)"
        )));
    }
    let graph = builder.finish();
    Ok((finished.summary, graph, finished.report))
}

/// True when standard error is a terminal (progress is shown only then).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}
