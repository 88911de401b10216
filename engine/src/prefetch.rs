//! Asking the CPU to start loading memory that is about to be read. The window's entries and
//! bucket cells and the IDF table are far larger than the caches and are looked up at random,
//! so each lookup is a cache miss unless it was asked for ahead of time.

/// Starts loading the cache line that holds `value`. A hint only: it never faults, and it does
/// nothing on architectures other than x86-64.
#[inline(always)]
pub(crate) fn prefetch<T: ?Sized>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch never faults, and the address is a live reference's.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Starts loading the first `max_lines` cache lines (64 bytes) of `slice`, or all of it if it
/// is shorter.
#[inline]
pub(crate) fn prefetch_slice<T>(slice: &[T], max_lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let start = slice.as_ptr().cast::<i8>();
        let lines = std::mem::size_of_val(slice).div_ceil(64);
        for line in 0..lines.min(max_lines) {
            // SAFETY: a prefetch never faults, and the address is inside the slice.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line * 64)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, max_lines);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_changes_nothing() {
        let data: Vec<u64> = (0..1000).collect();
        prefetch(&data[500]);
        prefetch(&data[..]);
        prefetch_slice(&data, 4);
        prefetch_slice(&data[..0], 4);
        prefetch_slice(&data[..3], 100);
        assert_eq!(data.iter().sum::<u64>(), 999 * 1000 / 2);
    }
}
