//! The fault matrix: every output kind (lines on a pipe and to `-o FILE`, `--annotate` and
//! `--pairs` on a pipe, a Parquet table or an Arrow stream to `-o FILE`, an Arrow stream on a
//! pipe, a table's rows as JSON lines to `-o FILE` and on a pipe, the `--report` page) ×
//! every stop (SIGTERM, SIGINT, `kill -9`, a reader that goes away) × with and without
//! `--state`. After each: the output is valid (whole lines, a readable table or none), a
//! signal's exit status says which, a resumed run completes the one-run output exactly, and
//! no file but neardup's own changed in the directory. The cases are few and printed, so
//! that CI runs them all in under a minute.

use crate::util::{arrow_stream, bin, first_lines, neardup, sample_bytes, spawn_piped, temp_path};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    /// Lines on standard output (a pipe).
    Pipe,
    /// Lines to `-o FILE`.
    File,
    /// Rows from an Arrow stream, to `-o FILE.parquet`.
    Parquet,
    /// Rows from an Arrow stream, to `-o FILE.arrow`.
    Arrow,
    /// Rows from an Arrow stream, as an Arrow stream on standard output (a pipe).
    ArrowPipe,
    /// Rows from an Arrow stream, as JSON objects to `-o FILE` (`--output-format lines`).
    Rows,
    /// Rows from an Arrow stream, as JSON objects on standard output (a pipe).
    RowsPipe,
    /// `--annotate`: every line with its verdict, on a pipe.
    Annotate,
    /// `--pairs`: the similar pairs as they are found, on a pipe.
    Pairs,
    /// Lines on a pipe, and `--report FILE.html`.
    Report,
}

