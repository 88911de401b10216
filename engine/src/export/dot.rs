//! Graphviz DOT: one box (`subgraph cluster_N`) per component.

use super::id_text;
use crate::graph::{Clustering, ComponentInfo, DupGraph};
use crate::output::format_similarity;
use std::io::Write;

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

pub(super) fn dot(
    graph: &DupGraph,
    c: &Clustering,
    keep: &[bool],
    w: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(w, "graph neardup {{")?;
    writeln!(w, "  graph [overlap=false, fontsize=10];")?;
    writeln!(w, "  node [shape=box, fontsize=9];")?;
    let node_line = |w: &mut dyn Write, v: u32| -> std::io::Result<()> {
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
        writeln!(w, "  subgraph cluster_{} {{", info.label + 1)?;
        let weakest = info.weakest.map_or(String::new(), |(_, _, s)| {
            format!(", weakest edge {}", format_similarity(f64::from(s)))
        });
        writeln!(
            w,
            "    label=\"component {}: {} documents, diameter {}{}\";",
            info.label + 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_escaping() {
        assert_eq!(
            dot_escape("say \"hi\"\\n\nok\u{7}"),
            "say \\\"hi\\\"\\\\n ok"
        );
    }
}
