//! `--report FILE` and `neardup report`: the page says what `--stats` says, shows documents
//! as text, leaves the filtered output as it was, and does not depend on the thread count.

use crate::util::{SAMPLE, neardup};

/// A directory of this test's own, removed at its end.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = crate::util::temp_path(&format!("report-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `data-stat` figures of a page.
fn figures(page: &str) -> Vec<(String, String)> {
    // A figure in bytes is shown in binary units, its exact value in `data-value`.
    page.split("data-stat=\"")
        .skip(1)
        .map(|rest| {
            let (key, rest) = rest.split_once('"').expect("a figure");
            let value = match rest.strip_prefix(" data-value=\"") {
                Some(exact) => exact.split_once('"').expect("its end").0,
                None => rest[1..].split_once('<').expect("its end").0,
            };
            (key.to_string(), value.to_string())
        })
        .collect()
}

/// A page without the figures that depend on the machine's speed.
fn without_timings(page: &str) -> String {
    let mut page = page.to_string();
    for key in ["seconds", "docs_per_sec", "mb_per_sec", "peak_rss_bytes"] {
        let start = format!("data-stat=\"{key}\"");
        if let Some(at) = page.find(&start) {
            let from = at + start.len();
            let to = from + page[from..].find('<').expect("its end");
            page.replace_range(from..to, "…");
        }
    }
    page
}

#[test]
fn the_report_says_what_stats_says_and_leaves_the_output_alone() {
    let dir = Scratch::new("stats");
    let path = dir.path().join("r.html");
    let with = neardup(
        &["--stats", "--report", path.to_str().unwrap(), SAMPLE],
        b"",
    )
    .ok();
    let without = neardup(&[SAMPLE], b"").ok();
    assert_eq!(with.stdout, without.stdout);
    let page = std::fs::read_to_string(&path).unwrap();
    let stats = with.stats();
    let shown = figures(&page);
    assert!(shown.len() >= 10, "{shown:?}");
    for (key, value) in &shown {
        assert_eq!(stats[key].to_string(), *value, "{key}");
    }
    assert_eq!(page.matches("<svg").count(), 4);
    assert!(page.contains("id=\"borderline\"") && page.contains("<del>"));
    // Nothing left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_document_s_markup_is_shown_as_text() {
    let dir = Scratch::new("markup");
    let path = dir.path().join("r.html");
    let doc =
        "<script>alert(1)</script> the quarterly results were better than the analysts expected";
    let input = format!("{doc}\n{doc} today\n");
    neardup(
        &["-t", "0.5", "--report", path.to_str().unwrap()],
        input.as_bytes(),
    )
    .ok();
    let page = std::fs::read_to_string(&path).unwrap();
    assert!(!page.contains("<script"), "a script tag in the page");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

/// Two long texts the same for their first 8 KiB: the pair shows where they differ (the
/// dropped one's first words the kept one lacks).
#[test]
fn a_pair_alike_past_what_the_page_holds_shows_where_it_differs() {
    let dir = Scratch::new("long");
    let words: Vec<String> = (0..3000).map(|i| format!("Word{i}")).collect();
    let mut changed = words.clone();
    changed[2900] = "Different".into();
    let input = format!("{}\n{}\n", words.join(" "), changed.join(" "));
    let path = dir.path().join("r.html");
    neardup(&["--report", path.to_str().unwrap()], input.as_bytes()).ok();
    let page = std::fs::read_to_string(&path).unwrap();
    // The first shingle of five words the kept text lacks starts at word 2,897.
    let shown = "from word 2897, normalised: … word2884";
    assert!(page.contains(shown), "{page}");
    assert!(page.contains("<ins>word2896 word2897 word2898 word2899 different</ins> word2901"));
    assert!(!page.contains("further on"));
}

#[test]
fn the_page_does_not_depend_on_the_thread_count() {
    let dir = Scratch::new("threads");
    for command in ["--drop-dups", "clusters", "graph"] {
        let page = |threads: &str| {
            let path = dir.path().join(format!("r{threads}.html"));
            let path = path.to_str().unwrap();
            neardup(&[command, "-j", threads, "--report", path, SAMPLE], b"").ok();
            without_timings(&std::fs::read_to_string(path).unwrap())
        };
        assert_eq!(page("1"), page("3"), "{command}");
    }
}

#[test]
fn the_report_command_prints_the_page_of_drop_dups() {
    let dir = Scratch::new("command");
    let path = dir.path().join("r.html");
    neardup(&["--report", path.to_str().unwrap(), SAMPLE], b"").ok();
    let printed = neardup(&["report", SAMPLE], b"").ok();
    assert_eq!(
        without_timings(&printed.out()),
        without_timings(&std::fs::read_to_string(&path).unwrap())
    );
}

#[test]
fn the_report_command_of_a_table_prints_the_page_alone() {
    // A Parquet input's kept rows are a table, which the filter writes to standard output:
    // `report` prints the page there instead, and nothing else.
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let (ids, texts) = crate::util::sample_rows();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("text", Arc::new(StringArray::from(texts)) as ArrayRef),
    ])
    .unwrap();
    let dir = Scratch::new("table");
    let input = dir.path().join("sample.parquet");
    let file = std::fs::File::create(&input).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let printed = neardup(&["report", input.to_str().unwrap()], b"").ok();
    let page = printed.out();
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "{}",
        &page[..page.len().min(80)]
    );
    assert!(!page.contains("PAR1"), "a Parquet table beside the page");
    assert!(
        page.trim_end().ends_with("</html>"),
        "the page ends the output"
    );
}

