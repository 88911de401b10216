//! Precision and recall of detected pairs against an exact all-pairs answer on real text.
//!
//! The reference join is exact: an inverted index over shingle hashes lists every pair that
//! shares at least one shingle (any pair with Jaccard > 0 does), and each is scored with
//! BTreeSet operations, independently of neardup's merge-based verifier.

use crate::util::{SAMPLE, neardup};
use neardup::config::{InputFormat, ShingleKind};
use neardup::input::Extractor;
use neardup::text::normalize::{Normalized, Normalizer};
use neardup::text::shingle::Shingler;
use std::collections::{BTreeMap, BTreeSet, HashMap};

fn shingle_sets(path: &str, bag: bool) -> Vec<(u64, BTreeSet<u64>)> {
    let text = std::fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let extractor = Extractor::new("text", Some("id"), usize::MAX);
    let shingler = Shingler::new(ShingleKind::Words(5), bag, neardup::config::DEFAULT_SEED);
    let mut norm = Normalized::default();
    let mut hashes = Vec::new();
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, line)| {
            let (t, id) = extractor
                .extract(line, InputFormat::Jsonl, i as u64 + 1)
                .unwrap();
            Normalizer::default().normalize_into(&t, &mut norm);
            shingler.shingles_into(&norm, &mut hashes);
            let id = match id {
                neardup::input::DocId::Num(n) => n.parse().unwrap(),
                other => panic!("unexpected id {other:?}"),
            };
            (id, hashes.iter().copied().collect())
        })
        .collect()
}

/// Every pair (earlier id, later id) with Jaccard ≥ t.
fn exact_pairs(docs: &[(u64, BTreeSet<u64>)], t: f64) -> BTreeMap<(u64, u64), f64> {
    let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, (_, set)) in docs.iter().enumerate() {
        for &h in set {
            index.entry(h).or_default().push(i);
        }
    }
    let mut sharing: BTreeSet<(usize, usize)> = BTreeSet::new();
    for list in index.values() {
        for (x, &i) in list.iter().enumerate() {
            for &j in &list[x + 1..] {
                sharing.insert((i, j));
            }
        }
    }
    let mut out = BTreeMap::new();
    for (i, j) in sharing {
        let (a, b) = (&docs[i].1, &docs[j].1);
        let inter = a.intersection(b).count();
        let union = a.union(b).count();
        let s = inter as f64 / union as f64;
        if s >= t {
            out.insert((docs[i].0, docs[j].0), s);
        }
    }
    out
}

