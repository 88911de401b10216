//! Weighted modes end to end: --weights tf / tfidf, neardup idf, --idf, --idf-warmup.

use crate::util::{SAMPLE, Words, first_lines, neardup, sample_bytes, temp_path};
use neardup::config::{Config, DEFAULT_SEED, InputFormat, ShingleKind};
use neardup::input::{Extractor, Input};
use neardup::sketch::weights::{IdfTable, Weigher, settings_of};
use neardup::text::normalize::{Normalized, Normalizer};
use neardup::text::shingle::Shingler;
use neardup::verify::{weighted_fingerprints, weighted_jaccard};
use std::collections::BTreeSet;

/// `neardup idf ARGS` written to a temporary file.
fn idf_file(name: &str, args: &[&str], stdin: &[u8]) -> std::path::PathBuf {
    let run = neardup(&[&["idf"][..], args].concat(), stdin).ok();
    let path = temp_path(name);
    std::fs::write(&path, &run.stdout).unwrap();
    path
}

#[test]
fn tf_is_bag() {
    for mode in [&["--drop-dups"][..], &["--pairs", "-t", "0.5"]] {
        let tf = neardup(&[mode, &["--weights", "tf", SAMPLE]].concat(), b"").ok();
        let bag = neardup(&[mode, &["--bag", SAMPLE]].concat(), b"").ok();
        assert_eq!(tf.stdout, bag.stdout, "{mode:?}");
    }
}

#[test]
fn tfidf_runs_the_same_on_any_thread_count() {
    let idf = idf_file("sample.idf", &[SAMPLE], b"");
    let idf = idf.to_str().unwrap();
    for mode in [
        &["--drop-dups"][..],
        &["--pairs", "-t", "0.5"],
        &["--annotate"],
    ] {
        let args = [mode, &["--weights", "tfidf", "--idf", idf, SAMPLE]].concat();
        let one = neardup(&[&args[..], &["-j", "1"]].concat(), b"").ok();
        let four = neardup(&[&args[..], &["-j", "4"]].concat(), b"").ok();
        assert_eq!(one.stdout, four.stdout, "{mode:?}");
        assert!(!one.stdout.is_empty());
    }
}

#[test]
fn warmup_equals_an_idf_file_of_the_same_lines() {
    let input = sample_bytes();
    let head = first_lines(&input, 300);
    let idf = idf_file("head.idf", &[], &head);
    let from_file = neardup(
        &[
            "--weights",
            "tfidf",
            "--idf",
            idf.to_str().unwrap(),
            "--annotate",
        ],
        &input,
    )
    .ok();
    let warm = neardup(
        &["--weights", "tfidf", "--idf-warmup", "300", "--annotate"],
        &input,
    )
    .ok();
    assert_eq!(from_file.stdout, warm.stdout);
    assert_eq!(
        warm.lines().len(),
        953,
        "the warm-up lines are written too, in order"
    );
    // A warm-up longer than the input learns from all of it.
    let all = neardup(&["--weights", "tfidf", "--idf-warmup", "100000"], &input).ok();
    let whole = idf_file("whole.idf", &[], &input);
    let file = neardup(
        &["--weights", "tfidf", "--idf", whole.to_str().unwrap()],
        &input,
    )
    .ok();
    assert_eq!(all.stdout, file.stdout);
}