/// The mode's flags of an output kind (none: the default `--drop-dups`).
fn mode(out: Out) -> &'static [&'static str] {
    match out {
        Out::Annotate => &["--annotate"],
        Out::Pairs => &["--pairs"],
        Out::Rows | Out::RowsPipe => &["--output-format", "lines"],
        _ => &[],
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Stop {
    Term,
    Int,
    Kill,
    /// The reader of standard output goes away.
    Closed,
}

/// Lines fed before the stop (of the 953-line sample).
const FED: usize = 400;

/// The rows of an Arrow stream, if every message of it reads.
fn arrow_rows(bytes: &[u8]) -> Option<usize> {
    let reader = arrow_ipc::reader::StreamReader::try_new(bytes, None).ok()?;
    let mut rows = 0;
    for batch in reader {
        rows += batch.ok()?.num_rows();
    }
    Some(rows)
}

fn parquet_rows(path: &Path) -> Option<usize> {
    let file = std::fs::File::open(path).ok()?;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .ok()?
        .build()
        .ok()?;
    let mut rows = 0;
    for batch in reader {
        rows += batch.ok()?.num_rows();
    }
    Some(rows)
}

/// The directory's names, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// One case: the run is fed [`FED`] lines (rows), waits until it has decided them, and is
/// stopped; returns what it wrote and how it ended.
fn stopped(out: Out, stop: Stop, state: Option<&Path>, dir: &Path) -> (i32, Vec<u8>, String) {
    let target: PathBuf = match out {
        Out::Parquet => dir.join("out.parquet"),
        Out::Arrow => dir.join("out.arrow"),
        Out::Report => dir.join("page.html"),
        _ => dir.join("out.jsonl"),
    };
    let mut cmd = bin();
    cmd.args(mode(out));
    cmd.arg("--line-buffered");
    match out {
        Out::Pipe | Out::ArrowPipe | Out::RowsPipe | Out::Annotate | Out::Pairs => {}
        Out::File | Out::Parquet | Out::Arrow | Out::Rows => {
            cmd.arg("-o").arg(&target);
        }
        Out::Report => {
            cmd.arg("--report").arg(&target);
        }
    }
    if let Some(state) = state {
        cmd.arg("--state").arg(state);
    }
    let mut child = spawn_piped(&mut cmd);
    let mut stdin = child.stdin.take().unwrap();
    let fed = match out {
        Out::Parquet | Out::Arrow | Out::ArrowPipe | Out::Rows | Out::RowsPipe => {
            arrow_stream(Some(FED))
        }
        _ => first_lines(&sample_bytes(), FED),
    };
    stdin.write_all(&fed).unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut got = Vec::new();
    // A stream's reader reads as it comes (its batches need not end in a newline).
    let (mut stdout, streamed) = match out == Out::ArrowPipe && stop != Stop::Closed {
        true => {
            let mut stdout = stdout;
            let reader = std::thread::spawn(move || {
                let mut all = Vec::new();
                let _ = stdout.read_to_end(&mut all);
                all
            });
            (None, Some(reader))
        }
        false => (Some(stdout), None),
    };
    if matches!(
        out,
        Out::Pipe | Out::Report | Out::RowsPipe | Out::Annotate | Out::Pairs
    ) {
        // The first decided lines arrive: the run is under way.
        let mut byte = [0u8; 4096];
        let stdout = stdout.as_mut().unwrap();
        while !got.ends_with(b"\n") {
            let n = stdout.read(&mut byte).unwrap();
            assert!(n > 0, "{out:?} {stop:?}: the output ended early");
            got.extend_from_slice(&byte[..n]);
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(600));
    let signal = match stop {
        Stop::Term => Some(libc::SIGTERM),
        Stop::Int => Some(libc::SIGINT),
        Stop::Kill => Some(libc::SIGKILL),
        Stop::Closed => None,
    };
    match signal {
        // SAFETY: a signal to the child this test started.
        Some(s) => unsafe {
            libc::kill(child.id() as i32, s);
        },
        None => {
            drop(stdout);
            // More input makes it write, and find the reader gone (a stream's end, its
            // last batch).
            let rest = match out {
                Out::ArrowPipe | Out::RowsPipe => &[][..],
                _ => &sample_bytes()[fed.len().min(sample_bytes().len())..],
            };
            let _ = stdin.write_all(rest);
            drop(stdin);
            let output = child.wait_with_output().unwrap();
            return (
                output.status.code().unwrap_or(-1),
                got,
                String::from_utf8_lossy(&output.stderr).into_owned(),
            );
        }
    }
    if let Some(stdout) = stdout.as_mut() {
        let _ = stdout.read_to_end(&mut got);
    }
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    if let Some(reader) = streamed {
        got = reader.join().unwrap();
    }
    let code = output.status.code().unwrap_or_else(|| {
        128 + std::os::unix::process::ExitStatusExt::signal(&output.status).unwrap_or(0)
    });
    if matches!(out, Out::File | Out::Arrow | Out::Rows) {
        got = std::fs::read(&target).unwrap_or_default();
    }
    (
        code,
        got,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn every_output_under_every_stop_is_whole_and_resumes_exactly() {
    // One run's output in each mode.
    let mut wholes = std::collections::HashMap::new();
    for out in [Out::Pipe, Out::Annotate, Out::Pairs] {
        let args = [&["-q"][..], mode(out)].concat();
        wholes.insert(
            format!("{:?}", mode(out)),
            neardup(&args, &sample_bytes()).ok().stdout,
        );
    }
    wholes.insert(format!("{:?}", mode(Out::Rows)), Vec::new());
    let mut cases = 0;
    let outs = [
        Out::Pipe,
        Out::File,
        Out::Parquet,
        Out::Arrow,
        Out::ArrowPipe,
        Out::Rows,
        Out::RowsPipe,
        Out::Annotate,
        Out::Pairs,
        Out::Report,
    ];
    for out in outs {
        for stop in [Stop::Term, Stop::Int, Stop::Kill, Stop::Closed] {
            let pipe = matches!(
                out,
                Out::Pipe | Out::ArrowPipe | Out::RowsPipe | Out::Annotate | Out::Pairs
            );
            if stop == Stop::Closed && !pipe {
                continue;
            }
            for with_state in [false, true] {
                cases += 1;
                let case = format!("{out:?} {stop:?} state={with_state}");
                let whole = &wholes[&format!("{:?}", mode(out))];
                let dir = temp_path(&format!("fault-{out:?}-{stop:?}-{with_state}"));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("keep.txt"), "not neardup's").unwrap();
                let state = dir.join("S");
                let state = with_state.then_some(state.as_path());
                let (code, got, stderr) = stopped(out, stop, state, &dir);
                assert!(!stderr.contains("panicked"), "{case}: {stderr}");
                let expected = match stop {
                    Stop::Term => vec![128 + libc::SIGTERM],
                    Stop::Int => vec![128 + libc::SIGINT],
                    Stop::Kill => vec![128 + libc::SIGKILL],
                    // A closed output is a quiet success without a state, a stop with one.
                    Stop::Closed => vec![0, 1],
                };
                assert!(expected.contains(&code), "{case}: exit {code}: {stderr}");
                // Whole lines, a prefix of the one-run output (a table: readable, or absent).
                match out {
                    Out::Parquet | Out::Arrow => {
                        let target = match out {
                            Out::Arrow => dir.join("out.arrow"),
                            _ => dir.join("out.parquet"),
                        };
                        match stop {
                            Stop::Kill => assert!(!target.exists(), "{case}"),
                            _ => {
                                let rows = match out {
                                    Out::Arrow => arrow_rows(&got),
                                    _ => parquet_rows(&target),
                                };
                                assert!(
                                    rows.is_some_and(|r| r > 0 && r <= FED),
                                    "{case}: {rows:?} {stderr}"
                                );
                            }
                        }
                    }
                    // A stream on a pipe stopped by a signal ends after a whole batch: every
                    // message reads (the reader gone, or kill -9, leave nothing to check).
                    Out::ArrowPipe if matches!(stop, Stop::Term | Stop::Int) => {
                        let rows = arrow_rows(&got);
                        assert!(
                            rows.is_some_and(|r| r > 0 && r <= FED),
                            "{case}: {rows:?} of {} bytes; {stderr}",
                            got.len()
                        );
                    }
                    Out::ArrowPipe => {}
                    // Rows as JSON: whole objects, one a line (none after kill -9, whose
                    // file is a temporary renamed only at a clean end).
                    Out::Rows | Out::RowsPipe => {
                        let text = String::from_utf8(got.clone()).unwrap();
                        assert!(text.is_empty() || text.ends_with('\n'), "{case}: torn");
                        let rows = text.lines().count();
                        assert!(rows <= FED, "{case}: {rows} rows");
                        for line in text.lines() {
                            let row: serde_json::Value = serde_json::from_str(line)
                                .unwrap_or_else(|e| panic!("{case}: {e}: {line}"));
                            assert!(row["text"].is_string(), "{case}: {line}");
                        }
                        if matches!(stop, Stop::Term | Stop::Int) {
                            assert!(rows > 0, "{case}: no rows; {stderr}");
                        }
                    }
                    // A pipe with a state may end part way through a line when the run
                    // is stopped while the pipe is full: the message says so, and the
                    // resumed run writes the line's rest first (checked below).
                    _ if with_state
                        && matches!(out, Out::Pipe | Out::Report | Out::Annotate | Out::Pairs)
                        && !got.ends_with(b"\n")
                        && !got.is_empty() =>
                    {
                        // kill -9 says nothing: the state's counts say where the lines end.
                        assert!(
                            stop == Stop::Kill || stderr.contains("and the start of the next"),
                            "{case}: {stderr}"
                        );
                        assert!(whole.starts_with(&got), "{case}");
                    }
                    _ => {
                        assert!(
                            got.is_empty() || got.ends_with(b"\n"),
                            "{case}: {} bytes, ending {:?}; {stderr}",
                            got.len(),
                            String::from_utf8_lossy(&got[got.len().saturating_sub(80)..])
                        );
                        assert!(
                            whole.starts_with(&got),
                            "{case}: not a prefix of one run's output"
                        );
                    }
                }
                // With a state and a signal it can catch, the resumed run completes the
                // one-run output exactly.
                if let (Some(state), Stop::Term | Stop::Int, Out::Pipe | Out::File)
                | (Some(state), Stop::Term | Stop::Int, Out::Annotate | Out::Pairs) =
                    (state, stop, out)
                {
                    let line: usize = stderr
                        .split("after input line ")
                        .nth(1)
                        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| panic!("{case}: {stderr}"));
                    let rest = &sample_bytes()[first_lines(&sample_bytes(), line).len()..];
                    let args = [&["-q", "--state", state.to_str().unwrap()][..], mode(out)];
                    let resumed = neardup(&args.concat(), rest).ok().stdout;
                    assert_eq!(&[got.clone(), resumed].concat(), whole, "{case}");
                }
                // A table's run resumed from the state writes the rest of the rows.
                if matches!(out, Out::Parquet | Out::Arrow)
                    && let (Some(state), Stop::Term | Stop::Int) = (state, stop)
                {
                    let ext = if out == Out::Arrow {
                        "arrow"
                    } else {
                        "parquet"
                    };
                    let second = dir.join(format!("second.{ext}"));
                    let mut child = spawn_piped(
                        bin()
                            .args(["-q", "--state"])
                            .arg(state)
                            .arg("-o")
                            .arg(&second),
                    );
                    let mut stdin = child.stdin.take().unwrap();
                    stdin.write_all(&arrow_stream(None)).unwrap();
                    drop(stdin);
                    assert!(child.wait_with_output().unwrap().status.success(), "{case}");
                    let rows = |path: &Path| match out {
                        Out::Arrow => arrow_rows(&std::fs::read(path).unwrap()),
                        _ => parquet_rows(path),
                    };
                    let first = rows(&dir.join(format!("out.{ext}"))).unwrap();
                    let all = whole.iter().filter(|&&b| b == b'\n').count();
                    assert_eq!(first + rows(&second).unwrap(), all, "{case}");
                }
                // Nothing but neardup's own names: the outputs, the state, a killed run's
                // temporaries (the next run writing the same file removes them).
                assert_eq!(
                    std::fs::read(dir.join("keep.txt")).unwrap(),
                    b"not neardup's"
                );
                for name in names(&dir) {
                    let ours = [
                        "keep.txt",
                        "out.jsonl",
                        "out.parquet",
                        "out.arrow",
                        "second.parquet",
                        "second.arrow",
                        "page.html",
                        "S",
                    ]
                    .contains(&name.as_str())
                        || (stop == Stop::Kill
                            && name.contains(".neardup-")
                            && name.ends_with(".tmp"))
                        || name == ".S.lock";
                    assert!(ours, "{case}: {name} in {:?}", names(&dir));
                }
            }
        }
    }
    println!("fault matrix: {cases} cases");
    assert_eq!(cases, 70);
}

/// Lines of about 50 KB (each far longer than a pipe's atomic write), all different.
fn long_lines(count: usize) -> Vec<u8> {
    let mut seed: u64 = 7;
    let mut out = Vec::new();
    for line in 0..count {
        out.extend_from_slice(format!("{{\"id\": {line}, \"text\": \"").as_bytes());
        for _ in 0..8000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.extend_from_slice(format!("w{} ", seed >> 52).as_bytes());
        }
        out.extend_from_slice(b"\"}\n");
    }
    out
}

/// A line longer than a pipe's atomic write, part written when SIGTERM comes while the pipe
/// is full: the run finishes it as its reader reads, so the output ends at a whole line; a
/// reader that does not read within the stop's grace may be left part of it, and the message
/// then says so instead of claiming a whole line.
#[test]
fn a_long_line_cut_by_a_stop_on_a_full_pipe_is_finished_while_its_reader_reads() {
    let input = long_lines(40);
    let whole = neardup(&["-q"], &input).ok().stdout;
    assert_eq!(whole, input, "every line is kept");
    for reader_waits_ms in [300, 3500] {
        let mut child = spawn_piped(bin().arg("--line-buffered"));
        let mut stdin = child.stdin.take().unwrap();
        // Fed beside: the run stops reading its input while its output waits.
        let feed = input.clone();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&feed);
            stdin
        });
        let mut stdout = child.stdout.take().unwrap();
        let mut got = vec![0u8; 4096];
        let n = stdout.read(&mut got).unwrap();
        got.truncate(n);
        // The pipe fills part way through a line, and the run waits for its reader.
        std::thread::sleep(std::time::Duration::from_millis(600));
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        std::thread::sleep(std::time::Duration::from_millis(reader_waits_ms));
        stdout.read_to_end(&mut got).unwrap();
        let output = child.wait_with_output().unwrap();
        drop(feeder.join().unwrap());
        let stderr = String::from_utf8_lossy(&output.stderr);
        let case = format!(
            "reader waits {reader_waits_ms} ms: {} bytes; {stderr}",
            got.len()
        );
        assert_eq!(output.status.code(), Some(128 + libc::SIGTERM), "{case}");
        assert!(got.len() > 4096 && got.len() < whole.len(), "{case}");
        assert!(whole.starts_with(&got), "{case}");
        match got.ends_with(b"\n") {
            true => assert!(stderr.contains("ends at a whole line"), "{case}"),
            false => {
                assert!(reader_waits_ms > 2000, "{case}");
                assert!(stderr.contains("part way through a line"), "{case}");
            }
        }
    }
}

