//! Unix citizenship: exit codes, closed pipes, usage errors, missing files.

use crate::util::{bin, neardup, spawn_piped};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

#[test]
fn closed_stdout_is_a_quiet_success() {
    // Like `neardup big.txt | head -1`: read one line, close the pipe, expect exit 0 and
    // nothing on stderr.
    let mut child = spawn_piped(bin().args(["--input-format", "text"]));
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for i in 0..400_000u64 {
            if writeln!(stdin, "document {i} {} {} with some words", i * 7, i * 13).is_err() {
                break;
            }
        }
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("document 0"));
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn usage_errors_exit_2() {
    let cases: &[&[&str]] = &[
        &["--threshold", "0"],
        &["--threshold", "1.5"],
        &["--threshold", "abc"],
        &["--no-such-flag"],
        &["--num-perm", "0"],
        &["--bands", "7"],
        &["--drop-dups", "--only-dups"],
        &["--format", "xml"],
        &["--input-format", "xml"],
    ];
    for args in cases {
        let run = neardup(args, b"");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.is_empty());
    }
    let run = neardup(&["--threshold", "0"], b"");
    assert_eq!(
        run.stderr.trim(),
        "neardup: invalid value for '--threshold': 0 is not in (0, 1]"
    );
}

#[test]
fn missing_file_exits_1_before_any_output() {
    let run = neardup(&["-", "/no/such/file.jsonl"], b"some text\n");
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .starts_with("neardup: opening /no/such/file.jsonl: "),
        "{}",
        run.stderr
    );
}

#[test]
fn empty_input_is_fine() {
    let run = neardup(&["--stats"], b"").ok();
    assert!(run.stdout.is_empty());
    assert_eq!(run.stats()["docs_read"], 0);
}

#[test]
fn help_and_version() {
    let help = neardup(&["--help"], b"").ok();
    assert!(help.out().contains("--drop-dups"));
    let version = neardup(&["--version"], b"").ok();
    assert!(version.out().starts_with("neardup "));
}

#[test]
fn line_buffered_output_arrives_before_end_of_input() {
    // One thread: the sequencer signs the batch itself; two: a worker does.
    for threads in ["1", "2"] {
        let mut child = bin()
            .args(["--line-buffered", "--input-format", "text", "-j", threads])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "first document of the stream").unwrap();
        stdin.flush().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        // With stdin still open, the line must arrive without waiting for end of input. A
        // watchdog turns a hang into a failure.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = stdout.read_line(&mut line);
            let _ = tx.send(line);
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(30));
        drop(stdin);
        if got.is_err() {
            let _ = child.kill();
        }
        child.wait().unwrap();
        assert_eq!(
            got.expect("no output within 30 s"),
            "first document of the stream\n",
            "-j {threads}"
        );
    }
}

#[test]
fn write_errors_exit_1_with_a_message() {
    // /dev/full fails every write with ENOSPC, like a full disk.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not a Linux-like system
    };
    let output = bin()
        .arg(crate::util::SAMPLE)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("neardup: writing output at input line "),
        "{stderr}"
    );
    assert!(stderr.contains("complete up to input line 0"), "{stderr}");
}

/// `--help` into a pipe or a file carries no terminal escapes, with or without NO_COLOR.
#[test]
fn help_into_a_pipe_has_no_escapes() {
    for no_color in [false, true] {
        let mut cmd = crate::util::bin();
        cmd.arg("--help");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let out = cmd.output().expect("run neardup");
        assert!(out.status.success());
        assert!(!out.stdout.contains(&0x1b), "escape codes in --help");
        assert!(String::from_utf8_lossy(&out.stdout).contains("--threshold"));
    }
}

/// Negative numbers reach the validator instead of being taken for flags.
#[test]
fn negative_numbers_are_values() {
    let run = crate::util::neardup(&["--threshold", "-1"], b"");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("'--threshold': -1 is not in (0, 1]"),
        "{}",
        run.stderr
    );
    let run = crate::util::neardup(&["graph", "--min-edge", "-0.5"], b"");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("-0.5 is not in [0, 1]"),
        "{}",
        run.stderr
    );
}

