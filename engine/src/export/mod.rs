//! Writing the similarity graph and its groups: GraphML (Gephi, networkx, igraph), TSV edge
//! list, JSON, Graphviz DOT — one file per format, as hyperfine's exporters — and the
//! per-document cluster JSON lines of `neardup clusters`.
//!
//! Node order is input order and edge order is discovery order, so the bytes written depend
//! only on the input and the flags. Group numbers (cluster, component, clique) are 1-based,
//! like line numbers: group 1 is the group of the first document, then in order of each
//! group's first document.

mod dot;
mod graphml;
mod json;
mod tsv;

use crate::error::{Error, Result};
use crate::graph::{ClusterBy, Clustering, ComponentInfo, DupGraph};
use crate::input::DocId;
use serde_json::{Value, json};
use std::io::{BufWriter, Write};

/// Output format of `neardup graph`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    /// GraphML with typed keys.
    Graphml,
    /// `id_a<TAB>id_b<TAB>similarity` per edge.
    Tsv,
    /// One JSON document: nodes, edges, groups.
    Json,
    /// Graphviz DOT, one subgraph cluster per component.
    Dot,
}

crate::choice::choices!(GraphFormat {
    "graphml" => Graphml: "GraphML with typed keys (Gephi, networkx, igraph)",
    "tsv" => Tsv: "id_a TAB id_b TAB similarity",
    "json" => Json: "Nodes, edges and groups in one JSON document",
    "dot" => Dot: "Graphviz DOT",
});

/// What to write besides the edges.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// Write documents without any edge too.
    pub all_nodes: bool,
    /// Names of the `--node-attr` paths, in the order of [`crate::graph::Node::attrs`].
    pub attr_names: Vec<String>,
}

/// Writes the graph in `format`.
pub fn write_graph<W: Write>(
    graph: &DupGraph,
    clustering: &Clustering,
    format: GraphFormat,
    options: &ExportOptions,
    out: W,
) -> Result<()> {
    let mut w = BufWriter::with_capacity(256 << 10, out);
    let keep = kept_nodes(graph, options.all_nodes);
    let result = match format {
        GraphFormat::Graphml => graphml::graphml(graph, clustering, options, &keep, &mut w),
        GraphFormat::Tsv => tsv::tsv(graph, &mut w),
        GraphFormat::Json => json::json_graph(graph, clustering, options, &keep, &mut w),
        GraphFormat::Dot => dot::dot(graph, clustering, &keep, &mut w),
    };
    result
        .and_then(|()| w.flush())
        .map_err(|e| Error::io("writing output", e))
}

/// How `clusters` writes a document's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClustersFormat {
    /// `{"id":…,"cluster":N,"size":S}` (and `"component"` for cliques).
    Jsonl,
    /// `ID TAB CLUSTER TAB SIZE` (and `TAB COMPONENT` for cliques).
    Tsv,
}

crate::choice::choices!(ClustersFormat {
    "jsonl" => Jsonl: "One JSON object per document",
    "tsv" => Tsv: "ID TAB CLUSTER TAB SIZE [TAB COMPONENT]",
});

/// Writes one line per document, in input order: its id, cluster number and size (and
/// component when clustering by cliques), as JSON or TSV.
pub fn write_clusters<W: Write>(
    graph: &DupGraph,
    clustering: &Clustering,
    by: ClusterBy,
    format: ClustersFormat,
    out: W,
) -> Result<()> {
    let mut w = BufWriter::with_capacity(256 << 10, out);
    let mut line = Vec::with_capacity(128);
    let result = (|| -> std::io::Result<()> {
        for v in 0..graph.node_count() {
            line.clear();
            let c = clustering.cluster[v];
            let size = clustering.cluster_size[c as usize];
            let number = c + 1;
            let comp = clustering.component[v] + 1;
            match format {
                ClustersFormat::Jsonl => {
                    line.extend_from_slice(b"{\"id\":");
                    graph.node(v as u32).id.write_json(&mut line);
                    line.extend_from_slice(
                        format!(",\"cluster\":{number},\"size\":{size}").as_bytes(),
                    );
                    if by == ClusterBy::Cliques {
                        line.extend_from_slice(format!(",\"component\":{comp}").as_bytes());
                    }
                    line.extend_from_slice(b"}\n");
                }
                ClustersFormat::Tsv => {
                    graph.node(v as u32).id.write_tsv(&mut line);
                    line.extend_from_slice(format!("\t{number}\t{size}").as_bytes());
                    if by == ClusterBy::Cliques {
                        line.extend_from_slice(format!("\t{comp}").as_bytes());
                    }
                    line.push(b'\n');
                }
            }
            w.write_all(&line)?;
        }
        w.flush()
    })();
    result.map_err(|e| Error::io("writing output", e))
}

