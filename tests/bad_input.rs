//! Bad lines: a clear message with the line number, a documented policy, nothing lost.

use crate::util::neardup;

const GOOD: &str = r#"{"text":"alpha beta gamma delta epsilon zeta"}"#;

/// One bad line of each kind, between good lines.
fn mixed() -> (Vec<u8>, Vec<(usize, &'static str)>) {
    let bad: Vec<(&[u8], &str)> = vec![
        (b"{not json", "invalid JSON"),
        (br#"{"title":"no text"}"#, "missing field 'text'"),
        (br#"{"text":42}"#, "field 'text' is not a string"),
        (b"{\"text\":\"caf\xe9\"}", "invalid UTF-8"),
        (b"", "empty line"),
        (b"   ", "empty line"),
        (br#"{"text":"  ...  "}"#, "no words left"),
        (br#"["text"]"#, "not an object"),
    ];
    let mut input = Vec::new();
    let mut expected = Vec::new();
    let mut line = 0;
    for (i, (bytes, message)) in bad.iter().enumerate() {
        input
            .extend_from_slice(format!(r#"{{"text":"good document number {i} here"}}"#).as_bytes());
        input.push(b'\n');
        line += 1;
        input.extend_from_slice(bytes);
        input.push(b'\n');
        line += 1;
        expected.push((line, *message));
    }
    (input, expected)
}

#[test]
fn pass_writes_bad_lines_through_and_reports_them() {
    let (input, expected) = mixed();
    let run = neardup(
        &["--input-format", "jsonl", "--strip-punct", "--stats"],
        &input,
    )
    .ok();
    assert_eq!(run.stdout, input, "every line is written through unchanged");
    for (line, message) in &expected {
        let want = format!("neardup: -:{line}: ");
        let found = run
            .stderr
            .lines()
            .any(|l| l.starts_with(&want) && l.contains(message) && l.contains("passed through"));
        assert!(
            found,
            "no report for line {line} ({message}) in:\n{}",
            run.stderr
        );
    }
    let stats = run.stats();
    assert_eq!(stats["bad_lines"], expected.len());
    assert_eq!(stats["written"], 2 * expected.len());
}

#[test]
fn a_bad_line_is_said_passed_through_only_where_it_is_written() {
    let (input, expected) = mixed();
    for (args, written) in [
        (&["--input-format", "jsonl", "--annotate"][..], true),
        (&["--input-format", "jsonl", "--only-dups"][..], false),
        (&["--input-format", "jsonl", "--pairs"][..], false),
        (
            &["graph", "--format", "tsv", "--input-format", "jsonl"][..],
            false,
        ),
    ] {
        let run = neardup(args, &input).ok();
        let (line, _) = expected[0];
        let report = run
            .stderr
            .lines()
            .find(|l| l.starts_with(&format!("neardup: -:{line}: ")))
            .unwrap_or_else(|| panic!("{args:?}: no report in {}", run.stderr));
        let said = if written {
            "(passed through)"
        } else {
            "(skipped)"
        };
        assert!(report.ends_with(said), "{args:?}: {report}");
    }
}

#[test]
fn skip_leaves_bad_lines_out() {
    let (input, expected) = mixed();
    let run = neardup(
        &[
            "--input-format",
            "jsonl",
            "--strip-punct",
            "--on-bad-line",
            "skip",
        ],
        &input,
    )
    .ok();
    assert_eq!(run.lines().len(), expected.len());
    assert!(run.lines().iter().all(|l| l.contains("good document")));
    assert!(run.stderr.contains("skipped"));
}

#[test]
fn fail_stops_with_exit_1_and_the_line_number() {
    let (input, _) = mixed();
    let run = neardup(
        &["--input-format", "jsonl", "--on-bad-line", "fail"],
        &input,
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr.trim(),
        "neardup: -:2: invalid JSON: key must be a string at line 1 column 2"
    );
    assert_eq!(run.out(), "{\"text\":\"good document number 0 here\"}\n");
}

#[test]
fn bad_lines_are_never_duplicates() {
    // (With one document: a run whose lines are all bad exits 1, `front_door.rs`.)
    let input = b"{broken\n{broken\n\n\n{\"text\": \"one real document\"}\n";
    let run = neardup(&["--input-format", "jsonl", "--stats", "-q"], input).ok();
    assert_eq!(run.stdout, input);
    assert_eq!(run.stats()["dropped"], 0);
    assert!(!run.stderr.contains("broken"), "--quiet hides the reports");
}

#[test]
fn only_the_first_reports_are_printed_then_a_count() {
    let input = "\n".repeat(25) + "one real document\n";
    let run = neardup(&["--input-format", "text"], input.as_bytes()).ok();
    let reports = run
        .stderr
        .lines()
        .filter(|l| l.contains("empty line"))
        .count();
    assert_eq!(reports, 10);
    assert!(
        run.stderr.contains("25 bad lines in all (15 not shown"),
        "{}",
        run.stderr
    );
}

#[test]
fn huge_lines_pass_through_intact() {
    let mut input = Vec::new();
    input.extend_from_slice(GOOD.as_bytes());
    input.push(b'\n');
    let huge = format!(r#"{{"text":"{}"}}"#, "word ".repeat(2_000_000));
    input.extend_from_slice(huge.as_bytes());
    input.push(b'\n');
    input.extend_from_slice(GOOD.as_bytes());
    input.push(b'\n');
    let limited = neardup(&["--max-line-bytes", "1000000", "--stats"], &input).ok();
    assert_eq!(limited.stdout, {
        let mut v = input.clone();
        v.truncate(v.len() - GOOD.len() - 1);
        v
    });
    assert!(limited.stderr.contains("-:2: line of at least "));
    assert!(
        limited
            .stderr
            .contains("bytes is longer than --max-line-bytes (passed through)")
    );
    assert_eq!(limited.stats()["dropped"], 1);
    // Under the default limit the huge line is an ordinary document.
    let normal = neardup(&["--stats"], &input).ok();
    assert_eq!(normal.stats()["bad_lines"], 0);
}

/// Kept lines wait for their batch's end and are copied on the writer thread: between
/// them, over-long lines passed through in pieces, bad lines, duplicates dropped, batches
/// cut at a long line and a last line without a line feed still come out as one thread
/// writes them.
#[test]
fn kept_lines_and_pieces_come_out_in_one_threads_order() {
    let mut input = Vec::new();
    for i in 0..3000 {
        let line = match i % 250 {
            7 => format!("{{\"text\":\"{}\"}}", "long words ".repeat(400 + i)),
            11 => "{not json".to_string(),
            _ if i % 3 == 0 => format!("{{\"text\":\"the same words again in line {}\"}}", i % 9),
            _ => format!("{{\"text\":\"document {i} with its own words {}\"}}", i * 7),
        };
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    input.extend_from_slice(br#"{"text":"a last line without its line feed"}"#);
    // Annotated lines are made here: a bad line passed through waits, the next one not.
    for (policy, mode) in [
        ("pass", "--drop-dups"),
        ("skip", "--drop-dups"),
        ("pass", "--annotate"),
    ] {
        let args = |j: &'static str| {
            vec![
                "--max-line-bytes",
                "2000",
                "--on-bad-line",
                policy,
                mode,
                "-q",
                "-j",
                j,
            ]
        };
        let one = neardup(&args("1"), &input).ok().stdout;
        assert!(one.ends_with(b"}\n"), "the last line gets its line feed");
        for j in ["2", "4"] {
            let many = neardup(&args(j), &input).ok().stdout;
            assert!(
                one == many,
                "-j {j}, {policy} {mode}: not one thread's bytes"
            );
        }
    }
}

#[test]
fn invalid_utf8_in_text_mode() {
    let run = neardup(&["--input-format", "text"], b"ok line\n\xff\xfe bytes\n").ok();
    assert_eq!(run.stdout, b"ok line\n\xff\xfe bytes\n");
    assert!(run.stderr.contains("-:2: invalid UTF-8"));
}

/// Runs neardup under an address-space limit of `kib` KiB, streaming `bytes` bytes of 'x'
/// (no line end) then "\ngood line\n" into it; returns the exit code, the bytes written and
/// stderr.
fn long_line_under_limit(kib: u64, args: &str, bytes: usize) -> (i32, usize, String) {
    use std::io::{Read, Write};
    let script = format!("ulimit -v {kib}; exec \"$0\" {args}");
    let mut child = crate::util::spawn_piped(
        std::process::Command::new("sh")
            .args(["-c", &script])
            .arg(env!("CARGO_BIN_EXE_neardup")),
    );
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let block = vec![b'x'; 1 << 20];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(block.len());
            if stdin.write_all(&block[..n]).is_err() {
                return;
            }
            left -= n;
        }
        let _ = stdin.write_all(b"\nthe good line after the long one\n");
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut written = 0;
    let mut buf = vec![0; 1 << 20];
    loop {
        match stdout.read(&mut buf).unwrap() {
            0 => break,
            n => written += n,
        }
    }
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    (status.code().unwrap_or(-1), written, stderr)
}

#[test]
fn over_long_lines_are_streamed_in_bounded_memory() {
    // 200 MB in one line under a 250 MB address space: holding the line (as earlier versions
    // did, twice over) cannot fit; pieces of the 1,000-byte limit do.
    let huge = 200_000_000;
    let good = "the good line after the long one\n".len();
    let limit = "--max-line-bytes 1000 -j 2 --on-bad-line";
    let (code, written, stderr) = long_line_under_limit(250_000, &format!("{limit} pass"), huge);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(written, huge + 1 + good, "every byte passed through");
    assert!(stderr.contains("-:1: line of at least"), "{stderr}");
    assert!(stderr.contains("(passed through)"), "{stderr}");
    let (code, written, stderr) = long_line_under_limit(250_000, &format!("{limit} skip"), huge);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(written, good, "only the good line");
    let (code, written, stderr) = long_line_under_limit(250_000, &format!("{limit} fail"), huge);
    assert_eq!((code, written), (1, 0), "{stderr}");
}

/// Precise reasons: a null text or id field is null, not missing; empty ids in an edge list
/// are empty ids, not an empty line; a short foreign file is not a state file.
#[test]
fn reasons_name_what_is_wrong() {
    let run = neardup(
        &["--id-field", "id"],
        b"{\"text\": null, \"id\": 1}\n{\"text\": \"a b c\", \"id\": null}\n{\"text\": \"d e f\", \"id\": 3}\n",
    )
    .ok();
    assert!(
        run.stderr.contains(":1: field 'text' is null"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(":2: id field 'id' is null"),
        "{}",
        run.stderr
    );
    let run = neardup(&["clusters", "--from-edges", "-"], b"a\tb\n\t\t\n");
    assert!(
        run.stderr.contains(":2: field 1 (an id) is empty"),
        "{}",
        run.stderr
    );
    let dir = crate::util::temp_path("reasons");
    std::fs::create_dir_all(&dir).unwrap();
    let foreign = dir.join("foreign.state");
    std::fs::write(&foreign, b"hello").unwrap();
    let run = neardup(&["--state", foreign.to_str().unwrap()], b"a b c\n");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not a neardup state file"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("too short"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An over-long line with a slow reader downstream: the batches in flight hold about one
/// limit's worth of it (the first piece), not one limit each.
#[test]
// The child is waited for with wait4, which also gives its peak RSS.
#[allow(clippy::zombie_processes)]
fn an_over_long_line_costs_about_twice_the_limit_with_a_slow_reader() {
    use std::io::{Read, Write};
    let limit: usize = 16 << 20;
    let mut child = crate::util::bin()
        .args(["--max-line-bytes", &limit.to_string(), "-j", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let block = vec![b'a'; 1 << 20];
        for _ in 0..200 {
            if stdin.write_all(&block).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\n");
    });
    let mut stdout = child.stdout.take().unwrap();
    // The reader is slow: the pipeline fills up behind it.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut out = Vec::new();
    stdout.read_to_end(&mut out).unwrap();
    feeder.join().unwrap();
    let pid = child.id() as libc::pid_t;
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: waits for our own child, whose status and usage go to the locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert_eq!(
        out.len(),
        200 * (1 << 20) + 1,
        "the line goes through whole"
    );
    let peak = usage.ru_maxrss as usize * 1024;
    assert!(
        peak < 3 * limit + (48 << 20),
        "peak RSS {} MiB for a {} MiB limit",
        peak >> 20,
        limit >> 20
    );
}

/// Two documents with one id: the graph commands warn once, with the two lines.
#[test]
fn repeated_ids_are_warned_of_in_graph_commands() {
    let input = b"{\"id\":7,\"text\":\"a b c d e f\"}\n{\"id\":7,\"text\":\"a b c d e f\"}\n\
                  {\"id\":8,\"text\":\"x y z\"}\n{\"id\":8,\"text\":\"x y z w\"}\n";
    // --pairs warns of a pair whose two ids are one (the `7 7 1` line).
    for command in [
        &["graph", "--format", "tsv"][..],
        &["clusters"],
        &["--pairs"],
    ] {
        let run = neardup(&[command, &["--id-field", "id"]].concat(), input).ok();
        let said = run.stderr.matches("have the same id").count();
        assert_eq!(said, 1, "{command:?}: {}", run.stderr);
        let lines = run.stderr.contains("lines 1 and 2 have the same id (7)");
        assert!(lines, "{command:?}: {}", run.stderr);
    }
    let unique = neardup(&["graph", "--format", "tsv", "--id-field", "none"], input).ok();
    let said = unique.stderr.contains("same id");
    assert!(!said, "line numbers are unique: {}", unique.stderr);
}
