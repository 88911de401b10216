//! A held document as bytes: what [`super::Entry`] holds, written to the store on insert
//! and read back, without copying, for verification, ids and eviction.
//!
//! Layout, in the machine's byte order (the spill file never leaves the process), every part
//! 8-byte aligned within a record that starts 8-byte aligned, so that a record in a RAM
//! segment is read in place ([`View`]):
//!
//! | part | bytes |
//! |---|---|
//! | [`Header`]: text hash, total weight, line number, id kind and the counts | 64 |
//! | band keys (`u64`) | 8 × bands |
//! | fingerprints, tf-idf weights, signature (`u32`, `f32`, `u32`), then padding | 4 × each |
//! | normalised text (text stages), then the id's bytes (string and number ids), padding | |

use crate::input::DocId;
use crate::sketch::lsh::Sketch;
use crate::verify::{Compared, Fingerprint};
use bytemuck::Pod;
use std::io;

/// What the window keeps of a document: given to [`super::Window::insert`], which stores it as a
/// record, and filled again from the record by [`super::Window::load`] and [`super::Window::visit`].
#[derive(Debug)]
pub struct Entry {
    /// The document's id, for `dup_of` and pairs.
    pub id: DocId,
    /// Sorted distinct shingle fingerprints (empty when verification is off).
    pub shingles: Vec<Fingerprint>,
    /// `--weights tfidf`: each shingle element's weight (else empty).
    pub weights: Vec<f32>,
    /// Sum of `weights`.
    pub total_weight: f64,
    /// Normalised text, kept only for text confirmation stages (else empty).
    pub text: String,
    /// Compact signature (empty unless verification is off).
    pub signature: Vec<u32>,
    /// One key per band.
    pub band_keys: Vec<u64>,
    /// Hash of the normalised text, when the document is the one the copy index points to.
    pub copy_key: Option<u128>,
    /// Hash of the normalised text (always; verification skips the merge when two are equal).
    pub text_hash: u128,
    /// The signature in brief (kept in RAM beside the record, not in it): ranks candidates.
    pub sketch: Sketch,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            id: DocId::Line(0),
            shingles: Vec::new(),
            weights: Vec::new(),
            total_weight: 0.0,
            text: String::new(),
            signature: Vec::new(),
            band_keys: Vec::new(),
            copy_key: None,
            text_hash: 0,
            sketch: UNKNOWN_SKETCH,
        }
    }
}

impl Entry {
    /// What verification compares of this document.
    pub fn compared(&self) -> Compared<'_> {
        Compared {
            shingles: &self.shingles,
            weights: &self.weights,
            total_weight: self.total_weight,
            text: Some(&self.text),
            signature: &self.signature,
            text_hash: self.text_hash,
        }
    }
}

/// The sketch of a document read from a state saved before sketches were kept: ranked as
/// agreeing everywhere, so such documents are verified first, as all were before.
pub(crate) const UNKNOWN_SKETCH: Sketch = [u64::MAX; 4];

const LINE: u32 = 0;
const STR: u32 = 1;
const NUM: u32 = 2;

/// The fixed part of a record.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Header {
    text_hash: [u64; 2],
    total_weight: f64,
    /// The line number of a [`DocId::Line`] id.
    line: u64,
    /// [`LINE`], [`STR`] or [`NUM`], and 1 << 8 when the copy index points here.
    kind: u32,
    id_len: u32,
    shingles: u32,
    weights: u32,
    signature: u32,
    band_keys: u32,
    text_len: u32,
    _pad: u32,
}

const HEADER: usize = std::mem::size_of::<Header>();
const COPY: u32 = 1 << 8;

