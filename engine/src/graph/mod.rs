//! The similarity graph: documents as nodes, verified pairs as weighted edges.
//!
//! The sequencer ([`crate::pipeline`], [`crate::job::Job::Graph`]) feeds a [`GraphBuilder`] in
//! input order: one [`Node`] per document (its id, a bounded snippet, the `--node-attr`
//! values) and one edge per verified pair. Memory therefore grows with the number of
//! documents times the snippet bound plus the edges — never with whole texts.
//! [`GraphBuilder::finish`] yields a [`DupGraph`], a `petgraph` undirected graph whose node
//! and edge indices follow input order, and [`DupGraph::cluster`] groups it
//! ([`adjacency`], [`cliques`]).

pub mod adjacency;
pub mod cliques;
mod parts;
pub mod survivors;

pub use adjacency::{Adjacency, Bfs, Diameter, components, groups, shortest_path};

use crate::error::{Error, Result};
use crate::graph::cliques::CLIQUE_WORK_BUDGET;
use crate::input::DocId;
use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::visit::EdgeRef;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// One document of the graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The document's id.
    pub id: DocId,
    /// The start of its text, white space folded, at most `--snippet-chars` characters.
    pub snippet: Box<str>,
    /// The `--node-attr` values, in the order given (`None`: missing or null).
    pub attrs: Box<[Option<Value>]>,
    /// Bytes of the document's text (0 for an id read from an edge list).
    pub text_bytes: u64,
}

/// Bytes an edge takes at its peak, when the graph is grouped and written, where no clique
/// is searched for (measured on one template, 1.6 and 25 million edges: 52–59 bytes; the
/// builder's list, petgraph's edges and the adjacency lists at once), with a margin.
pub const EDGE_BYTES: usize = 72;

/// [`EDGE_BYTES`] where the clique clusters are computed: the edges' lists and the clique
/// search's, whose store has a cap of its own (half the budget across the threads
/// searching, [`ClusterOptions::on_threads`]); measured 132–134 bytes an edge on one dense
/// template, where that store is largest, and within 1.06× of a 128M budget on ordinary
/// text.
pub const EDGE_BYTES_CLIQUES: usize = 104;

/// Collects nodes and edges in input order.
#[derive(Debug, Default)]
pub(crate) struct GraphBuilder {
    nodes: Vec<Node>,
    seqs: Vec<u64>,
    edges: Vec<(u32, u32, f32)>,
    /// What the nodes hold: their structs, snippets, ids and attributes.
    node_bytes: usize,
}

impl GraphBuilder {
    /// Adds a document; `seq` is its window key (increasing along the input).
    pub(crate) fn add_node(&mut self, seq: u64, node: Node) -> u32 {
        debug_assert!(self.seqs.last().is_none_or(|&s| s < seq));
        let id = match &node.id {
            DocId::Line(_) => 0,
            DocId::Str(s) | DocId::Num(s) => s.len(),
        };
        self.node_bytes += std::mem::size_of::<Node>()
            + std::mem::size_of::<u64>()
            + node.snippet.len()
            + id
            + node.attrs.len() * std::mem::size_of::<Option<Value>>();
        self.seqs.push(seq);
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Adds the verified pair (document with window key `earlier_seq`, node `later`).
    pub(crate) fn add_edge(&mut self, earlier_seq: u64, later: u32, similarity: f64) {
        let earlier = self.node_of(earlier_seq);
        self.edges.push((earlier, later, similarity as f32));
    }

    /// The first id two nodes share, with their window keys (input line numbers): the
    /// outputs name documents by id, so a repeated id makes two documents one name.
    pub(crate) fn first_repeated_id(&self) -> Option<(&DocId, u64, u64)> {
        let mut first: HashMap<&DocId, u64> = HashMap::with_capacity(self.nodes.len());
        for (node, &seq) in self.nodes.iter().zip(&self.seqs) {
            if let Some(&earlier) = first.get(&node.id) {
                return Some((&node.id, earlier, seq));
            }
            first.insert(&node.id, seq);
        }
        None
    }

    /// The node of the document with window key `seq` (it must have been added).
    pub(crate) fn node_of(&self, seq: u64) -> u32 {
        self.seqs
            .binary_search(&seq)
            .expect("edges join documents that are nodes") as u32
    }

    /// Number of nodes so far.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of edges so far.
    pub(crate) fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// About what the graph so far takes at its peak, when it is grouped and written, at
    /// `edge_bytes` an edge ([`EDGE_BYTES`], [`EDGE_BYTES_CLIQUES`]): the nodes are moved into
    /// the finished graph (their lists held twice meanwhile) and labelled.
    pub(crate) fn peak_bytes(&self, edge_bytes: usize) -> usize {
        self.edges.len() * edge_bytes + 2 * self.node_bytes + self.nodes.len() * 16
    }

    /// The finished graph.
    pub fn finish(self) -> DupGraph {
        let mut graph =
            UnGraph::<Node, f32, u32>::with_capacity(self.nodes.len(), self.edges.len());
        for node in self.nodes {
            graph.add_node(node);
        }
        for (a, b, w) in self.edges {
            graph.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), w);
        }
        DupGraph {
            graph,
            lines: self.seqs,
        }
    }
}

