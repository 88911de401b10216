//! Validated settings for a run.
//!
//! The command line (`neardup::cmd`, in a crate of its own) and library users both produce
//! a [`Config`]; the engine never sees clap types. [`Config::validate`] checks every value
//! and resolves derived ones (the LSH bands × rows) before any work starts, so a bad flag
//! fails fast with exit code 2, and gives the [`Settings`] a run is made of: a run cannot
//! be handed unchecked values.

use crate::error::{Error, Result};
pub use crate::input::settings::{
    BadLinePolicy, DEFAULT_MAX_LINE_BYTES, Decompress, InputFormat, ReadSettings,
};
pub use crate::memory::{DEFAULT_MAX_DISK, MemorySettings};

use crate::memory::{MIN_MAX_MEMORY, MIN_MAX_MEMORY_COLUMNAR, mebibytes};
pub use crate::sketch::settings::{DEFAULT_NUM_PERM, DEFAULT_SEED, SketchSettings, Weights};
pub use crate::text::settings::{DEFAULT_NGRAM, TextSettings};
/// The shingle stage's own enum, named in the settings.
pub use crate::text::shingle::ShingleKind;
pub use crate::verify::settings::{DEFAULT_THRESHOLD, TextStage, VerifyMode, VerifySettings};
use std::path::PathBuf;

/// How the `--pairs` mode formats a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairsFormat {
    /// `id_a<TAB>id_b<TAB>similarity`.
    Tsv,
    /// `{"id_a":…,"id_b":…,"similarity":…}`.
    Jsonl,
}

crate::choice::choices!(PairsFormat {
    "tsv" => Tsv: "id_a TAB id_b TAB similarity",
    "jsonl" => Jsonl: "{\"id_a\":…,\"id_b\":…,\"similarity\":…}",
});

/// What the filter modes write (`--output-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    /// By `-o FILE`'s extension (`.parquet`, `.arrow`/`.arrows`/`.ipc`), else as the first
    /// input: a columnar input's rows as a table of its kind, lines as lines.
    #[default]
    Auto,
    /// Input lines as they were read (a columnar input's rows as JSON objects).
    Lines,
    /// The rows as Apache Parquet (a columnar input's, with all its columns).
    Parquet,
    /// The rows as an Arrow IPC stream.
    Arrow,
}

crate::choice::choices!(OutputFormat {
    "auto" => Auto: "By -o FILE's extension (.parquet, .arrow), else as the input: Parquet or Arrow rows as a table of their kind, lines as lines",
    "lines" => Lines: "Lines as read; Parquet or Arrow rows as JSON objects, one per line",
    "parquet" => Parquet: "Apache Parquet: the rows with all their columns and the input's schema",
    "arrow" => Arrow: "An Arrow IPC stream: the rows with all their columns",
});

/// Parquet's page compression (`--compression`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Zstandard, level 1.
    #[default]
    Zstd,
    /// Snappy.
    Snappy,
    /// gzip.
    Gzip,
    /// LZ4 (raw).
    Lz4,
    /// None.
    None,
}

crate::choice::choices!(Compression {
    "zstd" => Zstd: "Zstandard (level 1)",
    "snappy" => Snappy: "Snappy",
    "gzip" => Gzip: "gzip",
    "lz4" => Lz4: "LZ4",
    "none" => None: "None",
});

/// When the sequencer shares a batch's lookups and verification with helper threads
/// (`--helpers`; only with more than one thread, and only for a batch that cannot evict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HelperPolicy {
    /// When signed batches queue up behind the one the sequencer takes (it is then the
    /// slower stage), or every batch read so far is signed (the signing threads have
    /// nothing to do). Alone it spends less CPU per document, so while it keeps up with
    /// busy signing threads the cores are better left to them.
    #[default]
    Auto,
    /// On every batch.
    Always,
    /// Never.
    Never,
}

impl HelperPolicy {
    /// Whether the helpers are called for the next batch (or chunk) the sequencer takes:
    /// `Auto` when at least `behind` signed ones wait behind it, or when the signing threads
    /// have nothing left to do (`signing_idle`: every batch read is signed, at the input's
    /// end or while it comes slower than it is signed).
    pub(crate) fn calls(self, signed_waiting: usize, behind: usize, signing_idle: bool) -> bool {
        match self {
            HelperPolicy::Always => true,
            HelperPolicy::Never => false,
            HelperPolicy::Auto => signed_waiting >= behind || signing_idle,
        }
    }
}

crate::choice::choices!(HelperPolicy {
    "auto" => Auto: "When signed batches queue up behind the sequencer, or all are signed (in the filter modes, while that is faster)",
    "always" => Always: "On every batch",
    "never" => Never: "Never",
});

