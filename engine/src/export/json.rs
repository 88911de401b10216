//! One JSON document: nodes, edges, and the groups with their diameters and weakest edges.

use super::{ExportOptions, component_json, id_json, round4};
use crate::graph::{Clustering, DupGraph};
use serde_json::{Value, json};
use std::io::Write;

pub(super) fn json_graph(
    graph: &DupGraph,
    c: &Clustering,
    options: &ExportOptions,
    keep: &[bool],
    w: &mut dyn Write,
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
            "component": c.component[v] + 1,
            "clique": c.clique[v] + 1,
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
