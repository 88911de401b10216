//! Work the window's owner need not wait for, done on a thread of its own
//! ([`super::Window::with_chores`]), so that the in-order thread keeps only what must be in
//! order:
//! - the next record segment's pages, written once before the store needs the segment. The
//!   kernel zeroes a page at its first write; done by the thread that appends the records,
//!   that was most of the cost of inserting a document into a window held in RAM;
//! - inserted documents' buffers, and the filter's speculated rankings, given back to the
//!   allocator (they were allocated by the signing and speculating threads; freeing them is
//!   a few allocator calls each), gathered a few hundred at a time ([`Discards`]).
//!
//! Neither changes what the window holds: a prepared segment is an empty buffer like a new
//! one, and a buffer is freed later rather than at once. So the window, and the output, are
//! the same with chores or without.

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Segments prepared ahead of the store's need. One was not enough: on two busy cores the
/// thread is a third one, and is often not run before the segment after fills, which then
/// takes its page faults on the in-order thread.
const SEGMENTS_AHEAD: usize = 3;
/// Hand-overs of discarded buffers that may wait for the thread (the segments asked for
/// wait beside them, so that asking ahead never makes the owner free its own).
const DROPS_WAITING: usize = 4;
/// Most items handed over to be freed together (one hand-over for many).
const DISCARDS: usize = 256;
/// Most bytes of buffers handed over together: with the hand-overs the thread may hold
/// waiting, a few MiB beside the batches in flight.
const DISCARD_BYTES: usize = 1 << 20;

impl super::Window {
    /// The window with its chores done on a thread of its own when the run has `threads`
    /// of them, two or more (on one, they stay on it); it holds and answers the same. Call
    /// after [`super::Window::with_store`].
    pub(crate) fn with_chores(mut self, threads: usize) -> super::Window {
        if threads > 1 {
            let store = std::mem::replace(&mut self.store, super::Store::new(Default::default()));
            self.store = store.with_chores();
        }
        self
    }

    /// The CPU nanoseconds the window's chores thread used so far (0 without one).
    pub(crate) fn chores_cpu(&self) -> u64 {
        self.store.chores().map_or(0, Chores::cpu)
    }

    /// Whether the window has a chores thread ([`super::Window::with_chores`]).
    pub(crate) fn has_chores(&self) -> bool {
        self.store.chores().is_some()
    }

    /// Drops `garbage` on the chores thread (here when there is none, or it is behind).
    pub(crate) fn drop_later(&self, garbage: Box<dyn Send>) {
        match self.store.chores() {
            Some(chores) => chores.drop_later(garbage),
            None => drop(garbage),
        }
    }

    /// Frees an inserted document's buffers: on the chores thread, a few hundred at a time,
    /// when there is one (else here, at once).
    pub(super) fn discard(&mut self, entry: super::Entry) {
        if let Some(chores) = self.store.chores_mut() {
            chores.discard(entry);
        }
    }
}

enum Chore {
    /// A buffer of this many bytes, its pages written.
    Segment(usize),
    /// Something to drop.
    Drop(Box<dyn Send>),
}

/// The chores thread of one window's store; it ends when this is dropped.
#[derive(Debug)]
pub(crate) struct Chores {
    asks: Sender<Chore>,
    ready: Receiver<Vec<u8>>,
    /// Segments asked for and not taken yet.
    asked: usize,
    /// Inserted documents whose buffers go to the thread to be freed.
    discarded: Discards<super::Entry>,
    /// The thread's CPU so far (`--stats`' `cpu_seconds.write`).
    cpu: Arc<AtomicU64>,
}

impl std::fmt::Debug for Chore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Chore::Segment(len) => write!(f, "Segment({len})"),
            Chore::Drop(_) => f.write_str("Drop"),
        }
    }
}

impl Chores {
    /// Starts the thread; `None` when the system gives no thread (the owner then does its
    /// chores itself, as without).
    pub(crate) fn start() -> Option<Chores> {
        // A few hand-overs of discarded buffers may wait beside the segments asked for; past
        // them the owner frees its own.
        let (asks, chores) = bounded::<Chore>(DROPS_WAITING + SEGMENTS_AHEAD);
        let (done, ready) = bounded::<Vec<u8>>(SEGMENTS_AHEAD);
        let cpu = Arc::new(AtomicU64::new(0));
        let spent = Arc::clone(&cpu);
        std::thread::Builder::new()
            .name("neardup-chores".into())
            .spawn(move || {
                for chore in chores {
                    match chore {
                        Chore::Segment(len) => {
                            let mut buffer = Vec::new();
                            // Refused, it sends an empty buffer: the store asks for its own
                            // (and reports the failure in its own terms).
                            if crate::guard::fallibly(|| buffer.try_reserve_exact(len)).is_ok() {
                                buffer.resize(len, 0);
                                buffer.clear();
                            }
                            if done.send(buffer).is_err() {
                                break;
                            }
                        }
                        Chore::Drop(garbage) => drop(garbage),
                    }
                    spent.store(crate::cpu::thread_cpu(), Ordering::Relaxed);
                }
            })
            .ok()?;
        Some(Chores {
            asks,
            ready,
            asked: 0,
            discarded: Discards::default(),
            cpu,
        })
    }

