//! GraphML with typed keys, for Gephi, networkx and igraph.

use super::{ExportOptions, id_text};
use crate::graph::{Clustering, DupGraph};
use crate::output::format_similarity;
use serde_json::Value;
use std::io::Write;

/// Appends `s` escaped for XML text and attributes; characters XML 1.0 forbids become
/// U+FFFD.
pub(crate) fn xml_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML parsers turn a raw CR (and CR LF) into LF: a reference keeps it.
            '\r' => out.push_str("&#13;"),
            '\t' | '\n' => out.push(c),
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

pub(super) fn graphml(
    graph: &DupGraph,
    c: &Clustering,
    options: &ExportOptions,
    keep: &[bool],
    w: &mut dyn Write,
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
            r#"    <node id="n{v}"><data key="label">{}</data><data key="snippet">{}</data><data key="component">{}</data><data key="clique">{}</data><data key="size">{}</data><data key="degree">{}</data>"#,
            xml(&id_text(&node.id)),
            xml(&node.snippet),
            comp + 1,
            c.clique[v] + 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_covers_markup_and_forbidden_characters() {
        assert_eq!(
            xml("a<b>&\"c'\u{1}\u{FFFF}\té"),
            "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}\u{FFFD}\té"
        );
        assert_eq!(xml("a\r\nb\rc"), "a&#13;\nb&#13;c");
    }
}
