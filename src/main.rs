//! The `neardup` binary: parses the command line, runs the command ([`neardup::cmd`]), and
//! turns the outcome into an exit code: 0 success (also when stdout is closed early, as with
//! `| head`), 1 runtime failure, 2 usage error.

use clap::Parser;
use neardup::cmd::Args;
use std::process::ExitCode;

/// jemalloc rather than the system allocator: the window's memory is allocated on the
/// signing threads and freed or kept on the sequencer (docs/performance.md).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    match Args::parse().run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(&e),
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
