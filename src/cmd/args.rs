//! The flags most commands share (input, normalisation, similarity, MinHash and LSH, threads,
//! grouping) and their conversion into a [`Config`]. The only place besides the command
//! files that knows clap; the engine never sees these types.

pub use super::values::{NgramArg, ShingleArg, VerifyArg, check_similarity, choice, parse_size};
use crate::config::{
    BadLinePolicy, Compression, Config, DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_LINE_BYTES,
    DEFAULT_NGRAM, DEFAULT_NUM_PERM, DEFAULT_SEED, DEFAULT_THRESHOLD, Decompress, HelperPolicy,
    InputFormat, OutputFormat, ShingleKind, TextStage, VerifyMode, Weights,
};
use crate::error::{Error, Result};
use crate::graph::ClusterOptions;
use crate::lsh::DEFAULT_RECALL;
use crate::normalize::{Normalizer, Words};
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
        default_value_t = 0.0,
        value_name = "S",
        allow_negative_numbers = true,
        help_heading = "Grouping"
    )]
    pub min_edge: f64,

    /// No group of more than N documents: a larger component is reported and split into its
    /// clique clusters, and a larger clique into runs of N in input order. 0: no limit.
    #[arg(long, default_value_t = 0, value_name = "N", help_heading = "Grouping")]
    pub max_cluster: usize,
}

impl GroupingArgs {
    /// The grouping options, validated.
    pub fn options(&self) -> Result<ClusterOptions> {
        Ok(ClusterOptions {
            min_edge: check_similarity("min-edge", self.min_edge)?,
            max_cluster: self.max_cluster,
            ..ClusterOptions::default()
        })
    }
}

/// Settings shared by every command: input, normalisation, similarity, MinHash/LSH, threads.
#[derive(clap::Args, Clone, Debug)]
pub struct CommonArgs {
    /// Print a one-line JSON summary to stderr at the end.
    #[arg(long, help_heading = "Output")]
    pub stats: bool,

    /// Write the output to FILE instead of standard output. A table (Parquet, Arrow) is
    /// written under a temporary name and renamed to FILE when the run ends; a failed run
    /// leaves FILE as it was.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// What the filter modes write: auto goes by -o FILE's extension (.parquet, .arrow),
    /// else by the input (Parquet or Arrow rows as a table of their kind, lines as lines);
    /// lines writes Parquet or Arrow rows as JSON objects.
    #[arg(long, value_parser = choice::<OutputFormat>(), default_value_t = OutputFormat::Auto, value_name = "FORMAT", help_heading = "Output")]
    pub output_format: OutputFormat,

    /// Parquet output's compression [default: zstd].
    #[arg(long, value_parser = choice::<Compression>(), value_name = "CODEC", help_heading = "Output")]
    pub compression: Option<Compression>,

    /// Print no warnings or progress on stderr (errors are still printed).
    #[arg(short, long, help_heading = "Output")]
    pub quiet: bool,

    /// Never show progress (it is shown only when stderr is a terminal anyway).
    #[arg(long, help_heading = "Output")]
    pub no_progress: bool,

