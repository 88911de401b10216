//! `clusters --keep`: one survivor per group, checked by brute force on small templated
//! inputs (exact join, so the groups are the brute-force components).

use crate::filter::{similarity, template_corpus};
use crate::util::neardup;
use serde_json::json;

const T: f64 = 0.5;

/// Components of the documents at or above `t`, by union–find over all pairs: each
/// document's component as its smallest member.
pub(crate) fn components(texts: &[String], t: f64) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..texts.len()).collect();
    fn root(p: &mut [usize], mut v: usize) -> usize {
        while p[v] != v {
            p[v] = p[p[v]];
            v = p[v];
        }
        v
    }
    for a in 0..texts.len() {
        for b in a + 1..texts.len() {
            if similarity(&texts[a], &texts[b]) >= t {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    (0..texts.len()).map(|v| root(&mut parent, v)).collect()
}

#[test]
fn every_policy_keeps_its_choice_once_per_group_and_loses_nothing() {
    let texts = template_corpus(31, 6, 150, 3);
    // Lengths vary (some documents get a tail), dates repeat so that ties occur.
    let docs: Vec<(String, String)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let text = if i % 3 == 0 {
                format!("{t} extra tail words")
            } else {
                t.clone()
            };
            (text, format!("2024-0{}-01", 1 + (i * 7) % 9))
        })
        .collect();
    let texts: Vec<String> = docs.iter().map(|d| d.0.clone()).collect();
    let mut lines: Vec<String> = docs
        .iter()
        .map(|(text, date)| json!({ "text": text, "date": date }).to_string())
        .collect();
    lines.insert(40, "not json at all".into());
    let input = lines.join("\n") + "\n";
    let root = components(&texts, T);
    let groups: std::collections::BTreeSet<usize> = root.iter().copied().collect();
    assert!(
        groups.len() > 6 && groups.len() < 100,
        "{} groups",
        groups.len()
    );
    type Better = fn(&(String, String), &(String, String)) -> bool;
    let policies: [(&str, Better); 6] = [
        ("first", |_, _| false),
        ("last", |_, _| true),
        ("longest", |a, b| a.0.len() > b.0.len()),
        ("shortest", |a, b| a.0.len() < b.0.len()),
        ("max:date", |a, b| a.1 > b.1),
        ("min:date", |a, b| a.1 < b.1),
    ];
    for (policy, better) in policies {
        let mut best: std::collections::BTreeMap<usize, usize> = Default::default();
        for (i, &r) in root.iter().enumerate() {
            let b = best.entry(r).or_insert(i);
            if better(&docs[i], &docs[*b]) {
                *b = i;
            }
        }
        let mut kept: Vec<usize> = best.into_values().collect();
        kept.sort_unstable();
        let mut expected: Vec<String> = kept
            .iter()
            .map(|&i| json!({ "text": docs[i].0, "date": docs[i].1 }).to_string())
            .collect();
        // The bad line (input line 41) is passed through in place.
        let at = kept.iter().position(|&i| i >= 40).unwrap_or(kept.len());
        expected.insert(at, "not json at all".into());
        let args = [
            "clusters", "--exact", "-t", "0.5", "--keep", policy, "--stats", "-j", "2",
        ];
        let run = neardup(&args, input.as_bytes()).ok();
        assert_eq!(run.lines(), expected, "--keep {policy}");
        let stats = run.stats();
        assert_eq!(stats["groups"], groups.len(), "{policy}");
        assert_eq!(stats["bad_lines"], 1);
        let (kept, dropped) = (stats["groups"].as_u64(), stats["dropped"].as_u64());
        assert_eq!(kept.unwrap() + dropped.unwrap() + 1, lines.len() as u64);
        let skip = neardup(
            &[&args[..], &["--on-bad-line", "skip"]].concat(),
            input.as_bytes(),
        );
        assert_eq!(skip.ok().lines().len(), expected.len() - 1);
    }
}

#[test]
fn keep_by_cliques_keeps_one_per_clique_cluster_and_reads_stdin_twice() {
    let texts = template_corpus(32, 3, 60, 6);
    let input = texts.join("\n") + "\n";
    let clusters = neardup(
        &["clusters", "--by", "cliques", "-t", "0.6"],
        input.as_bytes(),
    )
    .ok();
    let mut first_of: std::collections::BTreeMap<u64, usize> = Default::default();
    for (i, line) in clusters.lines().iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        first_of.entry(v["cluster"].as_u64().unwrap()).or_insert(i);
    }
    let mut firsts: Vec<usize> = first_of.into_values().collect();
    firsts.sort_unstable();
    let expected: Vec<String> = firsts.iter().map(|&i| texts[i].clone()).collect();
    let args = [
        "clusters", "--by", "cliques", "-t", "0.6", "--keep", "first",
    ];
    let run = neardup(&args, input.as_bytes()).ok();
    assert_eq!(run.lines(), expected);
    assert!(expected.len() < texts.len());
    let bad = neardup(&["clusters", "--keep", "max:"], b"x\n");
    assert_eq!(bad.code, 2);
    let bad = neardup(&["clusters", "--keep", "newest"], b"x\n");
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("max:FIELD"), "{}", bad.stderr);
}