/// Every setting of a run, validated by [`Config::validate`].
#[derive(Clone, Debug)]
pub struct Config {
    /// Input files; `-` is standard input. Empty means standard input.
    pub inputs: Vec<PathBuf>,
    /// How the inputs are read: their format, fields, decompression, bad lines.
    pub read: ReadSettings,
    /// How a text is normalised and shingled.
    pub text: TextSettings,
    /// How shingles become a signature: its length, seed, weights and banding.
    pub sketch: SketchSettings,
    /// The similarity a pair must reach and how it is checked.
    pub verify: VerifySettings,
    /// Maximum number of documents kept in the window; 0 = unbounded.
    pub window: usize,
    /// `--max-memory` and how the run shares it, the spill file's place, cache and limit.
    pub memory: MemorySettings,
    /// The filter's bound on work per document: at most this many candidates are verified
    /// (the most similar by their sketches first), and an LSH bucket keeps at most
    /// `2 × max_candidates` documents ([`crate::job::Job::bucket_limit`]). 0 = no bound.
    /// Also bounds [`crate::job::GraphJob::components_over`]; not used by `--pairs` and the
    /// graph commands that list every pair.
    pub max_candidates: usize,
    /// Signing threads, the sequencer among them (it signs while the next batch in order is
    /// not ready); also the number of threads verifying a batch with helpers. 0 = all cores.
    pub threads: usize,
    /// When the sequencer calls on helper threads.
    pub helpers: HelperPolicy,
    /// Print a JSON summary to stderr at the end.
    pub stats: bool,
    /// No warnings or progress on stderr.
    pub quiet: bool,
    /// Show progress on stderr (only honoured when stderr is a terminal).
    pub progress: bool,
    /// `--exact`: find candidates with the All-Pairs prefix filter instead of MinHash + LSH,
    /// so no pair at or above the threshold is missed.
    pub all_pairs: bool,
    /// `--block-by`: dotted JSON path; only documents with equal values are compared.
    pub block_by: Option<String>,
    /// Where and how the results are written (what is resumed, filtered against or
    /// reported is the job's: [`crate::job::Job`]). The reference run, which takes the
    /// stages' settings, takes none of it.
    pub run: RunSettings,
}

/// Where and how a run writes its results ([`Config::run`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSettings {
    /// `-o FILE`: the output's path (standard output when `None`).
    pub output: Option<PathBuf>,
    /// `--output-format`: what the filter modes write.
    pub output_format: OutputFormat,
    /// `--compression`: Parquet output's page compression (`None`: not given, zstd).
    pub compression: Option<Compression>,
    /// `--line-buffered`: flush the output after every batch of lines.
    pub line_buffered: bool,
    /// `--replace-annotations`: `--annotate` on a table that has `neardup_*` columns
    /// writes new ones in their place (else it is refused).
    pub replace_annotations: bool,
}

/// Most threads `--threads` takes: beyond it a machine refuses to start them, and no
/// machine has that many cores for the signing to use.
pub(crate) const MAX_THREADS: usize = 1024;
/// Default window capacity: no bound on the documents held but the memory budget.
pub const DEFAULT_WINDOW: usize = 0;
/// Default thread count: 0, every core.
pub const DEFAULT_THREADS: usize = 0;
/// Default bound on the candidates the filter verifies per document.
pub const DEFAULT_MAX_CANDIDATES: usize = 48;
/// Default length of a node's text snippet in the graph commands, in characters.
pub const DEFAULT_SNIPPET_CHARS: usize = 80;

/// The command line's defaults (a bare `neardup`'s settings, a test checks), so that a
/// program using the library runs as the binary does: within half of the system's memory
/// limit, with a spill file in the temporary directory, taking JSON Lines' own ids.
impl Default for Config {
    fn default() -> Config {
        Config {
            inputs: Vec::new(),
            read: ReadSettings::default(),
            text: TextSettings::default(),
            sketch: SketchSettings::default(),
            verify: VerifySettings::default(),
            window: DEFAULT_WINDOW,
            memory: MemorySettings::default(),
            max_candidates: DEFAULT_MAX_CANDIDATES,
            threads: DEFAULT_THREADS,
            helpers: HelperPolicy::Auto,
            stats: false,
            quiet: false,
            progress: true,
            all_pairs: false,
            block_by: None,
            run: RunSettings::default(),
        }
    }
}

