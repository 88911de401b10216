//! Each output mode, the no-loss invariant, determinism and idempotency.

use crate::util::{SAMPLE, Words, neardup, sample_bytes};

/// Lines of `input` (with their terminators), for byte comparisons.
fn raw_lines(input: &[u8]) -> Vec<&[u8]> {
    input.split_inclusive(|&b| b == b'\n').collect()
}

/// A small corpus: 30 random documents, then edited copies of some of them.
fn corpus() -> (String, Vec<(usize, usize)>) {
    let mut w = Words::new(1);
    let docs: Vec<Vec<String>> = (0..30).map(|_| w.doc(60)).collect();
    let mut lines: Vec<String> = docs.iter().map(|d| d.join(" ")).collect();
    let mut expected = Vec::new();
    for i in [3usize, 7, 12] {
        let mut copy = docs[i].clone();
        // The last word changes: 1 of 56 shingles differs, J = 55/57 = 0.965, far enough
        // above 0.8 that LSH finds the pair with probability 1 − 2·10⁻¹⁰ (16 bands × 8 rows).
        copy[59] = "changed".to_string();
        lines.push(copy.join(" "));
        expected.push((i + 1, lines.len()));
    }
    // An exact copy up to case and spacing.
    lines.push(docs[20].join("  ").to_uppercase());
    expected.push((21, lines.len()));
    (lines.join("\n") + "\n", expected)
}

#[test]
fn default_mode_is_drop_dups() {
    let (input, _) = corpus();
    let a = neardup(&[], input.as_bytes()).ok();
    let b = neardup(&["--drop-dups"], input.as_bytes()).ok();
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.lines().len(), 30);
}

#[test]
fn drop_and_only_partition_the_input() {
    let (input, expected) = corpus();
    let kept = neardup(&["--drop-dups", "--stats"], input.as_bytes()).ok();
    let dups = neardup(&["--only-dups"], input.as_bytes()).ok();
    let stats = kept.stats();
    assert_eq!(stats["docs_read"], 34);
    assert_eq!(stats["written"], 30);
    assert_eq!(stats["dropped"], 4);
    assert_eq!(stats["dropped_exact"], 1);
    assert_eq!(stats["dropped_near"], 3);
    let all = raw_lines(input.as_bytes());
    let dup_lines: Vec<&[u8]> = expected.iter().map(|&(_, later)| all[later - 1]).collect();
    assert_eq!(raw_lines(&dups.stdout), dup_lines);
    let kept_lines: Vec<&[u8]> = all
        .iter()
        .copied()
        .filter(|l| !dup_lines.contains(l))
        .collect();
    assert_eq!(raw_lines(&kept.stdout), kept_lines);
}

#[test]
fn annotate_says_what_each_document_duplicates() {
    let (input, expected) = corpus();
    let run = neardup(&["--annotate"], input.as_bytes()).ok();
    let lines = run.lines();
    assert_eq!(lines.len(), 34);
    for (i, line) in lines.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).expect("annotate writes JSON");
        let n = &v["neardup"];
        let want = expected.iter().find(|&&(_, later)| later == i + 1);
        match want {
            Some(&(earlier, _)) => {
                assert_eq!(n["dup_of"], earlier as u64, "line {}", i + 1);
                let s = n["similarity"].as_f64().unwrap();
                assert!((0.8..=1.0).contains(&s));
            }
            None => {
                assert!(n["dup_of"].is_null());
                assert!(n["similarity"].is_null());
            }
        }
        assert_eq!(n["exact"], i + 1 == 34);
    }
}

#[test]
fn annotate_keeps_json_members_and_ids() {
    let input = concat!(
        r#"{"id":"a","text":"one two three four five six seven eight","x":[1,2]}"#,
        "\n",
        r#"{"id":"b","text":"One two three four five six seven eight","x":{}}"#,
        "\n"
    );
    let run = neardup(&["--annotate", "--id-field", "id"], input.as_bytes()).ok();
    let lines = run.lines();
    let second: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(second["x"], serde_json::json!({}));
    assert_eq!(second["neardup"]["dup_of"], "a");
    assert_eq!(second["neardup"]["exact"], true);
    assert!(lines[0].starts_with(
        r#"{"id":"a","text":"one two three four five six seven eight","x":[1,2],"neardup":"#
    ));
}

