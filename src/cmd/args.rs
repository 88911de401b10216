//! The flags most commands share as a command line gave them ([`super::flags::defs`] defines them),
//! their conversion into a [`Config`], and the small groups of flags a few commands share
//! (input files, grouping, sample size). The only place besides the command files that
//! knows clap; the engine never sees these types.

#[cfg(feature = "cli")]
use super::flags::defs;
#[cfg(feature = "cli")]
use super::flags::flag::Value;
use super::flags::keywords::{self, Keywords, Own};
use super::flags::shared::Shared;
#[cfg(feature = "cli")]
pub use super::values::choice;
pub use super::values::{NgramArg, check_similarity, parse_size};
use crate::config::{Config, InputFormat, ShingleKind, TextStage, VerifyMode};
use crate::error::{Error, Result};
use crate::graph::ClusterOptions;
use crate::text::shingle::ShingleUnit;
use crate::verify::settings::{Method, StageBounds, chain};
#[cfg(feature = "cli")]
use clap::ArgMatches;
use std::path::PathBuf;

/// The value of a flag the table gives a default: never left empty.
fn defaulted<T: Clone>(value: &Option<T>) -> T {
    value.clone().expect("a flag with a default has a value")
}

/// `--sample N` of the commands that compare all pairs of a seeded reservoir sample (`hist`,
/// `sample`, `tune`).
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SampleSize {
    /// Documents to sample, seeded (all pairs of them are compared: n(n-1)/2).
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "sample",
            default_value_t = 2000,
            value_name = "N",
            help_heading = "Output"
        )
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
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CommandInput {
    /// Input files; '-' or none reads standard input.
    #[cfg_attr(feature = "cli", arg(value_name = "FILE"))]
    pub files: Vec<PathBuf>,

    /// Input format: auto is JSON Lines when most of the first non-empty lines start with '{'
    /// (and always with --field or --id-field).
    #[cfg_attr(feature = "cli", arg(long, value_parser = choice::<InputFormat>(), default_value_t = CommandInput::DEFAULT_FORMAT, value_name = "FORMAT", help_heading = "Input"))]
    pub input_format: InputFormat,
}

impl CommandInput {
    /// `--input-format` left out: found from the first lines.
    pub const DEFAULT_FORMAT: InputFormat = InputFormat::Auto;

    /// Its flags as the keyword API lists them ([`Own`]): about files and formats, so no
    /// keyword takes them.
    pub const OWN: &[Own] = &[
        Own::positional("files"),
        Own::taking(
            "input-format",
            Some(|| CommandInput::DEFAULT_FORMAT.to_string()),
            false,
        ),
    ];
}

impl Default for CommandInput {
    /// No files (standard input), the format found from the first lines: what a caller
    /// without a command line (the Python module) reads by.
    fn default() -> Self {
        CommandInput {
            files: Vec::new(),
            input_format: Self::DEFAULT_FORMAT,
        }
    }
}

/// Edge pruning and size limits for `graph` and `clusters`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct GroupingArgs {
    /// Only edges with at least this similarity take part in grouping (components, cliques);
    /// a stricter cut-off than --threshold breaks chains. All verified edges are still
    /// written by graph.
    #[cfg_attr(feature = "cli", arg(
        long,
        default_value_t = GroupingArgs::DEFAULT.min_edge,
        value_name = "S",
        allow_negative_numbers = true,
        help_heading = "Grouping"
    ))]
    pub min_edge: f64,

    /// No group of more than N documents: a larger component is reported and split into its
    /// clique clusters, and a larger clique into runs of N in input order. 0: no limit.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = GroupingArgs::DEFAULT.max_cluster, value_name = "N", help_heading = "Grouping"))]
    pub max_cluster: usize,
}

