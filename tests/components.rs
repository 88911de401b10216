//! `clusters --by components` and `clusters --keep` join documents as they arrive and verify
//! no pair inside a component: checked against components by brute force, against the
//! groups of every verified pair, and for bounded work on one template.

use crate::filter::{template_corpus, text};
use crate::keep::components;
use crate::util::{Run, SAMPLE, neardup};
use std::collections::{BTreeSet, HashMap};

/// Each line's group of a `clusters` output, named by the index of its first member.
fn first_members(run: &Run) -> Vec<usize> {
    let mut first: HashMap<u64, usize> = HashMap::new();
    run.lines()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            *first.entry(v["cluster"].as_u64().unwrap()).or_insert(i)
        })
        .collect()
}

#[test]
fn unbounded_components_are_the_brute_force_components() {
    // Families 0.5–0.95 similar (few changes) and families straddling T (many changes).
    for (seed, t, max_changes, min_edge) in [
        (5, 0.5, 3, None),
        (6, 0.65, 3, None),
        (7, 0.4, 8, None),
        (8, 0.5, 3, Some(0.65)),
    ] {
        let texts = template_corpus(seed, 4, 200, max_changes);
        let t_flag = t.to_string();
        let edge_flag = min_edge.unwrap_or(0.0).to_string();
        let args = [
            "clusters",
            "--exact",
            "-t",
            &t_flag,
            "--min-edge",
            &edge_flag,
            "--max-candidates",
            "0",
        ];
        let run = neardup(&args, &text(&texts)).ok();
        let expected = components(&texts, min_edge.unwrap_or(t));
        assert_eq!(first_members(&run), expected, "{args:?}");
        assert!(
            expected.iter().collect::<BTreeSet<_>>().len() < 120,
            "the families are joined: {args:?}"
        );
        // Bounded (the default): never a false join; each group lies inside a true one.
        let bounded = neardup(&args[..args.len() - 2], &text(&texts)).ok();
        for (i, &g) in first_members(&bounded).iter().enumerate() {
            assert_eq!(expected[i], expected[g], "{args:?}: line {i}");
        }
    }
}

#[test]
fn groups_are_those_of_every_verified_pair_and_do_not_depend_on_threads() {
    // `--stats` prints the groups' edges and diameters, so it builds the graph of every
    // verified pair: the same groups, on friendly data, as joining on arrival.
    for t in ["0.3", "0.5", "0.8"] {
        let every_pair = neardup(&["clusters", "-t", t, "--stats", SAMPLE], b"").ok();
        for threads in ["1", "2", "4"] {
            let run = neardup(&["clusters", "-t", t, "-j", threads, SAMPLE], b"").ok();
            assert_eq!(run.stdout, every_pair.stdout, "-t {t} -j {threads}");
        }
    }
}

#[test]
fn one_template_costs_a_bounded_number_of_verifications_per_document() {
    let texts = template_corpus(9, 1, 1000, 3);
    let run = |extra: &[&str]| {
        let args = [&["clusters", "--keep", "first", "--stats"][..], extra].concat();
        neardup(&args, &text(&texts)).ok().stats()
    };
    let bounded = run(&[]);
    let unbounded = run(&["--max-candidates", "0"]);
    let verified = |s: &serde_json::Value| s["candidates"].as_u64().unwrap();
    assert!(verified(&bounded) <= 48 * 1000, "{bounded}");
    // Unbounded, the documents that join nothing verify all their candidates; the joins
    // still spare the rest (one template's pairs number 499,500).
    assert!(verified(&unbounded) < 499_500, "{unbounded}");
    assert!(
        verified(&bounded) < verified(&unbounded),
        "{bounded} {unbounded}"
    );
    // Nothing is lost: one line per group, the rest dropped.
    for s in [&bounded, &unbounded] {
        assert_eq!(
            s["groups"].as_u64().unwrap() + s["dropped"].as_u64().unwrap(),
            1000
        );
    }
    // The pairs recorded join two groups each: fewer than the documents.
    assert!(bounded["pairs"].as_u64().unwrap() < 1000, "{bounded}");
}

/// `clusters --keep` reads its input twice: standard input is copied to a file with no name
/// in `--spill-dir` (held in memory with `--spill-dir none`) and gives what the file gives; a
/// spill directory that cannot hold the copy is refused, named.
#[test]
fn a_second_pass_over_standard_input_reads_a_copy() {
    let from_file = neardup(&["clusters", "--keep", "first", "-q", SAMPLE], b"").ok();
    let data = std::fs::read(SAMPLE).unwrap();
    for extra in [&[][..], &["--spill-dir", "none"]] {
        let args = [&["clusters", "--keep", "first", "-q"][..], extra].concat();
        let run = neardup(&args, &data).ok();
        assert_eq!(run.stdout, from_file.stdout, "{extra:?}");
    }
    let missing = crate::util::temp_path("no-such-dir");
    let missing = missing.to_str().unwrap();
    let run = neardup(
        &["clusters", "--keep", "first", "--spill-dir", missing],
        &data,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--spill-dir") && run.stderr.contains(missing),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}
