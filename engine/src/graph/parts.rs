//! What grouping finds in each component of two or more documents (its clique clusters,
//! edges, diameter and weakest edge), computed on every core. A component's answer depends
//! on its own members and edges only, so the components are shared out among threads and
//! the answers put back in label order: the grouping is the same on any thread count.

use super::adjacency::{self, Adjacency, Bfs, Diameter};
use super::{ClusterOptions, cliques};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What grouping found in one component.
pub(super) struct Part {
    /// Its clique clusters (none when [`ClusterOptions::cliques`] is off).
    pub parts: Vec<Vec<u32>>,
    /// True when the clique search ran out of budget and the greedy cover was used.
    pub greedy: bool,
    /// Edges inside.
    pub edges: usize,
    /// Longest shortest path (a zero placeholder without [`ClusterOptions::summaries`]).
    pub diameter: Diameter,
    /// The least similar edge (none without [`ClusterOptions::summaries`]).
    pub weakest: Option<(u32, u32, f32)>,
}

/// The clique search recurses once per member of the clique being built.
const STACK_BYTES: usize = 512 << 20;

/// What one thread's clique search may hold at once: its stored cliques, four bytes a unit.
const SEARCH_BYTES: usize = (super::cliques::CLIQUE_STORE_BUDGET as usize) * 4;

impl ClusterOptions {
    /// These options grouping on up to `threads` threads (`--threads`), fewer under a memory
    /// budget of `max_memory` bytes (0: none) so that the searches running at once hold at
    /// most half of it. The grouping is the same on any number.
    pub fn on_threads(self, threads: usize, max_memory: usize) -> ClusterOptions {
        let threads = match max_memory {
            0 => threads,
            budget => threads.min((budget / 2 / SEARCH_BYTES).max(1)),
        };
        ClusterOptions {
            threads: threads.max(1),
            ..self
        }
    }
}

/// The [`Part`] of each component of `members_of` (indexed by label) that has two or more
/// members; `None` for a lone document. Up to [`ClusterOptions::threads`] threads (this one
/// included) take components, largest first, from a shared counter until none is left; a
/// thread that cannot be started leaves its share to the others. With `stoppable`, the
/// threads take no more components once a signal asked the program to stop
/// ([`crate::guard::stop_requested`]), and the answer is `None`.
pub(super) fn of_components(
    adj: &Adjacency,
    members_of: &[Vec<u32>],
    options: ClusterOptions,
    stoppable: bool,
) -> Option<Vec<Option<Part>>> {
    let stopped = || stoppable && crate::guard::stop_requested().is_some();
    let mut order: Vec<usize> = (0..members_of.len())
        .filter(|&l| members_of[l].len() > 1)
        .collect();
    // Largest first, so that the last component taken is a small one.
    order.sort_by_key(|&l| std::cmp::Reverse(members_of[l].len()));
    let next = AtomicUsize::new(0);
    let take = || {
        let mut bfs = options.summaries.then(|| Bfs::new(adj.len()));
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&label) = order.get(k).filter(|_| !stopped()) else {
                return done;
            };
            done.push((
                label,
                of_component(adj, &members_of[label], options, bfs.as_mut()),
            ));
        }
    };
    let helpers = options.threads.max(1).min(order.len()).saturating_sub(1);
    let mut out: Vec<Option<Part>> = (0..members_of.len()).map(|_| None).collect();
    let found = std::thread::scope(|scope| {
        let started: Vec<_> = (0..helpers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("cluster".into())
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(scope, take)
                    .ok()
            })
            .collect();
        let mut found = take();
        for thread in started {
            match thread.join() {
                Ok(theirs) => found.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        found
    });
    if stopped() {
        return None;
    }
    for (label, part) in found {
        out[label] = Some(part);
    }
    Some(out)
}

/// The [`Part`] of the component `members` (ascending, two or more); `bfs` is given when
/// [`ClusterOptions::summaries`] asks for the diameter.
fn of_component(
    adj: &Adjacency,
    members: &[u32],
    options: ClusterOptions,
    bfs: Option<&mut Bfs>,
) -> Part {
    let (parts, greedy) = if !options.cliques {
        (Vec::new(), false)
    } else {
        let (mut parts, greedy) =
            match cliques::maximal_cliques(adj, members, options.clique_budget) {
                Some(cliques) => (cliques::clique_partition(&cliques), false),
                None => (cliques::greedy_cliques(adj, members), true),
            };
        cliques::pair_lone_members(adj, &mut parts);
        (parts, greedy)
    };
    let edges = members.iter().map(|&v| adj.degree(v)).sum::<usize>() / 2;
    let (diameter, weakest) = match bfs {
        Some(bfs) => (
            adjacency::diameter(adj, members, bfs),
            adjacency::weakest_edge(adj, members),
        ),
        None => {
            let none = Diameter {
                hops: 0,
                from: members[0],
                to: members[0],
                exact: false,
            };
            (none, None)
        }
    };
    Part {
        parts,
        greedy,
        edges,
        diameter,
        weakest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::adjacency::tests::random_graph;

    /// A memory budget leaves half of itself to the searches running at once.
    #[test]
    fn a_budget_bounds_the_threads() {
        let threads = |budget| ClusterOptions::default().on_threads(8, budget).threads;
        assert_eq!(threads(256 << 20), 1);
        assert_eq!(threads(1 << 30), 4);
        assert_eq!(threads(0), 8);
        assert_eq!(ClusterOptions::default().on_threads(0, 0).threads, 1);
    }

    /// Every thread count gives each component the answer one thread gives it.
    #[test]
    fn the_parts_do_not_depend_on_the_thread_count() {
        for seed in 1..6 {
            let adj = random_graph(seed, 120, 30);
            let members_of = adjacency::groups(&adjacency::components(&adj));
            let summary = |threads| {
                let options = ClusterOptions {
                    threads,
                    ..ClusterOptions::default()
                };
                (of_components(&adj, &members_of, options, false).expect("not stoppable"))
                    .into_iter()
                    .map(|p| p.map(|p| (p.parts, p.greedy, p.edges, p.diameter, p.weakest)))
                    .collect::<Vec<_>>()
            };
            let one = summary(1);
            assert!(one.iter().any(Option::is_some), "seed {seed}: no component");
            for threads in [2, 3, 8] {
                assert_eq!(summary(threads), one, "seed {seed}, {threads} threads");
            }
        }
    }
}