#[test]
fn bad_idf_files_and_flag_combinations_are_usage_errors() {
    let idf = idf_file("good.idf", &[SAMPLE], b"");
    let bytes = std::fs::read(&idf).unwrap();
    let truncated = temp_path("truncated.idf");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let flipped = temp_path("flipped.idf");
    let mut f = bytes.clone();
    f[bytes.len() / 3] ^= 0x01;
    std::fs::write(&flipped, &f).unwrap();
    let not_idf = temp_path("not.idf");
    std::fs::write(&not_idf, b"hello").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--weights", "tfidf"], "needs document frequencies"),
        (
            vec!["--idf", idf.to_str().unwrap()],
            "only used with --weights tfidf",
        ),
        (
            vec!["--weights", "tfidf", "--idf", truncated.to_str().unwrap()],
            "truncated or corrupted",
        ),
        (
            vec!["--weights", "tfidf", "--idf", flipped.to_str().unwrap()],
            "truncated or corrupted",
        ),
        (
            vec!["--weights", "tfidf", "--idf", not_idf.to_str().unwrap()],
            "not a neardup IDF file",
        ),
        (
            vec![
                "--weights",
                "tfidf",
                "-n",
                "3",
                "--idf",
                idf.to_str().unwrap(),
            ],
            "other shingling settings",
        ),
    ];
    for (args, message) in cases {
        let run = neardup(&[&args[..], &[SAMPLE]].concat(), b"");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    let missing = neardup(
        &["--weights", "tfidf", "--idf", "/nonexistent/x.idf", SAMPLE],
        b"",
    );
    assert_eq!(missing.code, 1);
    let both = neardup(
        &[
            "--weights",
            "tfidf",
            "--idf",
            idf.to_str().unwrap(),
            "--idf-warmup",
            "5",
            SAMPLE,
        ],
        b"",
    );
    assert_eq!(both.code, 2);
}

#[test]
fn idf_stats_and_bounded_terms() {
    let run = neardup(&["idf", "--stats", "--max-terms", "100", SAMPLE], b"").ok();
    let stats = run.stats();
    assert_eq!(stats["docs"], 953);
    assert_eq!(stats["terms"], 100);
    // magic + version + settings + N + M + 100 entries + checksum
    assert!(run.stdout.len() < 8 + 4 + 200 + 16 + 1200 + 8);
    let table = IdfTable::read_from(&run.stdout[..], "stdout").unwrap();
    assert_eq!((table.docs(), table.len()), (953, 100));
}

/// Exact weighted Jaccard over all pairs of the sample (brute force).
fn exact_weighted_pairs(threshold: f64, table: &IdfTable) -> BTreeSet<(u64, u64)> {
    let config = Config::default().validate().unwrap();
    let extractor = Extractor::new("text", None, usize::MAX);
    let shingler = Shingler::new(config.text.shingle, true, config.sketch.seed);
    let docs: Vec<(Vec<u32>, Vec<f32>, f64)> = sample_bytes()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (text, _) = extractor.extract(line, InputFormat::Jsonl, 0).unwrap();
            let mut n = Normalized::default();
            config.text.normalizer.normalize_into(&text, &mut n);
            let mut w = Weigher::default();
            w.weigh(&shingler, &n, table);
            let (elements, weights) = weighted_fingerprints(&w.elements, &w.weights);
            (elements, weights, w.total)
        })
        .collect();
    let mut out = BTreeSet::new();
    for j in 0..docs.len() {
        for i in 0..j {
            let (a, b) = (&docs[i], &docs[j]);
            if weighted_jaccard((&a.0, &a.1, a.2), (&b.0, &b.1, b.2)) >= threshold {
                out.insert((i as u64 + 1, j as u64 + 1));
            }
        }
    }
    out
}

#[test]
fn tfidf_pairs_against_exact_weighted_jaccard() {
    let idf = idf_file("exact.idf", &[SAMPLE], b"");
    // The settings of the default run: 5-word shingles, default seed and normalisation.
    let shingling = settings_of(
        &Shingler::new(ShingleKind::Words(5), false, DEFAULT_SEED),
        &Normalizer::default(),
    );
    let table = IdfTable::load(&idf, &shingling).unwrap();
    for (t, min_recall) in [(0.8, 0.98), (0.5, 0.97)] {
        let run = neardup(
            &[
                "--pairs",
                "-t",
                &t.to_string(),
                "--weights",
                "tfidf",
                "--idf",
                idf.to_str().unwrap(),
                "--id-field",
                "none",
                SAMPLE,
            ],
            b"",
        )
        .ok();
        let found: BTreeSet<(u64, u64)> = run
            .lines()
            .iter()
            .map(|l| {
                let mut f = l.split('\t').map(|x| x.parse::<u64>().unwrap());
                (f.next().unwrap(), f.next().unwrap())
            })
            .collect();
        let exact = exact_weighted_pairs(t, &table);
        let hit = found.intersection(&exact).count();
        assert_eq!(
            hit,
            found.len(),
            "T={t}: a reported pair is below the threshold"
        );
        let recall = hit as f64 / exact.len() as f64;
        assert!(exact.len() > 100, "T={t}: {} pairs", exact.len());
        assert!(
            recall >= min_recall,
            "T={t}: recall {recall} ({hit}/{})",
            exact.len()
        );
    }
}

