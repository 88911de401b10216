//! Small helpers the commands share: writing a report or a file, `--stats` lines, inputs
//! read more than once, how the binary exits (usage errors, failures, a closed stdout), and
//! the grouping step of the graph commands.

use crate::config::Config;
use crate::error::{Error, Result, WordedWriter, Wording};
use crate::graph::{ClusterBy, ClusterOptions, Clustering, DupGraph};
use crate::input::Input;
use crate::temporary::Replacing;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set before Rust's runtime starts when descriptor 1 was closed (`>&-`): the runtime then
/// opens `/dev/null` read-write there, which a caller may also have done on purpose (Python's
/// `subprocess.DEVNULL`), so only a look before it can tell the two apart.
static STDOUT_CLOSED_AT_START: AtomicBool = AtomicBool::new(false);

/// Run by the loader before `main` and before Rust's runtime reopens closed standard
/// descriptors (an `.init_array` entry, as C constructors are).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static LOOK_AT_STDOUT: extern "C" fn() = {
    extern "C" fn look_at_stdout() {
        // SAFETY: fcntl(F_GETFD) only reads the descriptor's flags.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            STDOUT_CLOSED_AT_START.store(true, Ordering::Relaxed);
        }
    }
    look_at_stdout
};

/// Whether standard output was open when the process started.
pub(super) fn stdout_is_open() -> bool {
    if cfg!(target_os = "linux") {
        return !STDOUT_CLOSED_AT_START.load(Ordering::Relaxed);
    }
    // Elsewhere, a guess: a shell's `> /dev/null` opens it write-only, and the runtime's
    // read-write, so `/dev/null` opened read-write on descriptor 1 is taken for `>&-`.
    // SAFETY: fcntl(F_GETFL) and fstat only read the descriptor's state into `stat`.
    unsafe {
        let flags = libc::fcntl(1, libc::F_GETFL);
        if flags == -1 {
            return false;
        }
        let mut stat: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut stat) != 0 {
            return false;
        }
        let dev_null = (stat.st_mode & libc::S_IFMT) == libc::S_IFCHR
            && libc::major(stat.st_rdev) == 1
            && libc::minor(stat.st_rdev) == 3;
        !(dev_null && flags & libc::O_ACCMODE == libc::O_RDWR)
    }
}

/// Usage errors go to stderr with exit code 2; `--help` and `--version` to stdout with 0,
/// unless stdout cannot take them (a full disk: 1; a closed pipe is no failure).
pub(super) fn clap_exit(e: &clap::Error) -> u8 {
    if e.use_stderr() {
        let _ = e.print();
        return e.exit_code() as u8;
    }
    let mut out = std::io::stdout().lock();
    // Styles only for a person at a terminal who has not asked for none (no-color.org).
    let styled = std::io::IsTerminal::is_terminal(&out) && std::env::var_os("NO_COLOR").is_none();
    let text = match styled {
        true => e.render().ansi().to_string(),
        false => e.render().to_string(),
    };
    match write!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => e.exit_code() as u8,
        Err(w) if w.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(w) => {
            eprintln!("neardup: writing output: {w}");
            1
        }
    }
}

/// Prints the error and its causes on one line and returns its exit code.
pub(super) fn fail(e: &Error) -> u8 {
    let mut message = format!("neardup: {e}");
    let mut source = std::error::Error::source(e);
    // The Io variant already prints its source; show deeper causes only.
    if let Some(s) = source {
        source = s.source();
    }
    while let Some(s) = source {
        message.push_str(&format!(": {s}"));
        source = s.source();
    }
    eprintln!("{message}");
    e.exit_code() as u8
}

/// Writes `text` to standard output.
pub(super) fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("writing output", e))
}

/// Writes `text` to the file at `path` (`--plot`).
pub(super) fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// Prints a `--stats` line (a JSON value) to standard error.
pub(super) fn print_stats(stats: &serde_json::Value) {
    let _ = writeln!(diagnostics(), "{stats}");
}

/// Seconds since `start`, rounded to milliseconds (for `--stats`).
pub(super) fn seconds_since(start: std::time::Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 1000.0).round() / 1000.0
}

/// The inputs of a command that reads them more than once (`explain`, `sample`,
/// `clusters --keep`): standard input, when it is one of them, is copied on the first open
/// to a file with no name in `--spill-dir` and read back from there (with `--spill-dir none`,
/// held in memory), so that a large stream costs disk, not the memory budget.
pub(super) struct Rereadable {
    paths: Vec<PathBuf>,
    /// `--decompress`, for the files (standard input is read as it is, to be read again).
    decompress: crate::config::Decompress,
    stdin: Option<Spooled>,
}

/// Standard input, kept to be read again.
#[derive(Clone)]
enum Spooled {
    File(Arc<std::fs::File>),
    Memory(Arc<[u8]>),
}

