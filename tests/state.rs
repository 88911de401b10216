//! `--state`: a stream split over several runs gives exactly the output of one run; bad
//! state files and conflicting settings are usage errors; SIGTERM saves.

use crate::util::{bin, neardup, sample_bytes, spawn_piped, temp_path};
use std::io::{BufRead, BufReader, Write};

/// The sample's lines split after line `cut`.
fn halves(cut: usize) -> (Vec<u8>, Vec<u8>) {
    halves_of(&sample_bytes(), cut)
}

/// `data`'s lines split after line `cut`.
fn halves_of(data: &[u8], cut: usize) -> (Vec<u8>, Vec<u8>) {
    let at = data
        .split_inclusive(|&b| b == b'\n')
        .take(cut)
        .map(<[u8]>::len)
        .sum();
    (data[..at].to_vec(), data[at..].to_vec())
}

/// Output of one run over the whole sample, and of runs over its pieces sharing a state.
fn whole_and_split(args: &[&str], cuts: &[usize], name: &str) -> (Vec<u8>, Vec<u8>) {
    whole_and_split_of(&sample_bytes(), args, cuts, name)
}

/// [`whole_and_split`] of `data`.
fn whole_and_split_of(
    data: &[u8],
    args: &[&str],
    cuts: &[usize],
    name: &str,
) -> (Vec<u8>, Vec<u8>) {
    let whole = neardup(args, data).ok().stdout;
    let state = temp_path(name);
    crate::util::remove_state(&state);
    let with_state = [args, &["--state", state.to_str().unwrap()]].concat();
    let mut split = Vec::new();
    let mut done = 0;
    for &cut in cuts.iter().chain([&usize::MAX]) {
        let (head, _) = halves_of(data, cut);
        let (_, piece) = head.split_at(done);
        split.extend(neardup(&with_state, piece).ok().stdout);
        done = head.len();
        if done == data.len() {
            break;
        }
    }
    (whole, split)
}

#[test]
fn split_runs_equal_one_run() {
    let cases: &[(&[&str], &str)] = &[
        (&["--drop-dups"], "drop"),
        (&["--annotate", "-t", "0.5"], "annotate"),
        (&["--pairs", "-t", "0.5"], "pairs"),
        (&["--only-dups", "--window", "40", "-t", "0.6"], "window"),
        (&["--pairs", "--exact", "-t", "0.4"], "exact"),
        (
            // The warm-up lies inside the first run; later runs take the saved table.
            &["--annotate", "--weights", "tfidf", "--idf-warmup", "150"],
            "tfidf",
        ),
        (
            &["--pairs", "--verify", "jaccard,edit", "-t", "0.5"],
            "texts",
        ),
        (
            &["--annotate", "--id-field", "id", "--verify", "none"],
            "ids",
        ),
    ];
    for (args, name) in cases {
        let (whole, split) = whole_and_split(args, &[200, 201, 640], name);
        assert!(!whole.is_empty(), "{args:?}");
        let (whole, split) = (String::from_utf8(whole), String::from_utf8(split));
        let (whole, split) = (whole.unwrap(), split.unwrap());
        let first_difference = whole.lines().zip(split.lines()).position(|(a, b)| a != b);
        assert_eq!(first_difference, None, "{args:?}");
        assert_eq!(whole, split, "{args:?}");
    }
}

/// A template family split inside the family keys' warm-up (its documents are keyed again
/// after it) and after it: the saved summaries make the same keys as one run.
#[test]
fn split_runs_of_a_template_family_equal_one_run() {
    let input = crate::filter::text(&crate::filter::template_corpus(31, 1, 1500, 3));
    let args = ["--annotate", "-t", "0.8"];
    let (whole, split) = whole_and_split_of(&input, &args, &[300, 900], "family");
    assert!(whole.len() > 1500);
    assert!(whole == split, "split runs differ from one run");
}

/// A template family large enough that its buckets are full: their order (which members the
/// refreshes protected) is saved with the documents, so split runs look at the same members
/// as one run.
#[test]
fn split_runs_with_full_buckets_equal_one_run() {
    let input = crate::filter::text(&crate::filter::template_corpus(37, 2, 3000, 3));
    for args in [
        &["--annotate", "-t", "0.8", "--max-candidates", "4"][..],
        &[
            "--only-dups",
            "-t",
            "0.7",
            "--max-candidates",
            "8",
            "-j",
            "1",
        ][..],
    ] {
        let (whole, split) = whole_and_split_of(&input, args, &[700, 1900, 2400], "full");
        assert!(!whole.is_empty(), "{args:?}");
        assert!(whole == split, "split runs differ from one run: {args:?}");
    }
}