/// What runs out in the full-space columns of the matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Full {
    /// `ulimit -f`: writes past it fail with EFBIG.
    FileSize,
    /// A [`ROOM`]-byte tmpfs, mounted in a user namespace: writes fail with ENOSPC.
    Disk,
}

/// Bytes the run may write, in both columns: well below what any of its outputs needs (the
/// sample's smallest, the report page, is about 120 KiB).
const ROOM: u64 = 48 << 10;

/// Whether this machine lets a user mount a tmpfs in a user namespace (else the reason).
fn can_mount_tmpfs() -> Result<(), String> {
    let out = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"])
        .output()
        .map_err(|e| format!("no unshare: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).trim().to_string()),
    }
}

/// One full-space case: the whole sample (an Arrow file for [`Out::Parquet`]) into `dir`,
/// whose files may take [`ROOM`] bytes; returns the exit status, stderr and the directory the
/// outputs are in afterwards (a tmpfs's are copied out before it goes).
fn filled(out: Out, full: Full, state: bool, dir: &Path) -> (i32, String, PathBuf) {
    let input = match out {
        Out::Parquet | Out::Arrow | Out::Rows => {
            let path = dir.join("input.arrows");
            std::fs::write(&path, arrow_stream(None)).unwrap();
            path
        }
        _ => {
            let path = dir.join("input.jsonl");
            std::fs::write(&path, sample_bytes()).unwrap();
            path
        }
    };
    let mut args: Vec<String> = vec!["-q".into(), input.to_str().unwrap().into()];
    match out {
        Out::Parquet => args.extend(["-o".into(), "out.parquet".into()]),
        Out::Arrow => args.extend(["-o".into(), "out.arrow".into()]),
        Out::Rows => args.extend(["--output-format", "lines", "-o", "out.jsonl"].map(String::from)),
        Out::Report => args.extend(["--report".into(), "page.html".into()]),
        _ => args.extend(["-o".into(), "out.jsonl".into()]),
    }
    if state {
        args.extend(["--state".into(), "S".into()]);
    }
    let program = bin().get_program().to_owned();
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("keep.txt"), "not neardup's").unwrap();
    let output = match full {
        Full::FileSize => {
            let mut cmd = std::process::Command::new(&program);
            cmd.args(&args)
                .current_dir(&work)
                .stdout(std::process::Stdio::null());
            crate::util::with_rlimit(&mut cmd, libc::RLIMIT_FSIZE, ROOM);
            cmd.output().unwrap()
        }
        Full::Disk => {
            // Mounted over `work` (its keep.txt is written again inside), copied to `after`.
            let after = dir.join("after");
            std::fs::create_dir_all(&after).unwrap();
            let script = format!(
                "mount -t tmpfs -o size={ROOM} none \"$1\" && cd \"$1\" && \
                 echo \"not neardup's\" | tr -d '\\n' > keep.txt && shift 2 && \
                 \"$0\" \"$@\" > /dev/null; code=$?; cp -a . \"{}\"; exit $code",
                after.display()
            );
            let output = std::process::Command::new("unshare")
                .args(["-rm", "sh", "-c", &script])
                .arg(&program)
                .arg(&work)
                .arg("--")
                .args(&args)
                .output()
                .unwrap();
            return (
                output.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&output.stderr).into_owned(),
                after,
            );
        }
    };
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        work,
    )
}

