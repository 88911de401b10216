//! The command line: clap definitions and their conversion into a [`Config`].
//!
//! This is the only module that knows clap. `Args::into_config` validates everything, so a
//! bad flag fails with exit code 2 before any input is read.

use crate::config::TextStage as Stage;
use crate::config::{
    BadLinePolicy, Config, DEFAULT_MAX_LINE_BYTES, DEFAULT_NGRAM, DEFAULT_NUM_PERM, DEFAULT_SEED,
    DEFAULT_SNIPPET_CHARS, DEFAULT_THRESHOLD, HelperPolicy, InputFormat, Mode, PairsFormat,
    ShingleKind, VerifyMode, Weights,
};
use crate::error::{Error, Result};
use crate::export::{ExportOptions, GraphFormat};
use crate::graph::{ClusterBy, ClusterOptions};
use crate::normalize::Normalizer;
use crate::shingle::StopWords;
use clap::{ArgGroup, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Find near-duplicate documents in a stream of lines.
///
/// Reads one document per line (plain text or JSON Lines) from FILEs or standard input and,
/// by default, writes every line that is not a near duplicate of an earlier line, unchanged
/// and in input order (--drop-dups). Documents are compared by the Jaccard similarity of their
/// word n-gram shingles: MinHash signatures and LSH banding find candidates among the recent
/// documents (--window), and every candidate is verified exactly before it counts.
///
/// Commands: graph, clusters and explain group the verified pairs; idf counts document
/// frequencies for --weights tfidf; hist, sample and tune help choose n and the threshold;
/// sign writes LSH band keys for a distributed join (see 'neardup help COMMAND').
///
/// Exit status: 0 on success (whether or not duplicates were found), 1 on a runtime error
/// (I/O, or a bad line under --on-bad-line fail), 2 on a usage error.
#[derive(Parser, Debug)]
#[command(name = "neardup", version, about, long_about, max_term_width = 100)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// A command other than filtering.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Filter-mode arguments.
    #[command(flatten)]
    pub filter: FilterArgs,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The commands besides the default filter.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Write the similarity graph: documents as nodes, verified pairs as weighted edges.
    ///
    /// The graph is written at the end of input, nodes in input order, edges in the order
    /// they were found. Nodes carry the document id (label), a text snippet, the component
    /// and clique cluster they belong to, the component size, their degree and the
    /// --node-attr fields. Only documents with at least one edge are written unless
    /// --all-nodes is given.
    Graph(GraphArgs),
    /// Write one JSON line per document: {"id", "cluster", "size"}, in input order.
    ///
    /// Clusters are connected components of the verified pairs (--by components), or
    /// disjoint cliques (--by cliques): every two members of a clique cluster are at or
    /// above the threshold, which splits chains whose ends share nothing.
    Clusters(ClustersArgs),
    /// Show how two documents are connected: the shortest chain of verified pairs, each
    /// hop's similarity and a word diff, and the two ends' own similarity.
    ///
    /// The input is read twice (standard input is held in memory for the second pass).
    Explain(ExplainArgs),
    /// Count document frequencies and write an IDF file for --weights tfidf --idf FILE.
    ///
    /// Reads the corpus once (bad lines are skipped and counted) and writes a compact binary
    /// file to standard output: the number of documents, the shingling settings, and the
    /// document frequency of the --max-terms most frequent shingles (those seen at least
    /// twice). Shingles it does not list get the maximum IDF. Use the same --ngram,
    /// --char-ngram, --seed and normalisation flags as the runs that load it.
    Idf(IdfArgs),
    /// Show the LSH bands x rows for a threshold and K: the S-curve P(candidate | J), the
    /// false-positive and false-negative areas, every alternative b x r = K, and an SVG plot.
    Tune(TuneArgs),
    /// Histogram of pairwise Jaccard similarity per shingle length, to choose n and the
    /// threshold: a reservoir sample of the documents, every sampled pair exactly, a text
    /// table (counts and log10 per 0.05; pairs per million above common cut-offs) and an
    /// optional SVG plot with one curve per n. Use -n LO..HI for the lengths.
    Hist(HistArgs),
    /// Example pairs per similarity bin, each with a word diff: what a threshold means on
    /// your data. Bins from 0.5 up are filled by LSH over all documents, lower bins from all
    /// pairs of a reservoir sample (--sample). The input is read more than once (standard
    /// input is held in memory).
    Sample(SampleArgs),
    /// Sign documents for a distributed join (a mapper for Spark's RDD.pipe or MapReduce):
    /// one line per document and LSH band, ID TAB BAND TAB KEY (16 hex digits), in input
    /// order; documents sharing a (BAND, KEY) are candidate pairs. --format jsonl writes one
    /// object per document instead; --signature adds the MinHash values.
    Sign(SignArgs),
    /// Verify candidate pairs found elsewhere (e.g. by a Spark join of 'neardup sign' keys).
    ///
    /// Reads JSON Lines {"a": ID, "b": ID, "text_a": TEXT, "text_b": TEXT} and writes the
    /// pairs that pass the same check as the filter's (--verify chain, --threshold,
    /// weights), in input order, as --pairs does: A TAB B TAB SIMILARITY (or JSON with
    /// --pairs-format jsonl), ready for 'neardup clusters --from-edges'.
    VerifyPairs(VerifyPairsArgs),
}

