//! Connected components as the documents arrive, for the commands that print nothing else
//! (`clusters --by components`, `clusters --keep`): union–find before verification.
//!
//! A candidate already in the document's component is not verified: the pair could not
//! change a component. The graph gets only the pairs that joined two components, a
//! spanning forest with the same components as the graph of every verified pair. With
//! `--max-candidates 0` the components are exactly those; otherwise the work per document is
//! bounded like the filter's (at most `max_candidates` verified, LSH buckets of at most
//! `3 × max_candidates` documents), so one template repeated N times costs O(N), not
//! the O(N²) of listing its pairs. An exact copy of a held document (same normalised text)
//! joins that document's component with no LSH work and is not held itself: any later
//! document is as similar to it as to the original.

use super::signing::Signed;
use crate::config::Config;
use crate::graph::GraphBuilder;
use crate::window::{Held, Rank, Window};
use petgraph::unionfind::UnionFind;

/// The components of the graph's nodes so far.
#[derive(Default)]
pub(super) struct Components {
    sets: UnionFind<u32>,
    /// The node of the document in each window slot.
    nodes: Vec<u32>,
    candidates: Vec<(Rank, Held)>,
}

/// What [`Components::join`] did for one document.
pub(super) struct Joined {
    /// The document's node.
    pub node: u32,
    /// Candidates verified.
    pub verified: u64,
    /// The document is an exact copy of a held one (it need not be held itself).
    pub copy: bool,
}

impl Components {
    /// Finds the components that the next document (the graph's next node) joins: writes
    /// into `links` (cleared first) one held document of each, with the similarity, for the
    /// caller to add as edges. A pair joins only at or above `min_edge` (`--min-edge`,
    /// compared as the graph compares its stored weights).
    ///
    /// The candidates are verified in the filter's order (most shared bands first), each
    /// unless it is in the document's component by then, at most `max_candidates` of them.
    /// They are taken in rounds of the best that the remaining budget could verify: after a
    /// join, the rest of the joined component leaves the list at once (one template repeated
    /// N times puts most of N in it), so nothing is sorted but what may be verified.
    pub fn join(
        &mut self,
        config: &Config,
        min_edge: f64,
        window: &mut Window,
        graph: &GraphBuilder,
        signed: &Signed,
        links: &mut Vec<(Held, f64)>,
    ) -> std::io::Result<Joined> {
        links.clear();
        let node = self.sets.new_set();
        debug_assert_eq!(node as usize, graph.node_count(), "one set per node");
        if let Some(held) = window.find_copy(signed.text_hash)? {
            self.sets.union(self.nodes[held.slot()], node);
            links.push((held, 1.0));
            return Ok(Joined {
                node,
                verified: 0,
                copy: true,
            });
        }
        let mut words = Vec::new();
        let verifier = super::prepare::verifier(config);
        let mut budget = match config.max_candidates {
            0 => usize::MAX,
            n => n,
        };
        let Components {
            sets,
            nodes,
            candidates,
        } = self;
        window.candidates_with_rank(&signed.band_keys, &signed.sketch, candidates);
        let mut verified = 0;
        while budget > 0 {
            let root = sets.find_mut(node);
            candidates.retain(|&(_, held)| sets.find_mut(nodes[held.slot()]) != root);
            if candidates.is_empty() {
                break;
            }
            let round = budget.min(candidates.len());
            // Without a bound every candidate is verified unless joined already, and the
            // order changes which pairs join but not the components: nothing to sort.
            if budget != usize::MAX {
                if candidates.len() > round {
                    candidates.select_nth_unstable_by_key(round, |c| c.0);
                }
                candidates[..round].sort_unstable_by_key(|c| c.0);
            }
            for &(_, held) in &candidates[..round] {
                let other = nodes[held.slot()];
                if sets.equiv(other, node) {
                    continue;
                }
                budget -= 1;
                verified += 1;
                let candidate = window.view(held, &mut words)?.compared();
                if let Some(s) = verifier.decide(candidate, signed.compared())
                    && f64::from(s as f32) >= min_edge - 1e-6
                {
                    sets.union(other, node);
                    links.push((held, s));
                }
            }
            candidates.drain(..round);
        }
        Ok(Joined {
            node,
            verified,
            copy: false,
        })
    }

    /// Records that `node` is held in the window at `held` (after [`Components::join`]).
    pub fn hold(&mut self, held: Held, node: u32) {
        let slot = held.slot();
        if self.nodes.len() <= slot {
            self.nodes.resize(slot + 1, 0);
        }
        self.nodes[slot] = node;
    }
}
