//! What a run does with its documents: its [`Job`], apart from the settings ([`Config`])
//! that say how documents are read, signed, held and compared.
//!
//! A command makes one job and hands it to the pipeline with the run's settings; nothing
//! rewrites either while the run goes (a graph is collected by running [`Job::Graph`], the
//! `--against` reference by running [`Job::Reference`]). What only some jobs do is part of
//! those jobs, so that no other job can be asked for it: the filter's reference, the state
//! the filter and `--pairs` keep, the report of the filter and the graphs, the pairs'
//! format, a graph node's snippet, `sign`'s signature.

use crate::config::{DEFAULT_SNIPPET_CHARS, PairsFormat};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// What a run does with each document, once signed, in input order.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// Filter the stream: each line is written or not by whether it duplicates an earlier
    /// kept one (the work per document is bounded by [`Config::max_candidates`]).
    Filter(FilterJob),
    /// Write every verified pair (`--pairs`).
    Pairs(PairsJob),
    /// Write nothing while reading: every document becomes a node and every verified pair an
    /// edge of a [`crate::graph::DupGraph`] (the `graph`, `clusters`, `explain` and `sample`
    /// commands).
    Graph(GraphJob),
    /// `neardup sign`: each document's LSH band keys (and signature), in input order; no
    /// window.
    Sign(SignJob),
    /// The reference of `--against`: every document enters an unbounded window, nothing is
    /// compared or written.
    Reference,
}

/// The filter (`--drop-dups`, `--only-dups`, `--annotate`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterJob {
    /// What it writes.
    pub output: Output,
    /// `--against`: what the input is also filtered against.
    pub against: Reference,
    /// `--state`: where the window is resumed from and saved to.
    pub state: Option<StateFile>,
    /// `--report FILE`: the page written at the end of the run.
    pub report: Option<PathBuf>,
}

impl From<Output> for FilterJob {
    /// The filter writing `output`, with no reference, state or report.
    fn from(output: Output) -> FilterJob {
        FilterJob {
            output,
            ..FilterJob::default()
        }
    }
}

/// `--pairs`.
#[derive(Clone, Debug, PartialEq)]
pub struct PairsJob {
    /// The lines' format.
    pub format: PairsFormat,
    /// `--state`: where the window is resumed from and saved to.
    pub state: Option<StateFile>,
}

impl From<PairsFormat> for PairsJob {
    /// Pairs in `format`, with no state.
    fn from(format: PairsFormat) -> PairsJob {
        PairsJob {
            format,
            state: None,
        }
    }
}

/// The reference documents of `--against` (none when `files` is empty).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reference {
    /// Corpus files, saved states and index directories, in order.
    pub files: Vec<PathBuf>,
    /// `--against-only`: the input is compared with the reference alone (its own
    /// duplicates are kept).
    pub only: bool,
}

impl Reference {
    /// The reference of `--against files` (`--against-only` when `only`) for a run reading
    /// `inputs` (standard input when empty): standard input cannot be both, and
    /// `--against-only` needs a reference.
    pub fn new(files: Vec<PathBuf>, only: bool, inputs: &[PathBuf]) -> Result<Reference> {
        let stdin = |p: &PathBuf| p.as_os_str() == "-";
        if files.iter().any(stdin) && (inputs.is_empty() || inputs.iter().any(stdin)) {
            return Err(Error::config(
                "against",
                "- reads standard input, which is already the input: give the reference or \
                 the input as a file",
            ));
        }
        if only && files.is_empty() {
            return Err(Error::config("against-only", "needs ‹against› FILE"));
        }
        Ok(Reference { files, only })
    }

    /// True when there is no reference.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// `--state FILE` (or an index directory) and its checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct StateFile {
    /// The file or directory.
    pub path: PathBuf,
    /// `--checkpoint-every N`: also save after every N documents (0: only at the end).
    pub checkpoint_every: u64,
}

impl StateFile {
    /// The state of `--state path --checkpoint-every every`, if a path is given (checkpoints
    /// need one).
    pub fn new(path: Option<PathBuf>, checkpoint_every: u64) -> Result<Option<StateFile>> {
        match path {
            Some(path) => Ok(Some(StateFile {
                path,
                checkpoint_every,
            })),
            None if checkpoint_every > 0 => {
                Err(Error::config("checkpoint-every", "needs ‹state› FILE"))
            }
            None => Ok(None),
        }
    }
}

