//! The filter in process, for programs that hand documents over themselves (the Python
//! module): [`Deduper::add`] one at a time, or [`Deduper::add_many`] a batch signed on every
//! core. The same signing ([`Worker::sign_text`]) and the same decision ([`filter`]) as
//! `--drop-dups` and `--annotate`, without lines, files or output, so it keeps exactly the
//! documents the command line keeps.
//!
//! A batch goes through the command line's ordered executor (`super::batch`): its
//! documents are cut into chunks, signed by `threads − 1` threads and by the calling thread,
//! and decided in input order by the calling thread, which signs a chunk itself while the
//! next one in order is not ready. A few chunks per thread are signed ahead of the
//! decisions, so the memory a batch needs beyond its texts is bounded. With helpers (`threads` > 2, or
//! `helpers="always"`), a chunk's lookups are made on every core against the window as it
//! stood before it and committed in order, as the command line does (`super::speculate`):
//! the same outcomes, decided on every core.

use super::batch::{DocText, sign_in_order};
use super::decision::Speculated;
use super::filter::Filter;
use super::helpers::Helpers;
use super::outcome::Outcome;
use super::prepare::Prepared;
use super::presize::Presizer;
use super::signing::{Doc, Worker, ask_ahead};
use super::summary::Summary;
use crate::config::{BadLinePolicy, Config, HelperPolicy, Settings, Weights};
use crate::error::{Error, Note, Result, Wording};
use crate::input::{BadLine, BadLines, DocId};
use crate::job::{FilterJob, Job};
use crate::window::Window;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A batch that stopped part way ([`Deduper::add_many`]): the documents before the one that
/// failed were decided (and those kept are held), in order; the rest were not looked at.
#[derive(Debug)]
pub struct BatchError {
    /// The outcomes of the documents decided, the batch's first ones.
    pub decided: Vec<Outcome>,
    /// Why the next one was not.
    pub error: Error,
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for BatchError {}

impl From<BatchError> for Error {
    fn from(e: BatchError) -> Error {
        e.error
    }
}

/// The filter over documents handed over one by one or in batches.
pub struct Deduper {
    prepared: Prepared,
    /// The filter job's consumer, as the command line's: what it writes (it counts the
    /// documents it would write), its reference, state and report.
    filter: Filter,
    window: Window,
    /// Reference texts given ([`Deduper::add_reference`]): the next one's position is this
    /// plus 1.
    reference_texts: u64,
    /// Reference texts waiting for the IDF table `--idf-warmup` learns, with their ids.
    pending_reference: Vec<(String, Option<DocId>)>,
    /// One per thread, once the IDF table (if any) is known; the first is the caller's.
    workers: Vec<Worker>,
    summary: Summary,
    /// Time spent in `add` and `add_many` (the summary's `seconds`).
    busy: Duration,
    /// Warnings not yet taken ([`Deduper::take_warnings`]).
    warnings: Vec<Note>,
    /// Whether the window's limit was warned of.
    limit_said: bool,
    /// `--report`: what the page shows ([`Deduper::write_report`]).
    report: Option<crate::report::Collector>,
    /// Sizes the window for the documents a program said it hands over
    /// ([`Deduper::expect_documents`]): that many in all, those decided before included.
    presizer: Presizer,
    expected: u64,
}

impl Deduper {
    /// The filter `filter` (an [`Output`](crate::job::Output) alone: no reference, state or
    /// report) with the settings of `config` (validated;
    /// [`Output::Annotate`](crate::job::Output::Annotate) names the most similar match, the
    /// others the first found). Its
    /// inputs and output are not used; an `--idf` table and the `--against` files are loaded
    /// now, or, with `--idf-warmup N`, the table is learnt from the first N documents of the
    /// first [`Deduper::add_many`] and the reference is signed with it then. With
    /// `--state FILE`, a window saved there (by [`Deduper::save`] or by the command line) is
    /// resumed when the file exists, under the same checks as the command line's.
    pub fn new(config: Settings, filter: impl Into<FilterJob>) -> Result<Deduper> {
        let filter = filter.into();
        let job = Job::Filter(filter.clone());
        if config.block_by.is_some() {
            return Err(Error::config(
                "block-by",
                "reads a JSON field of each line; give each block a Deduper of its own",
            ));
        }
        let mut prepared = Prepared::new(config)?;
        if let Some(path) = &prepared.config.sketch.idf_path {
            let table = crate::sketch::weights::IdfTable::load(path, &prepared.shingling())?;
            prepared.idf = Some(Arc::new(table));
        }
        super::prepare::check_spill_dir(&prepared.config, &job)?;
        prepared.config = (prepared.config.clone()).with_report(job.report().is_some());
        let saved = super::prepare::load_state(&mut prepared, &job)?;
        let mut warnings = Vec::new();
        if let Some(warning) = prepared.config.warning.clone()
            && !prepared.config.quiet
        {
            warnings.push(Note::warning(warning));
        }
        let config = &prepared.config;
        let (window, lines) = match saved {
            Some(saved) => (saved.window, (saved.lines, saved.written.unwrap_or(0))),
            None => {
                let window = Window::with_settings(super::prepare::window_settings(config, &job));
                (window, (0, 0))
            }
        };
        // As the command line's sequencer does: on several threads, the window's chores
        // are done beside the decisions.
        let window = window.with_chores(config.worker_threads());
        let mut deduper = Deduper {
            window,
            reference_texts: 0,
            pending_reference: Vec::new(),
            workers: Vec::new(),
            summary: Summary {
                docs_read: lines.0,
                written: lines.1,
                max_memory: (
                    config.memory.max_memory as u64,
                    config.memory.memory_limit.as_ref().map(|l| l.source),
                ),
                ..Summary::default()
            },
            busy: Duration::ZERO,
            prepared,
            filter: Filter::new(filter, None),
            warnings,
            limit_said: false,
            report: None,
            presizer: Presizer::done(),
            expected: 0,
        };
        deduper.report = deduper.filter.job.report.as_ref().map(|_| {
            let config = &deduper.prepared.config;
            crate::report::Collector::new(config.verify.threshold, config.sketch.seed)
                .within(config.memory.report_share())
        });
        // The reference is signed with the run's IDF table, as the command line signs it:
        // with `--idf-warmup`, once the first batch has taught it.
        if deduper.idf_known() {
            deduper.load_reference()?;
            deduper.start_workers();
        }
        Ok(deduper)
    }