/// Arguments of `neardup verify-pairs`.
#[derive(clap::Args, Debug)]
pub struct VerifyPairsArgs {
    /// Candidate files ('-' or none: standard input).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Output: tsv (A TAB B TAB SIMILARITY) or jsonl.
    #[arg(long, value_enum, default_value_t = PairsFormatArg::Tsv, value_name = "FORMAT", help_heading = "Output")]
    pub pairs_format: PairsFormatArg,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of `neardup sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Output: tsv (a line per band) or jsonl (an object per document).
    #[arg(long, value_enum, default_value_t = PairsFormatArg::Tsv, value_name = "FORMAT", help_heading = "Output")]
    pub format: PairsFormatArg,

    /// Also write the K MinHash values of each document.
    #[arg(long, help_heading = "Output")]
    pub signature: bool,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of `neardup sample`.
#[derive(clap::Args, Debug)]
pub struct SampleArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Ascending bin edges; the last bin runs to 1.
    #[arg(long, value_delimiter = ',', default_values_t = [0.1, 0.2, 0.3, 0.5, 0.8], value_name = "EDGES", help_heading = "Output")]
    pub bins: Vec<f64>,

    /// Pairs shown per bin.
    #[arg(long, default_value_t = 5, value_name = "N", help_heading = "Output")]
    pub per_bin: usize,

    /// Documents sampled for the bins below 0.5.
    #[arg(
        long,
        default_value_t = 2000,
        value_name = "N",
        help_heading = "Output"
    )]
    pub sample: usize,

    /// Write JSON lines ({"bin", "id_a", "id_b", "similarity", "diff"}) instead of text.
    #[arg(long, help_heading = "Output")]
    pub jsonl: bool,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of `neardup hist`.
#[derive(clap::Args, Debug)]
pub struct HistArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Documents to sample (all pairs of them are compared: n(n-1)/2).
    #[arg(
        long,
        default_value_t = 2000,
        value_name = "N",
        help_heading = "Output"
    )]
    pub sample: usize,

    /// Also write the histogram as an SVG plot to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub plot: Option<PathBuf>,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of `neardup tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Jaccard similarity cut-off, in (0, 1].
    #[arg(short, long, default_value_t = DEFAULT_THRESHOLD, value_name = "T")]
    pub threshold: f64,

    /// Number of MinHash values per document (K).
    #[arg(short = 'k', long, default_value_t = DEFAULT_NUM_PERM, value_name = "K")]
    pub num_perm: usize,

    /// LSH bands [default: chosen from --threshold].
    #[arg(long, value_name = "B")]
    pub bands: Option<usize>,

    /// LSH rows per band [default: chosen from --threshold].
    #[arg(long, value_name = "R")]
    pub rows: Option<usize>,

