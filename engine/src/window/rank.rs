//! The order in which a query's candidates are verified: a [`Rank`] per candidate, one
//! integer that the lookups sort.

use super::marks::BANDS;

/// The order of [`Window::ranked_candidates`], packed in one word so that selecting and
/// sorting hundreds of candidates compares integers: a document sharing a family key first
/// (it lacks what the query lacks, see the `family` module), then the sketch agreeing most
/// with the query's (the estimated similarity), then more shared keys (family keys for a
/// document sharing one, else LSH bands), then the earlier. Lower ranks come first.
pub type Rank = u64;

/// Bits of a [`Rank`] below the bands: the sequence number (documents past 2^48 share the
/// last value, which only ties them).
const SEQ_BITS: u32 = 48;

/// The [`Rank`] of a candidate.
#[inline]
pub(super) fn rank_of(family: bool, agreement: u32, bands: u8, seq: u64) -> Rank {
    let family = u64::from(!family) << 63;
    let agreement = u64::from(255 - agreement.min(255)) << 55;
    let bands = u64::from(BANDS - bands.min(BANDS)) << SEQ_BITS;
    family | agreement | bands | seq.min((1 << SEQ_BITS) - 1)
}

/// The parts of a [`Rank`] made by [`rank_of`] (the sequence number aside): whether the
/// candidate shares a family key, its sketch agreement, and its shared keys (saturated).
#[inline]
pub(super) fn parts_of(rank: Rank) -> (bool, u32, u8) {
    let family = rank >> 63 == 0;
    let agreement = 255 - ((rank >> 55) & 0xff) as u32;
    let bands = BANDS - ((rank >> SEQ_BITS) & 0x7f) as u8;
    (family, agreement, bands)
}
