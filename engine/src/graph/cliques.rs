//! Cliques of the similarity graph: maximal cliques and clique clusters.
//!
//! - **Maximal cliques**: Bron–Kerbosch with Tomita pivoting (the pivot covers the most
//!   candidates), started from each vertex in degeneracy order (Eppstein, Löffler & Strash
//!   2010), so the outer candidate sets are bounded by the degeneracy. A component whose
//!   search exceeds a work budget falls back to [`greedy_cliques`] (the caller warns): the
//!   search never hangs.
//! - **Clique clusters** ([`clique_partition`]): repeatedly take the maximal clique with the
//!   most unassigned members (ties: the clique first in canonical order — larger, then
//!   lexicographically smaller member list) and make its unassigned members a cluster. Every
//!   cluster is a subset of a clique, so its members are pairwise similar; the first cluster
//!   is a maximum clique.

use super::adjacency::Adjacency;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Work Bron–Kerbosch may spend on one component before the greedy fallback takes over:
/// list elements merged, or 64-bit words combined in the bit-set search. Far above what the
/// dense components of real corpora need (docs/performance.md), low enough that a
/// pathological component gives up instead of hanging.
pub(crate) const CLIQUE_WORK_BUDGET: u64 = 1_000_000_000;

/// Maximal cliques one component's search may hold, counted in 4-byte units: each member,
/// plus 8 for each clique's own allocation (about 128 MiB). A near-complete component of a
/// hundred documents has millions of maximal cliques, each almost the whole component: the
/// search steps stay affordable while the stored cliques would take gigabytes, so the
/// search gives up on either count.
pub(crate) const CLIQUE_STORE_BUDGET: u64 = 32 << 20;

/// What one component's clique search may spend before it gives up.
#[derive(Clone, Copy, Debug)]
struct Budget {
    /// Work units (list elements merged, 64-bit words combined).
    work: u64,
    /// Stored cliques, in [`CLIQUE_STORE_BUDGET`]'s units.
    stored: u64,
}

impl Budget {
    /// Stores the maximal clique `r` (sorted) in `out`, counting it in `used`; `Err` when that
    /// is over the budget.
    fn keep(&self, r: &[u32], used: &mut u64, out: &mut Vec<Vec<u32>>) -> Result<(), ()> {
        *used += r.len() as u64 + 8;
        if *used > self.stored {
            return Err(());
        }
        let mut clique = r.to_vec();
        clique.sort_unstable();
        out.push(clique);
        Ok(())
    }
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn intersection_size(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The component's own graph with local indices `0..members.len()`.
fn local_neighbors(adj: &Adjacency, members: &[u32]) -> Vec<Vec<u32>> {
    members
        .iter()
        .map(|&v| {
            adj.neighbors(v)
                .iter()
                .filter_map(|w| members.binary_search(w).ok().map(|i| i as u32))
                .collect()
        })
        .collect()
}

/// Degeneracy order: repeatedly remove a vertex of minimum remaining degree (ties: lowest
/// index).
fn degeneracy_order(nbrs: &[Vec<u32>]) -> Vec<u32> {
    let mut degree: Vec<usize> = nbrs.iter().map(Vec::len).collect();
    let mut removed = vec![false; nbrs.len()];
    let mut heap: BinaryHeap<Reverse<(usize, u32)>> = (0..nbrs.len() as u32)
        .map(|v| Reverse((degree[v as usize], v)))
        .collect();
    let mut order = Vec::with_capacity(nbrs.len());
    while let Some(Reverse((d, v))) = heap.pop() {
        if removed[v as usize] || d != degree[v as usize] {
            continue;
        }
        removed[v as usize] = true;
        order.push(v);
        for &w in &nbrs[v as usize] {
            if !removed[w as usize] {
                degree[w as usize] -= 1;
                heap.push(Reverse((degree[w as usize], w)));
            }
        }
    }
    order
}

struct BronKerbosch<'a> {
    nbrs: &'a [Vec<u32>],
    work: u64,
    stored: u64,
    budget: Budget,
    out: Vec<Vec<u32>>,
}

impl BronKerbosch<'_> {
    /// Reports every maximal clique containing `r`, extended from `p`, excluding `x`.
    fn expand(&mut self, r: &mut Vec<u32>, mut p: Vec<u32>, mut x: Vec<u32>) -> Result<(), ()> {
        self.work += (p.len() + x.len()) as u64 + 1;
        if self.work > self.budget.work {
            return Err(());
        }
        if p.is_empty() {
            if x.is_empty() {
                self.budget.keep(r, &mut self.stored, &mut self.out)?;
            }
            return Ok(());
        }
        // Tomita pivot: the vertex of P ∪ X with the most neighbours in P.
        let pivot = p
            .iter()
            .chain(x.iter())
            .copied()
            .max_by_key(|&u| (intersection_size(&p, &self.nbrs[u as usize]), Reverse(u)))
            .expect("P is not empty");
        self.work += p
            .iter()
            .chain(x.iter())
            .map(|&u| (p.len() + self.nbrs[u as usize].len()) as u64)
            .sum::<u64>();
        let pivot_nbrs = &self.nbrs[pivot as usize];
        let branch: Vec<u32> = p
            .iter()
            .copied()
            .filter(|v| pivot_nbrs.binary_search(v).is_err())
            .collect();
        for v in branch {
            let nv = &self.nbrs[v as usize];
            let (np, nx) = (intersect(&p, nv), intersect(&x, nv));
            r.push(v);
            self.expand(r, np, nx)?;
            r.pop();
            if let Ok(i) = p.binary_search(&v) {
                p.remove(i);
            }
            if let Err(i) = x.binary_search(&v) {
                x.insert(i, v);
            }
        }
        Ok(())
    }
}

