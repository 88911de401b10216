//! Limits as promises, in the places neardup runs: `--max-disk` evicts, a missing spill
//! directory is refused before any input is read, the whole process stays within
//! `--max-memory`, the default budget follows a memory cgroup and `ulimit -v`, signals and
//! closed pipes save `--state` with what was not written, a full file system leaves whole
//! lines, one run at a time writes a state file, a resumed run under a budget equals one
//! run, and a live pipe's lines come out as they are decided.

use crate::util::{bin, neardup, spawn_piped, temp_path, with_rlimit};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

/// `n` documents that are never near duplicates of each other, one per line.
fn distinct(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n as u64 {
        let h = |k: u64| (i.wrapping_add(k)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        writeln!(
            out,
            "record {i} alpha {} beta {} gamma {} delta {} epsilon {}",
            h(1),
            h(2),
            h(3),
            h(4),
            h(5)
        )
        .unwrap();
    }
    out
}

/// `data` written to a file of this test run.
fn file_of(name: &str, data: &[u8]) -> String {
    let path = temp_path(name);
    std::fs::write(&path, data).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn max_disk_evicts_and_the_run_goes_on() {
    let n = 6000;
    let input = file_of("disk.txt", &distinct(n));
    for limit in ["64K", "256K"] {
        let run = neardup(
            &["--stats", "--max-disk", limit, "--spill-cache", "0", &input],
            b"",
        )
        .ok();
        assert!(run.stderr.contains("--max-disk ("), "{}", run.stderr);
        let stats = run.stats();
        assert!(stats["evictions"].as_u64().unwrap() > 0, "{stats}");
        assert_eq!(stats["written"].as_u64().unwrap(), n as u64, "{stats}");
        assert_eq!(run.lines().len(), n);
    }
}

#[test]
fn max_disk_means_nothing_without_a_spill_file() {
    let input = file_of("nodisk.txt", &distinct(3000));
    let run = neardup(
        &["--stats", "--spill-dir", "none", "--max-disk", "1K", &input],
        b"",
    )
    .ok();
    assert_eq!(run.stats()["evictions"], 0, "{}", run.stderr);
    assert!(!run.stderr.contains("reached"), "{}", run.stderr);
}

#[test]
fn a_spill_directory_that_cannot_hold_a_file_is_refused_at_once() {
    let run = neardup(&["--spill-dir", "/nonexistent/spill"], b"a b c d e\n");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("/nonexistent/spill"), "{}", run.stderr);
    assert!(run.stderr.contains("--spill-dir"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    // The default directory is $TMPDIR's: named the same way.
    let run = bin()
        .env("TMPDIR", "/nonexistent/tmp")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("/nonexistent/tmp"));
}

/// The budget bounds the whole process: peak RSS (`--stats`' `peak_rss_bytes`, the
/// process' own high-water mark) within 1.1 × `--max-memory`, in RAM and spilled, with a
/// `--report` page collected, on short and on paragraph-long documents, and the window did
/// have to stop growing.
#[test]
fn peak_memory_stays_within_the_budget() {
    let short = file_of("budget.txt", &distinct(400_000));
    let mut long = Vec::new();
    for line in distinct(100_000).split_inclusive(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        long.extend_from_slice(text.trim_end().repeat(6).as_bytes());
        long.push(b'\n');
    }
    let long = file_of("budget-long.txt", &long);
    let page = temp_path("budget-report.html");
    let report = ["--report", page.to_str().unwrap()];
    for input in [&short, &long] {
        for extra in [&[][..], &["--spill-dir", "none"][..], &report[..]] {
            let run = neardup(
                &[&["--stats", "--max-memory", "64M", input][..], extra].concat(),
                b"",
            )
            .ok();
            let stats = run.stats();
            let peak = stats["peak_rss_bytes"].as_u64().expect("peak_rss_bytes");
            assert!(
                peak <= 64 * 1024 * 1024 * 11 / 10,
                "peak {} KiB over 1.1 x 64 MiB ({input} {extra:?})",
                peak >> 10
            );
            assert!(stats["evictions"].as_u64().unwrap() > 0, "{stats}");
        }
    }
}

/// The default budget is half of an address-space limit (less what the run maps but does
/// not use), and the run finishes under it instead of running out.
#[test]
fn the_default_budget_follows_ulimit_v() {
    let input = file_of("ulimit.txt", &distinct(300_000));
    let limit: u64 = 400 << 20;
    let mut cmd = bin();
    cmd.args(["--stats", &input])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    with_rlimit(&mut cmd, libc::RLIMIT_AS, limit);
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("address-space limit"), "{stderr}");
}

/// Where the test runs as root with a writable memory cgroup (v1 or v2): a child cgroup of
/// 128 MiB, default flags, a corpus whose window alone would pass it: exit 0, no kill, and
/// the note says the budget is half the cgroup's limit.
#[test]
fn the_default_budget_follows_a_memory_cgroup() {
    let Some(group) = memory_cgroup(128 << 20) else {
        eprintln!(
            "skipped: no writable memory cgroup here (needs root and a cgroup v1 memory \
             controller or a v2 memory.max)"
        );
        return;
    };
    let input = file_of("cgroup.txt", &distinct(600_000));
    let mut cmd = bin();
    cmd.args(["--stats", &input])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    joining(&mut cmd, &group);
    let output = cmd.output().unwrap();
    let _ = std::fs::remove_dir(&group);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("memory cgroup's limit"), "{stderr}");
}

