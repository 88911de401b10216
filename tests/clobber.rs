//! Nothing clobbered: a run never writes over one of its inputs, never writes in a state
//! directory that holds files it did not write, and never writes through a link planted
//! under the name of its lock or temporary files.

use crate::util::{SAMPLE, bin, first_lines, neardup, sample_bytes, temp_path};
use std::path::Path;

/// A fresh directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = temp_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

/// `-o`, `--report` and `--state` naming an input (under its own name, a hard link or a
/// symbolic link) are refused before the input is read or truncated; so is a standard output
/// redirected onto an input, as `cat` refuses it.
#[test]
fn an_input_is_never_an_output() {
    let dir = scratch("own-input");
    let input = dir.join("in.jsonl");
    let data = first_lines(&sample_bytes(), 40);
    std::fs::write(&input, &data).unwrap();
    std::fs::hard_link(&input, dir.join("hard.jsonl")).unwrap();
    std::os::unix::fs::symlink("in.jsonl", dir.join("soft.jsonl")).unwrap();
    for args in [
        &["in.jsonl", "-o", "in.jsonl"][..],
        &["in.jsonl", "-o", "hard.jsonl"],
        &["in.jsonl", "-o", "soft.jsonl"],
        &["in.jsonl", "--report", "in.jsonl"],
        &["in.jsonl", "--state", "hard.jsonl"],
        &["graph", "in.jsonl", "-o", "in.jsonl"],
        &["clusters", "in.jsonl", "-o", "soft.jsonl"],
    ] {
        let out = run_in(&dir, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("also an input"), "{args:?}: {stderr}");
        assert_eq!(std::fs::read(&input).unwrap(), data, "{args:?}");
    }
    // Standard output appended to the input itself.
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .unwrap();
    let out = bin()
        .arg("in.jsonl")
        .current_dir(&dir)
        .stdout(appended)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("input file is output file"), "{stderr}");
    assert_eq!(std::fs::read(&input).unwrap(), data);
    // Another file is written as before.
    let out = run_in(&dir, &["-q", "in.jsonl", "-o", "out.jsonl"]);
    assert!(out.status.success());
    assert!(!std::fs::read(dir.join("out.jsonl")).unwrap().is_empty());
}

/// A `--state` directory that is not empty and holds no index is refused, listing what is
/// there, and nothing in it changes: a user's files, or an index whose manifest was deleted.
/// An index missing a file its manifest lists is a damaged index naming the file.
#[test]
fn a_state_directory_holding_other_files_is_refused() {
    let dir = scratch("foreign-state");
    let input = first_lines(&sample_bytes(), 100);
    let user = dir.join("user");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join("notes.txt"), "n").unwrap();
    std::fs::write(user.join("records.7"), "x").unwrap();
    let run = neardup(&["-q", "--state", user.to_str().unwrap()], &input);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("notes.txt") && run.stderr.contains("records.7"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(user.join("records.7")).unwrap(), b"x");
    let other = dir.join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "n").unwrap();
    let run = neardup(&["-q", "--state", other.to_str().unwrap()], &input);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("holds no index"), "{}", run.stderr);
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);

    // An empty directory starts an index; with its manifest deleted it is damaged.
    let index = dir.join("index");
    std::fs::create_dir(&index).unwrap();
    neardup(&["-q", "--state", index.to_str().unwrap()], &input).ok();
    let files = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let saved = files(&index);
    let records = saved
        .iter()
        .find(|n| n.starts_with("records."))
        .unwrap()
        .clone();
    let kept = std::fs::read(index.join("manifest")).unwrap();
    std::fs::remove_file(index.join("manifest")).unwrap();
    let before = files(&index);
    let run = neardup(&["-q", "--state", index.to_str().unwrap()], &input);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("damaged index"), "{}", run.stderr);
    assert_eq!(files(&index), before, "nothing removed");
    // The manifest back, a records file gone: damaged, naming the file.
    std::fs::write(index.join("manifest"), kept).unwrap();
    std::fs::rename(index.join(&records), dir.join("aside")).unwrap();
    let run = neardup(&["-q", "--state", index.to_str().unwrap()], &input);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(&records), "{}", run.stderr);
    // A file of an index's naming that its manifests never listed stays after a save.
    std::fs::rename(dir.join("aside"), index.join(&records)).unwrap();
    std::fs::write(index.join("records.0"), "mine").unwrap();
    neardup(&["-q", "--state", index.to_str().unwrap()], &input).ok();
    assert_eq!(std::fs::read(index.join("records.0")).unwrap(), b"mine");
}

/// Links planted where the run puts its lock and temporaries are never written through:
/// the lock is refused, and the report's temporary has a name no one can guess.
#[test]
fn planted_links_are_not_followed() {
    let dir = scratch("planted");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join(".S.lock")).unwrap();
    let input = first_lines(&sample_bytes(), 50);
    let state = dir.join("S");
    let run = neardup(&["-q", "--state", state.to_str().unwrap()], &input);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    // The names earlier versions used for the report's and the state check's temporaries.
    let report = dir.join("page.html");
    std::os::unix::fs::symlink(
        &victim,
        dir.join(format!("page.html.{}.tmp", std::process::id())),
    )
    .unwrap();
    let run = neardup(&["-q", "--report", report.to_str().unwrap(), SAMPLE], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    let page = std::fs::metadata(&report).unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        page.permissions().mode() & 0o044,
        0o044,
        "readable as File::create makes it"
    );
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("neardup-"))
        .collect();
    assert!(left.is_empty(), "no temporary left: {left:?}");
    // A link planted in an index directory under the name of the log the next save appends
    // to: the save is refused, naming it, and its target keeps its bytes.
    std::fs::remove_file(dir.join(".S.lock")).unwrap();
    let sample = sample_bytes();
    let run = neardup(
        &["-q", "--state", state.to_str().unwrap()],
        &first_lines(&sample, 50),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = state.join("log.1");
    std::os::unix::fs::symlink(&victim, &log).unwrap();
    let next: Vec<u8> = (sample.split_inclusive(|&b| b == b'\n'))
        .skip(50)
        .take(50)
        .flatten()
        .copied()
        .collect();
    let run = neardup(&["-q", "--state", state.to_str().unwrap()], &next);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{} is a symbolic link", log.display())),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
}
