//! The program's SIGBUS handler: a mapped index truncated by another program while a run
//! reads it prints which file ([`neardup_engine::guard::changed_mapping_message`]) and exits
//! 1, instead of the signal killing the process silently; and an abort of the C library on
//! another thread while the run stops for memory (glibc aborts when it cannot allocate a
//! thread's destructor list) ends with the out-of-memory exit status 1 the message gave.
//! The binary's alone: a library's host (the Python interpreter) keeps its own handlers.

extern "C" fn on_sigbus(_: libc::c_int) {
    let bytes = neardup_engine::guard::changed_mapping_message();
    // SAFETY: write and _exit are async-signal-safe; the bytes live for the process.
    unsafe {
        libc::write(2, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(1);
    }
}

extern "C" fn on_sigabrt(_: libc::c_int) {
    // SAFETY: _exit, signal and raise are async-signal-safe.
    unsafe {
        if neardup_engine::guard::stopping_for_memory() {
            libc::_exit(1);
        }
        // Any other abort is what it was.
        libc::signal(libc::SIGABRT, libc::SIG_DFL);
        libc::raise(libc::SIGABRT);
    }
}

/// Installs the handlers; called by the `neardup` program at its start.
pub fn name_changed_mappings() {
    // SAFETY: installs a handler that only writes and exits, before other threads start.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        action.sa_sigaction = on_sigabrt as *const () as usize;
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}
