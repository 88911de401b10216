//! What `--pairs` and the graph commands keep between documents ([`Pairing`]), their
//! consumer (`pairs`), apart from the sequencer's own state so that the jobs that list no
//! pair carry none of it.

use crate::graph::GraphBuilder;
use crate::job::Job;
use crate::pipeline::components::Components;
use crate::window::{Held, Marks};

/// What the jobs that list every pair keep between documents (the filter and the sign job
/// keep none of it).
#[derive(Default)]
pub(super) struct Pairing {
    /// [`crate::job::GraphJob::components_over`]: join components of edges at least this
    /// similar instead of listing pairs.
    pub(super) components_over: Option<f64>,
    /// The graph commands: the graph so far.
    pub(super) graph: Option<GraphBuilder>,
    /// [`crate::job::GraphJob::components_over`]: the components so far.
    pub(super) components: Option<Components>,
    /// `--pairs`: the warning that two documents of a pair share an id (`Some(None)` once
    /// said).
    pub(super) same_id: Option<Option<String>>,
    /// A document's candidates, and the verified ones with their similarity.
    pub(super) candidates: Vec<Held>,
    pub(super) matches: Vec<(Held, f64)>,
    /// The sequencer's candidate marks for a batch's lookups (each helper has its own).
    pub(super) marks: Marks,
    /// [`crate::job::GraphJob::edge_bytes`].
    pub(super) edge_bytes: usize,
}

impl Pairing {
    /// The state of `job`'s pairs (empty for the jobs that list none).
    pub(super) fn new(job: &Job) -> Pairing {
        Pairing {
            components_over: job.graph().and_then(|g| g.components_over),
            graph: job.graph().map(|_| GraphBuilder::default()),
            components: job
                .graph()
                .and_then(|g| g.components_over)
                .map(|_| Components::default()),
            edge_bytes: job.graph().map_or(0, |g| g.edge_bytes),
            ..Pairing::default()
        }
    }
}
