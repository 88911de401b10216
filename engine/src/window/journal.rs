//! The window's journal: what changed in its tables since they were last written whole, as
//! the operations that changed them, so that a save of an index (`--state DIR`,
//! [`crate::state`]) appends what a run did instead of rewriting tables that grow with the
//! whole corpus. Opening the index reads the tables, then replays the journal's segments
//! with the same primitives the run used, in the same order: the window comes back as it was.
//!
//! ```text
//! segment: u64 n + n bytes of operations | u64 m + m bytes, the family summaries
//!          | u64 bands | u64 bucket limit | u64 documents held | u64 inserts
//!          | u64 xxh3-64 of all before
//! insert:  1 | u64 seq | u32 slot | u64 offset | u32 len | 4 × u64 sketch
//!          | u8 indexed copy (0/1) [+ u64 its key] | u32 k + k × u64 bucket key
//! evict:   2                       (the oldest document; its keys come from its record)
//! touch:   3 | u32 slot
//! refresh: 4 | u32 slot | u32 k + k × u64 bucket key
//! sum:     5 | u32 slot | u32 record checksum
//! ```
//! Not journaled, and so followed by a whole write of the tables: a compaction (the records
//! move), the family keys made again after the warm-up (records rewritten), a failed insert
//! (a full bucket may have let a member go), and a journal grown past the room it was given
//! (the state module's rules: the log may not outgrow the tables it follows).

use super::changes::{
    Bytes, EVICT, INSERT, JOURNAL_SHARE, Journal, REFRESH, SUM, TOUCH, insert_keys_ahead,
};
use super::codec::damaged;
use super::{Held, NIL, Slot, Window, shard};
use crate::sketch::lsh::Sketch;
use std::io;

impl Window {
    /// Starts recording what changes in the tables, which are now the index's tables of
    /// generation `base` (just saved whole or with a log segment, or opened); the operations may take `room` bytes, after
    /// which the next save writes the tables whole. Under a memory budget the journal, which
    /// the window's budget does not count (so that a run with `--state` holds what one
    /// without it holds), takes at most [`JOURNAL_SHARE`]th of it.
    pub(crate) fn start_journal(&mut self, base: u64, room: usize) {
        let room = match self.budget {
            0 => room,
            budget => room.min(budget / JOURNAL_SHARE),
        };
        self.journal = Journal {
            base: Some(base),
            ops: Vec::new(),
            inserts: 0,
            room,
        };
    }

    /// The generation of the tables the journal follows, when every change since they were
    /// written is in it (a save may then append [`Window::journal_segment`] to their log).
    pub(crate) fn journal_base(&self) -> Option<u64> {
        self.journal.base
    }

    /// Documents inserted since the tables the journal follows (or its last segment).
    pub(crate) fn journal_inserts(&self) -> u64 {
        self.journal.inserts
    }

    /// Stops the journal: the next save writes the tables whole (an index opened with a long
    /// log, so that its next opening need not replay it again; a change the journal does not
    /// replay).
    pub(crate) fn stop_journal(&mut self) {
        self.journal.stop();
    }

