//! The filter job (`--drop-dups`, `--only-dups`, `--annotate`) as the sequencer's consumer:
//! [`crate::pipeline::filter::Filter`] decides and counts (for [`crate::pipeline::Deduper`]
//! too), and the line is written, or not, as the output says.

use super::consumer::{Consumer, Left, Shared};
use crate::config::BadLinePolicy;
use crate::error::Result;
use crate::input::Batch;
use crate::job::Output;
use crate::output::Verdict;
use crate::pipeline::decision::Decision;
use crate::pipeline::filter::Filter;
use crate::pipeline::helpers::Helpers;
use crate::pipeline::signing::{Doc, Signed};
use crate::pipeline::summary::Summary;
use crate::window::Window;
use std::io::Write;

impl<W: Write> Consumer<W> for Filter {
    /// The filter decides, and the verdict is written as the output says.
    fn document(
        &mut self,
        at: &mut Shared<'_, W>,
        batch: &Batch,
        i: usize,
        signed: Signed,
    ) -> Result<()> {
        let against = self.reference.is_some().then_some(false);
        let output = self.job.output;
        let place = i.checked_sub(self.pace.base);
        let speculated = (place.and_then(|k| self.speculated.get_mut(k))).and_then(Option::take);
        // The next document's family keys, which its speculation made: their buckets start
        // loading while this one is decided (the sequencer asks for its band keys').
        if let Some(Some(next)) = place.and_then(|k| self.speculated.get(k + 1)) {
            at.window.prefetch_buckets(next.family_keys());
        }
        // Only an annotation writes a match's id.
        let annotates = output == Output::Annotate;
        let (decided, found) = Filter::document(
            self,
            at.config,
            &mut at.window,
            (signed, speculated),
            batch.lines[i].number,
            &mut at.summary,
            at.report.as_mut(),
            annotates,
        )?;
        if !output.writes(matches!(decided, Decision::Dup { .. })) {
            return Ok(());
        }
        match output {
            Output::Annotate => {
                let verdict = match &found {
                    None => Verdict::new_document(against),
                    Some(found) => found.verdict(against),
                };
                at.out.annotated_document(batch, i, verdict)
            }
            _ => at.out.document(batch, i),
        }
    }

    /// The batch's lookups made on every core before it is decided in order
    /// ([`crate::pipeline::speculate`]).
    fn speculate<'c>(
        &mut self,
        at: &mut Shared<'c, W>,
        batch: &Batch,
        piece: (usize, Vec<Doc>),
        helpers: &Helpers<'c>,
    ) -> Result<(Vec<Doc>, u64)> {
        let base = piece.0;
        crate::pipeline::speculate::speculate_batch(
            at.config,
            self,
            &mut at.window,
            &|i| batch.lines[base + i].number,
            piece,
            helpers,
            at.summary.speculated,
        )
    }

    fn piece(&self) -> usize {
        self.pace.piece()
    }

    fn batch_done(&mut self, at: &mut Shared<'_, W>) {
        self.piece_done(&mut at.window, at.summary.speculated);
    }

    fn bad_line(&mut self, policy: BadLinePolicy, summary: &mut Summary) -> bool {
        Filter::bad_line(self, policy, summary)
    }

    fn reference_docs(&self) -> Option<u64> {
        self.reference.as_ref().map(|r| r.len() as u64)
    }

    /// The window and the reference are freed here ([`Consumer::finish`]).
    fn finish(self: Box<Self>, window: Window) -> Left {
        drop((window, self));
        Left::default()
    }
}
