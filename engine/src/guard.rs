//! What the process does when memory runs out: stop at a whole output line, say how far the
//! input got, exit with status 1.
//!
//! The binary's global allocator is [`Guarded`]: an allocation that fails calls
//! [`out_of_memory`] instead of aborting. The output writer (`output`) passes only
//! whole lines to stdout, each write inside [`begin_write`] / [`end_write`]; the handler waits
//! for a write in progress to end and closes the gate behind it, so stdout ends at a line
//! boundary whichever thread ran out. Everything here works without allocating.
//!
//! The window itself asks for its large blocks (bucket tables, record segments) with
//! `try_reserve` and, refused, stops growing instead ([`crate::window`]): this handler is
//! for what is left, which then has nothing to give back.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU64, Ordering};

/// No write in progress.
const IDLE: u8 = 0;
/// The output writer is in a write.
const WRITING: u8 = 1;
/// Memory ran out: no write may begin.
const CLOSED: u8 = 2;

static GATE: AtomicU8 = AtomicU8::new(IDLE);
/// The signal that asked the run to stop (`--state`: SIGINT, SIGTERM), 0 while none did.
static STOP: AtomicI32 = AtomicI32::new(0);

/// Records that `signal` asked the run to stop: a write waiting on a full pipe gives up
/// (the binary's `Stdout` writer) so that the state is saved at once.
pub fn request_stop(signal: i32) {
    STOP.store(signal, Ordering::SeqCst);
}

/// The signal that asked the run to stop, if one did.
pub fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Makes SIGINT and SIGTERM ask the run to stop ([`request_stop`]) instead of ending the
/// process: the in-order loop then stops at a whole line (saving `--state`), and a write
/// waiting on a full pipe gives up.
pub(crate) fn catch_termination() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        // Recorded in the handler itself: when a whole pipeline is signalled, the reader
        // downstream may die first, and the write that then fails must already see that a
        // signal, not the closed pipe, stopped the run. No thread waits for the signal (an
        // address-space limit may leave no room for one): the in-order loop looks at the
        // record between batches, and every 100 ms while it waits for one.
        // SAFETY: the action is one atomic store, which is async-signal-safe.
        unsafe { signal_hook::low_level::register(signal, move || request_stop(signal)) }?;
    }
    Ok(())
}

/// The input line being decided (set by the sequencer).
static LINE: AtomicU64 = AtomicU64::new(0);
/// The output is complete for the input lines up to this one.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set while this thread asks for memory it can do without ([`fallibly`]).
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, in which a failed allocation returns null to its caller (`try_reserve` then
/// gives an error) instead of stopping the process.
pub(crate) fn fallibly<T>(f: impl FnOnce() -> T) -> T {
    let before = FALLIBLE.replace(true);
    let result = f();
    FALLIBLE.set(before);
    result
}

/// Whether a failed allocation on this thread is the caller's to handle.
fn failure_is_handled() -> bool {
    FALLIBLE.try_with(Cell::get).unwrap_or(false)
}

/// Records that input line `line` is being decided (what the output may contain next).
#[inline]
pub(crate) fn set_line(line: u64) {
    LINE.store(line, Ordering::Relaxed);
}

/// The input line up to which the output is complete (every write before the present one
/// went out whole).
pub(crate) fn written_line() -> u64 {
    WRITTEN.load(Ordering::Relaxed)
}

/// Enters a write of whole lines to stdout; false when memory ran out (the write must not
/// happen: the process is exiting).
pub(crate) fn begin_write() -> bool {
    loop {
        match GATE.compare_exchange(IDLE, WRITING, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(CLOSED) => return false,
            Err(_) => std::hint::spin_loop(),
        }
    }
}

/// The input line being decided ([`set_line`]).
pub(crate) fn line() -> u64 {
    LINE.load(Ordering::Relaxed)
}

/// The input line the output is complete up to once `bytes`, the start of what the output
/// holds of the lines decided so far, are written: the line being decided when they are all
/// of it, the one before when its start is left behind (an over-long line written in pieces).
pub(crate) fn complete_up_to(all: bool) -> u64 {
    match all {
        true => line(),
        false => line().saturating_sub(1),
    }
}

/// Leaves a write begun with [`begin_write`]: `Some(line)` when it succeeded, the input line
/// the output is then complete up to ([`complete_up_to`], known when the bytes were made);
/// `None` when it failed (what is out is as before).
pub(crate) fn end_write(complete: Option<u64>) {
    if let Some(line) = complete {
        WRITTEN.store(line, Ordering::Relaxed);
    }
    let _ = GATE.compare_exchange(WRITING, IDLE, Ordering::Release, Ordering::Relaxed);
}

/// A fixed buffer to format a message in without allocating.
struct Fixed {
    bytes: [u8; 512],
    len: usize,
}

impl Write for Fixed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&buf[..n]);
        self.len += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Stops the process after a failed allocation of `size` bytes: waits for a write to stdout
/// in progress, closes the gate, says on stderr what ran out and how far the input got, and
/// exits with status 1 (without running destructors or flushing buffers: the output ends at
/// the last whole line written).
pub(crate) fn out_of_memory(size: usize) -> ! {
    stop_for(format_args!("an allocation of {size} bytes failed"))
}

thread_local! {
    /// Set while [`catching`] runs its closure on this thread.
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic in it into an `Err` (for third-party code that panics on
/// damaged input instead of failing: the caller reports a damaged input). Under the
/// program's hook ([`quiet_caught_panics`]) such a panic prints nothing.
pub(crate) fn catching<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    let before = CATCHING.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(before));
    result
}

