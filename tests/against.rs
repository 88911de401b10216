//! `--against`: filtering an input against a reference corpus or saved state, checked by
//! brute force on small templated inputs.

use crate::filter::{similarity, template_corpus, text};
use crate::util::{neardup, temp_path};
use serde_json::Value;

/// Exact and unbounded, so that the brute force is the whole answer.
const EXACT: [&str; 5] = ["--exact", "--max-candidates", "0", "-t", "0.8"];

/// A reference and an input sharing template families, and input families of its own.
fn reference_and_input() -> (Vec<String>, Vec<String>) {
    let shared = template_corpus(21, 5, 320, 2);
    let (reference, rest) = shared.split_at(120);
    let own = template_corpus(22, 3, 80, 3);
    let input = rest
        .iter()
        .zip(own.iter().cycle())
        .flat_map(|(a, b)| [a.clone(), b.clone()]);
    (reference.to_vec(), input.take(280).collect())
}

/// The most similar document of `among` at or above `t` (ties: the earliest).
fn best(doc: &str, among: &[&String], t: f64) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (k, other) in among.iter().enumerate() {
        let s = similarity(other, doc);
        if s >= t && best.is_none_or(|b| s > b.1) {
            best = Some((k, s));
        }
    }
    best
}

/// What `--annotate` says of one document: (dup_of index, similarity, reference).
type Said = Option<(usize, f64, bool)>;

/// The brute-force answer: a document near a reference document is a duplicate of the most
/// similar one; otherwise (unless `only`) of the most similar kept input document.
fn brute_force(reference: &[String], input: &[String], only: bool) -> Vec<Said> {
    let reference: Vec<&String> = reference.iter().collect();
    let mut kept: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for (i, doc) in input.iter().enumerate() {
        if let Some((r, s)) = best(doc, &reference, 0.8) {
            out.push(Some((r, s, true)));
            continue;
        }
        if only {
            out.push(None);
            continue;
        }
        let among: Vec<&String> = kept.iter().map(|&k| &input[k]).collect();
        match best(doc, &among, 0.8) {
            Some((k, s)) => out.push(Some((kept[k], s, false))),
            None => {
                kept.push(i);
                out.push(None);
            }
        }
    }
    out
}

fn annotations(out: &[String]) -> Vec<Said> {
    out.iter()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let n = &v["neardup"];
            let reference = n["reference"].as_bool().expect("a reference member");
            n["dup_of"].as_u64().map(|d| {
                let s = n["similarity"].as_f64().unwrap();
                (d as usize - 1, s, reference)
            })
        })
        .collect()
}

fn check(got: &[Said], expected: &[Said]) {
    assert_eq!(got.len(), expected.len());
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        match (g, e) {
            (None, None) => {}
            (Some((gd, gs, gr)), Some((ed, es, er))) => {
                assert_eq!((gd, gr), (ed, er), "document {i}: dup_of");
                assert!((gs - es).abs() < 1e-4, "document {i}: {gs} vs {es}");
            }
            _ => panic!("document {i}: neardup {g:?}, brute force {e:?}"),
        }
    }
}

#[test]
fn against_is_the_brute_force_answer_with_and_without_the_inputs_own_duplicates() {
    let (reference, input) = reference_and_input();
    let path = temp_path("against-reference.txt");
    std::fs::write(&path, text(&reference)).unwrap();
    let before = std::fs::read(&path).unwrap();
    let against = ["--against", path.to_str().unwrap()];
    for only in [false, true] {
        let expected = brute_force(&reference, &input, only);
        let dropped_by_reference = expected.iter().filter(|e| matches!(e, Some((_, _, true))));
        let own = expected.iter().filter(|e| matches!(e, Some((_, _, false))));
        let kept = expected.iter().filter(|e| e.is_none()).count();
        let by_reference = dropped_by_reference.count();
        assert!(
            by_reference > 50 && kept > 20,
            "a mix: {by_reference} {kept}"
        );
        assert_eq!(own.count() > 20, !only, "the input's own duplicates");
        let mut args = [&EXACT[..], &against[..], &["--annotate"]].concat();
        if only {
            args.push("--against-only");
        }
        let run = neardup(&args, &text(&input)).ok();
        check(&annotations(&run.lines()), &expected);

        // --drop-dups writes the lines the brute force keeps, and accounts for every line.
        args.retain(|a| *a != "--annotate");
        args.push("--stats");
        let run = neardup(&args, &text(&input)).ok();
        let kept_lines: Vec<String> = input
            .iter()
            .zip(&expected)
            .filter(|(_, e)| e.is_none())
            .map(|(l, _)| l.clone())
            .collect();
        assert_eq!(run.lines(), kept_lines);
        let stats = run.stats();
        assert_eq!(stats["reference_docs"], reference.len());
        assert_eq!(stats["written"], kept);
        assert_eq!(
            stats["written"].as_u64().unwrap() + stats["dropped"].as_u64().unwrap(),
            input.len() as u64
        );
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the reference is only read"
    );
}