/// Every maximal clique of the component `members` (ascending node indices), each sorted,
/// in canonical order (larger first, then lexicographically). `None` when the search would
/// spend more than `budget` work units or hold more than [`CLIQUE_STORE_BUDGET`]; see
/// [`greedy_cliques`].
pub(crate) fn maximal_cliques(
    adj: &Adjacency,
    members: &[u32],
    budget: u64,
) -> Option<Vec<Vec<u32>>> {
    let budget = Budget {
        work: budget,
        stored: CLIQUE_STORE_BUDGET,
    };
    maximal_cliques_within(adj, members, budget)
}

fn maximal_cliques_within(
    adj: &Adjacency,
    members: &[u32],
    budget: Budget,
) -> Option<Vec<Vec<u32>>> {
    let nbrs = local_neighbors(adj, members);
    let order = degeneracy_order(&nbrs);
    let mut position = vec![0usize; members.len()];
    for (i, &v) in order.iter().enumerate() {
        position[v as usize] = i;
    }
    let n = members.len();
    let degree_sum: usize = nbrs.iter().map(Vec::len).sum();
    let local = if n <= BITSET_MAX_NODES && degree_sum * 64 >= n * n {
        bitset_cliques(&nbrs, &order, &position, budget)?
    } else {
        let mut bk = BronKerbosch {
            nbrs: &nbrs,
            work: 0,
            stored: 0,
            budget,
            out: Vec::new(),
        };
        for (i, &v) in order.iter().enumerate() {
            let (later, earlier): (Vec<u32>, Vec<u32>) = nbrs[v as usize]
                .iter()
                .partition(|&&w| position[w as usize] > i);
            bk.expand(&mut vec![v], later, earlier).ok()?;
        }
        bk.out
    };
    let mut cliques: Vec<Vec<u32>> = local
        .into_iter()
        .map(|c| c.into_iter().map(|l| members[l as usize]).collect())
        .collect();
    canonical_order(&mut cliques);
    Some(cliques)
}

/// Dense components (average degree at least n/64) up to this many documents search their
/// cliques on bit-set rows (n²/8 bytes): choosing a pivot then costs n/64 word operations per
/// candidate instead of a merge of two neighbour lists.
pub(crate) const BITSET_MAX_NODES: usize = 16_384;

/// The same search as [`BronKerbosch`], with P, X and the neighbour rows as bit sets.
struct BitBronKerbosch {
    rows: Vec<u64>,
    words: usize,
    work: u64,
    stored: u64,
    budget: Budget,
    out: Vec<Vec<u32>>,
}

