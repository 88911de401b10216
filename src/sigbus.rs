//! The program's SIGBUS handler: a mapped index truncated by another program while a run
//! reads it prints which file ([`neardup_engine::guard::changed_mapping_message`]) and exits
//! 1, instead of the signal killing the process silently. The binary's alone: a library's
//! host (the Python interpreter) keeps its own handler.

extern "C" fn on_sigbus(_: libc::c_int) {
    let bytes = neardup_engine::guard::changed_mapping_message();
    // SAFETY: write and _exit are async-signal-safe; the bytes live for the process.
    unsafe {
        libc::write(2, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(1);
    }
}

/// Installs the handler; called by the `neardup` program at its start.
pub fn name_changed_mappings() {
    // SAFETY: installs a handler that only writes and exits, before other threads start.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}
