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
    // Each id's JSON once: an edge names two, and there are many more edges than nodes.
    // The bytes are serde_json's for the object `{"similarity","source","target"}` (keys in
    // its order), written piece by piece.
    let ids: Vec<Vec<u8>> = (0..graph.node_count() as u32)
        .map(|v| serde_json::to_vec(&id_json(&graph.node(v).id)))
        .collect::<serde_json::Result<_>>()?;
    let mut item = Vec::with_capacity(128);
    for (e, (a, b, s)) in graph.edges().enumerate() {
        item.clear();
        item.extend_from_slice(if e == 0 { b"\n" } else { b",\n" });
        item.extend_from_slice(b"{\"similarity\":");
        serde_json::to_writer(&mut item, &round4(s))?;
        item.extend_from_slice(b",\"source\":");
        item.extend_from_slice(&ids[a as usize]);
        item.extend_from_slice(b",\"target\":");
        item.extend_from_slice(&ids[b as usize]);
        item.push(b'}');
        w.write_all(&item)?;
    }
    w.write_all(b"\n],\"groups\":[")?;
    for (i, info) in c.components.iter().enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, &component_json(graph, c, info))?;
    }
    w.write_all(b"\n]}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A similarity written on its own is written as the same number inside an object.
    #[test]
    fn a_similarity_is_written_as_inside_an_object() {
        for k in 0..=10_000 {
            let s = round4(k as f32 / 10_000.0);
            let alone = serde_json::to_string(&s).expect("a number");
            let inside = serde_json::to_string(&json!({ "similarity": s })).expect("an object");
            assert_eq!(format!("{{\"similarity\":{alone}}}"), inside, "{s}");
        }
    }
}