/// Called by the `neardup` program at its start: a panic that [`catching`] turns into an
/// error prints no panic message (any other panic prints as before).
pub fn quiet_caught_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !CATCHING.with(|c| c.get()) {
            default(info);
        }
    }));
}

/// Whether this process is the `neardup` program, whose allocator is [`Guarded`] and which
/// may stop itself when memory runs out (a library's host, Python, may not).
static PROGRAM: AtomicBool = AtomicBool::new(false);

/// Called by the `neardup` program at its start: a thread the system refuses stops the
/// process like a failed allocation ([`spawn_scoped`]).
pub fn stop_when_exhausted() {
    PROGRAM.store(true, Ordering::Relaxed);
}

/// Whether the process is ending because memory ran out: the message is written and the
/// exit is under way ([`out_of_memory`]). Async-signal-safe (one atomic load), for a
/// program's handler of a C library's abort on another thread meanwhile.
pub fn stopping_for_memory() -> bool {
    GATE.load(Ordering::Acquire) == CLOSED
}

/// Whether this process is the `neardup` program ([`stop_when_exhausted`]), which may take
/// SIGINT and SIGTERM to stop at a whole line.
pub(crate) fn is_program() -> bool {
    PROGRAM.load(Ordering::Relaxed)
}

/// The message a SIGBUS prints: the mapped file it names (set by [`mapping`]), leaked so
/// that the handler reads it with one atomic load.
static MAPPED: std::sync::atomic::AtomicPtr<Vec<u8>> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Records that `path` is mapped into memory (an index's tables): if another program
/// truncates it meanwhile, reading a page past its new end raises SIGBUS, which the
/// program's handler reports naming the file ([`changed_mapping_message`]).
pub(crate) fn mapping(path: &std::path::Path) {
    let message = format!(
        "neardup: {} was changed by another program while this run had it mapped (truncated \
         or rewritten); the run stops here, its output ending at its last whole line (exit 1). \
         Let one program at a time write an index\n",
        path.display()
    );
    let message = Box::into_raw(Box::new(message.into_bytes()));
    // The previous message is leaked: the handler may be reading it.
    MAPPED.store(message, Ordering::Release);
}

/// The message for a SIGBUS: the mapped file the run read last ([`mapping`]), or a general
/// one. One atomic load, so that the program's signal handler may call it (the handler is
/// the binary's: a library's host keeps its own).
pub fn changed_mapping_message() -> &'static [u8] {
    let message = MAPPED.load(Ordering::Acquire);
    match message.is_null() {
        true => b"neardup: a mapped file was changed by another program (SIGBUS)\n",
        // SAFETY: a pointer stored by `mapping` from a leaked box, never freed.
        false => unsafe { (&*message).as_slice() },
    }
}

/// Starts a thread of `scope` named `name` (what `top -H`, `ps -L` and profilers show) like
/// `Scope::spawn`. In the `neardup` program
/// ([`stop_when_exhausted`]) a thread the system refuses (no memory for its stack under an
/// address-space limit, or no thread left under a process limit) stops the process as
/// [`out_of_memory`] does; elsewhere it panics, as `Scope::spawn` does.
pub(crate) fn spawn_scoped<'scope, 'env, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    match std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(scope, f)
    {
        Ok(handle) => handle,
        Err(e) if PROGRAM.load(Ordering::Relaxed) => {
            stop_for(format_args!("a thread could not start ({e})"))
        }
        Err(e) => panic!("failed to spawn a thread: {e}"),
    }
}

/// [`out_of_memory`] with `what` failed.
fn stop_for(what: std::fmt::Arguments<'_>) -> ! {
    // Whoever ran out second waits here for the first to exit.
    while GATE
        .compare_exchange(IDLE, CLOSED, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        if GATE.load(Ordering::Relaxed) == CLOSED {
            loop {
                std::thread::park();
            }
        }
        std::hint::spin_loop();
    }
    let mut m = Fixed {
        bytes: [0; 512],
        len: 0,
    };
    let _ = writeln!(
        m,
        "neardup: out of memory: {what} at input line {}; the output is complete up to input \
         line {} and ends at a whole line (give the run more memory, or a lower --max-memory so \
         that the window evicts instead)",
        LINE.load(Ordering::Relaxed),
        WRITTEN.load(Ordering::Relaxed),
    );
    let _ = std::io::stderr().write_all(&m.bytes[..m.len]);
    // SAFETY: _exit ends the process at once; nothing runs after it.
    unsafe { libc::_exit(1) }
}

/// A global allocator that calls [`out_of_memory`] where `A` returns null.
pub struct Guarded<A>(pub A);

// SAFETY: every call is forwarded to `A` unchanged; only a null result is acted on, and
// `out_of_memory` never returns.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Guarded<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `A`'s.
        let p = unsafe { self.0.alloc(layout) };
        if p.is_null() && !failure_is_handled() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if p.is_null() && !failure_is_handled() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if p.is_null() && !failure_is_handled() {
            out_of_memory(new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    /// A thread started here carries the name given, which `top -H`, `ps -L` and profilers
    /// show (the kernel keeps 15 bytes of it).
    #[test]
    fn a_started_thread_is_named() {
        let name = std::thread::scope(|scope| {
            super::spawn_scoped(scope, "neardup-signer", || {
                std::thread::current().name().map(String::from)
            })
            .join()
            .unwrap()
        });
        assert_eq!(name.as_deref(), Some("neardup-signer"));
    }
}
