//! The filter modes on templated data: a document is compared with the documents kept so far,
//! the result is a greedy near-duplicate-free set, and the work per document is bounded.

use crate::util::{Words, neardup};
use neardup::config::{DEFAULT_SEED, ShingleKind};
use neardup::text::normalize::{Normalized, Normalizer};
use neardup::text::shingle::Shingler;
use serde_json::Value;

/// `docs` plain-text lines from `templates` templates of `words` words, each with 1 to
/// `max_changes` random words replaced: families whose members are 0.5 to 0.95 similar.
pub(crate) fn template_corpus(
    seed: u64,
    templates: usize,
    docs: usize,
    max_changes: u64,
) -> Vec<String> {
    let mut w = Words::new(seed);
    let bases: Vec<Vec<String>> = (0..templates).map(|_| w.doc(60)).collect();
    (0..docs)
        .map(|_| {
            let mut doc = bases[(w.next_u64() % templates as u64) as usize].clone();
            for _ in 0..1 + w.next_u64() % max_changes {
                let at = (w.next_u64() % doc.len() as u64) as usize;
                doc[at] = w.word();
            }
            doc.join(" ")
        })
        .collect()
}

pub(crate) fn text(lines: &[String]) -> Vec<u8> {
    (lines.join("\n") + "\n").into_bytes()
}

/// The exact similarity neardup's verification gives (word 5-gram sets, default settings).
pub(crate) fn similarity(a: &str, b: &str) -> f64 {
    let shingler = Shingler::new(ShingleKind::Words(5), false, DEFAULT_SEED);
    let normalize = |t: &str| {
        let mut n = Normalized::default();
        Normalizer::default().normalize_into(t, &mut n);
        n
    };
    neardup::verify::similarity(&shingler, None, &normalize(a), &normalize(b))
}

/// The greedy answer by brute force: each document against every kept earlier one; `None`
/// for kept, else the most similar kept document (ties: the earliest) and its similarity.
fn brute_force_greedy(docs: &[String], t: f64) -> Vec<Option<(usize, f64)>> {
    let mut kept: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let mut best: Option<(usize, f64)> = None;
        for &k in &kept {
            let s = similarity(&docs[k], doc);
            if s >= t && best.is_none_or(|b| s > b.1) {
                best = Some((k, s));
            }
        }
        if best.is_none() {
            kept.push(i);
        }
        out.push(best);
    }
    out
}

/// `--annotate` output as (dup_of line index, similarity) per document.
fn annotations(args: &[&str], input: &[u8]) -> Vec<Option<(usize, f64)>> {
    let run = neardup(&[&["--annotate"][..], args].concat(), input).ok();
    run.lines()
        .iter()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let n = &v["neardup"];
            n["dup_of"].as_u64().map(|d| {
                let s = n["similarity"].as_f64().unwrap();
                (d as usize - 1, s)
            })
        })
        .collect()
}

#[test]
fn exact_join_without_bound_is_the_brute_force_greedy_answer() {
    let docs = template_corpus(7, 4, 240, 2);
    let expected = brute_force_greedy(&docs, 0.8);
    let got = annotations(
        &["--exact", "--max-candidates", "0", "-t", "0.8"],
        &text(&docs),
    );
    assert_eq!(got.len(), expected.len());
    let kept = expected.iter().filter(|e| e.is_none()).count();
    assert!(kept > 20 && kept < 200, "a mix of kept and dropped: {kept}");
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        match (g, e) {
            (None, None) => {}
            (Some((gd, gs)), Some((ed, es))) => {
                assert_eq!(gd, ed, "document {i}: dup_of");
                assert!((gs - es).abs() < 1e-4, "document {i}: {gs} vs {es}");
            }
            _ => panic!("document {i}: neardup {g:?}, brute force {e:?}"),
        }
    }
}