#[test]
fn a_report_where_it_cannot_be_written_or_does_not_apply() {
    let run = neardup(&["--report", "/nonexistent-dir/r.html", SAMPLE], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("writing the report /nonexistent-dir/r.html"),
        "{}",
        run.stderr
    );
    let run = neardup(&["--pairs", "--report", "r.html", SAMPLE], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--report"), "{}", run.stderr);
}

#[test]
fn a_device_or_a_pipe_is_written_to_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    neardup(&["--report", "/dev/null", SAMPLE], b"").ok();
    let kind = std::fs::metadata("/dev/null").unwrap().file_type();
    assert!(kind.is_char_device(), "/dev/null was replaced");
    let dir = Scratch::new("fifo");
    let fifo = dir.path().join("page");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    neardup(&["--report", fifo.to_str().unwrap(), SAMPLE], b"").ok();
    let page = reader.join().unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_report_of_a_run_against_a_reference() {
    let dir = Scratch::new("against");
    let reference = dir.path().join("ref.jsonl");
    let lines: Vec<&str> = include_str!("data/reuters-sample.jsonl").lines().collect();
    std::fs::write(&reference, lines[..300].join("\n") + "\n").unwrap();
    let path = dir.path().join("r.html");
    let run = neardup(
        &[
            "--stats",
            "--against",
            reference.to_str().unwrap(),
            "--report",
            path.to_str().unwrap(),
            SAMPLE,
        ],
        b"",
    )
    .ok();
    let page = std::fs::read_to_string(&path).unwrap();
    let stats = run.stats();
    assert!(stats["dropped_reference"].as_u64().unwrap() >= 300);
    for (key, value) in figures(&page) {
        assert_eq!(stats[&key].to_string(), value, "{key}");
    }
    assert!(page.contains("reference document"));
    let count = format!("data-chart=\"dropped\" data-count=\"{}\"", stats["dropped"]);
    assert!(page.contains(&count), "{count}");
}

#[test]
fn graph_commands_report_their_pairs_and_groups() {
    let dir = Scratch::new("graphs");
    for (command, flags) in [
        ("clusters", &[][..]),
        ("clusters", &["--keep", "longest"][..]),
        ("clusters", &["--by", "cliques"][..]),
        ("graph", &[][..]),
    ] {
        let path = dir.path().join(format!("{command}.html"));
        let mut args = vec![command, "--stats", "--report", path.to_str().unwrap()];
        args.extend_from_slice(flags);
        args.push(SAMPLE);
        let run = neardup(&args, b"").ok();
        let page = std::fs::read_to_string(&path).unwrap();
        let stats = run.stats();
        let shown = figures(&page);
        assert!(shown.len() >= 6, "{command} {flags:?}: {shown:?}");
        for (key, value) in shown {
            let stat = key.split('.').fold(&stats, |v, part| &v[part]);
            assert_eq!(stat.to_string(), value, "{command} {flags:?}: {key}");
        }
        assert_eq!(page.matches("<svg").count(), 3, "{command} {flags:?}");
        assert!(page.contains("Borderline pairs") && page.contains("<del>"));
        let first = if flags.contains(&"--keep") {
            "· kept"
        } else {
            "· first"
        };
        assert!(page.contains(first), "{command} {flags:?}");
    }
    let run = neardup(
        &["clusters", "--from-edges", SAMPLE, "--report", "r.html"],
        b"",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}
