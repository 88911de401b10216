//! Mutated inputs: JSON Lines, Parquet, Arrow IPC and index files with bytes flipped, cut,
//! inserted or repeated (seeded, so a failure is reproduced by its case number). Every run
//! ends with exit status 0, 1 or 2 and, unless 0, a message on stderr: no panic, no death by
//! a signal, no hang.

use crate::util::{Words, bin, first_lines, neardup, sample_bytes, temp_path};
use std::time::Duration;

/// Mutations of each kind of file a run makes.
const CASES: usize = 150;

/// One seeded mutation of `data`: a byte flipped, the data cut, random bytes inserted, or a
/// piece repeated; the case number picks which and where.
fn mutate(data: &[u8], words: &mut Words) -> Vec<u8> {
    let mut out = data.to_vec();
    if out.is_empty() {
        return out;
    }
    let at = (words.next_u64() % out.len() as u64) as usize;
    match words.next_u64() % 5 {
        0 => out[at] ^= 1 << (words.next_u64() % 8),
        1 => out.truncate(at),
        2 => {
            let n = 1 + (words.next_u64() % 16) as usize;
            let junk: Vec<u8> = (0..n).map(|_| words.next_u64() as u8).collect();
            out.splice(at..at, junk);
        }
        3 => {
            let end = (at + 1 + (words.next_u64() % 64) as usize).min(out.len());
            let piece = out[at..end].to_vec();
            out.splice(at..at, piece);
        }
        _ => {
            for _ in 0..8 {
                let i = (words.next_u64() % out.len() as u64) as usize;
                out[i] = words.next_u64() as u8;
            }
        }
    }
    out
}

/// Runs the binary with `args` (stdin closed), within 30 s; returns its exit status and
/// stderr, failing on a signal death or a hang.
fn run(case: &str, args: &[&std::ffi::OsStr]) -> (i32, String) {
    let child = bin()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            // SAFETY: a signal to the child this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("{case}: no answer in 30 s");
        }
    };
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let code = output
        .status
        .code()
        .unwrap_or_else(|| panic!("{case}: killed by a signal: {:?}\n{stderr}", output.status));
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    assert!([0, 1, 2].contains(&code), "{case}: exit {code}\n{stderr}");
    assert!(
        code == 0 || stderr.contains("neardup: "),
        "{case}: exit {code} says nothing"
    );
    (code, stderr)
}

/// The sample's first rows as a Parquet file and an Arrow IPC stream.
fn tables(rows: usize) -> (Vec<u8>, Vec<u8>) {
    let batch = crate::util::sample_table(Some(rows));
    let schema = batch.schema();
    let mut parquet = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut parquet, schema.clone(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let mut arrow = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut arrow, &schema).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    drop(w);
    (parquet, arrow)
}

#[test]
fn mutated_inputs_and_indexes_end_with_a_status_and_a_message() {
    let mut words = Words::new(20261128);
    let dir = temp_path("mutation");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let jsonl = first_lines(&sample_bytes(), 40);
    let (parquet, arrow) = tables(40);
    let mut runs = 0;
    for (kind, data, name) in [
        ("jsonl", &jsonl, "in.jsonl"),
        ("parquet", &parquet, "in.parquet"),
        ("arrow", &arrow, "in.arrows"),
    ] {
        for case in 0..CASES {
            let path = dir.join(name);
            std::fs::write(&path, mutate(data, &mut words)).unwrap();
            let label = format!("{kind} case {case}");
            let out = dir.join("out");
            for args in [
                vec![path.as_os_str()],
                vec![
                    "--annotate".as_ref(),
                    path.as_os_str(),
                    "-o".as_ref(),
                    out.as_os_str(),
                ],
            ] {
                run(&label, &args);
                runs += 1;
            }
        }
    }
    // An index of 100 documents, one of its files mutated in a copy.
    let index = dir.join("index");
    neardup(
        &["-q", "--state", index.to_str().unwrap()],
        &first_lines(&sample_bytes(), 100),
    )
    .ok();
    let files: Vec<String> = std::fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    let more = dir.join("more.jsonl");
    std::fs::write(&more, first_lines(&sample_bytes(), 160)).unwrap();
    for case in 0..CASES {
        let copy = dir.join("copy");
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        for f in &files {
            std::fs::copy(index.join(f), copy.join(f)).unwrap();
        }
        let victim = &files[(words.next_u64() % files.len() as u64) as usize];
        let bytes = std::fs::read(copy.join(victim)).unwrap();
        std::fs::write(copy.join(victim), mutate(&bytes, &mut words)).unwrap();
        let label = format!("index case {case} ({victim})");
        run(
            &label,
            &[
                "state".as_ref(),
                "info".as_ref(),
                "--check".as_ref(),
                copy.as_os_str(),
            ],
        );
        run(
            &label,
            &["--state".as_ref(), copy.as_os_str(), more.as_os_str()],
        );
        run(
            &label,
            &["--against".as_ref(), copy.as_os_str(), more.as_os_str()],
        );
        runs += 3;
    }
    println!("mutation: {runs} runs, seed 20261128");
    assert_eq!(runs, 3 * CASES * 2 + 3 * CASES);
}
