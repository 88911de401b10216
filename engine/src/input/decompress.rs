//! Compressed inputs: gzip (multi-member files too), zstd (multi-frame), bzip2 and xz,
//! recognised by their first bytes, never by the file name, so that `crawl.jsonl.zst`,
//! `cat dump.gz |` and a misnamed file all work. Everything after (line numbers, `--stats`
//! `bytes_read`) sees the decompressed text. A corrupt or truncated stream is a read error,
//! which the reader reports with the input's name.
//!
//! The standard crates do the work: `flate2` (zlib-rs), `zstd`, `bzip2` (libbz2-rs) and
//! `liblzma`. A UTF-8 byte-order mark at the start of the (decompressed) text is dropped.

use super::settings::Decompress;
use std::io::{self, Read};

/// What the first bytes of an input say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed (or not a format we know): read as it is.
    None,
    /// gzip (RFC 1952), `1f 8b`.
    Gzip,
    /// Zstandard, `28 b5 2f fd`.
    Zstd,
    /// bzip2, `BZh`, a block size digit, and the first block's magic (or the end of stream's).
    Bzip2,
    /// xz, `fd 37 7a 58 5a 00`.
    Xz,
}

/// Bytes [`detect`] needs to see.
pub(crate) const MAGIC_BYTES: usize = 10;

/// The 48-bit magic that starts a bzip2 block (the digits of pi) and the one that ends a
/// stream (of the square root of pi): one follows `BZh1`…`BZh9` in every bzip2 stream.
const BZIP2_BLOCK: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
const BZIP2_END: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];

/// The compression the first bytes of an input show (fewer than [`MAGIC_BYTES`] at end of
/// input are fine). Text never starts with these bytes: none of them is valid UTF-8 at the
/// start of a line except bzip2's `BZh` and a digit, which text can start with ("BZh91 is a
/// part number"), so bzip2 needs its block magic after them too.
pub(crate) fn detect(head: &[u8]) -> Compression {
    match head {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
        [b'B', b'Z', b'h', b'1'..=b'9', rest @ ..]
            if rest.len() >= 6 && (rest[..6] == BZIP2_BLOCK || rest[..6] == BZIP2_END) =>
        {
            Compression::Bzip2
        }
        [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
        _ => Compression::None,
    }
}

/// A reader that looks at its first bytes on the first read and from then on decompresses
/// (or passes through) what follows. Nothing is read before the first read, so opening an
/// idle pipe does not block.
pub(crate) struct Decompressing {
    state: State,
    mode: Decompress,
}

enum State {
    Unread(Box<dyn Read + Send>),
    Reading(Box<dyn Read + Send>),
    /// Only while the state changes.
    Taken,
}

impl Decompressing {
    /// Wraps `inner`.
    #[cfg(test)]
    pub fn new(inner: Box<dyn Read + Send>) -> Decompressing {
        Decompressing::with(inner, Decompress::Auto)
    }

    /// Wraps `inner`, decompressing as `mode` says (`Auto`: by the first bytes).
    pub fn with(inner: Box<dyn Read + Send>, mode: Decompress) -> Decompressing {
        Decompressing {
            state: State::Unread(inner),
            mode,
        }
    }
}

impl Read for Decompressing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let State::Unread(_) = self.state {
            let State::Unread(mut inner) = std::mem::replace(&mut self.state, State::Taken) else {
                unreachable!("checked above");
            };
            // As much of the first bytes as the input has (a pipe may hand out fewer a read).
            let mut head = Vec::with_capacity(MAGIC_BYTES);
            if let Err(e) = inner
                .by_ref()
                .take(MAGIC_BYTES as u64)
                .read_to_end(&mut head)
            {
                self.state = State::Reading(inner);
                return Err(e);
            }
            let kind = match self.mode {
                Decompress::Auto => detect(&head),
                Decompress::None => Compression::None,
                Decompress::Gzip => Compression::Gzip,
                Decompress::Zstd => Compression::Zstd,
                Decompress::Xz => Compression::Xz,
                Decompress::Bzip2 => Compression::Bzip2,
            };
            let rest: Box<dyn Read + Send> = Box::new(io::Cursor::new(head).chain(inner));
            let text: Box<dyn Read + Send> = match kind {
                Compression::None => rest,
                Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(rest)),
                Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(rest)?),
                Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(rest)),
                Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(rest)),
            };
            let text: Box<dyn Read + Send> = match kind {
                Compression::None => text,
                _ => Box::new(Named {
                    inner: text,
                    kind,
                    detected: self.mode == Decompress::Auto,
                }),
            };
            self.state = State::Reading(without_bom(text)?);
        }
        match &mut self.state {
            State::Reading(reader) => reader.read(buf),
            _ => unreachable!("the first read sets the reader"),
        }
    }
}