/// Reads an edge list — `ID_A<TAB>ID_B[<TAB>SIMILARITY]` per line, as `--pairs` and
/// `graph --format tsv` write it (ids unescaped: `\t`, `\n`, `\r`, `\\`) — into a graph
/// whose nodes are the ids in order of first appearance. A missing similarity is 1. A line
/// that is not an edge goes to `bad_line` with its place (`name:line`) and reason; an error
/// from it ends the reading.
pub fn read_edges(
    name: &str,
    reader: impl std::io::BufRead,
    bad_line: &mut dyn FnMut(String, String) -> Result<()>,
) -> Result<DupGraph> {
    let mut index: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut graph = UnGraph::<Node, f32, u32>::default();
    let mut lines = Vec::new();
    for (n, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|e| Error::io(format!("reading {name}"), e))?;
        let place = format!("{name}:{}", n + 1);
        let parsed = std::str::from_utf8(&line)
            .map_err(|_| "invalid UTF-8".to_string())
            .and_then(|text| {
                let text = text.strip_suffix('\r').unwrap_or(text);
                if text.trim().is_empty() && !text.contains('\t') {
                    return Err("empty line".to_string());
                }
                let fields: Vec<&str> = text.split('\t').collect();
                if let Some(k) = fields.iter().take(2).position(|f| f.trim().is_empty()) {
                    return Err(format!("field {} (an id) is empty", k + 1));
                }
                let similarity = match fields.len() {
                    2 => 1.0,
                    3 => fields[2]
                        .parse::<f32>()
                        .ok()
                        .filter(|s| (0.0..=1.0).contains(s))
                        .ok_or_else(|| format!("similarity '{}' is not in [0, 1]", fields[2]))?,
                    k => return Err(format!("{k} tab-separated fields, expected 2 or 3")),
                };
                Ok((unescape(fields[0]), unescape(fields[1]), similarity))
            });
        let (a, b, s) = match parsed {
            Ok(edge) => edge,
            Err(reason) => {
                bad_line(place, reason)?;
                continue;
            }
        };
        let mut node_of = |id: String| -> u32 {
            *index.entry(id.clone()).or_insert_with(|| {
                let doc = if !id.is_empty() && id.bytes().all(|c| c.is_ascii_digit()) {
                    DocId::Num(id.into())
                } else {
                    DocId::Str(id.into())
                };
                lines.push(n as u64 + 1);
                graph
                    .add_node(Node {
                        id: doc,
                        snippet: "".into(),
                        attrs: Box::new([]),
                        text_bytes: 0,
                    })
                    .index() as u32
            })
        };
        let (na, nb) = (node_of(a), node_of(b));
        graph.add_edge(NodeIndex::new(na as usize), NodeIndex::new(nb as usize), s);
    }
    Ok(DupGraph { graph, lines })
}

/// Reverses the TSV escaping of ids (`\t`, `\n`, `\r`, `\\`).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Folds white space, drops control characters and keeps the first `max_chars` characters
/// (with "…" when cut).
pub fn snippet(text: &str, max_chars: usize) -> Box<str> {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars >= max_chars {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars().filter(|c| !c.is_control()) {
            if chars >= max_chars {
                break;
            }
            out.push(c);
            chars += 1;
        }
    }
    // Whether the text, white space folded, is longer than the snippet: counted only up to
    // the first character past it, not through a whole book.
    let mut folded = 0usize;
    let longer = text.split_whitespace().any(|w| {
        folded += w.chars().count() + 1;
        folded - 1 > max_chars
    });
    if chars >= max_chars && longer {
        out.push('…');
    }
    out.into_boxed_str()
}