#[test]
fn lsh_filter_keeps_the_greedy_invariants() {
    let docs = template_corpus(11, 3, 300, 2);
    for args in [
        &[][..],
        &["--max-candidates", "0"][..],
        &["--max-candidates", "4"][..],
        &["-w", "40"][..],
    ] {
        let got = annotations(&[args, &["-t", "0.8"]].concat(), &text(&docs));
        let kept: Vec<usize> = (0..docs.len()).filter(|&i| got[i].is_none()).collect();
        // Every drop is justified by a kept earlier document at or above the threshold.
        for (i, g) in got.iter().enumerate() {
            if let Some((d, s)) = *g {
                assert!(d < i && got[d].is_none(), "{args:?}: {i} dropped for {d}");
                let exact = similarity(&docs[d], &docs[i]);
                assert!(
                    exact >= 0.8 && (exact - s).abs() < 1e-4,
                    "{args:?}: {i}: {s}"
                );
            }
        }
        // No two kept documents are at or above it, up to LSH recall (the window of 40
        // keeps fewer to compare with, and a bound of 4 bites on these families: both are
        // left out here).
        if args.contains(&"-w") || args.contains(&"4") {
            continue;
        }
        let mut close = 0;
        for (a, &x) in kept.iter().enumerate() {
            for &y in &kept[a + 1..] {
                if similarity(&docs[x], &docs[y]) >= 0.8 {
                    close += 1;
                }
            }
        }
        // LSH misses a pair at J = 0.8 with probability 0.053 (16 bands x 8 rows), and a
        // missed pair keeps a document that the exact answer drops: allow twice that rate.
        let dropped = docs.len() - kept.len();
        assert!(
            close * 10 <= dropped,
            "{args:?}: {close} kept pairs, {dropped} dropped"
        );
    }
}

#[test]
fn nothing_is_dropped_by_chaining() {
    // 100 words: each changed word (5-grams) replaces 5 of 96 shingles. A to B: two changes,
    // J = 86/106 = 0.81; B to C: two more, 0.81; A to C: four, 76/116 = 0.66.
    let mut w = Words::new(3);
    let a = w.doc(100);
    let mut b = a.clone();
    b[20] = "bchange".into();
    b[40] = "bchange".into();
    let mut c = b.clone();
    c[60] = "cchange".into();
    c[80] = "cchange".into();
    let docs: Vec<String> = [a, b, c].iter().map(|d| d.join(" ")).collect();
    assert!(similarity(&docs[0], &docs[1]) >= 0.8);
    assert!(similarity(&docs[1], &docs[2]) >= 0.8);
    assert!(similarity(&docs[0], &docs[2]) < 0.8);
    let got = annotations(&["-t", "0.8"], &text(&docs));
    assert!(got[0].is_none(), "A is kept");
    assert_eq!(got[1].map(|g| g.0), Some(0), "B duplicates A");
    assert!(
        got[2].is_none(),
        "C is kept: only B, which was dropped, is close to it"
    );
    let kept = neardup(&["-t", "0.8"], &text(&docs)).ok();
    assert_eq!(kept.lines(), vec![docs[0].clone(), docs[2].clone()]);
}

#[test]
fn filter_output_is_the_same_on_any_thread_count() {
    let input = text(&template_corpus(5, 2, 3000, 3));
    for mode in ["--drop-dups", "--only-dups", "--annotate"] {
        for extra in [&[][..], &["-w", "100"][..], &["--max-candidates", "2"][..]] {
            let args = |j: &'static str| [&[mode, "-j", j][..], extra].concat();
            let one = neardup(&args("1"), &input).ok();
            let three = neardup(&args("3"), &input).ok();
            assert_eq!(one.stdout, three.stdout, "{mode} {extra:?}");
        }
    }
}