/// A decompressing reader whose errors say which format was assumed and how to read the
/// input as it is instead.
struct Named {
    inner: Box<dyn Read + Send>,
    kind: Compression,
    /// Whether the format was recognised from the first bytes (else `--decompress` named it).
    detected: bool,
}

impl Read for Named {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let how = match self.detected {
                true => "its first bytes are this format's",
                false => "‹decompress› says so",
            };
            let name = format!("{:?}", self.kind).to_lowercase();
            io::Error::new(
                e.kind(),
                format!(
                    "read as {name} ({how}), it is not valid {name}: {e}; ‹decompress› none \
                     reads it as it is"
                ),
            )
        })
    }
}

/// The UTF-8 byte-order mark some editors put at the start of a file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// `text` without a leading UTF-8 byte-order mark: it is no part of the first line (as JSON
/// it would make line 1 a bad line, as text a different document).
fn without_bom(mut text: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut head = Vec::with_capacity(BOM.len());
    text.by_ref()
        .take(BOM.len() as u64)
        .read_to_end(&mut head)?;
    if head == BOM {
        head.clear();
    }
    Ok(Box::new(io::Cursor::new(head).chain(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"{\"text\":\"one line\"}\nsecond line\n\xef\xbb\xbfthird, no LF";

    fn compressed(kind: Compression, data: &[u8]) -> Vec<u8> {
        match kind {
            Compression::None => data.to_vec(),
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), Default::default());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::stream::encode_all(data, 3).unwrap(),
            Compression::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), Default::default());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
        }
    }

    /// Reads everything through a `Decompressing`, a few bytes at a time.
    fn read_all(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
        let mut r = Decompressing::new(Box::new(io::Cursor::new(bytes)));
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            match r.read(&mut buf)? {
                0 => return Ok(out),
                n => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    const KINDS: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Zstd,
        Compression::Bzip2,
        Compression::Xz,
    ];

    #[test]
    fn every_format_is_recognised_and_gives_the_text_back() {
        for kind in KINDS {
            let bytes = compressed(kind, TEXT);
            assert_eq!(detect(&bytes), kind);
            assert_eq!(read_all(bytes).unwrap(), TEXT, "{kind:?}");
        }
    }

    #[test]
    fn concatenated_members_and_frames_are_read_whole() {
        for kind in [
            Compression::Gzip,
            Compression::Zstd,
            Compression::Bzip2,
            Compression::Xz,
        ] {
            let mut bytes = compressed(kind, b"first part\n");
            bytes.extend(compressed(kind, b"second part\n"));
            assert_eq!(
                read_all(bytes).unwrap(),
                b"first part\nsecond part\n",
                "{kind:?}"
            );
        }
    }

    #[test]
    fn truncated_or_corrupt_streams_are_errors() {
        let long: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        for kind in [
            Compression::Gzip,
            Compression::Zstd,
            Compression::Bzip2,
            Compression::Xz,
        ] {
            let bytes = compressed(kind, &long);
            let cut = bytes[..bytes.len() / 2].to_vec();
            assert!(
                read_all(cut).is_err(),
                "{kind:?}: a truncated stream reads without error"
            );
            let mut flipped = bytes.clone();
            let at = flipped.len() / 2;
            flipped[at] ^= 0x55;
            assert!(
                read_all(flipped).is_err(),
                "{kind:?}: a corrupt stream reads without error"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_is_dropped_once_compressed_or_not() {
        for kind in KINDS {
            let bytes = compressed(kind, b"\xef\xbb\xbf{\"text\":\"a\"}\n\xef\xbb\xbfb\n");
            let text = read_all(bytes).unwrap();
            assert_eq!(
                text, b"{\"text\":\"a\"}\n\xef\xbb\xbfb\n",
                "{kind:?}: only the first"
            );
        }
        assert_eq!(read_all(BOM.to_vec()).unwrap(), b"");
        assert_eq!(read_all(b"\xef\xbb".to_vec()).unwrap(), b"\xef\xbb");
    }

    /// Text that starts like a bzip2 header is text: bzip2 needs its block magic too.
    #[test]
    fn text_starting_with_bzh_and_a_digit_is_text() {
        let text = b"BZh91 is a part number\nfoo\n";
        assert_eq!(detect(text), Compression::None);
        assert_eq!(read_all(text.to_vec()).unwrap(), text);
        let empty = compressed(Compression::Bzip2, b"");
        assert_eq!(
            detect(&empty),
            Compression::Bzip2,
            "an empty stream: end magic"
        );
        assert_eq!(
            detect(&compressed(Compression::Bzip2, TEXT)),
            Compression::Bzip2
        );
    }

    #[test]
    fn short_and_empty_inputs_pass_through() {
        for data in [&b""[..], b"a", b"BZ", b"BZh", b"\x1f"] {
            assert_eq!(read_all(data.to_vec()).unwrap(), data);
        }
    }
}