/// `neardup state info --json` of `dir`.
fn info_json(dir: &std::path::Path) -> serde_json::Value {
    let out = bin()
        .args(["state", "info", "--json"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The name of the file of `dir` that starts with `prefix`, if any.
fn file_named(dir: &std::path::Path, prefix: &str) -> Option<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(prefix))
}

/// A run's save appends what it changed to the tables' log instead of writing the tables
/// again, unless the log it opened was longer than a 64th of them (then the tables are
/// written whole, once). The index opened from tables and log holds what one run's index
/// holds, lookups included (the `--check` digest covers the buckets): with every document
/// kept, under a window limit that evicts, and with full buckets whose members refreshes
/// reorder.
#[test]
fn saves_append_a_log_that_opens_as_one_runs_index() {
    let family = crate::filter::text(&crate::filter::template_corpus(41, 2, 2000, 3));
    let sample = sample_bytes();
    let cases: [(&[u8], &[&str], &str); 3] = [
        (&sample, &["--drop-dups"], "log-drop"),
        (
            &sample,
            &["--only-dups", "--window", "300", "-t", "0.6"],
            "log-window",
        ),
        (
            &family,
            &["--annotate", "-t", "0.8", "--max-candidates", "4"],
            "log-full",
        ),
    ];
    let mut damaged_logs = 0;
    for (data, args, name) in cases {
        let whole = neardup(args, data).ok().stdout;
        let (one, split) = (temp_path(&format!("{name}-one")), temp_path(name));
        for p in [&one, &split] {
            crate::util::remove_state(p);
        }
        let (one_arg, split_arg) = (one.to_str().unwrap(), split.to_str().unwrap());
        neardup(&[args, &["--state", one_arg]].concat(), data).ok();
        let lines = data.split_inclusive(|&b| b == b'\n').count();
        let (mut out, mut done, mut appends) = (Vec::new(), 0, 0);
        let mut before: Option<(String, serde_json::Value)> = None;
        for percent in [60, 66, 72, 78, 84, 90, 100] {
            let (head, _) = halves_of(data, lines * percent / 100);
            out.extend(
                neardup(&[args, &["--state", split_arg]].concat(), &head[done..])
                    .ok()
                    .stdout,
            );
            done = head.len();
            let tables = file_named(&split, "tables.").unwrap();
            let info = info_json(&split);
            if let Some((old_tables, old)) = before {
                let long =
                    old["log_bytes"].as_u64().unwrap() * 64 > old["tables_bytes"].as_u64().unwrap();
                if long {
                    assert_ne!(tables, old_tables, "{name} {percent}%: a long log was kept");
                    assert_eq!(info["log_bytes"], 0, "{name} {percent}%");
                } else {
                    assert_eq!(
                        tables, old_tables,
                        "{name} {percent}%: tables written whole"
                    );
                    assert!(info["log_bytes"].as_u64() > old["log_bytes"].as_u64());
                    appends += 1;
                    // A damaged log is an error that says so, never a different index.
                    if appends == 1 {
                        let log = file_named(&split, "log.").unwrap();
                        let damaged = temp_path(&format!("{name}-damaged"));
                        crate::util::remove_state(&damaged);
                        copy_dir(&split, &damaged);
                        let mut bytes = std::fs::read(damaged.join(&log)).unwrap();
                        let mid = bytes.len() / 2;
                        bytes[mid] ^= 0x40;
                        std::fs::write(damaged.join(&log), bytes).unwrap();
                        let run = neardup(
                            &[args, &["--state", damaged.to_str().unwrap()]].concat(),
                            b"x\n",
                        );
                        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
                        assert!(run.stderr.contains("its log"), "{name}: {}", run.stderr);
                        damaged_logs += 1;
                    }
                }
            }
            before = Some((tables, info));
        }
        assert!(appends >= 2, "{name}: {appends} appends");
        assert!(out == whole, "{name}: split runs differ from one run");
        assert!(
            crate::util::state_bytes(&split) == crate::util::state_bytes(&one),
            "{name}: the index opened from a log differs from one run's"
        );
    }
    assert!(damaged_logs > 0, "no case ended with a log to damage");
}

#[test]
fn checkpoints_and_the_final_save_agree() {
    // A state saved by --checkpoint-every at the end of the input equals the final save.
    let a = temp_path("ckpt-a");
    let b = temp_path("ckpt-b");
    for p in [&a, &b] {
        crate::util::remove_state(p);
    }
    neardup(&["--state", a.to_str().unwrap()], &sample_bytes()).ok();
    neardup(
        &["--state", b.to_str().unwrap(), "--checkpoint-every", "100"],
        &sample_bytes(),
    )
    .ok();
    assert!(
        crate::util::state_bytes(&a) == crate::util::state_bytes(&b),
        "a checkpointed save differs from the final one"
    );
    let run = neardup(&["--checkpoint-every", "10"], b"x\n");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("needs --state"), "{}", run.stderr);
}