/// A command that writes one whole document at its end (a graph, clusters) replaces
/// `-o FILE` only when it succeeds: past `ulimit -f` it exits 1 saying FILE is left as it
/// was, and FILE keeps its old bytes (it was neither emptied at the start nor left
/// half-written); no temporary is left; a run that succeeds puts the whole document there.
#[test]
fn a_graph_output_replaces_its_file_whole_or_not_at_all() {
    let dir = temp_path("whole-graph");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("input.jsonl");
    std::fs::write(&input, sample_bytes()).unwrap();
    for args in [
        &["graph", "--format", "graphml"][..],
        &["clusters", "--format", "jsonl"][..],
    ] {
        let out = dir.join("out.doc");
        std::fs::write(&out, "old").unwrap();
        let mut cmd = bin();
        cmd.args(args)
            .args(["-q", "-o", "out.doc"])
            .arg(&input)
            .current_dir(&dir);
        crate::util::with_rlimit(&mut cmd, libc::RLIMIT_FSIZE, 4096);
        let run = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("out.doc is left as it was"),
            "{args:?}: {stderr}"
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"old", "{args:?}");
        let whole = neardup(&[args, &["-q"], &[input.to_str().unwrap()]].concat(), b"")
            .ok()
            .stdout;
        let run = bin()
            .args(args)
            .args(["-q", "-o", "out.doc"])
            .arg(&input)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{args:?}");
        assert_eq!(std::fs::read(&out).unwrap(), whole, "{args:?}");
        assert_eq!(names(&dir), ["input.jsonl", "out.doc"], "{args:?}");
    }
}