    /// A buffer of at least `len` bytes' capacity, empty, its pages written, if one asked
    /// for is ready; then asks for more, up to [`SEGMENTS_AHEAD`] waiting and no more than
    /// `room` (the buffers the store has room for beside those it holds).
    pub(super) fn segment(&mut self, len: usize, room: usize) -> Option<Vec<u8>> {
        let mut taken = None;
        if self.asked > 0
            && let Ok(buffer) = self.ready.try_recv()
        {
            self.asked -= 1;
            taken = Some(buffer).filter(|b| b.capacity() >= len);
        }
        while self.asked < room.min(SEGMENTS_AHEAD)
            && self.asks.try_send(Chore::Segment(len)).is_ok()
        {
            self.asked += 1;
        }
        taken
    }

    /// Frees `entry`'s buffers on the thread, with a few hundred others.
    fn discard(&mut self, entry: super::Entry) {
        if let Some(full) = self.discarded.add(entry, 0) {
            self.drop_later(Box::new(full));
        }
    }

    /// Drops `garbage` on the chores thread, or here when the thread is behind.
    pub(super) fn drop_later(&self, garbage: Box<dyn Send>) {
        match self.asks.try_send(Chore::Drop(garbage)) {
            Ok(()) => {}
            Err(TrySendError::Full(chore) | TrySendError::Disconnected(chore)) => drop(chore),
        }
    }

    /// The thread's CPU nanoseconds so far.
    pub(crate) fn cpu(&self) -> u64 {
        self.cpu.load(Ordering::Relaxed)
    }
}

/// Items waiting to be freed on a chores thread, handed over [`DISCARDS`] (or
/// [`DISCARD_BYTES`] of buffers) at a time ([`super::Window::drop_later`]).
#[derive(Debug)]
pub(crate) struct Discards<T> {
    items: Vec<T>,
    bytes: usize,
}

impl<T> Default for Discards<T> {
    fn default() -> Self {
        Discards {
            items: Vec::new(),
            bytes: 0,
        }
    }
}

impl<T> Discards<T> {
    /// Keeps `item` (holding `bytes` of buffers beside itself); returns the items to hand
    /// over when they fill a hand-over.
    pub(crate) fn add(&mut self, item: T, bytes: usize) -> Option<Vec<T>> {
        if self.items.capacity() == 0 {
            self.items.reserve_exact(DISCARDS);
        }
        self.items.push(item);
        self.bytes += bytes + size_of::<T>();
        if self.items.len() < DISCARDS && self.bytes < DISCARD_BYTES {
            return None;
        }
        self.bytes = 0;
        Some(std::mem::replace(
            &mut self.items,
            Vec::with_capacity(DISCARDS),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments asked for come back empty with their capacity, as many ahead as the room
    /// given and [`SEGMENTS_AHEAD`] allow; none is asked twice; dropping the owner ends the
    /// thread.
    #[test]
    fn segments_come_back_empty_and_no_more_than_the_room() {
        let mut chores = Chores::start().expect("a thread");
        assert!(chores.segment(4096, 2).is_none(), "nothing asked yet");
        assert_eq!(chores.asked, 2, "two fit the room");
        let mut got = Vec::new();
        for _ in 0..10_000 {
            got.extend(chores.segment(4096, 0));
            if got.len() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(got.len(), 2, "both asked segments arrive");
        assert!(got.iter().all(|b| b.is_empty() && b.capacity() >= 4096));
        // Not asked again (no room): nothing more comes.
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(chores.segment(4096, 0).is_none());
        // Much room: no more than SEGMENTS_AHEAD wait.
        chores.segment(4096, 100);
        assert_eq!(chores.asked, SEGMENTS_AHEAD);
        chores.drop_later(Box::new(vec![1u8; 100]));
        drop(chores);
    }

    /// A prepared buffer smaller than the length asked now (a segment size that changed) is
    /// not used.
    #[test]
    fn a_buffer_too_small_is_not_used() {
        let mut chores = Chores::start().expect("a thread");
        chores.segment(1024, 1);
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut got = None;
        for _ in 0..10_000 {
            if chores.asked == 0 {
                break;
            }
            got = chores.segment(8192, 0);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(got.is_none());
    }

    /// Items are handed over when they fill a hand-over, by count or by bytes; a full one
    /// sent to the thread is freed there.
    #[test]
    fn discards_are_handed_over_when_full() {
        let token = Arc::new(());
        let mut held = Discards::default();
        for _ in 0..DISCARDS - 1 {
            assert!(held.add(Arc::clone(&token), 8).is_none());
        }
        assert_eq!(Arc::strong_count(&token), DISCARDS, "held until full");
        let full = held.add(Arc::clone(&token), 8).expect("full by count");
        assert_eq!(full.len(), DISCARDS);
        let chores = Chores::start().expect("a thread");
        chores.drop_later(Box::new(full));
        let freed = (0..10_000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            Arc::strong_count(&token) == 1
        });
        assert!(freed, "a hand-over is freed by the thread");
        let big = held.add(Arc::clone(&token), DISCARD_BYTES);
        assert_eq!(big.map(|b| b.len()), Some(1), "full by bytes");
    }
}
