//! The order of the limited buckets, for `--state`. A limited bucket is a segmented LRU
//! list shaped by the refreshes of the documents that matched, so inserting the saved
//! documents again does not give it back; without it, a resumed template family would look
//! at other members than one run does, and the output would differ.

use super::Window;
use std::collections::HashMap;

/// A limited bucket as saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedBucket {
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
    pub fn limited_buckets(&self) -> Vec<SavedBucket> {
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
                        .map(|&slot| self.seqs[slot as usize])
                        .collect(),
                });
            }
        }
        saved
    }

    /// Gives the buckets back the order [`Window::limited_buckets`] saved, once the saved
    /// documents are held again. Members no longer held (a smaller window let them go) are
    /// left out, and so is a bucket left with fewer than two.
    pub fn restore_buckets(&mut self, saved: &[SavedBucket]) {
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
}