#[test]
fn a_saved_state_is_a_reference_too_and_stays_unchanged() {
    let (reference, input) = reference_and_input();
    let state = temp_path("against-state.bin");
    crate::util::remove_state(&state);
    let state_arg = state.to_str().unwrap();
    // The state holds the reference's kept documents: the same reference as those lines.
    let kept = neardup(&["--state", state_arg], &text(&reference))
        .ok()
        .lines();
    let kept_path = temp_path("against-kept.txt");
    std::fs::write(&kept_path, text(&kept)).unwrap();
    let saved = crate::util::state_files(&state);
    for only in [&[][..], &["--against-only"][..]] {
        let from_state = neardup(
            &[&["--against", state_arg][..], only].concat(),
            &text(&input),
        );
        let from_file = neardup(
            &[&["--against", kept_path.to_str().unwrap()][..], only].concat(),
            &text(&input),
        );
        let (from_state, from_file) = (from_state.ok(), from_file.ok());
        assert_eq!(from_state.out(), from_file.out());
        assert!(from_state.lines().len() < input.len());
    }
    assert!(
        crate::util::state_files(&state) == saved,
        "the state is only read"
    );

    // A run's own state holds its own kept documents, never the reference's.
    let own = temp_path("against-own.bin");
    let _ = std::fs::remove_file(&own);
    let own_arg = own.to_str().unwrap();
    let args = ["--against", state_arg, "--state", own_arg, "--stats"];
    let run = neardup(&args, &text(&input)).ok();
    let held = run.stats()["window_docs"].as_u64().unwrap();
    let resumed = neardup(&["--state", own_arg, "--stats"], b"").ok();
    assert_eq!(resumed.stats()["window_docs"], held);
    assert_eq!(
        held,
        run.lines().len() as u64,
        "the kept input lines, no more"
    );
}

#[test]
fn output_is_the_same_on_any_thread_count_and_reference_bad_lines_are_skipped() {
    let (reference, input) = reference_and_input();
    let mut lines = reference.clone();
    lines.insert(3, "\u{0}not\u{ff} json {".into());
    let path = temp_path("against-json.jsonl");
    let json: Vec<String> = reference
        .iter()
        .map(|t| serde_json::json!({ "text": t }).to_string())
        .chain(["{broken".to_string()])
        .collect();
    std::fs::write(&path, text(&json)).unwrap();
    let arg = path.to_str().unwrap();
    let one = neardup(&["--against", arg, "-j", "1", "--stats"], &text(&input)).ok();
    let three = neardup(&["--against", arg, "-j", "3"], &text(&input)).ok();
    assert_eq!(one.out(), three.out());
    assert!(
        one.stderr.contains("against-json.jsonl:121"),
        "{}",
        one.stderr
    );
    assert!(one.stderr.contains("(skipped)"), "{}", one.stderr);
    assert_eq!(one.stats()["reference_docs"], reference.len());
    let failing = neardup(&["--against", arg, "--on-bad-line", "fail"], &text(&input));
    assert_eq!(failing.code, 1, "{}", failing.stderr);
    assert!(
        failing.stdout.is_empty(),
        "nothing is written before the reference is whole"
    );
}

#[test]
fn against_is_for_the_filter_modes_and_needs_matching_settings() {
    let state = temp_path("against-settings.bin");
    crate::util::remove_state(&state);
    let arg = state.to_str().unwrap();
    neardup(&["--state", arg], b"one two three four five six\n").ok();
    let other = neardup(&["--against", arg, "-t", "0.5"], b"x\n");
    assert_eq!(other.code, 2);
    assert!(other.stderr.contains("--against") && other.stderr.contains("settings"));
    let pairs = neardup(&["--against", arg, "--pairs"], b"x\n");
    assert_eq!(pairs.code, 2);
    assert!(pairs.stderr.contains("filter modes"), "{}", pairs.stderr);
    let only = neardup(&["--against-only"], b"x\n");
    assert_eq!(only.code, 2);
    let missing = neardup(&["--against", "/nonexistent/ref.txt"], b"x\n");
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("/nonexistent/ref.txt"));
}