    /// Also write the S-curves as an SVG plot to FILE.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// Arguments of `neardup idf`.
#[derive(clap::Args, Debug)]
pub struct IdfArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Keep at most this many shingles (12 bytes each in the file).
    #[arg(
        long,
        default_value_t = 4_000_000,
        value_name = "N",
        help_heading = "Output"
    )]
    pub max_terms: usize,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of the default filter command.
#[derive(clap::Args, Debug)]
#[command(group(ArgGroup::new("mode").args(["drop_dups", "only_dups", "annotate", "pairs"])))]
pub struct FilterArgs {
    /// Input files; '-' or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Write the lines that are not duplicates of an earlier line (the default mode).
    #[arg(long, help_heading = "Output")]
    pub drop_dups: bool,

    /// Write only the lines that --drop-dups would drop.
    #[arg(long, help_heading = "Output")]
    pub only_dups: bool,

    /// Write every document as JSON with a "neardup" member: dup_of, similarity, exact.
    ///
    /// JSON objects keep their members and gain "neardup"; plain-text lines become
    /// {"text": LINE, "neardup": {...}}. dup_of is the id of the most similar earlier
    /// document at or above the threshold (null if none).
    #[arg(long, help_heading = "Output")]
    pub annotate: bool,

    /// Write verified pairs (earlier id, later id, similarity) instead of documents.
    ///
    /// Every pair of documents in the window at or above the threshold, ordered by the later
    /// document, then the earlier.
    #[arg(long, help_heading = "Output")]
    pub pairs: bool,

    /// Format of --pairs output.
    #[arg(long, value_enum, default_value_t = PairsFormatArg::Tsv, value_name = "FORMAT", help_heading = "Output")]
    pub pairs_format: PairsFormatArg,

    /// Flush the output after every batch of lines (for pipelines that need results early).
    #[arg(long, help_heading = "Output")]
    pub line_buffered: bool,

    /// Input format: auto looks at the first non-empty line ('{' means JSON Lines).
    #[arg(long, visible_alias = "input-format", value_enum, default_value_t = FormatArg::Auto, value_name = "FORMAT", help_heading = "Input")]
    pub format: FormatArg,

    /// Resume from FILE (the window, its LSH buckets and verification data, the IDF table,
    /// the line count) when it exists, and save to it at the end of input and on
    /// SIGINT/SIGTERM. Settings that shape the window must match the saved ones.
    #[arg(long, value_name = "FILE", help_heading = "State")]
    pub state: Option<PathBuf>,

    /// With --state: also save after every N documents (0: only at the end).
    #[arg(long, default_value_t = 0, value_name = "N", help_heading = "State")]
    pub checkpoint_every: u64,
}

/// Arguments of `neardup graph`.
#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Output format: graphml (Gephi, networkx, igraph), tsv (id_a id_b similarity), json
    /// (nodes, edges and groups with their diameter and weakest edge), dot (Graphviz, one
    /// box per component).
    #[arg(long, value_enum, default_value_t = GraphFormatArg::Graphml, value_name = "FORMAT", help_heading = "Output")]
    pub format: GraphFormatArg,

    /// Also write documents that have no edge.
    #[arg(long, help_heading = "Output")]
    pub all_nodes: bool,

    /// Keep this JSON field (dotted path) as a node attribute; repeat for more.
    #[arg(long, value_name = "PATH", help_heading = "Output")]
    pub node_attr: Vec<String>,

    /// Characters of each document's text kept as its snippet (memory: about this many
    /// bytes per document).
    #[arg(long, default_value_t = DEFAULT_SNIPPET_CHARS, value_name = "N", help_heading = "Output")]
    pub snippet_chars: usize,

    /// Grouping settings.
    #[command(flatten)]
    pub grouping: GroupingArgs,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of `neardup clusters`.
