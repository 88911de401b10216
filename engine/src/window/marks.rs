//! Per-query marks on the window's slots: how a candidate query lets each document through
//! once, and counts the bands it shares, without hashing or sorting the bucket hits.

/// Per slot, the last query that found it: a query finds the same document in most of its
/// bands (ten times as many hits as documents at 16 × 8), and the marks let each document
/// through once without sorting the hits. One per querying thread, reused across queries.
///
/// A mark is the query's number (24 bits) and, for [`super::Window::ranked_candidates`],
/// whether the query shares a family key with the slot (1 bit) and the keys it shares (7
/// bits, saturating: the family keys when it shares one, else the LSH bands): one load per
/// hit.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    pub(super) marks: Vec<u32>,
    /// Number of the current query (never 0 once a query ran; marks restart when it wraps).
    pub(super) query: u32,
}

/// The bits of a mark counting shared bands.
pub(super) const BANDS: u32 = 0x7f;
/// The bit of a mark set when a family key is shared.
pub(super) const FAMILY: u32 = 0x80;

/// Query numbers wrap at this (24 bits); the marks are cleared then.
pub(super) const QUERIES: u32 = 1 << 24;

impl Marks {
    /// Starts a query over a window of `slots` slots; returns its number.
    pub(super) fn start(&mut self, slots: usize) -> u32 {
        if self.marks.len() < slots {
            self.marks.resize(slots, 0);
        }
        self.query = (self.query + 1) % QUERIES;
        if self.query == 0 {
            self.marks.fill(0);
            self.query = 1;
        }
        self.query
    }

    /// Bands the current query shares with the document in `slot` (one it found).
    pub(super) fn shared_bands(&self, slot: u32) -> u8 {
        (self.marks[slot as usize] & BANDS) as u8
    }

    /// Whether the current query shares a family key with the document in `slot`.
    pub(super) fn shares_family_key(&self, slot: u32) -> bool {
        self.marks[slot as usize] & FAMILY != 0
    }
}