    /// Dotted path of the text field in JSON Lines input.
    #[arg(
        long,
        default_value = "text",
        value_name = "PATH",
        help_heading = "Input"
    )]
    pub field: String,

    /// Dotted path of the id field in JSON Lines input. Default: the `id` field when each of
    /// the first lines has one (a string or an integer; said once on stderr), else the
    /// 1-based line number; 'none': line numbers always.
    #[arg(long, value_name = "PATH", help_heading = "Input")]
    pub id_field: Option<String>,

    /// What to do with a line that is not a document (invalid JSON or UTF-8, missing field,
    /// empty, too long).
    ///
    /// pass: write it through unchanged (in --drop-dups and --annotate; it is never a
    /// duplicate); skip: leave it out; fail: stop with exit status 1. Every bad line is
    /// counted; the first 10 are reported on stderr with their line numbers.
    #[arg(long, value_parser = choice::<BadLinePolicy>(), default_value_t = BadLinePolicy::Pass, value_name = "POLICY", help_heading = "Input")]
    pub on_bad_line: BadLinePolicy,

    /// Lines longer than this many bytes are bad lines.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", help_heading = "Input")]
    pub max_line_bytes: usize,

    /// How inputs are decompressed: auto recognises gzip, zstd and xz by their first bytes
    /// and bzip2 by its header and first block; none reads every input as it is.
    #[arg(long, value_parser = choice::<Decompress>(), default_value_t = Decompress::Auto, value_name = "HOW", help_heading = "Input")]
    pub decompress: Decompress,

    /// Remove HTML tags and decode HTML entities before tokenising.
    #[arg(long, help_heading = "Normalisation")]
    pub strip_html: bool,

    /// Treat punctuation and symbols as word separators.
    #[arg(long, help_heading = "Normalisation")]
    pub strip_punct: bool,

    /// Do not lower-case the text.
    #[arg(long, help_heading = "Normalisation")]
    pub keep_case: bool,

    /// Do not apply Unicode NFKC normalisation.
    #[arg(long, help_heading = "Normalisation")]
    pub no_nfkc: bool,

    /// What a word is: unicode (runs between white space, but each character of Chinese,
    /// Japanese, Thai, Lao, Khmer, Myanmar and other scripts written without spaces is a word
    /// of its own) or spaces (runs between white space only, as earlier versions did; a
    /// Chinese sentence is then one word).
    #[arg(long, value_parser = choice::<Words>(), default_value_t = Words::Unicode, value_name = "WORDS", help_heading = "Normalisation")]
    pub words: Words,

    /// Shingle length in words (hist: a range such as 1..7).
    #[arg(short = 'n', long, default_value_t = NgramArg(DEFAULT_NGRAM, DEFAULT_NGRAM), value_name = "N", help_heading = "Similarity")]
    pub ngram: NgramArg,

    /// What a shingle is: words (-n consecutive words), chars (-n consecutive characters, or
    /// --char-ngram), or stopword (spot signatures: at each stop word, the stop word and the
    /// next -n words that are not stop words; robust to boilerplate around the text).
    #[arg(long, value_enum, default_value_t = ShingleArg::Words, value_name = "KIND", help_heading = "Similarity")]
    pub shingle: ShingleArg,

    /// Stop words for --shingle stopword, one per line [default: a built-in English list].
    #[arg(long, value_name = "FILE", help_heading = "Similarity")]
    pub stopwords: Option<PathBuf>,

    /// Use shingles of N characters instead of words.
    #[arg(long, value_name = "N", help_heading = "Similarity")]
    pub char_ngram: Option<usize>,

    /// Shingle weights: set (each distinct shingle weighs 1), tf (counts: weighted Jaccard of
    /// shingle counts, the same as --bag) or tfidf (tf x idf; needs --idf or --idf-warmup).
    #[arg(long, value_parser = choice::<Weights>(), default_value_t = Weights::Set, value_name = "WEIGHTS", help_heading = "Similarity")]
    pub weights: Weights,

    /// Document frequencies for --weights tfidf, from 'neardup idf'.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "idf_warmup",
        help_heading = "Similarity"
    )]
    pub idf: Option<PathBuf>,

    /// Learn document frequencies for --weights tfidf from the first N lines, then freeze
    /// them and process those lines and the rest of the stream with the same weights.
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "Similarity"
    )]
    pub idf_warmup: usize,

    /// Only compare documents whose JSON field PATH has the same value (e.g. the date, as in
    /// news deduplication); documents without it form one block of their own.
    #[arg(long, value_name = "PATH", help_heading = "Similarity")]
    pub block_by: Option<String>,

    /// Multiset semantics: a repeated shingle counts once per occurrence.
    #[arg(long, help_heading = "Similarity")]
    pub bag: bool,

    /// Jaccard similarity at or above which a document is a duplicate, in (0, 1].
    #[arg(short, long, default_value_t = DEFAULT_THRESHOLD, value_name = "T", allow_negative_numbers = true, help_heading = "Similarity")]
    pub threshold: f64,

    /// How candidates are confirmed, as a comma-separated chain: jaccard (exact Jaccard of the
    /// shingles, at least --threshold), none alone (trust the MinHash estimate; no shingles
    /// kept), and the text stages edit (relative edit distance at most --max-edit), cosine
    /// (word-count cosine at least --min-cosine), lcs (longest common substring / shorter
    /// length at least --min-lcs). Without jaccard the text stages decide alone. Text stages
    /// keep each windowed document's normalised text.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [VerifyArg::Jaccard], value_name = "METHODS", help_heading = "Similarity")]
    pub verify: Vec<VerifyArg>,

    /// --verify edit: largest relative edit distance (distance / longer length, characters).
    #[arg(
        long,
        default_value_t = 0.05,
        value_name = "D",
        allow_negative_numbers = true,
        help_heading = "Similarity"
    )]
    pub max_edit: f64,

    /// --verify cosine: smallest cosine similarity of the word counts.
    #[arg(
        long,
        default_value_t = 0.95,
        value_name = "C",
        allow_negative_numbers = true,
        help_heading = "Similarity"
    )]
    pub min_cosine: f64,

    /// --verify lcs: smallest longest-common-substring ratio (to the shorter text).
    #[arg(
        long,
        default_value_t = 0.6,
        value_name = "R",
        allow_negative_numbers = true,
        help_heading = "Similarity"
    )]
    pub min_lcs: f64,

    /// Exact similarity join (All-Pairs prefix filtering) instead of MinHash + LSH: every pair
    /// at or above --threshold in the window is found (set or bag semantics).
    #[arg(long, help_heading = "MinHash and LSH")]
    pub exact: bool,

    /// Number of MinHash values per document (K).
    #[arg(short = 'k', long, default_value_t = DEFAULT_NUM_PERM, value_name = "K", help_heading = "MinHash and LSH")]
    pub num_perm: usize,

    /// LSH bands [default: chosen from --threshold and --recall].
    #[arg(long, value_name = "B", help_heading = "MinHash and LSH")]
    pub bands: Option<usize>,

    /// LSH rows per band [default: chosen from --threshold and --recall].
    #[arg(long, value_name = "R", help_heading = "MinHash and LSH")]
    pub rows: Option<usize>,

    /// Recall target of the LSH banding: a pair exactly at --threshold becomes a candidate
    /// with at least this probability (pairs above it more often). Lower is faster.
    #[arg(long, default_value_t = DEFAULT_RECALL, value_name = "R", allow_negative_numbers = true, help_heading = "MinHash and LSH")]
    pub recall: f64,

    /// Seed for shingle hashing and MinHash.
    #[arg(long, default_value_t = DEFAULT_SEED, value_name = "SEED", help_heading = "MinHash and LSH")]
    pub seed: u64,

    /// Keep at most N documents to compare with (least recently matched are evicted);
    /// 0 keeps all.
    #[arg(
        short,
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "MinHash and LSH"
    )]
    pub window: usize,

    /// RAM the run may use, e.g. 512M or 8G (K, M, G, T: powers of 1024). Held documents
    /// cost their index entries in RAM (about 300 bytes each) and their records on disk
    /// (--spill-dir); when the window reaches the limit it keeps its size from then on,
    /// evicting the least recently matched, and says so once. The limit bounds the whole
    /// process's peak RSS (the window takes what the pipeline's buffers leave). Default: half
    /// the smallest of the physical memory, the memory cgroup's limit (a container's) and
    /// the address-space limit (ulimit -v); --stats says which; 0: no limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Memory")]
    pub max_memory: Option<u64>,

    /// Directory of the spill file holding the held documents' records (shingle
    /// fingerprints, band keys, ids) past the RAM share of --spill-cache. The file is
    /// unlinked as soon as it is created, so nothing is left behind however the run ends;
    /// a directory that cannot hold one is refused before any input is read.
    /// Default: the system's temporary directory ($TMPDIR or /tmp); 'none' keeps every
    /// record in RAM.
    #[arg(long, value_name = "DIR", help_heading = "Memory")]
    pub spill_dir: Option<PathBuf>,

    /// RAM for the newest held records before they go to the spill file. Default: 64M, or
    /// an eighth of --max-memory if that is less.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Memory")]
    pub spill_cache: Option<u64>,

    /// Most bytes the spill file may take: the window stops growing at half of it (evicting
    /// from then on, said once), and evicted records' space is reclaimed before the file
    /// reaches it. No effect with --spill-dir none. Default 0: no limit but the disk's (a
    /// full disk stops the run with exit status 1, the output ending at a whole line).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "0", help_heading = "Memory")]
    pub max_disk: u64,

    /// Filter modes and clusters components: verify at most N candidates per document, the
    /// most promising first (those lacking what it lacks in a template family, then the most
    /// similar by a sketch of the signature), and keep at most 2N documents in each LSH
    /// bucket, so that the work per document is bounded however many near copies came before
    /// it. 0: no bound (the exact greedy answer with --exact).
    #[arg(long, default_value_t = DEFAULT_MAX_CANDIDATES, value_name = "N", help_heading = "MinHash and LSH")]
    pub max_candidates: usize,

    /// Signing threads (the sequencer is one of them: it signs while the next batch in order
    /// is not ready), and threads looking up and verifying a batch's candidates; 0 uses all
    /// cores.
    #[arg(
        short = 'j',
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "Performance"
    )]
    pub threads: usize,

    /// --pairs and the graph commands: when the sequencer shares a batch's LSH lookups and
    /// verification with helper threads (with more than one thread): auto (when signed
    /// batches queue up behind it: it is then the slower stage), always, or never. The
    /// output is the same.
    #[arg(
        long,
        value_parser = choice::<HelperPolicy>(),
        default_value_t = HelperPolicy::Auto,
        value_name = "WHEN",
        help_heading = "Performance"
    )]
    pub helpers: HelperPolicy,
}

