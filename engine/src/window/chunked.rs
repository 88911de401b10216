//! The window's slot storage: a vector that never moves its items when it grows.

/// A vector that grows by whole chunks of [`CHUNK`] items, so items never move. A window slot
/// is about 180 bytes: a doubling vector of them copied its whole content at each growth, on
/// the sequencer, between batches, and touched every page of each new copy.
#[derive(Debug)]
pub(super) struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

/// Items per chunk of a [`Chunked`] vector.
pub(super) const CHUNK: usize = 4096;

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Items the allocated chunks hold.
    pub(super) fn capacity(&self) -> usize {
        self.chunks.len() * CHUNK
    }

    pub(super) fn push(&mut self, item: T) {
        if self.len == self.capacity() {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.chunks[self.len / CHUNK].push(item);
        self.len += 1;
    }

    /// The items, chunk by chunk.
    pub(super) fn chunks(&self) -> impl Iterator<Item = &[T]> {
        self.chunks.iter().map(Vec::as_slice)
    }

    /// Allocates the chunks for `additional` more items.
    pub(super) fn reserve(&mut self, additional: usize) {
        let chunks = (self.len + additional).div_ceil(CHUNK);
        while self.chunks.len() < chunks {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_items_stay_in_place_across_chunks() {
        let mut v = Chunked::default();
        v.reserve(10);
        assert_eq!((v.len(), v.capacity()), (0, CHUNK));
        for i in 0..2 * CHUNK + 3 {
            v.push(i as u64 * 3);
        }
        let first = std::ptr::from_ref(&v[0]);
        v.reserve(5 * CHUNK);
        v.push(7);
        assert_eq!(std::ptr::from_ref(&v[0]), first, "growth moves nothing");
        assert_eq!((v.len(), v.capacity()), (2 * CHUNK + 4, 8 * CHUNK));
        v[CHUNK] = 1;
        let expected: Vec<u64> = (0..2 * CHUNK + 3)
            .map(|i| if i == CHUNK { 1 } else { i as u64 * 3 })
            .chain([7])
            .collect();
        assert!((0..v.len()).all(|i| v[i] == expected[i]));
    }
}
