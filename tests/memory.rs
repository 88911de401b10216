//! Memory as a budget: records spilled to disk give the same bytes as records in RAM, a
//! memory limit stops the run at a whole line with a message, spill files never stay behind.

use crate::util::{bin, neardup, with_rlimit};
use std::path::{Path, PathBuf};
use std::process::Stdio;

const SAMPLE: &str = "tests/data/reuters-sample.jsonl";

/// A fresh, empty directory for spill files.
fn spill_dir(name: &str) -> PathBuf {
    let dir = crate::util::temp_path(&format!("test-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create spill dir");
    dir
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).expect("read spill dir").count()
}

/// Every mode and command that holds documents, in RAM (`--spill-dir none`) and with every
/// record but the newest few KiB on disk (`--spill-cache 0`), for 1, 2 and 3 threads: the
/// same bytes, and the spill file really used.
#[test]
fn spilled_and_in_ram_runs_write_the_same_bytes() {
    let dir = spill_dir("same");
    let dir_arg = dir.to_str().expect("UTF-8 path");
    let jobs: [&[&str]; 9] = [
        &["--drop-dups"],
        &["--only-dups"],
        &["--annotate"],
        &["--pairs", "-t", "0.5"],
        &["--drop-dups", "--window", "100"],
        &["--drop-dups", "--weights", "tf", "--verify", "jaccard,edit"],
        &["graph", "--format", "tsv"],
        &["clusters"],
        &["clusters", "--keep", "longest"],
    ];
    for job in jobs {
        let in_ram = neardup(
            &[job, &["--spill-dir", "none", "-j", "1", SAMPLE]].concat(),
            b"",
        )
        .ok()
        .stdout;
        assert!(!in_ram.is_empty(), "{job:?} wrote nothing");
        for threads in ["1", "2", "3"] {
            let run = neardup(
                &[
                    job,
                    &[
                        "--spill-dir",
                        dir_arg,
                        "--spill-cache",
                        "0",
                        "--stats",
                        "-j",
                        threads,
                        SAMPLE,
                    ],
                ]
                .concat(),
                b"",
            )
            .ok();
            assert!(
                run.stdout == in_ram,
                "{job:?} -j {threads}: spilled output differs"
            );
        }
    }
    // The filter's --stats say where the bytes went.
    let run = neardup(
        &[
            "--stats",
            "--spill-dir",
            dir_arg,
            "--spill-cache",
            "0",
            SAMPLE,
        ],
        b"",
    )
    .ok();
    let stats = run.stats();
    assert!(
        stats["window_disk_bytes"].as_u64().unwrap() > 100_000,
        "{stats}"
    );
    assert!(
        stats["disk_bytes_per_doc"].as_u64().unwrap() > 100,
        "{stats}"
    );
    assert!(stats["ram_bytes_per_doc"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(entries(&dir), 0, "spill files are removed");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--state` saves a spilled window and resumes it into one: the same output as one run.
#[test]
fn state_works_with_a_spilled_window() {
    let dir = spill_dir("state");
    let dir_arg = dir.to_str().unwrap();
    let state = dir.join("window.state");
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (first, second) = lines.split_at(lines.len() / 2);
    let spill = ["--spill-dir", dir_arg, "--spill-cache", "0"];
    let whole = neardup(&spill, text.as_bytes()).ok().stdout;
    let state_arg = ["--state", state.to_str().unwrap()];
    let mut resumed = neardup(
        &[&spill[..], &state_arg].concat(),
        (first.join("\n") + "\n").as_bytes(),
    )
    .ok()
    .stdout;
    resumed.extend(
        neardup(
            &[&spill[..], &state_arg].concat(),
            (second.join("\n") + "\n").as_bytes(),
        )
        .ok()
        .stdout,
    );
    assert!(resumed == whole, "resumed runs differ from one run");
    crate::util::remove_state(&state);
    assert_eq!(entries(&dir), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A budget the window reaches: a note on stderr, every line written or dropped.
#[test]
fn a_memory_budget_evicts_with_a_note_and_loses_nothing() {
    // 50,000 distinct documents: more than the smallest budget's window holds.
    let mut input = String::new();
    for i in 0..50_000 {
        input += &format!(
            "document {i} has words {} and {} and {}\n",
            i * 7,
            i * 13,
            i * 31
        );
    }
    let run = neardup(
        &["--stats", "--max-memory", "48M", "--spill-dir", "none"],
        input.as_bytes(),
    )
    .ok();
    let stats = run.stats();
    assert!(
        run.stderr
            .contains("--max-memory (48 MiB) reached at input line"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.matches("reached at input line").count(), 1);
    assert!(stats["evictions"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(
        stats["written"].as_u64().unwrap() + stats["dropped"].as_u64().unwrap(),
        50_000
    );
    assert!(
        neardup(&["--max-memory", "lots"], b"")
            .stderr
            .contains("not a size")
    );
}

/// The window is sized for a file's documents at once after its first batch (its size is
/// known), not for a pipe's; whether or not a memory limit is reached, the two write the
/// same bytes and hold the same documents (the sizing itself: `window::budget`'s tests).
#[test]
fn a_file_and_a_pipe_of_it_keep_the_same_window() {
    // 60,000 documents, every tenth a copy of the one before: several batches, more than
    // the smallest budget's window holds.
    let mut input = String::new();
    for i in 0..60_000 {
        let n = if i % 10 == 9 { i - 1 } else { i };
        input += &format!(
            "item {n} has parts {} and {} and {}\n",
            n * 7,
            n * 13,
            n * 31
        );
    }
    let path = crate::util::temp_path("presized.txt");
    std::fs::write(&path, &input).unwrap();
    let path = path.to_str().unwrap();
    for budget in ["48M", "50M", "512M"] {
        let args = ["--stats", "--drop-dups", "--max-memory", budget];
        let file = neardup(&[&args[..], &[path]].concat(), b"").ok();
        let pipe = neardup(&args, input.as_bytes()).ok();
        assert_eq!(file.stdout, pipe.stdout, "--max-memory {budget}");
        let (a, b) = (file.stats(), pipe.stats());
        assert_eq!(a["window_docs"], b["window_docs"], "--max-memory {budget}");
        assert_eq!(a["evictions"], b["evictions"], "--max-memory {budget}");
        let limited = budget != "512M";
        assert_eq!(file.stderr.contains("reached at input line"), limited);
    }
    std::fs::remove_file(path).unwrap();
}

/// Under an address-space limit below what the run needs: exit status 1, a message naming the
/// input line, and output that is a prefix of the full output ending at a whole line.
#[test]
fn running_out_of_memory_stops_at_a_whole_line() {
    // Documents that are never duplicates, so every one is held and written.
    let mut input = Vec::new();
    for i in 0..300_000u64 {
        input.extend_from_slice(
            format!(
                "record {i} alpha {} beta {} gamma {} delta {} epsilon {}\n",
                i.wrapping_mul(2654435761) % 1_000_003,
                i * 3,
                i * 5,
                i * 7,
                i * 11
            )
            .as_bytes(),
        );
    }
    let path = crate::util::temp_path("oom.txt");
    std::fs::write(&path, &input).unwrap();
    let full = neardup(&["--spill-dir", "none", path.to_str().unwrap()], b"")
        .ok()
        .stdout;
    let mut failed = false;
    for limit_kib in [120_000, 100_000, 80_000] {
        let mut cmd = bin();
        cmd.args(["-j", "2", "--spill-dir", "none", "--max-memory", "8G"])
            .arg(&path);
        let output = with_rlimit(&mut cmd, libc::RLIMIT_AS, limit_kib * 1024)
            .stdin(Stdio::null())
            .output()
            .expect("run neardup");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            assert_eq!(output.stdout, full);
            continue;
        }
        failed = true;
        assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
        assert!(stderr.contains("out of memory"), "stderr: {stderr}");
        assert!(stderr.contains("input line"), "stderr: {stderr}");
        assert!(!stderr.contains("panicked"), "stderr: {stderr}");
        let out = output.stdout;
        assert!(out.is_empty() || out.ends_with(b"\n"), "a torn last line");
        assert!(
            full.starts_with(&out),
            "the output is a prefix of the full output"
        );
    }
    std::fs::remove_file(&path).unwrap();
    assert!(failed, "no limit made the run fail: lower them");
}

/// A thread the system refuses (here: a stack larger than any address space, which
/// `RUST_MIN_STACK` asks of every thread) stops the run as running out of memory does: exit
/// status 1 and a message naming the input line, not a panic.
#[test]
fn a_thread_refused_stops_like_running_out_of_memory() {
    for threads in ["1", "2"] {
        let output = bin()
            .args(["-j", threads, "--drop-dups", SAMPLE])
            .env("RUST_MIN_STACK", (1u64 << 46).to_string())
            .stdin(Stdio::null())
            .output()
            .expect("run neardup");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
        assert!(
            stderr.contains("out of memory: a thread could not start"),
            "stderr: {stderr}"
        );
        assert!(stderr.contains("input line"), "stderr: {stderr}");
        assert!(!stderr.contains("panicked"), "stderr: {stderr}");
        assert!(output.stdout.is_empty() || output.stdout.ends_with(b"\n"));
    }
}

/// Spill files are gone after success, an error and SIGTERM (they are unlinked at once).
#[test]
fn spill_files_never_stay_behind() {
    let dir = spill_dir("gone");
    let dir_arg = dir.to_str().unwrap();
    neardup(&["--spill-dir", dir_arg, "--spill-cache", "0", SAMPLE], b"").ok();
    assert_eq!(entries(&dir), 0, "after success");
    let bad = neardup(
        &[
            "--spill-dir",
            dir_arg,
            "--spill-cache",
            "0",
            "--on-bad-line",
            "fail",
            SAMPLE,
            "-",
        ],
        b"not json\n",
    );
    assert_eq!(bad.code, 1);
    assert_eq!(entries(&dir), 0, "after an error");
    // SIGTERM while the run waits for more input, its spill file open.
    let mut child = bin()
        .args(["--spill-dir", dir_arg, "--spill-cache", "0", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        stdin.write_all(&std::fs::read(SAMPLE).unwrap()).unwrap();
        stdin.flush().unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let open_spill = std::fs::read_dir(format!("/proc/{}/fd", child.id()))
        .map(|fds| {
            fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
                .any(|target| target.starts_with(&dir))
        })
        .unwrap_or(true);
    assert!(open_spill, "the run holds its spill file open");
    assert_eq!(
        entries(&dir),
        0,
        "while running, the file is already unlinked"
    );
    // SAFETY: a signal to our own child, which has not been waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    child.wait().unwrap();
    assert_eq!(entries(&dir), 0, "after SIGTERM");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A budget is kept or refused: below what any run needs, or what a run reading a table
/// needs, exit 2 naming the smallest workable value; a document too long to sign within the
/// budget is a bad line under `--on-bad-line` ("over the memory budget"), read in pieces, not
/// an allocation past the budget.
#[test]
fn a_budget_is_kept_or_refused() {
    let sample = crate::util::sample_bytes();
    let small = neardup(&["--max-memory", "16M"], &sample);
    assert_eq!(small.code, 2, "{}", small.stderr);
    assert!(
        small.stderr.contains("give at least 48M"),
        "{}",
        small.stderr
    );
    assert!(small.stdout.is_empty());
    // An Arrow stream on standard input is a table: its decoder needs more.
    let arrow = crate::util::arrow_stream(None);
    let table = neardup(&["--max-memory", "48M", "--output-format", "lines"], &arrow);
    assert_eq!(table.code, 2, "{}", table.stderr);
    assert!(
        table.stderr.contains("give at least 64M"),
        "{}",
        table.stderr
    );
    neardup(&["--max-memory", "64M", "--output-format", "lines"], &arrow).ok();
    // 48M signs documents of up to 1.5 MiB: a 2 MB line between two short ones.
    let long = format!("{{\"text\":\"{}\"}}\n", "word ".repeat(400_000));
    let input = format!("{{\"text\":\"a b c\"}}\n{long}{{\"text\":\"d e f\"}}\n");
    let pass = neardup(&["--max-memory", "48M"], input.as_bytes()).ok();
    assert_eq!(pass.stdout, input.as_bytes(), "written through unchanged");
    // "At least" what was read when the limit was passed: the limit (1.5 MiB) or more,
    // however the pipe's writes were cut, and never more than the line.
    let at_least: u64 = (pass.stderr.split("-:2: line of at least ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", pass.stderr));
    assert!(
        (1_572_864..=long.len() as u64).contains(&at_least),
        "{}",
        pass.stderr
    );
    assert!(
        pass.stderr.contains("bytes is over the memory budget"),
        "{}",
        pass.stderr
    );
    let fail = neardup(
        &["--max-memory", "48M", "--on-bad-line", "fail"],
        input.as_bytes(),
    );
    assert_eq!(fail.code, 1, "{}", fail.stderr);
    assert!(fail.stderr.contains("over the memory budget"));
    // Without a budget that small, the same line is a document.
    let roomy = neardup(&["--max-memory", "1G"], input.as_bytes()).ok();
    assert!(!roomy.stderr.contains("budget"), "{}", roomy.stderr);
}