/// Templated job ads (methods §1): 12 companies, each ad = the company's 90-word boilerplate
/// plus a 45-word job description of its own; 20 of the ads are re-posted with 2 words
/// changed.
/// Returns the corpus and the (earlier, later) line numbers of the true re-posts.
fn job_ads() -> (String, BTreeSet<(u64, u64)>) {
    let mut w = Words::new(77);
    let boilerplate: Vec<Vec<String>> = (0..12).map(|_| w.doc(90)).collect();
    let mut lines = Vec::new();
    let mut dups = BTreeSet::new();
    let mut ads = Vec::new();
    for i in 0..240 {
        let company = i % 12;
        let job = w.doc(45);
        let ad = [job.clone(), boilerplate[company].clone()].concat();
        lines.push(ad.join(" "));
        ads.push(ad);
    }
    for (k, i) in (0..240).step_by(12).enumerate() {
        let mut copy = ads[i].clone();
        copy[3] = format!("edited{k}");
        copy[30] = format!("changed{k}");
        lines.push(copy.join(" "));
        dups.insert((i as u64 + 1, lines.len() as u64));
    }
    (lines.join("\n") + "\n", dups)
}

fn pairs_of(run: &crate::util::Run) -> BTreeSet<(u64, u64)> {
    run.lines()
        .iter()
        .map(|l| {
            let mut f = l.split('\t').map(|x| x.parse::<u64>().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect()
}

#[test]
fn tfidf_separates_boilerplate_from_reposts() {
    let (corpus, dups) = job_ads();
    // Same-company ads share 86 of ~130 shingles: set Jaccard ≈ 0.5; re-posts ≈ 0.85.
    let set = pairs_of(&neardup(&["--pairs", "-t", "0.4"], corpus.as_bytes()).ok());
    let tfidf = pairs_of(
        &neardup(
            &[
                "--pairs",
                "-t",
                "0.4",
                "--weights",
                "tfidf",
                "--idf-warmup",
                "1000",
            ],
            corpus.as_bytes(),
        )
        .ok(),
    );
    let precision = |found: &BTreeSet<(u64, u64)>| {
        found.intersection(&dups).count() as f64 / found.len().max(1) as f64
    };
    let recall = |found: &BTreeSet<(u64, u64)>| found.intersection(&dups).count() as f64 / 20.0;
    assert_eq!(recall(&set), 1.0);
    assert!(
        precision(&set) < 0.05,
        "set Jaccard links same-company ads: {}",
        precision(&set)
    );
    assert_eq!(recall(&tfidf), 1.0);
    assert_eq!(precision(&tfidf), 1.0, "{} pairs", tfidf.len());
}

#[test]
fn idf_reads_files_in_order_with_the_filter_flags() {
    let input = Input::from_reader("x", Box::new(std::io::Cursor::new(b"a b c\n".to_vec())));
    let (prefix, lines, _) = input.take_lines(5).unwrap();
    assert_eq!((prefix, lines), (b"a b c\n".to_vec(), 1));
    // Graph commands take the weights too.
    let run = neardup(
        &[
            "clusters",
            "--weights",
            "tfidf",
            "--idf-warmup",
            "200",
            "-t",
            "0.5",
            SAMPLE,
        ],
        b"",
    )
    .ok();
    assert_eq!(run.lines().len(), 953);
}
