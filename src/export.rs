//! Writing the similarity graph and its groups: GraphML (Gephi, networkx, igraph), TSV edge
//! list, JSON, Graphviz DOT, and the per-document cluster JSONL of `neardup clusters`.
//!
//! Node order is input order and edge order is discovery order, so the bytes written depend
//! only on the input and the flags.

use crate::error::{Error, Result};
use crate::graph::{ClusterBy, Clustering, ComponentInfo, DupGraph};
use crate::input::DocId;
use crate::output::format_similarity;
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
        GraphFormat::Graphml => graphml(graph, clustering, options, &keep, &mut w),
        GraphFormat::Tsv => tsv(graph, &mut w),
        GraphFormat::Json => json_graph(graph, clustering, options, &keep, &mut w),
        GraphFormat::Dot => dot(graph, clustering, &keep, &mut w),
    };
    result
        .and_then(|()| w.flush())
        .map_err(|e| Error::io("writing output", e))
}

/// Writes one JSON line per document, in input order: `{"id", "cluster", "size"}`, plus
/// `"component"` when clustering by cliques.
pub fn write_clusters<W: Write>(
    graph: &DupGraph,
    clustering: &Clustering,
    by: ClusterBy,
    out: W,
) -> Result<()> {
    let mut w = BufWriter::with_capacity(256 << 10, out);
    let mut line = Vec::with_capacity(128);
    let result = (|| -> std::io::Result<()> {
        for v in 0..graph.node_count() {
            line.clear();
            line.extend_from_slice(b"{\"id\":");
            graph.node(v as u32).id.write_json(&mut line);
            let c = clustering.cluster[v];
            let size = clustering.cluster_size[c as usize];
            line.extend_from_slice(format!(",\"cluster\":{c},\"size\":{size}").as_bytes());
            if by == ClusterBy::Cliques {
                let comp = clustering.component[v];
                line.extend_from_slice(format!(",\"component\":{comp}").as_bytes());
            }
            line.extend_from_slice(b"}\n");
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

/// Appends `s` escaped for XML text and attributes; characters XML 1.0 forbids become
/// U+FFFD.
pub fn xml_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    xml_escape(s, &mut out);
    out
}

/// GraphML type of a user attribute: double if every present value is a number, boolean
/// if every one is a boolean, string otherwise.
fn attr_type(graph: &DupGraph, index: usize) -> &'static str {
    let values = (0..graph.node_count()).filter_map(|v| graph.node(v as u32).attrs[index].as_ref());
    let mut kind = None;
    for value in values {
        let k = match value {
            Value::Number(_) => "double",
            Value::Bool(_) => "boolean",
            _ => return "string",
        };
        if kind.is_some_and(|seen| seen != k) {
            return "string";
        }
        kind = Some(k);
    }
    kind.unwrap_or("string")
}

fn attr_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn graphml<W: Write>(
    graph: &DupGraph,
    c: &Clustering,
    options: &ExportOptions,
    keep: &[bool],
    w: &mut W,
) -> std::io::Result<()> {
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">"#
    )?;
    let keys = [
        ("label", "node", "label", "string"),
        ("snippet", "node", "snippet", "string"),
        ("component", "node", "component", "int"),
        ("clique", "node", "clique", "int"),
        ("size", "node", "size", "int"),
        ("degree", "node", "degree", "int"),
        ("weight", "edge", "weight", "double"),
    ];
    for (id, domain, name, ty) in keys {
        writeln!(
            w,
            r#"  <key id="{id}" for="{domain}" attr.name="{name}" attr.type="{ty}"/>"#
        )?;
    }
    let attr_types: Vec<&str> = (0..options.attr_names.len())
        .map(|i| attr_type(graph, i))
        .collect();
    for (i, name) in options.attr_names.iter().enumerate() {
        writeln!(
            w,
            r#"  <key id="a{i}" for="node" attr.name="{}" attr.type="{}"/>"#,
            xml(name),
            attr_types[i]
        )?;
    }
    writeln!(w, r#"  <graph id="neardup" edgedefault="undirected">"#)?;
    for v in (0..graph.node_count()).filter(|&v| keep[v]) {
        let node = graph.node(v as u32);
        let comp = c.component[v];
        write!(
            w,
            r#"    <node id="n{v}"><data key="label">{}</data><data key="snippet">{}</data><data key="component">{comp}</data><data key="clique">{}</data><data key="size">{}</data><data key="degree">{}</data>"#,
            xml(&id_text(&node.id)),
            xml(&node.snippet),
            c.clique[v],
            c.component_size[comp as usize],
            graph
                .graph
                .neighbors(petgraph::graph::NodeIndex::new(v))
                .count(),
        )?;
        for (i, value) in node.attrs.iter().enumerate() {
            if let Some(value) = value {
                write!(w, r#"<data key="a{i}">{}</data>"#, xml(&attr_text(value)))?;
            }
        }
        writeln!(w, "</node>")?;
    }
    for (e, (a, b, s)) in graph.edges().enumerate() {
        writeln!(
            w,
            r#"    <edge id="e{e}" source="n{a}" target="n{b}"><data key="weight">{}</data></edge>"#,
            format_similarity(f64::from(s))
        )?;
    }
    writeln!(w, "  </graph>\n</graphml>")
}

fn tsv<W: Write>(graph: &DupGraph, w: &mut W) -> std::io::Result<()> {
    for (a, b, s) in graph.edges() {
        writeln!(
            w,
            "{}\t{}\t{}",
            graph.node(a).id,
            graph.node(b).id,
            format_similarity(f64::from(s))
        )?;
    }
    Ok(())
}

/// One group of the JSON output and of `--stats`.
pub fn component_json(graph: &DupGraph, c: &Clustering, info: &ComponentInfo) -> Value {
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
        "component": info.label,
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

fn json_graph<W: Write>(
    graph: &DupGraph,
    c: &Clustering,
    options: &ExportOptions,
    keep: &[bool],
    w: &mut W,
) -> std::io::Result<()> {
    w.write_all(b"{\"nodes\":[")?;
    let mut first = true;
    for v in (0..graph.node_count()).filter(|&v| keep[v]) {
        let node = graph.node(v as u32);
        let attrs: serde_json::Map<String, Value> = options
            .attr_names
            .iter()
            .zip(node.attrs.iter())
            .filter_map(|(name, value)| Some((name.clone(), value.clone()?)))
            .collect();
        let item = json!({
            "id": id_json(&node.id),
            "snippet": &*node.snippet,
            "component": c.component[v],
            "clique": c.clique[v],
            "size": c.component_size[c.component[v] as usize],
            "attrs": attrs,
        });
        w.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        serde_json::to_writer(&mut *w, &item)?;
    }
    w.write_all(b"\n],\"edges\":[")?;
    for (e, (a, b, s)) in graph.edges().enumerate() {
        let item = json!({
            "source": id_json(&graph.node(a).id),
            "target": id_json(&graph.node(b).id),
            "similarity": round4(s),
        });
        w.write_all(if e == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, &item)?;
    }
    w.write_all(b"\n],\"groups\":[")?;
    for (i, info) in c.components.iter().enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, &component_json(graph, c, info))?;
    }
    w.write_all(b"\n]}\n")
}

/// Appends `s` as the inside of a DOT double-quoted string.
fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn dot<W: Write>(
    graph: &DupGraph,
    c: &Clustering,
    keep: &[bool],
    w: &mut W,
) -> std::io::Result<()> {
    writeln!(w, "graph neardup {{")?;
    writeln!(w, "  graph [overlap=false, fontsize=10];")?;
    writeln!(w, "  node [shape=box, fontsize=9];")?;
    let node_line = |w: &mut W, v: u32| -> std::io::Result<()> {
        let node = graph.node(v);
        writeln!(
            w,
            "    n{v} [label=\"{}\\n{}\"];",
            dot_escape(&id_text(&node.id)),
            dot_escape(&node.snippet)
        )
    };
    let mut in_group = vec![false; graph.node_count()];
    let mut infos: Vec<&ComponentInfo> = c.components.iter().collect();
    infos.sort_by_key(|i| i.label);
    for info in infos {
        writeln!(w, "  subgraph cluster_{} {{", info.label)?;
        let weakest = info.weakest.map_or(String::new(), |(_, _, s)| {
            format!(", weakest edge {}", format_similarity(f64::from(s)))
        });
        writeln!(
            w,
            "    label=\"component {}: {} documents, diameter {}{}\";",
            info.label,
            info.members.len(),
            info.diameter.hops,
            weakest
        )?;
        for &v in &info.members {
            in_group[v as usize] = true;
            node_line(w, v)?;
        }
        writeln!(w, "  }}")?;
    }
    for v in 0..graph.node_count() {
        if keep[v] && !in_group[v] {
            node_line(w, v as u32)?;
        }
    }
    for (a, b, s) in graph.edges() {
        let s = format_similarity(f64::from(s));
        writeln!(w, "  n{a} -- n{b} [label=\"{s}\", weight={s}];")?;
    }
    writeln!(w, "}}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_covers_markup_and_forbidden_characters() {
        assert_eq!(
            xml("a<b>&\"c'\u{1}\u{FFFF}\té"),
            "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}\u{FFFD}\té"
        );
    }

    #[test]
    fn dot_escaping() {
        assert_eq!(
            dot_escape("say \"hi\"\\n\nok\u{7}"),
            "say \\\"hi\\\"\\\\n ok"
        );
    }
}
