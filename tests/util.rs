//! Helpers to run the real binary: feed stdin from another thread, capture everything.

use std::io::Write;
use std::process::{Command, Stdio};

pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    pub fn out(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    pub fn lines(&self) -> Vec<String> {
        self.out().lines().map(str::to_string).collect()
    }

    /// Asserts success and returns self, printing stderr on failure.
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "exit code {}; stderr:\n{}",
            self.code, self.stderr
        );
        self
    }

    /// The `--stats` JSON line from stderr.
    pub fn stats(&self) -> serde_json::Value {
        let line = self
            .stderr
            .lines()
            .rev()
            .find(|l| l.starts_with('{'))
            .unwrap_or_else(|| panic!("no stats line in stderr:\n{}", self.stderr));
        serde_json::from_str(line).expect("stats line is JSON")
    }
}

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
}

/// Starts `cmd` with piped standard input, output and error.
pub fn spawn_piped(cmd: &mut Command) -> std::process::Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start neardup")
}

/// Runs neardup with `args`, writing `stdin` to its standard input.
pub fn neardup(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = bin()
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start neardup");
    let mut pipe = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // The child may exit before reading everything (e.g. on --on-bad-line fail).
        let _ = pipe.write_all(&data);
    });
    let output = child.wait_with_output().expect("wait for neardup");
    feeder.join().expect("feeder thread");
    Run {
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

pub const SAMPLE: &str = "tests/data/reuters-sample.jsonl";

pub fn sample_bytes() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reuters-sample.jsonl"
    ))
    .expect("read sample")
}

/// The first `n` lines of `data`, terminators included.
pub fn first_lines(data: &[u8], n: usize) -> Vec<u8> {
    data.split_inclusive(|&b| b == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect()
}

/// A deterministic pseudo-random word stream.
pub struct Words(u64);

impl Words {
    pub fn new(seed: u64) -> Words {
        Words(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn word(&mut self) -> String {
        format!("w{}", self.next_u64() % 5000)
    }

    pub fn doc(&mut self, words: usize) -> Vec<String> {
        (0..words).map(|_| self.word()).collect()
    }
}

/// A path in this test run's temporary directory, which is removed when the run exits (kept
/// when `NEARDUP_TEST_KEEP` is set, to look at after a failure) so that runs do not fill the
/// disk; directories left by runs that were killed are removed by the next run.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        remove_stale_runs();
        let dir = run_dir(std::process::id());
        std::fs::create_dir_all(&dir).unwrap();
        if std::env::var_os("NEARDUP_TEST_KEEP").is_none() {
            // SAFETY: registers a plain function to run at exit, once.
            unsafe { libc::atexit(remove_run_dir) };
        }
        dir
    });
    dir.join(name)
}

fn run_dir(pid: u32) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("neardup-tests-{pid}"))
}

extern "C" fn remove_run_dir() {
    let _ = std::fs::remove_dir_all(run_dir(std::process::id()));
}

/// Removes the directories of earlier runs whose process is gone.
fn remove_stale_runs() {
    if std::env::var_os("NEARDUP_TEST_KEEP").is_some() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("neardup-tests-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Sets the child's resource limit `resource` (`libc::RLIMIT_AS`, `RLIMIT_FSIZE`, …) to
/// `bytes` before it runs: `ulimit -v` or `ulimit -f` for one command.
pub fn with_rlimit(
    cmd: &mut Command,
    resource: libc::__rlimit_resource_t,
    bytes: u64,
) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(resource, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        })
    }
}

/// Removes a `--state` path, an index directory or an old single file, if there is one.
pub fn remove_state(path: &std::path::Path) {
    let _ = std::fs::remove_dir_all(path);
    let _ = std::fs::remove_file(path);
}

/// What a saved state holds, to compare two saves: for an index directory, what
/// `neardup state info --check --json` says of its documents (not of its files, whose layout
/// depends on when the saves were made); a file's bytes.
pub fn state_bytes(path: &std::path::Path) -> Vec<u8> {
    if !path.is_dir() {
        return std::fs::read(path).unwrap();
    }
    let out = bin()
        .args(["state", "info", "--check", "--json"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "records_bytes",
        "tables_bytes",
        "log_bytes",
        "log_documents",
        "garbage_bytes",
        "ram_bytes_when_opened",
        "mapped_bytes",
        "index",
    ] {
        v.as_object_mut().unwrap().remove(key);
    }
    v.to_string().into_bytes()
}

/// Every file of a saved state, to check that nothing changed it.
pub fn state_files(path: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    if !path.is_dir() {
        return vec![(String::new(), std::fs::read(path).unwrap())];
    }
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The sample's first `rows` documents (all with `None`) as an Arrow batch: `id` (Int64) and
/// `text` (Utf8).
pub fn sample_table(rows: Option<usize>) -> arrow_array::RecordBatch {
    use arrow_array::{Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let (ids, texts) = sample_rows();
    let n = rows.unwrap_or(ids.len()).min(ids.len());
    let schema = std::sync::Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("text", DataType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            std::sync::Arc::new(Int64Array::from(ids[..n].to_vec())),
            std::sync::Arc::new(StringArray::from(texts[..n].to_vec())),
        ],
    )
    .unwrap()
}

/// The sample's first `n` rows (id, text) as an Arrow stream, left open (no end marker), or
/// all of them, ended.
pub fn arrow_stream(rows: Option<usize>) -> Vec<u8> {
    let batch = sample_table(rows);
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

/// The sample's documents as columns: ids and texts.
pub fn sample_rows() -> (Vec<i64>, Vec<String>) {
    let (mut ids, mut texts) = (Vec::new(), Vec::new());
    for line in sample_bytes()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        ids.push(v["id"].as_i64().unwrap());
        texts.push(v["text"].as_str().unwrap().to_string());
    }
    (ids, texts)
}
