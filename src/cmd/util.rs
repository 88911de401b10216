//! Small helpers the commands share: writing a report or a file, `--stats` lines, inputs
//! read more than once, how the binary exits (usage errors, failures, a closed stdout), and
//! the grouping step of the graph commands.

use crate::config::Config;
use crate::error::{Error, Result, WordedWriter, Wording};
use crate::graph::{ClusterBy, ClusterOptions, Clustering, DupGraph};
use crate::input::Input;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Whether standard output was open when the process started. Rust's runtime opens
/// `/dev/null` read-write on a standard descriptor it finds closed, where a shell's
/// `> /dev/null` opens it write-only: so `/dev/null` opened read-write on descriptor 1 means
/// `>&-`.
pub(super) fn stdout_is_open() -> bool {
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

/// The inputs of a command that reads them more than once (`explain`, `sample`): standard
/// input, when it is one of them, is read whole on the first open and served from memory.
pub(super) struct Rereadable {
    paths: Vec<PathBuf>,
    /// `--decompress`, for the files (standard input is read as it is, to be read again).
    decompress: crate::config::Decompress,
    stdin: Option<Arc<[u8]>>,
}

impl Rereadable {
    /// Reads standard input now if the inputs include it.
    pub(super) fn new(
        paths: &[PathBuf],
        decompress: crate::config::Decompress,
    ) -> Result<Rereadable> {
        let reads_stdin = paths.is_empty() || paths.iter().any(|p| p.as_os_str() == "-");
        let stdin = if reads_stdin {
            let mut data = Vec::new();
            std::io::stdin()
                .read_to_end(&mut data)
                .map_err(|e| Error::io("reading standard input", e))?;
            Some(data.into())
        } else {
            None
        };
        Ok(Rereadable {
            paths: paths.to_vec(),
            stdin,
            decompress,
        })
    }

    /// Opens the inputs from the start.
    pub(super) fn open(&self) -> Result<Vec<Input>> {
        let stdin_input = |data: &Arc<[u8]>| {
            Input::from_reader("-", Box::new(std::io::Cursor::new(Arc::clone(data))))
        };
        if self.paths.is_empty() {
            return Ok(self.stdin.as_ref().map(stdin_input).into_iter().collect());
        }
        self.paths
            .iter()
            .map(|p| match &self.stdin {
                Some(data) if p.as_os_str() == "-" => Ok(stdin_input(data)),
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

/// `--stats` of the graph commands ([`crate::export::run_stats`]), printed when asked for.
/// `start` is when the command started.
pub(super) fn graph_stats(
    config: &Config,
    summary: Option<&crate::Summary>,
    graph: &DupGraph,
    clustering: &Clustering,
    start: std::time::Instant,
) {
    if !config.stats {
        return;
    }
    let value = summary.map(|s| serde_json::from_str(&s.to_json()).expect("the summary is JSON"));
    let pipeline = summary.map_or(0.0, |s| s.seconds);
    let total = start.elapsed().as_secs_f64();
    print_stats(&crate::export::run_stats(
        value, pipeline, total, graph, clustering,
    ));
}

/// Standard error for the engine's diagnostics, with the settings they name worded as the
/// command line's flags (`--max-memory`).
pub(super) fn diagnostics() -> WordedWriter<std::io::Stderr> {
    WordedWriter::new(std::io::stderr(), Wording::Flags)
}