#[test]
fn conflicting_settings_and_bad_files_are_usage_errors() {
    let state = temp_path("conflict.ndstate");
    crate::util::remove_state(&state);
    let s = state.to_str().unwrap();
    let (head, _) = halves(300);
    neardup(&["--state", s], &head).ok();
    for (args, word) in [
        (&["-k", "64"][..], "k:64"),
        (&["--ngram", "3"], "words:3"),
        (&["--seed", "7"], "seed:7"),
        (&["--weights", "tf"], "weights:tf"),
        (&["--pairs"], "copies:false"),
    ] {
        let run = neardup(&[&["--state", s][..], args].concat(), b"a b c d e f\n");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(word), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    // A tf-idf state keeps its table; another --idf table is refused.
    let tfidf = temp_path("tfidf.ndstate");
    let _ = std::fs::remove_file(&tfidf);
    let t = tfidf.to_str().unwrap();
    let idf_a = temp_path("a.idf");
    let idf_b = temp_path("b.idf");
    std::fs::write(&idf_a, neardup(&["idf"], &head).ok().stdout).unwrap();
    std::fs::write(&idf_b, neardup(&["idf"], &sample_bytes()).ok().stdout).unwrap();
    let tf_args = ["--weights", "tfidf", "--state", t, "--idf"];
    neardup(&[&tf_args[..], &[idf_a.to_str().unwrap()]].concat(), &head).ok();
    neardup(
        &[&tf_args[..], &[idf_a.to_str().unwrap()]].concat(),
        b"a b\n",
    )
    .ok();
    let run = neardup(
        &[&tf_args[..], &[idf_b.to_str().unwrap()]].concat(),
        b"a b\n",
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("differs from the IDF table saved"),
        "{}",
        run.stderr
    );

    let run = neardup(&["graph", "--state", s], b"x\n");
    assert_eq!(run.code, 2, "graph commands have no --state");

    // A file that is not a state, empty or not.
    let broken = temp_path("broken.ndstate");
    let b = broken.to_str().unwrap();
    for bytes in [&b""[..], b"not a state", b"NDSTATE\0\x07"] {
        crate::util::remove_state(&broken);
        std::fs::write(&broken, bytes).unwrap();
        let run = neardup(&["--state", b], b"a b c d e f\n");
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("--state"), "{}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    // An index whose manifest or tables were cut or changed anywhere: refused before any
    // input is read.
    let named = |prefix: &str| {
        std::fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with(prefix))
            .unwrap()
    };
    let (tables, records_file) = (named("tables."), named("records."));
    for file in ["manifest", tables.as_str()] {
        let good = std::fs::read(state.join(file)).unwrap();
        let mut cases: Vec<Vec<u8>> = vec![Vec::new()];
        cases.extend([9, 20, good.len() / 2, good.len() - 1].map(|n| good[..n].to_vec()));
        for at in [0, 10, 14, 30, good.len() / 3, good.len() - 3] {
            let mut g = good.clone();
            g[at] ^= 0x04;
            cases.push(g);
        }
        for bytes in cases {
            crate::util::remove_state(&broken);
            copy_dir(&state, &broken);
            std::fs::write(broken.join(file), &bytes).unwrap();
            let run = neardup(&["--state", b], b"a b c d e f\n");
            assert_eq!(run.code, 2, "{file}: {}", run.stderr);
            assert!(run.stderr.contains("--state"), "{}", run.stderr);
            assert!(!run.stderr.contains("panick"), "{}", run.stderr);
            assert!(run.stdout.is_empty());
        }
    }
    // Records cut short are refused at once; a record changed in place is found when it is
    // read back (the run stops with an error naming the index), never used.
    let records = std::fs::read(state.join(&records_file)).unwrap();
    crate::util::remove_state(&broken);
    copy_dir(&state, &broken);
    std::fs::write(broken.join(&records_file), &records[..records.len() / 2]).unwrap();
    let run = neardup(&["--state", b], b"a b c d e f\n");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("truncated"), "{}", run.stderr);
    let mut flipped = records.clone();
    for at in (100..flipped.len()).step_by(97) {
        flipped[at] ^= 0x10;
    }
    crate::util::remove_state(&broken);
    copy_dir(&state, &broken);
    std::fs::write(broken.join(&records_file), &flipped).unwrap();
    let run = neardup(&["--state", b], &tail_of(300));
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("damaged"), "{}", run.stderr);
    assert!(!run.stderr.contains("panick"), "{}", run.stderr);
}