/// Nodes to write: all, or those with at least one edge.
fn kept_nodes(graph: &DupGraph, all: bool) -> Vec<bool> {
    let mut keep = vec![all; graph.node_count()];
    for (a, b, _) in graph.edges() {
        keep[a as usize] = true;
        keep[b as usize] = true;
    }
    keep
}

fn id_json(id: &DocId) -> Value {
    let mut s = Vec::new();
    id.write_json(&mut s);
    serde_json::from_slice(&s).unwrap_or_else(|_| Value::String(id.to_string()))
}

/// The label of an id in text formats (GraphML, DOT): the id as written, strings unquoted.
fn id_text(id: &DocId) -> String {
    match id {
        DocId::Str(s) => s.to_string(),
        other => other.to_string(),
    }
}

/// One group of the JSON output and of `--stats`.
pub(crate) fn component_json(graph: &DupGraph, c: &Clustering, info: &ComponentInfo) -> Value {
    let id = |v: u32| id_json(&graph.node(v).id);
    let mut cliques: Vec<Vec<u32>> = Vec::new();
    for &v in &info.members {
        let k = c.clique[v as usize];
        match cliques.iter_mut().find(|g| c.clique[g[0] as usize] == k) {
            Some(g) => g.push(v),
            None => cliques.push(vec![v]),
        }
    }
    json!({
        "component": info.label + 1,
        "size": info.members.len(),
        "edges": info.edges,
        "diameter": info.diameter.hops,
        "diameter_exact": info.diameter.exact,
        "diameter_ends": [id(info.diameter.from), id(info.diameter.to)],
        "weakest_edge": info.weakest.map(|(a, b, s)| json!({
            "source": id(a),
            "target": id(b),
            "similarity": round4(s),
        })),
        "clique_clusters": info.cliques,
        "cliques_greedy": info.greedy,
        "cliques": cliques
            .iter()
            .map(|g| g.iter().map(|&v| id(v)).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
    })
}

fn round4(s: f32) -> f64 {
    (f64::from(s) * 10_000.0).round() / 10_000.0
}

/// The `--stats` object of the graph commands: the run's summary (`summary`, none for
/// `clusters --from-edges`) with `seconds` the whole command's time (`total_seconds`,
/// grouping and writing included), `grouping_seconds` the time after the pipeline
/// (`pipeline_seconds`), and a `graph` object ([`graph_stats`]).
pub fn run_stats(
    summary: Option<Value>,
    pipeline_seconds: f64,
    total_seconds: f64,
    graph: &DupGraph,
    clustering: &Clustering,
) -> Value {
    let mut value = summary.unwrap_or_else(|| json!({}));
    let millis = |s: f64| (s * 1000.0).round() / 1000.0;
    value["seconds"] = millis(total_seconds).into();
    value["grouping_seconds"] = millis((total_seconds - pipeline_seconds).max(0.0)).into();
    value["graph"] = graph_stats(graph, clustering, 10);
    value
}

/// The `graph` object of `--stats`: counts, and the largest components with their
/// diameter and weakest edge (where chaining shows).
pub fn graph_stats(graph: &DupGraph, c: &Clustering, top: usize) -> Value {
    json!({
        "nodes": graph.node_count(),
        "edges": graph.edge_count(),
        "edges_clustered": c.adjacency.edge_count(),
        "components": c.components.len(),
        "largest_component": c.components.first().map_or(1, |i| i.members.len()),
        "clusters": c.cluster_size.len(),
        "largest_cluster": c.cluster_size.iter().max().copied().unwrap_or(0),
        "largest": c.components.iter().take(top).map(|info| {
            let mut v = component_json(graph, c, info);
            if let Some(o) = v.as_object_mut() {
                o.remove("cliques");
            }
            v
        }).collect::<Vec<_>>(),
    })
}
