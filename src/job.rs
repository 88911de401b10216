//! What a run does with its documents: its [`Job`], apart from the settings ([`Config`])
//! that say how documents are read, signed, held and compared.
//!
//! A command makes one job and hands it to the pipeline with the run's settings; nothing
//! rewrites either while the run goes (a graph is collected by running [`Job::Graph`], the
//! `--against` reference by running [`Job::Reference`]). What only one job writes (the
//! pairs' format, a graph node's snippet, `sign`'s signature) is part of that job.

use crate::config::{Config, DEFAULT_SNIPPET_CHARS, PairsFormat};
use crate::error::{Error, Result};

/// What a run does with each document, once signed, in input order.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// Filter the stream: each line is written or not by whether it duplicates an earlier
    /// kept one (the work per document is bounded by [`Config::max_candidates`]).
    Filter(Output),
    /// Write every verified pair (`--pairs`), in this format.
    Pairs(PairsFormat),
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

/// What the filter writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Every line that is not a duplicate of an earlier one, unchanged (the default).
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
}

impl Default for GraphJob {
    /// Every pair, no attributes, [`DEFAULT_SNIPPET_CHARS`] characters of snippet.
    fn default() -> GraphJob {
        GraphJob {
            components_over: None,
            node_attrs: Vec::new(),
            snippet_chars: DEFAULT_SNIPPET_CHARS,
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
            Job::Filter(output) => Some(*output),
            _ => None,
        }
    }

    /// The format of the lines `--pairs` and `sign` write (TSV for the others, which write
    /// none).
    pub fn format(&self) -> PairsFormat {
        match self {
            Job::Pairs(format) => *format,
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
    pub fn lists_every_pair(&self) -> bool {
        match self {
            Job::Pairs(_) => true,
            Job::Graph(graph) => graph.components_over.is_none(),
            _ => false,
        }
    }

    /// True when exact copies count as duplicates without a comparison (all but
    /// [`Job::Pairs`], which lists each copy's pairs): part of what a state file records.
    pub fn drops_copies(&self) -> bool {
        !matches!(self, Job::Pairs(_))
    }

    /// Most documents an LSH bucket keeps: `2 × max_candidates` for the filter, the
    /// reference it filters against and [`GraphJob::components_over`], else no limit (0).
    /// Candidates are ranked before any is verified, so a bucket can offer more than are
    /// verified at the cost of a sketch comparison each. With the family keys finding the
    /// members of a template family that changed the same places, verifying more (48) and
    /// keeping 2× finds more of the exact greedy filter's drops than 32 and 3× for the same
    /// bucket size (96) (docs/performance.md).
    pub fn bucket_limit(&self, config: &Config) -> usize {
        let bounded = match self {
            Job::Filter(_) | Job::Reference => true,
            Job::Graph(graph) => graph.components_over.is_some(),
            Job::Pairs(_) | Job::Sign(_) => false,
        };
        match bounded {
            true => config.max_candidates.saturating_mul(2),
            false => 0,
        }
    }

    /// Checks that `config` (validated) asks nothing of this job that it does not do: a
    /// state is kept by the filter and `--pairs`, a reference is filtered against by the
    /// filter.
    pub fn check(&self, config: &Config) -> Result<()> {
        if config.run.state.is_some() && !matches!(self, Job::Filter(_) | Job::Pairs(_)) {
            return Err(Error::config(
                "state",
                "only the filter modes (‹drop-dups›, ‹only-dups›, ‹annotate›, ‹pairs›) keep state",
            ));
        }
        if !config.run.against.is_empty() && !self.filters() {
            return Err(Error::config(
                "against",
                "only the filter modes (‹drop-dups›, ‹only-dups›, ‹annotate›) filter against a \
                 reference",
            ));
        }
        if config.run.report.is_some() && !self.filters() && self.graph().is_none() {
            return Err(Error::config(
                "report",
                "only the filter modes (‹drop-dups›, ‹only-dups›, ‹annotate›), `graph` and \
                 `clusters` write a report; for ‹pairs› use `neardup hist` and `neardup sample`",
            ));
        }
        Ok(())
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
        let config = Config {
            max_candidates: 5,
            ..Config::default()
        };
        assert_eq!(Job::Filter(Output::OnlyDups).bucket_limit(&config), 10);
        assert_eq!(Job::Reference.bucket_limit(&config), 10);
        assert_eq!(graph(Some(0.9)).bucket_limit(&config), 10);
        assert_eq!(graph(None).bucket_limit(&config), 0);
        assert_eq!(Job::Pairs(PairsFormat::Tsv).bucket_limit(&config), 0);
        assert!(graph(None).lists_every_pair());
        assert!(!graph(Some(0.9)).lists_every_pair());
        assert!(!Job::Filter(Output::DropDups).lists_every_pair());
    }

    #[test]
    fn a_state_or_a_reference_only_goes_with_the_jobs_that_use_it() {
        let mut state = Config::default();
        state.run.state = Some("s".into());
        assert!(Job::Filter(Output::Annotate).check(&state).is_ok());
        assert!(Job::Pairs(PairsFormat::Jsonl).check(&state).is_ok());
        let e = graph(None).check(&state).unwrap_err().to_string();
        assert!(e.contains("state"), "{e}");
        let mut against = Config::default();
        against.run.against = vec!["r".into()];
        assert!(Job::Filter(Output::DropDups).check(&against).is_ok());
        assert!(Job::Pairs(PairsFormat::Tsv).check(&against).is_err());
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