#[test]
fn pairs_lists_every_verified_pair() {
    let (input, mut expected) = corpus();
    let run = neardup(&["--pairs"], input.as_bytes()).ok();
    let mut got: Vec<(usize, usize)> = run
        .lines()
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3);
            let s: f64 = f[2].parse().unwrap();
            assert!((0.8..=1.0).contains(&s));
            (f[0].parse().unwrap(), f[1].parse().unwrap())
        })
        .collect();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    let json = neardup(&["--pairs", "--pairs-format", "jsonl"], input.as_bytes()).ok();
    for line in json.lines() {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(
            v["id_a"].is_u64() && v["id_b"].is_u64() && v["similarity"].is_f64()
                || v["similarity"] == 1
        );
    }
    assert_eq!(json.lines().len(), 4);
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let input = sample_bytes();
    for mode in ["--drop-dups", "--only-dups", "--annotate", "--pairs"] {
        let one = neardup(&[mode, "-t", "0.5", "-j", "1"], &input).ok();
        assert!(!one.stdout.is_empty());
        for helpers in ["auto", "always", "never"] {
            let four = neardup(
                &[mode, "-t", "0.5", "-j", "4", "--helpers", helpers],
                &input,
            )
            .ok();
            assert_eq!(
                one.stdout, four.stdout,
                "{mode}: 1 vs 4 threads (--helpers {helpers}) differ"
            );
        }
    }
}

#[test]
fn drop_dups_is_idempotent() {
    for t in ["0.5", "0.8"] {
        let once = neardup(&["-t", t, SAMPLE], b"").ok();
        let twice = neardup(&["-t", t], &once.stdout).ok();
        assert_eq!(once.stdout, twice.stdout, "T={t}");
        assert!(once.stdout.len() < sample_bytes().len());
    }
}

#[test]
fn nothing_is_lost_on_real_data() {
    let input = sample_bytes();
    let run = neardup(&["--stats", "-t", "0.5"], &input).ok();
    let stats = run.stats();
    let read = stats["docs_read"].as_u64().unwrap();
    let written = stats["written"].as_u64().unwrap();
    let dropped = stats["dropped"].as_u64().unwrap();
    assert_eq!(read, raw_lines(&input).len() as u64);
    assert_eq!(written + dropped, read);
    // Every written line is an input line, byte for byte, in input order.
    let inputs = raw_lines(&input);
    let mut at = 0;
    for line in raw_lines(&run.stdout) {
        while inputs[at] != line {
            at += 1;
            assert!(at < inputs.len(), "written line not found in order");
        }
        at += 1;
    }
}

#[test]
fn window_bounds_what_is_remembered() {
    let mut w = Words::new(9);
    let a = w.doc(40).join(" ");
    let mut lines = vec![a.clone()];
    for _ in 0..5 {
        lines.push(w.doc(40).join(" "));
    }
    lines.push(a);
    let input = lines.join("\n") + "\n";
    let unbounded = neardup(&["--stats"], input.as_bytes()).ok();
    assert_eq!(unbounded.stats()["dropped"], 1);
    let small = neardup(&["--stats", "--window", "3"], input.as_bytes()).ok();
    let stats = small.stats();
    assert_eq!(stats["dropped"], 0, "the first document was evicted");
    assert_eq!(stats["evictions"], 4);
    assert_eq!(stats["window_docs"], 3);
    let big = neardup(&["--stats", "--window", "7"], input.as_bytes()).ok();
    assert_eq!(big.stats()["dropped"], 1);
}

#[test]
fn window_keeps_recently_matched_documents() {
    // Document A is matched again and again; with LRU it survives while the unrelated
    // documents between its copies are evicted (a FIFO window of 3 would have lost it).
    // Each copy changes a different word, so the copies match A (J = 31/41) but not each
    // other (J = 26/46); 32 bands of 4 rows make a miss at J = 0.76 a one-in-a-million event.
    let mut w = Words::new(10);
    let a = w.doc(40);
    let mut lines = vec![a.join(" ")];
    for i in 0..6 {
        lines.push(w.doc(40).join(" "));
        let mut copy = a.clone();
        copy[5 + 6 * i] = format!("edit{i}");
        lines.push(copy.join(" "));
    }
    let input = lines.join("\n") + "\n";
    let args = ["--window", "3", "-t", "0.7", "--bands", "32", "--rows", "4"];
    let run = neardup(&[&args[..], &["--stats"]].concat(), input.as_bytes()).ok();
    assert_eq!(run.stats()["dropped"], 6);
    let annotated = neardup(&[&args[..], &["--annotate"]].concat(), input.as_bytes()).ok();
    for (i, line) in annotated.lines().iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let want = if i > 0 && i % 2 == 0 {
            serde_json::json!(1)
        } else {
            serde_json::Value::Null
        };
        assert_eq!(v["neardup"]["dup_of"], want, "line {}", i + 1);
    }
}

