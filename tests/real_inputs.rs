//! Input defects found by trying real inputs as a new user would (issue 21), each pinned.

use crate::util::{bin, neardup, temp_path};

#[test]
fn a_byte_order_mark_is_no_part_of_the_first_document() {
    // Text: the marked line is a copy of the plain one.
    let text = "\u{feff}breaking news about the markets today in the city\n\
                breaking news about the markets today in the city\n";
    let run = neardup(&["--input-format", "text", "--stats"], text.as_bytes()).ok();
    assert_eq!(run.stats()["dropped_exact"], 1);
    // JSON Lines: line 1 is a document, and auto-detection sees JSON.
    let jsonl = "\u{feff}{\"text\":\"a b c d e f\"}\n{\"text\":\"g h i j k l\"}\n";
    for format in ["jsonl", "auto"] {
        let run = neardup(&["--input-format", format, "--stats"], jsonl.as_bytes()).ok();
        assert_eq!(run.stats()["bad_lines"], 0, "{format}");
        assert_eq!(run.lines()[0], "{\"text\":\"a b c d e f\"}", "{format}");
    }
}

#[test]
fn too_many_threads_is_a_usage_error() {
    let run = neardup(&["--threads", "20000"], b"a b c\n");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--threads"), "{}", run.stderr);
}

#[test]
fn an_unwritable_state_fails_before_any_input_is_read() {
    let run = neardup(
        &["--state", "/nonexistent/dir/s.ndstate"],
        b"a b c d e f\ng h i j k l\n",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "nothing is written");
    assert!(run.stderr.contains("/nonexistent/dir"), "{}", run.stderr);
}

#[test]
fn help_and_version_into_a_full_device_fail() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system
    };
    for flag in ["--help", "--version", "-h"] {
        let status = bin()
            .arg(flag)
            .stdout(full.try_clone().unwrap())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1), "{flag}");
    }
    let ok = bin().arg("--version").output().unwrap();
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).starts_with("neardup "));
}

#[test]
fn a_nul_in_an_id_is_escaped_in_tsv_and_read_back() {
    let text = "{\"id\":\"a\\u0000b\",\"text\":\"one two three four five six\"}\n\
                {\"id\":\"c\",\"text\":\"one two three four five six\"}\n";
    let pairs = neardup(&["--pairs", "--id-field", "id"], text.as_bytes()).ok();
    assert_eq!(pairs.out(), "a\\0b\tc\t1\n");
    let edges = temp_path("nul-edges.tsv");
    std::fs::write(&edges, &pairs.stdout).unwrap();
    let clusters = neardup(&["clusters", "--from-edges", edges.to_str().unwrap()], b"").ok();
    assert!(
        clusters.out().starts_with("{\"id\":\"a\\u0000b\""),
        "{}",
        clusters.out()
    );
}

#[test]
fn help_names_every_exit_status() {
    let help = neardup(&["--help"], b"").ok().out();
    for status in [
        "0 on success",
        "1 on a runtime error",
        "2 on a usage error",
        "130 or 143",
    ] {
        assert!(help.contains(status), "--help lacks {status}");
    }
}

#[test]
fn numeric_ids_are_echoed_as_written() {
    // Beyond u64 and beyond f64: two ids stay two, and 1e400 is an id, not a bad line;
    // every number keeps the form it was written in, at the top level or nested.
    let text = "{\"id\":18446744073709551617,\"text\":\"one two three four five six\"}\n\
                {\"id\":12345678901234567890123,\"text\":\"one two three four five six\"}\n\
                {\"id\":1e400,\"text\":\"one two three four five six\"}\n\
                {\"id\":1.50E-3,\"text\":\"one two three four five six\"}\n";
    let pairs = neardup(&["--pairs", "--id-field", "id", "--stats"], text.as_bytes()).ok();
    assert_eq!(
        pairs.lines(),
        vec![
            "18446744073709551617\t12345678901234567890123\t1",
            "18446744073709551617\t1e400\t1",
            "12345678901234567890123\t1e400\t1",
            "18446744073709551617\t1.50E-3\t1",
            "12345678901234567890123\t1.50E-3\t1",
            "1e400\t1.50E-3\t1",
        ]
    );
    let nested = text
        .replace("{\"id\":", "{\"meta\":{\"id\":")
        .replace(",\"text", "},\"text");
    let nested = neardup(&["--pairs", "--id-field", "meta.id"], nested.as_bytes()).ok();
    assert_eq!(nested.lines(), pairs.lines());
    assert_eq!(pairs.stats()["bad_lines"], 0);
    let annotated = neardup(&["--annotate", "--id-field", "id"], text.as_bytes()).ok();
    assert!(
        annotated.lines()[1].ends_with(
            "\"neardup\":{\"dup_of\":18446744073709551617,\"similarity\":1,\"exact\":true}}"
        ),
        "{}",
        annotated.lines()[1]
    );
}