/// `--against -` when the input is standard input too is a usage error, not an empty run.
#[test]
fn against_stdin_with_stdin_input_is_a_usage_error() {
    let run = crate::util::neardup(&["--against", "-"], b"some text here\n");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("already the input"), "{}", run.stderr);
}

/// A closed standard output (`>&-`) is an error, not a silent success.
#[test]
fn a_closed_stdout_is_an_error() {
    use std::os::unix::process::CommandExt;
    let mut cmd = crate::util::bin();
    cmd.arg("tests/data/reuters-sample.jsonl")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    // SAFETY: close(2) on the child's own descriptor, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::close(1);
            Ok(())
        });
    }
    let out = cmd
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("writing output: Bad file descriptor"),
        "{stderr}"
    );
    // Standard output sent to /dev/null is not closed: opened write-only (a shell's
    // `> /dev/null`) or read-write (Python's `subprocess.DEVNULL`, what Rust's runtime puts
    // on a closed descriptor).
    for read in [false, true] {
        let null = std::fs::OpenOptions::new()
            .read(read)
            .write(true)
            .open("/dev/null")
            .unwrap();
        let out = crate::util::bin()
            .arg("tests/data/reuters-sample.jsonl")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(null)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "read-write {read}: {stderr}");
    }
}

/// A text that starts with `BZh9` is read as text, not rejected as bad bzip2.
#[test]
fn text_that_looks_like_a_bzip2_header_is_text() {
    let run = crate::util::neardup(&[], b"BZh91 is a part number\nfoo\n").ok();
    assert_eq!(run.out(), "BZh91 is a part number\nfoo\n");
}

/// One junk line at the top does not turn a JSON Lines file into text: the format is that of
/// most lines, the junk is a bad line, and stderr says what was decided.
#[test]
fn one_junk_first_line_does_not_change_the_format() {
    let sample = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reuters-sample.jsonl"
    ))
    .unwrap();
    let clean = crate::util::neardup(&["--stats", "--id-field", "id"], &sample).ok();
    for junk in [&b"[]\n"[..], b"// comment\n", b"not json\n"] {
        let input = [junk, &sample[..]].concat();
        for args in [&["--stats"][..], &["--stats", "--id-field", "id"]] {
            let run = crate::util::neardup(args, &input).ok();
            let (a, b) = (run.stats(), clean.stats());
            assert_eq!(a["dropped"], b["dropped"], "{junk:?} {args:?}");
            assert_eq!(a["dropped_exact"], b["dropped_exact"]);
            assert_eq!(a["bad_lines"], 1);
            assert!(
                run.stderr.contains("-:1: "),
                "junk is bad line 1: {}",
                run.stderr
            );
        }
        let run = crate::util::neardup(&["--stats"], &input).ok();
        let said = run.stderr.contains("input format: JSON Lines (");
        assert!(
            said && run.stderr.contains("--input-format text"),
            "{}",
            run.stderr
        );
    }
}

/// `-h` and `--help` open with the same line.
#[test]
fn short_and_long_help_agree_on_what_it_is() {
    let short = crate::util::neardup(&["-h"], b"").ok().out();
    let long = crate::util::neardup(&["--help"], b"").ok().out();
    assert_eq!(short.lines().next(), long.lines().next());
    assert!(short.lines().count() < long.lines().count());
}

/// A path flag takes the name as the system gave it: `-o` with a name that is not UTF-8
/// writes that very file (not one whose name had its bad bytes replaced).
#[test]
fn a_path_that_is_not_utf8_is_taken_as_given() {
    use std::os::unix::ffi::OsStrExt;
    let dir = crate::util::temp_path("non-utf8-out");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"kept\xff.jsonl");
    let out = dir.join(name);
    let mut child = spawn_piped(bin().arg("-o").arg(&out));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"one document here today\n")
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(std::fs::read(&out).unwrap(), b"one document here today\n");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--on-bad-line fail` on a live input that stays open: the run ends at the bad line, at
/// once, instead of waiting for the writer upstream to send more or close.
#[test]
fn a_failing_bad_line_ends_the_run_while_the_input_stays_open() {
    let mut child = spawn_piped(bin().args(["--on-bad-line", "fail"]));
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"text\": \"a good document here\"}\n{\"text\":\n")
        .unwrap();
    stdin.flush().unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "still running with its input open"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(stdin);
    assert_eq!(status.code(), Some(1));
}