#[test]
fn verify_none_trusts_the_estimate() {
    let (input, _) = corpus();
    // The edited copies have J = 0.965; the estimate's standard deviation at K = 128 is
    // 0.016, so 0.8 is ten standard deviations below.
    let run = neardup(&["--verify", "none", "--stats"], input.as_bytes()).ok();
    assert_eq!(run.stats()["dropped"], 4);
    let pairs = neardup(&["--verify", "none", "--pairs"], input.as_bytes()).ok();
    for line in pairs.lines() {
        let s: f64 = line.split('\t').nth(2).unwrap().parse().unwrap();
        // Estimates are multiples of 1/128.
        assert!(((s * 128.0) - (s * 128.0).round()).abs() < 0.01, "{line}");
    }
}

#[test]
fn extreme_thresholds_work() {
    let (input, _) = corpus();
    let exact_only = neardup(&["-t", "1", "--stats"], input.as_bytes()).ok();
    assert_eq!(exact_only.stats()["dropped"], 1);
    // Near 0 every shared word counts: K bands of one row, far more candidates, still
    // verified. The filter stops at a document's first match; --pairs checks them all.
    let low = neardup(&["-t", "0.01", "-n", "1", "--stats"], input.as_bytes()).ok();
    let stats = low.stats();
    assert!(stats["dropped"].as_u64().unwrap() > 4, "{stats}");
    let checked = stats["candidates_checked"].as_u64().unwrap();
    assert!(
        checked >= stats["dropped_near"].as_u64().unwrap(),
        "{stats}"
    );
    let pairs = neardup(
        &["-t", "0.01", "-n", "1", "--pairs", "--stats"],
        input.as_bytes(),
    )
    .ok();
    let stats = pairs.stats();
    assert!(
        stats["candidates_checked"].as_u64().unwrap() > 100,
        "{stats}"
    );
}

