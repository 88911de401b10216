//! The `neardup` binary: parses the command line, runs the command ([`neardup::cmd`]), and
//! turns the outcome into an exit code: 0 success (also when stdout is closed early, as with
//! `| head`), 1 runtime failure, 2 usage error.

mod sigbus;

use std::process::ExitCode;

/// jemalloc rather than the system allocator: the window's memory is allocated on the
/// signing threads and freed or kept on the sequencer (docs/performance.md).
/// Wrapped in [`neardup::guard::Guarded`]: a failed allocation stops the run at a whole output
/// line with exit status 1 and a message, instead of aborting.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: neardup::guard::Guarded<tikv_jemallocator::Jemalloc> =
    neardup::guard::Guarded(tikv_jemallocator::Jemalloc);

#[cfg(not(all(feature = "jemalloc", not(target_env = "msvc"))))]
#[global_allocator]
static GLOBAL: neardup::guard::Guarded<std::alloc::System> =
    neardup::guard::Guarded(std::alloc::System);

/// jemalloc's options: freed pages go back to the system after one second unused instead of
/// ten, so that the process' resident memory follows what it holds closely enough for
/// `--max-memory` to bound it (a window's tables are freed and allocated anew as they
/// grow). Read by jemalloc at its start; measured at no cost in speed
/// (docs/performance.md, Memory).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static MALLOC_CONF: &[u8; 20] = b"dirty_decay_ms:1000\0";

fn main() -> ExitCode {
    // A write past the file size limit (`ulimit -f`) fails with EFBIG, handled as a full
    // disk (the output cut back to a whole line, a message, status 1), instead of the
    // signal killing the process mid-line.
    // SAFETY: sets a signal's disposition to "ignore", before any other thread starts.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // The C library's own allocator serves only its few needs (a thread's TLS destructors,
    // stdio): one arena for all of them, instead of a 64 MiB range reserved for each thread
    // that calls it, which under an address-space limit (`ulimit -v`) left less to the run.
    // SAFETY: a malloc parameter, set before any other thread starts.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    neardup::guard::stop_when_exhausted();
    sigbus::name_changed_mappings();
    neardup::guard::quiet_caught_panics();
    ExitCode::from(neardup::cmd::main(std::env::args_os()))
}