/// `cmd` made to start in the cgroup `group` (its pid written to `cgroup.procs` before exec).
fn joining(cmd: &mut Command, group: &std::path::Path) {
    let procs = std::ffi::CString::new(group.join("cgroup.procs").to_str().unwrap()).unwrap();
    // SAFETY: open, write and close are async-signal-safe; the buffer is on the stack.
    unsafe {
        cmd.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let mut digits = [0u8; 20];
            let mut pid = libc::getpid() as u64;
            let mut at = digits.len();
            loop {
                at -= 1;
                digits[at] = b'0' + (pid % 10) as u8;
                pid /= 10;
                if pid == 0 {
                    break;
                }
            }
            let n = libc::write(fd, digits[at..].as_ptr().cast(), digits.len() - at);
            libc::close(fd);
            match n {
                n if n > 0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
}

/// `n` versions of one ad, a word apart: every two are a verified pair, so a graph of them
/// holds n²/2 edges.
fn one_template(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        writeln!(
            out,
            "warehouse picker wanted for the night shift at our distribution centre near the \
             ring road full time permanent contract forklift licence an advantage but not \
             required training given from the first day free parking and a canteen on site \
             apply today with your cv and quote reference {i}"
        )
        .unwrap();
    }
    out
}

/// A graph that would not fit in `--max-memory` once grouped stops the run where the input
/// got (exit 1, nothing written, the budget and the pairs named), whatever the output: it
/// cannot evict as the window does.
#[test]
fn a_graph_over_the_memory_budget_stops_the_run() {
    let input = file_of("graph-budget.txt", &one_template(1500));
    for args in [
        &["graph", "--format", "tsv"][..],
        &["graph", "--format", "graphml"],
        &["clusters", "--by", "cliques"],
        &["explain", "1", "2"],
    ] {
        let run = neardup(&[args, &["--max-memory", "64M", &input]].concat(), b"");
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
        assert!(
            run.stderr.contains("the graph at input line")
                && run
                    .stderr
                    .contains("more than --max-memory (64M) allows; nothing was written"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // The components joined as documents arrive hold no pair inside a component.
    let run = neardup(&["clusters", "--max-memory", "64M", &input], b"").ok();
    assert_eq!(run.lines().len(), 1500);
    // With room for its pairs, the same graph is written.
    let run = neardup(
        &["graph", "--format", "tsv", "--max-memory", "2G", &input],
        b"",
    )
    .ok();
    assert!(run.lines().len() > 1_000_000);
}

/// Where the test runs as root with a writable memory cgroup: in 128 MiB, a graph whose
/// grouping would take several times that stops with the message under the default budget
/// (half the cgroup) instead of being killed by the kernel with nothing said.
#[test]
fn a_graph_in_a_memory_cgroup_stops_before_the_kernel_kills_it() {
    let Some(group) = memory_cgroup(128 << 20) else {
        eprintln!("skipped: no writable memory cgroup here (needs root and a cgroup memory limit)");
        return;
    };
    let input = file_of("graph-cgroup.txt", &one_template(4000));
    let mut cmd = bin();
    cmd.args(["graph", &input])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    joining(&mut cmd, &group);
    let output = cmd.output().unwrap();
    let _ = std::fs::remove_dir(&group);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(stderr.contains("the graph at input line"), "{stderr}");
}

/// A new memory cgroup of `bytes` under this process' own, or `None` where none can be made.
fn memory_cgroup(bytes: u64) -> Option<std::path::PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let name = format!("neardup-test-{}", std::process::id());
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let (root, file) = if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
        } else if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max")
        } else {
            continue;
        };
        let dir = std::path::Path::new(root)
            .join(path.trim_start_matches('/'))
            .join(&name);
        if std::fs::create_dir(&dir).is_err() {
            continue;
        }
        // A real cgroup directory comes with its files (a plain directory does not).
        if dir.join("cgroup.procs").exists()
            && std::fs::write(dir.join(file), bytes.to_string()).is_ok()
        {
            return Some(dir);
        }
        let _ = std::fs::remove_dir(&dir);
    }
    None
}