/// What the filter writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// Every line that is not a duplicate of an earlier one, unchanged (the default).
    #[default]
    DropDups,
    /// Only the lines that `DropDups` would drop.
    OnlyDups,
    /// Every line, as JSON, with a `neardup` object saying what it duplicates.
    Annotate,
}

impl Output {
    /// Whether this output writes a document: a new one (`dup` false) or a duplicate. What
    /// the filter counts as written, in the binary and in process alike.
    pub fn writes(self, dup: bool) -> bool {
        match self {
            Output::DropDups => !dup,
            Output::OnlyDups => dup,
            Output::Annotate => true,
        }
    }

    /// Whether this output writes a bad line through under `policy` (it is never a
    /// duplicate: `--only-dups` lists none of them).
    pub fn passes(self, policy: crate::config::BadLinePolicy) -> bool {
        policy == crate::config::BadLinePolicy::Pass && self != Output::OnlyDups
    }
}

/// What a graph keeps of each document and pair.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphJob {
    /// When only the connected components are wanted (`clusters --by components`, `--keep`):
    /// `Some(min_edge)` joins documents by pairs of at least that similarity as they arrive,
    /// and verifies no candidate already in the document's component. The graph then holds a
    /// spanning forest of the components, not every pair, and the work per document is
    /// bounded like the filter's ([`Config::max_candidates`]).
    pub components_over: Option<f64>,
    /// Dotted JSON paths kept as node attributes (`--node-attr`).
    pub node_attrs: Vec<String>,
    /// Characters of each document's text kept as its snippet.
    pub snippet_chars: usize,
    /// `--report FILE`: the page the command writes at the end (the run collects what it
    /// shows).
    pub report: Option<PathBuf>,
    /// Bytes an edge takes when the graph is grouped and written
    /// ([`crate::graph::ClusterOptions::edge_bytes`]): under `--max-memory` the run stops
    /// when the graph would not fit in what the pipeline leaves.
    pub edge_bytes: usize,
}

impl Default for GraphJob {
    /// Every pair, no attributes, [`DEFAULT_SNIPPET_CHARS`] characters of snippet.
    fn default() -> GraphJob {
        GraphJob {
            components_over: None,
            node_attrs: Vec::new(),
            snippet_chars: DEFAULT_SNIPPET_CHARS,
            report: None,
            edge_bytes: crate::graph::EDGE_BYTES_CLIQUES,
        }
    }
}

impl GraphJob {
    /// A graph of ids and pairs only (every pair, no snippet, no attributes): what a
    /// command that only groups or measures the documents needs.
    pub fn ids_only() -> GraphJob {
        GraphJob {
            snippet_chars: 0,
            ..GraphJob::default()
        }
    }
}

/// What `sign` writes besides the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignJob {
    /// The lines' format.
    pub format: PairsFormat,
    /// Also each document's MinHash values (`--signature`).
    pub values: bool,
}

impl Job {
    /// The filter's output, for [`Job::Filter`].
    pub fn output(&self) -> Option<Output> {
        match self {
            Job::Filter(filter) => Some(filter.output),
            _ => None,
        }
    }

    /// The filter's `--against` reference (none for the other jobs).
    pub fn against(&self) -> Option<&Reference> {
        match self {
            Job::Filter(filter) if !filter.against.is_empty() => Some(&filter.against),
            _ => None,
        }
    }

    /// The state the filter and `--pairs` keep.
    pub fn state(&self) -> Option<&StateFile> {
        match self {
            Job::Filter(FilterJob { state, .. }) | Job::Pairs(PairsJob { state, .. }) => {
                state.as_ref()
            }
            _ => None,
        }
    }

    /// Where the report of the filter or a graph goes: the run collects what it shows.
    pub fn report(&self) -> Option<&Path> {
        match self {
            Job::Filter(FilterJob { report, .. }) | Job::Graph(GraphJob { report, .. }) => {
                report.as_deref()
            }
            _ => None,
        }
    }

    /// The format of the lines `--pairs` and `sign` write (TSV for the others, which write
    /// none).
    pub fn format(&self) -> PairsFormat {
        match self {
            Job::Pairs(pairs) => pairs.format,
            Job::Sign(sign) => sign.format,
            _ => PairsFormat::Tsv,
        }
    }