fn bits(set: &[u64]) -> impl Iterator<Item = u32> + '_ {
    set.iter().enumerate().flat_map(|(i, &word)| {
        let mut w = word;
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let b = w.trailing_zeros();
                w &= w - 1;
                (i * 64) as u32 + b
            })
        })
    })
}

impl BitBronKerbosch {
    fn row(&self, v: u32) -> &[u64] {
        &self.rows[v as usize * self.words..(v as usize + 1) * self.words]
    }

    fn expand(&mut self, r: &mut Vec<u32>, mut p: Vec<u64>, mut x: Vec<u64>) -> Result<(), ()> {
        self.work += self.words as u64 + 1;
        if self.work > self.budget.work {
            return Err(());
        }
        if p.iter().all(|&w| w == 0) {
            if x.iter().all(|&w| w == 0) {
                self.budget.keep(r, &mut self.stored, &mut self.out)?;
            }
            return Ok(());
        }
        let union: Vec<u64> = p.iter().zip(&x).map(|(a, b)| a | b).collect();
        let mut pivot = (0u32, None::<u32>);
        for u in bits(&union) {
            let covered: u32 = p
                .iter()
                .zip(self.row(u))
                .map(|(a, b)| (a & b).count_ones())
                .sum();
            if pivot.1.is_none() || covered > pivot.0 {
                pivot = (covered, Some(u));
            }
        }
        let candidates = bits(&union).count() as u64;
        self.work += candidates * self.words as u64;
        let pivot_row = self.row(pivot.1.expect("P is not empty")).to_vec();
        let branch: Vec<u64> = p.iter().zip(&pivot_row).map(|(a, b)| a & !b).collect();
        for v in bits(&branch) {
            let row = self.row(v);
            let np: Vec<u64> = p.iter().zip(row).map(|(a, b)| a & b).collect();
            let nx: Vec<u64> = x.iter().zip(row).map(|(a, b)| a & b).collect();
            r.push(v);
            self.expand(r, np, nx)?;
            r.pop();
            p[v as usize / 64] &= !(1 << (v % 64));
            x[v as usize / 64] |= 1 << (v % 64);
        }
        Ok(())
    }
}

fn bitset_cliques(
    nbrs: &[Vec<u32>],
    order: &[u32],
    position: &[usize],
    budget: Budget,
) -> Option<Vec<Vec<u32>>> {
    let n = nbrs.len();
    let words = n.div_ceil(64);
    let mut rows = vec![0u64; n * words];
    for (v, list) in nbrs.iter().enumerate() {
        for &w in list {
            rows[v * words + w as usize / 64] |= 1 << (w % 64);
        }
    }
    let mut bk = BitBronKerbosch {
        rows,
        words,
        work: 0,
        stored: 0,
        budget,
        out: Vec::new(),
    };
    for (i, &v) in order.iter().enumerate() {
        let (mut p, mut x) = (vec![0u64; words], vec![0u64; words]);
        for &w in &nbrs[v as usize] {
            let set = if position[w as usize] > i {
                &mut p
            } else {
                &mut x
            };
            set[w as usize / 64] |= 1 << (w % 64);
        }
        bk.expand(&mut vec![v], p, x).ok()?;
    }
    Some(bk.out)
}

fn canonical_order(cliques: &mut [Vec<u32>]) {
    cliques.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
}

/// A cover of the component by cliques, built greedily without enumeration: take the
/// unassigned node of highest degree (ties: lowest index), then keep adding the
/// lowest-indexed unassigned node adjacent to every member so far. The result is already
/// disjoint. Linear in the edges touched; used when [`maximal_cliques`] runs out of budget.
pub(crate) fn greedy_cliques(adj: &Adjacency, members: &[u32]) -> Vec<Vec<u32>> {
    let mut order: Vec<u32> = members.to_vec();
    order.sort_by_key(|&v| (Reverse(adj.degree(v)), v));
    let mut assigned = std::collections::HashSet::new();
    let mut out = Vec::new();
    for v in order {
        if assigned.contains(&v) {
            continue;
        }
        let mut clique = vec![v];
        assigned.insert(v);
        let mut candidates: Vec<u32> = adj
            .neighbors(v)
            .iter()
            .copied()
            .filter(|w| !assigned.contains(w))
            .collect();
        while let Some(&w) = candidates.first() {
            clique.push(w);
            assigned.insert(w);
            candidates = intersect(&candidates[1..], adj.neighbors(w));
        }
        clique.sort_unstable();
        out.push(clique);
    }
    canonical_order(&mut out);
    out
}