/// A reader of a shared file from its start, at its own position (`pread`), so that each
/// open reads the whole file whatever the others did.
struct FromStart {
    file: Arc<std::fs::File>,
    at: u64,
}

impl Read for FromStart {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

impl Rereadable {
    /// Reads standard input now if the inputs include it, into a file with no name in
    /// `spill_dir` (in memory without one).
    pub(super) fn new(config: &Config) -> Result<Rereadable> {
        let paths = &config.inputs;
        let reads_stdin = paths.is_empty() || paths.iter().any(|p| p.as_os_str() == "-");
        let stdin = match (reads_stdin, &config.memory.spill_dir) {
            (false, _) => None,
            (true, Some(dir)) => {
                let spooling = |e| {
                    Error::io(
                        format!("copying standard input to a file in {}", dir.display()),
                        e,
                    )
                };
                let mut file = crate::temporary::unnamed_in(dir).map_err(|e| {
                    Error::config(
                        "spill-dir",
                        format!(
                            "no file can be made in {} to hold standard input: {e}",
                            dir.display()
                        ),
                    )
                })?;
                std::io::copy(&mut std::io::stdin().lock(), &mut file).map_err(|e| match e
                    .kind()
                {
                    std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
                    | std::io::ErrorKind::FileTooLarge => spooling(e),
                    _ => Error::io("reading standard input", e),
                })?;
                Some(Spooled::File(Arc::new(file)))
            }
            (true, None) => {
                let mut data = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut data)
                    .map_err(|e| Error::io("reading standard input", e))?;
                Some(Spooled::Memory(data.into()))
            }
        };
        Ok(Rereadable {
            paths: paths.to_vec(),
            stdin,
            decompress: config.read.decompress,
        })
    }

    /// Opens the inputs from the start.
    pub(super) fn open(&self) -> Result<Vec<Input>> {
        let stdin_input = |spooled: &Spooled| {
            let reader: Box<dyn Read + Send> = match spooled {
                Spooled::File(file) => Box::new(FromStart {
                    file: Arc::clone(file),
                    at: 0,
                }),
                Spooled::Memory(data) => Box::new(std::io::Cursor::new(Arc::clone(data))),
            };
            Input::from_reader("-", reader)
        };
        if self.paths.is_empty() {
            return Ok(self.stdin.as_ref().map(stdin_input).into_iter().collect());
        }
        self.paths
            .iter()
            .map(|p| match &self.stdin {
                Some(spooled) if p.as_os_str() == "-" => Ok(stdin_input(spooled)),
                _ => Input::open(p, self.decompress),
            })
            .collect()
    }
}

/// Groups the graph ([`DupGraph::cluster_in_thread`]) and prints the grouping's warnings
/// unless `--quiet`.
pub(super) fn cluster(
    config: &Config,
    graph: &DupGraph,
    by: ClusterBy,
    options: ClusterOptions,
) -> Result<Clustering> {
    let clustering = graph.cluster_in_thread(by, options)?;
    if !config.quiet {
        let mut stderr = diagnostics();
        for w in &clustering.warnings {
            let _ = writeln!(stderr, "neardup: warning: {w}");
        }
    }
    Ok(clustering)
}

/// Standard output for what the graph commands write after the input: once SIGINT or
/// SIGTERM asked the program to stop, the line being written is finished and the next one
/// refused, so that a stopped command's output ends at a whole line ([`stopped_writing`]
/// says why it ended). It sees the bytes in any pieces (a buffer's, a formatter's).
pub(super) struct StopAtLine<W> {
    inner: W,
    /// The bytes written so far end a line (or none were written).
    at_line_start: bool,
}

impl<W: Write> StopAtLine<W> {
    pub(super) fn new(inner: W) -> StopAtLine<W> {
        StopAtLine {
            inner,
            at_line_start: true,
        }
    }
}