#[derive(clap::Args, Debug)]
pub struct ClustersArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// How documents are grouped: connected components, or disjoint cliques (greedily, the
    /// largest clique of the remaining documents first).
    #[arg(long, value_enum, default_value_t = ByArg::Components, value_name = "METHOD", help_heading = "Output")]
    pub by: ByArg,

    /// Group an edge list computed elsewhere (ID_A TAB ID_B [TAB SIMILARITY] per line, as
    /// --pairs writes it; '-' for standard input) instead of documents: one line per id, in
    /// order of first appearance. --on-bad-line fail stops at a malformed line; otherwise it
    /// is skipped and reported.
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    pub from_edges: Option<PathBuf>,

    /// Grouping settings.
    #[command(flatten)]
    pub grouping: GroupingArgs,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Arguments of `neardup explain`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// Id of the first document (as --pairs writes it: the line number unless --id-field).
    #[arg(value_name = "ID_A")]
    pub id_a: String,

    /// Id of the second document.
    #[arg(value_name = "ID_B")]
    pub id_b: String,

    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Only follow edges with at least this similarity.
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "S",
        help_heading = "Grouping"
    )]
    pub min_edge: f64,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Input files and format of a command (where `--format` is the output's).
#[derive(clap::Args, Debug)]
pub struct CommandInput {
    /// Input files; '-' or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Input format: auto looks at the first non-empty line ('{' means JSON Lines).
    #[arg(long, value_enum, default_value_t = FormatArg::Auto, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: FormatArg,
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
        help_heading = "Grouping"
    )]
    pub min_edge: f64,

    /// Warn about components of more than N documents; clusters --by components splits them
    /// into their cliques. 0: no limit.
    #[arg(long, default_value_t = 0, value_name = "N", help_heading = "Grouping")]
    pub max_cluster: usize,
}

/// Settings shared by every command: input, normalisation, similarity, MinHash/LSH, threads.
#[derive(clap::Args, Debug)]
pub struct CommonArgs {
    /// Print a one-line JSON summary to stderr at the end.
    #[arg(long, help_heading = "Output")]
    pub stats: bool,

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

    /// Dotted path of the id field in JSON Lines input [default: the 1-based line number].
    #[arg(long, value_name = "PATH", help_heading = "Input")]
    pub id_field: Option<String>,

    /// What to do with a line that is not a document (invalid JSON or UTF-8, missing field,
    /// empty, too long).
    ///
    /// pass: write it through unchanged (in --drop-dups and --annotate; it is never a
    /// duplicate); skip: leave it out; fail: stop with exit status 1. Every bad line is
    /// counted; the first 10 are reported on stderr with their line numbers.
    #[arg(long, value_enum, default_value_t = BadLineArg::Pass, value_name = "POLICY", help_heading = "Input")]
    pub on_bad_line: BadLineArg,

    /// Lines longer than this many bytes are bad lines.
    #[arg(long, default_value_t = DEFAULT_MAX_LINE_BYTES, value_name = "BYTES", help_heading = "Input")]
    pub max_line_bytes: usize,

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
    #[arg(long, value_enum, default_value_t = WeightsArg::Set, value_name = "WEIGHTS", help_heading = "Similarity")]
    pub weights: WeightsArg,

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
    #[arg(short, long, default_value_t = DEFAULT_THRESHOLD, value_name = "T", help_heading = "Similarity")]
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
        help_heading = "Similarity"
    )]
    pub max_edit: f64,

    /// --verify cosine: smallest cosine similarity of the word counts.
    #[arg(
        long,
        default_value_t = 0.95,
        value_name = "C",
        help_heading = "Similarity"
    )]
    pub min_cosine: f64,

    /// --verify lcs: smallest longest-common-substring ratio (to the shorter text).
    #[arg(
        long,
        default_value_t = 0.6,
        value_name = "R",
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

    /// LSH bands [default: chosen from --threshold].
    #[arg(long, value_name = "B", help_heading = "MinHash and LSH")]
    pub bands: Option<usize>,

    /// LSH rows per band [default: chosen from --threshold].
    #[arg(long, value_name = "R", help_heading = "MinHash and LSH")]
    pub rows: Option<usize>,

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

    /// When the sequencer shares a batch's LSH lookups and verification with helper threads
    /// (with more than one thread): auto (when signed batches queue up behind it: it is then
    /// the slower stage), always, or never. The output is the same.
    #[arg(
        long,
        value_enum,
        default_value_t = HelpersArg::Auto,
        value_name = "WHEN",
        help_heading = "Performance"
    )]
    pub helpers: HelpersArg,
}

