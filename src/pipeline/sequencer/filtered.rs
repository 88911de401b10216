//! The consumer of the filter job (`--drop-dups`, `--only-dups`, `--annotate`): the decision
//! ([`crate::pipeline::decision::filter`]), then the line written, or not, as the output says.

use super::Sequencer;
use crate::error::{Error, Result};
use crate::input::Batch;
use crate::job;
use crate::output::{Results, Verdict};
use crate::pipeline::decision::{Decision, Filtering, filter, window_of};
use crate::pipeline::signing::Signed;
use crate::pipeline::summary::Summary;
use crate::report::Matched;
use std::io::Write;

impl<W: Write> Sequencer<'_, W> {
    /// A document of the filter modes: [`filter`] decides, and the verdict is written as the
    /// mode says.
    pub(super) fn filter_document(
        &mut self,
        batch: &Batch,
        i: usize,
        mut signed: Signed,
        output: job::Output,
    ) -> Result<()> {
        let against = self.reference.is_some().then_some(false);
        let line = batch.lines[i].number;
        // `--report`: what the page shows of the document, before the window takes it.
        let shown = self.report.is_some().then(|| {
            (
                signed.id.clone(),
                signed.node.take().and_then(|n| n.report_text),
            )
        });
        let decision = filter(
            &Filtering::new(self.config, output),
            self.reference.as_mut(),
            &mut self.window,
            signed,
            line,
            &mut self.scratch,
            &mut self.summary,
        )?;
        let dup_of;
        let verdict = match decision {
            Decision::New { below } => {
                if let (Some(report), Some((id, snippet))) = (&mut self.report, shown) {
                    report.kept(line, id, snippet, below);
                }
                Verdict::new_document(against)
            }
            Decision::Dup {
                held,
                in_reference,
                similarity,
                copy,
            } => {
                let window = window_of(&self.reference, &self.window, in_reference);
                dup_of = window.id(held).map_err(|e| Error::spill(e, line))?;
                if let (Some(report), Some((id, snippet))) = (&mut self.report, shown) {
                    let matched = Matched {
                        seq: held.seq,
                        id: &dup_of,
                        in_reference,
                    };
                    report.dropped(line, id, snippet, matched, similarity, copy);
                }
                Verdict {
                    dup_of: Some(&dup_of),
                    similarity,
                    copy,
                    reference: if in_reference { Some(true) } else { against },
                }
            }
        };
        emit(&mut self.out, &mut self.summary, output, batch, i, verdict)
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
    let is_dup = verdict.dup_of.is_some();
    let write = match output {
        job::Output::DropDups => !is_dup,
        job::Output::OnlyDups => is_dup,
        job::Output::Annotate => true,
    };
    if !write {
        return Ok(());
    }
    summary.written += 1;
    if output == job::Output::Annotate {
        out.annotated_document(batch, i, verdict)
    } else {
        out.document(batch, i)
    }
}
