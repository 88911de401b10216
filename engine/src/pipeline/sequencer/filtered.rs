//! The filter job (`--drop-dups`, `--only-dups`, `--annotate`) in the sequencer: its
//! consumer ([`crate::pipeline::decision::Filter`]) decides and counts, and the line is
//! written, or not, as the output says.

use super::Sequencer;
use crate::error::{Error, Result};
use crate::input::Batch;
use crate::job::Output;
use crate::output::Verdict;
use crate::pipeline::decision::Decided;
use crate::pipeline::signing::Signed;
use std::io::Write;

impl<W: Write> Sequencer<'_, W> {
    /// A document of the filter job: its consumer decides, and the verdict is written as
    /// the output says.
    pub(super) fn filter_document(
        &mut self,
        batch: &Batch,
        i: usize,
        signed: Signed,
    ) -> Result<()> {
        let Some(filter) = &mut self.filter else {
            return Err(Error::Internal(
                "a filter document without the filter".into(),
            ));
        };
        let against = filter.reference.is_some().then_some(false);
        let output = filter.job.output;
        let decided = filter.document(
            self.config,
            &mut self.window,
            signed,
            batch.lines[i].number,
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
        if !output.writes(verdict.dup_of.is_some()) {
            return Ok(());
        }
        match output {
            Output::Annotate => self.out.annotated_document(batch, i, verdict),
            _ => self.out.document(batch, i),
        }
    }
}
