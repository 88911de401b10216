//! The flags most commands share as a command line gave them ([`super::flags::defs`] defines them),
//! their conversion into a [`Config`], and the small groups of flags a few commands share
//! (input files, grouping, sample size). The only place besides the command files that
//! knows clap; the engine never sees these types.

use super::flags::defs;
use super::flags::keywords::{Keywords, Values};
pub use super::values::{NgramArg, check_similarity, choice, parse_size};
use crate::config::{
    Config, InputFormat, MemorySettings, ReadSettings, RunSettings, ShingleKind, SketchSettings,
    TextSettings, TextStage, VerifyMode, VerifySettings,
};
use crate::error::{Error, Result};
use crate::graph::ClusterOptions;
use crate::text::normalize::Normalizer;
use crate::text::shingle::ShingleUnit;
use crate::verify::settings::{Method, StageBounds, chain};
use clap::ArgMatches;
use std::path::PathBuf;

/// `--sample N` of the commands that compare all pairs of a seeded reservoir sample (`hist`,
/// `sample`, `tune`).
#[derive(clap::Args, Debug)]
pub struct SampleSize {
    /// Documents to sample, seeded (all pairs of them are compared: n(n-1)/2).
    #[arg(
        long = "sample",
        default_value_t = 2000,
        value_name = "N",
        help_heading = "Output"
    )]
    pub documents: usize,
}

impl SampleSize {
    /// The sample size, validated: a pair needs two documents.
    pub fn documents(&self) -> Result<usize> {
        match self.documents {
            0 | 1 => Err(Error::config("sample", "must be at least 2")),
            n => Ok(n),
        }
    }
}

/// Input files and format of a command (where `--format` is the output's).
#[derive(clap::Args, Clone, Debug)]
pub struct CommandInput {
    /// Input files; '-' or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Input format: auto is JSON Lines when most of the first non-empty lines start with '{'
    /// (and always with --field or --id-field).
    #[arg(long, value_parser = choice::<InputFormat>(), default_value_t = InputFormat::Auto, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: InputFormat,
}

/// Edge pruning and size limits for `graph` and `clusters`.
#[derive(clap::Args, Debug)]
pub struct GroupingArgs {
    /// Only edges with at least this similarity take part in grouping (components, cliques);
    /// a stricter cut-off than --threshold breaks chains. All verified edges are still
    /// written by graph.
    #[arg(
        long,
        default_value_t = GroupingArgs::DEFAULT.min_edge,
        value_name = "S",
        allow_negative_numbers = true,
        help_heading = "Grouping"
    )]
    pub min_edge: f64,

    /// No group of more than N documents: a larger component is reported and split into its
    /// clique clusters, and a larger clique into runs of N in input order. 0: no limit.
    #[arg(long, default_value_t = GroupingArgs::DEFAULT.max_cluster, value_name = "N", help_heading = "Grouping")]
    pub max_cluster: usize,
}

impl GroupingArgs {
    /// What the flags left out mean: every verified edge groups, no size limit.
    pub const DEFAULT: GroupingArgs = GroupingArgs {
        min_edge: 0.0,
        max_cluster: 0,
    };

    /// The grouping options, validated.
    pub fn options(&self) -> Result<ClusterOptions> {
        Ok(ClusterOptions {
            min_edge: check_similarity("min-edge", self.min_edge)?,
            max_cluster: self.max_cluster,
            ..ClusterOptions::default()
        })
    }
}

/// The shared flags ([`super::flags::defs::all`]) of a command line or of keywords, read by
/// their long names.
#[derive(Clone, Debug)]
pub struct CommonArgs(Source);

/// Where the shared flags' values come from.
#[derive(Clone, Debug)]
enum Source {
    /// A command line, parsed by clap.
    Line(ArgMatches),
    /// Keywords, read by the flags' own parsers (the Python API).
    Keywords(Values),
}

impl clap::FromArgMatches for CommonArgs {
    fn from_arg_matches(matches: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        Ok(Self(Source::Line(matches.clone())))
    }

    fn update_from_arg_matches(
        &mut self,
        matches: &ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        self.0 = Source::Line(matches.clone());
        Ok(())
    }
}

impl clap::Args for CommonArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        defs::augment(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        defs::augment(command)
    }
}

impl CommonArgs {
    /// The shared flags of `command` (`neardup` for the filter) taken out of `keywords`.
    pub fn from_keywords(command: &str, keywords: &mut Keywords) -> Result<Self> {
        Values::take(command, keywords).map(|values| Self(Source::Keywords(values)))
    }

    /// Whether switch `long` was given.
    fn on(&self, long: &str) -> bool {
        match &self.0 {
            Source::Line(matches) => matches.get_flag(long),
            Source::Keywords(values) => values.on(long),
        }
    }