/// `--helpers` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum HelpersArg {
    /// When signed batches queue up behind the sequencer.
    Auto,
    /// On every batch.
    Always,
    /// Never.
    Never,
}

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// Detect from the first non-empty line.
    Auto,
    /// One document per line.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// `--pairs-format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PairsFormatArg {
    /// id_a TAB id_b TAB similarity.
    Tsv,
    /// {"id_a":…,"id_b":…,"similarity":…}.
    Jsonl,
}

impl From<PairsFormatArg> for PairsFormat {
    fn from(arg: PairsFormatArg) -> PairsFormat {
        match arg {
            PairsFormatArg::Tsv => PairsFormat::Tsv,
            PairsFormatArg::Jsonl => PairsFormat::Jsonl,
        }
    }
}

/// `--on-bad-line` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BadLineArg {
    /// Write through unchanged.
    Pass,
    /// Leave out.
    Skip,
    /// Stop with exit status 1.
    Fail,
}

/// `--verify` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    /// Exact Jaccard of the shingle sets.
    Jaccard,
    /// Trust the MinHash estimate.
    None,
    /// Relative edit distance.
    Edit,
    /// Cosine of word counts.
    Cosine,
    /// Longest common substring ratio.
    Lcs,
}

/// `graph --format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum GraphFormatArg {
    /// GraphML with typed keys (Gephi, networkx, igraph).
    Graphml,
    /// id_a TAB id_b TAB similarity.
    Tsv,
    /// Nodes, edges and groups in one JSON document.
    Json,
    /// Graphviz DOT.
    Dot,
}

/// `--ngram`: one length, or an inclusive range `LO..HI` (only `neardup hist` takes ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NgramArg(pub usize, pub usize);

impl std::str::FromStr for NgramArg {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}' is not a number or a range LO..HI"))
        };
        match s.split_once("..") {
            None => num(s).map(|n| NgramArg(n, n)),
            Some((lo, hi)) => {
                let (lo, hi) = (num(lo)?, num(hi.trim_start_matches('='))?);
                if lo > hi || lo == 0 {
                    return Err(format!("'{s}' is not a range 1 <= LO <= HI"));
                }
                Ok(NgramArg(lo, hi))
            }
        }
    }
}

impl std::fmt::Display for NgramArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == self.1 {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{}..{}", self.0, self.1)
        }
    }
}

/// `--shingle` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShingleArg {
    /// Consecutive words.
    Words,
    /// Consecutive characters.
    Chars,
    /// Spot signatures anchored at stop words.
    Stopword,
}

/// `--weights` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WeightsArg {
    /// Every distinct shingle weighs 1.
    Set,
    /// Shingle counts.
    Tf,
    /// Counts times inverse document frequency.
    Tfidf,
}

/// `clusters --by` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ByArg {
    /// Connected components.
    Components,
    /// Disjoint cliques.
    Cliques,
}

