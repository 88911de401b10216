//! A run made ready before anything is signed: its validated [`Config`] with the tables
//! loaded for it — the stop words of `--shingle stopword`, the frozen IDF table of
//! `--weights tfidf` — and, with `--state`, the window saved by the last run.
//!
//! The settings say what to load; the loaded tables live here, not in [`Config`], so the
//! settings depend on no stage. Each stage is handed its own settings, made here from the
//! run's ([`verifier`], [`window_settings`], [`reading`], [`bad_lines`], the shingler), so
//! no stage reads the whole of [`Config`]. [`setup`] then makes what the run's threads start
//! with: the reader, the table output and the thread count.

use crate::config::{Config, OutputFormat, Settings, Weights};
use crate::corpus::Reading;
use crate::error::{Error, Note, Notes, Result};
use crate::input::columnar::{self, Columns};
use crate::input::{BadLines, Batch, Feed, Halt, Input, LineReader, Source};
use crate::job::Job;
use crate::output::table::{Encoding, StandardOutput, TableWriter};
use crate::sketch::weights::{IdfTable, settings_of};
use crate::state::Saved;
use crate::text::shingle::{Shingler, StopWords};
use crate::verify::Verifier;
use crate::window::{StoreSettings, WindowSettings};
use crossbeam_channel::{Sender, bounded};
use std::io::IsTerminal;
use std::sync::Arc;

/// A validated [`Config`] and the tables it names, shared by every thread of the run.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The settings.
    pub config: Settings,
    /// The stop words of `--shingle stopword`: `--stopwords FILE`, else a built-in English
    /// list.
    pub stopwords: Arc<StopWords>,
    /// The frozen IDF table of `--weights tfidf`, once [`Prepared::with_idf`] has loaded or
    /// learned it (else `None`).
    pub idf: Option<Arc<IdfTable>>,
    /// `‹state›`: the lock that makes this run its file's one writer ([`load_state`]).
    pub state_lock: Option<Arc<crate::state::Lock>>,
    /// Where a table with no output path goes ([`Prepared::with_standard_output`]); with
    /// none, such a table is refused.
    pub standard_output: Option<StandardOutput>,
}

/// The verification settings of a run: its threshold, `‹verify›` chain and what a word is.
pub fn verifier(config: &Config) -> Verifier<'_> {
    Verifier {
        settings: &config.verify,
        words: config.text.normalizer.words,
    }
}

/// The window `job` holds: its `‹window›` capacity, bucket limit, spill store and share of
/// `‹max-memory›`.
///
/// A job that bounds its buckets ([`Job::bounds_buckets`]) keeps `2 × ‹max-candidates›`
/// members in each. Candidates are ranked before any is verified, so a bucket can offer
/// more than are verified at the cost of a sketch comparison each. With the family keys
/// finding the members of a template family that changed the same places, verifying more
/// (48) and keeping 2× finds more of the exact greedy filter's drops than 32 and 3× for the
/// same bucket size (96) (docs/performance.md).
pub(crate) fn window_settings(config: &Config, job: &Job) -> WindowSettings {
    WindowSettings {
        capacity: config.window,
        bucket_limit: match job.bounds_buckets() {
            true => config.max_candidates.saturating_mul(2),
            false => 0,
        },
        store: StoreSettings {
            dir: config.memory.spill_dir.clone(),
            ram: config.memory.spill_cache(),
            // `‹max-disk›` bounds the spill file: with none, there is nothing to bound.
            disk: match config.memory.spill_dir {
                Some(_) => config.memory.max_disk,
                None => 0,
            },
            // The window of a run that saves an index spills into it (unless it may not
            // spill at all): its records are then written once.
            index: job
                .state()
                .map(|state| state.path.clone())
                .filter(|_| config.memory.spill_dir.is_some()),
        },
        budget: config.memory.window_budget(),
    }
}

/// The bad-line reporter of a run: its `‹on-bad-line›` policy, report limit and quietness.
pub fn bad_lines(config: &Config) -> BadLines {
    BadLines::new(
        config.read.on_bad_line,
        config.read.max_bad_line_reports,
        config.quiet,
    )
}