/// The lines after the first `n` of the sample: documents that meet the saved ones.
fn tail_of(n: usize) -> Vec<u8> {
    let (_, tail) = halves(n);
    tail
}

/// Copies the files of directory `from` into a new directory `to`.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn sigterm_saves_what_was_written() {
    let whole = neardup(&["--annotate"], &sample_bytes()).ok().lines();
    let state = temp_path("signal.ndstate");
    crate::util::remove_state(&state);
    let (head, tail) = halves(400);
    let mut child = spawn_piped(
        bin()
            .args(["--annotate", "--line-buffered", "--state"])
            .arg(&state),
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&head).unwrap();
    stdin.flush().unwrap();
    // Wait until all 400 lines are written, then stop it with the input still open.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = Vec::new();
    for _ in 0..400 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        first.push(line.trim_end().to_string());
    }
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(output.status.code(), Some(128 + 15));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("state saved after input line 400"),
        "{stderr}"
    );
    let rest = neardup(&["--annotate", "--state", state.to_str().unwrap()], &tail)
        .ok()
        .lines();
    assert_eq!([first, rest].concat(), whole);
}

/// After kill -9 at any moment, the state says where it stopped and how many output lines go
/// with it: keep that many lines of the output, feed the input after that line, and the
/// result is the one-run output, no line repeated or lost.
#[test]
fn kill_9_at_any_moment_resumes_without_repeated_lines() {
    let sample = sample_bytes();
    let lines: Vec<&[u8]> = sample.split_inclusive(|&b| b == b'\n').collect();
    let whole = neardup(&["--id-field", "id"], &sample).ok().stdout;
    let mut stops: Vec<(usize, usize)> = Vec::new();
    for (trial, delay_ms) in [30u64, 55, 80, 105, 130, 155, 180, 230, 300]
        .into_iter()
        .enumerate()
    {
        let state = temp_path(&format!("kill9-{trial}.state"));
        let out_path = temp_path(&format!("kill9-{trial}.out"));
        crate::util::remove_state(&state);
        let args = [
            "--id-field",
            "id",
            "--state",
            state.to_str().unwrap(),
            "--checkpoint-every",
            "40",
        ];
        let mut child = bin()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::fs::File::create(&out_path).unwrap())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feeder = {
            let chunks: Vec<Vec<u8>> = lines.chunks(10).map(|c| c.concat()).collect();
            std::thread::spawn(move || {
                for chunk in chunks {
                    if stdin.write_all(&chunk).is_err() {
                        return;
                    }
                    let _ = stdin.flush();
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let _ = feeder.join();
        // Where the state stopped, and how much output goes with it.
        // (An index exists once its first manifest is in place: a kill before leaves a
        // directory without one, which a run takes for no index.)
        let (n, m) = if state.join("manifest").exists() {
            let probe = neardup(&[&args[..4], &[]].concat(), b"").ok();
            let said = probe
                .stderr
                .lines()
                .find(|l| l.contains("resuming after input line"))
                .unwrap_or_else(|| panic!("no resume line: {}", probe.stderr))
                .to_string();
            let numbers: Vec<usize> = said
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            (numbers[0], numbers[1])
        } else {
            (0, 0)
        };
        let written = std::fs::read(&out_path).unwrap();
        let mut kept: Vec<u8> = written
            .split_inclusive(|&b| b == b'\n')
            .take(m)
            .flatten()
            .copied()
            .collect();
        assert_eq!(
            kept.split_inclusive(|&b| b == b'\n').count(),
            m,
            "trial {trial}: the output holds the lines the state says"
        );
        let rest = lines[n..].concat();
        let resumed = neardup(&args[..4], &rest).ok();
        kept.extend_from_slice(&resumed.stdout);
        assert!(
            kept == whole,
            "trial {trial} (killed at {delay_ms} ms, line {n}): output differs"
        );
        stops.push((n, written.split_inclusive(|&b| b == b'\n').count() - m));
        crate::util::remove_state(&state);
        let _ = std::fs::remove_file(&out_path);
    }
    // Some kills landed mid-stream, after a checkpoint (the input is fed over half a
    // second; how far each kill got depends on the machine's load, so no trial is required
    // to have written past its checkpoint, though most do).
    assert!(
        stops.iter().any(|&(n, _)| n > 0 && n < lines.len()),
        "{stops:?}"
    );
}

/// The files a save of `dir` leaves behind, as a crash at each point of the next save would
/// (records appended after the manifest's end, the next tables written but no manifest, a
/// manifest half written, a compaction's next records file, a log segment appended but not
/// named): the next run resumes from the last complete save, as one run, and removes or cuts
/// what the manifest does not name.
#[test]
fn a_crash_at_any_point_of_a_save_leaves_the_last_save() {
    let args = ["--annotate", "-t", "0.6"];
    let whole = neardup(&args, &sample_bytes()).ok().stdout;
    let (head, tail) = halves(700);
    // Two runs before the crash: the second one's save appends to the tables' log.
    let (first, second) = halves_of(&head, 600);
    let state = temp_path("crashed");
    let with_state = |s: &std::path::Path| {
        [&args[..], &["--state", s.to_str().unwrap()]]
            .concat()
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
    };
    let name = |prefix: &str| {
        std::fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with(prefix))
            .unwrap()
    };
    let generation = |n: String| n.rsplit('.').next().unwrap().parse::<u64>().unwrap();
    let crashes: [&dyn Fn(&std::path::Path); 5] = [
        &|dir| {
            let records = dir.join(name("records."));
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(records)
                .unwrap();
            f.write_all(&[0xAB; 5000]).unwrap();
        },
        &|dir| {
            let t = generation(name("tables.")) + 1;
            std::fs::write(dir.join(format!("tables.{t}")), [1u8; 3000]).unwrap();
        },
        &|dir| std::fs::write(dir.join(".manifest.tmp4999999"), b"NDINDEX\0\x08").unwrap(),
        &|dir| {
            let r = generation(name("records.")) + 1;
            std::fs::write(dir.join(format!("records.{r}")), [2u8; 777]).unwrap();
        },
        &|dir| {
            let log = dir.join(name("log."));
            let mut f = std::fs::OpenOptions::new().append(true).open(log).unwrap();
            f.write_all(&[0xCD; 4321]).unwrap();
        },
    ];
    for (i, crash) in crashes.iter().enumerate() {
        crate::util::remove_state(&state);
        let a = with_state(&state);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let mut out = neardup(&a, &first).ok().stdout;
        out.extend(neardup(&a, &second).ok().stdout);
        assert!(
            state.join(name("log.")).exists(),
            "the second save appended"
        );
        crash(&state);
        out.extend(neardup(&a, &tail).ok().stdout);
        assert!(
            out == whole,
            "crash {i}: the resumed output differs from one run"
        );
        let left: Vec<String> = std::fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let prefixes = ["records.", "tables.", "log.", "manifest"];
        assert!(
            left.len() <= 4
                && prefixes
                    .iter()
                    .all(|p| left.iter().filter(|n| n.starts_with(p)).count() <= 1)
                && left
                    .iter()
                    .all(|n| prefixes.iter().any(|p| n.starts_with(p))),
            "crash {i}: only the saved files are left: {left:?}"
        );
    }
}

/// Runs that only read an index (`--against DIR`) share it, several at once and while a
/// writer saves it again and again: each gives the answer of the index it opened, and the
/// writer's saves are not disturbed.
#[test]
fn many_readers_share_an_index_while_it_is_saved() {
    let (head, tail) = halves(400);
    let state = temp_path("shared");
    crate::util::remove_state(&state);
    let s = state.to_str().unwrap();
    neardup(&["--state", s], &head).ok();
    let expected = neardup(&["--against", s, "--against-only"], &tail)
        .ok()
        .stdout;
    // The writer adds the tail's documents, saving every 20 of them.
    let mut writer =
        spawn_piped(bin().args(["--state", s, "--checkpoint-every", "20", "--line-buffered"]));
    let mut stdin = writer.stdin.take().unwrap();
    let readers: Vec<_> = (0..4)
        .map(|_| spawn_piped(bin().args(["--against", s, "--against-only", "-"])))
        .collect();
    let mut outputs = Vec::new();
    for mut r in readers {
        let mut input = r.stdin.take().unwrap();
        let fed = tail.clone();
        let feeding = std::thread::spawn(move || input.write_all(&fed));
        // Meanwhile the writer goes on saving.
        for line in tail.split_inclusive(|&b| b == b'\n').take(60) {
            stdin.write_all(line).unwrap();
        }
        stdin.flush().unwrap();
        feeding.join().unwrap().unwrap();
        let out = r.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push(out.stdout);
    }
    drop(stdin);
    let w = writer.wait_with_output().unwrap();
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    // A reader opened the index as it was at one of the writer's saves: with the head's
    // documents only it drops what the expected answer drops; having seen some of the tail
    // too it drops those as well. So its output is the expected one with lines left out.
    let lines = |b: &[u8]| {
        b.split(|&c| c == b'\n')
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>()
    };
    let want = lines(&expected);
    for out in &outputs {
        let mut rest = want.iter();
        for line in lines(out) {
            assert!(
                rest.any(|w| *w == line),
                "a reader wrote a line the index should drop"
            );
        }
    }
    // The index the writer left holds what one run over the same lines would.
    let one = temp_path("shared-one");
    crate::util::remove_state(&one);
    let fed: usize = tail
        .split_inclusive(|&b| b == b'\n')
        .take(60)
        .map(<[u8]>::len)
        .sum();
    let mut all = head.clone();
    for _ in 0..4 {
        all.extend(&tail[..fed]);
    }
    neardup(&["--state", one.to_str().unwrap()], &all).ok();
    assert!(
        crate::util::state_bytes(&state) == crate::util::state_bytes(&one),
        "the writer's index differs from one run's"
    );
}

/// The sample split after a line, with one run's output over the whole and over the head.
struct Resumed {
    whole: Vec<u8>,
    head: Vec<u8>,
    tail: Vec<u8>,
    first: Vec<u8>,
}

/// [`Resumed`] with `args`, the sample split after line `cut`.
fn resumed(args: &[&str], cut: usize) -> Resumed {
    let whole = neardup(args, &sample_bytes()).ok().stdout;
    let (head, tail) = halves(cut);
    let first = neardup(args, &head).ok().stdout;
    Resumed {
        whole,
        head,
        tail,
        first,
    }
}

/// A single-file state saved by an earlier version (7, by the build before the index, over
/// the sample's first 300 lines) resumes as it did, and its first save turns it into an
/// index directory at the same path, said once; a conversion that stopped after moving the
/// file aside resumes from the file.
#[test]
fn an_old_state_file_resumes_and_becomes_an_index() {
    let args = ["--annotate", "-t", "0.6"];
    let Resumed {
        whole, tail, first, ..
    } = resumed(&args, 300);
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/state-v7.ndstate");
    for aside in [false, true] {
        let state = temp_path(&format!("old-{aside}.ndstate"));
        crate::util::remove_state(&state);
        let copy = match aside {
            false => state.clone(),
            true => state.with_file_name(format!(".old-{aside}.ndstate.old")),
        };
        std::fs::copy(fixture, &copy).unwrap();
        let with_state = [&args[..], &["--state", state.to_str().unwrap()]].concat();
        let run = neardup(&with_state, &tail).ok();
        assert!(
            [first.clone(), run.stdout].concat() == whole,
            "resumed from the old file (aside: {aside}), the output differs from one run"
        );
        assert!(
            run.stderr.contains("is now an index directory"),
            "{}",
            run.stderr
        );
        let moved = state.with_file_name(format!(".old-{aside}.ndstate.old"));
        assert!(
            state.is_dir() && !moved.exists(),
            "the file became the index"
        );
        let again = neardup(&with_state, b"").ok();
        assert!(
            !again.stderr.contains("index directory"),
            "said once: {}",
            again.stderr
        );
    }
}

/// An index of version 9 (tables read into RAM, before they were laid out to be mapped;
/// made by two runs of the build of 2026-11-27, 150 sample lines each, so it has a log)
/// resumes as one run would, for a writer and for a reader, and the writer's save makes it
/// today's version, whose tables are mapped at the next opening.
#[test]
fn an_index_of_version_9_resumes_and_is_written_anew() {
    let args = ["--annotate", "-t", "0.6"];
    let Resumed {
        whole,
        head,
        tail,
        first,
    } = resumed(&args, 300);
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/index-v9");
    let state = temp_path("index-v9");
    crate::util::remove_state(&state);
    std::fs::create_dir_all(&state).unwrap();
    for file in std::fs::read_dir(&fixture).unwrap() {
        let file = file.unwrap().path();
        std::fs::copy(&file, state.join(file.file_name().unwrap())).unwrap();
    }
    let version = |dir: &std::path::Path| {
        let m = std::fs::read(dir.join("manifest")).unwrap();
        u32::from_le_bytes(m[8..12].try_into().unwrap())
    };
    assert_eq!(version(&state), 9);
    let old = info_json(&state);
    assert_eq!(
        (old["version"].as_u64(), old["mapped_bytes"].as_u64()),
        (Some(9), Some(0))
    );
    let against = [&args[..], &["--against", state.to_str().unwrap()]].concat();
    let read = neardup(&against, &tail).ok().stdout;
    let fresh = temp_path("index-v10-from-head");
    crate::util::remove_state(&fresh);
    let fresh_args = [&args[..], &["--state", fresh.to_str().unwrap()]].concat();
    neardup(&fresh_args, &head).ok();
    let fresh_against = [&args[..], &["--against", fresh.to_str().unwrap()]].concat();
    assert!(
        read == neardup(&fresh_against, &tail).ok().stdout,
        "--against the version 9 index reads like --against today's"
    );
    assert_eq!(version(&state), 9, "a reader changes nothing");
    let with_state = [&args[..], &["--state", state.to_str().unwrap()]].concat();
    let run = neardup(&with_state, &tail).ok();
    assert!(
        [first.clone(), run.stdout].concat() == whole,
        "resumed from version 9, the output differs from one run"
    );
    assert!(version(&state) > 9, "the save wrote today's version");
    let new = info_json(&state);
    assert!(new["version"].as_u64() > Some(9), "{new}");
    assert!(
        new["mapped_bytes"].as_u64() > Some(100_000),
        "today's tables are mapped: {new}"
    );
    assert!(
        !state.join("log.1").exists(),
        "the tables were written whole, without the old log"
    );
    // Today's index opens mapped and says what the fresh one says of the same documents.
    neardup(&fresh_args, &tail).ok();
    assert!(crate::util::state_bytes(&state) == crate::util::state_bytes(&fresh));
    crate::util::remove_state(&state);
    crate::util::remove_state(&fresh);
}

/// `neardup state info` says what an index holds (the documents `--stats` counted, the lines
/// read and written); `state compact` drops the records of evicted documents without
/// changing what the index holds or what a resumed run writes.
#[test]
fn state_info_and_compact() {
    let (head, tail) = halves(600);
    let state = temp_path("compacted");
    crate::util::remove_state(&state);
    let s = state.to_str().unwrap();
    let args = ["--window", "50", "--stats", "--state", s];
    // Two runs: the second evicts documents the first saved, whose records stay in the
    // index's file as garbage.
    let (a, b) = halves_of(&head, 300);
    let mut first = neardup(&args, &a).ok();
    let second = neardup(&args, &b).ok();
    first.stdout.extend(second.stdout.iter());
    let info = |check: bool| {
        let mut a = vec!["state", "info", "--json"];
        if check {
            a.push("--check");
        }
        let out = bin().args(&a).arg(&state).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let before = info(true);
    assert_eq!(before["documents"], second.stats()["window_docs"]);
    assert_eq!(before["lines_read"], 600);
    assert!(before["garbage_bytes"].as_u64().unwrap() > 0, "{before}");
    let text = bin().args(["state", "info"]).arg(&state).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("documents:      50"), "{text}");

    // Past a file size limit (a full disk) the compaction fails and leaves the index as it
    // was: no part of its new records file is left behind.
    let files = |dir: &std::path::Path| {
        let mut v: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| (e.file_name(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    };
    let untouched = files(&state);
    let mut cmd = bin();
    cmd.args(["state", "compact"]).arg(&state);
    crate::util::with_rlimit(&mut cmd, libc::RLIMIT_FSIZE, 1024);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is left as it was"), "{stderr}");
    assert!(files(&state) == untouched, "{stderr}");

    let out = bin()
        .args(["state", "compact"])
        .arg(&state)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = info(true);
    assert_eq!(after["garbage_bytes"], 0);
    assert!(after["records_bytes"].as_u64() < before["records_bytes"].as_u64());
    for key in [
        "digest",
        "documents",
        "lines_read",
        "lines_written",
        "settings",
    ] {
        assert_eq!(after[key], before[key], "{key}");
    }
    let resumed = neardup(&args, &tail).ok().stdout;
    let whole = neardup(&args[..2], &sample_bytes()).ok().stdout;
    assert!(
        [first.stdout, resumed].concat() == whole,
        "compacted, the resume differs"
    );

    // Not an index: a usage error that says what it is.
    let old = temp_path("old-info.ndstate");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/state-v7.ndstate"),
        &old,
    )
    .unwrap();
    let out = bin().args(["state", "info"]).arg(&old).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("single-file state"), "{err}");
}

/// An index's tables truncated by another program while a run has them mapped: the run
/// says which file and exits 1 with its output at a whole line, instead of dying of SIGBUS
/// without a word.
#[test]
fn a_mapped_index_truncated_under_a_run_is_named() {
    use std::io::Read;
    let mut words = crate::util::Words::new(77);
    let doc = |words: &mut crate::util::Words| words.doc(30).join(" ") + "\n";
    let first: String = (0..6000).map(|_| doc(&mut words)).collect();
    let state = temp_path("truncated-under.state");
    crate::util::remove_state(&state);
    neardup(
        &["-q", "--state", state.to_str().unwrap()],
        first.as_bytes(),
    )
    .ok();
    let mut child =
        crate::util::spawn_piped(bin().args(["-q", "--state", state.to_str().unwrap()]));
    let mut stdin = child.stdin.take().unwrap();
    let head: String = (0..50).map(|_| doc(&mut words)).collect();
    stdin.write_all(head.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The first lines come out once they are decided (the input pauses): the index is open.
    let mut stdout = child.stdout.take().unwrap();
    let mut got = [0u8; 1];
    stdout.read_exact(&mut got).unwrap();
    let tables = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tables.")
        })
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&tables)
        .unwrap()
        .set_len(0)
        .unwrap();
    let rest: String = (0..6000).map(|_| doc(&mut words)).collect();
    let _ = stdin.write_all(rest.as_bytes());
    drop(stdin);
    let mut out = Vec::new();
    let _ = stdout.read_to_end(&mut out);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("was changed by another program"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&tables.file_name().unwrap().to_string_lossy().to_string()),
        "{stderr}"
    );
    assert!(out.is_empty() || out.ends_with(b"\n"));
}

