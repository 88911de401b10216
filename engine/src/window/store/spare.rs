//! The store's next RAM segment, held ready before it is needed.
//!
//! A segment the store allocates is only reserved: its pages are given to the process when
//! first written, and the kernel zeroes each one then. Written by the in-order thread, that
//! first touch is the largest part of placing a record while the window grows (about half of
//! it on ordinary text), work every document kept waits for. So a freshly allocated spare
//! has its pages touched on a thread of its own while the current segment fills; the
//! in-order thread then writes into memory that is already there. A reused buffer (a
//! segment spilled to disk, or one a compaction gave back) has its pages already.

use std::thread::JoinHandle;

/// A fresh buffer smaller than this is touched where it is used: a thread is not worth
/// starting for a few pages (the smallest RAM shares, in tests).
const TOUCH_APART_FROM: usize = 256 << 10;

/// Bytes between two writes that each bring in one page (the smallest page size there is).
const PAGE: usize = 4096;

/// A buffer for the store's next segment, or none.
#[derive(Debug, Default)]
pub(super) struct Spare {
    held: Option<Held>,
}

#[derive(Debug)]
enum Held {
    /// Ready to be written.
    Ready(Vec<u8>),
    /// A fresh buffer whose pages a thread is touching; its capacity.
    Touching(JoinHandle<Vec<u8>>, usize),
}

impl Spare {
    /// Whether there is none.
    pub(super) fn is_none(&self) -> bool {
        self.held.is_none()
    }

    /// Keeps `buffer` (emptied) as the spare: one already written before.
    pub(super) fn keep(&mut self, mut buffer: Vec<u8>) {
        buffer.clear();
        self.held = Some(Held::Ready(buffer));
    }

    /// Keeps `buffer`, just allocated, as the spare, its pages touched on another thread when
    /// it is large (if no thread can be started, they are touched where it is written).
    pub(super) fn keep_fresh(&mut self, buffer: Vec<u8>) {
        let capacity = buffer.capacity();
        if capacity < TOUCH_APART_FROM {
            return self.keep(buffer);
        }
        let toucher = std::thread::Builder::new().name("neardup-pages".into());
        // A failed spawn drops the buffer with the closure: the next segment is then
        // allocated where it is needed, as without a spare.
        self.held = toucher
            .spawn(move || touched(buffer))
            .ok()
            .map(|handle| Held::Touching(handle, capacity));
    }

    /// The spare, if any, waiting for its pages if they are still being touched.
    pub(super) fn take(&mut self) -> Option<Vec<u8>> {
        match self.held.take()? {
            Held::Ready(buffer) => Some(buffer),
            // A touching thread does not panic; if it did, the buffer is gone with it and
            // the caller allocates another.
            Held::Touching(handle, _) => handle.join().ok(),
        }
    }

    /// The bytes it holds (what the store counts in its RAM).
    pub(super) fn capacity(&self) -> usize {
        match &self.held {
            None => 0,
            Some(Held::Ready(buffer)) => buffer.capacity(),
            Some(Held::Touching(_, capacity)) => *capacity,
        }
    }
}

/// `buffer` (empty) with one byte of each page of its capacity written, so that the pages
/// are the process' before the buffer is filled.
fn touched(mut buffer: Vec<u8>) -> Vec<u8> {
    let room = buffer.spare_capacity_mut();
    for page in room.chunks_mut(PAGE) {
        page[0].write(0);
    }
    // The writes are the point: they must not be left out as never read.
    std::hint::black_box(room);
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_comes_back_empty_with_its_capacity() {
        let mut spare = Spare::default();
        assert!(spare.is_none());
        assert_eq!(spare.take(), None);
        for size in [4 << 10, TOUCH_APART_FROM, 1 << 20] {
            spare.keep_fresh(Vec::with_capacity(size));
            assert!(!spare.is_none());
            assert!(spare.capacity() >= size);
            let buffer = spare.take().expect("the spare");
            assert!(buffer.is_empty() && buffer.capacity() >= size);
            assert!(spare.is_none() && spare.capacity() == 0);
        }
        spare.keep(vec![1, 2, 3]);
        assert_eq!(spare.take(), Some(Vec::new()), "kept empty");
    }
}