/// How a run reads a corpus outside the pipeline (`idf`, `hist`, `sample`, `explain`,
/// `‹idf-warmup›`): its format, fields, line limit and normalisation.
pub fn reading(config: &Config) -> Reading<'_> {
    Reading {
        format: config.read.format,
        field: &config.read.field,
        id_field: config.read.id_field.as_deref(),
        auto_ids: config.read.auto_ids,
        max_line_bytes: config.read.max_line_bytes,
        normalizer: &config.text.normalizer,
    }
}

/// The columns a columnar input's documents come from for `job` (its attribute columns, as
/// the signing worker takes a line's: [`crate::pipeline::Worker`]); `all` keeps every
/// column of the rows for an output that writes them ([`table_encoding`]).
pub fn columns(config: &Config, job: &Job, all: bool) -> Columns {
    let node_attrs = job
        .graph()
        .map(|g| g.node_attrs.clone())
        .unwrap_or_default();
    Columns {
        attrs: node_attrs
            .into_iter()
            .chain(config.block_by.clone())
            .collect(),
        field: config.read.field.clone(),
        id_field: config.read.id_field.clone(),
        all,
        max_bytes: config.read.max_line_bytes,
        auto_id: config.read.auto_ids,
        one_schema: false,
        unusable_id: None,
    }
}

/// How `job` writes its documents: `None` as lines, else the rows of a columnar input as a
/// table of this encoding. `-o FILE`'s extension and `--output-format` decide, else the first
/// input's kind (looked at here; its bytes stay to be read). A usage error for a table of
/// rows that lines cannot give, a table of a job that writes no rows, or Parquet or Arrow
/// bytes to a terminal.
pub fn table_encoding(
    config: &Config,
    job: &Job,
    inputs: &mut [Input],
) -> Result<Option<Encoding>> {
    let first = match inputs.first_mut() {
        Some(input) => {
            let head = columnar::head(input)?;
            columnar::Kind::of(config.read.format, &head)
        }
        None => None,
    };
    let by_name = config.run.output.as_ref().and_then(|p| {
        match p.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "parquet" | "pq" => Some(OutputFormat::Parquet),
            "arrow" | "arrows" | "ipc" | "feather" => Some(OutputFormat::Arrow),
            _ => None,
        }
    });
    let format = match (config.run.output_format, by_name, first) {
        (OutputFormat::Auto, Some(f), _) => f,
        (OutputFormat::Auto, None, Some(columnar::Kind::Parquet)) => OutputFormat::Parquet,
        (OutputFormat::Auto, None, Some(_)) => OutputFormat::Arrow,
        (OutputFormat::Auto, None, None) => OutputFormat::Lines,
        (f, _, _) => f,
    };
    // A report page on standard output (`neardup report`) is the run's output: no rows.
    let page_out = job.report().is_some_and(|p| p.as_os_str() == "-");
    let rows = job.filters() && *job != Job::Reference && !page_out;
    let table = matches!(format, OutputFormat::Parquet | OutputFormat::Arrow);
    let name = match format {
        OutputFormat::Parquet => "Parquet",
        _ => "Arrow",
    };
    if !rows {
        // A job that writes lines: a table asked for by name is a mistake (the graph
        // commands say so themselves: `clusters --keep` writes rows).
        let lines = matches!(job, Job::Pairs(_) | Job::Sign(_));
        let asked = lines && (config.run.output_format != OutputFormat::Auto || by_name.is_some());
        if table && asked {
            return Err(Error::Usage(format!(
                "{name} output is written by the filter modes (‹drop-dups›, ‹only-dups›, \
                 ‹annotate›); this command writes lines"
            )));
        }
        if lines && config.run.compression.is_some() {
            return Err(Error::config(
                "compression",
                "compresses the filter modes' Parquet output; this command writes lines",
            ));
        }
        return Ok(None);
    }
    if table && first.is_none() {
        let input = inputs.first().map_or("-", |i| i.name.as_str());
        return Err(Error::Usage(format!(
            "{name} output takes its rows from Parquet or Arrow input, and {input} is lines; \
             write lines (‹output-format› lines), or give the rows as Parquet"
        )));
    }
    if table && config.run.output.is_none() && std::io::stdout().is_terminal() {
        return Err(Error::Usage(format!(
            "refusing to write {name} to a terminal: give -o FILE, redirect standard output, \
             or ‹output-format› lines for JSON"
        )));
    }
    let encoding = match (format, first) {
        (OutputFormat::Parquet, _) => Some(Encoding::Parquet(
            config.run.compression.unwrap_or_default(),
        )),
        (OutputFormat::Arrow, _) => Some(Encoding::Arrow),
        (_, Some(_)) => Some(Encoding::Jsonl),
        (_, None) => None,
    };
    if config.run.compression.is_some() && !matches!(encoding, Some(Encoding::Parquet(_))) {
        return Err(Error::config(
            "compression",
            "compresses Parquet output, and this run writes lines (or an Arrow stream)",
        ));
    }
    // A checkpoint records the rows written so far as kept for good. A table file is put in
    // place only when the run ends (a failed run leaves its target as it was), and Parquet
    // or Arrow bytes on standard output are readable only whole (the footer), so a run
    // failing after a checkpoint would keep the checkpoint and lose the rows before it:
    // refused, not lost. JSON rows on standard output are lines, kept as written.
    let whole_only = match encoding {
        Some(Encoding::Jsonl) => config.run.output.is_some(),
        Some(_) => true,
        None => false,
    };
    if whole_only && job.state().is_some_and(|s| s.checkpoint_every > 0) {
        return Err(Error::Usage(
            "‹checkpoint-every› saves the state while the output is written, and this run's \
             output is a table written whole when the run ends: a run failing after a \
             checkpoint would lose the rows before it. Leave it out (‹state› is saved at the \
             end and on SIGINT or SIGTERM, with the table ended over the same rows), or write \
             lines to standard output"
                .into(),
        ));
    }
    Ok(encoding)
}