/// The commands that write lines of their own as they read (`clusters --keep`'s survivors,
/// `verify-pairs`' pairs) past `ulimit -f`: the file ends at a whole line, a prefix of what
/// the command writes to a pipe, and the message says how far the output is complete.
#[test]
fn a_command_writing_lines_past_a_file_limit_ends_them_whole() {
    let dir = temp_path("lines-limit");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("input.jsonl");
    std::fs::write(&input, sample_bytes()).unwrap();
    // 30,000 candidate pairs that pass: about 400 KB of pairs, more than one buffer.
    let pairs = dir.join("pairs.jsonl");
    let mut candidates = Vec::new();
    for i in 0..30_000 {
        let text = format!("the same words of pair number {i} on both sides");
        candidates.extend_from_slice(
            format!("{{\"a\": \"a{i}\", \"b\": \"b{i}\", \"text_a\": \"{text}\", \"text_b\": \"{text}\"}}\n")
                .as_bytes(),
        );
    }
    std::fs::write(&pairs, candidates).unwrap();
    let cases: [(&[&str], &Path); 2] = [
        (&["clusters", "--keep", "first"], &input),
        (&["verify-pairs"], &pairs),
    ];
    for (args, file) in cases {
        let whole = neardup(&[args, &["-q"], &[file.to_str().unwrap()]].concat(), b"")
            .ok()
            .stdout;
        let limit = 300_000;
        assert!(
            whole.len() > limit as usize,
            "{args:?}: {} bytes",
            whole.len()
        );
        let out = dir.join("out.txt");
        let mut cmd = bin();
        cmd.args(args).args(["-q", "-o"]).arg(&out).arg(file);
        crate::util::with_rlimit(&mut cmd, libc::RLIMIT_FSIZE, limit);
        let run = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {stderr}");
        let got = std::fs::read(&out).unwrap();
        assert!(
            !got.is_empty() && got.ends_with(b"\n"),
            "{args:?}: {stderr}"
        );
        assert!(whole.starts_with(&got), "{args:?}: not a prefix");
        assert!(
            stderr.contains("the output ends at a whole line and is complete up to input line")
                && !stderr.contains("up to input line 0)"),
            "{args:?}: {stderr}"
        );
    }
}

