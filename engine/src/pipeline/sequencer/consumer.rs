//! A job's consumer ([`Consumer`]): what the sequencer hands each document to, in input
//! order, with what it may change ([`Shared`]: the window, the output, the counts, the
//! report). The sequencer keeps the order, signals, checkpoints, progress and bad-line
//! reports; what a document becomes is the consumer's: the filter's verdict (`filtered`),
//! `sign`'s keys and the `--against` reference's insert (here), the pairs and graph edges
//! (`pairs`).

use crate::config::{BadLinePolicy, Config};
use crate::error::{Error, Notes, Result};
use crate::graph::GraphBuilder;
use crate::input::{BadLine, BadLines, Batch, LineSpan};
use crate::job::{Job, SignJob};
use crate::output::Results;
use crate::pipeline::decision::into_entry;
use crate::pipeline::filter::Filter;
use crate::pipeline::helpers::Helpers;
use crate::pipeline::signing::{Doc, Signed};
use crate::pipeline::summary::Summary;
use crate::report::Collector;
use crate::window::Window;
use std::io::Write;

use super::pairing::Pairing;

/// The consumer of `job`; `reference` is the filter's `--against` window, if it has one.
pub(in crate::pipeline) fn of<'c, W: Write>(
    job: &Job,
    reference: Option<Window>,
) -> Box<dyn Consumer<W> + 'c> {
    match job {
        Job::Filter(filter) => Box::new(Filter::new(filter.clone(), reference)),
        Job::Sign(sign) => Box::new(SignKeys(*sign)),
        Job::Reference => Box::new(Reference),
        Job::Pairs(_) | Job::Graph(_) => Box::new(Pairing::new(job)),
    }
}

/// What a consumer works on, which the sequencer's loop reads too (the window for its
/// prefetches and notes, the output for flushes and checkpoints, the counts for `--stats`).
pub(in crate::pipeline) struct Shared<'c, W: Write> {
    pub config: &'c Config,
    pub window: Window,
    pub out: Results<W>,
    pub summary: Summary,
    /// `--report`: what the page shows, gathered decision by decision.
    pub report: Option<Collector>,
    /// Number of the last input line handled (continues a `--state`'s count).
    pub lines: u64,
}

/// What a consumer leaves when the input ends.
#[derive(Default)]
pub(in crate::pipeline) struct Left {
    /// The graph commands' graph.
    pub graph: Option<GraphBuilder>,
    /// The reference's window ([`crate::job::Job::Reference`]).
    pub window: Option<Window>,
}

/// What a job does with the documents the sequencer hands it in input order.
pub(in crate::pipeline) trait Consumer<W: Write> {
    /// Document `i` of `batch`, signed.
    fn document(
        &mut self,
        at: &mut Shared<'_, W>,
        batch: &Batch,
        i: usize,
        signed: Signed,
    ) -> Result<()>;

    /// Before a piece of a batch (its documents from place `piece.0`) is decided in order:
    /// work on its documents that may be done on every core first (the filter's
    /// speculation); returns the documents, and the CPU nanoseconds of this thread spent on
    /// what had to be done in input order all the same (the family keys), which counts as
    /// the commit's.
    fn speculate<'c>(
        &mut self,
        _at: &mut Shared<'c, W>,
        _batch: &Batch,
        piece: (usize, Vec<Doc>),
        _helpers: &Helpers<'c>,
    ) -> Result<(Vec<Doc>, u64)> {
        Ok((piece.1, 0))
    }

    /// How many documents the next piece of [`Consumer::speculate`] should hold.
    fn piece(&self) -> usize {
        usize::MAX
    }

    /// After a piece is decided in order.
    fn batch_done(&mut self, _at: &mut Shared<'_, W>) {}

    /// A line that is not a document, counted in `summary`: whether it is written through
    /// (only the filter's outputs that write input lines do; the other jobs skip it).
    fn bad_line(&mut self, _policy: BadLinePolicy, summary: &mut Summary) -> bool {
        summary.bad_lines += 1;
        false
    }

    /// Whether a batch that cannot evict anything may be done on all threads
    /// ([`Consumer::batch_in_parallel`]).
    fn parallel(&self) -> bool {
        false
    }

    /// The documents of a batch that cannot evict anything, on this thread and the helpers,
    /// with the same output and window as one by one; its bad lines are reported through
    /// `parallel`.
    fn batch_in_parallel<'c>(
        &mut self,
        _at: &mut Shared<'c, W>,
        _batch: &Batch,
        _docs: Vec<Doc>,
        _parallel: Parallel<'_, 'c>,
    ) -> Result<()> {
        Err(Error::Internal("this job has no parallel batches".into()))
    }

    /// A note to say once on stderr after a batch, if any.
    fn note(&mut self) -> Option<String> {
        None
    }

    /// Documents in its reference, if it has one (`--stats`' `reference_docs`).
    fn reference_docs(&self) -> Option<u64> {
        None
    }

    /// What it leaves: the window when it is what the job built, the graph. What it does
    /// not hand back (the window, a reference) is freed here, before the run returns: a few
    /// large blocks, so this takes milliseconds. (A detached thread used to free them while
    /// the process exited; a thread started at the end needs an allocator arena, which
    /// jemalloc could not map under an address-space limit, and the process died of SIGSEGV
    /// after its output was complete.)
    fn finish(self: Box<Self>, window: Window) -> Left;
}