/// Disjoint clusters from (possibly overlapping) cliques that cover a set of nodes: the
/// clique with the most still-unassigned members gives its unassigned members a cluster,
/// until every node is assigned. `cliques` must be in canonical order (ties go to the
/// earlier clique). Each cluster is sorted; clusters come out largest first.
pub(crate) fn clique_partition(cliques: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut assigned = std::collections::HashSet::new();
    let mut heap: BinaryHeap<(usize, Reverse<usize>)> = cliques
        .iter()
        .enumerate()
        .map(|(i, c)| (c.len(), Reverse(i)))
        .collect();
    let mut out = Vec::new();
    while let Some((count, Reverse(i))) = heap.pop() {
        if count == 0 {
            break;
        }
        let free: Vec<u32> = cliques[i]
            .iter()
            .copied()
            .filter(|v| !assigned.contains(v))
            .collect();
        if free.len() == count {
            assigned.extend(free.iter().copied());
            out.push(free);
        } else {
            heap.push((free.len(), Reverse(i)));
        }
    }
    out
}

/// Gives a cluster of two or more, where it can, to every document that has a verified pair:
/// the greedy partition (and the greedy cover) can leave a document alone once its cliques'
/// other members went to other clusters. Taken in ascending order, a lone document joins a
/// lone neighbour (the most similar, ties: the lowest), or else takes the most similar
/// neighbour out of a cluster of three or more. Every cluster stays a clique. A document whose
/// neighbours all sit in pairs stays alone (breaking a pair would leave another alone).
pub(crate) fn pair_lone_members(adj: &Adjacency, parts: &mut Vec<Vec<u32>>) {
    let mut part_of: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for (p, members) in parts.iter().enumerate() {
        for &v in members {
            part_of.insert(v, p);
        }
    }
    let mut lone: Vec<u32> = parts
        .iter()
        .filter(|p| p.len() == 1 && adj.degree(p[0]) > 0)
        .map(|p| p[0])
        .collect();
    lone.sort_unstable();
    for v in lone {
        let here = part_of[&v];
        if parts[here].len() != 1 {
            continue; // a neighbour joined it already
        }
        // The most similar neighbour first (ties: the lowest index).
        let mut neighbours: Vec<(u32, f32)> = adj
            .neighbors(v)
            .iter()
            .map(|&w| (w, adj.weight(v, w).unwrap_or(0.0)))
            .collect();
        neighbours.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let pick = neighbours
            .iter()
            .find(|(w, _)| parts[part_of[w]].len() == 1)
            .or_else(|| {
                neighbours
                    .iter()
                    .find(|(w, _)| parts[part_of[w]].len() >= 3)
            });
        if let Some(&(w, _)) = pick {
            let from = part_of[&w];
            parts[from].retain(|&x| x != w);
            parts[here].push(w);
            parts[here].sort_unstable();
            part_of.insert(w, here);
        }
    }
    parts.retain(|p| !p.is_empty());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::adjacency::tests::random_graph;
    use crate::graph::adjacency::{Bfs, components, diameter, groups, shortest_path, weakest_edge};

    fn is_clique(adj: &Adjacency, set: &[u32]) -> bool {
        set.iter()
            .enumerate()
            .all(|(i, &a)| set[i + 1..].iter().all(|&b| adj.weight(a, b).is_some()))
    }

    fn brute_maximal_cliques(adj: &Adjacency, members: &[u32]) -> Vec<Vec<u32>> {
        let k = members.len();
        let cliques: Vec<Vec<u32>> = (1u32..1 << k)
            .map(|mask| {
                (0..k)
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| members[i])
                    .collect::<Vec<u32>>()
            })
            .filter(|s| is_clique(adj, s))
            .collect();
        let mut maximal: Vec<Vec<u32>> = cliques
            .iter()
            .filter(|c| {
                !members
                    .iter()
                    .any(|v| !c.contains(v) && c.iter().all(|&u| adj.weight(u, *v).is_some()))
            })
            .cloned()
            .collect();
        canonical_order(&mut maximal);
        maximal
    }

    #[test]
    fn a_document_with_a_pair_is_not_left_alone() {
        // Triangle 0-1-2, and 3 linked only to 1 and 2: the partition takes the triangle
        // first, so 3 would be alone. It takes 2 (its most similar neighbour) out of the
        // triangle: two clusters of two, both cliques.
        let adj = Adjacency::new(
            4,
            [
                (0, 1, 0.9),
                (0, 2, 0.9),
                (1, 2, 0.9),
                (1, 3, 0.8),
                (2, 3, 0.85),
            ],
        );
        let members = [0, 1, 2, 3];
        let mut parts = clique_partition(&maximal_cliques(&adj, &members, u64::MAX).unwrap());
        assert!(
            parts.iter().any(|p| p == &vec![3]),
            "the partition leaves 3 alone: {parts:?}"
        );
        pair_lone_members(&adj, &mut parts);
        parts.sort();
        assert_eq!(parts, vec![vec![0, 1], vec![2, 3]]);
        // Two lone neighbours pair up; a document without a pair stays alone.
        let adj = Adjacency::new(3, [(0, 1, 0.9)]);
        let mut parts = vec![vec![0], vec![1], vec![2]];
        pair_lone_members(&adj, &mut parts);
        assert_eq!(parts, vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn lone_members_are_paired_on_random_graphs_and_clusters_stay_cliques() {
        for seed in 0..40 {
            let adj = random_graph(seed, 30, 150);
            let members: Vec<u32> = (0..30).collect();
            let mut parts = clique_partition(&maximal_cliques(&adj, &members, u64::MAX).unwrap());
            pair_lone_members(&adj, &mut parts);
            let mut seen: Vec<u32> = parts.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, members, "seed {seed}: a partition");
            for p in &parts {
                assert!(is_clique(&adj, p), "seed {seed}: {p:?}");
            }
        }
    }

    #[test]
    fn maximal_cliques_match_brute_force() {
        for seed in 0..300 {
            let n = 1 + (seed as usize % 12);
            let adj = random_graph(seed, n, 200 + seed % 700);
            for members in groups(&components(&adj)) {
                let got = maximal_cliques(&adj, &members, u64::MAX).unwrap();
                assert_eq!(got, brute_maximal_cliques(&adj, &members), "seed {seed}");
            }
        }
    }

    #[test]
    fn clique_partitions_are_cliques_and_cover() {
        for seed in 0..300 {
            let n = 1 + (seed as usize % 14);
            let adj = random_graph(seed, n, 300 + seed % 600);
            for members in groups(&components(&adj)) {
                let cliques = maximal_cliques(&adj, &members, u64::MAX).unwrap();
                for parts in [clique_partition(&cliques), greedy_cliques(&adj, &members)] {
                    let mut all: Vec<u32> = parts.iter().flatten().copied().collect();
                    all.sort_unstable();
                    assert_eq!(all, members, "seed {seed}: not a partition");
                    assert!(parts.iter().all(|p| is_clique(&adj, p)), "seed {seed}");
                }
                // The first clique cluster is a maximum clique.
                let parts = clique_partition(&cliques);
                assert_eq!(parts[0].len(), cliques[0].len(), "seed {seed}");
            }
        }
    }

    #[test]
    fn bitset_and_list_searches_agree() {
        for seed in 0..60 {
            let n = 10 + (seed as usize % 25);
            for per_mille in [30, 300, 700] {
                let adj = random_graph(seed, n, per_mille);
                for members in groups(&components(&adj)) {
                    let nbrs = local_neighbors(&adj, &members);
                    let order = degeneracy_order(&nbrs);
                    let mut position = vec![0usize; members.len()];
                    for (i, &v) in order.iter().enumerate() {
                        position[v as usize] = i;
                    }
                    let unlimited = Budget {
                        work: u64::MAX,
                        stored: u64::MAX,
                    };
                    let mut dense = bitset_cliques(&nbrs, &order, &position, unlimited).unwrap();
                    let mut bk = BronKerbosch {
                        nbrs: &nbrs,
                        work: 0,
                        stored: 0,
                        budget: unlimited,
                        out: Vec::new(),
                    };
                    for (i, &v) in order.iter().enumerate() {
                        let (later, earlier): (Vec<u32>, Vec<u32>) = nbrs[v as usize]
                            .iter()
                            .partition(|&&w| position[w as usize] > i);
                        bk.expand(&mut vec![v], later, earlier).unwrap();
                    }
                    canonical_order(&mut dense);
                    canonical_order(&mut bk.out);
                    assert_eq!(dense, bk.out, "seed {seed}, {per_mille}");
                }
            }
        }
    }

    #[test]
    fn budget_exhaustion_is_reported() {
        let adj = random_graph(7, 40, 700);
        let members: Vec<u32> = (0..40).collect();
        assert!(maximal_cliques(&adj, &members, 50).is_none());
        assert!(maximal_cliques(&adj, &members, u64::MAX).is_some());
    }

    #[test]
    fn chain_is_one_component_of_many_cliques() {
        // A path of 8 nodes plus the "skip one" edges: 0-1-2-…-7 with i–(i+2) too.
        let mut edges = Vec::new();
        for i in 0..8u32 {
            if i + 1 < 8 {
                edges.push((i, i + 1, 0.9));
            }
            if i + 2 < 8 {
                edges.push((i, i + 2, 0.6));
            }
        }
        let adj = Adjacency::new(8, edges);
        let labels = components(&adj);
        assert!(labels.iter().all(|&l| l == 0));
        let members: Vec<u32> = (0..8).collect();
        let cliques = maximal_cliques(&adj, &members, u64::MAX).unwrap();
        assert_eq!(cliques.len(), 6); // {i, i+1, i+2}
        let parts = clique_partition(&cliques);
        assert!(parts.len() >= 3);
        let mut bfs = Bfs::new(8);
        let d = diameter(&adj, &members, &mut bfs);
        assert_eq!((d.hops, d.from, d.to, d.exact), (4, 0, 7, true));
        assert_eq!(shortest_path(&adj, 0, 7).unwrap(), vec![0, 1, 3, 5, 7]);
        // Among equally short paths the strongest weakest edge wins.
        let square = Adjacency::new(4, [(0, 1, 0.5), (1, 3, 0.9), (0, 2, 0.8), (2, 3, 0.8)]);
        assert_eq!(shortest_path(&square, 0, 3).unwrap(), vec![0, 2, 3]);
        assert_eq!(shortest_path(&square, 3, 3).unwrap(), vec![3]);
        assert!(shortest_path(&Adjacency::new(2, []), 0, 1).is_none());
        assert_eq!(weakest_edge(&adj, &members), Some((0, 2, 0.6)));
    }

    /// All pairs of `n` documents but a perfect matching: 2^(n/2) maximal cliques of n/2.
    fn cocktail_party(n: u32) -> (Adjacency, Vec<u32>) {
        let edges = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| !(a % 2 == 0 && b == a + 1))
            .map(|(a, b)| (a, b, 1.0));
        (Adjacency::new(n as usize, edges), (0..n).collect())
    }

    #[test]
    fn the_search_stops_at_the_store_budget() {
        let (adj, members) = cocktail_party(40);
        let budget = |stored| Budget {
            work: u64::MAX,
            stored,
        };
        // 2^20 cliques of 20 would take 112 MB; 10,000 units stop it at once.
        assert!(maximal_cliques_within(&adj, &members, budget(10_000)).is_none());
        let (adj, members) = cocktail_party(12);
        let all = maximal_cliques_within(&adj, &members, budget(64 * (6 + 8))).unwrap();
        assert_eq!(all.len(), 64);
        assert!(maximal_cliques_within(&adj, &members, budget(64 * (6 + 8) - 1)).is_none());
    }
}