/// A record of an index that fails its checksum when the run reads it is a damaged index:
/// exit status 2 naming the index and how far the output is complete, with no word of disk
/// space (it once advised freeing some).
#[test]
fn a_damaged_record_is_a_damaged_index() {
    let sample = crate::util::sample_bytes();
    let head = crate::util::first_lines(&sample, 500);
    let state = temp_path("damaged-record");
    crate::util::remove_state(&state);
    let s = state.to_str().unwrap();
    neardup(&["-q", "--state", s], &head).ok();
    let records = state.join("records.1");
    let mut bytes = std::fs::read(&records).unwrap();
    for i in (1000..bytes.len()).step_by(997) {
        bytes[i] ^= 0x5a;
    }
    std::fs::write(&records, bytes).unwrap();
    let run = neardup(&["-q", "--state", s], &sample[head.len()..]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("is damaged"), "{}", run.stderr);
    assert!(run.stderr.contains(s), "{}", run.stderr);
    assert!(run.stderr.contains("complete up to line"), "{}", run.stderr);
    assert!(!run.stderr.contains("disk space"), "{}", run.stderr);
}

/// SIGTERM while the input is a FIFO whose writer is still open and sends nothing: the run
/// saves its state and ends at once with 143 (the reader's wait on the idle FIFO gives up
/// when the run returns; the engine does not end the process itself), and the resumed run
/// goes on from the line after.
#[test]
fn sigterm_while_an_open_fifo_is_idle_saves_and_ends() {
    let dir = temp_path("fifo-stop");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("in.fifo");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let state = dir.join("run.ndstate");
    let mut child = spawn_piped(
        bin()
            .args(["--line-buffered", "--state"])
            .arg(&state)
            .arg(&fifo),
    );
    // Opening the FIFO for writing waits for the run to open it for reading.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer
        .write_all(b"the first document of the stream\nthe second document here\n")
        .unwrap();
    writer.flush().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..2 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
    }
    let asked = std::time::Instant::now();
    // SAFETY: signals a child of this test.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let waited = asked.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    drop(writer);
    assert_eq!(output.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    assert!(waited < std::time::Duration::from_secs(3), "{waited:?}");
    assert!(
        stderr.contains("state saved after input line 2"),
        "{stderr}"
    );
    let rest = neardup(
        &["--state", state.to_str().unwrap()],
        b"the third document arrives later\nthe first document of the stream\n",
    )
    .ok();
    assert_eq!(rest.lines(), ["the third document arrives later"]);
    let _ = std::fs::remove_dir_all(&dir);
}