/// What the binary runs, with validated settings.
#[derive(Debug)]
pub enum Job {
    /// The default stream filter (`--drop-dups`, `--only-dups`, `--annotate`, `--pairs`).
    Filter(Config),
    /// `neardup graph`.
    Graph {
        /// Engine settings (mode: graph).
        config: Config,
        /// Output format.
        format: GraphFormat,
        /// Edge pruning and size limits.
        grouping: ClusterOptions,
        /// What to write besides the edges.
        export: ExportOptions,
    },
    /// `neardup clusters`.
    Clusters {
        /// `--from-edges FILE`.
        from_edges: Option<PathBuf>,
        /// Engine settings (mode: graph).
        config: Config,
        /// Components or cliques.
        by: ClusterBy,
        /// Edge pruning and size limits.
        grouping: ClusterOptions,
    },
    /// `neardup verify-pairs`.
    VerifyPairs(Config),
    /// `neardup idf`.
    Idf {
        /// Engine settings (shingling and input).
        config: Config,
        /// Shingles kept.
        max_terms: usize,
    },
    /// `neardup hist`.
    Hist {
        /// Input, normalisation and seed.
        config: Config,
        /// Shingle lengths.
        ngrams: (usize, usize),
        /// Documents sampled.
        sample: usize,
        /// SVG output path.
        plot: Option<PathBuf>,
    },
    /// `neardup sample`.
    Sample {
        /// Engine settings.
        config: Config,
        /// Bin edges.
        bins: Vec<f64>,
        /// Pairs per bin.
        per_bin: usize,
        /// Documents sampled.
        sample: usize,
        /// JSON lines output.
        jsonl: bool,
    },
    /// `neardup tune`.
    Tune {
        /// Threshold, K and the resolved banding.
        config: Config,
        /// SVG output path.
        plot: Option<PathBuf>,
    },
    /// `neardup explain`.
    Explain {
        /// Engine settings (mode: graph).
        config: Config,
        /// The two document ids.
        ids: (String, String),
        /// Only edges at or above this similarity are followed.
        min_edge: f64,
    },
}

impl Args {
    /// Converts parsed arguments into a validated [`Job`].
    pub fn into_job(self) -> Result<Job> {
        let Some(command) = self.command else {
            return self.filter.into_config(self.common).map(Job::Filter);
        };
        Ok(match command {
            Command::Graph(g) => Job::Graph {
                grouping: g.grouping.options()?,
                format: match g.format {
                    GraphFormatArg::Graphml => GraphFormat::Graphml,
                    GraphFormatArg::Tsv => GraphFormat::Tsv,
                    GraphFormatArg::Json => GraphFormat::Json,
                    GraphFormatArg::Dot => GraphFormat::Dot,
                },
                export: ExportOptions {
                    all_nodes: g.all_nodes,
                    attr_names: g.node_attr.clone(),
                },
                config: Config {
                    node_attrs: g.node_attr,
                    snippet_chars: g.snippet_chars,
                    ..g.common.config(g.input, Mode::Graph)?
                }
                .validate()?,
            },
            Command::Clusters(c) => Job::Clusters {
                from_edges: c.from_edges,
                grouping: c.grouping.options()?,
                by: match c.by {
                    ByArg::Components => ClusterBy::Components,
                    ByArg::Cliques => ClusterBy::Cliques,
                },
                config: Config {
                    snippet_chars: 0,
                    ..c.common.config(c.input, Mode::Graph)?
                }
                .validate()?,
            },
            Command::Hist(h) => {
                if h.sample < 2 {
                    return Err(Error::config("--sample", "must be at least 2"));
                }
                Job::Hist {
                    ngrams: (h.common.ngram.0, h.common.ngram.1),
                    sample: h.sample,
                    plot: h.plot,
                    config: h.common.config(h.input, Mode::Hist)?.validate()?,
                }
            }
            Command::Sample(s) => {
                crate::sample::bins_from_edges(&s.bins)?;
                let config = s.common.config(s.input, Mode::Graph)?.validate()?;
                if config.weights == Weights::TfIdf {
                    return Err(Error::config(
                        "--weights",
                        "sample compares set or bag shingles; tfidf is not supported here",
                    ));
                }
                Job::Sample {
                    config,
                    bins: s.bins,
                    per_bin: s.per_bin,
                    sample: s.sample.max(2),
                    jsonl: s.jsonl,
                }
            }
            Command::Sign(s) => {
                let mut config = Config {
                    pairs_format: s.format.into(),
                    sign_values: s.signature,
                    ..s.common.config(s.input, Mode::Sign)?
                };
                if config.all_pairs {
                    return Err(Error::config(
                        "--exact",
                        "sign writes MinHash LSH keys; the exact join does not apply",
                    ));
                }
                // Verification flags are accepted (the same flags can go to sign and to
                // verify-pairs) but do not change the keys. The signature is the compact one
                // that --verify none keeps.
                config.verify = VerifyMode::None;
                config.text_stages.clear();
                Job::Filter(config.validate()?)
            }
            Command::VerifyPairs(v) => {
                if v.common.idf_warmup > 0 {
                    return Err(Error::config(
                        "--idf-warmup",
                        "verify-pairs needs the IDF table of the run that signed: use --idf FILE",
                    ));
                }
                let config = Config {
                    pairs_format: v.pairs_format.into(),
                    ..v.common.config(
                        CommandInput {
                            files: v.files,
                            input_format: FormatArg::Jsonl,
                        },
                        Mode::Pairs,
                    )?
                };
                if config.all_pairs {
                    return Err(Error::config(
                        "--exact",
                        "verify-pairs checks given candidates; --exact does not apply",
                    ));
                }
                Job::VerifyPairs(config.validate()?)
            }
            Command::Tune(t) => Job::Tune {
                plot: t.plot,
                config: Config {
                    threshold: t.threshold,
                    num_perm: t.num_perm,
                    bands: t.bands,
                    rows: t.rows,
                    ..Config::default()
                }
                .validate()?,
            },
            Command::Idf(i) => Job::Idf {
                max_terms: i.max_terms,
                config: Config {
                    weights: Weights::Set,
                    idf_path: None,
                    idf_warmup: 0,
                    ..i.common.config(i.input, Mode::DropDups)?
                }
                .validate()?,
            },
            Command::Explain(e) => Job::Explain {
                min_edge: check_similarity("--min-edge", e.min_edge)?,
                ids: (e.id_a, e.id_b),
                config: Config {
                    snippet_chars: 0,
                    ..e.common.config(e.input, Mode::Graph)?
                }
                .validate()?,
            },
        })
    }