/// A [`Config`] that [`Config::validate`] checked and resolved: the only way to make one, and
/// read-only (through `Deref`), so a stage handed one never sees an unchecked value. To
/// change a setting, take the [`Config`] back ([`Settings::into_config`]) and validate again.
#[derive(Clone, Debug)]
pub struct Settings {
    config: Config,
    /// What validating found worth a warning ([`Config::banding_warning`]), made once for
    /// each front end to say (or not, under `‹quiet›`) in its own terms.
    pub(crate) warning: Option<String>,
}

impl std::ops::Deref for Settings {
    type Target = Config;
    fn deref(&self) -> &Config {
        &self.config
    }
}

impl Settings {
    /// The settings, to change and validate again.
    pub fn into_config(self) -> Config {
        self.config
    }

    /// The settings of a run that collects a `--report` page, or not
    /// ([`MemorySettings::report`]).
    pub(crate) fn with_report(mut self, report: bool) -> Settings {
        self.config.memory.report = report;
        self
    }

    /// The settings of a run whose first input is columnar, or not
    /// ([`MemorySettings::columnar`]): the run says so once it has looked at its input.
    /// A budget too small for a table's decoder besides the rest is refused here, as
    /// [`Config::validate`] refuses one too small for any run.
    pub(crate) fn with_columnar_input(mut self, columnar: bool) -> Result<Settings> {
        let memory = &mut self.config.memory;
        if columnar
            && let Some(limit) = &memory.memory_limit
            && memory.max_memory > 0
            && memory.max_memory < MIN_MAX_MEMORY_COLUMNAR
            && limit.bytes >= MIN_MAX_MEMORY_COLUMNAR as u64
        {
            memory.max_memory = MIN_MAX_MEMORY_COLUMNAR;
        }
        let budget = self.config.memory.max_memory;
        if columnar && budget > 0 && budget < MIN_MAX_MEMORY_COLUMNAR {
            return Err(Error::config(
                "max-memory",
                format!(
                    "{} is less than a run reading a table needs: give at least {} (its decoder \
                     and row groups take {} besides what a run of lines needs)",
                    mebibytes(budget),
                    mebibytes(MIN_MAX_MEMORY_COLUMNAR),
                    mebibytes(MIN_MAX_MEMORY_COLUMNAR - MIN_MAX_MEMORY),
                ),
            ));
        }
        self.config.memory.columnar = columnar;
        Ok(self)
    }
}

impl Config {
    /// Checks every value and resolves the LSH parameters: the settings a run is made of
    /// ([`crate::Prepared::new`], [`crate::run`]).
    pub fn validate(mut self) -> Result<Settings> {
        // Each stage checks its own group; what spans groups is checked here.
        self.verify.check()?;
        self.read = self.read.validate()?;
        self.text.check()?;
        self.sketch = self.sketch.validate(self.verify.threshold)?;
        self.memory = self.memory.validate()?;
        match self.sketch.weights {
            Weights::Set => {}
            // Counts are bag semantics; TF-IDF weighs each occurrence.
            Weights::Tf | Weights::TfIdf => self.text.bag = true,
        }
        if self.all_pairs
            && (self.verify.mode != VerifyMode::Jaccard || self.sketch.weights == Weights::TfIdf)
        {
            return Err(Error::config(
                "exact",
                "the exact join needs ‹verify› jaccard (text stages may follow) and set or bag \
                 weights",
            ));
        }
        if self.block_by.as_deref() == Some("") {
            return Err(Error::config("block-by", "must not be empty"));
        }
        if self.threads > MAX_THREADS {
            return Err(Error::config(
                "threads",
                format!("{} is more than {MAX_THREADS}", self.threads),
            ));
        }
        if self.memory.document_limit() < self.read.max_line_bytes {
            self.read.max_line_bytes = self.memory.document_limit();
            self.read.budget_limited = true;
        }
        let warning = self.banding_warning();
        Ok(Settings {
            config: self,
            warning,
        })
    }

    /// A warning when the banding chosen for `threshold` cannot reach `recall` with
    /// `num_perm` values (explicit `--bands`/`--rows` and `--exact` are taken as asked).
    pub(crate) fn banding_warning(&self) -> Option<String> {
        let chosen = self.sketch.bands.is_none() && self.sketch.rows.is_none() && !self.all_pairs;
        (chosen
            && !self
                .sketch
                .lsh
                .reaches(self.verify.threshold, self.sketch.recall))
        .then(|| {
            format!(
                "no banding of ‹num-perm› {} values reaches ‹recall› {} at ‹threshold› {}; \
                 using {} bands x {} rows, which catch a pair at the threshold with probability \
                 {:.4} (more values reach it)",
                self.sketch.num_perm,
                self.sketch.recall,
                self.verify.threshold,
                self.sketch.lsh.bands,
                self.sketch.lsh.rows,
                self.sketch.lsh.probability(self.verify.threshold)
            )
        })
    }