#[test]
fn shingle_options_change_what_matches() {
    let input = "the cat sat on the mat today\nthe cat sat on a mat today\n";
    let words = neardup(&["-n", "3", "--stats"], input.as_bytes()).ok();
    assert_eq!(words.stats()["dropped"], 0);
    let chars = neardup(
        // J = 0.76; 32 bands of 4 rows find it with probability 1 − 2·10⁻⁶.
        &["--char-ngram", "3", "-t", "0.7", "--bands", "32", "--stats"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(chars.stats()["dropped"], 1);
    let bag_input = "a b a b a b a b\na b\n";
    let set = neardup(&["-n", "2", "-t", "0.5", "--stats"], bag_input.as_bytes()).ok();
    assert_eq!(
        set.stats()["dropped"],
        1,
        "as sets: {{a b, b a}} vs {{a b}}, J = 0.5"
    );
    let bag = neardup(
        &["-n", "2", "-t", "0.5", "--bag", "--stats"],
        bag_input.as_bytes(),
    )
    .ok();
    assert_eq!(
        bag.stats()["dropped"],
        0,
        "as bags 1 of 7 elements is shared"
    );
}

#[test]
fn normalisation_flags() {
    let input =
        "<p>Fish &amp; chips, with salt and vinegar!</p>\nfish & chips with salt and vinegar\n";
    let plain = neardup(&["--stats", "-n", "2"], input.as_bytes()).ok();
    assert_eq!(plain.stats()["dropped"], 0);
    let stripped = neardup(
        &["--stats", "-n", "2", "--strip-html", "--strip-punct"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(stripped.stats()["dropped_exact"], 1);
    let case = neardup(&["--stats", "--keep-case"], b"Hello World\nhello world\n").ok();
    assert_eq!(case.stats()["dropped"], 0);
}

#[test]
fn jsonl_fields_and_ids() {
    let input = concat!(
        r#"{"doc":{"body":"alpha beta gamma delta epsilon zeta eta theta"},"key":10}"#,
        "\n",
        r#"{"doc":{"body":"alpha beta gamma delta epsilon zeta eta theta"},"key":11}"#,
        "\n"
    );
    let run = neardup(
        &["--pairs", "--field", "doc.body", "--id-field", "key"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(run.out(), "10\t11\t1\n");
    // J = 3/5 here; 64 bands of 2 rows make the pair a candidate with certainty in practice.
    let as_text = neardup(
        &[
            "--pairs",
            "--input-format",
            "text",
            "-t",
            "0.5",
            "--bands",
            "64",
        ],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(
        as_text.out(),
        "1\t2\t0.6\n",
        "text mode compares the raw lines"
    );
}

#[test]
fn multiple_inputs_and_stdin() {
    let dir = crate::util::temp_path("multi");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("a.txt");
    std::fs::write(&f, "one two three four five six\nno trailing newline here").unwrap();
    let run = neardup(
        &["--only-dups", f.to_str().unwrap(), "-"],
        b"ONE two three four five six\n",
    )
    .ok();
    assert_eq!(run.out(), "ONE two three four five six\n");
    let all = neardup(&[f.to_str().unwrap(), "-"], b"x y z\n").ok();
    assert_eq!(
        all.out(),
        "one two three four five six\nno trailing newline here\nx y z\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crlf_lines_are_kept_byte_for_byte() {
    let input =
        b"alpha beta gamma delta epsilon\r\nALPHA beta gamma delta epsilon\r\nother line here\r\n";
    let run = neardup(&[], input).ok();
    assert_eq!(
        run.stdout,
        b"alpha beta gamma delta epsilon\r\nother line here\r\n"
    );
}

/// With a corpus, each banding is priced on a sample of its pairs: the candidates per
/// document it predicts are those a run verifies, within a factor of two.
#[test]
fn tune_prices_the_bandings_on_a_corpus() {
    let run = neardup(&["tune", "-t", "0.3", "--sample", "500", SAMPLE], b"").ok();
    let out = run.out();
    let line = out
        .lines()
        .find(|l| l.starts_with("corpus: 953 documents, 500 sampled"));
    let line = line.unwrap_or_else(|| panic!("{out}"));
    let predicted: f64 = line
        .split("about ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(out.contains("cand/doc\trecall (sample)"), "{out}");
    let pairs = neardup(&["--pairs", "-t", "0.3", "--stats", SAMPLE], b"").ok();
    let verified = pairs.stats()["candidates_checked"].as_f64().unwrap() / 953.0;
    assert!(
        predicted > verified / 2.0 && predicted < verified * 2.0,
        "predicted {predicted}, verified {verified} per document"
    );
}

#[test]
fn tune_prints_the_banding_and_plots_it() {
    let plot = crate::util::temp_path("tune.svg");
    let run = neardup(
        &[
            "tune",
            "-t",
            "0.8",
            "-k",
            "128",
            "--plot",
            plot.to_str().unwrap(),
        ],
        b"",
    )
    .ok();
    assert!(
        run.out()
            .starts_with("threshold 0.8, K = 128: 16 bands x 6 rows (96 of 128 values used)")
    );
    assert!(run.out().contains("recall target 0.99 reached"));
    assert!(run.out().contains("16 x 6\t96\t") && run.out().contains("<- used"));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
    let explicit = neardup(&["tune", "-t", "0.8", "--bands", "32"], b"").ok();
    assert!(
        explicit
            .out()
            .starts_with("threshold 0.8, K = 128: 32 bands x 4 rows")
    );
    assert_eq!(neardup(&["tune", "-t", "1.5"], b"").code, 2);
    let _ = std::fs::remove_file(plot);
}

#[test]
fn block_by_compares_only_within_a_block() {
    let text = Words::new(3).doc(80).join(" ");
    let near = text.replacen("w", "x", 1);
    let lines: Vec<String> = [
        (1, "1987-03-01", &text),
        (2, "1987-03-02", &text),
        (3, "1987-03-01", &near),
        (4, "1987-03-02", &near),
    ]
    .iter()
    .map(|(id, date, t)| serde_json::json!({"id": id, "date": date, "text": t}).to_string())
    .collect();
    let mut input = lines.join("\n") + "\n";
    input.push_str(&serde_json::json!({"id": 5, "text": text}).to_string());
    input.push('\n');
    let all = neardup(&["--pairs", "--id-field", "id"], input.as_bytes()).ok();
    assert_eq!(all.lines().len(), 10, "{}", all.out());
    let blocked = neardup(
        &["--pairs", "--id-field", "id", "--block-by", "date"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(blocked.lines(), ["1\t3\t0.974", "2\t4\t0.974"]);
    let dropped = neardup(
        &["--id-field", "id", "--block-by", "date"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(dropped.lines().len(), 3, "1, 2 and the undated 5 stay");
    let one = neardup(&["--block-by", "date", "-j", "1", SAMPLE], b"").ok();
    let four = neardup(&["--block-by", "date", "-j", "4", SAMPLE], b"").ok();
    assert_eq!(one.stdout, four.stdout);
    assert_eq!(neardup(&["--block-by", ""], b"").code, 2);
}

#[test]
fn text_stages_confirm_candidates() {
    // methods §5: same words, different order.
    let input = "Dog bites man\nMan bites dog\n";
    let dup = |args: &[&str]| {
        let run = neardup(
            &[&["--pairs", "-n", "1"][..], args].concat(),
            input.as_bytes(),
        )
        .ok();
        run.lines()
    };
    assert_eq!(dup(&["--verify", "cosine"]), ["1\t2\t1"]);
    assert_eq!(dup(&["--verify", "jaccard"]), ["1\t2\t1"]);
    assert!(dup(&["--verify", "cosine,edit"]).is_empty());
    assert!(dup(&["--verify", "jaccard,edit"]).is_empty());
    assert_eq!(
        dup(&["--verify", "edit", "--max-edit", "0.5"]),
        ["1\t2\t0.5385"]
    );
    assert!(dup(&["--verify", "lcs", "--min-lcs", "0.8"]).is_empty());
    // Chains on real text: each stage can only remove pairs.
    let count = |v: &str| {
        neardup(&["--pairs", "-t", "0.5", "--verify", v, SAMPLE], b"")
            .ok()
            .lines()
            .len()
    };
    let (j, je, jel) = (
        count("jaccard"),
        count("jaccard,edit"),
        count("jaccard,edit,lcs"),
    );
    assert!(j >= je && je >= jel && jel > 0, "{j} {je} {jel}");
    let one = neardup(&["--verify", "edit,cosine", "-j", "1", SAMPLE], b"").ok();
    let four = neardup(&["--verify", "edit,cosine", "-j", "4", SAMPLE], b"").ok();
    assert_eq!(one.stdout, four.stdout);
    for bad in [
        &["--verify", "none,edit"][..],
        &["--verify", "jaccard,jaccard"],
        &["--verify", "edit", "--max-edit", "2"],
    ] {
        assert_eq!(neardup(bad, b"").code, 2, "{bad:?}");
    }
}

#[test]
fn stopword_shingles_and_custom_lists() {
    let article = "the minister said that the budget would be cut by a third in the spring and \
                   that the opposition was not told of it before the vote on the bill";
    let input = format!("{article}\nHome | News | Sports | Login | Weather {article}\n");
    let words = neardup(&["--pairs", "-n", "3"], input.as_bytes()).ok();
    let spot = neardup(
        &["--pairs", "-n", "2", "--shingle", "stopword"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(
        spot.lines(),
        ["1\t2\t1"],
        "navigation text adds no spot signature"
    );
    assert_ne!(words.lines(), spot.lines());
    let list = crate::util::temp_path("stop.txt");
    std::fs::write(&list, "the\nthat\n").unwrap();
    let custom = neardup(
        &[
            "--pairs",
            "--shingle",
            "stopword",
            "--stopwords",
            list.to_str().unwrap(),
        ],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(custom.lines().len(), 1);
    // An IDF file records the list: another list is refused.
    let idf = neardup(&["idf", "--shingle", "stopword", SAMPLE], b"").ok();
    let path = crate::util::temp_path("stop.idf");
    std::fs::write(&path, &idf.stdout).unwrap();
    let refused = neardup(
        &[
            "--shingle",
            "stopword",
            "--stopwords",
            list.to_str().unwrap(),
            "--weights",
            "tfidf",
            "--idf",
            path.to_str().unwrap(),
            SAMPLE,
        ],
        b"",
    );
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    let same = neardup(
        &[
            "--shingle",
            "stopword",
            "--weights",
            "tfidf",
            "--idf",
            path.to_str().unwrap(),
            SAMPLE,
        ],
        b"",
    );
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert_eq!(
        neardup(&["--shingle", "stopword", "--char-ngram", "4"], b"").code,
        2
    );
    assert_eq!(neardup(&["--stopwords", "/nonexistent"], b"").code, 2);
    let _ = std::fs::remove_file(list);
    let _ = std::fs::remove_file(path);
}

#[test]
fn hist_samples_and_bins_every_pair() {
    let plot = crate::util::temp_path("hist.svg");
    let args = [
        "hist",
        "--sample",
        "300",
        "-n",
        "1..3",
        "--plot",
        plot.to_str().unwrap(),
        SAMPLE,
    ];
    let one = neardup(&[&args[..], &["-j", "1"]].concat(), b"").ok();
    let two = neardup(&[&args[..], &["-j", "2"]].concat(), b"").ok();
    assert_eq!(
        one.stdout, two.stdout,
        "same sample and counts on any thread count"
    );
    let out = one.out();
    assert!(
        out.starts_with("300 documents sampled of 953; 44850 pairs"),
        "{out}"
    );
    // Every column of counts sums to the number of pairs.
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip_while(|l| !l.starts_with("J from"))
        .skip(1)
        .take(21)
        .map(|l| l.split('\t').collect())
        .collect();
    for col in [2, 4, 6] {
        let total: u64 = rows.iter().map(|r| r[col].parse::<u64>().unwrap()).sum();
        assert_eq!(total, 44850, "column {col}");
    }
    assert!(out.contains("pairs per million at or above"));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 3);
    assert_eq!(
        neardup(&["-n", "1..3", SAMPLE], b"").code,
        2,
        "ranges are for hist only"
    );
    assert_eq!(neardup(&["hist", "-n", "3..1", SAMPLE], b"").code, 2);
    let _ = std::fs::remove_file(plot);
}

#[test]
fn sample_shows_pairs_per_bin_with_diffs() {
    let args = [
        "sample",
        "--jsonl",
        "--per-bin",
        "3",
        "--sample",
        "400",
        "--id-field",
        "id",
    ];
    let run = neardup(&[&args[..], &[SAMPLE]].concat(), b"").ok();
    let rows: Vec<serde_json::Value> = run
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows.len() >= 10, "{}", run.out());
    let mut per_bin = std::collections::BTreeMap::new();
    for r in &rows {
        let (lo, hi) = (r["bin"][0].as_f64().unwrap(), r["bin"][1].as_f64().unwrap());
        let s = r["similarity"].as_f64().unwrap();
        assert!(s >= lo - 1e-4 && (s < hi || hi == 1.0), "{r}");
        assert!(r["diff"].as_str().unwrap().len() > 3);
        *per_bin.entry(format!("{lo}")).or_insert(0) += 1;
    }
    assert!(per_bin.values().all(|&n| n <= 3));
    assert_eq!(
        per_bin.get("0.8"),
        Some(&3),
        "the top bin comes from LSH over all documents"
    );
    // Same output from standard input and with other thread counts.
    let stdin = neardup(
        &[&args[..], &["-j", "1"]].concat(),
        &crate::util::sample_bytes(),
    )
    .ok();
    assert_eq!(stdin.stdout, run.stdout);
    let text = neardup(&["sample", "--per-bin", "1", SAMPLE], b"").ok();
    assert!(
        text.out().starts_with("== J in [0.1, 0.2): "),
        "{}",
        text.out()
    );
    assert_eq!(
        neardup(&["sample", "--bins", "0.5,0.2", SAMPLE], b"").code,
        2
    );
}

#[test]
fn sign_writes_the_keys_that_make_every_pair_a_candidate() {
    let signed = neardup(&["sign", "-t", "0.5", SAMPLE], b"").ok();
    let mut keys: std::collections::HashMap<(String, String), Vec<u64>> = Default::default();
    for l in signed.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 3, "{l}");
        assert_eq!(f[2].len(), 16);
        keys.entry((f[1].to_string(), f[2].to_string()))
            .or_default()
            .push(f[0].parse().unwrap());
    }
    assert_eq!(signed.lines().len(), 953 * 35, "35 bands at T = 0.5");
    let mut candidates = std::collections::HashSet::new();
    for docs in keys.values() {
        for (i, &a) in docs.iter().enumerate() {
            for &b in &docs[i + 1..] {
                candidates.insert((a.min(b), a.max(b)));
            }
        }
    }
    let pairs = neardup(&["--pairs", "-t", "0.5", SAMPLE], b"").ok();
    assert!(pairs.lines().len() > 200);
    for l in pairs.lines() {
        let mut f = l.split('\t').map(|x| x.parse::<u64>().unwrap());
        let pair = (f.next().unwrap(), f.next().unwrap());
        assert!(candidates.contains(&pair), "{pair:?} shares no band key");
    }
    let four = neardup(&["sign", "-t", "0.5", "-j", "4", SAMPLE], b"").ok();
    assert_eq!(four.stdout, signed.stdout);
    let json = neardup(
        &[
            "sign",
            "--format",
            "jsonl",
            "--signature",
            "-k",
            "16",
            SAMPLE,
        ],
        b"",
    )
    .ok();
    let first: serde_json::Value = serde_json::from_str(&json.lines()[0]).unwrap();
    assert_eq!(first["signature"].as_array().unwrap().len(), 16);
    assert!(!first["bands"].as_array().unwrap().is_empty());
    // Each object names its input line, blank and bad lines counted, so that a job that
    // signs a slice of lines can put every document back in its place.
    assert_eq!(first["line"], 1);
    let gapped = neardup(
        &["sign", "--format", "jsonl", "--id-field", "id", "-q", "-"],
        b"{\"id\":\"a\",\"text\":\"one two three\"}\n\nnot json\n{\"id\":7,\"text\":\"four five\"}\n",
    )
    .ok();
    let lines: Vec<serde_json::Value> = gapped
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (&lines[0]["id"], &lines[0]["line"]),
        (&"a".into(), &1.into())
    );
    assert_eq!((&lines[1]["id"], &lines[1]["line"]), (&7.into(), &4.into()));
    assert_eq!(neardup(&["sign", "--exact", SAMPLE], b"").code, 2);
}

/// Many near-duplicates per batch, and `--helpers always`, so that the sequencer verifies
/// each batch on several threads (it does when the batch cannot evict anything; `auto` would
/// only when it falls behind the signing threads): every mode, with windows that
/// never fill, fill in the middle of the run and stay full, must give the same bytes and the
/// same saved state (recency order included) on 1 and 4 threads. Blank lines and an exact
/// copy are mixed in to cover the other kinds of lines on that path.
#[test]
fn parallel_verification_equals_one_thread() {
    let mut words = Words::new(41);
    let mut input = String::new();
    for doc in 0..900 {
        let base = words.doc(60);
        for variant in 0..3 {
            let mut w = base.clone();
            if variant > 0 {
                w[(doc * 7 + variant * 13) % 60] = words.word();
            }
            if variant == 2 {
                w.push(words.word());
            }
            input.push_str(&format!(
                "{{\"id\": \"d{doc}-{variant}\", \"text\": \"{}\"}}\n",
                w.join(" ")
            ));
        }
        if doc % 97 == 0 {
            input.push('\n');
            input.push_str(&format!(
                "{{\"id\": \"copy{doc}\", \"text\": \"{}\"}}\n",
                base.join(" ")
            ));
        }
    }
    let modes: [&[&str]; 5] = [
        &["--drop-dups"],
        &["--only-dups", "-t", "0.6"],
        &["--annotate", "-t", "0.5"],
        &["--pairs", "-t", "0.6"],
        &["--pairs", "--verify", "jaccard,edit", "-t", "0.5"],
    ];
    for mode in modes {
        for window in ["0", "2000", "5000"] {
            let mut outputs = Vec::new();
            for threads in ["1", "4"] {
                let state =
                    crate::util::temp_path(&format!("par-{}-{window}-{threads}", mode.join("")));
                crate::util::remove_state(&state);
                let args = [
                    mode,
                    &[
                        "--id-field",
                        "id",
                        "--window",
                        window,
                        "-j",
                        threads,
                        "--helpers",
                        "always",
                        "--state",
                    ],
                    &[state.to_str().unwrap()],
                ]
                .concat();
                let run = neardup(&args, input.as_bytes()).ok();
                outputs.push((run.stdout, crate::util::state_bytes(&state)));
            }
            assert!(!outputs[0].0.is_empty(), "{mode:?} --window {window}");
            assert!(
                outputs[0] == outputs[1],
                "{mode:?} --window {window}: 1 vs 4 threads differ"
            );
        }
    }
}

/// The filter's speculation (lookups made on every core before a batch is decided in order,
/// used where the batch changed nothing they read, brought up to date where it did): on
/// template families (many speculations are stale) and on unrelated documents (most hold), with windows that
/// evict, a tight candidate bound and every filter mode, 2 to 5 threads write exactly the
/// bytes one thread writes, over seeded random corpora.
#[test]
fn speculated_decisions_equal_one_thread() {
    let mut speculated = 0;
    for seed in 0..3u64 {
        let mut lines = crate::filter::template_corpus(seed, 1 + seed as usize * 2, 1500, 4);
        let mut words = Words::new(seed + 100);
        for n in 0..1500 {
            let doc = words.doc(40);
            lines.push(doc.join(" "));
            if n % 5 == 0 {
                let mut near = doc.clone();
                near[(n * 3) % 40] = words.word();
                lines.push(near.join(" "));
            }
        }
        // Interleave the two kinds, in a seeded order.
        let mut order: Vec<usize> = (0..lines.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (words.next_u64() % (i as u64 + 1)) as usize);
        }
        let input =
            crate::filter::text(&order.iter().map(|&i| lines[i].clone()).collect::<Vec<_>>());
        let flags: [&[&str]; 4] = [
            &["--drop-dups"],
            &["--drop-dups", "--window", "700"],
            &["--annotate", "-t", "0.6", "--max-candidates", "4"],
            &["--only-dups", "-t", "0.7"],
        ];
        for mode in flags {
            let one = neardup(&[mode, &["-q", "-j", "1"]].concat(), &input).ok();
            for threads in ["2", "3", "5"] {
                let args = [
                    mode,
                    &["-q", "--stats", "-j", threads, "--helpers", "always"],
                ]
                .concat();
                let many = neardup(&args, &input).ok();
                speculated += many.stats()["speculated"].as_u64().unwrap();
                assert!(
                    one.stdout == many.stdout,
                    "seed {seed} {mode:?}: 1 vs {threads} threads differ"
                );
            }
        }
    }
    assert!(speculated > 0, "the speculated path ran");
}

/// A live pipe cuts the input where the writer paused (a short read hands out the lines read
/// so far), so seeded random writes — 1 byte to 64 KiB, a millisecond apart — give the
/// sequencer batches of every size, split lines included. On random thread counts and helper
/// policies the output is the bytes of one thread reading the whole input at once.
#[test]
fn a_pipe_written_in_random_pieces_gives_one_threads_bytes() {
    use std::io::Write;
    let mut speculated = 0;
    for seed in 0..3u64 {
        let mut words = Words::new(seed + 9000);
        let mut lines = crate::filter::template_corpus(seed, 2, 1200, 4);
        for n in 0..600 {
            let doc = words.doc(40);
            lines.push(doc.join(" "));
            if n % 4 == 0 {
                lines.push(format!("{} again", doc.join(" ")));
            }
        }
        for i in (1..lines.len()).rev() {
            lines.swap(i, (words.next_u64() % (i as u64 + 1)) as usize);
        }
        let input = crate::filter::text(&lines);
        let mode: &[&str] = [&["--drop-dups"][..], &["--annotate", "-t", "0.7"]][seed as usize % 2];
        let one = neardup(&[mode, &["-q", "-j", "1"]].concat(), &input).ok();
        for _ in 0..2 {
            let threads = (2 + words.next_u64() % 7).to_string();
            let helpers = ["auto", "always"][(words.next_u64() % 2) as usize];
            let args = [
                mode,
                &["-q", "--stats", "-j", &threads, "--helpers", helpers],
            ]
            .concat();
            let mut child = crate::util::spawn_piped(crate::util::bin().args(&args));
            let mut pieces = Vec::new();
            let mut at = 0;
            while at < input.len() {
                let n = match words.next_u64() % 3 {
                    0 => 1 + words.next_u64() % 64,
                    1 => 1 + words.next_u64() % 4096,
                    _ => 1 + words.next_u64() % 65536,
                } as usize;
                pieces.push(n.min(input.len() - at));
                at += pieces[pieces.len() - 1];
            }
            // Written on a thread of its own: the output is read while the input is written.
            let mut stdin = child.stdin.take().expect("stdin");
            let writer = std::thread::spawn({
                let (input, pieces) = (input.clone(), pieces.clone());
                move || {
                    let mut at = 0;
                    for n in pieces {
                        stdin.write_all(&input[at..at + n]).unwrap();
                        stdin.flush().unwrap();
                        std::thread::sleep(std::time::Duration::from_millis(1));
                        at += n;
                    }
                }
            });
            let out = child.wait_with_output().unwrap();
            writer.join().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let stats = String::from_utf8_lossy(&out.stderr);
            let stats: serde_json::Value = serde_json::from_str(stats.trim()).unwrap();
            speculated += stats["speculated"].as_u64().unwrap();
            assert!(
                out.stdout == one.stdout,
                "seed {seed} {mode:?} -j {threads} --helpers {helpers}, written in {} pieces \
                 ({pieces:?}): not one thread's bytes",
                pieces.len()
            );
        }
    }
    assert!(speculated > 0, "the speculated path ran");
}