/// Documents and verified pairs as a `petgraph` graph (node index = input order among
/// documents; edge order = discovery order: by the later document, then the earlier).
#[derive(Debug, Default)]
pub struct DupGraph {
    /// The graph; edge weights are similarities.
    pub graph: UnGraph<Node, f32, u32>,
    /// Each node's 1-based line number over all inputs.
    pub lines: Vec<u64>,
}

/// How documents are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterBy {
    /// Connected components of the (pruned) graph.
    Components,
    /// Disjoint cliques: every pair in a cluster is an edge.
    Cliques,
}

crate::choice::choices!(ClusterBy {
    "components" => Components: "Connected components",
    "cliques" => Cliques: "Disjoint cliques",
});

/// Settings of the grouping stage.
#[derive(Clone, Copy, Debug)]
pub struct ClusterOptions {
    /// Only edges with at least this similarity take part (`--min-edge`); 0 keeps all.
    pub min_edge: f64,
    /// Components above this many documents are reported and, under `Components`, split
    /// into cliques (`--max-cluster`); 0 = no limit.
    pub max_cluster: usize,
    /// Work budget of the clique search per component.
    pub clique_budget: u64,
    /// Compute the clique clusters. Without them each component is its own clique label
    /// and [`ComponentInfo::cliques`] is 0: for output that prints no clique (components
    /// without `--max-cluster`, the TSV edge list), whose cost would be the clique search.
    pub cliques: bool,
    /// Compute each component's diameter and weakest edge (for `--stats`, JSON and DOT);
    /// without them [`ComponentInfo::diameter`] is a zero placeholder and `weakest` is
    /// `None`.
    pub summaries: bool,
    /// Threads that group the components (`--threads`); the grouping is the same on any
    /// number.
    pub threads: usize,
}

impl ClusterOptions {
    /// What an edge takes when the graph is grouped with these options
    /// ([`crate::job::GraphJob::edge_bytes`]).
    pub fn edge_bytes(&self) -> usize {
        match self.cliques {
            true => EDGE_BYTES_CLIQUES,
            false => EDGE_BYTES,
        }
    }
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            min_edge: 0.0,
            max_cluster: 0,
            clique_budget: CLIQUE_WORK_BUDGET,
            cliques: true,
            summaries: true,
            threads: 1,
        }
    }
}

/// A connected component with two or more documents, and what shows chaining in it.
#[derive(Clone, Debug)]
pub struct ComponentInfo {
    /// Component label.
    pub label: u32,
    /// Member node indices, ascending.
    pub members: Vec<u32>,
    /// Edges inside (after `--min-edge`).
    pub edges: usize,
    /// Longest shortest path.
    pub diameter: Diameter,
    /// The least similar edge (a, b, similarity).
    pub weakest: Option<(u32, u32, f32)>,
    /// Number of clique clusters it splits into.
    pub cliques: usize,
    /// True when the clique search ran out of budget and the greedy cover was used.
    pub greedy: bool,
}

/// The result of grouping: a component and a clique-cluster label for every node, the
/// chosen cluster label, and a summary of each non-trivial component.
#[derive(Clone, Debug)]
pub struct Clustering {
    /// Component of each node (numbered by first member).
    pub component: Vec<u32>,
    /// Clique cluster of each node (numbered by first member).
    pub clique: Vec<u32>,
    /// The cluster each node is reported in (`component` or `clique`, after
    /// `--max-cluster` splitting).
    pub cluster: Vec<u32>,
    /// Size of each cluster label of `cluster`.
    pub cluster_size: Vec<u32>,
    /// Size of each component label.
    pub component_size: Vec<u32>,
    /// Components of two or more documents, largest first (ties: lowest label).
    pub components: Vec<ComponentInfo>,
    /// Warnings for the user (oversized components, greedy fallbacks).
    pub warnings: Vec<String>,
    /// The graph used for grouping (edges pruned by `--min-edge`).
    pub adjacency: Adjacency,
}

