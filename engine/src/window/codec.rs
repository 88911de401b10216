//! Little-endian numbers written and read in pieces, never past the bytes a count allows:
//! what the window's image ([`super::image`]) and its bucket tables are written with.

use std::io::{self, Read, Write};

/// Items converted per write or read.
const PIECE: usize = 8192;

/// Writes little-endian items in pieces (one `write_all` per [`PIECE`] items).
pub(super) struct Put<'a, W: Write> {
    w: &'a mut W,
    buf: Vec<u8>,
    /// Bytes written so far (where the next one goes in the image).
    at: u64,
}

impl<'a, W: Write> Put<'a, W> {
    pub(super) fn new(w: &'a mut W) -> Self {
        Put {
            w,
            buf: Vec::with_capacity(PIECE * 8),
            at: 0,
        }
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.at += bytes.len() as u64;
        self.w.write_all(bytes)
    }

    pub(super) fn u64(&mut self, v: u64) -> io::Result<()> {
        self.write(&v.to_le_bytes())
    }

    pub(super) fn u32(&mut self, v: u32) -> io::Result<()> {
        self.write(&v.to_le_bytes())
    }

    /// Zeros up to the next multiple of `align` bytes from the start: an array that follows
    /// can be mapped in place ([`Get::align`] skips them).
    pub(super) fn align(&mut self, align: u64) -> io::Result<()> {
        let pad = self.at.next_multiple_of(align) - self.at;
        self.write(&vec![0; pad as usize])
    }

    /// `items`, each as the bytes `each` appends.
    pub(super) fn all<T: Copy>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut each: impl FnMut(&mut Vec<u8>, T),
    ) -> io::Result<()> {
        self.buf.clear();
        for item in items {
            each(&mut self.buf, item);
            if self.buf.len() >= PIECE * 8 {
                self.at += self.buf.len() as u64;
                self.w.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        self.at += self.buf.len() as u64;
        self.w.write_all(&self.buf)
    }

    /// Bytes as they are (items in memory order: the image is little-endian, as the
    /// records are).
    pub(super) fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes)
    }

    /// A u64 count, then the u32s.
    pub(super) fn u32s(&mut self, items: &[u32]) -> io::Result<()> {
        self.u64(items.len() as u64)?;
        self.all(items.iter().copied(), |b, v| {
            b.extend_from_slice(&v.to_le_bytes())
        })
    }
}

/// Reads what [`Put`] wrote, never past `left` bytes.
pub(super) struct Get<'a, R: Read> {
    r: &'a mut R,
    left: u64,
    buf: Vec<u8>,
}

/// The error of a damaged image.
pub(super) fn damaged(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the window's tables are damaged ({what})"),
    )
}

impl Get<'_, io::Cursor<&[u8]>> {
    /// Where the next byte is in the bytes read (an image mapped whole).
    pub(super) fn at(&self) -> usize {
        self.r.position() as usize
    }

    /// Passes `n` bytes (an array mapped where it is instead of read).
    pub(super) fn skip(&mut self, n: u64) -> io::Result<()> {
        if n > self.left {
            return Err(damaged("a count runs past the end"));
        }
        self.r.set_position(self.r.position() + n);
        self.left -= n;
        Ok(())
    }

    /// Passes what [`Put::align`] wrote.
    pub(super) fn align(&mut self, align: u64) -> io::Result<()> {
        let at = self.r.position();
        self.skip(at.next_multiple_of(align) - at)
    }
}

impl<'a, R: Read> Get<'a, R> {
    pub(super) fn new(r: &'a mut R, left: u64) -> Self {
        Get {
            r,
            left,
            buf: Vec::new(),
        }
    }

    /// Bytes not read yet.
    pub(super) fn left(&self) -> u64 {
        self.left
    }

    fn fill(&mut self, n: usize) -> io::Result<()> {
        if n as u64 > self.left {
            return Err(damaged("a count runs past the end"));
        }
        self.buf.resize(n, 0);
        self.r.read_exact(&mut self.buf)?;
        self.left -= n as u64;
        Ok(())
    }

    /// Fills `out` with the next bytes (what [`Put::raw`] wrote).
    pub(super) fn raw(&mut self, out: &mut [u8]) -> io::Result<()> {
        if out.len() as u64 > self.left {
            return Err(damaged("a count runs past the end"));
        }
        self.r.read_exact(out)?;
        self.left -= out.len() as u64;
        Ok(())
    }

    pub(super) fn u64(&mut self) -> io::Result<u64> {
        self.fill(8)?;
        Ok(u64::from_le_bytes(
            self.buf[..8].try_into().expect("8 bytes"),
        ))
    }

    pub(super) fn u32(&mut self) -> io::Result<u32> {
        self.fill(4)?;
        Ok(u32::from_le_bytes(
            self.buf[..4].try_into().expect("4 bytes"),
        ))
    }

    /// A count of items of `size` bytes each, refused when they cannot fit in what is left.
    pub(super) fn count(&mut self, size: u64) -> io::Result<usize> {
        let n = self.u64()?;
        if n.saturating_mul(size) > self.left {
            return Err(damaged("a count runs past the end"));
        }
        Ok(n as usize)
    }

    /// `n` items of `size` bytes, each made by `each` from its bytes.
    pub(super) fn all(
        &mut self,
        n: usize,
        size: usize,
        mut each: impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut done = 0;
        while done < n {
            let k = (n - done).min(PIECE);
            self.fill(k * size)?;
            let buf = std::mem::take(&mut self.buf);
            for item in buf.chunks_exact(size) {
                each(item)?;
            }
            self.buf = buf;
            done += k;
        }
        Ok(())
    }

    /// What [`Put::u32s`] wrote.
    pub(super) fn u32s(&mut self) -> io::Result<Vec<u32>> {
        let n = self.count(4)?;
        let mut v = Vec::with_capacity(n);
        self.all(n, 4, |b| {
            v.push(le32(b));
            Ok(())
        })?;
        Ok(v)
    }
}

/// The u32 at the start of `b`.
pub(super) fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}
