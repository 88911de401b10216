//! One survivor per group (`clusters --keep`): which document of each cluster is kept.

use super::DupGraph;
use serde_json::Value;
use std::cmp::Ordering;

/// Which document of a group is kept. Ties always go to the earliest document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The first in input order (what the streaming filter keeps).
    First,
    /// The last in input order.
    Last,
    /// The one with the longest text (in bytes).
    Longest,
    /// The one with the shortest text (in bytes).
    Shortest,
    /// The one with the largest value of the node attribute at this index: numbers by value,
    /// strings in byte order (ISO dates sort as dates), numbers before strings; a document
    /// without the value is kept only when no member has one.
    Max(usize),
    /// As `Max`, the smallest value.
    Min(usize),
}

/// A node attribute as a sort key (`None`: missing or neither number nor string).
#[derive(PartialEq, PartialOrd)]
enum Key<'a> {
    Num(f64),
    Str(&'a str),
}

fn key(value: Option<&Value>) -> Option<Key<'_>> {
    match value? {
        Value::Number(n) => n.as_f64().filter(|f| !f.is_nan()).map(Key::Num),
        Value::String(s) => Some(Key::Str(s)),
        _ => None,
    }
}

/// The node kept for each label of `cluster` (one label per node, labels `0..k`), by `keep`.
pub fn survivors(graph: &DupGraph, cluster: &[u32], keep: &Keep) -> Vec<u32> {
    let groups = cluster.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
    let mut best: Vec<Option<u32>> = vec![None; groups];
    for (v, &label) in cluster.iter().enumerate() {
        let v = v as u32;
        let slot = &mut best[label as usize];
        let Some(b) = *slot else {
            *slot = Some(v);
            continue;
        };
        if better(graph, keep, v, b) {
            *slot = Some(v);
        }
    }
    best.into_iter()
        .map(|b| b.expect("every label has a member"))
        .collect()
}

/// True when `v` (later in input order) is preferred to `b`.
fn better(graph: &DupGraph, keep: &Keep, v: u32, b: u32) -> bool {
    let (nv, nb) = (graph.node(v), graph.node(b));
    match keep {
        Keep::First => false,
        Keep::Last => true,
        Keep::Longest => nv.text_bytes > nb.text_bytes,
        Keep::Shortest => nv.text_bytes < nb.text_bytes,
        Keep::Max(i) | Keep::Min(i) => {
            let (kv, kb) = (attr(nv, *i), attr(nb, *i));
            match (kv, kb) {
                (Some(kv), Some(kb)) => {
                    let order = kv.partial_cmp(&kb).unwrap_or(Ordering::Equal);
                    match keep {
                        Keep::Max(_) => order == Ordering::Greater,
                        _ => order == Ordering::Less,
                    }
                }
                (Some(_), None) => true,
                _ => false,
            }
        }
    }
}

/// Node attribute `i` of `node` as a sort key.
fn attr(node: &super::Node, i: usize) -> Option<Key<'_>> {
    key(node.attrs.get(i).and_then(Option::as_ref))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphBuilder, Node};
    use crate::input::DocId;

    fn graph(docs: &[(u64, Option<Value>)]) -> DupGraph {
        let mut b = GraphBuilder::default();
        for (i, (bytes, attr)) in docs.iter().enumerate() {
            b.add_node(
                i as u64 + 1,
                Node {
                    id: DocId::Line(i as u64 + 1),
                    snippet: "".into(),
                    attrs: Box::new([attr.clone()]),
                    text_bytes: *bytes,
                },
            );
        }
        b.finish()
    }

    #[test]
    fn each_policy_picks_its_member_and_ties_go_to_the_earliest() {
        use serde_json::json;
        let g = graph(&[
            (5, Some(json!("2024-01-02"))),
            (9, None),
            (9, Some(json!(7))),
            (2, Some(json!("2025-06-01"))),
            (2, Some(json!(true))),
            (4, Some(json!("2023-12-31"))),
        ]);
        // Two groups: {0, 1, 2, 3} and {4, 5}.
        let cluster = [0, 0, 0, 0, 1, 1];
        let pick = |keep| survivors(&g, &cluster, &keep);
        assert_eq!(pick(Keep::First), vec![0, 4]);
        assert_eq!(pick(Keep::Last), vec![3, 5]);
        assert_eq!(pick(Keep::Longest), vec![1, 5]);
        assert_eq!(pick(Keep::Shortest), vec![3, 4]);
        // Strings after numbers; a member without a value (or a boolean) never wins.
        assert_eq!(pick(Keep::Max(0)), vec![3, 5]);
        assert_eq!(pick(Keep::Min(0)), vec![2, 5]);
    }
}
