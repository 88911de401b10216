//! The similarity graph as sorted neighbour lists ([`Adjacency`]) over node indices `0..n`,
//! and what is measured on it besides cliques: connected components (union–find with union
//! by rank and path compression, `petgraph::unionfind::UnionFind`; labels numbered by each
//! component's first node), shortest paths, diameters (exact by BFS from every node when
//! that costs at most [`DIAMETER_EXACT_WORK`] steps, over rows of bits in a dense
//! component, else the double-sweep lower bound, flagged as such) and weakest edges.
//! Independent of how the graph was built, so easy to check against brute force.

use petgraph::unionfind::UnionFind;
use std::collections::VecDeque;

/// Above this many BFS steps (nodes × (nodes + edges)) a component's diameter is estimated
/// by a double sweep instead of computed exactly.
pub(crate) const DIAMETER_EXACT_WORK: u64 = 50_000_000;

/// An undirected weighted graph as sorted neighbour lists.
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    offsets: Vec<usize>,
    neighbors: Vec<u32>,
    weights: Vec<f32>,
}

impl Adjacency {
    /// Builds the graph on nodes `0..n` from undirected edges. Self-loops are ignored; of
    /// repeated edges the highest weight is kept.
    pub fn new(n: usize, edges: impl IntoIterator<Item = (u32, u32, f32)>) -> Adjacency {
        let edges: Vec<(u32, u32, f32)> = edges.into_iter().filter(|e| e.0 != e.1).collect();
        // Placed by node with a count of each node's edges, then each node's row sorted on
        // its own: rows are short, so their sorts cost less than one sort of every (node,
        // neighbour) pair, and need no second copy of the pairs.
        let mut offsets = vec![0usize; n + 1];
        for &(a, b, _) in &edges {
            assert!((a as usize) < n && (b as usize) < n, "edge outside 0..{n}");
            offsets[a as usize + 1] += 1;
            offsets[b as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut row: Vec<(u32, f32)> = vec![(0, 0.0); offsets[n]];
        let mut next = offsets.clone();
        for &(a, b, w) in &edges {
            row[next[a as usize]] = (b, w);
            next[a as usize] += 1;
            row[next[b as usize]] = (a, w);
            next[b as usize] += 1;
        }
        drop(edges);
        // Of repeated edges the highest weight is kept: each row sorted by neighbour, the
        // heaviest first, then the rest of each run left out.
        let (mut neighbors, mut weights) = (Vec::with_capacity(row.len()), Vec::new());
        weights.reserve(row.len());
        let mut kept = vec![0usize; n + 1];
        for v in 0..n {
            let part = &mut row[offsets[v]..offsets[v + 1]];
            part.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
            for (i, &(w, s)) in part.iter().enumerate() {
                if i == 0 || part[i - 1].0 != w {
                    neighbors.push(w);
                    weights.push(s);
                }
            }
            kept[v + 1] = neighbors.len();
        }
        Adjacency {
            offsets: kept,
            neighbors,
            weights,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of undirected edges.
    pub(crate) fn edge_count(&self) -> usize {
        self.neighbors.len() / 2
    }

    /// Neighbours of `v`, ascending.
    pub(crate) fn neighbors(&self, v: u32) -> &[u32] {
        &self.neighbors[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }

    /// Weights of `v`'s edges, in the order of [`Adjacency::neighbors`].
    pub fn weights(&self, v: u32) -> &[f32] {
        &self.weights[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }

    /// Weight of edge `a`–`b`, if present.
    pub fn weight(&self, a: u32, b: u32) -> Option<f32> {
        let i = self.neighbors(a).binary_search(&b).ok()?;
        Some(self.weights(a)[i])
    }

    /// Degree of `v`.
    pub fn degree(&self, v: u32) -> usize {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }
}

/// Component label of every node: components are numbered 0, 1, … in the order of their
/// smallest node.
pub fn components(adj: &Adjacency) -> Vec<u32> {
    let n = adj.len();
    let mut uf = UnionFind::<u32>::new(n);
    for v in 0..n as u32 {
        for &w in adj.neighbors(v) {
            if w > v {
                uf.union(v, w);
            }
        }
    }
    let mut label_of_root = vec![u32::MAX; n];
    let mut next = 0;
    (0..n as u32)
        .map(|v| {
            let root = uf.find_mut(v) as usize;
            if label_of_root[root] == u32::MAX {
                label_of_root[root] = next;
                next += 1;
            }
            label_of_root[root]
        })
        .collect()
}

/// The members of each label, ascending, indexed by label (labels must be `0..k`).
pub fn groups(labels: &[u32]) -> Vec<Vec<u32>> {
    let k = labels.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
    let mut out = vec![Vec::new(); k];
    for (v, &l) in labels.iter().enumerate() {
        out[l as usize].push(v as u32);
    }
    out
}

/// Breadth-first search scratch space over all nodes, reset cheaply between searches.
pub struct Bfs {
    dist: Vec<u32>,
    touched: Vec<u32>,
    queue: VecDeque<u32>,
}

impl Bfs {
    /// Scratch space for graphs of `n` nodes.
    pub fn new(n: usize) -> Bfs {
        Bfs {
            dist: vec![u32::MAX; n],
            touched: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Runs from `src` until `stop` is reached (or everything reachable is); returns the
    /// farthest node reached (lowest index among ties) and its distance.
    pub fn run(&mut self, adj: &Adjacency, src: u32, stop: Option<u32>) -> (u32, u32) {
        for &v in &self.touched {
            self.dist[v as usize] = u32::MAX;
        }
        self.touched.clear();
        self.queue.clear();
        self.dist[src as usize] = 0;
        self.touched.push(src);
        self.queue.push_back(src);
        let mut far = (src, 0);
        while let Some(v) = self.queue.pop_front() {
            let d = self.dist[v as usize];
            if d > far.1 || (d == far.1 && v < far.0) {
                far = (v, d);
            }
            if Some(v) == stop {
                break;
            }
            for &w in adj.neighbors(v) {
                if self.dist[w as usize] == u32::MAX {
                    self.dist[w as usize] = d + 1;
                    self.touched.push(w);
                    self.queue.push_back(w);
                }
            }
        }
        far
    }
}

/// A shortest path (fewest hops) from `a` to `b`; among equally short paths, the one whose
/// weakest edge is strongest (ties: lower node indices earlier on the path).
pub fn shortest_path(adj: &Adjacency, a: u32, b: u32) -> Option<Vec<u32>> {
    let mut bfs = Bfs::new(adj.len());
    bfs.run(adj, a, None);
    let target = bfs.dist[b as usize];
    if target == u32::MAX {
        return None;
    }
    // Bottleneck over the layered DAG of shortest paths, in BFS order.
    let mut best = vec![f32::NEG_INFINITY; adj.len()];
    let mut via = vec![u32::MAX; adj.len()];
    best[a as usize] = f32::INFINITY;
    for &v in &bfs.touched {
        let d = bfs.dist[v as usize];
        if d >= target {
            continue;
        }
        for (&w, &s) in adj.neighbors(v).iter().zip(adj.weights(v)) {
            if bfs.dist[w as usize] == d + 1 {
                let through = best[v as usize].min(s);
                if through > best[w as usize]
                    || (through == best[w as usize] && v < via[w as usize])
                {
                    best[w as usize] = through;
                    via[w as usize] = v;
                }
            }
        }
    }
    let mut path = vec![b];
    let mut v = b;
    while v != a {
        v = via[v as usize];
        path.push(v);
    }
    path.reverse();
    Some(path)
}

/// The longest shortest path of a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Diameter {
    /// Hops between the two ends.
    pub hops: u32,
    /// One end (the lower index among exact ties).
    pub from: u32,
    /// The other end.
    pub to: u32,
    /// False when `hops` is the double-sweep lower bound.
    pub exact: bool,
}

/// The diameter of the component `members` (ascending).
pub fn diameter(adj: &Adjacency, members: &[u32], bfs: &mut Bfs) -> Diameter {
    let edges: u64 = members.iter().map(|&v| adj.degree(v) as u64).sum::<u64>() / 2;
    let n = members.len() as u64;
    let first = members[0];
    if n * (n + edges) <= DIAMETER_EXACT_WORK {
        if is_dense(n, edges) {
            return dense_diameter(adj, members);
        }
        let mut best = Diameter {
            hops: 0,
            from: first,
            to: first,
            exact: true,
        };
        for &v in members {
            let (far, d) = bfs.run(adj, v, None);
            if d > best.hops {
                best = Diameter {
                    hops: d,
                    from: v.min(far),
                    to: v.max(far),
                    exact: true,
                };
            }
        }
        best
    } else {
        let (a, _) = bfs.run(adj, first, None);
        let (b, d) = bfs.run(adj, a, None);
        Diameter {
            hops: d,
            from: a.min(b),
            to: a.max(b),
            exact: false,
        }
    }
}

/// Whether a component of `n` members and `edges` edges is dense enough for breadth-first
/// searches over bit sets: an average degree of at least n / 64, where a node's row of
/// n / 64 words costs no more than its neighbour list.
fn is_dense(n: u64, edges: u64) -> bool {
    2 * edges * 64 >= n * n
}

/// [`diameter`]'s exact answer for a dense component: a search from every member over rows
/// of bits (a level is the union of its predecessors' rows, less what was reached), n / 64
/// words a member instead of its neighbours one by one. A search's farthest member is the
/// lowest of its last level, as the list search's ties give it.
fn dense_diameter(adj: &Adjacency, members: &[u32]) -> Diameter {
    let n = members.len();
    let words = n.div_ceil(64);
    let mut rows = vec![0u64; n * words];
    for (i, &v) in members.iter().enumerate() {
        let row = &mut rows[i * words..(i + 1) * words];
        for w in adj.neighbors(v) {
            // A neighbour is in the component: members are ascending.
            let j = members
                .binary_search(w)
                .expect("a neighbour of a member is a member");
            row[j / 64] |= 1 << (j % 64);
        }
    }
    let (mut reached, mut level, mut next) =
        (vec![0u64; words], vec![0u64; words], vec![0u64; words]);
    let mut best = Diameter {
        hops: 0,
        from: members[0],
        to: members[0],
        exact: true,
    };
    for source in 0..n {
        reached.fill(0);
        level.fill(0);
        reached[source / 64] |= 1 << (source % 64);
        level[source / 64] |= 1 << (source % 64);
        let (mut far, mut hops) = (source, 0);
        loop {
            next.fill(0);
            for (k, &word) in level.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let i = k * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for (into, &from) in next.iter_mut().zip(&rows[i * words..(i + 1) * words]) {
                        *into |= from;
                    }
                }
            }
            let mut lowest = None;
            for (k, (into, seen)) in next.iter_mut().zip(reached.iter_mut()).enumerate() {
                *into &= !*seen;
                *seen |= *into;
                if lowest.is_none() && *into != 0 {
                    lowest = Some(k * 64 + into.trailing_zeros() as usize);
                }
            }
            let Some(lowest) = lowest else { break };
            (far, hops) = (lowest, hops + 1);
            std::mem::swap(&mut level, &mut next);
        }
        if hops > best.hops {
            let (a, b) = (members[source], members[far]);
            best = Diameter {
                hops,
                from: a.min(b),
                to: a.max(b),
                exact: true,
            };
        }
    }
    best
}

/// The lowest-weight edge among `members` (ties: lowest node indices), if any.
pub fn weakest_edge(adj: &Adjacency, members: &[u32]) -> Option<(u32, u32, f32)> {
    let mut best: Option<(u32, u32, f32)> = None;
    for &v in members {
        for (&w, &s) in adj.neighbors(v).iter().zip(adj.weights(v)) {
            if w > v && best.is_none_or(|b| s < b.2) {
                best = Some((v, w, s));
            }
        }
    }
    best
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    pub(crate) fn random_graph(seed: u64, n: usize, per_mille: u64) -> Adjacency {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut edges = Vec::new();
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                if rng(&mut s) % 1000 < per_mille {
                    edges.push((a, b, (rng(&mut s) % 100) as f32 / 100.0));
                }
            }
        }
        Adjacency::new(n, edges)
    }

    pub(crate) fn brute_components(adj: &Adjacency) -> Vec<u32> {
        // Repeated relaxation: label = smallest reachable node, then renumber.
        let n = adj.len();
        let mut label: Vec<u32> = (0..n as u32).collect();
        loop {
            let mut changed = false;
            for v in 0..n as u32 {
                for &w in adj.neighbors(v) {
                    let m = label[v as usize].min(label[w as usize]);
                    if label[v as usize] != m || label[w as usize] != m {
                        label[v as usize] = m;
                        label[w as usize] = m;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut roots: Vec<u32> = label.clone();
        roots.sort_unstable();
        roots.dedup();
        label
            .iter()
            .map(|l| roots.binary_search(l).unwrap() as u32)
            .collect()
    }

    #[test]
    fn components_match_brute_force() {
        for seed in 0..200 {
            let n = 1 + (seed as usize % 30);
            let adj = random_graph(seed, n, 20 + seed % 150);
            assert_eq!(components(&adj), brute_components(&adj), "seed {seed}");
        }
    }

    #[test]
    fn diameter_matches_all_pairs_bfs() {
        for seed in 0..100 {
            let n = 2 + (seed as usize % 20);
            let adj = random_graph(seed, n, 150);
            let mut bfs = Bfs::new(n);
            for members in groups(&components(&adj)) {
                let d = diameter(&adj, &members, &mut bfs);
                let mut best = 0;
                for &a in &members {
                    for &b in &members {
                        best = best.max(shortest_path(&adj, a, b).unwrap().len() as u32 - 1);
                    }
                }
                assert_eq!(d.hops, best, "seed {seed}");
                assert_eq!(
                    shortest_path(&adj, d.from, d.to).unwrap().len() as u32 - 1,
                    d.hops
                );
            }
        }
    }

    /// The search over bit sets finds the diameter and the ends the list search finds, on
    /// dense and sparse components of every size up to a few words a row.
    #[test]
    fn dense_diameters_match_the_list_search() {
        for seed in 0..60 {
            let n = 2 + (seed as usize * 7 % 150);
            let adj = random_graph(seed, n, [30, 150, 600][seed as usize % 3]);
            let mut bfs = Bfs::new(n);
            for members in groups(&components(&adj)) {
                let mut want = Diameter {
                    hops: 0,
                    from: members[0],
                    to: members[0],
                    exact: true,
                };
                for &v in &members {
                    let (far, d) = bfs.run(&adj, v, None);
                    if d > want.hops {
                        (want.hops, want.from, want.to) = (d, v.min(far), v.max(far));
                    }
                }
                assert_eq!(dense_diameter(&adj, &members), want, "seed {seed}");
            }
        }
    }

    /// Rows built by placing each edge at its node match one sort of every pair, repeated
    /// edges (the heaviest kept) and self-loops included.
    #[test]
    fn rows_match_a_sort_of_every_pair() {
        let mut seed = 7;
        for n in [1usize, 2, 5, 40] {
            let mut edges = Vec::new();
            for _ in 0..n * 3 {
                let (a, b) = (rng(&mut seed) % n as u64, rng(&mut seed) % n as u64);
                let w = (rng(&mut seed) % 8) as f32 / 8.0;
                edges.push((a as u32, b as u32, w));
            }
            let adj = Adjacency::new(n, edges.iter().copied());
            let mut half: Vec<(u32, u32, f32)> = edges
                .iter()
                .filter(|e| e.0 != e.1)
                .flat_map(|&(a, b, w)| [(a, b, w), (b, a, w)])
                .collect();
            half.sort_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then(y.2.total_cmp(&x.2)));
            half.dedup_by(|later, first| (later.0, later.1) == (first.0, first.1));
            for v in 0..n as u32 {
                let want: Vec<(u32, f32)> = (half.iter())
                    .filter(|e| e.0 == v)
                    .map(|e| (e.1, e.2))
                    .collect();
                let got: Vec<(u32, f32)> = (adj.neighbors(v).iter().copied())
                    .zip(adj.weights(v).iter().copied())
                    .collect();
                assert_eq!(got, want, "node {v} of {n}");
            }
        }
    }

    #[test]
    fn repeated_edges_keep_the_highest_weight() {
        let adj = Adjacency::new(3, [(0, 1, 0.5), (1, 0, 0.7), (2, 2, 1.0)]);
        assert_eq!(adj.weight(0, 1), Some(0.7));
        assert_eq!(adj.weight(1, 0), Some(0.7));
        assert_eq!(adj.edge_count(), 1);
        assert_eq!(adj.degree(2), 0);
    }
}
