//! A saved index's tables mapped copy-on-write ([`Image`]), and the arrays that live in them
//! ([`Region`]): the slots and bucket cells of a window opened from an index are the file's
//! own bytes until a run writes to them. Opening then costs what the run touches, not the
//! tables' size: a page is read from the file (or the page cache) when a lookup first meets
//! it, and copied into the process only when it is changed. Nothing is ever written back to
//! the file (the mapping is private); a save writes the window's changes as it always did.
//!
//! A page a run reads is made the run's own before its first read ([`Region::touch`]:
//! `MADV_POPULATE_WRITE` on Linux, one page): a plain read fault would also map the page's
//! cached neighbours into the process (the kernel's fault-around, which no advice turns
//! off), and the tables are all cached after the checksum pass, so a thousand documents'
//! lookups, each on a different page, would map most of the tables. A private page costs
//! 4 KiB of the run's memory, and a run touches a few dozen a document.
//!
//! Mapping is safe here because an index's tables file is never changed once written: a
//! save writes new tables to a new file (`tables.T+1`) and removes the old one only after
//! the manifest stops naming it, and a removed file stays mapped until the last run that
//! maps it ends.

use std::fs::File;
use std::io;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where an image's mapped arrays start, in bytes from its start: a cache line (a slot, a
/// line of cells), and never across a page.
pub(super) const ALIGN: u64 = 64;

/// How an image lays out its slots and cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Index versions 8 and 9: each field of the slots as an array of its own, the cells
    /// unaligned; read into RAM and checked item by item.
    Fields,
    /// Index version 10 on: the slots and each table's cells as they are in memory, at
    /// 64-byte boundaries of the file, so that they are mapped where they are
    /// ([`Image`]) and a run reads only the pages it touches.
    InPlace,
}

/// A tables file mapped private and writable (copy-on-write).
pub(crate) struct Image {
    map: Arc<Mapping>,
}

/// The mapping, and which of its pages are the process's own.
struct Mapping {
    map: memmap2::MmapMut,
    /// Where the mapping starts.
    base: usize,
    /// log2 of the page size.
    page_shift: u32,
    /// A bit a page: set once [`Mapping::touch`] made it private.
    owned: Box<[AtomicU64]>,
}

impl Mapping {
    /// Makes the page holding `addr` (in the mapping) the process's own, once.
    #[inline]
    fn touch(&self, addr: usize) {
        let page = (addr - self.base) >> self.page_shift;
        let bit = 1u64 << (page % 64);
        if self.owned[page / 64].load(Ordering::Relaxed) & bit == 0 {
            self.populate(page, bit);
        }
    }

    #[cold]
    #[inline(never)]
    fn populate(&self, page: usize, bit: u64) {
        #[cfg(target_os = "linux")]
        {
            let size = 1usize << self.page_shift;
            let addr = (self.base + (page << self.page_shift)) as *mut libc::c_void;
            // SAFETY: the page lies in the mapping, which lives as long as `self`; making it
            // private (as a write would) changes none of its bytes. Where the kernel lacks
            // the advice it fails and the page is faulted in as usual.
            unsafe { libc::madvise(addr, size, libc::MADV_POPULATE_WRITE) };
        }
        self.owned[page / 64].fetch_or(bit, Ordering::Relaxed);
    }
}

impl Image {
    /// Maps `file` whole.
    pub fn map(file: &File) -> io::Result<Image> {
        // SAFETY: the mapping is private, so the process never writes the file; the file is
        // never changed or cut while an index names it (module documentation), so the bytes
        // stay what they were when it was mapped.
        let mut map = unsafe { memmap2::MmapOptions::new().map_copy(file)? };
        // Lookups meet the tables at random: a page read from the disk brings no read-ahead
        // with it (the neighbours a fault maps from the page cache are another matter:
        // `Region::touch`).
        #[cfg(unix)]
        map.advise(memmap2::Advice::Random)?;
        let page = page_size();
        let pages = map.len().div_ceil(page);
        Ok(Image {
            map: Arc::new(Mapping {
                base: map.as_mut_ptr() as usize,
                map,
                page_shift: page.trailing_zeros(),
                owned: (0..pages.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            }),
        })
    }

    /// The mapped bytes, to read the image's small parts from.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.map.map[..]
    }