impl GroupingArgs {
    /// Its flags as the keyword API lists them ([`Own`]).
    pub const OWN: &[Own] = &[
        Own::taking(
            "min-edge",
            Some(|| GroupingArgs::DEFAULT.min_edge.to_string()),
            true,
        ),
        Own::taking(
            "max-cluster",
            Some(|| GroupingArgs::DEFAULT.max_cluster.to_string()),
            true,
        ),
    ];

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

/// The shared flags ([`super::flags::defs::all`]) of a command line or of keywords, each in
/// its typed field.
#[derive(Clone, Debug)]
pub struct CommonArgs(Shared);

#[cfg(feature = "cli")]
impl clap::FromArgMatches for CommonArgs {
    fn from_arg_matches(matches: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        shared_of(matches).map(Self)
    }

    fn update_from_arg_matches(
        &mut self,
        matches: &ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        self.0 = shared_of(matches)?;
        Ok(())
    }
}

/// The shared flags' values a command line gave, over `Config::default()` (made once: it
/// probes the memory limit).
#[cfg(feature = "cli")]
fn shared_of(matches: &ArgMatches) -> std::result::Result<Shared, clap::Error> {
    let mut values = Shared::default();
    for flag in defs::all() {
        // clap checked every value with the flag's parser, defaults included, and split
        // lists at commas: each text goes to the flag's field as it is.
        let texts: Vec<&std::ffi::OsStr> = match flag.value {
            Value::Switch => match matches.try_get_one::<bool>(flag.long) {
                Ok(Some(true)) => vec![std::ffi::OsStr::new("")],
                _ => Vec::new(),
            },
            _ => (matches.try_get_raw(flag.long).ok().flatten())
                .into_iter()
                .flatten()
                .collect(),
        };
        for &text in &texts {
            (flag.set)(&mut values, text).map_err(|why| {
                clap::Error::raw(
                    clap::error::ErrorKind::ValueValidation,
                    format!(
                        "invalid value '{}' for '--{}': {}",
                        text.display(),
                        flag.long,
                        why.unwrap_or_default()
                    ),
                )
            })?;
        }
    }
    Ok(values)
}

#[cfg(feature = "cli")]
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
        keywords::take(command, keywords).map(Self)
    }

    /// `--stats`.
    pub fn stats(&self) -> bool {
        self.0.config.stats
    }

    /// `-o FILE`.
    pub fn output(&self) -> Option<PathBuf> {
        self.0.config.run.output.clone()
    }

    /// `--ngram`: one length or (for `hist`) a range.
    pub fn ngram(&self) -> NgramArg {
        defaulted(&self.0.ngram)
    }

    /// `--idf-warmup`.
    pub fn idf_warmup(&self) -> usize {
        self.0.config.sketch.idf_warmup
    }

    /// The shingle check and the text stages of `--verify`.
    fn verify_chain(&self) -> Result<(VerifyMode, Vec<TextStage>)> {
        let methods: Vec<Method> = self.0.verify.clone();
        let bounds = StageBounds {
            max_edit: defaulted(&self.0.max_edit),
            min_cosine: defaulted(&self.0.min_cosine),
            min_lcs: defaulted(&self.0.min_lcs),
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
        let shingle = match (defaulted(&self.0.shingle), self.0.char_ngram) {
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
        // The flags without a field of their own wrote into the settings, which started as
        // `Config::default()`: the one place the defaults are computed (the memory limit is
        // probed there, once).
        let shared = self.0;
        let mut config = shared.config;
        let bytes = |size: u64| usize::try_from(size).unwrap_or(usize::MAX);
        if let Some(size) = shared.max_memory {
            config.memory.max_memory = bytes(size);
            config.memory.memory_limit = None;
        }
        match shared.spill_dir {
            Some(dir) if dir.as_os_str() == "none" => config.memory.spill_dir = None,
            Some(dir) => config.memory.spill_dir = Some(dir),
            None => {}
        }
        if let Some(size) = shared.spill_cache {
            config.memory.spill_cache = Some(bytes(size));
        }
        config.read.auto_ids = shared.id_field.is_none();
        config.read.id_field = shared.id_field.filter(|f| f != "none");
        config.inputs = input.files;
        config.read.format = input.input_format;
        config.text.shingle = shingle;
        config.verify.mode = verify;
        config.verify.text_stages = confirm;
        Ok(config)
    }
}
