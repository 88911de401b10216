//! The in-process filter (`neardup::pipeline::Deduper`, behind the Python module) against the
//! command line: the same documents kept, the same matches named, on any thread count.

use crate::filter::template_corpus;
use crate::util::{SAMPLE, Words, first_lines, neardup, sample_bytes, temp_path};
use neardup::input::DocId;
use neardup::pipeline::{Deduper, Outcome};
use serde_json::Value;

/// The sample's documents: (text, id).
fn documents() -> Vec<(String, Option<DocId>)> {
    let bytes = sample_bytes();
    let text = String::from_utf8(bytes).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let id = DocId::Num(v["id"].to_string().into());
            (v["text"].as_str().unwrap().to_string(), Some(id))
        })
        .collect()
}

/// A Deduper for the filter flags `args`, on `threads` threads.
fn deduper(args: &[&str], threads: usize) -> Deduper {
    let threads = threads.to_string();
    let argv = [&["neardup"][..], args, &["--threads", &threads]].concat();
    let (config, job) = neardup::cmd::parse(argv)
        .and_then(|a| a.filter_settings())
        .unwrap();
    Deduper::for_job(config, &job).unwrap()
}

/// The outcomes of `args` over the sample: one batch on `threads` threads, or one by one.
fn outcomes(args: &[&str], threads: usize, batch: bool) -> Vec<Outcome> {
    let docs = documents();
    let mut d = deduper(args, threads);
    if batch {
        d.add_many(&docs).unwrap()
    } else {
        docs.into_iter()
            .map(|(text, id)| d.add(&text, id).unwrap())
            .collect()
    }
}

/// The sample's lines the outcomes keep (`--drop-dups`).
fn kept(outcomes: &[Outcome]) -> Vec<u8> {
    let bytes = sample_bytes();
    let lines = bytes.split_inclusive(|&b| b == b'\n');
    lines
        .zip(outcomes)
        .filter(|(_, o)| !matches!(o, Outcome::Duplicate(_)))
        .flat_map(|(line, _)| line.to_vec())
        .collect()
}

#[test]
fn keeps_what_drop_dups_keeps_for_every_weighting() {
    let idf = temp_path("deduper.idf");
    std::fs::write(&idf, neardup(&["idf", SAMPLE], b"").ok().stdout).unwrap();
    let idf = idf.to_str().unwrap();
    let settings: [&[&str]; 6] = [
        &[],
        &["-t", "0.5"],
        &["--weights", "tf", "-t", "0.6"],
        &["--weights", "tfidf", "--idf", idf, "-t", "0.6"],
        &["--weights", "tfidf", "--idf-warmup", "300", "-t", "0.6"],
        &["--window", "40", "-t", "0.5"],
    ];
    for args in settings {
        let cli = neardup(
            &[&["--drop-dups", "--id-field", "id", SAMPLE], args].concat(),
            b"",
        )
        .ok();
        let batch = outcomes(args, 3, true);
        assert!(
            batch.iter().any(|o| matches!(o, Outcome::Duplicate(_))),
            "{args:?}: the sample has duplicates"
        );
        assert_eq!(kept(&batch), cli.stdout, "{args:?}");
        assert_eq!(outcomes(args, 1, true), batch, "{args:?}: one thread");
        if !args.contains(&"--idf-warmup") {
            assert_eq!(outcomes(args, 2, false), batch, "{args:?}: one by one");
        }
    }
}

#[test]
fn names_the_match_annotate_names() {
    for args in [&["--annotate", "-t", "0.5"][..], &["-t", "0.5"]] {
        let cli = neardup(
            &["--id-field", "id", "-t", "0.5", "--annotate", SAMPLE],
            b"",
        )
        .ok();
        let outcomes = outcomes(args, 2, true);
        let lines = String::from_utf8(cli.stdout).unwrap();
        let mut named = 0;
        for (line, outcome) in lines.lines().zip(&outcomes) {
            let v: Value = serde_json::from_str(line).unwrap();
            let annotation = &v["neardup"];
            match outcome {
                Outcome::Duplicate(m) => {
                    named += 1;
                    let most_similar = args.contains(&"--annotate");
                    assert_eq!(annotation["exact"], Value::Bool(m.exact), "{line}");
                    if most_similar || m.exact {
                        assert_eq!(annotation["dup_of"].to_string(), m.dup_of.to_string());
                        let s = annotation["similarity"].as_f64().unwrap();
                        assert!((s - m.similarity).abs() < 1e-3, "{s} {}", m.similarity);
                    }
                }
                _ => assert_eq!(annotation["dup_of"], Value::Null, "{line}"),
            }
        }
        assert!(named > 10, "{named} matches");
    }
}