/// What a run's threads start with, made from its settings before any document is read.
pub(super) struct Setup {
    /// Signing threads, the sequencer among them (at least 1).
    pub threads: usize,
    /// Batch buffers in flight at most: the pipeline's share of `‹max-memory›`.
    pub fit: usize,
    /// What cuts the input into batches.
    pub reader: Feed,
    /// The table the kept rows are written to, for an output of rows.
    pub table: Option<TableWriter>,
    /// What ends a live input's wait when the run returns before its input ended.
    pub halts: Vec<Halt>,
    /// Where the consumed batches' buffers go back to the reader.
    pub recycle: Sender<Vec<u8>>,
}

/// The reader, the table and the thread count of a run of `job` with `prepared` (resumed,
/// [`resume`]) over `source`, after the line `saved` ends at; its warnings and where a
/// resumed run starts go to `diagnostics`.
pub(super) fn setup<D: Notes>(
    prepared: &Prepared,
    job: &Job,
    source: Source,
    saved: Option<&Saved>,
    diagnostics: &mut D,
) -> Result<Setup> {
    let config = &prepared.config;
    if let Some(warning) = &config.warning
        && !config.quiet
        && *job != Job::Reference
    {
        diagnostics.note(Note::warning(warning.clone()));
    }
    let threads = config.worker_threads().max(1);
    let lines_before = saved.map_or(0, |s| s.lines);
    // Where a resumed run starts, and what of the output goes with it: after a kill -9, the
    // output's first `written` lines are the ones to keep.
    if let Some(saved) = saved
        && !config.quiet
        && *job != Job::Reference
    {
        let pending = memchr::memchr_iter(b'\n', &saved.pending).count() as u64;
        let held = match saved.written {
            Some(n) if pending > 0 => format!(
                "the output already holds {} lines; the {pending} lines the stopped run could \
                 not write come first",
                n - pending
            ),
            Some(n) => format!("the output already holds {n} lines"),
            None => "the state does not say how many output lines go with it (version 2)".into(),
        };
        diagnostics.note(Note::info(format!(
            "resuming after input line {}; {held}",
            saved.lines
        )));
    }
    // Batch buffers in flight: the channels' capacities plus one per thread; more are freed.
    // Under a small `--max-memory` the channels are shorter, to fit its pipeline share.
    let fit = config.memory.batches_in_flight();
    let (recycle, recycle_rx) = bounded::<Vec<u8>>((4 * threads + 4).min(fit));
    let (reader, table, halts) = match source {
        Source::Lines(mut inputs) => {
            let halts = inputs.iter().filter_map(Input::halt).collect();
            let annotate = job.output() == Some(crate::job::Output::Annotate);
            let encoding = table_encoding(config, job, &mut inputs)?;
            let columns = Columns {
                // Parquet, an Arrow stream and annotated rows are one table.
                one_schema: encoding.is_some_and(|e| e != Encoding::Jsonl)
                    || (encoding.is_some() && annotate),
                ..columns(config, job, encoding.is_some())
            };
            let table = encoding.map(|e| {
                TableWriter::new(
                    e,
                    config.run.output.clone(),
                    annotate,
                    job.against().is_some(),
                    &config.read.field,
                )
                .row_groups_of(config.memory.row_group_bytes())
                .encoding_on(config.memory.row_groups_at_once(threads))
                .replacing_annotations(config.run.replace_annotations)
                .standard_output(prepared.standard_output)
            });
            let reader = LineReader::new(inputs, config.read.format)
                .columns(columns)
                .auto_ids(config.read.auto_ids && config.read.id_field.is_none())
                .cutting_lines_over(config.read.max_line_bytes)
                .numbered_after(lines_before)
                .recycling(recycle_rx);
            (Feed::Lines(Box::new(reader)), table, halts)
        }
        Source::Batches(batches) => (Feed::Batches(batches, 0), None, Vec::new()),
    };
    Ok(Setup {
        threads,
        fit,
        reader,
        table,
        halts,
        recycle,
    })
}