impl DupGraph {
    /// [`DupGraph::cluster`] on a thread with a large stack: the clique search recurses once
    /// per member of the clique being built.
    ///
    /// In a program that takes SIGINT and SIGTERM ([`crate::guard::stop_requested`]), a
    /// signal stops the grouping: [`Error::Stopped`], nothing written.
    pub fn cluster_in_thread(&self, by: ClusterBy, options: ClusterOptions) -> Result<Clustering> {
        let grouped = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("cluster".into())
                .stack_size(512 << 20)
                .spawn_scoped(scope, || self.group(by, options, true))
                .map_err(|e| Error::io("starting the clustering thread", e))?
                .join()
                .map_err(|_| Error::Internal("the clustering thread panicked".into()))
        })?;
        grouped.ok_or_else(|| {
            let signal = crate::guard::stop_requested().unwrap_or(libc::SIGTERM);
            Error::Stopped {
                status: 128 + signal,
                message: Some(format!(
                    "interrupted (signal {signal}) after the input ended, while grouping the \
                     documents; nothing was written"
                )),
            }
        })
    }

    /// Number of documents.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of verified pairs.
    pub(crate) fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The node with index `i`.
    pub fn node(&self, i: u32) -> &Node {
        &self.graph[NodeIndex::new(i as usize)]
    }

    /// Edges `(a, b, similarity)` with `a < b`, in discovery order.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32, f32)> + '_ {
        self.graph.edge_references().map(|e| {
            let (a, b) = (e.source().index() as u32, e.target().index() as u32);
            (a.min(b), a.max(b), *e.weight())
        })
    }

    /// The adjacency with edges of at least `min_edge`.
    pub fn adjacency(&self, min_edge: f64) -> Adjacency {
        Adjacency::new(
            self.node_count(),
            self.edges().filter(|e| f64::from(e.2) >= min_edge - 1e-6),
        )
    }

    /// Groups the documents. Deterministic: labels are numbered by each group's first
    /// document in input order.
    pub fn cluster(&self, by: ClusterBy, options: ClusterOptions) -> Clustering {
        self.group(by, options, false)
            .expect("a grouping that cannot stop ends")
    }

    /// [`DupGraph::cluster`]; `None` when `stoppable` and a signal asked the program to stop.
    fn group(&self, by: ClusterBy, options: ClusterOptions, stoppable: bool) -> Option<Clustering> {
        let adj = self.adjacency(options.min_edge);
        let n = adj.len();
        let component = adjacency::components(&adj);
        let members_of = adjacency::groups(&component);
        let mut clique_groups: Vec<Vec<u32>> = Vec::with_capacity(members_of.len());
        let mut infos = Vec::new();
        let mut warnings = Vec::new();
        let mut split_oversized: Vec<bool> = vec![false; members_of.len()];
        let mut found = parts::of_components(&adj, &members_of, options, stoppable)?;
        for (label, members) in members_of.iter().enumerate() {
            let Some(found) = found[label].take() else {
                clique_groups.push(members.clone());
                continue;
            };
            let parts::Part {
                parts,
                greedy,
                edges,
                diameter,
                weakest,
            } = found;
            let first_id = &self.node(members[0]).id;
            if greedy {
                warnings.push(format!(
                    "component of {} documents (first: {first_id}) is too dense for an exact \
                     clique search (its maximal cliques would exceed the search's time or \
                     memory budget); its clusters were built greedily: each is a clique, \
                     not necessarily a maximum one",
                    members.len()
                ));
            }
            if options.max_cluster > 0 && members.len() > options.max_cluster {
                split_oversized[label] = true;
                warnings.push(format!(
                    "component of {} documents (first: {first_id}) exceeds ‹max-cluster› {}{}",
                    members.len(),
                    options.max_cluster,
                    if by == ClusterBy::Components {
                        "; split into its cliques"
                    } else {
                        ""
                    }
                ));
            }
            infos.push(ComponentInfo {
                label: label as u32,
                members: members.clone(),
                edges,
                diameter,
                weakest,
                cliques: parts.len(),
                greedy,
            });
            if options.cliques {
                clique_groups.extend(parts);
            } else {
                clique_groups.push(members.clone());
            }
        }
        let clique = number_groups(n, &clique_groups);
        let cluster_groups: Vec<Vec<u32>> = match by {
            ClusterBy::Cliques => clique_groups,
            ClusterBy::Components => {
                let mut out = Vec::new();
                for (label, members) in members_of.iter().enumerate() {
                    if split_oversized[label] {
                        let mut by_clique: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
                        for &v in members {
                            by_clique.entry(clique[v as usize]).or_default().push(v);
                        }
                        out.extend(by_clique.into_values());
                    } else {
                        out.push(members.clone());
                    }
                }
                out
            }
        };
        // --max-cluster is a cap: a clique larger than it is cut into runs of its members in
        // input order (each still a clique).
        let cluster_groups: Vec<Vec<u32>> = match options.max_cluster {
            0 => cluster_groups,
            cap => cluster_groups
                .into_iter()
                .flat_map(|mut group| {
                    group.sort_unstable();
                    let runs: Vec<Vec<u32>> = group.chunks(cap).map(<[u32]>::to_vec).collect();
                    runs
                })
                .collect(),
        };
        let cluster = number_groups(n, &cluster_groups);
        infos.sort_by(|a, b| {
            b.members
                .len()
                .cmp(&a.members.len())
                .then(a.label.cmp(&b.label))
        });
        Some(Clustering {
            cluster_size: sizes(&cluster),
            component_size: sizes(&component),
            component,
            clique,
            cluster,
            components: infos,
            warnings,
            adjacency: adj,
        })
    }
}

