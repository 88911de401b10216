//! A held document as bytes: what [`super::Entry`] holds, written to the store on insert
//! and read back for verification, ids and eviction.
//!
//! Layout (little-endian): the id first (kind byte, then a `u64` line number or a `u32`
//! length and the bytes), so that [`decode_id`] needs only a short prefix; then a flag byte
//! (bit 0: the copy index points here), the 128-bit text hash, the total weight (`f64`), five
//! `u32` counts (fingerprints, weights, signature values, band keys, text bytes) and the
//! arrays in that order.

use super::Entry;
use crate::input::DocId;
use std::io;

/// Bytes read first when only the id is wanted (enough for a line number or a short id).
pub const ID_PREFIX: usize = 48;

const LINE: u8 = 0;
const STR: u8 = 1;
const NUM: u8 = 2;

/// Writes the record of `entry` into `out` (cleared first); `copy_key` is what the copy
/// index holds for it.
pub fn encode(entry: &Entry, copy_key: Option<u128>, out: &mut Vec<u8>) {
    out.clear();
    match &entry.id {
        DocId::Line(n) => {
            out.push(LINE);
            out.extend_from_slice(&n.to_le_bytes());
        }
        DocId::Str(s) | DocId::Num(s) => {
            out.push(if matches!(entry.id, DocId::Str(_)) {
                STR
            } else {
                NUM
            });
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    out.push(u8::from(copy_key.is_some()));
    out.extend_from_slice(&entry.text_hash.to_le_bytes());
    out.extend_from_slice(&entry.total_weight.to_le_bytes());
    for n in [
        entry.shingles.len(),
        entry.weights.len(),
        entry.signature.len(),
        entry.band_keys.len(),
        entry.text.len(),
    ] {
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    out.reserve(
        entry.shingles.len() * 4
            + entry.weights.len() * 4
            + entry.signature.len() * 4
            + entry.band_keys.len() * 8
            + entry.text.len(),
    );
    for v in &entry.shingles {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in &entry.weights {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in &entry.signature {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in &entry.band_keys {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(entry.text.as_bytes());
}

/// Reads a record back.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a window record ends early (the spill file was changed)",
            ));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    fn u32(&mut self) -> io::Result<usize> {
        Ok(u32::from_le_bytes(self.array()?) as usize)
    }

    fn id(&mut self) -> io::Result<DocId> {
        match self.array::<1>()?[0] {
            LINE => Ok(DocId::Line(u64::from_le_bytes(self.array()?))),
            kind @ (STR | NUM) => {
                let n = self.u32()?;
                let s = std::str::from_utf8(self.take(n)?)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                Ok(if kind == STR {
                    DocId::Str(s.into())
                } else {
                    DocId::Num(s.into())
                })
            }
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a window record with an unknown id kind",
            )),
        }
    }
}

/// The length of the id part when `prefix` (the first bytes of a record) does not hold it
/// whole: read that many bytes and call [`decode_id`] again.
pub fn id_len(prefix: &[u8]) -> Option<usize> {
    match prefix.first() {
        Some(&STR | &NUM) if prefix.len() >= 5 => {
            let n = u32::from_le_bytes(prefix[1..5].try_into().expect("4 bytes")) as usize;
            (prefix.len() < 5 + n).then_some(5 + n)
        }
        _ => None,
    }
}

/// The id of a record, from its first bytes.
pub fn decode_id(prefix: &[u8]) -> io::Result<DocId> {
    Reader(prefix).id()
}

/// Decodes a whole record into `into`, reusing its buffers.
pub fn decode(record: &[u8], into: &mut Entry) -> io::Result<()> {
    let mut r = Reader(record);
    into.id = r.id()?;
    let copy = r.array::<1>()?[0] & 1 == 1;
    into.text_hash = u128::from_le_bytes(r.array()?);
    into.copy_key = copy.then_some(into.text_hash);
    into.total_weight = f64::from_le_bytes(r.array()?);
    let counts = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
    into.shingles.clear();
    into.shingles.extend(
        r.take(counts[0] * 4)?
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
    );
    into.weights.clear();
    into.weights.extend(
        r.take(counts[1] * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))),
    );
    into.signature.clear();
    into.signature.extend(
        r.take(counts[2] * 4)?
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
    );
    into.band_keys.clear();
    into.band_keys.extend(
        r.take(counts[3] * 8)?
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
    );
    into.text.clear();
    into.text.push_str(
        std::str::from_utf8(r.take(counts[4])?)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_whole() {
        for id in [
            DocId::Line(77),
            DocId::Str("a long string id, longer than the prefix read first".into()),
            DocId::Num("12345678901234567890123".into()),
        ] {
            let entry = Entry {
                id,
                shingles: vec![1, 5, 9, u32::MAX],
                weights: vec![0.5, 1.0, 2.0, 3.5],
                total_weight: 7.0,
                text: "é text".into(),
                signature: vec![3, 4],
                band_keys: vec![u64::MAX, 0, 42],
                copy_key: Some(99),
                text_hash: 99,
            };
            let mut bytes = Vec::new();
            encode(&entry, entry.copy_key, &mut bytes);
            let mut back = Entry::default();
            decode(&bytes, &mut back).unwrap();
            assert_eq!(format!("{back:?}"), format!("{entry:?}"));
            let prefix = &bytes[..ID_PREFIX.min(bytes.len())];
            let id = match id_len(prefix) {
                None => decode_id(prefix).unwrap(),
                Some(n) => decode_id(&bytes[..n]).unwrap(),
            };
            assert_eq!(id, entry.id);
            assert!(decode(&bytes[..bytes.len() - 1], &mut back).is_err());
        }
    }
}