    /// Worker threads to start: `threads`, or the number of cores when it is 0.
    pub fn worker_threads(&self) -> usize {
        let asked = match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        self.memory.threads_within(asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_validates_to_the_recall_banding() {
        let c = Config::default().validate().unwrap();
        assert_eq!(
            c.sketch.lsh,
            Config::default().sketch.lsh,
            "the default's bands x rows"
        );
        assert!(c.sketch.lsh.bands * c.sketch.lsh.rows <= c.sketch.num_perm);
        assert!(
            c.sketch
                .lsh
                .reaches(c.verify.threshold, crate::sketch::lsh::DEFAULT_RECALL)
        );
        assert!(c.banding_warning().is_none());
        let few = Config {
            verify: VerifySettings {
                threshold: 0.05,
                ..VerifySettings::default()
            },
            sketch: SketchSettings {
                num_perm: 16,
                ..SketchSettings::default()
            },
            ..Config::default()
        };
        let warning = few.validate().unwrap().warning.unwrap();
        let worded = crate::error::worded(&warning, crate::error::Wording::Flags);
        assert!(worded.contains("--recall 0.99"), "{warning}");
    }

    #[test]
    fn auto_helpers_come_when_signing_is_ahead_or_has_nothing_to_do() {
        let auto = HelperPolicy::Auto;
        assert!(
            !auto.calls(0, 4, false),
            "nothing waits and the signers are busy"
        );
        assert!(!auto.calls(3, 4, false));
        assert!(auto.calls(4, 4, false), "four signed batches wait");
        assert!(auto.calls(0, 4, true), "the last batch, every one signed");
        assert!(HelperPolicy::Always.calls(0, 4, false));
        assert!(!HelperPolicy::Never.calls(9, 4, true));
    }

    #[test]
    fn rejects_bad_values() {
        let cases: Vec<(Config, &str)> = vec![
            (
                Config {
                    verify: VerifySettings {
                        threshold: 0.0,
                        ..VerifySettings::default()
                    },
                    ..Config::default()
                },
                "threshold",
            ),
            (
                Config {
                    verify: VerifySettings {
                        threshold: 1.5,
                        ..VerifySettings::default()
                    },
                    ..Config::default()
                },
                "threshold",
            ),
            (
                Config {
                    verify: VerifySettings {
                        threshold: f64::NAN,
                        ..VerifySettings::default()
                    },
                    ..Config::default()
                },
                "threshold",
            ),
            (
                Config {
                    sketch: SketchSettings {
                        recall: 1.0,
                        ..SketchSettings::default()
                    },
                    ..Config::default()
                },
                "recall",
            ),
            (
                Config {
                    sketch: SketchSettings {
                        recall: 0.0,
                        ..SketchSettings::default()
                    },
                    ..Config::default()
                },
                "recall",
            ),
            (
                Config {
                    sketch: SketchSettings {
                        num_perm: 0,
                        ..SketchSettings::default()
                    },
                    ..Config::default()
                },
                "num-perm",
            ),
            (
                Config {
                    text: TextSettings {
                        shingle: ShingleKind::Words(0),
                        ..TextSettings::default()
                    },
                    ..Config::default()
                },
                "ngram",
            ),
            (
                Config {
                    sketch: SketchSettings {
                        bands: Some(3),
                        ..SketchSettings::default()
                    },
                    ..Config::default()
                },
                "bands",
            ),
            (
                Config {
                    sketch: SketchSettings {
                        bands: Some(64),
                        rows: Some(4),
                        ..SketchSettings::default()
                    },
                    ..Config::default()
                },
                "bands",
            ),
        ];
        for (config, flag) in cases {
            match config.validate() {
                Err(Error::Config { setting, .. }) => assert_eq!(setting, flag),
                other => panic!("expected a config error for {flag}, got {other:?}"),
            }
        }
    }

    #[test]
    fn one_of_bands_or_rows_derives_the_other() {
        let c = Config {
            sketch: SketchSettings {
                bands: Some(32),
                ..SketchSettings::default()
            },
            ..Config::default()
        }
        .validate()
        .unwrap();
        assert_eq!((c.sketch.lsh.bands, c.sketch.lsh.rows), (32, 4));
        let c = Config {
            sketch: SketchSettings {
                rows: Some(2),
                ..SketchSettings::default()
            },
            ..Config::default()
        }
        .validate()
        .unwrap();
        assert_eq!((c.sketch.lsh.bands, c.sketch.lsh.rows), (64, 2));
    }
}