/// Labels from disjoint groups covering `0..n`, numbered by each group's smallest node.
fn number_groups(n: usize, groups: &[Vec<u32>]) -> Vec<u32> {
    let mut order: Vec<&Vec<u32>> = groups.iter().collect();
    order.sort_by_key(|g| g.iter().min().copied().unwrap_or(u32::MAX));
    let mut label = vec![u32::MAX; n];
    for (i, g) in order.into_iter().enumerate() {
        for &v in g {
            label[v as usize] = i as u32;
        }
    }
    debug_assert!(
        label.iter().all(|&l| l != u32::MAX),
        "groups cover all nodes"
    );
    label
}

fn sizes(labels: &[u32]) -> Vec<u32> {
    let k = labels.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
    let mut out = vec![0u32; k];
    for &l in labels {
        out[l as usize] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(i: u64) -> Node {
        Node {
            id: DocId::Line(i),
            snippet: "".into(),
            attrs: Box::new([]),
            text_bytes: 0,
        }
    }

    /// Nodes 0..n with window keys 10, 20, …; edges given by node index.
    fn graph(n: u32, edges: &[(u32, u32, f64)]) -> DupGraph {
        let mut b = GraphBuilder::default();
        for i in 0..n {
            b.add_node(10 * (i as u64 + 1), node(i as u64 + 1));
        }
        for &(a, c, s) in edges {
            b.add_edge(10 * (a as u64 + 1), c, s);
        }
        b.finish()
    }

    #[test]
    fn snippets_are_bounded_and_clean() {
        assert_eq!(&*snippet("  a\tb\n\n c ", 80), "a b c");
        assert_eq!(&*snippet("hello world", 5), "hello…");
        assert_eq!(&*snippet("hello", 5), "hello");
        assert_eq!(&*snippet("héllo wörld", 7), "héllo w…");
        assert_eq!(&*snippet("a\u{1}b", 10), "ab");
        assert_eq!(&*snippet("anything", 0), "…");
    }

    #[test]
    fn chain_splits_into_cliques() {
        // 0-1-2-3 path (0.9) plus an isolated node 4 and a separate pair 5-6.
        let g = graph(7, &[(0, 1, 0.9), (1, 2, 0.9), (2, 3, 0.85), (5, 6, 0.95)]);
        let c = g.cluster(ClusterBy::Components, ClusterOptions::default());
        assert_eq!(c.component, vec![0, 0, 0, 0, 1, 2, 2]);
        assert_eq!(c.cluster, c.component);
        assert_eq!(c.component_size, vec![4, 1, 2]);
        assert_eq!(c.components.len(), 2);
        assert_eq!(c.components[0].diameter.hops, 3);
        assert_eq!(c.components[0].weakest, Some((2, 3, 0.85)));
        let k = g.cluster(ClusterBy::Cliques, ClusterOptions::default());
        assert_eq!(k.cluster, vec![0, 0, 1, 1, 2, 3, 3]);
        assert_eq!(k.cluster_size, vec![2, 2, 1, 2]);
    }

    #[test]
    fn components_alone_skip_the_clique_search_and_the_summaries() {
        let g = graph(7, &[(0, 1, 0.9), (1, 2, 0.9), (2, 3, 0.85), (5, 6, 0.95)]);
        let full = g.cluster(ClusterBy::Components, ClusterOptions::default());
        let lean = g.cluster(
            ClusterBy::Components,
            ClusterOptions {
                cliques: false,
                summaries: false,
                ..ClusterOptions::default()
            },
        );
        // The same components, the same clusters, in the same order.
        assert_eq!(lean.component, full.component);
        assert_eq!(lean.cluster, full.cluster);
        assert_eq!(lean.cluster_size, full.cluster_size);
        let members = |c: &Clustering| {
            c.components
                .iter()
                .map(|i| i.members.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(members(&lean), members(&full));
        // What was not asked for is not computed.
        assert_eq!(lean.clique, lean.component);
        assert!(
            lean.components
                .iter()
                .all(|i| i.cliques == 0 && i.weakest.is_none())
        );
        assert_eq!(full.components[0].cliques, 2);
    }

    #[test]
    fn min_edge_prunes_and_max_cluster_splits() {
        let g = graph(4, &[(0, 1, 0.9), (1, 2, 0.5), (2, 3, 0.9)]);
        let pruned = g.cluster(
            ClusterBy::Components,
            ClusterOptions {
                min_edge: 0.8,
                ..ClusterOptions::default()
            },
        );
        assert_eq!(pruned.cluster, vec![0, 0, 1, 1]);
        let split = g.cluster(
            ClusterBy::Components,
            ClusterOptions {
                max_cluster: 3,
                ..ClusterOptions::default()
            },
        );
        assert_eq!(split.component, vec![0, 0, 0, 0]);
        assert_eq!(split.cluster, vec![0, 0, 1, 1]);
        assert_eq!(split.warnings.len(), 1, "{:?}", split.warnings);
        // A cap: a clique larger than it is cut into runs, by cliques and by components.
        let complete: Vec<(u32, u32, f64)> = (0..7u32)
            .flat_map(|a| (a + 1..7).map(move |b| (a, b, 0.9)))
            .collect();
        let k7 = graph(7, &complete);
        for by in [ClusterBy::Cliques, ClusterBy::Components] {
            let capped = k7.cluster(
                by,
                ClusterOptions {
                    max_cluster: 3,
                    ..ClusterOptions::default()
                },
            );
            assert_eq!(capped.cluster, vec![0, 0, 0, 1, 1, 1, 2], "{by:?}");
            assert_eq!(capped.component, vec![0; 7]);
        }
    }

    #[test]
    fn exponential_clique_counts_fall_back_to_greedy() {
        // Moon–Moser: 60 nodes, all edges except inside 20 triangles: 3^20 maximal cliques.
        let mut edges = Vec::new();
        for a in 0..60u32 {
            for b in a + 1..60 {
                if a / 3 != b / 3 {
                    edges.push((a, b, 0.9));
                }
            }
        }
        let g = graph(60, &edges);
        let c = g.cluster(
            ClusterBy::Cliques,
            ClusterOptions {
                clique_budget: 10_000_000,
                ..ClusterOptions::default()
            },
        );
        assert!(c.components[0].greedy);
        assert!(c.warnings[0].contains("too dense"), "{:?}", c.warnings);
        // The greedy cover still gives cliques: one node of each triangle per cluster.
        assert_eq!(c.cluster_size, vec![20, 20, 20]);
    }

    #[test]
    fn petgraph_keeps_input_order() {
        let g = graph(3, &[(0, 2, 0.9), (1, 2, 0.8)]);
        assert_eq!(g.node(2).id, DocId::Line(3));
        assert_eq!(
            g.edges().collect::<Vec<_>>(),
            vec![(0, 2, 0.9), (1, 2, 0.8)]
        );
    }
}