impl CommonArgs {
    /// The shingle check and the text stages of `--verify`.
    fn verify_chain(&self) -> Result<(VerifyMode, Vec<TextStage>)> {
        let mut stages = Vec::new();
        let mut mode = VerifyMode::Stages;
        for (i, &m) in self.verify.iter().enumerate() {
            if self.verify[..i].contains(&m) {
                return Err(Error::config("verify", format!("{m:?} is given twice")));
            }
            match m {
                VerifyArg::Jaccard => mode = VerifyMode::Jaccard,
                VerifyArg::None if self.verify.len() == 1 => mode = VerifyMode::None,
                VerifyArg::None => {
                    return Err(Error::config(
                        "verify",
                        "none (trust the estimate) cannot be chained with other methods",
                    ));
                }
                VerifyArg::Edit => stages.push(TextStage::Edit(self.max_edit)),
                VerifyArg::Cosine => stages.push(TextStage::Cosine(self.min_cosine)),
                VerifyArg::Lcs => stages.push(TextStage::Lcs(self.min_lcs)),
            }
        }
        Ok((mode, stages))
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
        if self.ngram.0 != self.ngram.1 && !ngram_range {
            return Err(Error::config(
                "ngram",
                "a range of lengths is only for 'neardup hist'",
            ));
        }
        let (verify, confirm) = self.verify_chain()?;
        let normalizer = Normalizer {
            lowercase: !self.keep_case,
            nfkc: !self.no_nfkc,
            strip_html: self.strip_html,
            strip_punct: self.strip_punct,
            words: self.words,
        };
        let shingle = match (self.shingle, self.char_ngram) {
            (ShingleArg::Words | ShingleArg::Chars, Some(n)) => ShingleKind::Chars(n),
            (ShingleArg::Words, None) => ShingleKind::Words(self.ngram.0),
            (ShingleArg::Chars, None) => ShingleKind::Chars(self.ngram.0),
            (ShingleArg::Stopword, None) => ShingleKind::Stopword(self.ngram.0),
            (ShingleArg::Stopword, Some(_)) => {
                return Err(Error::config(
                    "char-ngram",
                    "cannot be used with --shingle stopword",
                ));
            }
        };
        // What a flag left out means: `Config::default()`, the one place the defaults are
        // computed (the memory limit is probed there, once).
        let defaults = Config::default();
        let (max_memory, memory_limit) = match self.max_memory {
            Some(bytes) => (usize::try_from(bytes).unwrap_or(usize::MAX), None),
            None => (defaults.max_memory, defaults.memory_limit.clone()),
        };
        let spill_dir = match self.spill_dir {
            Some(dir) if dir.as_os_str() == "none" => None,
            Some(dir) => Some(dir),
            None => defaults.spill_dir.clone(),
        };
        Ok(Config {
            inputs: input.files,
            format: input.input_format,
            field: self.field,
            auto_ids: self.id_field.is_none(),
            id_field: self.id_field.filter(|f| f != "none"),
            normalizer,
            shingle,
            stopwords_path: self.stopwords,
            bag: self.bag,
            weights: self.weights,
            idf_path: self.idf,
            block_by: self.block_by,
            all_pairs: self.exact,
            idf_warmup: self.idf_warmup,
            num_perm: self.num_perm,
            seed: self.seed,
            threshold: self.threshold,
            bands: self.bands,
            rows: self.rows,
            recall: self.recall,
            window: self.window,
            max_memory,
            memory_limit,
            spill_dir,
            spill_cache: self
                .spill_cache
                .map(|b| usize::try_from(b).unwrap_or(usize::MAX)),
            max_disk: self.max_disk,
            max_candidates: self.max_candidates,
            verify,
            text_stages: confirm,
            on_bad_line: self.on_bad_line,
            max_line_bytes: self.max_line_bytes,
            decompress: self.decompress,
            threads: self.threads,
            helpers: self.helpers,
            stats: self.stats,
            quiet: self.quiet,
            progress: !self.no_progress,
            output: self.output,
            output_format: self.output_format,
            compression: self.compression,
            ..defaults
        })
    }
}
