//! The filter job's consumer ([`Filter`]), as both drivers run it: the sequencer for the
//! command line and the in-process [`super::Deduper`]. It decides each document
//! ([`super::decision::filter`]), counts what the output writes and the bad lines, records
//! the `--report` page's entries, and names a duplicate's match where that is used.

use super::decision::{Decision, Filtering, Scratch, Speculated, filter, window_of};
use super::outcome::Match;
use super::signing::Signed;
use super::summary::Summary;
use crate::config::{BadLinePolicy, Config};
use crate::error::{Error, Result};
use crate::job::FilterJob;
use crate::report::{Collector, Matched};
use crate::window::Window;

/// The filter job as both drivers run it (the sequencer for the command line, the
/// in-process `Deduper`): its settings, its `--against` reference, and the scratch space of
/// its lookups.
pub(super) struct Filter {
    /// What it writes, its reference files, state and report.
    pub(super) job: FilterJob,
    /// The reference, once loaded (`None`: none).
    pub(super) reference: Option<Window>,
    pub(super) scratch: Scratch,
    /// The current batch's speculated lookups, by the documents' places in it from
    /// `speculation.base` (`None`: a document to look up in order), taken as each is
    /// decided.
    pub(super) speculated: Vec<Option<Speculated>>,
    /// How the batches are cut for speculation ([`super::pace::Pace`]).
    pub(super) pace: super::pace::Pace,
}

impl Filter {
    /// The filter `job` with its reference loaded (if it has one).
    pub(super) fn new(job: FilterJob, reference: Option<Window>) -> Filter {
        Filter {
            job,
            reference,
            scratch: Scratch::default(),
            speculated: Vec::new(),
            pace: super::pace::Pace::default(),
        }
    }

    /// Decides a document ([`filter`]) of a run of `config`, `number` its line (or document)
    /// number, and counts it written when the output writes it; with `report`, its entry
    /// on the page. `speculated`: its lookups made before its batch
    /// ([`super::decision::speculate`]). With `named`, a duplicate's match comes with its
    /// id ([`Filter::matched`]), read before the document is counted.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn document(
        &mut self,
        config: &Config,
        window: &mut Window,
        (signed, speculated): (Signed, Option<Speculated>),
        number: u64,
        summary: &mut Summary,
        report: Option<&mut Collector>,
        named: bool,
    ) -> Result<(Decision, Option<Match>)> {
        let settings = Filtering::new(config, &self.job);
        let decided = decide(
            config,
            &settings,
            &self.reference,
            window,
            (signed, speculated),
            number,
            &mut self.scratch,
            summary,
            report,
        )?;
        let found = match named {
            true => self.matched(window, decided, number)?,
            false => None,
        };
        let dup = matches!(decided, Decision::Dup { .. });
        if self.job.output.writes(dup) {
            summary.written += 1;
        }
        Ok((decided, found))
    }

    /// The match of a document [`Filter::document`] decided (`number`: its line or document
    /// number), with its id read from the record (`None`: kept). Asked only where the id is
    /// used: a dropped document's line is not written with it, and reading it was a record
    /// read and parse per duplicate in the in-order thread.
    fn matched(&self, window: &Window, decided: Decision, number: u64) -> Result<Option<Match>> {
        let Decision::Dup {
            held,
            in_reference,
            similarity,
            copy,
        } = decided
        else {
            return Ok(None);
        };
        let dup_of = window_of(&self.reference, window, in_reference)
            .id(held)
            .map_err(|e| Error::spill(e, number))?;
        Ok(Some(Match {
            dup_of,
            similarity,
            exact: copy,
            in_reference,
        }))
    }

    /// A piece's decisions are made (or stopped by an error): its speculations are dropped,
    /// the pace adapts to how many held (`speculated`, the run's count) and the window stops
    /// recording its changes.
    pub(super) fn piece_done(&mut self, window: &mut Window, speculated: u64) {
        self.speculated.clear();
        let now = std::time::Instant::now();
        self.pace.adapt(speculated, self.scratch.reconciled, now);
        window.stop_tracking();
    }

    /// A bad line under `policy`: counted, and counted written when the output passes it
    /// through (`--on-bad-line pass`, not `--only-dups`), which the answer says.
    pub(super) fn bad_line(&self, policy: BadLinePolicy, summary: &mut Summary) -> bool {
        summary.bad_lines += 1;
        let passes = self.job.output.passes(policy);
        if passes {
            summary.written += 1;
        }
        passes
    }
}