fn detected_pairs(t: &str, extra: &[&str]) -> BTreeMap<(u64, u64), f64> {
    let mut args = vec!["--pairs", "--id-field", "id", "-t", t, SAMPLE];
    args.extend_from_slice(extra);
    let run = neardup(&args, b"").ok();
    run.lines()
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                (f[0].parse().unwrap(), f[1].parse().unwrap()),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

fn check(t: f64, bag: bool, min_recall: f64) {
    let docs = shingle_sets(SAMPLE, bag);
    let truth = exact_pairs(&docs, t);
    let ts = t.to_string();
    let extra: &[&str] = if bag { &["--bag"] } else { &[] };
    let found = detected_pairs(&ts, extra);
    assert!(
        truth.len() >= 100,
        "the sample should hold many true pairs at T={t}"
    );
    let true_positives = found.keys().filter(|k| truth.contains_key(k)).count();
    let precision = true_positives as f64 / found.len().max(1) as f64;
    let recall = true_positives as f64 / truth.len() as f64;
    eprintln!(
        "T={t} bag={bag}: {} true pairs, {} found, precision {precision:.4}, recall {recall:.4}",
        truth.len(),
        found.len()
    );
    assert!(precision >= 0.99, "precision {precision} at T={t}");
    assert!(recall >= min_recall, "recall {recall} at T={t}");
    // Reported similarities are the exact ones (4 decimals).
    for (k, s) in &found {
        if let Some(exact) = truth.get(k) {
            assert!((s - exact).abs() <= 5e-5, "{k:?}: {s} vs {exact}");
        }
    }
}

// The banding is chosen for P(candidate | J = T) ≥ 0.99 (`--recall`), so recall over the
// pairs, most of them above T, is at least 0.995 (issue 20's target).
#[test]
fn pairs_match_exact_all_pairs_at_0_8() {
    check(0.8, false, 0.995);
}

#[test]
fn pairs_match_exact_all_pairs_at_0_5() {
    check(0.5, false, 0.995);
}

#[test]
fn pairs_match_exact_all_pairs_at_0_3() {
    check(0.3, false, 0.995);
}

#[test]
fn pairs_match_exact_all_pairs_with_bags() {
    check(0.6, true, 0.95);
}

#[test]
fn exact_join_equals_brute_force_on_the_sample() {
    for (t, bag) in [
        (0.9, false),
        (0.5, false),
        (0.3, false),
        (0.2, false),
        (0.6, true),
    ] {
        let truth = exact_pairs(&shingle_sets(SAMPLE, bag), t);
        let mut extra = vec!["--exact"];
        if bag {
            extra.push("--bag");
        }
        let found = detected_pairs(&t.to_string(), &extra);
        let keys = |m: &BTreeMap<(u64, u64), f64>| m.keys().copied().collect::<Vec<_>>();
        assert_eq!(keys(&found), keys(&truth), "T={t} bag={bag}");
    }
}

#[test]
fn exact_join_equals_brute_force_on_random_corpora() {
    use crate::util::Words;
    for seed in 0..6u64 {
        // Documents built from a few shared fragments, so similarities spread over 0..1.
        let mut w = Words::new(seed + 40);
        let fragments: Vec<Vec<String>> = (0..12).map(|_| w.doc(12)).collect();
        let docs: Vec<String> = (0..120)
            .map(|_| {
                let parts = 1 + w.next_u64() as usize % 4;
                let mut words: Vec<String> = Vec::new();
                for _ in 0..parts {
                    words.extend(fragments[w.next_u64() as usize % 12].iter().cloned());
                }
                let tail = w.next_u64() as usize % 4;
                words.extend(w.doc(tail));
                words.join(" ")
            })
            .collect();
        let jsonl: String = docs
            .iter()
            .enumerate()
            .map(|(i, d)| serde_json::json!({"id": i + 1, "text": d}).to_string() + "\n")
            .collect();
        let path = crate::util::temp_path(&format!("exact-{seed}.jsonl"));
        std::fs::write(&path, &jsonl).unwrap();
        let rel = path.to_str().unwrap();
        let sets: Vec<(u64, BTreeSet<u64>)> = {
            let extractor = Extractor::new("text", Some("id"), usize::MAX);
            let shingler =
                Shingler::new(ShingleKind::Words(3), false, neardup::config::DEFAULT_SEED);
            let mut norm = Normalized::default();
            let mut hashes = Vec::new();
            jsonl
                .lines()
                .enumerate()
                .map(|(i, line)| {
                    let (t, _) = extractor
                        .extract(line.as_bytes(), InputFormat::Jsonl, i as u64 + 1)
                        .unwrap();
                    Normalizer::default().normalize_into(&t, &mut norm);
                    shingler.shingles_into(&norm, &mut hashes);
                    (i as u64 + 1, hashes.iter().copied().collect())
                })
                .collect()
        };
        for t in [0.3, 0.6, 0.85] {
            // Brute force over all pairs (not the inverted index): pairs sharing nothing
            // cannot reach t > 0 anyway.
            let mut truth = Vec::new();
            for j in 0..sets.len() {
                for i in 0..j {
                    let (a, b) = (&sets[i].1, &sets[j].1);
                    let s = a.intersection(b).count() as f64 / a.union(b).count() as f64;
                    if s >= t {
                        truth.push((sets[i].0, sets[j].0));
                    }
                }
            }
            truth.sort_unstable();
            let run = neardup(
                &["--pairs", "--exact", "-n", "3", "-t", &t.to_string(), rel],
                b"",
            )
            .ok();
            let mut found: Vec<(u64, u64)> = run
                .lines()
                .iter()
                .map(|l| {
                    let mut f = l.split('\t').map(|x| x.parse::<u64>().unwrap());
                    (f.next().unwrap(), f.next().unwrap())
                })
                .collect();
            found.sort_unstable();
            assert_eq!(found, truth, "seed {seed} T={t}");
        }
        let _ = std::fs::remove_file(path);
    }
}