    /// The validated [`Config`] of the filter command (an error for other commands).
    pub fn into_config(self) -> Result<Config> {
        match self.into_job()? {
            Job::Filter(config) => Ok(config),
            _ => Err(Error::config("COMMAND", "not the filter command")),
        }
    }
}

fn check_similarity(flag: &'static str, value: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(Error::config(flag, format!("{value} is not in [0, 1]")))
    }
}

impl GroupingArgs {
    fn options(&self) -> Result<ClusterOptions> {
        Ok(ClusterOptions {
            min_edge: check_similarity("--min-edge", self.min_edge)?,
            max_cluster: self.max_cluster,
            ..ClusterOptions::default()
        })
    }
}

impl FilterArgs {
    fn into_config(self, common: CommonArgs) -> Result<Config> {
        let mode = if self.only_dups {
            Mode::OnlyDups
        } else if self.annotate {
            Mode::Annotate
        } else if self.pairs {
            Mode::Pairs
        } else {
            Mode::DropDups
        };
        Config {
            pairs_format: self.pairs_format.into(),
            line_buffered: self.line_buffered,
            state: self.state,
            checkpoint_every: self.checkpoint_every,
            ..common.config(
                CommandInput {
                    files: self.files,
                    input_format: self.format,
                },
                mode,
            )?
        }
        .validate()
    }
}

impl CommonArgs {
    /// The shingle check and the text stages of `--verify`.
    fn verify_chain(&self) -> Result<(VerifyMode, Vec<Stage>)> {
        let mut stages = Vec::new();
        let mut mode = VerifyMode::Stages;
        for (i, &m) in self.verify.iter().enumerate() {
            if self.verify[..i].contains(&m) {
                return Err(Error::config("--verify", format!("{m:?} is given twice")));
            }
            match m {
                VerifyArg::Jaccard => mode = VerifyMode::Jaccard,
                VerifyArg::None if self.verify.len() == 1 => mode = VerifyMode::None,
                VerifyArg::None => {
                    return Err(Error::config(
                        "--verify",
                        "none (trust the estimate) cannot be chained with other methods",
                    ));
                }
                VerifyArg::Edit => stages.push(Stage::Edit(self.max_edit)),
                VerifyArg::Cosine => stages.push(Stage::Cosine(self.min_cosine)),
                VerifyArg::Lcs => stages.push(Stage::Lcs(self.min_lcs)),
            }
        }
        Ok((mode, stages))
    }