    /// The value of flag `long`, or None when it was left out and has no default. The type
    /// is the one its parser gives (a mismatch is a bug that every command line shows).
    fn given<T: Clone + Send + Sync + 'static>(&self, long: &str) -> Option<T> {
        match &self.0 {
            Source::Line(matches) => matches.get_one::<T>(long).cloned(),
            Source::Keywords(values) => values.all(long).pop(),
        }
    }

    /// The values of list flag `long`.
    fn many<T: Clone + Send + Sync + 'static>(&self, long: &str) -> Vec<T> {
        match &self.0 {
            Source::Line(matches) => (matches.get_many::<T>(long).into_iter().flatten())
                .cloned()
                .collect(),
            Source::Keywords(values) => values.all(long),
        }
    }

    /// The value of flag `long`, which has a default.
    fn value<T: Clone + Send + Sync + 'static>(&self, long: &str) -> T {
        self.given(long).expect("a flag with a default")
    }

    /// `--stats`.
    pub fn stats(&self) -> bool {
        self.on("stats")
    }

    /// `-o FILE`.
    pub fn output(&self) -> Option<PathBuf> {
        self.given("output")
    }

    /// `--ngram`: one length or (for `hist`) a range.
    pub fn ngram(&self) -> NgramArg {
        self.value("ngram")
    }

    /// `--idf-warmup`.
    pub fn idf_warmup(&self) -> usize {
        self.value("idf-warmup")
    }

    /// The shingle check and the text stages of `--verify`.
    fn verify_chain(&self) -> Result<(VerifyMode, Vec<TextStage>)> {
        let methods: Vec<Method> = self.many("verify");
        let bounds = StageBounds {
            max_edit: self.value("max-edit"),
            min_cosine: self.value("min-cosine"),
            min_lcs: self.value("min-lcs"),
        };
        chain(&methods, bounds).map_err(|why| Error::config("verify", why))
    }

    /// The engine settings these flags give (not yet validated).
    pub fn config(self, input: CommandInput) -> Result<Config> {
        self.config_of(input, false)
    }

    /// The settings of `neardup hist`, whose `--ngram` may be a range of lengths (the
    /// settings hold its first).
    pub fn config_with_ngram_range(self, input: CommandInput) -> Result<Config> {
        self.config_of(input, true)
    }

    fn config_of(self, input: CommandInput, ngram_range: bool) -> Result<Config> {
        let ngram = self.ngram();
        if ngram.0 != ngram.1 && !ngram_range {
            return Err(Error::config(
                "ngram",
                "a range of lengths is only for 'neardup hist'",
            ));
        }
        let (verify, confirm) = self.verify_chain()?;
        let normalizer = Normalizer {
            lowercase: !self.on("keep-case"),
            nfkc: !self.on("no-nfkc"),
            strip_html: self.on("strip-html"),
            strip_punct: self.on("strip-punct"),
            words: self.value("words"),
        };
        let shingle = match (self.value("shingle"), self.given("char-ngram")) {
            (ShingleUnit::Words | ShingleUnit::Chars, Some(n)) => ShingleKind::Chars(n),
            (ShingleUnit::Words, None) => ShingleKind::Words(ngram.0),
            (ShingleUnit::Chars, None) => ShingleKind::Chars(ngram.0),
            (ShingleUnit::Stopword, None) => ShingleKind::Stopword(ngram.0),
            (ShingleUnit::Stopword, Some(_)) => {
                return Err(Error::config(
                    "char-ngram",
                    "cannot be used with --shingle stopword",
                ));
            }
        };
        // What a flag left out means: `Config::default()`, the one place the defaults are
        // computed (the memory limit is probed there, once).
        let defaults = Config::default();
        let bytes = |size: u64| usize::try_from(size).unwrap_or(usize::MAX);
        let (max_memory, memory_limit) = match self.given::<u64>("max-memory") {
            Some(size) => (bytes(size), None),
            None => (
                defaults.memory.max_memory,
                defaults.memory.memory_limit.clone(),
            ),
        };
        let spill_dir = match self.given::<PathBuf>("spill-dir") {
            Some(dir) if dir.as_os_str() == "none" => None,
            Some(dir) => Some(dir),
            None => defaults.memory.spill_dir.clone(),
        };
        let id_field: Option<String> = self.given("id-field");
        Ok(Config {
            inputs: input.files,
            read: ReadSettings {
                format: input.input_format,
                field: self.value("field"),
                auto_ids: id_field.is_none(),
                id_field: id_field.filter(|f| f != "none"),
                on_bad_line: self.value("on-bad-line"),
                max_line_bytes: self.value("max-line-bytes"),
                decompress: self.value("decompress"),
                ..ReadSettings::default()
            },
            text: TextSettings {
                normalizer,
                shingle,
                bag: self.on("bag"),
                stopwords_path: self.given("stopwords"),
            },
            sketch: SketchSettings {
                num_perm: self.value("num-perm"),
                seed: self.value("seed"),
                bands: self.given("bands"),
                rows: self.given("rows"),
                recall: self.value("recall"),
                weights: self.value("weights"),
                idf_path: self.given("idf"),
                idf_warmup: self.idf_warmup(),
                ..SketchSettings::default()
            },
            block_by: self.given("block-by"),
            all_pairs: self.on("exact"),
            window: self.value("window"),
            memory: MemorySettings {
                max_memory,
                memory_limit,
                spill_dir,
                spill_cache: self.given("spill-cache").map(bytes),
                max_disk: self.value("max-disk"),
                columnar: false,
            },
            max_candidates: self.value("max-candidates"),
            verify: VerifySettings {
                threshold: self.value("threshold"),
                mode: verify,
                text_stages: confirm,
            },
            threads: self.value("threads"),
            helpers: self.value("helpers"),
            stats: self.stats(),
            quiet: self.on("quiet"),
            progress: !self.on("no-progress"),
            run: RunSettings {
                output: self.output(),
                output_format: self.value("output-format"),
                compression: self.given("compression"),
                ..RunSettings::default()
            },
        })
    }
}