impl<W: Write> Write for StopAtLine<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if bytes.is_empty() {
            return Ok(0);
        }
        let stopping = crate::guard::stop_requested().is_some();
        if stopping && self.at_line_start {
            return Err(std::io::Error::other("stopped by a signal"));
        }
        // Stopping mid-line: the line's end goes out, nothing after it.
        let bytes = match stopping {
            true => match memchr::memchr(b'\n', bytes) {
                Some(end) => &bytes[..=end],
                None => bytes,
            },
            false => bytes,
        };
        let n = self.inner.write(bytes)?;
        if n > 0 {
            self.at_line_start = bytes[n - 1] == b'\n';
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `result`, the end of writing through a [`StopAtLine`], as the stop it was when a signal
/// asked for one: exit status 128 + the signal, and what was written. A closed output counts
/// as the signal's too: when a whole pipeline is signalled its reader may go first.
pub(super) fn stopped_writing<T>(result: Result<T>) -> Result<T> {
    match (result, crate::guard::stop_requested()) {
        (Err(e), Some(signal)) if !matches!(e, Error::Stopped { .. }) => Err(Error::Stopped {
            status: 128 + signal,
            message: Some(format!(
                "interrupted (signal {signal}) after the input ended, while writing the \
                 results; the output ends at a whole line"
            )),
        }),
        (result, _) => result,
    }
}

/// `--stats` of the graph commands ([`crate::export::run_stats`]), printed when asked for.
/// `start` is when the command started.
pub(super) fn graph_stats(
    config: &Config,
    summary: Option<&crate::Summary>,
    graph: &DupGraph,
    clustering: &Clustering,
    start: std::time::Instant,
) -> serde_json::Value {
    let value = summary.map(|s| serde_json::from_str(&s.to_json()).expect("the summary is JSON"));
    let pipeline = summary.map_or(0.0, |s| s.seconds);
    let total = start.elapsed().as_secs_f64();
    let stats = crate::export::run_stats(value, pipeline, total, graph, clustering);
    if config.stats {
        print_stats(&stats);
    }
    stats
}

/// What the report page says a graph command's groups are.
pub(super) fn groups_about(by: crate::graph::ClusterBy, keep: Option<&str>) -> String {
    let groups = match by {
        crate::graph::ClusterBy::Components => {
            "A group is a connected component of the verified pairs: documents joined by a \
             chain of pairs at or above the threshold (the ends of a chain may share little)."
        }
        crate::graph::ClusterBy::Cliques => {
            "A group is a clique of the verified pairs: every two of its documents are at or \
             above the threshold (the largest cliques of what is left first)."
        }
    };
    let first = match keep {
        None => "Each group is shown from its first document in input order.".to_string(),
        Some(policy) => {
            let why = match policy.split_once(':') {
                Some(("max", field)) => format!("the one with the largest '{field}'"),
                Some(("min", field)) => format!("the one with the smallest '{field}'"),
                _ => match policy {
                    "first" => "the first in input order".to_string(),
                    "last" => "the last in input order".to_string(),
                    "longest" => "the one with the longest text (in bytes)".to_string(),
                    _ => "the one with the shortest text (in bytes)".to_string(),
                },
            };
            format!(
                "With --keep {policy}, one document of each group is kept, {why} (ties: the \
                 earliest), and shown first."
            )
        }
    };
    format!("{groups} {first}")
}

/// A graph command's groups as the report page shows them: sizes, and the largest groups
/// with their first (or kept, `survivors` by group label) member and a few others, their
/// texts from the collector while it holds them.
pub(super) fn report_groups(
    graph: &DupGraph,
    clustering: &Clustering,
    collector: &crate::report::Collector,
    survivors: Option<&[u32]>,
    about: String,
) -> crate::report::Groups {
    let mut by_size: std::collections::BTreeMap<u64, u64> = Default::default();
    for &size in &clustering.cluster_size {
        *by_size.entry(u64::from(size)).or_default() += 1;
    }
    let mut labels: Vec<u32> = (0..clustering.cluster_size.len() as u32)
        .filter(|&l| clustering.cluster_size[l as usize] >= 2)
        .collect();
    labels.sort_by_key(|&l| (std::cmp::Reverse(clustering.cluster_size[l as usize]), l));
    labels.truncate(crate::report::TOP_GROUPS);
    let shown = |node: u32| {
        let line = graph.lines[node as usize];
        crate::report::Shown {
            line,
            id: graph.graph[petgraph::graph::NodeIndex::new(node as usize)]
                .id
                .clone(),
            text: collector.text_of(line),
        }
    };
    let largest = labels
        .iter()
        .map(|&label| {
            let first = match survivors {
                Some(s) => s[label as usize],
                None => clustering
                    .cluster
                    .iter()
                    .position(|&c| c == label)
                    .unwrap_or(0) as u32,
            };
            let others: Vec<_> = (0..clustering.cluster.len() as u32)
                .filter(|&n| clustering.cluster[n as usize] == label && n != first)
                .take(3)
                .map(shown)
                .collect();
            (
                shown(first),
                u64::from(clustering.cluster_size[label as usize]),
                others,
            )
        })
        .collect();
    crate::report::Groups {
        sizes: by_size.into_iter().collect(),
        largest,
        about,
        first: if survivors.is_some() { "kept" } else { "first" },
    }
}

/// Standard error for the engine's diagnostics, with the settings they name worded as the
/// command line's flags (`--max-memory`).
pub(super) fn diagnostics() -> WordedWriter<std::io::Stderr> {
    WordedWriter::new(std::io::stderr(), Wording::Flags)
}

/// `-o FILE`: standard output becomes FILE (created, or truncated), so everything written
/// to descriptor 1 goes there, with the same whole-line guarantees as a redirection. FILE
/// naming one of `inputs` is refused before it is truncated ([`refuse_input_as`]).
pub fn redirect_stdout(path: &Path, inputs: &[PathBuf]) -> Result<()> {
    refuse_input_as("-o", path, inputs)?;
    let file = std::fs::File::create(path)
        .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
    stdout_to(&file, path)
}

/// Descriptor 1 becomes `file` (opened for `path`).
fn stdout_to(file: &std::fs::File, path: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: dup2 onto descriptor 1 of two descriptors this process owns.
    if unsafe { libc::dup2(file.as_raw_fd(), 1) } < 0 {
        return Err(Error::io(
            format!("writing to {}", path.display()),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// `-o FILE` of a command that writes one whole document at its end (a graph, clusters, a
/// histogram, a page): standard output becomes a temporary beside FILE, put in place when
/// the command succeeds ([`finish_whole`]), so that a command that fails (a full disk, a
/// signal) leaves FILE as it was instead of emptied at the start or half-written. A device
/// or a FIFO (`-o /dev/null`) is written directly, as [`redirect_stdout`] does.
pub fn redirect_stdout_whole(path: &Path, inputs: &[PathBuf]) -> Result<Option<Replacing>> {
    if !neardup_engine::temporary::replaces(path) {
        return redirect_stdout(path, inputs).map(|()| None);
    }
    refuse_input_as("-o", path, inputs)?;
    let (file, replacing) = Replacing::new(path).map_err(|e| {
        Error::io(
            format!("creating a temporary file beside {}", path.display()),
            e,
        )
    })?;
    stdout_to(&file, path)?;
    Ok(Some(replacing))
}

/// The end of a command whose `-o FILE` is being replaced ([`redirect_stdout_whole`]): on
/// success the output is flushed and put in place; on failure it is removed, and the error
/// says that FILE is left as it was.
pub fn finish_whole(result: Result<()>, replacing: Option<Replacing>) -> Result<()> {
    let Some(replacing) = replacing else {
        return result;
    };
    let target = replacing.target().display().to_string();
    let put = |e| Error::io(format!("putting {target} in place"), e);
    match result {
        Ok(()) => {
            std::io::stdout().flush().map_err(put)?;
            replacing.commit().map_err(put)
        }
        Err(e) => {
            drop(replacing);
            let kept = format!("nothing is written: {target} is left as it was");
            Err(match e {
                Error::Io { context, source } => Error::io(format!("{context} ({kept})"), source),
                Error::Stopped { status, message } => Error::Stopped {
                    status,
                    message: Some(match message {
                        Some(m) => m.replace("the output ends at a whole line", &kept),
                        None => kept,
                    }),
                },
                e => e,
            })
        }
    }
}

/// The file (device and inode) of an existing regular file, following links.
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

/// The input among `inputs` (not `-`) that is the file `target` (device and inode).
fn input_that_is(target: (u64, u64), inputs: &[PathBuf]) -> Option<&PathBuf> {
    inputs.iter().find(|input| {
        input.as_os_str() != "-"
            && std::fs::metadata(input).ok().as_ref().and_then(identity) == Some(target)
    })
}

/// Refuses (a usage error, exit 2) a file the run would write, given as `flag`, that is one
/// of its `inputs` (the same file under any name, links included), as `cat` refuses an
/// output that is its input: truncating it would lose the input before a line was read.
pub fn refuse_input_as(flag: &str, path: &Path, inputs: &[PathBuf]) -> Result<()> {
    let Some(target) = std::fs::metadata(path).ok().as_ref().and_then(identity) else {
        return Ok(());
    };
    match input_that_is(target, inputs) {
        Some(input) => Err(Error::Usage(format!(
            "{flag} {}: the file is also an input ({}); writing it would destroy the input \
             before it is read. Write to another file, then rename it",
            path.display(),
            input.display()
        ))),
        None => Ok(()),
    }
}

/// Refuses a standard output that is a regular file also named as an input (`neardup
/// in.jsonl >> in.jsonl`): the run would read its own output.
pub fn refuse_input_as_stdout(inputs: &[PathBuf]) -> Result<()> {
    use std::os::fd::AsFd;
    let Ok(stdout) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return Ok(());
    };
    let Some(target) = std::fs::File::from(stdout)
        .metadata()
        .ok()
        .as_ref()
        .and_then(identity)
    else {
        return Ok(());
    };
    match input_that_is(target, inputs) {
        Some(input) => Err(Error::Usage(format!(
            "{}: input file is output file (standard output is the same file); write to \
             another file, then rename it",
            input.display()
        ))),
        None => Ok(()),
    }
}
