//! The order of the limited buckets, for `--state`. A limited bucket is a segmented LRU
//! list shaped by the refreshes of the documents that matched, so inserting the saved
//! documents again does not give it back; without it, a resumed template family would look
//! at other members than one run does, and the output would differ.

use super::Window;
use super::family::take;
use std::collections::HashMap;

/// A limited bucket as saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SavedBucket {
    /// Which of the window's tables holds it.
    pub table: u8,
    /// Its key as the table keeps it (the top bits of the key's hash).
    pub top: u32,
    /// How many of its first members are protected.
    pub protected: u32,
    /// The members' sequence numbers, in order.
    pub members: Vec<u64>,
}

impl Window {
    /// The buckets of two or more members when the tables are limited (else none: an
    /// unlimited bucket's order is never used, candidates are ranked by sequence number).
    #[cfg(test)]
    fn limited_buckets(&self) -> Vec<SavedBucket> {
        let mut saved = Vec::new();
        for (table, buckets) in self.buckets.iter().enumerate() {
            if buckets.limit() <= 1 {
                continue;
            }
            for (top, protected, members) in buckets.lists() {
                saved.push(SavedBucket {
                    table: table as u8,
                    top,
                    protected,
                    members: members
                        .iter()
                        .map(|&slot| self.slots[slot as usize].seq)
                        .collect(),
                });
            }
        }
        saved
    }

    /// Gives the buckets back the order [`Window::write_bucket_order`] saved, once the saved
    /// documents are held again. Members no longer held (a smaller window let them go) are
    /// left out, and so is a bucket left with fewer than two.
    pub(crate) fn restore_buckets(&mut self, saved: &[SavedBucket]) {
        let slots: HashMap<u64, u32> = self.oldest_first().map(|h| (h.seq, h.slot)).collect();
        let mut members = Vec::new();
        for bucket in saved {
            members.clear();
            members.extend(
                bucket
                    .members
                    .iter()
                    .filter_map(|seq| slots.get(seq).copied()),
            );
            if let Some(table) = self.buckets.get_mut(bucket.table as usize) {
                table.restore_list(bucket.top, bucket.protected, &members);
            }
        }
    }

    /// Writes the order of the limited buckets for `--state`: u32 n + n × (u8 table | u32 key
    /// top bits | u32 protected | u32 m + m × u32 member), a member as its place in
    /// [`Window::oldest_first`] (the order in which the state writes the documents; half the
    /// bytes of its sequence number). Little-endian.
    #[cfg(test)]
    pub(crate) fn write_bucket_order(&self, out: &mut Vec<u8>) {
        let place: HashMap<u64, u32> = self
            .oldest_first()
            .enumerate()
            .map(|(i, held)| (held.seq, i as u32))
            .collect();
        let buckets = self.limited_buckets();
        out.extend_from_slice(&(buckets.len() as u32).to_le_bytes());
        for b in &buckets {
            out.push(b.table);
            out.extend_from_slice(&b.top.to_le_bytes());
            out.extend_from_slice(&b.protected.to_le_bytes());
            out.extend_from_slice(&(b.members.len() as u32).to_le_bytes());
            for seq in &b.members {
                out.extend_from_slice(&place[seq].to_le_bytes());
            }
        }
    }
}

impl SavedBucket {
    /// What [`Window::write_bucket_order`] wrote, members named by the sequence numbers of
    /// `documents` (the saved documents, in their order); `None` when the bytes are not that.
    pub(crate) fn read_all(mut bytes: &[u8], documents: &[u64]) -> Option<Vec<SavedBucket>> {
        let u32_of = |b: &mut &[u8]| take::<4>(b).map(u32::from_le_bytes);
        let n = u32_of(&mut bytes)? as usize;
        // Each bucket takes at least 13 bytes: a corrupt count cannot make this allocate more.
        let mut buckets = Vec::with_capacity(n.min(bytes.len() / 13));
        for _ in 0..n {
            let table = take::<1>(&mut bytes)?[0];
            let top = u32_of(&mut bytes)?;
            let protected = u32_of(&mut bytes)?;
            let m = u32_of(&mut bytes)? as usize;
            if m > bytes.len() / 4 {
                return None;
            }
            let members = (0..m)
                .map(|_| documents.get(u32_of(&mut bytes)? as usize).copied())
                .collect::<Option<_>>()?;
            buckets.push(SavedBucket {
                table,
                top,
                protected,
                members,
            });
        }
        bytes.is_empty().then_some(buckets)
    }
}