impl Prepared {
    /// Loads the stop words `config` names.
    pub fn new(config: Settings) -> Result<Prepared> {
        let stopwords = match &config.text.stopwords_path {
            None => Arc::new(StopWords::english()),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Error::config("stopwords", format!("{}: {e}", path.display())))?;
                let words = StopWords::parse(&text, &config.text.normalizer);
                if words.is_empty() {
                    return Err(Error::config(
                        "stopwords",
                        format!("{} lists no words", path.display()),
                    ));
                }
                Arc::new(words)
            }
        };
        Ok(Prepared {
            config,
            stopwords,
            idf: None,
            state_lock: None,
            standard_output: None,
        })
    }

    /// A table output with no path (Parquet, Arrow or rows as JSON on standard output) is
    /// written to what `open` gives: the binary hands its descriptor 1 here.
    pub fn with_standard_output(mut self, open: StandardOutput) -> Prepared {
        self.standard_output = Some(open);
        self
    }

    /// The run's shingler (its kind, length, seed and stop words); `bag` as given.
    pub fn shingler(&self, bag: bool) -> Shingler {
        Shingler::with_stopwords(
            self.config.text.shingle,
            bag,
            self.config.sketch.seed,
            &self.stopwords,
        )
    }

    /// Everything a shingle's hash depends on (as IDF and state files record it).
    pub fn shingling(&self) -> String {
        settings_of(&self.shingler(false), &self.config.text.normalizer)
    }

    /// Freezes the IDF table of `--weights tfidf` before anything is signed: loaded from
    /// `--idf`, or learned from the first `--idf-warmup` lines, which the returned inputs
    /// replay. Nothing to do for other weights, or when the table is there already.
    pub fn with_idf(mut self, inputs: Vec<Input>) -> Result<(Prepared, Vec<Input>)> {
        let mut inputs = inputs;
        if self.config.sketch.weights == Weights::TfIdf && self.idf.is_none() {
            let table = match &self.config.sketch.idf_path {
                Some(path) => IdfTable::load(path, &self.shingling())?,
                None => {
                    let shingler = self.shingler(false);
                    let n = self.config.sketch.idf_warmup;
                    let (table, replay) =
                        crate::corpus::warmup(&reading(&self.config), &shingler, inputs, n)?;
                    inputs = replay;
                    table
                }
            };
            self.idf = Some(Arc::new(table));
        }
        Ok((self, inputs))
    }
}