/// The first 20 documents with words added, with ids `r0`, `r1`, …: near duplicates of
/// them, not copies, whose similarity depends on the weights.
fn edited_reference() -> Vec<(String, Option<DocId>)> {
    documents()
        .into_iter()
        .take(20)
        .enumerate()
        .map(|(i, (text, _))| {
            (
                format!("{text} in brief"),
                Some(DocId::Str(format!("r{i}").into())),
            )
        })
        .collect()
}

/// Reference texts handed over ([`Deduper::add_reference`]) are the reference a file of them
/// is: the same matches, with and without `--idf-warmup`, alone or not.
#[test]
fn reference_texts_are_a_reference_file_s_documents() {
    let reference = edited_reference();
    let file = temp_path("deduper-reference-texts.jsonl");
    let lines: String = reference
        .iter()
        .map(|(text, id)| {
            let id = id.as_ref().unwrap().to_string();
            format!("{}\n", serde_json::json!({ "id": id, "text": text }))
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    let file = file.to_str().unwrap();
    let docs = documents();
    for args in [
        &["-t", "0.5"][..],
        &["--weights", "tfidf", "--idf-warmup", "300", "-t", "0.5"],
    ] {
        let mut from_file = deduper(&[args, &["--against", file]].concat(), 2);
        let mut from_texts = deduper(args, 2);
        from_texts.add_reference(&reference).unwrap();
        let expected = from_file.add_many(&docs).unwrap();
        assert_eq!(from_texts.add_many(&docs).unwrap(), expected, "{args:?}");
        assert!(
            expected
                .iter()
                .any(|o| matches!(o, Outcome::Duplicate(m) if m.in_reference && !m.exact)),
            "{args:?}: no near duplicate of the reference"
        );
        let mut alone = deduper(&[args, &["--against", file, "--against-only"]].concat(), 2);
        let mut alone_texts = deduper(args, 2);
        alone_texts.add_reference(&reference).unwrap();
        alone_texts.compare_with_reference_only();
        assert_eq!(
            alone_texts.add_many(&docs).unwrap(),
            alone.add_many(&docs).unwrap(),
            "{args:?} against only"
        );
    }
}

/// With `--idf-warmup`, the `--against` reference is signed with the table the first batch
/// teaches, as the command line signs it (it used to be signed before the table existed,
/// without weights, and near duplicates of it were missed).
#[test]
fn an_against_reference_is_signed_with_the_learnt_idf_table() {
    let edited: String = edited_reference()
        .into_iter()
        .map(|(text, id)| {
            let line = serde_json::json!({ "id": id.unwrap().to_string(), "text": text });
            format!("{line}\n")
        })
        .collect();
    let reference = temp_path("deduper-reference.jsonl");
    std::fs::write(&reference, edited).unwrap();
    let reference = reference.to_str().unwrap();
    let args = [
        "--weights",
        "tfidf",
        "--idf-warmup",
        "300",
        "-t",
        "0.5",
        "--against",
        reference,
    ];
    let cli = neardup(
        &[&["--annotate", "--id-field", "id", SAMPLE][..], &args].concat(),
        b"",
    )
    .ok();
    let outcomes = outcomes(&[&["--annotate"][..], &args].concat(), 2, true);
    let lines = String::from_utf8(cli.stdout).unwrap();
    let mut near = 0;
    for (line, outcome) in lines.lines().zip(&outcomes) {
        let v: Value = serde_json::from_str(line).unwrap();
        let annotation = &v["neardup"];
        match outcome {
            Outcome::Duplicate(m) => {
                assert_eq!(
                    annotation["reference"],
                    Value::Bool(m.in_reference),
                    "{line}"
                );
                let s = annotation["similarity"].as_f64().unwrap();
                assert!((s - m.similarity).abs() < 1e-3, "{line}: {}", m.similarity);
                near += usize::from(m.in_reference && !m.exact);
            }
            _ => assert_eq!(annotation["dup_of"], Value::Null, "{line}"),
        }
    }
    assert!(near > 0, "no near duplicate of the reference");
}

#[test]
fn empty_documents_follow_the_bad_line_policy() {
    let docs = [
        ("a b c d e f g", None),
        ("  ", None),
        ("a b c d e f g", None),
    ];
    let mut pass = deduper(&[], 1);
    let out = pass.add_many(&docs).unwrap();
    assert_eq!(out[0], Outcome::New);
    assert!(matches!(out[1], Outcome::Bad(_)));
    match &out[2] {
        Outcome::Duplicate(m) => assert!(m.exact && m.dup_of == DocId::Line(1)),
        other => panic!("{other:?}"),
    }
    assert_eq!(pass.summary().written, 2);
    let mut skip = deduper(&["--on-bad-line", "skip"], 1);
    skip.add_many(&docs).unwrap();
    assert_eq!(skip.summary().written, 1);
    let mut fail = deduper(&["--on-bad-line", "fail"], 2);
    let e = fail.add_many(&docs).unwrap_err();
    assert_eq!(
        e.to_string(),
        "document 2: no words left after normalisation"
    );
}

/// `written` counts what the command line writes, in every mode and bad-line policy.
#[test]
fn written_counts_the_bad_lines_the_command_line_writes() {
    let docs = [
        ("a b c d e f g", None),
        ("  ", None),
        ("a b c d e f g", None),
        ("h i j k l m n", None),
    ];
    let input = b"a b c d e f g\n  \na b c d e f g\nh i j k l m n\n";
    for mode in ["--drop-dups", "--only-dups", "--annotate"] {
        for policy in ["pass", "skip"] {
            let args = [mode, "--on-bad-line", policy];
            let mut d = deduper(&args, 1);
            d.add_many(&docs).unwrap();
            let run = neardup(&[&args[..], &["--stats", "-q"]].concat(), input).ok();
            let stats: Value = serde_json::from_str(run.stderr.lines().last().unwrap()).unwrap();
            assert_eq!(stats["written"], d.summary().written, "{args:?}");
            assert_eq!(run.lines().len() as u64, d.summary().written, "{args:?}");
        }
    }
}

#[test]
fn settings_are_the_command_line_s() {
    let e = neardup::cmd::parse(["neardup", "--threshold", "2"])
        .and_then(|a| a.filter_settings())
        .unwrap_err();
    let cli = neardup(&["--threshold", "2"], b"");
    assert_eq!(cli.code, 2);
    assert!(cli.stderr.contains(&e.to_string()), "{} / {e}", cli.stderr);
    let e = neardup::cmd::parse(["neardup", "--no-such-flag"]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unexpected argument '--no-such-flag'"),
        "{e}"
    );
    let (config, job) = neardup::cmd::parse(["neardup", "--weights", "tfidf", "--idf-warmup", "5"])
        .and_then(|a| a.filter_settings())
        .unwrap();
    let mut d = Deduper::for_job(config, &job).unwrap();
    let e = d.add("a b c", None).unwrap_err();
    assert!(e.to_string().contains("add a batch first"), "{e}");
    // An empty batch learns nothing: the table still waits for documents.
    assert!(d.add_many::<&str>(&[]).unwrap().is_empty());
    assert_eq!(d.idf_pending(), Some(5));
}

#[test]
fn state_is_the_command_line_s() {
    let docs = documents();
    let (first, rest) = docs.split_at(500);
    let sample = sample_bytes();
    let lines: Vec<&[u8]> = sample.split_inclusive(|&b| b == b'\n').collect();
    let first_file = temp_path("deduper-first.jsonl");
    std::fs::write(&first_file, lines[..500].concat()).unwrap();
    let (cli_state, own_state) = (temp_path("cli.state"), temp_path("own.state"));
    let _ = std::fs::remove_file(&own_state);
    let args = ["--drop-dups", "--id-field", "id", "-t", "0.5", "--state"];
    let first_file = first_file.to_str().unwrap();
    neardup(
        &[&args[..], &[cli_state.to_str().unwrap(), first_file]].concat(),
        b"",
    )
    .ok();
    let mut d = deduper(&["-t", "0.5", "--state", own_state.to_str().unwrap()], 2);
    let mut outcomes = d.add_many(first).unwrap();
    d.save(None).unwrap();
    assert_eq!(
        crate::util::state_bytes(&own_state),
        crate::util::state_bytes(&cli_state)
    );
    // Resumed, the rest is decided as in one run.
    let mut resumed = deduper(&["-t", "0.5", "--state", own_state.to_str().unwrap()], 2);
    assert_eq!(resumed.summary().docs_read, 500);
    outcomes.extend(resumed.add_many(rest).unwrap());
    assert_eq!(outcomes, self::outcomes(&["-t", "0.5"], 2, true));
    let no_file = deduper(&["-t", "0.5"], 1).save(None).unwrap_err();
    assert!(no_file.to_string().contains("give a file"), "{no_file}");
    let (config, job) =
        neardup::cmd::parse(["neardup", "-n", "3", "--state", own_state.to_str().unwrap()])
            .and_then(|a| a.filter_settings())
            .unwrap();
    let e = Deduper::for_job(config, &job)
        .err()
        .expect("other settings");
    assert_eq!(e.exit_code(), 2, "{e}");
}

/// The one resume path: a Deduper resuming a state saved with one IDF table, given another,
/// is refused as the command line refuses it, naming the table's file.
#[test]
fn a_state_s_idf_table_is_checked_as_the_command_line_checks_it() {
    let sample = sample_bytes();
    let head = first_lines(&sample, 200);
    let (idf_a, idf_b) = (temp_path("resume-a.idf"), temp_path("resume-b.idf"));
    std::fs::write(&idf_a, neardup(&["idf"], &head).ok().stdout).unwrap();
    std::fs::write(&idf_b, neardup(&["idf"], &sample).ok().stdout).unwrap();
    let state = temp_path("resume-idf.state");
    crate::util::remove_state(&state);
    let (idf_a, idf_b, state) = (
        idf_a.to_str().unwrap(),
        idf_b.to_str().unwrap(),
        state.to_str().unwrap(),
    );
    let mut d = deduper(&["--weights", "tfidf", "--idf", idf_a, "--state", state], 1);
    d.add_many(&documents()[..100]).unwrap();
    d.save(None).unwrap();
    // The same table resumes; another is refused, by the binary and by the Deduper alike.
    let mut resumed = deduper(&["--weights", "tfidf", "--idf", idf_a, "--state", state], 1);
    assert_eq!(resumed.summary().docs_read, 100);
    resumed.add_many(&documents()[100..200]).unwrap();
    let config = neardup::cmd::parse([
        "neardup",
        "--weights",
        "tfidf",
        "--idf",
        idf_b,
        "--state",
        state,
    ])
    .and_then(|a| a.filter_settings())
    .unwrap();
    let e = Deduper::for_job(config.0, &config.1)
        .err()
        .expect("another table");
    let cli = neardup(
        &["--weights", "tfidf", "--idf", idf_b, "--state", state],
        b"a b\n",
    );
    assert_eq!((e.exit_code(), cli.code), (2, 2), "{e}");
    let said = format!("{idf_b} differs from the IDF table saved in {state}");
    assert!(e.to_string().contains(&said), "{e}");
    assert!(cli.stderr.contains(&said), "{}", cli.stderr);
}

#[test]
fn a_failed_batch_has_decided_exactly_the_documents_before_the_failure() {
    let texts: Vec<String> = (0..600)
        .map(|i| {
            format!(
                "w{} x{} y{} z{} v{} u{}",
                i % 400,
                i,
                i * 7,
                i % 13,
                i / 3,
                i
            )
        })
        .collect();
    let clean = deduper(&[], 2).add_many(&texts_of(&texts)).unwrap();
    for at in [0, 1, 3, 255, 256, 599] {
        let mut docs: Vec<(Option<&str>, Option<DocId>)> =
            texts.iter().map(|t| (Some(t.as_str()), None)).collect();
        docs[at].0 = None;
        let mut d = deduper(&["--on-bad-line", "fail"], 2);
        let e = d.add_many(&docs).unwrap_err();
        assert_eq!(e.decided, clean[..at], "failed at {at}");
        assert_eq!(
            e.to_string(),
            format!("document {}: a missing value", at + 1)
        );
        // The counts are those of the documents decided: a retry from the failed one goes
        // on where a clean run would.
        assert_eq!(d.summary().docs_read, at as u64);
        docs[at].0 = Some(&texts[at]);
        let rest = d.add_many(&docs[at..]).unwrap();
        assert_eq!([e.decided, rest].concat(), clean);
    }
}

fn texts_of(texts: &[String]) -> Vec<(&str, Option<DocId>)> {
    texts.iter().map(|t| (t.as_str(), None)).collect()
}

#[test]
fn the_per_document_figure_means_the_same_after_one_document() {
    let text = |i: usize| format!("alpha{i} beta{i} gamma{i} delta{i} epsilon{i} zeta{i} eta");
    let mut d = deduper(&[], 1);
    d.add(text(0).as_str(), None).unwrap();
    let one = d.summary().ram_bytes_per_doc;
    let many: Vec<String> = (1..20_000).map(text).collect();
    d.add_many(&texts_of(&many)).unwrap();
    let all = d.summary().ram_bytes_per_doc;
    assert!(one > 0 && one < 4096 && all > 0, "{one} {all}");
    assert!(one * 2 > all && all * 2 > one, "{one} {all}");
}

/// A batch decided on every core (`--helpers always`: each chunk's lookups made by the
/// helpers against the window before it, committed in order) has exactly the outcomes of one
/// thread, on templates and ordinary text, with a window that evicts and a tight candidate
/// bound; a failed batch stops where one thread's does.
#[test]
fn a_batch_speculated_on_every_core_decides_as_one_thread() {
    let mut texts = crate::filter::template_corpus(7, 3, 1800, 4);
    for n in 0..900 {
        let words: Vec<String> = (0..30)
            .map(|w| format!("t{}", (n * 31 + w * 7) % 5000))
            .collect();
        texts.push(words.join(" "));
        if n % 4 == 0 {
            texts.push(format!("{} extra", words.join(" ")));
        }
    }
    let docs = texts_of(&texts);
    let settings: [&[&str]; 3] = [
        &[],
        &["--annotate", "-t", "0.6", "--max-candidates", "4"],
        &["--window", "500"],
    ];
    for args in settings {
        let one = deduper(args, 1).add_many(&docs).unwrap();
        assert!(one.iter().any(|o| matches!(o, Outcome::Duplicate(_))));
        for threads in [2, 3, 5] {
            let mut d = deduper(&[args, &["--helpers", "always"]].concat(), threads);
            let many = d.add_many(&docs).unwrap();
            assert!(
                d.summary().speculated > 1000,
                "{args:?} -j {threads}: speculated"
            );
            assert!(one == many, "{args:?}: 1 vs {threads} threads differ");
        }
        // Two threads under `auto`: no helper thread; the signing thread takes a share of
        // the lookups whenever the chunks are signed ahead (timing decides how many).
        let two = deduper(args, 2).add_many(&docs).unwrap();
        assert!(one == two, "{args:?}: 1 vs 2 threads (auto) differ");
    }
    // The smallest batches: too few to start helpers (4), and a piece's least (20).
    for n in [1, 4, 20] {
        let small = &docs[1800..1800 + n];
        let one = deduper(&[], 1).add_many(small).unwrap();
        assert!(
            one == deduper(&["--helpers", "always"], 3)
                .add_many(small)
                .unwrap(),
            "{n}"
        );
    }
    let one = deduper(&[], 1).add_many(&docs).unwrap();
    for at in [20, 1000, 2500] {
        let mut failing: Vec<(Option<&str>, Option<DocId>)> =
            texts.iter().map(|t| (Some(t.as_str()), None)).collect();
        failing[at].0 = None;
        let mut d = deduper(&["--on-bad-line", "fail", "--helpers", "always"], 3);
        let e = d.add_many(&failing).unwrap_err();
        assert_eq!(e.decided, one[..at]);
        assert_eq!(d.summary().docs_read, at as u64);
        let rest = d.add_many(&docs[at..]).unwrap();
        assert!([e.decided, rest].concat() == one, "retried at {at}");
    }
}

/// A program that says how many documents it hands over (as the Python module's `dedup`
/// does) gets its window sized for them once the first are decided, and the same outcomes.
#[test]
fn documents_said_ahead_size_the_window_and_change_no_outcome() {
    let docs = documents();
    let (mut told, mut grown) = (deduper(&[], 2), deduper(&[], 2));
    told.expect_documents(docs.len() as u64);
    let (first, rest) = docs.split_at(300);
    let mut outcomes = [
        told.add_many(first).unwrap(),
        grown.add_many(first).unwrap(),
    ];
    // After 300 of the 953 documents the told window's tables are sized for all of them.
    assert!(
        told.summary().window_ram_bytes > grown.summary().window_ram_bytes,
        "{} against {}",
        told.summary().window_ram_bytes,
        grown.summary().window_ram_bytes
    );
    outcomes[0].extend(told.add_many(rest).unwrap());
    outcomes[1].extend(grown.add_many(rest).unwrap());
    assert_eq!(kept(&outcomes[0]), kept(&outcomes[1]));
    assert_eq!(
        format!("{:?}", outcomes[0]),
        format!("{:?}", outcomes[1]),
        "the same matches and similarities"
    );
    assert_eq!(told.summary().written, grown.summary().written);
}

/// Seeded random trials over what may change how a run is cut but never what it decides:
/// the corpus (template families, which make many speculations stale, and unrelated texts
/// with near copies, interleaved in a seeded order), the flags (threshold, candidate bound,
/// a window that evicts, the helper policy), the thread count (1 to 8) and the cut into
/// batches (single documents through `add`, and `add_many` batches of 1 to 3,000). Every
/// trial's outcomes are those of one thread given the whole corpus as one batch.
#[test]
fn random_batches_and_thread_counts_decide_as_one_thread() {
    let flags: [&[&str]; 4] = [
        &[],
        &["-t", "0.6", "--max-candidates", "4"],
        &["--window", "300"],
        &["--annotate", "-t", "0.7"],
    ];
    let mut speculated = 0;
    for seed in 0..8u64 {
        let mut w = Words::new(seed + 7000);
        let mut texts = template_corpus(seed, 1 + seed as usize % 4, 900, 4);
        for n in 0..700 {
            let doc = w.doc(40);
            texts.push(doc.join(" "));
            if n % 4 == 0 {
                let mut near = doc;
                near[n % 40] = w.word();
                texts.push(near.join(" "));
            }
        }
        for i in (1..texts.len()).rev() {
            texts.swap(i, (w.next_u64() % (i as u64 + 1)) as usize);
        }
        let docs = texts_of(&texts);
        let args = flags[seed as usize % flags.len()];
        let one = deduper(args, 1).add_many(&docs).unwrap();
        assert!(one.iter().any(|o| matches!(o, Outcome::Duplicate(_))));
        for trial in 0..3 {
            let threads = 1 + (w.next_u64() % 8) as usize;
            let helpers = ["auto", "always", "never"][(w.next_u64() % 3) as usize];
            let mut d = deduper(&[args, &["--helpers", helpers]].concat(), threads);
            let (mut got, mut cuts) = (Vec::new(), Vec::new());
            while got.len() < docs.len() {
                let left = docs.len() - got.len();
                let n = match w.next_u64() % 4 {
                    0 => 1,
                    1 => 1 + (w.next_u64() % 20) as usize,
                    2 => 1 + (w.next_u64() % 500) as usize,
                    _ => 1 + (w.next_u64() % 3000) as usize,
                }
                .min(left);
                let batch = &docs[got.len()..got.len() + n];
                match n == 1 && w.next_u64().is_multiple_of(2) {
                    true => got.push(d.add(batch[0].0, None).unwrap()),
                    false => got.extend(d.add_many(batch).unwrap()),
                }
                cuts.push(n);
            }
            speculated += d.summary().speculated;
            assert!(
                got == one,
                "seed {seed} trial {trial}, {args:?}, -j {threads} --helpers {helpers}, batches {cuts:?}: \
                 not one thread's outcomes"
            );
        }
    }
    assert!(speculated > 0, "some trial speculated");
}