    /// The engine settings these flags give (not yet validated).
    fn config(self, input: CommandInput, mode: Mode) -> Result<Config> {
        if self.ngram.0 != self.ngram.1 && mode != Mode::Hist {
            return Err(Error::config(
                "--ngram",
                "a range of lengths is only for 'neardup hist'",
            ));
        }
        let (verify, confirm) = self.verify_chain()?;
        let normalizer = Normalizer {
            lowercase: !self.keep_case,
            nfkc: !self.no_nfkc,
            strip_html: self.strip_html,
            strip_punct: self.strip_punct,
        };
        let shingle = match (self.shingle, self.char_ngram) {
            (ShingleArg::Words | ShingleArg::Chars, Some(n)) => ShingleKind::Chars(n),
            (ShingleArg::Words, None) => ShingleKind::Words(self.ngram.0),
            (ShingleArg::Chars, None) => ShingleKind::Chars(self.ngram.0),
            (ShingleArg::Stopword, None) => ShingleKind::Stopword(self.ngram.0),
            (ShingleArg::Stopword, Some(_)) => {
                return Err(Error::config(
                    "--char-ngram",
                    "cannot be used with --shingle stopword",
                ));
            }
        };
        let stopwords = match &self.stopwords {
            None => std::sync::Arc::new(StopWords::english()),
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    Error::config("--stopwords", format!("{}: {e}", path.display()))
                })?;
                let words = StopWords::parse(&text, &normalizer);
                if words.is_empty() {
                    return Err(Error::config(
                        "--stopwords",
                        format!("{} lists no words", path.display()),
                    ));
                }
                std::sync::Arc::new(words)
            }
        };
        Ok(Config {
            inputs: input.files,
            mode,
            format: match input.input_format {
                FormatArg::Auto => InputFormat::Auto,
                FormatArg::Text => InputFormat::Text,
                FormatArg::Jsonl => InputFormat::Jsonl,
            },
            field: self.field,
            id_field: self.id_field,
            normalizer,
            shingle,
            stopwords,
            bag: self.bag,
            weights: match self.weights {
                WeightsArg::Set => Weights::Set,
                WeightsArg::Tf => Weights::Tf,
                WeightsArg::Tfidf => Weights::TfIdf,
            },
            idf_path: self.idf,
            block_by: self.block_by,
            all_pairs: self.exact,
            idf_warmup: self.idf_warmup,
            num_perm: self.num_perm,
            seed: self.seed,
            threshold: self.threshold,
            bands: self.bands,
            rows: self.rows,
            window: self.window,
            verify,
            text_stages: confirm,
            on_bad_line: match self.on_bad_line {
                BadLineArg::Pass => BadLinePolicy::Pass,
                BadLineArg::Skip => BadLinePolicy::Skip,
                BadLineArg::Fail => BadLinePolicy::Fail,
            },
            max_line_bytes: self.max_line_bytes,
            threads: self.threads,
            helpers: match self.helpers {
                HelpersArg::Auto => HelperPolicy::Auto,
                HelpersArg::Always => HelperPolicy::Always,
                HelpersArg::Never => HelperPolicy::Never,
            },
            stats: self.stats,
            quiet: self.quiet,
            progress: !self.no_progress,
            ..Config::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_app() {
        Args::command().debug_assert();
    }

    #[test]
    fn modes_are_exclusive() {
        assert!(Args::try_parse_from(["neardup", "--drop-dups", "--pairs"]).is_err());
        let c = Args::try_parse_from(["neardup", "--pairs", "-t", "0.5"])
            .unwrap()
            .into_config()
            .unwrap();
        assert_eq!(c.mode, Mode::Pairs);
        assert_eq!((c.lsh.bands, c.lsh.rows), (32, 4));
    }

    #[test]
    fn default_mode_is_drop_dups() {
        let c = Args::try_parse_from(["neardup", "x"])
            .unwrap()
            .into_config()
            .unwrap();
        assert_eq!(c.mode, Mode::DropDups);
        assert_eq!(c.inputs, vec![PathBuf::from("x")]);
    }
}
