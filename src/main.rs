//! The `neardup` binary: parses the command line, runs the command ([`neardup::cmd`]), and
//! turns the outcome into an exit code: 0 success (also when stdout is closed early, as with
//! `| head`), 1 runtime failure, 2 usage error.

use clap::Parser;
use neardup::cmd::Args;
use std::io::Write;
use std::process::ExitCode;

/// jemalloc rather than the system allocator: the window's memory is allocated on the
/// signing threads and freed or kept on the sequencer (docs/performance.md).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => return clap_exit(&e),
    };
    match args.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// Usage errors go to stderr with exit code 2; `--help` and `--version` to stdout with 0,
/// unless stdout cannot take them (a full disk: 1; a closed pipe is no failure).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(e.exit_code() as u8);
    }
    let mut out = std::io::stdout().lock();
    match write!(out, "{}", e.render().ansi()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::from(e.exit_code() as u8),
        Err(w) if w.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(w) => {
            eprintln!("neardup: writing output: {w}");
            ExitCode::from(1)
        }
    }
}

/// Prints the error and its causes on one line and returns its exit code.
fn fail(e: &neardup::Error) -> ExitCode {
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
    ExitCode::from(e.exit_code() as u8)
}