#[test]
fn drop_and_only_dups_partition_templated_input() {
    let docs = template_corpus(9, 5, 2000, 3);
    let input = text(&docs);
    for extra in [&[][..], &["-w", "50"][..], &["--max-candidates", "1"][..]] {
        let drop = neardup(&[&["--drop-dups"][..], extra].concat(), &input).ok();
        let only = neardup(&[&["--only-dups"][..], extra].concat(), &input).ok();
        let (kept, dropped) = (drop.lines(), only.lines());
        assert_eq!(kept.len() + dropped.len(), docs.len(), "{extra:?}");
        // Interleaved back in input order, they are the input.
        let (mut k, mut d) = (kept.iter().peekable(), dropped.iter().peekable());
        for doc in &docs {
            if k.peek() == Some(&doc) {
                k.next();
            } else {
                assert_eq!(d.next(), Some(doc), "{extra:?}");
            }
        }
    }
}

#[test]
fn work_per_document_is_bounded() {
    // One template, 4,000 copies with a word or two changed: every document has a kept
    // family in the window, and the bound holds whatever came before.
    let docs = template_corpus(13, 1, 4000, 2);
    let input = text(&docs);
    for (n, bound) in [("32", 32), ("4", 4)] {
        let run = neardup(&["--stats", "--max-candidates", n], &input).ok();
        let stats = run.stats();
        let checked = stats["candidates_checked"].as_u64().unwrap();
        assert!(checked <= 4000 * bound, "{n}: {stats}");
    }
    // Without the bound, the kept family makes the checks grow with the input.
    let unbounded = neardup(&["--stats", "--max-candidates", "0"], &input).ok();
    let bounded = neardup(&["--stats"], &input).ok();
    let checked = |r: &crate::util::Run| r.stats()["candidates_checked"].as_u64().unwrap();
    assert!(
        checked(&bounded) <= checked(&unbounded),
        "the bound only removes checks"
    );
}

/// Issue 32: on one near-threshold family (1,500 documents of one template, 1 to 3 words
/// changed), the default bound drops nearly what the exact greedy filter drops, every drop
/// verified, and the answer does not depend on the thread count. The tolerance: at least 97%
/// of the exact greedy drops (the target, which the family keys reach on a small
/// family; on the benchmark's 50,000 documents it is 97.4%).
#[test]
fn the_bound_on_one_template_family_drops_nearly_the_exact_greedy_answer() {
    let docs = template_corpus(23, 1, 1500, 3);
    let input = text(&docs);
    let dropped = |args: &[&str]| {
        let run = neardup(&[&["--only-dups", "-t", "0.8"][..], args].concat(), &input).ok();
        run.lines().len()
    };
    let exact = dropped(&["--exact", "--max-candidates", "0"]);
    let bounded = dropped(&[]);
    assert!(
        bounded as f64 >= 0.97 * exact as f64,
        "bounded {bounded} of exact {exact}"
    );
    // `tune` reports the same counts, from the sample (here all of it) in input order.
    let path = crate::util::temp_path("family.txt");
    std::fs::write(&path, &input).unwrap();
    let tune = neardup(
        &[
            "tune",
            "-t",
            "0.8",
            "--sample",
            "2000",
            path.to_str().unwrap(),
        ],
        b"",
    )
    .ok();
    let _ = std::fs::remove_file(&path);
    let report = tune.out();
    let line = (report.lines())
        .find(|l| l.starts_with("the bound on 1500 sampled documents"))
        .unwrap_or_else(|| panic!("{report}"));
    let mc = dropped(&["--max-candidates", "0"]);
    assert!(
        line.contains(&format!("(--max-candidates 0) drops {mc};")),
        "{line} / exact greedy {mc}"
    );
    let share = 100.0 * bounded as f64 / mc as f64;
    assert!(
        line.contains(&format!("--max-candidates 48: {bounded} ({share:.1}%)")),
        "{line} / bounded {bounded}"
    );
    let one = neardup(&["--annotate", "-t", "0.8", "-j", "1", "-"], &input).ok();
    for threads in ["2", "3"] {
        let many = neardup(&["--annotate", "-t", "0.8", "-j", threads, "-"], &input).ok();
        assert_eq!(one.stdout, many.stdout, "-j {threads}");
    }
}