/// `n` rounded up to a multiple of 8.
fn padded(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// The length of `entry`'s record (what [`encode_onto`] appends).
pub(crate) fn encoded_len(entry: &Entry) -> usize {
    let id = match &entry.id {
        DocId::Line(_) => 0,
        DocId::Str(s) | DocId::Num(s) => s.len(),
    };
    let numbers = 8 * entry.band_keys.len()
        + 4 * (entry.shingles.len() + entry.weights.len() + entry.signature.len());
    padded(HEADER + numbers) + padded(entry.text.len() + id)
}

/// Writes the record of `entry` into `out` (cleared first; its length a multiple of 8);
/// `copy_key` is what the copy index holds for it. (The window writes records with
/// [`encode_onto`], straight into its store.)
#[cfg(test)]
pub(crate) fn encode(entry: &Entry, copy_key: Option<u128>, out: &mut Vec<u8>) {
    out.clear();
    encode_onto(entry, copy_key, out);
}

/// [`encode`] after what `out` holds: [`encoded_len`] bytes, padded from where they start
/// (a store segment may end in the middle of a record, so the next one's place in it need
/// not be a multiple of 8).
pub(crate) fn encode_onto(entry: &Entry, copy_key: Option<u128>, out: &mut Vec<u8>) {
    let start = out.len();
    let pad = |out: &mut Vec<u8>| out.resize(start + padded(out.len() - start), 0);
    let (kind, line, id_bytes): (u32, u64, &[u8]) = match &entry.id {
        DocId::Line(n) => (LINE, *n, &[]),
        DocId::Str(s) => (STR, 0, s.as_bytes()),
        DocId::Num(s) => (NUM, 0, s.as_bytes()),
    };
    let header = Header {
        text_hash: [entry.text_hash as u64, (entry.text_hash >> 64) as u64],
        total_weight: entry.total_weight,
        line,
        kind: kind | if copy_key.is_some() { COPY } else { 0 },
        id_len: id_bytes.len() as u32,
        shingles: entry.shingles.len() as u32,
        weights: entry.weights.len() as u32,
        signature: entry.signature.len() as u32,
        band_keys: entry.band_keys.len() as u32,
        text_len: entry.text.len() as u32,
        _pad: 0,
    };
    out.extend_from_slice(bytemuck::bytes_of(&header));
    out.extend_from_slice(bytemuck::cast_slice(&entry.band_keys));
    out.extend_from_slice(bytemuck::cast_slice(&entry.shingles));
    out.extend_from_slice(bytemuck::cast_slice(&entry.weights));
    out.extend_from_slice(bytemuck::cast_slice(&entry.signature));
    pad(out);
    out.extend_from_slice(entry.text.as_bytes());
    out.extend_from_slice(id_bytes);
    pad(out);
}

fn damaged() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a window record is damaged (the spill file was changed)",
    )
}

/// A record read in place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View<'a> {
    header: &'a Header,
    /// One key per band.
    pub band_keys: &'a [u64],
    shingles: &'a [u32],
    weights: &'a [f32],
    signature: &'a [u32],
    text: &'a str,
    id: &'a [u8],
}

/// `n` items of `T` from the front of `bytes`, which then starts after them.
fn take<'a, T: Pod>(bytes: &mut &'a [u8], n: usize) -> io::Result<&'a [T]> {
    let len = n * std::mem::size_of::<T>();
    if bytes.len() < len {
        return Err(damaged());
    }
    let (head, rest) = bytes.split_at(len);
    *bytes = rest;
    bytemuck::try_cast_slice(head).map_err(|_| damaged())
}

