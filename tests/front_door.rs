//! The front door: a user's own field names and command lines are understood or refused
//! with the fix, never a silent pass-through.

use crate::util::{SAMPLE, neardup, sample_bytes};

/// The sample with its text field renamed `body`.
fn renamed() -> Vec<u8> {
    String::from_utf8(sample_bytes())
        .unwrap()
        .replace("\"text\":", "\"body\":")
        .into_bytes()
}

#[test]
fn a_missing_text_field_stops_before_writing_and_names_the_fix() {
    for quiet in [&[][..], &["-q"][..]] {
        let run = neardup(quiet, &renamed());
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stdout.is_empty(), "nothing is written");
        assert!(run.stderr.contains("no field 'text' in"), "{}", run.stderr);
        assert!(run.stderr.contains("use --field body"), "{}", run.stderr);
    }
    // Named as it should be, the same file is read.
    let run = neardup(&["--field", "body"], &renamed()).ok();
    assert!(!run.stdout.is_empty());
    // Every command that reads documents checks the same way.
    for args in [
        &["--pairs"][..],
        &["graph"][..],
        &["clusters"][..],
        &["sign"][..],
    ] {
        let run = neardup(args, &renamed());
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("use --field body"), "{}", run.stderr);
    }
}

#[test]
fn a_few_lines_without_the_field_stay_bad_lines() {
    let mut data = sample_bytes();
    data.extend_from_slice(b"{\"id\":9999,\"body\":\"no text here\"}\n");
    let run = neardup(&[], &data).ok();
    assert!(
        run.stderr.contains("missing field 'text'"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_missing_id_field_names_the_one_there_is() {
    let run = neardup(&["--id-field", "uid"], &sample_bytes());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no field 'uid'"), "{}", run.stderr);
    assert!(run.stderr.contains("use --id-field id"), "{}", run.stderr);
}

#[test]
fn a_run_that_read_no_document_is_no_success() {
    for args in [&[][..], &["-q"][..], &["--on-bad-line", "skip"][..]] {
        let run = neardup(args, b"\n  \n\t\n");
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("none of the 3 lines read was a document"),
            "{}",
            run.stderr
        );
    }
    // Empty input is still a quiet success.
    neardup(&[], b"").ok();
}

#[test]
fn options_before_a_command_are_refused_naming_it() {
    for args in [
        &["-q", "graph", SAMPLE][..],
        &["--stats", "clusters", SAMPLE][..],
    ] {
        let run = neardup(args, b"");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("is a command"), "{}", run.stderr);
    }
}

#[test]
fn explain_with_one_id_says_an_id_is_missing() {
    let run = neardup(&["explain", "1", SAMPLE], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("an id is missing"), "{}", run.stderr);
}

/// `--pairs` and `graph --format tsv` print the same pairs with the same similarities (a
/// tie like 139/160 = 0.86875 rounds the same from both).
#[test]
fn pairs_and_the_graph_print_equal_similarities() {
    let pairs = neardup(&["--pairs", "-t", "0.5", SAMPLE], b"").ok().lines();
    let graph = neardup(&["graph", "--format", "tsv", "-t", "0.5", SAMPLE], b"")
        .ok()
        .lines();
    let edges: Vec<&String> = graph
        .iter()
        .filter(|l| l.split('\t').count() == 3 && !l.starts_with('#'))
        .collect();
    let mut a: Vec<&String> = pairs.iter().collect();
    let mut b = edges.clone();
    a.sort();
    b.sort();
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

/// `--format` is the output's format wherever there is a choice; the input's is
/// `--input-format`. An input format given to `--format` says so.
#[test]
fn format_is_the_outputs_and_input_format_the_inputs() {
    let run = neardup(&["--format", "text", SAMPLE], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--input-format text"), "{}", run.stderr);
    let run = neardup(&["--format", "jsonl", SAMPLE], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--input-format jsonl"),
        "{}",
        run.stderr
    );
    let json = neardup(&["--pairs", "--format", "jsonl", SAMPLE], b"").ok();
    let alias = neardup(&["--pairs", "--pairs-format", "jsonl", SAMPLE], b"").ok();
    assert_eq!(json.stdout, alias.stdout);
    assert!(json.lines()[0].starts_with("{\"id_a\""));
    let text = neardup(&["--input-format", "jsonl", SAMPLE], b"").ok();
    assert_eq!(text.stdout, neardup(&[SAMPLE], b"").ok().stdout);
}

#[test]
fn clusters_write_json_or_tsv() {
    let json = neardup(&["clusters", SAMPLE], b"").ok().lines();
    let tsv = neardup(&["clusters", "--format", "tsv", SAMPLE], b"")
        .ok()
        .lines();
    assert_eq!(json.len(), tsv.len());
    for (j, t) in json.iter().zip(&tsv) {
        let v: serde_json::Value = serde_json::from_str(j).unwrap();
        let expected = format!("{}\t{}\t{}", v["id"], v["cluster"], v["size"]);
        assert_eq!(t, &expected);
    }
}

/// With no `--id-field`, lines that each have an `id` are known by it (said once); `--id-field
/// none` numbers the lines; a text file is numbered by line.
#[test]
fn ids_are_the_lines_own_when_they_have_them() {
    let run = neardup(&["--annotate", SAMPLE], b"").ok();
    assert_eq!(run.stderr.matches("ids: each line's 'id' field").count(), 1);
    let ids: Vec<serde_json::Value> = run
        .lines()
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .collect();
    let own: std::collections::HashSet<String> = ids.iter().map(|v| v["id"].to_string()).collect();
    let dups: Vec<&serde_json::Value> = ids
        .iter()
        .filter(|v| !v["neardup"]["dup_of"].is_null())
        .collect();
    assert!(!dups.is_empty());
    for d in dups {
        assert!(own.contains(&d["neardup"]["dup_of"].to_string()), "{d}");
    }
    let pairs = neardup(&["--pairs", SAMPLE], b"").ok().lines();
    let numbered = neardup(&["--pairs", "--id-field", "none", SAMPLE], b"")
        .ok()
        .lines();
    assert_eq!(pairs.len(), numbered.len());
    assert_ne!(pairs, numbered);
    let explicit = neardup(&["--pairs", "--id-field", "id", SAMPLE], b"").ok();
    assert_eq!(explicit.lines(), pairs);
    assert!(!explicit.stderr.contains("ids: each line"));
    // A filter writing its lines as they are shows no ids, so it says nothing of them.
    let quiet = neardup(&["--drop-dups", SAMPLE], b"").ok();
    assert!(!quiet.stderr.contains("ids:"), "{}", quiet.stderr);
    // Lines with ids, one of which is null: numbered, and the note says why, so that line
    // numbers in the output are not read as the user's ids.
    let null = b"{\"id\":\"a\",\"text\":\"one two three four five six\"}\n\
                 {\"id\":null,\"text\":\"one two three four five six\"}\n";
    let run = neardup(&["--pairs"], null).ok();
    assert_eq!(run.lines(), ["1\t2\t1"]);
    assert!(
        run.stderr
            .contains("ids: the lines are numbered: line 2's 'id' is null, not text or an integer"),
        "{}",
        run.stderr
    );
    let field = neardup(&["--pairs", "--id-field", "id"], null).ok();
    assert!(field.lines().is_empty());
    assert!(
        field.stderr.contains("-:2: id field 'id' is null"),
        "{}",
        field.stderr
    );
}

/// What a filter flag does to the output of a run on the sample.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Effect {
    /// The output differs from the run without it.
    Changes,
    /// Exit status 2: the flag needs another, or conflicts with the mode.
    Refused,
    /// The same output, by design (the reason is in the table).
    Same(&'static str),
}

/// Every flag of the filter either changes the output of some run, or is refused, or is in
/// this table with the reason it leaves the output alone (threads, memory, diagnostics):
/// a new flag fails this test until it is given a row.
#[test]
fn every_filter_flag_changes_the_output_or_is_refused() {
    use Effect::*;
    let state = crate::util::temp_path("flags.ndstate");
    crate::util::remove_state(&state);
    let idf = crate::util::temp_path("flags.idf");
    let made = crate::util::bin()
        .args(["idf", SAMPLE])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::fs::File::create(&idf).unwrap())
        .status()
        .unwrap();
    assert!(made.success());
    let state = state.to_str().unwrap();
    let idf = idf.to_str().unwrap();
    let stopwords = crate::util::temp_path("flags.stop");
    std::fs::write(&stopwords, "the\nof\nand\na\nto\nin\nsaid\n").unwrap();
    let stopwords = stopwords.to_str().unwrap();
    let annotate: &[&str] = &["--annotate", "-t", "0.5"];
    // Few bands at a low threshold: LSH misses pairs, so what shapes it shows.
    let weak_lsh: &[&str] = &["--pairs", "-t", "0.3", "--bands", "2", "--rows", "8"];
    // (flag, the run without it, what it adds, its effect)
    let table: Vec<(&str, &[&str], Vec<&str>, Effect)> = vec![
        ("drop-dups", annotate, vec!["--drop-dups"], Refused),
        ("only-dups", &["-t", "0.5"], vec!["--only-dups"], Changes),
        ("annotate", &["-t", "0.5"], vec!["--annotate"], Changes),
        ("pairs", &["-t", "0.5"], vec!["--pairs"], Changes),
        (
            "format",
            &["--pairs", "-t", "0.5"],
            vec!["--format", "jsonl"],
            Changes,
        ),
        (
            "line-buffered",
            annotate,
            vec!["--line-buffered"],
            Same("when lines are flushed"),
        ),
        (
            "input-format",
            annotate,
            vec!["--input-format", "text"],
            Changes,
        ),
        ("against", annotate, vec!["--against", SAMPLE], Changes),
        ("against-only", annotate, vec!["--against-only"], Refused),
        (
            "replace-annotations",
            annotate,
            vec!["--replace-annotations"],
            Same("lines have no neardup_* columns"),
        ),
        (
            "state",
            annotate,
            vec!["--state", state],
            Same("a first run saves, writes the same"),
        ),
        (
            "checkpoint-every",
            annotate,
            vec!["--checkpoint-every", "100"],
            Refused,
        ),
        (
            "stats",
            annotate,
            vec!["--stats"],
            Same("a summary on stderr"),
        ),
        ("quiet", annotate, vec!["--quiet"], Same("less on stderr")),
        (
            "report",
            annotate,
            vec!["--report", "/dev/null"],
            Same("a page beside the output"),
        ),
        (
            "no-progress",
            annotate,
            vec!["--no-progress"],
            Same("progress is on stderr"),
        ),
        ("field", annotate, vec!["--field", "title"], Changes),
        ("output", annotate, vec!["-o", "/dev/null"], Changes),
        (
            "output-format",
            annotate,
            vec!["--output-format", "parquet"],
            Refused,
        ),
        (
            "compression",
            annotate,
            vec!["--compression", "lz4"],
            Refused,
        ),
        ("id-field", annotate, vec!["--id-field", "none"], Changes),
        (
            "on-bad-line",
            &["--annotate", "-"],
            vec!["--on-bad-line", "skip"],
            Changes,
        ),
        (
            "max-line-bytes",
            annotate,
            vec!["--max-line-bytes", "500"],
            Changes,
        ),
        (
            "decompress",
            annotate,
            vec!["--decompress", "gzip"],
            Changes,
        ),
        ("strip-html", annotate, vec!["--strip-html"], Changes),
        ("strip-punct", annotate, vec!["--strip-punct"], Changes),
        ("keep-case", annotate, vec!["--keep-case"], Changes),
        (
            "no-nfkc",
            annotate,
            vec!["--no-nfkc"],
            Same("the sample is ASCII"),
        ),
        (
            "words",
            annotate,
            vec!["--words", "spaces"],
            Same("the sample has no CJK"),
        ),
        ("ngram", annotate, vec!["--ngram", "3"], Changes),
        ("shingle", annotate, vec!["--shingle", "chars"], Changes),
        (
            "stopwords",
            annotate,
            vec!["--shingle", "stopword", "--stopwords", stopwords],
            Changes,
        ),
        ("char-ngram", annotate, vec!["--char-ngram", "5"], Changes),
        ("weights", annotate, vec!["--weights", "tf"], Changes),
        (
            "idf",
            annotate,
            vec!["--weights", "tfidf", "--idf", idf],
            Changes,
        ),
        (
            "idf-warmup",
            annotate,
            vec!["--weights", "tfidf", "--idf-warmup", "100"],
            Changes,
        ),
        ("block-by", annotate, vec!["--block-by", "date"], Changes),
        ("bag", annotate, vec!["--bag"], Changes),
        (
            "threshold",
            &["--annotate"],
            vec!["--threshold", "0.5"],
            Changes,
        ),
        ("verify", annotate, vec!["--verify", "cosine"], Changes),
        (
            "max-edit",
            annotate,
            vec!["--verify", "jaccard,edit", "--max-edit", "0.01"],
            Changes,
        ),
        (
            "min-cosine",
            annotate,
            vec!["--verify", "jaccard,cosine", "--min-cosine", "0.99"],
            Changes,
        ),
        (
            "min-lcs",
            annotate,
            vec!["--verify", "jaccard,lcs", "--min-lcs", "0.99"],
            Changes,
        ),
        ("exact", weak_lsh, vec!["--exact"], Changes),
        ("num-perm", weak_lsh, vec!["--num-perm", "16"], Changes),
        (
            "bands",
            annotate,
            vec!["--bands", "2", "--rows", "8"],
            Changes,
        ),
        ("rows", annotate, vec!["--rows", "3"], Refused),
        ("recall", annotate, vec!["--recall", "0.5"], Changes),
        ("seed", weak_lsh, vec!["--seed", "7"], Changes),
        ("window", annotate, vec!["--window", "5"], Changes),
        (
            "max-memory",
            annotate,
            vec!["--max-memory", "8G"],
            Same("the sample fits any budget"),
        ),
        (
            "spill-dir",
            annotate,
            vec!["--spill-dir", "none"],
            Same("where records are kept"),
        ),
        (
            "spill-cache",
            annotate,
            vec!["--spill-cache", "0"],
            Same("where records are kept"),
        ),
        (
            "max-disk",
            annotate,
            vec!["--max-disk", "1G"],
            Same("the sample fits any limit"),
        ),
        (
            "max-candidates",
            &["--annotate", "-t", "0.3"],
            vec!["--max-candidates", "1"],
            Changes,
        ),
        (
            "threads",
            annotate,
            vec!["--threads", "1"],
            Same("output never depends on threads"),
        ),
        (
            "helpers",
            annotate,
            vec!["--helpers", "always"],
            Same("output never depends on threads"),
        ),
    ];
    let flags = neardup::cmd::long_flags(None);
    for flag in &flags {
        assert!(
            table.iter().any(|(f, ..)| f == flag),
            "--{flag} has no row: does it change the output, or is it refused?"
        );
    }
    let mut wrong = Vec::new();
    for (flag, base, with, expected) in &table {
        assert!(flags.iter().any(|f| f == flag), "--{flag} is no flag");
        // A bad line on standard input before the sample (the `on-bad-line` row).
        let stdin: &[u8] = if base.contains(&"-") {
            b"not json\n"
        } else {
            b""
        };
        let row = format!("--{flag}");
        wrong.extend(misjudged(&row, base, with, &[SAMPLE], stdin, *expected));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Runs `base` on `files` and `stdin`, then with `with` added: `None` when the flag's effect
/// is the one `expected`, else what was seen.
fn misjudged(
    row: &str,
    base: &[&str],
    with: &[&str],
    files: &[&str],
    stdin: &[u8],
    expected: Effect,
) -> Option<String> {
    use Effect::*;
    let without = neardup(&[base, files].concat(), stdin);
    assert_eq!(without.code, 0, "{row}: {}", without.stderr);
    let run = neardup(&[base, with, files].concat(), stdin);
    let seen = match run.code {
        2 => Refused,
        _ if run.stdout != without.stdout => Changes,
        _ => Same(""),
    };
    let agrees = match (expected, seen) {
        (Same(_), Same(_)) => true,
        (a, b) => a == b,
    };
    (!agrees).then(|| {
        format!(
            "{row} {with:?}: expected {expected:?}, saw {seen:?} (exit {}): {}",
            run.code,
            run.stderr.lines().last().unwrap_or("")
        )
    })
}

/// The commands' own flags (the shared ones are the filter's, above): each changes the
/// command's output on the sample, or is refused, or has a row saying why not.
#[test]
fn every_command_flag_changes_the_output_or_is_refused() {
    use Effect::*;
    let edges = crate::util::temp_path("flags-edges.tsv");
    let made = crate::util::bin()
        .args(["--pairs", "-t", "0.5", "--id-field", "id", SAMPLE])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::fs::File::create(&edges).unwrap())
        .status()
        .unwrap();
    assert!(made.success());
    let edges = edges.to_str().unwrap();
    let plot = crate::util::temp_path("flags-plot.svg");
    let plot = plot.to_str().unwrap();
    let candidates = crate::util::temp_path("flags-candidates.jsonl");
    std::fs::write(
        &candidates,
        "{\"a\":1,\"b\":2,\"text_a\":\"a b c d e f g h\",\"text_b\":\"a b c d e f g x\"}\n",
    )
    .unwrap();
    let candidates = candidates.to_str().unwrap();
    let verify_pairs: &[&str] = &["verify-pairs", "-t", "0.5", candidates];
    // (command, the run without the flag, what it adds, its effect); the sample is the
    // input unless the row names one.
    let graph: &[&str] = &["graph", "-t", "0.5"];
    let clusters: &[&str] = &["clusters", "-t", "0.5"];
    let table: Vec<(&str, &[&str], Vec<&str>, Effect)> = vec![
        ("graph format", graph, vec!["--format", "tsv"], Changes),
        ("graph all-nodes", graph, vec!["--all-nodes"], Changes),
        (
            "graph node-attr",
            graph,
            vec!["--node-attr", "date"],
            Changes,
        ),
        (
            "graph snippet-chars",
            graph,
            vec!["--snippet-chars", "10"],
            Changes,
        ),
        ("graph min-edge", graph, vec!["--min-edge", "0.9"], Changes),
        (
            "graph max-cluster",
            graph,
            vec!["--max-cluster", "2"],
            Same("graph writes components and cliques; it reports larger ones on stderr"),
        ),
        ("clusters by", clusters, vec!["--by", "cliques"], Changes),
        (
            "clusters format",
            clusters,
            vec!["--format", "tsv"],
            Changes,
        ),
        (
            "clusters from-edges",
            clusters,
            vec!["--from-edges", edges],
            Changes,
        ),
        ("clusters keep", clusters, vec!["--keep", "first"], Changes),
        (
            "clusters min-edge",
            clusters,
            vec!["--min-edge", "0.9"],
            Changes,
        ),
        (
            "clusters max-cluster",
            clusters,
            vec!["--max-cluster", "2"],
            Changes,
        ),
        (
            "explain min-edge",
            &["explain", "175", "190", "-t", "0.3"],
            vec!["--min-edge", "0.9"],
            Changes,
        ),
        (
            "idf max-terms",
            &["idf"],
            vec!["--max-terms", "10"],
            Changes,
        ),
        (
            "tune sample",
            &["tune", "-t", "0.5"],
            vec!["--sample", "50"],
            Changes,
        ),
        (
            "tune plot",
            &["tune", "-t", "0.5"],
            vec!["--plot", plot],
            Same("the plot goes to its file"),
        ),
        ("hist sample", &["hist"], vec!["--sample", "50"], Changes),
        (
            "hist plot",
            &["hist"],
            vec!["--plot", plot],
            Same("the plot goes to its file"),
        ),
        (
            "sample bins",
            &["sample"],
            vec!["--bins", "0.5,0.8"],
            Changes,
        ),
        (
            "sample per-bin",
            &["sample"],
            vec!["--per-bin", "1"],
            Changes,
        ),
        (
            "sample sample",
            &["sample"],
            vec!["--sample", "50"],
            Changes,
        ),
        ("sample jsonl", &["sample"], vec!["--jsonl"], Changes),
        ("sign format", &["sign"], vec!["--format", "jsonl"], Changes),
        ("sign signature", &["sign"], vec!["--signature"], Changes),
        (
            "verify-pairs format",
            verify_pairs,
            vec!["--format", "jsonl"],
            Changes,
        ),
    ];
    let shared = neardup::cmd::long_flags(None);
    for command in [
        "graph",
        "clusters",
        "explain",
        "idf",
        "tune",
        "hist",
        "sample",
        "sign",
        "verify-pairs",
    ] {
        for flag in neardup::cmd::long_flags(Some(command)) {
            if shared.contains(&flag) || flag == "help" {
                continue;
            }
            let row = format!("{command} {flag}");
            assert!(
                table.iter().any(|(r, ..)| *r == row),
                "'neardup {command} --{flag}' has no row: does it change the output, or is it refused?"
            );
        }
    }
    let mut wrong = Vec::new();
    for (row, base, with, expected) in &table {
        let files: &[&str] = if base[0] == "verify-pairs" {
            &[]
        } else {
            &[SAMPLE]
        };
        wrong.extend(misjudged(row, base, with, files, b"", *expected));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `neardup idf` to a terminal (under `script`, where it is installed) says what to do with
/// its binary output, naming no flag the user did not give.
#[test]
fn idf_to_a_terminal_names_what_to_do() {
    let bin = env!("CARGO_BIN_EXE_neardup");
    let run = std::process::Command::new("script")
        .args(["-qec", &format!("{bin} idf {SAMPLE}"), "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    let Ok(run) = run else {
        eprintln!("skipped: no 'script' command to give neardup a terminal");
        return;
    };
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("writes a binary table"), "{said}");
    assert!(!said.contains("--idf'"), "{said}");
}
