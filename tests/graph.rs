//! The graph commands end to end: graph (GraphML, TSV, JSON, DOT), clusters, explain.

use crate::util::{SAMPLE, Words, neardup};
use quick_xml::Reader;
use quick_xml::events::Event;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Eight documents cut from one long word stream, each starting 15 words after the previous
/// one (100 words each): neighbours share 85 words (5-gram Jaccard 0.73), documents two
/// apart share 70 (0.52), and the two ends share nothing. At T=0.6 the pairs form a path.
fn chain() -> String {
    let mut w = Words::new(99);
    let stream: Vec<String> = (0..8 * 15 + 100)
        .map(|i| format!("{}{i}", w.word()))
        .collect();
    (0..8)
        .map(|i| stream[i * 15..i * 15 + 100].join(" ") + "\n")
        .collect()
}

const CHAIN_FLAGS: [&str; 6] = ["-t", "0.6", "--bands", "32", "--rows", "4"];

fn with<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

#[test]
fn chain_is_one_component_and_several_cliques() {
    let input = chain();
    let run = neardup(
        &with(&["clusters", "--by", "components"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    let rows: Vec<serde_json::Value> = run
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 8);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["id"], i as u64 + 1);
        assert_eq!(row["cluster"], 1, "group numbers are 1-based");
        assert_eq!(row["size"], 8);
    }

    let run = neardup(
        &with(&["clusters", "--by", "cliques"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    let clusters: Vec<u64> = run
        .lines()
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["cluster"]
                .as_u64()
                .unwrap()
        })
        .collect();
    // A path of 8 splits into 4 pairs: 1-2, 3-4, 5-6, 7-8.
    assert_eq!(clusters, vec![1, 1, 2, 2, 3, 3, 4, 4]);
}

#[test]
fn explain_shows_the_path_and_the_ends_similarity() {
    let input = chain();
    let run = neardup(
        &with(&["explain", "1", "8"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    let out = run.out();
    assert!(out.starts_with("path 1 -> 8: 7 hops"), "{out}");
    assert!(out.contains("the ends' own similarity is 0 "), "{out}");
    for i in 1..8 {
        assert!(
            out.contains(&format!("\n{} -- {}  similarity 0.7", i, i + 1)),
            "{out}"
        );
    }
    // Each hop's diff: 15 words leave at the front, 15 arrive at the back.
    assert_eq!(out.matches("[-").count(), 7, "{out}");
    assert_eq!(out.matches("{+").count(), 7, "{out}");

    let apart = neardup(
        &with(&["explain", "1", "8", "--min-edge", "0.9"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    assert!(
        apart.out().starts_with("no path: 1 and 8"),
        "{}",
        apart.out()
    );

    let missing = neardup(
        &with(&["explain", "1", "99"], &CHAIN_FLAGS),
        input.as_bytes(),
    );
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("no document has the id '99'"),
        "{}",
        missing.stderr
    );
}

/// JSON documents whose ids and texts need escaping in every format.
fn tricky() -> String {
    let mut w = Words::new(5);
    let base = w.doc(80);
    let mut lines = Vec::new();
    let ids = ["a<&>\"'b", "tab\there", "plain", "uni\u{e9}", "ctrl\u{1}x"];
    for (i, id) in ids.iter().enumerate() {
        let mut words = base.clone();
        words[79 - i] = format!("edit{i}");
        if i == 2 {
            words[0] = "<b>Bold & \"quoted\"</b>".to_string();
        }
        let year: serde_json::Value = if i == 3 {
            serde_json::json!("n/a")
        } else {
            serde_json::json!(1990 + i)
        };
        lines.push(
            serde_json::json!({"id": id, "text": words.join(" "), "year": year, "n": i})
                .to_string(),
        );
    }
    lines.push(serde_json::json!({"id": "alone", "text": w.doc(80).join(" "), "n": 9}).to_string());
    lines.join("\n") + "\n"
}

/// A parsed GraphML file: keys (id -> (domain, attr.type)), each node's data by key, and the
/// number of edges.
struct GraphMl {
    keys: BTreeMap<String, (String, String)>,
    nodes: Vec<HashMap<String, String>>,
    edges: usize,
}

fn parse_graphml(xml: &str) -> GraphMl {
    let mut reader = Reader::from_str(xml);
    let mut keys = BTreeMap::new();
    let mut nodes: Vec<HashMap<String, String>> = Vec::new();
    let mut edges = 0;
    let mut current_key: Option<String> = None;
    let mut in_node = false;
    let attr = |e: &quick_xml::events::BytesStart, name: &str| -> Option<String> {
        e.attributes()
            .map(|a| a.unwrap())
            .find(|a| a.key.as_ref() == name.as_bytes())
            .map(|a| String::from_utf8(a.value.to_vec()).unwrap())
    };
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Empty(e) if e.name().as_ref() == b"key" => {
                keys.insert(
                    attr(&e, "id").unwrap(),
                    (attr(&e, "for").unwrap(), attr(&e, "attr.type").unwrap()),
                );
            }
            Event::Start(e) if e.name().as_ref() == b"node" => {
                in_node = true;
                nodes.push(HashMap::new());
            }
            Event::End(e) if e.name().as_ref() == b"node" => in_node = false,
            Event::Start(e) if e.name().as_ref() == b"edge" => edges += 1,
            Event::Start(e) if e.name().as_ref() == b"data" => {
                let key = attr(&e, "key").unwrap();
                assert!(keys.contains_key(&key), "data for undeclared key {key}");
                current_key = Some(key);
            }
            Event::Text(t) => {
                if let (Some(key), true) = (&current_key, in_node) {
                    let text = t.decode().unwrap();
                    let text = quick_xml::escape::unescape(&text).unwrap().into_owned();
                    nodes
                        .last_mut()
                        .unwrap()
                        .entry(key.clone())
                        .or_default()
                        .push_str(&text);
                }
            }
            Event::GeneralRef(r) => {
                if let (Some(key), true) = (&current_key, in_node) {
                    let name = r.decode().unwrap();
                    let ch = match &*name {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        "apos" => "'",
                        other => panic!("unexpected entity {other}"),
                    };
                    nodes
                        .last_mut()
                        .unwrap()
                        .entry(key.clone())
                        .or_default()
                        .push_str(ch);
                }
            }
            Event::End(e) if e.name().as_ref() == b"data" => current_key = None,
            Event::Eof => break,
            _ => {}
        }
    }
    GraphMl { keys, nodes, edges }
}

/// `graph` on [`tricky`] with the year as a node attribute.
const TRICKY_GRAPH: [&str; 7] = [
    "graph",
    "--id-field",
    "id",
    "-t",
    "0.5",
    "--node-attr",
    "year",
];

#[test]
fn graphml_is_well_formed_typed_and_escaped() {
    let input = tricky();
    let args = [&TRICKY_GRAPH[..], &["--node-attr", "n"]].concat();
    let run = neardup(&args, input.as_bytes()).ok();
    let GraphMl { keys, nodes, edges } = parse_graphml(&run.out());
    assert_eq!(keys["label"], ("node".into(), "string".into()));
    assert_eq!(keys["component"], ("node".into(), "int".into()));
    assert_eq!(keys["weight"], ("edge".into(), "double".into()));
    // "year" has a string value once: string; "n" is always a number: double.
    assert_eq!(keys["a0"], ("node".into(), "string".into()));
    assert_eq!(keys["a1"], ("node".into(), "double".into()));
    assert_eq!(
        nodes.len(),
        5,
        "the unrelated document has no edge and is left out"
    );
    assert_eq!(edges, 10, "five near copies: every pair");
    let labels: Vec<&str> = nodes.iter().map(|n| n["label"].as_str()).collect();
    assert_eq!(
        labels,
        [
            "a<&>\"'b",
            "tab\there",
            "plain",
            "uni\u{e9}",
            "ctrl\u{fffd}x"
        ]
    );
    assert!(nodes[2]["snippet"].starts_with("<b>Bold & \"quoted\"</b>"));
    assert_eq!(nodes[0]["a0"], "1990");
    assert_eq!(nodes[3]["a0"], "n/a");
    assert!(
        nodes
            .iter()
            .all(|n| n["size"] == "5" && n["component"] == "1")
    );

    let all = neardup(&[&args[..], &["--all-nodes"]].concat(), input.as_bytes()).ok();
    let nodes = parse_graphml(&all.out()).nodes;
    assert_eq!(nodes.len(), 6);
    assert_eq!(nodes[5]["size"], "1");
}

#[test]
fn json_tsv_and_dot_agree() {
    let input = tricky();
    let base = TRICKY_GRAPH;
    let json = neardup(
        &[&base[..], &["--format", "json"]].concat(),
        input.as_bytes(),
    )
    .ok();
    let doc: serde_json::Value = serde_json::from_str(&json.out()).expect("one JSON document");
    let nodes = doc["nodes"].as_array().unwrap();
    let edges = doc["edges"].as_array().unwrap();
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!((nodes.len(), edges.len(), groups.len()), (5, 10, 1));
    assert_eq!(nodes[0]["id"], "a<&>\"'b");
    assert_eq!(nodes[0]["attrs"]["year"], 1990);
    assert_eq!(groups[0]["size"], 5);
    assert_eq!(groups[0]["diameter"], 1);
    assert_eq!(groups[0]["cliques"].as_array().unwrap().len(), 1);

    let tsv = neardup(
        &[&base[..], &["--format", "tsv"]].concat(),
        input.as_bytes(),
    )
    .ok();
    let pairs = neardup(
        &["--pairs", "--id-field", "id", "-t", "0.5"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(
        tsv.stdout, pairs.stdout,
        "graph tsv is the --pairs edge list"
    );
    for (line, edge) in tsv.lines().iter().zip(edges) {
        let sim: f64 = line.rsplit('\t').next().unwrap().parse().unwrap();
        assert_eq!(serde_json::json!(sim), edge["similarity"]);
    }

    let dot = neardup(
        &[&base[..], &["--format", "dot"]].concat(),
        input.as_bytes(),
    )
    .ok();
    let out = dot.out();
    assert!(out.starts_with("graph neardup {") && out.trim_end().ends_with('}'));
    assert_eq!(out.matches(" -- ").count(), 10);
    assert_eq!(out.matches("subgraph cluster_").count(), 1);
    assert!(out.contains("n0 [label=\"a<&>\\\"'b\\n"), "{out}");
    // Every quote inside a label is escaped: unescaped quotes pair up on each line.
    for line in out.lines() {
        let unescaped = line.replace("\\\\", "").replace("\\\"", "");
        assert_eq!(unescaped.matches('"').count() % 2, 0, "{line}");
    }
}

/// The (earlier, later) line numbers of a `--pairs` TSV run.
fn pair_ids(pairs: &crate::util::Run) -> Vec<(u64, u64)> {
    pairs
        .lines()
        .iter()
        .map(|l| {
            let mut f = l.split('\t').map(|x| x.parse().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect()
}

#[test]
fn components_equal_union_find_over_pairs() {
    let sample = crate::util::sample_bytes();
    // Line numbers as ids (the sample's own ids are not 1..n).
    let by_line = ["--id-field", "none"];
    let pairs = neardup(
        &[&["--pairs", "-t", "0.5", SAMPLE][..], &by_line].concat(),
        b"",
    )
    .ok();
    let clusters = neardup(
        &[&["clusters", "-t", "0.5", SAMPLE][..], &by_line].concat(),
        b"",
    )
    .ok();
    // Reference: naive label propagation over the pair list.
    let docs = clusters.lines().len();
    let lines_in_sample = sample
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert_eq!(docs, lines_in_sample, "one line per document");
    let mut label: HashMap<u64, u64> = HashMap::new();
    let edges: Vec<(u64, u64)> = pair_ids(&pairs);
    for i in 1..=docs as u64 {
        label.insert(i, i);
    }
    loop {
        let mut changed = false;
        for &(a, b) in &edges {
            let m = label[&a].min(label[&b]);
            for x in [a, b] {
                if label[&x] != m {
                    label.insert(x, m);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let rows: Vec<serde_json::Value> = clusters
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut seen: HashMap<u64, u64> = HashMap::new();
    for row in &rows {
        let id = row["id"].as_u64().unwrap();
        let cluster = row["cluster"].as_u64().unwrap();
        // Same reference label <=> same cluster.
        let prev = seen.insert(label[&id], cluster);
        assert!(prev.is_none_or(|p| p == cluster), "doc {id}");
    }
    let distinct: HashSet<u64> = seen.values().copied().collect();
    assert_eq!(
        distinct.len(),
        seen.len(),
        "different components got one cluster id"
    );
    // Sizes add up.
    let mut count: HashMap<u64, u64> = HashMap::new();
    for row in &rows {
        *count.entry(row["cluster"].as_u64().unwrap()).or_default() += 1;
    }
    for row in &rows {
        assert_eq!(
            row["size"].as_u64().unwrap(),
            count[&row["cluster"].as_u64().unwrap()]
        );
    }
}

#[test]
fn clique_clusters_are_all_pairwise_similar() {
    let pairs = neardup(&["--pairs", "-t", "0.5", SAMPLE], b"").ok();
    let edges: HashSet<(u64, u64)> = pair_ids(&pairs).into_iter().collect();
    let run = neardup(&["clusters", "--by", "cliques", "-t", "0.5", SAMPLE], b"").ok();
    let mut members: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for l in run.lines() {
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        members
            .entry(v["cluster"].as_u64().unwrap())
            .or_default()
            .push(v["id"].as_u64().unwrap());
    }
    for group in members.values() {
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                assert!(
                    edges.contains(&(a, b)),
                    "{a} and {b} share a clique cluster"
                );
            }
        }
    }
}

#[test]
fn output_does_not_depend_on_threads() {
    for args in [
        &["graph", "-t", "0.5", "--node-attr", "date"][..],
        &["graph", "-t", "0.5", "--format", "json", "--all-nodes"],
        &["graph", "-t", "0.5", "--format", "dot"],
        &["clusters", "--by", "cliques", "-t", "0.5"],
        &["clusters", "-t", "0.5", "--window", "100"],
    ] {
        let one = neardup(&[args, &["-j", "1", SAMPLE]].concat(), b"").ok();
        let four = neardup(&[args, &["-j", "4", SAMPLE]].concat(), b"").ok();
        assert_eq!(one.stdout, four.stdout, "{args:?}");
        assert!(!one.stdout.is_empty());
    }
    // The components' cliques, diameters and weakest edges, grouped on every thread.
    let graph = |threads| {
        let args = [
            "clusters", "-t", "0.5", "-q", "--stats", "-j", threads, SAMPLE,
        ];
        neardup(&args, b"").ok().stats()["graph"].clone()
    };
    let one = graph("1");
    assert!(
        one["largest"].as_array().is_some_and(|c| c.len() > 1),
        "{one}"
    );
    assert_eq!(one, graph("4"));
}

#[test]
fn grouping_flags_prune_and_warn() {
    let input = chain();
    let strict = neardup(
        &with(&["clusters", "--min-edge", "0.99"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    assert!(strict.lines().iter().all(|l| l.contains("\"size\":1")));

    let capped = neardup(
        &with(&["clusters", "--max-cluster", "5", "--stats"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    assert!(
        capped.stderr.contains("exceeds --max-cluster 5"),
        "{}",
        capped.stderr
    );
    assert!(capped.lines().iter().all(|l| l.contains("\"size\":2")));
    let stats = capped.stats();
    assert_eq!(stats["graph"]["largest_component"], 8);
    assert_eq!(stats["graph"]["largest"][0]["diameter"], 7);
    assert_eq!(stats["graph"]["largest"][0]["clique_clusters"], 4);
    assert!(
        stats["graph"]["largest"][0]["weakest_edge"]["similarity"]
            .as_f64()
            .unwrap()
            > 0.6
    );

    let bad = neardup(&["clusters", "--min-edge", "1.5"], b"");
    assert_eq!(bad.code, 2);
}

#[test]
fn bad_lines_and_plain_text() {
    let mut input = chain();
    input.insert_str(0, "{not json\n");
    // Plain text (the first line decides the format): the bad JSON line is a document here.
    let run = neardup(
        &with(&["clusters", "--input-format", "text"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    assert_eq!(run.lines().len(), 9);
    let json_lines: String = chain()
        .lines()
        .map(|l| serde_json::json!({"text": l}).to_string() + "\n")
        .collect();
    let input = format!("{{broken\n{json_lines}\n");
    let run = neardup(
        &with(&["clusters", "--input-format", "jsonl"], &CHAIN_FLAGS),
        input.as_bytes(),
    )
    .ok();
    assert_eq!(
        run.lines().len(),
        8,
        "bad and empty lines are not documents"
    );
    assert!(run.stderr.contains(":1: invalid JSON"), "{}", run.stderr);
    let fail = neardup(
        &with(
            &["graph", "--on-bad-line", "fail", "--input-format", "jsonl"],
            &CHAIN_FLAGS,
        ),
        input.as_bytes(),
    );
    assert_eq!(fail.code, 1);
    assert!(
        fail.stdout.is_empty(),
        "nothing is written before the input is complete"
    );
}

#[test]
fn explain_reads_standard_input_twice() {
    let run = neardup(
        &["explain", "--id-field", "id", "-t", "0.5", "3735", "6046"],
        &crate::util::sample_bytes(),
    )
    .ok();
    assert!(
        run.out().starts_with("path 3735 -> 6046: 1 hop"),
        "{}",
        run.out()
    );
    assert!(run.out().contains("[-6-5/16-] {+6-1/16+}"), "{}", run.out());
}

/// The groups of two or more ids of a `clusters` output.
fn groups(run: &crate::util::Run) -> BTreeSet<BTreeSet<String>> {
    let mut by_cluster: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for l in run.lines() {
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        by_cluster
            .entry(v["cluster"].as_u64().unwrap())
            .or_default()
            .insert(v["id"].to_string());
    }
    by_cluster.into_values().filter(|g| g.len() > 1).collect()
}

/// The scale-out path run by hand: `sign`, a join on (band, key), `verify-pairs` on the
/// candidates with their texts, `clusters --from-edges` — the same groups as `clusters` on
/// the documents, for several engine settings.
#[test]
fn a_join_of_sign_keys_verified_by_verify_pairs_gives_the_same_clusters() {
    let idf = crate::util::temp_path("join.idf");
    std::fs::write(&idf, neardup(&["idf", SAMPLE], b"").ok().stdout).unwrap();
    let idf_flag = ["--weights", "tfidf", "--idf", idf.to_str().unwrap()];
    let settings: Vec<Vec<&str>> = vec![
        vec!["-t", "0.5"],
        vec!["-t", "0.8", "-n", "3"],
        vec!["-t", "0.5", "--verify", "jaccard,edit", "--max-edit", "0.3"],
        [&["-t", "0.6"][..], &idf_flag].concat(),
    ];
    let texts: BTreeMap<String, String> = std::fs::read_to_string(SAMPLE)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["id"].to_string(), v["text"].as_str().unwrap().to_string())
        })
        .collect();
    for flags in settings {
        let with = |head: &[&'static str]| -> Vec<&str> {
            [head, &flags[..], &["--id-field", "id"]].concat()
        };
        let signed = neardup(&[with(&["sign"]), vec![SAMPLE]].concat(), b"").ok();
        let mut buckets: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for l in signed.lines() {
            let f: Vec<&str> = l.split('\t').collect();
            buckets
                .entry((f[1].to_string(), f[2].to_string()))
                .or_default()
                .push(f[0].to_string());
        }
        let mut candidates = BTreeSet::new();
        for ids in buckets.values() {
            for (i, a) in ids.iter().enumerate() {
                for b in &ids[i + 1..] {
                    candidates.insert((a.clone(), b.clone()));
                }
            }
        }
        let mut lines = String::new();
        for (a, b) in &candidates {
            let line = serde_json::json!({
                "a": a.parse::<u64>().unwrap(), "b": b.parse::<u64>().unwrap(),
                "text_a": texts[a], "text_b": texts[b],
            });
            lines.push_str(&format!("{line}\n"));
        }
        let edges = neardup(&with(&["verify-pairs"]), lines.as_bytes()).ok();
        assert!(!edges.stdout.is_empty(), "{flags:?}");
        // The same pairs naming documents given once before them: the same edges.
        let mut held = String::new();
        let ends: BTreeSet<&String> = candidates.iter().flat_map(|(a, b)| [a, b]).collect();
        for id in ends {
            let doc = serde_json::json!({"id": id.parse::<u64>().unwrap(), "text": texts[id]});
            held.push_str(&format!("{doc}\n"));
        }
        for (a, b) in &candidates {
            held.push_str(&format!("{{\"a\":{a},\"b\":{b}}}\n"));
        }
        let named = neardup(&with(&["verify-pairs"]), held.as_bytes()).ok();
        assert_eq!(named.stdout, edges.stdout, "{flags:?}");
        let path = crate::util::temp_path("join.tsv");
        std::fs::write(&path, &edges.stdout).unwrap();
        let from_edges = ["clusters", "--from-edges", path.to_str().unwrap()];
        let joined = neardup(&from_edges, b"").ok();
        let direct = neardup(&[with(&["clusters"]), vec![SAMPLE]].concat(), b"").ok();
        assert_eq!(groups(&joined), groups(&direct), "{flags:?}");
        assert!(!groups(&direct).is_empty());
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_file(&idf);
    // Lines that are not candidates are reported and skipped, or fatal.
    let input =
        b"{\"a\": 1, \"b\": 2, \"text_a\": \"x y\", \"text_b\": \"x y\"}\n{\"a\": 1}\nnot json\n";
    let run = neardup(&["verify-pairs"], input).ok();
    assert_eq!(run.out(), "1\t2\t1\n");
    assert!(
        run.stderr.contains("-:2: missing field 'text_a'"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("-:3:"), "{}", run.stderr);
    // A pair naming a document not given before it is reported; one given is verified.
    let named = b"{\"id\": \"p\", \"text\": \"x y z\"}\n{\"a\": \"p\", \"b\": \"q\"}\n\
        {\"id\": \"q\", \"text\": \"x y z\"}\n{\"a\": \"p\", \"b\": \"q\"}\n{\"a\": [1], \"b\": \"q\"}\n";
    let run = neardup(&["verify-pairs"], named).ok();
    assert_eq!(run.out(), "p\tq\t1\n");
    assert!(
        run.stderr.contains("-:2: document q was not given before"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("-:5: id field 'a'"), "{}", run.stderr);
    let fail = neardup(&["verify-pairs", "--on-bad-line", "fail"], input);
    assert_eq!(fail.code, 1);
    let warmup = neardup(
        &["verify-pairs", "--weights", "tfidf", "--idf-warmup", "5"],
        b"",
    );
    assert_eq!(warmup.code, 2);
}

#[test]
fn clusters_from_an_edge_list_match_clusters_from_documents() {
    let pairs = neardup(&["--pairs", "-t", "0.5", "--id-field", "id", SAMPLE], b"").ok();
    let path = crate::util::temp_path("edges.tsv");
    std::fs::write(&path, &pairs.stdout).unwrap();
    for by in ["components", "cliques"] {
        let docs = neardup(
            &[
                "clusters",
                "--by",
                by,
                "-t",
                "0.5",
                "--id-field",
                "id",
                SAMPLE,
            ],
            b"",
        )
        .ok();
        let edges = neardup(
            &[
                "clusters",
                "--by",
                by,
                "--from-edges",
                path.to_str().unwrap(),
            ],
            b"",
        )
        .ok();
        assert_eq!(groups(&docs), groups(&edges), "--by {by}");
    }
    // Malformed lines: skipped and reported, or fatal under --on-bad-line fail.
    let input = b"a\tb\t0.9\nnot an edge\nb\tc\t1.5\n";
    let run = neardup(&["clusters", "--from-edges", "-"], input).ok();
    assert_eq!(run.lines().len(), 2);
    assert!(
        run.stderr.contains("-:2:") && run.stderr.contains("-:3:"),
        "{}",
        run.stderr
    );
    let fail = neardup(
        &["clusters", "--from-edges", "-", "--on-bad-line", "fail"],
        input,
    );
    assert_eq!(fail.code, 1);
    let _ = std::fs::remove_file(path);
}

#[test]
fn explain_names_the_cut_it_followed() {
    // The chain 514 -> 6875 holds at 0.3, not with --min-edge 0.9: the message names 0.9.
    let run = neardup(
        &[
            "explain",
            "514",
            "6875",
            "--id-field",
            "id",
            "-t",
            "0.3",
            "--min-edge",
            "0.9",
            SAMPLE,
        ],
        b"",
    )
    .ok();
    assert!(
        run.out()
            .starts_with("no path: 514 and 6875 are not connected by pairs at or above 0.9;"),
        "{}",
        run.out()
    );
}

#[test]
fn clusters_stats_cover_the_grouping_and_edge_lists() {
    let run = neardup(&["clusters", "--stats", "-t", "0.5", SAMPLE], b"").ok();
    let stats = run.stats();
    let (total, grouping) = (
        stats["seconds"].as_f64().unwrap(),
        stats["grouping_seconds"].as_f64().unwrap(),
    );
    assert!(total >= grouping && grouping >= 0.0, "{stats}");
    assert!(stats["graph"]["edges"].as_u64().unwrap() > 0, "{stats}");
    // From an edge list there is no pipeline summary, but the graph is described.
    let edges = neardup(&["--pairs", "-t", "0.5", SAMPLE], b"").ok();
    let path = crate::util::temp_path("stats-edges.tsv");
    std::fs::write(&path, &edges.stdout).unwrap();
    let run = neardup(
        &[
            "clusters",
            "--stats",
            "--from-edges",
            path.to_str().unwrap(),
        ],
        b"",
    )
    .ok();
    let stats = run.stats();
    assert_eq!(
        stats["graph"]["edges"].as_u64().unwrap(),
        edges.lines().len() as u64,
        "{stats}"
    );
}
