//! The `neardup` binary: parses the command line, runs the command ([`neardup::cmd`]), and
//! turns the outcome into an exit code: 0 success (also when stdout is closed early, as with
//! `| head`), 1 runtime failure, 2 usage error.

use std::process::ExitCode;

/// jemalloc rather than the system allocator: the window's memory is allocated on the
/// signing threads and freed or kept on the sequencer (docs/performance.md).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    ExitCode::from(neardup::cmd::main(std::env::args_os()))
}