    /// A Deduper for the settings and job of a filter command line
    /// (`neardup::cmd::Args::filter_settings`): the job must filter (`--pairs` does not).
    pub fn for_job(config: Settings, job: &Job) -> Result<Deduper> {
        match job {
            Job::Filter(filter) => Deduper::new(config, filter.clone()),
            _ => Err(Error::config(
                "pairs",
                "does not apply: a Deduper filters the documents",
            )),
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.prepared.config
    }

    /// The filter as a job of the pipeline (what the workers sign for and a save records).
    fn job(&self) -> Job {
        Job::Filter(self.filter.job.clone())
    }

    /// The counts so far, as `--stats` prints them: documents added are `docs_read`, kept
    /// ones `written`, their texts' bytes `bytes_read`, and `seconds` the time spent adding.
    pub fn summary(&self) -> Summary {
        let mut summary = self.summary.clone();
        summary.seconds = self.busy.as_secs_f64();
        summary.window_docs = self.window.len() as u64;
        summary.evictions = self.window.evictions();
        summary.window_ram_bytes = self.window.ram_bytes() as u64;
        summary.ram_bytes_per_doc = self.window.ram_bytes_per_doc();
        summary.window_disk_bytes = self.window.disk_bytes();
        summary.window_bytes = self.window.approx_bytes() as u64;
        summary.reference_docs = self.filter.reference.as_ref().map(|r| r.len() as u64);
        summary
    }

    /// Saves the window, the IDF table and the count of documents added to `path` (by
    /// default the `--state` file), as `--state` does: a later `Deduper` or command line with
    /// the same settings and `--state` resumes from it, or takes it as an `--against`
    /// reference.
    pub fn save(&mut self, path: Option<&Path>) -> Result<()> {
        let path = path
            .or(self
                .filter
                .job
                .state
                .as_ref()
                .map(|state| state.path.as_path()))
            .ok_or_else(|| {
                Error::config("state", "give a file to save to (no ‹state› file was set)")
            })?;
        let converted = crate::state::save(
            path,
            &crate::state::settings(
                &self.prepared.config,
                &self.job(),
                &self.prepared.shingling(),
            ),
            &mut self.window,
            (self.summary.docs_read, self.summary.written),
            self.prepared.idf.as_deref(),
            &[],
        )?;
        self.warnings.extend(converted);
        Ok(())
    }

    /// The warnings since the last call (settings, the reference's bad lines, the window
    /// reaching its memory limit), each once, as the command line says them on stderr.
    pub fn take_warnings(&mut self) -> Vec<Note> {
        if !self.limit_said
            && let Some(limit) = self.window.limited()
        {
            self.limit_said = true;
            if !self.prepared.config.quiet {
                let note = super::summary::limit_note(
                    &self.prepared.config,
                    limit,
                    &self.window,
                    self.summary.docs_read,
                );
                self.warnings.push(note);
            }
        }
        std::mem::take(&mut self.warnings)
    }

    /// Decides one document: its text (or a missing value, `None`), and its id (by default
    /// its number, counting from 1 over all documents added). An error only under
    /// `--on-bad-line fail`, or with `--idf-warmup` before the table is learnt.
    pub fn add(&mut self, text: impl DocText, id: Option<DocId>) -> Result<Outcome> {
        if self.workers.is_empty() {
            return Err(Error::config(
                "idf-warmup",
                "the IDF table is learnt from the first batch of documents: add a batch first",
            ));
        }
        let start = Instant::now();
        let number = self.summary.docs_read + 1;
        let id = id.unwrap_or(DocId::Line(number));
        let doc = match text.text() {
            Some(text) => self.workers[0].sign_text(text, id),
            None => Doc::Bad(BadLine::Missing),
        };
        let outcome = self.decide(doc, None);
        if outcome.is_ok() {
            self.summary.bytes_read += text.text().map_or(0, str::len) as u64;
        }
        self.busy += start.elapsed();
        outcome
    }

    /// Decides a batch of documents, in order, signing them on every thread (`--threads`):
    /// the same outcomes as [`Deduper::add`] one by one. Under `--on-bad-line fail` a bad
    /// document stops the batch: the error has the outcomes of the documents before it, which
    /// were decided (and are held if kept), so that a retry can start after them.
    pub fn add_many<T: DocText>(
        &mut self,
        docs: &[(T, Option<DocId>)],
    ) -> std::result::Result<Vec<Outcome>, BatchError> {
        if docs.is_empty() {
            // Nothing to learn an IDF table from, nor to decide.
            return Ok(Vec::new());
        }
        let start = Instant::now();
        if self.workers.is_empty()
            && let Err(error) = self.learn_idf(docs)
        {
            return Err(BatchError {
                decided: Vec::new(),
                error,
            });
        }
        let first = self.summary.docs_read + 1;
        let mut outcomes = Vec::with_capacity(docs.len());
        // Out of `self` while the batch runs, so that the decisions can borrow it.
        let mut workers = std::mem::take(&mut self.workers);
        let config = self.prepared.config.clone();
        let helping = self.helpers(workers.len());
        let clock = super::clock::StageClock::default();
        let helpers = (helping > 0).then_some((&*config, helping, &clock));
        let result = sign_in_order(&mut workers, docs, first, helpers, |signed, texts, help| {
            let before = outcomes.len();
            let decided = self.decide_chunk(signed, help.map(|h| (h, &*config)), &mut outcomes);
            let counts = (self.summary.docs_read, self.summary.candidates);
            (self.presizer).after_documents(self.expected, counts, &mut self.window);
            // The documents decided (all of the chunk's, or those before an error).
            for (text, _) in &texts[..outcomes.len() - before] {
                self.summary.bytes_read += text.text().map_or(0, str::len) as u64;
            }
            decided
        });
        self.workers = workers;
        self.busy += start.elapsed();
        match result {
            Ok(()) => Ok(outcomes),
            Err(error) => Err(BatchError {
                decided: outcomes,
                error,
            }),
        }
    }

    /// Says that about `n` more documents are coming (a hint, e.g. the length of a list
    /// handed over in slices): once enough of them are decided to know the share the window
    /// keeps, its tables are sized for them at once instead of growing as they come, as the
    /// command line does from its input's size. Changes no outcome.
    pub fn expect_documents(&mut self, n: u64) {
        self.expected = self.summary.docs_read.saturating_add(n);
        self.presizer = Presizer::default();
    }

    /// `--idf-warmup N` before the table is learnt: N, the documents the next
    /// [`Deduper::add_many`] learns it from.
    pub fn idf_pending(&self) -> Option<usize> {
        self.workers
            .is_empty()
            .then_some(self.prepared.config.sketch.idf_warmup)
    }

    /// Whether the signing settings are complete (the IDF table, for `--weights tfidf`).
    fn idf_known(&self) -> bool {
        self.prepared.config.sketch.weights != Weights::TfIdf || self.prepared.idf.is_some()
    }

    /// One worker per thread.
    fn start_workers(&mut self) {
        let threads = self.prepared.config.worker_threads().max(1);
        self.workers = (0..threads)
            .map(|_| Worker::new(&self.prepared, &self.job()))
            .collect();
    }

    /// `--idf-warmup N`: learns the table from the first N documents, as the command line
    /// does from its first N lines.
    fn learn_idf<T: DocText>(&mut self, docs: &[(T, Option<DocId>)]) -> Result<()> {
        // A missing value is a document with no words, as an empty text is.
        self.prepared
            .learn_idf(docs.iter().map(|(text, _)| text.text()));
        self.load_reference()?;
        self.start_workers();
        // The held texts were counted, and given their ids, when they were handed over.
        let (pending, given) = (
            std::mem::take(&mut self.pending_reference),
            self.reference_texts,
        );
        let signed = self.add_reference(&pending);
        self.reference_texts = given;
        signed
    }

    /// Adds documents to the reference (as `--against` files' are; `docs` are texts, or
    /// `None` for a missing value, with their ids, else their positions among the reference
    /// texts from 1): the documents decided after are compared with them. Signed now on
    /// every thread, or, with `--idf-warmup` before the first batch, kept until that batch
    /// has taught the table. A text that is not a document is left out and said in a
    /// warning; under `--on-bad-line fail` it is an error (the texts before it were added).
    pub fn add_reference<T: DocText>(&mut self, docs: &[(T, Option<DocId>)]) -> Result<()> {
        let first = self.reference_texts + 1;
        if !self.idf_known() {
            return self.hold_reference(docs, first);
        }
        let mut window = match self.filter.reference.take() {
            Some(window) => window,
            None => {
                let reference = super::reference::prepared_for(&self.prepared, Vec::new())?;
                super::reference::empty_window(&reference)
            }
        };
        // Signing needs the workers, which exist once the table is known.
        let mut workers = std::mem::take(&mut self.workers);
        let mut bad = BadLines::new(self.prepared.config.read.on_bad_line, 0, true);
        let mut number = first;
        let result = sign_in_order(&mut workers, docs, first, None, |signed, _, _| {
            for doc in signed {
                number += 1;
                match doc {
                    Doc::Good(signed) => {
                        let seq = window.newest_seq() + 1;
                        let entry = super::decision::into_entry(signed, false);
                        window
                            .insert(seq, entry)
                            .map_err(|e| Error::spill(e, seq))?;
                    }
                    Doc::Bad(reason) => bad_reference(&mut bad, number - 1, &reason)?,
                }
            }
            Ok(())
        });
        self.workers = workers;
        self.reference_texts = number - 1;
        self.filter.reference = Some(window);
        self.say_bad_reference(bad);
        result
    }

    /// Reference texts given before `--idf-warmup`'s table is learnt: what is not a document
    /// (a missing value, a text without words) is found now, as signing would find it, so
    /// that its error or warning comes with the texts; the others wait, with their ids, for
    /// the table.
    fn hold_reference<T: DocText>(
        &mut self,
        docs: &[(T, Option<DocId>)],
        first: u64,
    ) -> Result<()> {
        let mut bad = BadLines::new(self.prepared.config.read.on_bad_line, 0, true);
        let mut normalized = crate::text::normalize::Normalized::default();
        let mut result = Ok(());
        for ((text, id), number) in docs.iter().zip(first..) {
            self.reference_texts = number;
            let Some(text) = text.text() else {
                result = bad_reference(&mut bad, number, &BadLine::Missing);
                if result.is_err() {
                    break;
                }
                continue;
            };
            let normalizer = &self.prepared.config.text.normalizer;
            if let Err(reason) = normalizer.document_into(text, &mut normalized) {
                result = bad_reference(&mut bad, number, &reason);
                if result.is_err() {
                    break;
                }
                continue;
            }
            let id = id.clone().unwrap_or(DocId::Line(number));
            self.pending_reference.push((text.to_string(), Some(id)));
        }
        self.say_bad_reference(bad);
        result
    }

    /// The warning about the reference texts left out, if any.
    fn say_bad_reference(&mut self, bad: BadLines) {
        if let Some(reason) = bad.first()
            && !self.prepared.config.quiet
        {
            self.warnings.push(Note::warning(format!(
                "{} reference text(s) left out: not documents (the first: {reason})",
                bad.count()
            )));
        }
    }

    /// Reference texts given so far ([`Deduper::add_reference`]; after an error, up to the
    /// one that failed).
    pub fn reference_texts(&self) -> u64 {
        self.reference_texts
    }

    /// Compares the documents decided from now on with the reference alone (as
    /// `--against-only`), for a reference of texts ([`Deduper::add_reference`]).
    pub fn compare_with_reference_only(&mut self) {
        self.filter.job.against.only = true;
    }

    /// Loads the `--against` reference, if any; what the command line would write on stderr
    /// meanwhile becomes warnings for the caller.
    fn load_reference(&mut self) -> Result<()> {
        if self.filter.job.against.is_empty() {
            return Ok(());
        }
        let mut said = Vec::new();
        self.filter.reference = Some(super::run::load_reference(
            &self.prepared,
            &self.filter.job.against,
            &mut said,
            false,
        )?);
        self.warnings.extend(said);
        Ok(())
    }

    /// Writes the `--report` page of the documents added so far to `path`, or to the
    /// `--report` file (`-`: standard output). The page names the call that made the run:
    /// `call`, or this filter's mode as `wording` says ([`crate::report::filter_mode`]).
    pub fn write_report(
        &self,
        path: Option<&Path>,
        call: Option<&str>,
        wording: Wording,
    ) -> Result<()> {
        let config = &self.prepared.config;
        let (Some(collector), Some(path)) =
            (&self.report, path.or(self.filter.job.report.as_deref()))
        else {
            return Err(Error::config(
                "report",
                "give a file to write the page to (no ‹report› file was set)",
            ));
        };
        let stats = self.summary().to_json();
        let mode = call.unwrap_or(crate::report::filter_mode(self.filter.job.output, wording));
        crate::report::write(config, mode, false, &stats, collector, path)
    }

    /// Speculation helpers for a batch signed by `workers` threads: as the command line
    /// starts them (`pipeline/run.rs`), one fewer than the threads when there are more than
    /// two (on two, the second thread signs and a helper would only take its core) or
    /// `--helpers always` asks; none on one thread or with `never`.
    fn helpers(&self, workers: usize) -> usize {
        match self.prepared.config.helpers {
            HelperPolicy::Never => 0,
            HelperPolicy::Always => workers.saturating_sub(1),
            HelperPolicy::Auto if workers > 2 => workers - 1,
            HelperPolicy::Auto => 0,
        }
    }

    /// Decides a chunk of signed documents in order, pushing each outcome: with `helpers`,
    /// piece by piece, each piece's lookups made on every core first
    /// ([`super::speculate::speculate_batch`]) and committed here. An error stops the chunk
    /// (the outcomes before it stand).
    fn decide_chunk<'v>(
        &mut self,
        docs: Vec<Doc>,
        helpers: Option<(&Helpers<'v>, &'v Config)>,
        outcomes: &mut Vec<Outcome>,
    ) -> Result<()> {
        let Some((helpers, config)) = helpers else {
            let mut docs = docs.into_iter();
            while let Some(doc) = docs.next() {
                ask_ahead(&self.window, docs.as_slice());
                outcomes.push(self.decide(doc, None)?);
            }
            return Ok(());
        };
        // Under `fail` a piece ends at a bad document: the documents after it must not be
        // counted in the family summaries (speculating counts them) when the batch stops
        // there, so that a retry from it goes on as one thread would.
        let fail = self.prepared.config.read.on_bad_line == BadLinePolicy::Fail;
        let mut left = docs.into_iter();
        while left.len() > 0 {
            let mut piece = Vec::new();
            while piece.len() < self.filter.pace.piece()
                && let Some(doc) = left.next()
            {
                let bad = matches!(doc, Doc::Bad(_));
                piece.push(doc);
                if fail && bad {
                    break;
                }
            }
            let first = self.summary.docs_read + 1;
            let (piece, _) = super::speculate::speculate_batch(
                config,
                &mut self.filter,
                &mut self.window,
                &|i| first + i as u64,
                (0, piece),
                helpers,
                self.summary.speculated,
            )?;
            let mut decided = Ok(());
            let mut docs = piece.into_iter();
            let mut k = 0;
            while let Some(doc) = docs.next() {
                ask_ahead(&self.window, docs.as_slice());
                let speculated = self.filter.speculated.get_mut(k).and_then(Option::take);
                k += 1;
                match self.decide(doc, speculated) {
                    Ok(outcome) => outcomes.push(outcome),
                    Err(e) => {
                        decided = Err(e);
                        break;
                    }
                }
            }
            self.filter
                .piece_done(&mut self.window, self.summary.speculated);
            decided?;
        }
        Ok(())
    }

