//! The window's slot storage: a vector that never moves its items when it grows.

use super::mapped::Region;

/// A vector that grows by whole chunks of [`CHUNK`] items, so items never move. A window slot
/// is a cache line: a doubling vector of them copied its whole content at each growth, on
/// the sequencer, between batches, and touched every page of each new copy. The chunks of a
/// window opened from an index are the mapped file's ([`Chunked::mapped`]) until one is
/// pushed to.
#[derive(Debug)]
pub(super) struct Chunked<T> {
    chunks: Vec<Chunk<T>>,
    len: usize,
}

#[derive(Debug)]
enum Chunk<T> {
    Owned(Vec<T>),
    /// A full chunk of a mapped image (or the last one, part full).
    Mapped(Region<T>),
}

impl<T> Chunk<T> {
    #[inline]
    fn items(&self) -> &[T] {
        match self {
            Chunk::Owned(v) => v,
            Chunk::Mapped(r) => r,
        }
    }

    /// Item `i`, its page made the process's own first when it is mapped
    /// ([`Region::touch`]).
    #[inline]
    fn item(&self, i: usize) -> &T {
        match self {
            Chunk::Owned(v) => &v[i],
            Chunk::Mapped(r) => {
                r.touch(i);
                &r[i]
            }
        }
    }

    #[inline]
    fn item_mut(&mut self, i: usize) -> &mut T {
        match self {
            Chunk::Owned(v) => &mut v[i],
            Chunk::Mapped(r) => {
                r.touch(i);
                &mut r[i]
            }
        }
    }
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

impl<T: bytemuck::Pod> Chunked<T> {
    /// The `n` items at byte `offset` of a mapped `image`, a chunk to a region.
    ///
    /// # Safety
    /// As [`super::mapped::Image::region`]: no other region of `image` may share those bytes.
    pub(super) unsafe fn mapped(
        image: &super::mapped::Image,
        offset: usize,
        n: usize,
    ) -> std::io::Result<Self> {
        let size = std::mem::size_of::<T>();
        let mut chunks = Vec::with_capacity(n.div_ceil(CHUNK));
        for start in (0..n).step_by(CHUNK) {
            let k = CHUNK.min(n - start);
            // SAFETY: the chunks name consecutive, disjoint bytes of the ones the caller
            // vouches for.
            chunks.push(Chunk::Mapped(unsafe {
                image.region(offset + start * size, k)
            }?));
        }
        Ok(Chunked { chunks, len: n })
    }

    pub(super) fn push(&mut self, item: T) {
        if self.len == self.capacity() {
            self.chunks.push(Chunk::Owned(Vec::with_capacity(CHUNK)));
        }
        let chunk = &mut self.chunks[self.len / CHUNK];
        if let Chunk::Mapped(region) = chunk {
            // Only the last chunk of a mapped image can have room: it becomes an owned one.
            let mut owned = Vec::with_capacity(CHUNK);
            owned.extend_from_slice(region);
            *chunk = Chunk::Owned(owned);
        }
        if let Chunk::Owned(v) = chunk {
            v.push(item);
        }
        self.len += 1;
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

    /// The items, chunk by chunk.
    pub(super) fn chunks(&self) -> impl Iterator<Item = &[T]> {
        self.chunks.iter().map(Chunk::items)
    }

    /// Allocates the chunks for `additional` more items.
    pub(super) fn reserve(&mut self, additional: usize) {
        let chunks = (self.len + additional).div_ceil(CHUNK);
        while self.chunks.len() < chunks {
            self.chunks.push(Chunk::Owned(Vec::with_capacity(CHUNK)));
        }
    }

    /// True when some items are a mapped image's.
    pub(super) fn is_mapped(&self) -> bool {
        self.chunks.iter().any(|c| matches!(c, Chunk::Mapped(_)))
    }

    /// Items that are a mapped image's.
    pub(super) fn mapped_len(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| match c {
                Chunk::Mapped(r) => r.len(),
                Chunk::Owned(_) => 0,
            })
            .sum()
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        self.chunks[i / CHUNK].item(i % CHUNK)
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.chunks[i / CHUNK].item_mut(i % CHUNK)
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

    #[test]
    fn mapped_chunks_are_read_written_and_pushed_to() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("nd-chunked-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t");
        let n = CHUNK + 5;
        let items: Vec<u64> = (0..n as u64).map(|i| i * 2).collect();
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&[0; 8]).unwrap();
        file.write_all(bytemuck::cast_slice(&items)).unwrap();
        let image = super::super::mapped::Image::map(&std::fs::File::open(&path).unwrap()).unwrap();
        // SAFETY: the only regions of this image.
        let mut v: Chunked<u64> = unsafe { Chunked::mapped(&image, 8, n) }.unwrap();
        assert!(v.is_mapped());
        assert_eq!((v.len(), v.capacity()), (n, 2 * CHUNK));
        assert!((0..n).all(|i| v[i] == i as u64 * 2));
        v[3] = 1;
        v.push(99);
        v.push(100);
        assert_eq!(
            (v[3], v[CHUNK + 4], v[n], v[n + 1]),
            (1, (CHUNK as u64 + 4) * 2, 99, 100)
        );
        assert!(v.is_mapped(), "the first chunk is still the file's");
        assert_eq!(v.mapped_len(), CHUNK, "the last one became owned");
        // SAFETY: refused, so no region is made.
        assert!(unsafe { Chunked::<u64>::mapped(&image, 8, n + 1) }.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