/// Starts neardup with `args`, its output and errors piped, and reads the first `n` bytes
/// of its output (so it is running and writing).
fn started(args: &[&str], n: usize) -> (std::process::Child, std::process::ChildStdout, Vec<u8>) {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = vec![0u8; n];
    out.read_exact(&mut first).unwrap();
    (child, out, first)
}

/// With `--state`, a closed output is no quiet success: the state is saved with the output
/// not written, stderr says so, the exit status is 1, and the resumed run writes that
/// output first. Without `--state` it stays quiet (exit 0).
#[test]
fn a_closed_output_saves_the_state() {
    let data = distinct(20_000);
    let input = file_of("closed.txt", &data);
    let state = temp_path("closed.ndstate");
    crate::util::remove_state(&state);
    let (child, out, _) = started(&["--state", state.to_str().unwrap(), &input], 1000);
    drop(out);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the output was closed; state saved after input line"),
        "{stderr}"
    );
    let rest = neardup(&["--state", state.to_str().unwrap(), &input], b"").ok();
    assert!(rest.stderr.contains("resuming after input line"));
    assert!(data.ends_with(&rest.stdout), "the rest follows on");
    // Without --state: quiet, exit 0, as `| head` expects.
    let (child, out, _) = started(&[&input], 1000);
    drop(out);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stderr.is_empty());
}

/// The same stop on templated documents, past the family summaries' warm-up and in the
/// middle of a batch: the state keeps the summaries after the last document decided (the
/// signing threads count them ahead), so the resumed run's family keys, and its output, are
/// one run's.
#[test]
fn a_stop_mid_batch_on_templated_documents_resumes_exactly() {
    let data = crate::filter::text(&crate::filter::template_corpus(31, 1, 6_000, 3));
    let input = file_of("templated-stop.txt", &data);
    let state = temp_path("templated-stop.ndstate");
    crate::util::remove_state(&state);
    let once = neardup(&["--annotate", "-j", "1", &input], b"").ok().stdout;
    let args = [
        "--annotate",
        "-j",
        "2",
        "--state",
        state.to_str().unwrap(),
        &input,
    ];
    let (child, mut out, mut got) = started(&args, 400_000);
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a signal to our own child, not yet waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    out.read_to_end(&mut got).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    // The resumed run reads the input after the line the state was saved at, as a stream
    // that goes on would give it.
    let saved_at: usize = (stderr.split("state saved after input line ").nth(1))
        .and_then(|rest| rest.split(';').next()?.parse().ok())
        .unwrap_or_else(|| panic!("where the state was saved: {stderr}"));
    let after: Vec<u8> = (data.split_inclusive(|&b| b == b'\n').skip(saved_at))
        .flatten()
        .copied()
        .collect();
    let after = file_of("templated-stop-rest.txt", &after);
    let resumed = [
        "--annotate",
        "-j",
        "2",
        "--state",
        state.to_str().unwrap(),
        &after,
    ];
    let rest = neardup(&resumed, b"").ok();
    assert!(
        rest.stderr.contains("resuming after input line"),
        "{}",
        rest.stderr
    );
    got.extend_from_slice(&rest.stdout);
    assert!(got == once, "the outputs joined differ from one run");
}