impl Prepared {
    /// `‹idf-warmup› N` over documents a program holds: the table is learnt from the first
    /// N of `texts` (None: a document that is not one, which counts among the N and adds
    /// nothing), the rule of [`Prepared::with_idf`]'s lines, for [`Source::Batches`] and the
    /// in-process [`super::Deduper`].
    pub(super) fn learn_idf<'a>(&mut self, texts: impl IntoIterator<Item = Option<&'a str>>) {
        let n = self.config.sketch.idf_warmup;
        let texts = texts.into_iter().take(n).flatten();
        let table = crate::sketch::weights::learn(
            &self.config.text.normalizer,
            &self.shingler(false),
            texts,
        );
        self.idf = Some(Arc::new(table));
    }

    /// [`Prepared::with_idf`] for a program's own batches ([`Source::Batches`]): the table is
    /// learnt from the first `‹idf-warmup›` texts (those within `‹max-line-bytes›`, as the
    /// lines read are), which the returned batches replay.
    fn with_idf_of_batches(
        mut self,
        mut batches: Box<dyn Iterator<Item = Batch> + Send>,
    ) -> (Prepared, Box<dyn Iterator<Item = Batch> + Send>) {
        if self.config.sketch.weights != Weights::TfIdf || self.idf.is_some() {
            return (self, batches);
        }
        let n = self.config.sketch.idf_warmup;
        let (mut taken, mut texts) = (Vec::new(), 0);
        while texts < n
            && let Some(batch) = batches.next()
        {
            texts += batch.lines.len();
            taken.push(batch);
        }
        let limit = self.config.read.max_line_bytes;
        // A text over the limit, or not UTF-8, is a bad line when signed: it counts among
        // the first N and adds nothing, as a bad line of a file does.
        let texts = taken
            .iter()
            .flat_map(|b| (0..b.lines.len()).map(move |i| b.content(i)))
            .map(|text| (text.len() <= limit).then(|| std::str::from_utf8(text).ok()))
            .map(Option::flatten);
        self.learn_idf(texts);
        (self, Box::new(taken.into_iter().chain(batches)))
    }
}

/// `‹state›`: loads the saved window (if the file exists) and the IDF table saved with it,
/// then freezes the IDF table as [`Prepared::with_idf`] does (`‹idf-warmup›` is skipped when
/// the state brings a table). The command line's resume; [`load_state`] is the part it
/// shares with the in-process filter.
pub(super) fn resume(
    prepared: &Prepared,
    job: &Job,
    mut source: Source,
) -> Result<(Prepared, Source, Option<Saved>)> {
    let mut prepared = prepared.clone();
    check_spill_dir(&prepared.config, job)?;
    // A report's collector takes part of the window's share too.
    prepared.config = (prepared.config.clone()).with_report(job.report().is_some());
    // A columnar input's decoder (and a table output) take part of the window's memory
    // share: the window, a saved one included, is made knowing it.
    if let Source::Lines(inputs) = &mut source
        && let Some(first) = inputs.first_mut()
    {
        let head = columnar::head(first)?;
        let columnar = columnar::Kind::of(prepared.config.read.format, &head).is_some();
        prepared.config = prepared.config.clone().with_columnar_input(columnar)?;
    }
    // One process at a time writes a state file (a program running the engine in process
    // holds its own `Deduper`s, which save only when asked).
    if let Some(state) = job.state() {
        crate::state::check_writable(&state.path)?;
        prepared.state_lock = Some(Arc::new(crate::state::lock(&state.path)?));
    }
    let saved = load_state(&mut prepared, job)?;
    let (prepared, source) = match source {
        Source::Lines(inputs) => {
            let (prepared, inputs) = prepared.with_idf(inputs)?;
            (prepared, Source::Lines(inputs))
        }
        Source::Batches(batches) => {
            let (prepared, batches) = prepared.with_idf_of_batches(batches);
            (prepared, Source::Batches(batches))
        }
    };
    Ok((prepared, source, saved))
}

/// `‹spill-dir›`: checks, before any input is read, that the window's spill file can be
/// made there (a missing or read-only directory would otherwise stop the run only when the
/// window first spills, far into the input). A job that holds no window makes none.
pub(super) fn check_spill_dir(config: &Config, job: &Job) -> Result<()> {
    let Some(dir) = &config.memory.spill_dir else {
        return Ok(());
    };
    if matches!(job, Job::Sign(_)) {
        return Ok(());
    }
    crate::window::check_spill_dir(dir).map_err(|e| {
        Error::config(
            "spill-dir",
            format!("no spill file can be made in {}: {e}", dir.display()),
        )
    })
}