/// What a batch done on all threads needs of the sequencer besides the shared state.
pub(in crate::pipeline) struct Parallel<'a, 'c> {
    pub helpers: Option<&'a Helpers<'c>>,
    /// Where its bad lines are reported, by input name and line.
    pub bad: &'a mut BadLines,
    pub names: &'a [String],
    pub diag: &'a mut dyn Notes,
}

impl Parallel<'_, '_> {
    /// A bad line of the batch, which the jobs done in parallel skip: reported.
    pub fn skipped(&mut self, line: &LineSpan, reason: &BadLine) -> Result<()> {
        self.bad
            .add(place(self.names, line), reason, "skipped", self.diag)
    }
}

/// Where `line` is, as the bad-line reports say it: `input:line`.
pub(super) fn place(names: &[String], line: &LineSpan) -> String {
    format!("{}:{}", names[line.input as usize], line.input_line)
}

/// `sign`: each document's band keys (and signature) as a line.
pub(in crate::pipeline) struct SignKeys(pub SignJob);

impl<W: Write> Consumer<W> for SignKeys {
    fn document(
        &mut self,
        at: &mut Shared<'_, W>,
        batch: &Batch,
        i: usize,
        signed: Signed,
    ) -> Result<()> {
        at.summary.written += 1;
        at.out.signed(
            &signed.id,
            batch.lines[i].number,
            &signed.band_keys,
            self.0.values.then_some(&signed.signature[..]),
        )
    }

    fn finish(self: Box<Self>, window: Window) -> Left {
        drop(window);
        Left::default()
    }
}

/// The `--against` reference being read: each document is held, none is written; the
/// window is what the run leaves.
pub(in crate::pipeline) struct Reference;

impl<W: Write> Consumer<W> for Reference {
    fn document(
        &mut self,
        at: &mut Shared<'_, W>,
        batch: &Batch,
        i: usize,
        signed: Signed,
    ) -> Result<()> {
        let line = batch.lines[i].number;
        at.window
            .insert(line, into_entry(signed, false))
            .map_err(|e| Error::spill(e, line))?;
        Ok(())
    }

    fn finish(self: Box<Self>, window: Window) -> Left {
        Left {
            window: Some(window),
            graph: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BadLinePolicy::{Pass, Skip};
    use crate::config::PairsFormat;
    use crate::job::{GraphJob, Output};

    /// Every job counts a bad line; only the filter's outputs that write input lines write
    /// it through, and only under `pass`. Only the jobs that list every pair may take a
    /// batch on all threads; no consumer has a note or a reference before it is given one.
    #[test]
    fn each_jobs_consumer_counts_bad_lines_and_says_what_it_can_do() {
        let sign = SignJob {
            format: PairsFormat::Tsv,
            values: false,
        };
        for (job, passes, parallel) in [
            (Job::Filter(Output::DropDups.into()), true, false),
            (Job::Filter(Output::Annotate.into()), true, false),
            (Job::Filter(Output::OnlyDups.into()), false, false),
            (Job::Pairs(PairsFormat::Tsv.into()), false, true),
            (Job::Graph(GraphJob::default()), false, true),
            (Job::Sign(sign), false, false),
            (Job::Reference, false, false),
        ] {
            for policy in [Pass, Skip] {
                let mut consumer = of::<Vec<u8>>(&job, None);
                let mut summary = Summary::default();
                let passed = consumer.bad_line(policy, &mut summary);
                assert_eq!(passed, passes && policy == Pass, "{job:?} {policy:?}");
                assert_eq!(summary.bad_lines, 1);
                assert_eq!(summary.written, u64::from(passed));
                assert_eq!(consumer.parallel(), parallel, "{job:?}");
                assert_eq!(consumer.note(), None);
                assert_eq!(consumer.reference_docs(), None);
            }
        }
    }
}