/// SIGTERM while the reader does not read (its pipe full): the run saves within a second,
/// exits 143, and what the reader then drains followed by the resumed run's output is
/// exactly one run's output.
#[test]
fn a_signal_while_the_output_is_blocked_saves_at_once() {
    let data = distinct(30_000);
    let input = file_of("blocked.txt", &data);
    let state = temp_path("blocked.ndstate");
    crate::util::remove_state(&state);
    let (mut child, mut out, mut got) =
        started(&["--state", state.to_str().unwrap(), &input], 4096);
    // Let the pipe fill and the writer block.
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a signal to our own child, not yet waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let started = std::time::Instant::now();
    let mut stderr = String::new();
    let mut err = child.stderr.take().unwrap();
    err.read_to_string(&mut stderr).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the save waited for the reader"
    );
    out.read_to_end(&mut got).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("interrupted (signal 15); state saved"),
        "{stderr}"
    );
    let rest = neardup(&["--state", state.to_str().unwrap(), &input], b"").ok();
    got.extend_from_slice(&rest.stdout);
    assert!(got == data, "the outputs joined differ from one run");
}

/// SIGTERM to the whole pipeline (`feeder | neardup --state | cat`, as Ctrl-C or `systemctl
/// stop` send it): the reader downstream may die first, the signal still wins: the state
/// is saved and stderr says so.
#[test]
fn a_signal_to_the_process_group_saves_the_state() {
    let input = file_of("group.txt", &distinct(2000));
    for round in 0..3 {
        let state = temp_path(&format!("group{round}.ndstate"));
        let err = temp_path(&format!("group{round}.err"));
        crate::util::remove_state(&state);
        let script = format!(
            "while IFS= read -r l; do printf '%s\\n' \"$l\"; sleep 0.002; done < {input} \
             | {} --state {} 2> {} | cat > /dev/null",
            env!("CARGO_BIN_EXE_neardup"),
            state.display(),
            err.display()
        );
        let mut group = Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .unwrap();
        // Once the run holds its state's lock it is about to read; then let it read a while.
        let lock = state.with_file_name(format!(".group{round}.ndstate.lock"));
        for _ in 0..200 {
            if lock.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(500));
        // SAFETY: a signal to the process group this test made.
        unsafe { libc::killpg(group.id() as libc::pid_t, libc::SIGTERM) };
        let _ = group.wait();
        // neardup itself may still be saving: wait for its word.
        let mut said = String::new();
        for _ in 0..200 {
            said = std::fs::read_to_string(&err).unwrap_or_default();
            if said.contains("state saved") {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            said.contains("interrupted (signal 15); state saved"),
            "{said}"
        );
        assert!(state.exists());
    }
}

/// A write that fails part way (here past `ulimit -f`, as on a full disk) leaves the file
/// at a whole line, and stderr names the input line it is complete up to.
#[test]
fn a_full_file_system_leaves_whole_lines() {
    let data = distinct(20_000);
    let input = file_of("fsize.txt", &data);
    let out_path = temp_path("fsize.out");
    let out = std::fs::File::create(&out_path).unwrap();
    let mut cmd = bin();
    cmd.arg(&input).stdout(out).stderr(Stdio::piped());
    with_rlimit(&mut cmd, libc::RLIMIT_FSIZE, 300_000);
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let written = std::fs::read(&out_path).unwrap();
    assert!(!written.is_empty() && written.ends_with(b"\n"));
    assert!(data.starts_with(&written));
    // Every line is kept, so the output's lines are the input's first lines.
    let lines = written.iter().filter(|&&b| b == b'\n').count();
    assert!(
        stderr.contains(&format!("complete up to input line {lines})")),
        "{lines} lines: {stderr}"
    );
}

#[test]
fn one_run_at_a_time_writes_a_state_file() {
    let state = temp_path("locked.ndstate");
    crate::util::remove_state(&state);
    let mut first = spawn_piped(bin().args(["--state", state.to_str().unwrap()]));
    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(b"one document here\n").unwrap();
    stdin.flush().unwrap();
    let mut out = BufReader::new(first.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let second = neardup(&["--state", state.to_str().unwrap()], b"x y z\n");
    assert_eq!(second.code, 2, "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains(&format!("another run (process {})", first.id())),
        "{}",
        second.stderr
    );
    drop(stdin);
    assert!(first.wait().unwrap().success());
    neardup(&["--state", state.to_str().unwrap()], b"x y z\n").ok();
}

/// A window that stopped growing at `--max-memory` resumes with the capacity it settled
/// on: runs split by `--state` equal one run, the cut after the limit was reached.
#[test]
fn split_runs_equal_one_run_under_a_budget() {
    let data = distinct(60_000);
    let args = ["-q", "--max-memory", "48M", "--spill-dir", "none"];
    let whole = neardup(&args, &data).ok();
    let first = neardup(
        &["--stats", "--max-memory", "48M", "--spill-dir", "none"],
        &data,
    )
    .ok();
    assert!(first.stats()["evictions"].as_u64().unwrap() > 0);
    let state = temp_path("budget.ndstate");
    crate::util::remove_state(&state);
    let with_state = [&args[..], &["--state", state.to_str().unwrap()]].concat();
    let at = data
        .split_inclusive(|&b| b == b'\n')
        .take(45_000)
        .map(<[u8]>::len)
        .sum();
    let mut split = neardup(&with_state, &data[..at]).ok().stdout;
    split.extend(neardup(&with_state, &data[at..]).ok().stdout);
    assert!(split == whole.stdout, "split runs differ from one run");
}

/// A live pipe: each line comes out while the input is still open, with default flags
/// (JSON Lines and `--format auto` included), not when a buffer fills or the input ends.
#[test]
fn a_live_pipe_gets_each_line_as_it_is_decided() {
    let mut child = spawn_piped(&mut bin());
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            let _ = tx.send(line);
        }
    });
    for i in 0..5 {
        let line = format!(
            "{{\"id\":{i},\"text\":\"story {i} about {} things\"}}\n",
            i * 31
        );
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let got = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the line came out while the input is open");
        assert_eq!(got, line);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// An index saved without a budget, opened under one its documents do not fit: the run keeps
/// the most recently used documents that fit, about as many as one run under that budget
/// holds, and the index it saves holds those.
#[test]
fn an_index_larger_than_the_budget_keeps_what_fits() {
    let data = distinct(150_000);
    let budget = ["--max-memory", "48M", "--spill-dir", "none"];
    let one = neardup(&[&["-q", "--stats"][..], &budget].concat(), &data).ok();
    let held = one.stats()["window_docs"].as_u64().unwrap();
    let state = temp_path("big-index");
    crate::util::remove_state(&state);
    let s = state.to_str().unwrap();
    neardup(&["-q", "--state", s], &data).ok();
    let run = neardup(
        &[&["-q", "--stats", "--state", s][..], &budget].concat(),
        b"",
    )
    .ok();
    let fitted = run.stats()["window_docs"].as_u64().unwrap();
    assert!(
        fitted < 150_000 && fitted.abs_diff(held) * 10 < held,
        "{fitted} documents kept, one run under the budget holds {held}"
    );
    let info = bin().args(["state", "info", "--json", s]).output().unwrap();
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["documents"].as_u64(), Some(fitted));
}

/// A `--max-disk` of a few segments still holds a useful window (the segments shrink to a
/// sixteenth of the limit), and one too small for any is refused naming the smallest: it
/// stopped the window at one document, deduplication silently off.
#[test]
fn a_small_max_disk_keeps_a_window_or_is_refused() {
    let n = 6000;
    let mut data = distinct(n);
    data.extend_from_slice(&distinct(n));
    let input = file_of("small-disk.txt", &data);
    let run = neardup(&["--stats", "--max-disk", "2M", &input], b"").ok();
    let stats = run.stats();
    assert!(stats["window_docs"].as_u64().unwrap() > 500, "{stats}");
    assert!(stats["dropped"].as_u64().unwrap() > 0, "{stats}");
    let run = neardup(&["--max-disk", "16K", &input], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("at least 64K"), "{}", run.stderr);
}