/// `‹state›`: checks that the file can be written, then loads the window `job` saved there
/// (`None` when there is no file, or no `‹state›`). An IDF table saved with it becomes the run's; a
/// table the run has already (or names with `‹idf›`) must equal it.
pub(super) fn load_state(prepared: &mut Prepared, job: &Job) -> Result<Option<Saved>> {
    let Some(path) = job.state().map(|state| state.path.clone()) else {
        return Ok(None);
    };
    crate::state::check_writable(&path)?;
    let mut saved = crate::state::load(
        &path,
        &prepared.config,
        job,
        &prepared.shingling(),
        window_settings(&prepared.config, job),
    )?;
    if let Some(table) = saved.as_mut().and_then(|s| s.idf.take()) {
        let differs = match (&prepared.idf, &prepared.config.sketch.idf_path) {
            (Some(given), _) => **given != table,
            (None, Some(idf_path)) => IdfTable::load(idf_path, &prepared.shingling())? != table,
            (None, None) => false,
        };
        if differs {
            let named = match &prepared.config.sketch.idf_path {
                Some(idf_path) => idf_path.display().to_string(),
                None => "the IDF table given".to_string(),
            };
            return Err(Error::config(
                "idf",
                format!(
                    "{named} differs from the IDF table saved in {}",
                    path.display()
                ),
            ));
        }
        prepared.idf = Some(Arc::new(table));
    }
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ShingleKind, SketchSettings, TextSettings};

    #[test]
    fn stop_words_come_from_the_file_or_the_english_list() {
        let english = Prepared::new(Config::default().validate().unwrap()).unwrap();
        assert!(english.stopwords.contains("the"));
        let path = std::env::temp_dir().join(format!("neardup-stop-{}", std::process::id()));
        std::fs::write(&path, "Foo\n# a comment\nbar\n").unwrap();
        let config = Config {
            text: TextSettings {
                shingle: ShingleKind::Stopword(2),
                stopwords_path: Some(path.clone()),
                ..TextSettings::default()
            },
            ..Config::default()
        };
        let own = Prepared::new(config.validate().unwrap()).unwrap();
        assert!(own.stopwords.contains("foo") && !own.stopwords.contains("the"));
        assert_ne!(own.shingling(), english.shingling());
        std::fs::write(&path, "# nothing\n").unwrap();
        let empty = Config {
            text: TextSettings {
                stopwords_path: Some(path.clone()),
                ..TextSettings::default()
            },
            ..Config::default()
        };
        let e = Prepared::new(empty.validate().unwrap()).expect_err("an empty list is refused");
        assert!(e.to_string().contains("lists no words"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_bounded_jobs_buckets_keep_twice_the_candidates_verified() {
        let config = Config {
            max_candidates: 5,
            ..Config::default()
        };
        let limit = |job: &Job| window_settings(&config, job).bucket_limit;
        assert_eq!(limit(&Job::Reference), 10);
        assert_eq!(limit(&Job::Filter(crate::job::Output::DropDups.into())), 10);
        let graph = crate::job::GraphJob::default();
        assert_eq!(limit(&Job::Graph(graph)), 0);
    }

    #[test]
    fn idf_is_frozen_only_for_tfidf() {
        let set = Prepared::new(Config::default().validate().unwrap()).unwrap();
        let (set, _) = set.with_idf(Vec::new()).unwrap();
        assert!(set.idf.is_none());
        let config = Config {
            sketch: SketchSettings {
                weights: Weights::TfIdf,
                idf_warmup: 10,
                ..SketchSettings::default()
            },
            ..Config::default()
        }
        .validate()
        .unwrap();
        let text = "a b c d e f g\nh i j k l m n\n";
        let input = Input::from_reader("t", Box::new(std::io::Cursor::new(text.to_string())));
        let (tfidf, replay) = Prepared::new(config)
            .unwrap()
            .with_idf(vec![input])
            .unwrap();
        assert_eq!(tfidf.idf.as_ref().map(|t| t.docs()), Some(2));
        assert_eq!(replay.len(), 1, "the warm-up lines are replayed");
    }
}