    /// Decides a signed document, in input order (`speculated`: its lookups made before
    /// its piece, if they were).
    fn decide(&mut self, doc: Doc, speculated: Option<Speculated>) -> Result<Outcome> {
        let number = self.summary.docs_read + 1;
        let config = &self.prepared.config;
        if let (Doc::Bad(reason), BadLinePolicy::Fail) = (&doc, config.read.on_bad_line) {
            // Not added: the counts stay those of the documents decided, which a retry
            // from this one goes on from.
            return Err(Error::BadLine {
                place: format!("document {number}"),
                reason: reason.to_string(),
            });
        }
        self.summary.docs_read = number;
        let signed = match doc {
            Doc::Good(signed) => signed,
            Doc::Bad(reason) => {
                self.filter
                    .bad_line(config.read.on_bad_line, &mut self.summary);
                return Ok(Outcome::Bad(reason));
            }
        };
        let (_, found) = self.filter.document(
            config,
            &mut self.window,
            (signed, speculated),
            number,
            &mut self.summary,
            self.report.as_mut(),
            true,
        )?;
        Ok(match found {
            None => Outcome::New,
            Some(found) => Outcome::Duplicate(found),
        })
    }
}

/// Reference text `number` is not a document, for `reason`: counted by `bad` (which says
/// nothing of each: the call's one warning does), or the error under `--on-bad-line fail`.
fn bad_reference(bad: &mut BadLines, number: u64, reason: &BadLine) -> Result<()> {
    let place = format!("reference text {number}");
    bad.add(place, reason, "left out", &mut Vec::<Note>::new())
}
