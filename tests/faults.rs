//! The fault matrix: every output kind (lines on a pipe, lines to `-o FILE`, a Parquet table
//! to `-o FILE`, the `--report` page) × every stop (SIGTERM, SIGINT, `kill -9`, a reader that
//! goes away) × with and without `--state`. After each: the output is valid (whole lines, a
//! readable table or none), a signal's exit status says which, a resumed run completes the
//! one-run output exactly, and no file but neardup's own changed in the directory. The cases
//! are few and printed, so that CI runs them all in seconds.

use crate::util::{bin, first_lines, neardup, sample_bytes, spawn_piped, temp_path};
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
    /// Lines on a pipe, and `--report FILE.html`.
    Report,
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

/// The sample's first `n` rows (id, text) as an Arrow stream, left open (no end marker), or
/// all of them, ended.
fn arrow_stream(rows: Option<usize>) -> Vec<u8> {
    let batch = crate::util::sample_table(rows);
    let mut bytes = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &batch.schema()).unwrap();
    w.write(&batch).unwrap();
    match rows {
        Some(_) => w.flush().unwrap(),
        None => w.finish().unwrap(),
    }
    drop(w);
    bytes
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
        Out::Report => dir.join("page.html"),
        _ => dir.join("out.jsonl"),
    };
    let mut cmd = bin();
    cmd.arg("--line-buffered");
    match out {
        Out::Pipe => {}
        Out::File | Out::Parquet => {
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
        Out::Parquet => arrow_stream(Some(FED)),
        _ => first_lines(&sample_bytes(), FED),
    };
    stdin.write_all(&fed).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut got = Vec::new();
    if matches!(out, Out::Pipe | Out::Report) {
        // The first decided lines arrive: the run is under way.
        let mut byte = [0u8; 4096];
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
            // More input makes it write, and find the reader gone.
            let rest = &sample_bytes()[fed.len().min(sample_bytes().len())..];
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
    let _ = stdout.read_to_end(&mut got);
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    let code = output.status.code().unwrap_or_else(|| {
        128 + std::os::unix::process::ExitStatusExt::signal(&output.status).unwrap_or(0)
    });
    if matches!(out, Out::File) {
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
    let whole = neardup(&["-q"], &sample_bytes()).ok().stdout;
    let mut cases = 0;
    for out in [Out::Pipe, Out::File, Out::Parquet, Out::Report] {
        for stop in [Stop::Term, Stop::Int, Stop::Kill, Stop::Closed] {
            if stop == Stop::Closed && !matches!(out, Out::Pipe) {
                continue;
            }
            for with_state in [false, true] {
                cases += 1;
                let case = format!("{out:?} {stop:?} state={with_state}");
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
                    Out::Parquet => {
                        let target = dir.join("out.parquet");
                        match stop {
                            Stop::Kill => assert!(!target.exists(), "{case}"),
                            _ => {
                                let rows = parquet_rows(&target);
                                assert!(
                                    rows.is_some_and(|r| r > 0 && r <= FED),
                                    "{case}: {rows:?} {stderr}"
                                );
                            }
                        }
                    }
                    // A pipe with a state may end part way through a line when the run
                    // is stopped while the pipe is full: the message says so, and the
                    // resumed run writes the line's rest first (checked below).
                    _ if with_state
                        && matches!(out, Out::Pipe | Out::Report)
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
                if let (Some(state), Stop::Term | Stop::Int, Out::Pipe | Out::File) =
                    (state, stop, out)
                {
                    let line: usize = stderr
                        .split("after input line ")
                        .nth(1)
                        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| panic!("{case}: {stderr}"));
                    let rest = &sample_bytes()[first_lines(&sample_bytes(), line).len()..];
                    let resumed = neardup(&["-q", "--state", state.to_str().unwrap()], rest)
                        .ok()
                        .stdout;
                    assert_eq!([got.clone(), resumed].concat(), whole, "{case}");
                }
                if out == Out::Parquet
                    && let (Some(state), Stop::Term | Stop::Int) = (state, stop)
                {
                    let second = dir.join("second.parquet");
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
                    let first = parquet_rows(&dir.join("out.parquet")).unwrap();
                    let all = whole.iter().filter(|&&b| b == b'\n').count();
                    assert_eq!(first + parquet_rows(&second).unwrap(), all, "{case}");
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
                        "second.parquet",
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
    assert_eq!(cases, 26);
}