impl<'a> View<'a> {
    /// Reads a record (8-byte aligned, as the store gives it).
    pub fn parse(record: &'a [u8]) -> io::Result<View<'a>> {
        if record.len() < HEADER {
            return Err(damaged());
        }
        let header: &Header = bytemuck::try_from_bytes(&record[..HEADER]).map_err(|_| damaged())?;
        let mut rest = &record[HEADER..];
        let band_keys = take::<u64>(&mut rest, header.band_keys as usize)?;
        let shingles = take::<u32>(&mut rest, header.shingles as usize)?;
        let weights = take::<f32>(&mut rest, header.weights as usize)?;
        let signature = take::<u32>(&mut rest, header.signature as usize)?;
        let used = record.len() - rest.len();
        rest = record.get(padded(used)..).ok_or_else(damaged)?;
        let text = take::<u8>(&mut rest, header.text_len as usize)?;
        let id = take::<u8>(&mut rest, header.id_len as usize)?;
        Ok(View {
            header,
            band_keys,
            shingles,
            weights,
            signature,
            text: std::str::from_utf8(text).map_err(|_| damaged())?,
            id,
        })
    }

    /// The hash of the normalised text.
    pub fn text_hash(&self) -> u128 {
        u128::from(self.header.text_hash[0]) | u128::from(self.header.text_hash[1]) << 64
    }

    /// The copy index's key for this document, when it points here.
    pub(crate) fn copy_key(&self) -> Option<u128> {
        (self.header.kind & COPY != 0).then(|| self.text_hash())
    }

    /// The document's id.
    pub fn id(&self) -> io::Result<DocId> {
        match self.header.kind & 0xff {
            LINE => Ok(DocId::Line(self.header.line)),
            kind @ (STR | NUM) => {
                let s = std::str::from_utf8(self.id).map_err(|_| damaged())?;
                Ok(if kind == STR {
                    DocId::Str(s.into())
                } else {
                    DocId::Num(s.into())
                })
            }
            _ => Err(damaged()),
        }
    }

    /// What verification compares of this document.
    pub fn compared(&self) -> Compared<'a> {
        Compared {
            shingles: self.shingles,
            weights: self.weights,
            total_weight: self.header.total_weight,
            text: Some(self.text),
            signature: self.signature,
            text_hash: self.text_hash(),
        }
    }

    /// The whole entry, into `into` (its buffers reused).
    pub(crate) fn to_entry(self, into: &mut Entry) -> io::Result<()> {
        into.id = self.id()?;
        into.text_hash = self.text_hash();
        into.copy_key = self.copy_key();
        into.total_weight = self.header.total_weight;
        into.shingles.clear();
        into.shingles.extend_from_slice(self.shingles);
        into.weights.clear();
        into.weights.extend_from_slice(self.weights);
        into.signature.clear();
        into.signature.extend_from_slice(self.signature);
        into.band_keys.clear();
        into.band_keys.extend_from_slice(self.band_keys);
        into.text.clear();
        into.text.push_str(self.text);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` copied to an 8-byte aligned buffer, as the store gives records.
    fn aligned(bytes: &[u8]) -> Vec<u64> {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        words
    }

    #[test]
    fn entries_come_back_whole() {
        for id in [
            DocId::Line(77),
            DocId::Str("a string id é".into()),
            DocId::Num("12345678901234567890123".into()),
        ] {
            let entry = Entry {
                id,
                shingles: vec![1, 5, 9, u32::MAX],
                weights: vec![0.5, 1.0, 2.0, 3.5],
                total_weight: 7.0,
                text: "é text".into(),
                signature: vec![3, 4, 5],
                band_keys: vec![u64::MAX, 0, 42],
                copy_key: Some(99 << 70 | 5),
                text_hash: 99 << 70 | 5,
                sketch: [1, 2, 3, 4],
            };
            let mut bytes = Vec::new();
            encode(&entry, entry.copy_key, &mut bytes);
            assert_eq!(bytes.len() % 8, 0);
            assert_eq!(bytes.len(), encoded_len(&entry));
            // Written after other bytes, the same bytes, wherever they start.
            for before in [16, 13] {
                let mut after = vec![7u8; before];
                encode_onto(&entry, entry.copy_key, &mut after);
                assert_eq!(after[before..], bytes[..]);
            }
            let words = aligned(&bytes);
            let record = &bytemuck::cast_slice::<u64, u8>(&words)[..bytes.len()];
            let view = View::parse(record).unwrap();
            assert_eq!(view.id().unwrap(), entry.id);
            // The sketch lives beside the record, in the window's RAM.
            let mut back = Entry {
                sketch: entry.sketch,
                ..Entry::default()
            };
            view.to_entry(&mut back).unwrap();
            assert_eq!(format!("{back:?}"), format!("{entry:?}"));
            encode(&entry, None, &mut bytes);
            let words = aligned(&bytes);
            let view = View::parse(&bytemuck::cast_slice::<u64, u8>(&words)[..bytes.len()]);
            assert_eq!(view.unwrap().copy_key(), None);
            assert!(View::parse(&record[..record.len() - 16]).is_err());
            assert!(View::parse(&record[..HEADER - 1]).is_err());
        }
    }
}
