//! Decided documents' buffers, freed beside the commit: a speculation's ranking was
//! allocated by the thread that speculated it, and freeing it on the in-order thread cost
//! a call into the allocator handing memory back to another thread's cache. They are
//! gathered here and handed to the window's chores thread a few hundred at a time
//! (`Window::drop_later`); without that thread they are dropped at once. Nothing decided
//! depends on when a buffer is freed.

use crate::window::Window;

/// Most items gathered before a hand-over.
const ITEMS: usize = 256;
/// Most bytes of buffers gathered before a hand-over: with the hand-overs the chores
/// thread may hold waiting (`window/chores.rs`), a few MiB beside the batches in flight.
const BYTES: usize = 1 << 20;

/// Items of one type waiting to be freed on the chores thread.
pub(super) struct Discards<T> {
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

impl<T: Send + 'static> Discards<T> {
    /// Frees `item` (holding `bytes` of buffers) later, on `window`'s chores thread, or now
    /// when the window has none.
    pub(super) fn add(&mut self, window: &Window, item: T, bytes: usize) {
        if !window.has_chores() {
            return;
        }
        if self.items.capacity() == 0 {
            self.items.reserve_exact(ITEMS);
        }
        self.items.push(item);
        self.bytes += bytes + size_of::<T>();
        if self.items.len() >= ITEMS || self.bytes >= BYTES {
            let full = std::mem::replace(&mut self.items, Vec::with_capacity(ITEMS));
            self.bytes = 0;
            window.drop_later(Box::new(full));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Items are held until a hand-over fills (by count or by bytes), then freed on the
    /// chores thread; without one they are freed at once.
    #[test]
    fn items_are_freed_in_hand_overs_or_at_once() {
        let token = Arc::new(());
        let mut here = Discards::default();
        let alone = Window::new(0);
        here.add(&alone, Arc::clone(&token), 8);
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "no chores thread: freed at once"
        );

        let window = Window::new(0).with_chores(2);
        assert!(window.has_chores());
        let mut later = Discards::default();
        for _ in 0..ITEMS - 1 {
            later.add(&window, Arc::clone(&token), 8);
        }
        assert_eq!(
            Arc::strong_count(&token),
            ITEMS,
            "held until the hand-over fills"
        );
        later.add(&window, Arc::clone(&token), 8);
        let freed = (0..10_000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            Arc::strong_count(&token) == 1
        });
        assert!(freed, "a full hand-over is freed by the chores thread");
        // Large buffers fill a hand-over sooner.
        later.add(&window, Arc::clone(&token), BYTES);
        assert!(later.items.is_empty());
    }
}