    /// The `n` items of type `T` at byte `offset` as an array of the window's: refused when
    /// they pass the end or are not aligned for `T`.
    ///
    /// # Safety
    /// No two regions of one image may share a byte, and nothing may read the bytes a
    /// region names through [`Image::bytes`] while it lives: a region is written through.
    pub(super) unsafe fn region<T: bytemuck::Pod>(
        &self,
        offset: usize,
        n: usize,
    ) -> io::Result<Region<T>> {
        let size = std::mem::size_of::<T>();
        let end = n
            .checked_mul(size)
            .and_then(|b| b.checked_add(offset))
            .filter(|&end| end <= self.map.map.len());
        if end.is_none() || !offset.is_multiple_of(std::mem::align_of::<T>()) {
            return Err(super::codec::damaged("an array's place"));
        }
        // The items lie within the mapping (checked above), whose start is not null.
        let ptr = (self.map.base + offset) as *mut T;
        Ok(Region {
            ptr: NonNull::new(ptr).unwrap_or(NonNull::dangling()),
            len: n,
            map: Some(Arc::clone(&self.map)),
        })
    }
}

/// The system's page size (a power of two).
fn page_size() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: a plain query with no memory of ours.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if size > 0 && (size as usize).is_power_of_two() {
            return size as usize;
        }
    }
    4096
}

/// An array of a window's: owned, or items of a mapped [`Image`] (written copy-on-write).
pub(super) struct Region<T> {
    ptr: NonNull<T>,
    len: usize,
    /// The mapping the items live in (`None`: owned, `ptr` is a leaked boxed slice's).
    map: Option<Arc<Mapping>>,
}

// SAFETY: a region is the only handle to its items (owned, or bytes of a mapping no other
// region names), like a `Box<[T]>`; the mapping it keeps alive is `Send + Sync` (the map and
// atomics).
unsafe impl<T: Send> Send for Region<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: Sync> Sync for Region<T> {}

impl<T> Region<T> {
    /// True when the items are the mapped file's.
    pub(super) fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// Before item `i` is read or written: a mapped region makes its page the process's own
    /// the first time (module documentation). Items never straddle a page (the image
    /// aligns the arrays to 64 bytes, and items are at most that).
    #[inline]
    pub(super) fn touch(&self, i: usize) {
        if let Some(map) = &self.map {
            map.touch(self.ptr.as_ptr().wrapping_add(i) as usize);
        }
    }
}

impl<T> From<Box<[T]>> for Region<T> {
    fn from(items: Box<[T]>) -> Region<T> {
        let len = items.len();
        let ptr = NonNull::new(Box::into_raw(items).cast::<T>()).unwrap_or(NonNull::dangling());
        Region {
            ptr,
            len,
            map: None,
        }
    }
}

impl<T> From<Vec<T>> for Region<T> {
    fn from(items: Vec<T>) -> Region<T> {
        Region::from(items.into_boxed_slice())
    }
}

impl<T> Drop for Region<T> {
    fn drop(&mut self) {
        if self.map.is_none() {
            // SAFETY: an owned region's pointer and length are those of the boxed slice it
            // was made from (`From<Box<[T]>>`), freed only here.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.ptr.as_ptr(),
                    self.len,
                ))
            });
        }
    }
}

impl<T> std::ops::Deref for Region<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points at `len` initialised items (a boxed slice's, or a mapping's
        // checked for bounds and alignment; any bit pattern is a `Pod` value) that live as
        // long as the region.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> std::ops::DerefMut for Region<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`; the region is the only handle to these items and the
        // mapping is writable (private: the kernel copies a page at its first write).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Region<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Region")
            .field("len", &self.len)
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_mapped_region_reads_the_file_and_writes_only_memory() {
        let dir = std::env::temp_dir().join(format!("nd-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t");
        let words: Vec<u64> = (0..1024).collect();
        File::create(&path)
            .unwrap()
            .write_all(bytemuck::cast_slice(&words))
            .unwrap();
        let image = Image::map(&File::open(&path).unwrap()).unwrap();
        // SAFETY: the two regions share no byte.
        let mut a: Region<u64> = unsafe { image.region(8, 4) }.unwrap();
        // SAFETY: as above.
        let b: Region<u64> = unsafe { image.region(64, 2) }.unwrap();
        a.touch(3);
        b.touch(0);
        assert_eq!(
            image.map.owned[0].load(Ordering::Relaxed),
            1,
            "one page made private"
        );
        assert_eq!((&a[..], &b[..]), (&[1, 2, 3, 4][..], &[8, 9][..]));
        a[0] = 77;
        assert_eq!(a[0], 77);
        // SAFETY: refused, so no region is made.
        assert!(
            unsafe { image.region::<u64>(8 * 1023, 2) }.is_err(),
            "past the end"
        );
        // SAFETY: as above.
        assert!(unsafe { image.region::<u64>(4, 1) }.is_err(), "not aligned");
        drop(image);
        assert_eq!(b[1], 9, "a region keeps the mapping alive");
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(
            &on_disk[8..16],
            &1u64.to_le_bytes(),
            "the file is unchanged"
        );
        let owned = Region::from(vec![5u32, 6]);
        assert!(!owned.is_mapped() && a.is_mapped());
        assert_eq!(&owned[..], &[5, 6]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