/// The matrix's full-space columns: every file output (lines to `-o`, Parquet `-o`, the
/// report page) with and without `--state`, on a full disk and past `ulimit -f`. Each run
/// ends with exit 1 naming what ran out; the lines end whole and are a prefix of one run's;
/// a table or a page is whole or absent; a state that was saved resumes to one run's output;
/// no temporary and no other file is left.
#[test]
fn every_file_output_on_a_full_disk_ends_whole() {
    let whole = neardup(&["-q"], &sample_bytes()).ok().stdout;
    let disk = can_mount_tmpfs();
    if let Err(why) = &disk {
        println!("fault matrix: full-disk cases skipped: cannot mount a tmpfs here ({why})");
    }
    let mut cases = 0;
    for full in [Full::FileSize, Full::Disk] {
        if full == Full::Disk && disk.is_err() {
            continue;
        }
        for out in [Out::File, Out::Parquet, Out::Arrow, Out::Rows, Out::Report] {
            for with_state in [false, true] {
                cases += 1;
                let case = format!("{full:?} {out:?} state={with_state}");
                let dir = temp_path(&format!("full-{full:?}-{out:?}-{with_state}"));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                let (code, stderr, at) = filled(out, full, with_state, &dir);
                assert!(!stderr.contains("panicked"), "{case}: {stderr}");
                assert_eq!(code, 1, "{case}: {stderr}");
                let cause = match full {
                    Full::FileSize => "File too large",
                    Full::Disk => "No space left on device",
                };
                assert!(stderr.contains(cause), "{case}: {stderr}");
                let target = at.join(match out {
                    Out::Parquet => "out.parquet",
                    Out::Arrow => "out.arrow",
                    Out::Report => "page.html",
                    _ => "out.jsonl",
                });
                match out {
                    Out::Parquet | Out::Arrow => {
                        if target.exists() {
                            let rows = match out {
                                Out::Arrow => arrow_rows(&std::fs::read(&target).unwrap()),
                                _ => parquet_rows(&target),
                            };
                            assert!(rows.is_some(), "{case}: an unreadable table");
                        }
                        // A table has no lines: the message says what became of the file.
                        if stderr.contains("writing output") {
                            assert!(
                                stderr.contains("the table is not written")
                                    && !stderr.contains("whole line"),
                                "{case}: {stderr}"
                            );
                        }
                    }
                    Out::Rows => {
                        let got = std::fs::read_to_string(&target).unwrap_or_default();
                        assert!(got.is_empty() || got.ends_with('\n'), "{case}: a torn row");
                        for line in got.lines() {
                            let row: Result<serde_json::Value, _> = serde_json::from_str(line);
                            assert!(row.is_ok(), "{case}: {line}");
                        }
                    }
                    Out::Report => {
                        if target.exists() {
                            let page = std::fs::read_to_string(&target).unwrap();
                            assert!(page.trim_end().ends_with("</html>"), "{case}: a torn page");
                        }
                    }
                    _ => {
                        let got = std::fs::read(&target).unwrap_or_default();
                        assert!(
                            got.is_empty() || got.ends_with(b"\n"),
                            "{case}: a torn line"
                        );
                        assert!(whole.starts_with(&got), "{case}: not a prefix");
                        // A state saved with the lines resumes to one run's output.
                        let s = at.join("S");
                        let info = bin().args(["state", "info", "--json"]).arg(&s).output();
                        let info: Option<serde_json::Value> = info
                            .ok()
                            .filter(|o| o.status.success())
                            .and_then(|o| serde_json::from_slice(&o.stdout).ok());
                        if let Some(lines) = info.and_then(|i| i["lines"].as_u64()) {
                            let rest = &sample_bytes()
                                [first_lines(&sample_bytes(), lines as usize).len()..];
                            let resumed = neardup(&["-q", "--state", s.to_str().unwrap()], rest)
                                .ok()
                                .stdout;
                            assert_eq!([got, resumed].concat(), whole, "{case}: {stderr}");
                        }
                    }
                }
                assert_eq!(
                    std::fs::read(at.join("keep.txt")).unwrap(),
                    b"not neardup's",
                    "{case}"
                );
                for name in names(&at) {
                    let ours = [
                        "keep.txt",
                        "out.jsonl",
                        "out.parquet",
                        "out.arrow",
                        "page.html",
                        "S",
                    ]
                    .contains(&name.as_str())
                        || name == ".S.lock";
                    assert!(ours, "{case}: {name} left in {:?}", names(&at));
                }
            }
        }
    }
    println!("fault matrix: {cases} full-space cases");
}