    /// True for the jobs that filter the stream: a document is compared with the documents
    /// kept so far, and its work is bounded by [`Config::max_candidates`].
    pub fn filters(&self) -> bool {
        matches!(self, Job::Filter(_))
    }

    /// The graph's settings, for [`Job::Graph`].
    pub fn graph(&self) -> Option<&GraphJob> {
        match self {
            Job::Graph(graph) => Some(graph),
            _ => None,
        }
    }

    /// True when every verified pair is wanted (`--pairs`, the graph commands but for
    /// [`GraphJob::components_over`]): the work per document then grows with its matches.
    pub(crate) fn lists_every_pair(&self) -> bool {
        match self {
            Job::Pairs(_) => true,
            Job::Graph(graph) => graph.components_over.is_none(),
            _ => false,
        }
    }

    /// True when exact copies count as duplicates without a comparison (all but
    /// [`Job::Pairs`], which lists each copy's pairs): part of what a state file records.
    pub(crate) fn drops_copies(&self) -> bool {
        !matches!(self, Job::Pairs(_))
    }

    /// Whether the LSH buckets of this job's window keep only their newest members (a
    /// bound on the work per document): the filter's, the reference it filters against and
    /// [`GraphJob::components_over`]'s; the jobs that list every pair keep every member
    /// (the bound is the window's, [`crate::window::WindowSettings::bucket_limit`]).
    pub(crate) fn bounds_buckets(&self) -> bool {
        match self {
            Job::Filter(_) | Job::Reference => true,
            Job::Graph(graph) => graph.components_over.is_some(),
            Job::Pairs(_) | Job::Sign(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(components_over: Option<f64>) -> Job {
        Job::Graph(GraphJob {
            components_over,
            ..GraphJob::default()
        })
    }

    #[test]
    fn buckets_are_bounded_where_the_work_per_document_is() {
        assert!(Job::Filter(Output::OnlyDups.into()).bounds_buckets());
        assert!(Job::Reference.bounds_buckets());
        assert!(graph(Some(0.9)).bounds_buckets());
        assert!(!graph(None).bounds_buckets());
        assert!(!Job::Pairs(PairsFormat::Tsv.into()).bounds_buckets());
        assert!(graph(None).lists_every_pair());
        assert!(!graph(Some(0.9)).lists_every_pair());
        assert!(!Job::Filter(Output::DropDups.into()).lists_every_pair());
    }

    #[test]
    fn a_reference_or_checkpoints_are_refused_without_what_they_need() {
        let stdin = || vec![PathBuf::from("-")];
        let e = Reference::new(stdin(), false, &[]).unwrap_err().to_string();
        assert!(e.contains("already the input"), "{e}");
        assert!(Reference::new(stdin(), false, &stdin()).is_err());
        assert!(Reference::new(stdin(), false, &["in".into()]).is_ok());
        let e = Reference::new(Vec::new(), true, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("against-only"), "{e}");
        let e = StateFile::new(None, 10).unwrap_err().to_string();
        assert!(e.contains("checkpoint-every"), "{e}");
        assert_eq!(StateFile::new(None, 0).unwrap(), None);
        let state = StateFile::new(Some("s".into()), 10).unwrap();
        let job = Job::Pairs(PairsJob {
            format: PairsFormat::Tsv,
            state: state.clone(),
        });
        assert_eq!(job.state(), state.as_ref());
        assert_eq!(job.against(), None);
        assert_eq!(job.report(), None);
    }

    #[test]
    fn each_output_writes_its_documents_and_passes_bad_lines_but_only_dups() {
        use crate::config::BadLinePolicy::{Fail, Pass, Skip};
        assert!(Output::DropDups.writes(false) && !Output::DropDups.writes(true));
        assert!(!Output::OnlyDups.writes(false) && Output::OnlyDups.writes(true));
        assert!(Output::Annotate.writes(false) && Output::Annotate.writes(true));
        assert!(Output::DropDups.passes(Pass) && Output::Annotate.passes(Pass));
        assert!(!Output::OnlyDups.passes(Pass));
        assert!(!Output::DropDups.passes(Skip) && !Output::Annotate.passes(Fail));
    }
}
