//! A thread's own CPU clock, which `--stats`' `cpu_seconds` sums by stage.

/// The calling thread's CPU time so far, in nanoseconds (0 where it cannot be read).
pub(crate) fn thread_cpu() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec this function owns.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0;
    }
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_busy_thread_s_clock_advances() {
        let start = super::thread_cpu();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(super::thread_cpu() > start);
    }
}
