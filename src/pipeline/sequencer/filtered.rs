//! The consumer of the filter job (`--drop-dups`, `--only-dups`, `--annotate`): the decision
//! ([`crate::pipeline::decision::decide`]), then the line written, or not, as the output says.

use super::Sequencer;
use crate::error::Result;
use crate::input::Batch;
use crate::job;
use crate::output::{Results, Verdict};
use crate::pipeline::decision::{Decided, Filtering, decide};
use crate::pipeline::signing::Signed;
use crate::pipeline::summary::Summary;
use std::io::Write;

impl<W: Write> Sequencer<'_, W> {
    /// A document of the filter modes: [`filter`] decides, and the verdict is written as the
    /// mode says.
    pub(super) fn filter_document(
        &mut self,
        batch: &Batch,
        i: usize,
        signed: Signed,
        filter: &job::FilterJob,
    ) -> Result<()> {
        let against = self.reference.is_some().then_some(false);
        let decided = decide(
            &Filtering::new(self.config, filter),
            &mut self.reference,
            &mut self.window,
            signed,
            batch.lines[i].number,
            &mut self.scratch,
            &mut self.summary,
            self.report.as_mut(),
        )?;
        let verdict = match &decided {
            Decided::New => Verdict::new_document(against),
            Decided::Dup {
                dup_of,
                in_reference,
                similarity,
                copy,
            } => Verdict {
                dup_of: Some(dup_of),
                similarity: *similarity,
                copy: *copy,
                reference: if *in_reference { Some(true) } else { against },
            },
        };
        emit(
            &mut self.out,
            &mut self.summary,
            filter.output,
            batch,
            i,
            verdict,
        )
    }
}

/// Writes one document's line as the filter's `output` says.
fn emit<W: Write>(
    out: &mut Results<W>,
    summary: &mut Summary,
    output: job::Output,
    batch: &Batch,
    i: usize,
    verdict: Verdict<'_>,
) -> Result<()> {
    if !output.writes(verdict.dup_of.is_some()) {
        return Ok(());
    }
    summary.written += 1;
    if output == job::Output::Annotate {
        out.annotated_document(batch, i, verdict)
    } else {
        out.document(batch, i)
    }
}
