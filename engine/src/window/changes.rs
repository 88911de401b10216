//! The window journal's operations as bytes: what [`super::journal`] records while the
//! window's tables belong to an index, and reads back to replay them (the layout is there).

use crate::sketch::lsh::Sketch;
use std::io;

use super::codec::damaged;

pub(super) const INSERT: u8 = 1;
pub(super) const EVICT: u8 = 2;
pub(super) const TOUCH: u8 = 3;
pub(super) const REFRESH: u8 = 4;
pub(super) const SUM: u8 = 5;

/// Under `--max-memory`, the journal takes at most this share (1/N) of the budget.
pub(crate) const JOURNAL_SHARE: usize = 16;

/// What a window changed since its tables were written, while it is recording.
#[derive(Debug, Default)]
pub(super) struct Journal {
    /// The generation of the tables the operations follow (`None`: not recording).
    pub(super) base: Option<u64>,
    /// The operations, encoded.
    pub(super) ops: Vec<u8>,
    /// Inserts among them.
    pub(super) inserts: u64,
    /// Bytes the operations may take; past it, recording stops.
    pub(super) room: usize,
}

impl Journal {
    /// Stops recording: the next save writes the tables whole.
    pub(super) fn stop(&mut self) {
        *self = Journal::default();
    }

    /// Records an insert into `slot`: the document, its record's place, the copy-index key
    /// it was indexed under, if any, and all its bucket keys ([`insert_keys_ahead`] reads
    /// this layout too).
    pub(super) fn insert(
        &mut self,
        seq: u64,
        slot: u32,
        (offset, len): (u64, u32),
        sketch: &Sketch,
        copy: Option<u64>,
        keys: &[u64],
    ) {
        if self.base.is_none() {
            return;
        }
        self.ops.push(INSERT);
        self.ops.extend_from_slice(&seq.to_le_bytes());
        self.ops.extend_from_slice(&slot.to_le_bytes());
        self.ops.extend_from_slice(&offset.to_le_bytes());
        self.ops.extend_from_slice(&len.to_le_bytes());
        for v in sketch {
            self.ops.extend_from_slice(&v.to_le_bytes());
        }
        match copy {
            Some(h) => {
                self.ops.push(1);
                self.ops.extend_from_slice(&h.to_le_bytes());
            }
            None => self.ops.push(0),
        }
        self.keys(keys);
        self.inserts += 1;
        self.check_room();
    }

    /// Records the eviction of the oldest document.
    pub(super) fn evict(&mut self) {
        if self.base.is_some() {
            self.ops.push(EVICT);
            self.check_room();
        }
    }

    /// Records a touch of `slot` (it becomes the newest).
    pub(super) fn touch(&mut self, slot: u32) {
        if self.base.is_some() {
            self.ops.push(TOUCH);
            self.ops.extend_from_slice(&slot.to_le_bytes());
            self.check_room();
        }
    }

    /// Records a refresh of `slot` in the buckets of `keys`.
    pub(super) fn refresh(&mut self, slot: u32, keys: &[u64]) {
        if self.base.is_some() {
            self.ops.push(REFRESH);
            self.ops.extend_from_slice(&slot.to_le_bytes());
            self.keys(keys);
            self.check_room();
        }
    }

    /// Records the checksum an index save computed for `slot`'s record.
    pub(super) fn sum(&mut self, slot: u32, sum: u32) {
        if self.base.is_some() {
            self.ops.push(SUM);
            self.ops.extend_from_slice(&slot.to_le_bytes());
            self.ops.extend_from_slice(&sum.to_le_bytes());
            self.check_room();
        }
    }

    /// Ends an operation: past the room, the journal is dropped.
    fn check_room(&mut self) {
        if self.ops.len() > self.room {
            self.stop();
        }
    }

    fn keys(&mut self, keys: &[u64]) {
        self.ops
            .extend_from_slice(&(keys.len() as u32).to_le_bytes());
        for k in keys {
            self.ops.extend_from_slice(&k.to_le_bytes());
        }
    }
}

/// The bucket keys of the insert at the start of `ops`, if one is there whole (nothing
/// otherwise): what a replay asks for ahead, read by the layout [`Journal::insert`] writes.
pub(super) fn insert_keys_ahead(ops: &[u8]) -> impl Iterator<Item = u64> + '_ {
    // Tag, seq, slot, offset, len, sketch; then the copy flag and, when set, the copy key.
    const FLAG: usize = 1 + 8 + 4 + 8 + 4 + 32;
    let keys = (|| {
        if *ops.first()? != INSERT {
            return None;
        }
        let at = FLAG + 1 + if *ops.get(FLAG)? == 0 { 0 } else { 8 };
        let n = u32::from_le_bytes(ops.get(at..at + 4)?.try_into().ok()?) as usize;
        ops.get(at + 4..(at + 4).checked_add(n.checked_mul(8)?)?)
    })();
    keys.unwrap_or_default()
        .chunks_exact(8)
        .map(|k| u64::from_le_bytes(k.try_into().expect("8 bytes")))
}

/// Little-endian reads from a slice, refused past its end.
pub(super) struct Bytes<'a>(pub(super) &'a [u8]);

impl<'a> Bytes<'a> {
    pub(super) fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if n > self.0.len() {
            return Err(damaged("a log segment runs past the end"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub(super) fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }

    pub(super) fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }

    pub(super) fn len_of(&mut self) -> io::Result<usize> {
        usize::try_from(self.u64()?).map_err(|_| damaged("a log segment's length"))
    }

    pub(super) fn keys(&mut self, keys: &mut Vec<u64>) -> io::Result<()> {
        let n = self.u32()? as usize;
        let bytes = self.take(n.checked_mul(8).ok_or_else(|| damaged("a key count"))?)?;
        keys.clear();
        keys.extend(
            bytes
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8"))),
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_ahead_are_the_next_inserts_whole_or_none() {
        for copy in [None, Some(7)] {
            let mut j = Journal {
                base: Some(1),
                room: usize::MAX,
                ..Journal::default()
            };
            j.insert(3, 4, (5, 6), &[1, 2, 3, 4], copy, &[10, 20, 30]);
            assert_eq!(insert_keys_ahead(&j.ops).collect::<Vec<_>>(), [10, 20, 30]);
            let cut = &j.ops[..j.ops.len() - 1];
            assert_eq!(insert_keys_ahead(cut).count(), 0, "a cut insert: nothing");
        }
        let mut j = Journal {
            base: Some(1),
            room: usize::MAX,
            ..Journal::default()
        };
        j.touch(9);
        assert_eq!(insert_keys_ahead(&j.ops).count(), 0, "not an insert");
        assert_eq!(insert_keys_ahead(&[]).count(), 0);
    }
}