    /// The journal as one segment of a log: its operations, and what is small enough to be
    /// written whole (the family summaries), then a checksum.
    pub(crate) fn journal_segment(&self) -> Vec<u8> {
        let j = &self.journal;
        let mut family = Vec::new();
        self.family.write_to(&mut family);
        let mut out = Vec::with_capacity(j.ops.len() + family.len() + 48);
        out.extend_from_slice(&(j.ops.len() as u64).to_le_bytes());
        out.extend_from_slice(&j.ops);
        out.extend_from_slice(&(family.len() as u64).to_le_bytes());
        out.extend_from_slice(&family);
        let limit = self.buckets.first().map_or(0, super::Buckets::limit);
        for v in [self.bands as u64, limit as u64, self.len as u64, j.inserts] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Replays `log` (segments [`Window::journal_segment`] wrote, one after another) onto
    /// the tables it follows, whose records end at `records_end`. Nothing is recorded while
    /// it replays; a damaged log is an error, never a panic. Returns the inserts replayed.
    pub(crate) fn replay_log(&mut self, mut log: &[u8], records_end: u64) -> io::Result<u64> {
        let saved = std::mem::take(&mut self.journal);
        let mut inserts = 0;
        let result = (|| {
            while !log.is_empty() {
                inserts += self.replay_segment(&mut log, records_end)?;
            }
            Ok(inserts)
        })();
        self.journal = saved;
        result
    }

    fn replay_segment(&mut self, log: &mut &[u8], records_end: u64) -> io::Result<u64> {
        let whole = *log;
        let mut b = Bytes(log);
        let n = b.len_of()?;
        let ops = b.take(n)?;
        let m = b.len_of()?;
        let family = b.take(m)?;
        let (bands, limit) = (b.u64()?, b.len_of()?);
        let (held, inserts) = (b.u64()?, b.u64()?);
        let body = whole.len() - b.0.len();
        if b.u64()? != xxhash_rust::xxh3::xxh3_64(&whole[..body]) {
            return Err(damaged("a log segment's checksum"));
        }
        *log = b.0;
        // The pushes are replayed under the bucket limit of the run that made them.
        let own = self.buckets.first().map_or(0, super::Buckets::limit);
        self.set_bucket_limit(limit);
        let replayed = self.replay_ops(ops, family, bands, records_end);
        self.set_bucket_limit(own);
        let replayed = replayed?;
        if held != self.len as u64 || inserts != replayed {
            return Err(damaged("a log segment's counts"));
        }
        Ok(replayed)
    }

    fn set_bucket_limit(&mut self, limit: usize) {
        for table in &mut self.buckets {
            table.set_limit(limit);
        }
    }

    /// Replays one segment's operations, then puts back its family summaries and band
    /// count: the inserts replayed.
    fn replay_ops(
        &mut self,
        ops: &[u8],
        family: &[u8],
        bands: u64,
        records_end: u64,
    ) -> io::Result<u64> {
        let mut replayed = 0;
        let mut ops = Bytes(ops);
        let mut keys = Vec::new();
        while !ops.0.is_empty() {
            match ops.take(1)?[0] {
                INSERT => {
                    let seq = ops.u64()?;
                    let slot = ops.u32()?;
                    let (offset, len) = (ops.u64()?, ops.u32()?);
                    let mut sketch: Sketch = [0; 4];
                    for v in &mut sketch {
                        *v = ops.u64()?;
                    }
                    let copy = match ops.take(1)?[0] {
                        0 => None,
                        _ => Some(ops.u64()?),
                    };
                    ops.keys(&mut keys)?;
                    self.prefetch_next_insert(ops.0);
                    if len == 0 || offset.saturating_add(u64::from(len)) > records_end {
                        return Err(damaged("a logged record lies past the records' end"));
                    }
                    if self.free_slot_for_replay()? != slot {
                        return Err(damaged("a logged insert's slot"));
                    }
                    if let Some(h) = copy {
                        self.copies.push(h, slot);
                    }
                    for &key in &keys {
                        self.buckets[shard(key)].push(key, slot);
                    }
                    let s = &mut self.slots[slot as usize];
                    *s = Slot {
                        sketch,
                        seq,
                        offset,
                        len,
                        newer: NIL,
                        older: NIL,
                        sum: 0,
                    };
                    self.link_newest(slot);
                    self.len += 1;
                    replayed += 1;
                }
                EVICT => {
                    if self.oldest == NIL {
                        return Err(damaged("a logged eviction of nothing"));
                    }
                    self.evict_oldest_replayed()?;
                }
                TOUCH => {
                    let held = self.replayed_held(ops.u32()?)?;
                    self.touch(held);
                }
                REFRESH => {
                    let held = self.replayed_held(ops.u32()?)?;
                    ops.keys(&mut keys)?;
                    for &key in &keys {
                        self.buckets[shard(key)].refresh(key, held.slot);
                    }
                }
                SUM => {
                    let held = self.replayed_held(ops.u32()?)?;
                    self.slots[held.slot as usize].sum = ops.u32()?;
                }
                _ => return Err(damaged("an unknown logged operation")),
            }
        }
        self.family = super::Family::read_from(family)
            .ok_or_else(|| damaged("a log segment's family summaries"))?;
        self.bands = bands as usize;
        Ok(replayed)
    }

    /// When the next operation in `ops` is an insert, asks for its buckets' cells ahead (a
    /// replay is bucket pushes at random places, as the run's inserts were; the run asked
    /// for the next document's ahead too).
    fn prefetch_next_insert(&self, ops: &[u8]) {
        for key in insert_keys_ahead(ops) {
            self.buckets[shard(key)].prefetch(key);
        }
    }

    /// The slot the next insert takes ([`Window::free_slot`]), refused past the bounds a
    /// damaged log could ask for.
    fn free_slot_for_replay(&mut self) -> io::Result<u32> {
        if self.free.is_empty() && self.slots.len() as u64 >= u64::from(super::buckets::MAX_SLOT) {
            return Err(damaged("too many slots"));
        }
        Ok(self.free_slot())
    }

    fn replayed_held(&self, slot: u32) -> io::Result<Held> {
        match self.slots.len() > slot as usize && self.slots[slot as usize].len > 0 {
            true => Ok(self.held(slot)),
            false => Err(damaged("a logged operation on a free slot")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Entry, Window};
    use super::*;

    fn entry(seq: u64) -> Entry {
        // Keys shared by neighbours, so that buckets have lists; some documents share a text.
        Entry {
            band_keys: vec![seq / 3, 1000 + seq % 7, 5000 + seq],
            copy_key: Some(u128::from(seq % 5)),
            text_hash: u128::from(seq % 5),
            sketch: [seq; 4],
            ..Entry::default()
        }
    }

    /// What a window's tables say, without its records: slots in recency order and the
    /// members of every bucket the test's keys name.
    /// Held slots (sequence number, sketch, record place) and bucket members by sequence.
    type Tables = (Vec<(u64, Sketch, u64, u32)>, Vec<Vec<u64>>);

    fn tables(w: &Window, last: u64) -> Tables {
        let slots = w
            .oldest_first()
            .map(|h| {
                let s = w.slots[h.slot()];
                (s.seq, s.sketch, s.offset, s.len)
            })
            .collect();
        let seq_of = |m: &u32| w.slots[*m as usize].seq;
        let mut buckets = Vec::new();
        for seq in 0..=last {
            for key in entry(seq).band_keys {
                buckets.push(w.buckets[shard(key)].get(key).iter().map(seq_of).collect());
            }
            let copy = entry(seq).copy_key.unwrap() as u64;
            buckets.push(w.copies.get(copy).iter().map(seq_of).collect());
        }
        (slots, buckets)
    }

    /// A window journaled from empty, and its log: two segments, saved after 25 and 40
    /// documents.
    fn journaled(limit: usize) -> (Window, Vec<u8>) {
        let mut w = Window::new(0).with_bucket_limit(limit);
        w.start_journal(1, usize::MAX);
        let mut log = Vec::new();
        for seq in 0..40 {
            if seq == 25 {
                log.extend(w.journal_segment());
                w.start_journal(1, usize::MAX);
            }
            let e = entry(seq);
            let keys = e.band_keys.clone();
            let held = w.insert(seq, e).unwrap();
            if seq % 4 == 3 {
                // A match of an older document, as the filter reports one.
                let older = w.oldest_first().nth(seq as usize / 3).unwrap();
                w.touch_in_buckets(older, &keys);
            }
            if seq % 9 == 0 {
                w.touch(held);
            }
        }
        log.extend(w.journal_segment());
        (w, log)
    }

    #[test]
    fn a_replayed_journal_gives_the_same_tables() {
        for limit in [0, 4] {
            let (w, segment) = journaled(limit);
            let mut again = Window::new(0).with_bucket_limit(limit);
            let inserts = again.replay_log(&segment, u64::MAX).unwrap();
            assert_eq!(inserts, 40);
            assert_eq!(again.len(), w.len());
            assert!(tables(&again, 39) == tables(&w, 39), "limit {limit}");
        }
    }

    #[test]
    fn the_limit_that_made_the_pushes_is_the_one_replayed() {
        let (w, segment) = journaled(4);
        // Opened by a run without a bucket limit: the pushes still dropped what they did.
        let mut again = Window::new(0);
        again.replay_log(&segment, u64::MAX).unwrap();
        assert!(tables(&again, 39) == tables(&w, 39));
        assert_eq!(
            again.buckets[0].limit(),
            0,
            "the run's own limit afterwards"
        );
    }

    #[test]
    fn a_damaged_or_cut_log_is_an_error_not_a_panic() {
        let (_, segment) = journaled(4);
        for cut in (0..segment.len()).step_by(7) {
            let mut w = Window::new(0);
            assert!(w.replay_log(&segment[..cut.max(1)], u64::MAX).is_err());
        }
        // A byte changed anywhere in the operations, with the checksum made to match: the
        // replay refuses it or replays something, but never panics or reads past the end.
        let ops_len = u64::from_le_bytes(segment[..8].try_into().unwrap()) as usize;
        for at in (8..8 + ops_len).step_by(3) {
            let mut bad = segment.clone();
            bad[at] ^= 0x5a;
            let body = bad.len() - 8;
            let sum = xxhash_rust::xxh3::xxh3_64(&bad[..body]);
            bad[body..].copy_from_slice(&sum.to_le_bytes());
            let _ = Window::new(0).replay_log(&bad, u64::MAX);
        }
        let mut w = Window::new(0);
        let mut flipped = segment.clone();
        flipped[20] ^= 1;
        let err = w.replay_log(&flipped, u64::MAX).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }

    #[test]
    fn a_journal_past_its_room_stops_and_asks_for_the_tables() {
        let mut w = Window::new(0);
        w.start_journal(3, 200);
        w.insert(0, entry(0)).unwrap();
        assert_eq!(w.journal_base(), Some(3));
        for seq in 1..10 {
            w.insert(seq, entry(seq)).unwrap();
        }
        assert_eq!(
            w.journal_base(),
            None,
            "past 200 bytes the journal is dropped"
        );
        assert_eq!(w.journal_inserts(), 0);
    }
}