/// Decides a filter-mode document ([`filter`]) and records it in the `report` page, with
/// the id of its match. `number` is its line (or document) number.
#[allow(clippy::too_many_arguments)]
fn decide(
    config: &Config,
    settings: &Filtering<'_>,
    reference: &Option<Window>,
    window: &mut Window,
    (mut signed, speculated): (Signed, Option<Speculated>),
    number: u64,
    scratch: &mut Scratch,
    summary: &mut Summary,
    report: Option<&mut Collector>,
) -> Result<Decision> {
    // What the page shows of the document, before the window takes it (and, for a long
    // text, the whole of it, to find where it differs from its match if it is shown).
    let shown = report.is_some().then(|| {
        let node = signed.node.take().unwrap_or_default();
        (signed.id.clone(), node.report_text, node.report_whole)
    });
    let decision = filter(
        settings,
        reference.as_ref(),
        window,
        signed,
        number,
        scratch,
        summary,
        speculated,
    )?;
    match decision {
        Decision::New { below } => {
            if let (Some(report), Some((id, snippet, _))) = (report, shown) {
                report.kept(number, id, snippet, below);
            }
        }
        Decision::Dup {
            held,
            in_reference,
            similarity,
            copy,
        } => {
            if let (Some(report), Some((id, snippet, whole))) = (report, shown) {
                let held_in = window_of(reference, window, in_reference);
                let dup_of = held_in.id(held).map_err(|e| Error::spill(e, number))?;
                let matched = Matched {
                    seq: held.seq,
                    id: &dup_of,
                    in_reference,
                };
                let differs = || {
                    let whole = whole?;
                    let mut scratch = Vec::new();
                    let kept = held_in.view(held, &mut scratch).ok()?;
                    super::differing::first_difference(config, &whole, kept.compared().shingles)
                };
                let how = (similarity, copy);
                report.dropped(number, id, snippet, matched, how, differs);
            }
        }
    }
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BadLinePolicy::{Fail, Pass, Skip};
    use crate::input::DocId;
    use crate::job::{Job, Output};
    use crate::pipeline::prepare::Prepared;
    use crate::pipeline::signing::{Doc, Worker};

    /// A duplicate's match comes with its id only when asked for (the annotation, the
    /// `Deduper`); either way the decision, and the count of what is written, are the same.
    #[test]
    fn a_match_is_named_only_when_asked_and_counted_the_same() {
        let prepared = Prepared::new(crate::config::Config::default().validate().unwrap());
        let prepared = prepared.unwrap();
        let text = "the quick brown fox jumps over the lazy dog near the river bank today";
        for (output, named) in [(Output::DropDups, false), (Output::Annotate, true)] {
            let job = Job::Filter(output.into());
            let mut worker = Worker::new(&prepared, &job);
            let mut filter = Filter::new(output.into(), None);
            let mut window = Window::new(0);
            let mut summary = Summary::default();
            let mut decided = Vec::new();
            for (number, id) in [(1, "first"), (2, "second")] {
                let Doc::Good(signed) = worker.sign_text(text, DocId::Str(id.into())) else {
                    panic!("a document");
                };
                let config = &prepared.config;
                let doc = (signed, None);
                let at = (&mut window, &mut summary);
                let got = filter.document(config, at.0, doc, number, at.1, None, named);
                decided.push(got.unwrap());
            }
            assert!(matches!(decided[0], (Decision::New { .. }, None)));
            assert!(matches!(decided[1].0, Decision::Dup { copy: true, .. }));
            match named {
                true => {
                    let found = decided[1].1.as_ref().expect("named");
                    assert_eq!(found.dup_of, DocId::Str("first".into()));
                    assert!(found.exact && found.similarity == 1.0);
                }
                false => assert!(decided[1].1.is_none()),
            }
            let written = if output == Output::DropDups { 1 } else { 2 };
            assert_eq!(summary.written, written, "{output:?}");
        }
    }

    /// A bad line is counted, and counted written only when the output passes it through:
    /// the one count the sequencer and `Deduper` both keep.
    #[test]
    fn a_bad_line_counts_as_written_only_where_it_is_passed_through() {
        for (output, policy, written) in [
            (Output::DropDups, Pass, 1),
            (Output::Annotate, Pass, 1),
            (Output::OnlyDups, Pass, 0),
            (Output::DropDups, Skip, 0),
            (Output::Annotate, Fail, 0),
        ] {
            let filter = Filter::new(output.into(), None);
            let mut summary = Summary::default();
            assert_eq!(filter.bad_line(policy, &mut summary), written == 1);
            assert_eq!((summary.bad_lines, summary.written), (1, written));
        }
    }
}