/// The graph commands group and write after the input: a signal then (here while the graph
/// waits for its reader) ends the output at a whole line, with the signal's status and a
/// message saying where the run was, instead of being ignored until the end.
#[test]
fn a_signal_while_a_graph_is_written_ends_it_at_a_whole_line() {
    let mut words = crate::util::Words::new(7);
    let mut input = Vec::new();
    for _ in 0..20_000 {
        input.extend_from_slice(words.doc(12).join(" ").as_bytes());
        input.push(b'\n');
    }
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let mut cmd = bin();
        cmd.args(["graph", "--format", "json", "--all-nodes", "-q", "-"]);
        let mut child = spawn_piped(&mut cmd);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&input).unwrap();
        drop(stdin);
        // The first bytes of the graph: the input is read and grouped, the rest waits for us.
        let mut stdout = child.stdout.take().unwrap();
        let mut got = vec![0u8; 4096];
        stdout.read_exact(&mut got).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
        stdout.read_to_end(&mut got).unwrap();
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(128 + signal), "{stderr}");
        assert!(got.ends_with(b"\n"), "a torn line");
        assert!(got.len() < 20_000 * 12 * 5, "the whole graph was written");
        assert!(
            stderr.contains(&format!(
                "interrupted (signal {signal}) after the input ended"
            )),
            "{stderr}"
        );
    }
}

/// A signal while `clusters --keep` writes its survivors as a Parquet table on standard
/// output (its second read): the table ends with its footer over the rows written so far,
/// readable, and the exit status says which signal.
#[test]
fn a_signal_while_survivors_are_written_as_a_table_ends_it_with_its_footer() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let n = 40_000;
    let mut words = crate::util::Words::new(11);
    let texts: Vec<String> = (0..n).map(|_| words.doc(40).join(" ")).collect();
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(1..=n)) as ArrayRef,
        ),
        ("text", Arc::new(StringArray::from(texts)) as ArrayRef),
    ])
    .unwrap();
    let input = temp_path("keep-signal.parquet");
    let file = std::fs::File::create(&input).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let mut cmd = bin();
    // A small budget: row groups of about 1 MiB, so the table starts early.
    cmd.args(["clusters", "--keep", "first", "-q", "--max-memory", "64M"])
        .arg(&input);
    let mut child = spawn_piped(&mut cmd);
    drop(child.stdin.take());
    // The first row group: the groups are made, the survivors are being written, and the
    // rest waits for us (the pipe is full).
    let mut stdout = child.stdout.take().unwrap();
    let mut got = vec![0u8; 4096];
    stdout.read_exact(&mut got).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    stdout.read_to_end(&mut got).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    assert!(stderr.contains("interrupted (signal 15)"), "{stderr}");
    let written = temp_path("keep-signal-out.parquet");
    std::fs::write(&written, &got).unwrap();
    let table = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&written).unwrap(),
    )
    .expect("a table with its footer")
    .build()
    .unwrap();
    let mut ids = Vec::new();
    for b in table {
        let b = b.unwrap();
        let col = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend(col.values().iter().copied());
    }
    // Every document is a group of its own: the survivors are the first rows, in order.
    assert!(
        !ids.is_empty() && ids.len() < n as usize,
        "{} rows",
        ids.len()
    );
    assert_eq!(ids, (1..=ids.len() as i64).collect::<Vec<_>>());
}
