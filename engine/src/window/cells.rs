//! The cells of a bucket table ([`super::buckets`]): eight 8-byte cells to a 64-byte line,
//! and the probes that look at a whole line at once.
//!
//! A probe starts at the first cell of a line and walks forwards, wrapping at the end of the
//! table, until it meets the key's cell or an empty one. Looking at the line's eight cells
//! together (two SSE2 compare masks, then the lowest set bit) finds the same cell as walking
//! them one by one, with a handful of vector instructions instead of a branch per cell: most
//! lookups of a band key find nothing, and at a table's average load (two thirds) such a
//! probe passes several full cells before the empty one.

use super::mapped::Region;

/// A cell: empty (`value == EMPTY`), one member, or a list of members (`value & MANY`).
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(8))]
pub(super) struct Cell {
    /// The top 32 bits of the key's hash.
    pub top: u32,
    /// The slot, or `MANY |` the index into the table's lists.
    pub value: u32,
}

impl Default for Cell {
    fn default() -> Self {
        Cell {
            top: 0,
            value: EMPTY,
        }
    }
}

/// The value of an empty cell.
pub(super) const EMPTY: u32 = u32::MAX;
/// The bit of a value that makes it a list's index.
pub(super) const MANY: u32 = 1 << 31;

/// Slots are below this (the top bit of a cell's value tells a list from a slot).
pub const MAX_SLOT: u32 = MANY - 1;

/// Bytes per cell.
pub const CELL_BYTES: usize = std::mem::size_of::<Cell>();

/// Cells in a 64-byte cache line.
pub(super) const LINE_CELLS: usize = 8;

/// One cache line of cells (the table is an array of them, so it is line-aligned).
// Plain bytes (the derive checks there is no padding): the window's image writes the cells
// as they are.
#[derive(Clone, Copy, Default, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub(super) struct Line(pub [Cell; LINE_CELLS]);

impl Line {
    /// Bit `j` of the first set when cell `j` is empty, of the second when it holds the key
    /// with hash top bits `top`.
    #[inline]
    fn masks(&self, top: u32) -> (u32, u32) {
        pair_masks(bytemuck::cast_ref(self), top, EMPTY)
    }
}

/// For eight pairs of u32 (`pairs[2j]`, `pairs[2j + 1]`): bit `j` of the first mask set when
/// the second of pair `j` is `sentinel`, of the second mask when its first is `first` and its
/// second is not `sentinel`. (A bucket cell is such a pair, top bits and value, empty when the
/// value is [`EMPTY`]; so is a family counter, value and count, free when the count is 0.)
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn pair_masks(pairs: &[u32; 16], first: u32, sentinel: u32) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128, _mm_andnot_si128, _mm_castps_si128, _mm_castsi128_ps, _mm_cmpeq_epi32,
        _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32, _mm_shuffle_ps,
    };
    // SAFETY: SSE2 is part of every x86_64 CPU; the 64 bytes of `pairs` are read as four
    // 16-byte vectors of two pairs each (unaligned loads).
    unsafe {
        let p = pairs.as_ptr().cast::<std::arch::x86_64::__m128i>();
        let load = |k| _mm_castsi128_ps(_mm_loadu_si128(p.add(k)));
        let (v0, v1, v2, v3) = (load(0), load(1), load(2), load(3));
        // Lanes 1 and 3 of each vector are seconds, 0 and 2 firsts: gathered four pairs at
        // a time, in order.
        let seconds =
            |x: __m128, y: __m128| _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(x, y));
        let firsts = |x: __m128, y: __m128| _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(x, y));
        let (sentinel, first) = (
            _mm_set1_epi32(sentinel as i32),
            _mm_set1_epi32(first as i32),
        );
        let marked_lo = _mm_cmpeq_epi32(seconds(v0, v1), sentinel);
        let marked_hi = _mm_cmpeq_epi32(seconds(v2, v3), sentinel);
        let same_lo = _mm_andnot_si128(marked_lo, _mm_cmpeq_epi32(firsts(v0, v1), first));
        let same_hi = _mm_andnot_si128(marked_hi, _mm_cmpeq_epi32(firsts(v2, v3), first));
        let bits = |lo, hi| {
            (_mm_movemask_ps(_mm_castsi128_ps(lo)) | _mm_movemask_ps(_mm_castsi128_ps(hi)) << 4)
                as u32
        };
        (bits(marked_lo, marked_hi), bits(same_lo, same_hi))
    }
}

/// [`pair_masks`] one pair at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn pair_masks(pairs: &[u32; 16], first: u32, sentinel: u32) -> (u32, u32) {
    let (mut marked, mut same) = (0, 0);
    for j in 0..8 {
        let (f, s) = (pairs[2 * j], pairs[2 * j + 1]);
        marked |= u32::from(s == sentinel) << j;
        same |= u32::from(f == first && s != sentinel) << j;
    }
    (marked, same)
}

/// The cells, indexed one by one: owned, or the lines of a mapped index's tables
/// ([`super::mapped`]).
#[derive(Debug)]
pub(super) struct Table(pub Region<Line>);

impl Table {
    /// `cells` empty cells (a multiple of [`LINE_CELLS`]).
    pub fn new(cells: usize) -> Table {
        Table(vec![Line::default(); cells / LINE_CELLS].into())
    }

    /// [`Table::new`], or `None` when the memory is refused.
    pub fn try_new(cells: usize) -> Option<Table> {
        let mut lines = Vec::new();
        crate::guard::fallibly(|| lines.try_reserve_exact(cells / LINE_CELLS)).ok()?;
        lines.resize(cells / LINE_CELLS, Line::default());
        Some(Table(lines.into()))
    }

    /// Cells in the table.
    pub fn len(&self) -> usize {
        self.0.len() * LINE_CELLS
    }

    /// The line after line `l`, wrapping at the end.
    #[inline]
    fn next_line(&self, l: usize) -> usize {
        if l + 1 == self.0.len() { 0 } else { l + 1 }
    }

    /// The cell holding the key with hash top bits `top`, probing from the first cell of
    /// line `home`; `None` when the probe meets an empty cell first.
    #[inline]
    pub fn find(&self, home: usize, top: u32) -> Option<usize> {
        self.find_or_empty(home, top).ok()
    }

    /// [`Table::find`], or where it stopped: the first empty cell from `home`, which is
    /// where the key goes (a push then needs no second probe).
    #[inline(always)]
    pub(crate) fn find_or_empty(&self, home: usize, top: u32) -> Result<usize, usize> {
        let mut l = home;
        loop {
            self.0.touch(l);
            let (empty, same) = self.0[l].masks(top);
            let stop = same | empty;
            if stop != 0 {
                let j = stop.trailing_zeros();
                let cell = l * LINE_CELLS + j as usize;
                return if same >> j & 1 == 1 {
                    Ok(cell)
                } else {
                    Err(cell)
                };
            }
            l = self.next_line(l);
        }
    }

    /// Puts every cell of `old` into this table (one with room for them all, empty at
    /// first), each in the first empty cell from its line `home(top)`: a growing table's
    /// rehash, in one pass over the lines with no per-cell index checks.
    pub(crate) fn fill_from(&mut self, old: &Table, home: impl Fn(u32) -> usize) {
        let lines: &mut [Line] = &mut self.0;
        let n = lines.len();
        for line in old.0.iter() {
            let mut full = !line.masks(0).0 & 0xff;
            while full != 0 {
                let c = &line.0[full.trailing_zeros() as usize];
                full &= full - 1;
                let mut l = home(c.top);
                loop {
                    let (empty, _) = lines[l].masks(0);
                    if empty != 0 {
                        lines[l].0[empty.trailing_zeros() as usize] = *c;
                        break;
                    }
                    l = if l + 1 == n { 0 } else { l + 1 };
                }
            }
        }
    }
}

impl std::ops::Index<usize> for Table {
    type Output = Cell;
    #[inline]
    fn index(&self, i: usize) -> &Cell {
        self.0.touch(i / LINE_CELLS);
        &self.0[i / LINE_CELLS].0[i % LINE_CELLS]
    }
}

impl std::ops::IndexMut<usize> for Table {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Cell {
        self.0.touch(i / LINE_CELLS);
        &mut self.0[i / LINE_CELLS].0[i % LINE_CELLS]
    }
}

/// The top 32 bits of a key's hash: what a cell keeps of the key.
#[inline]
pub(super) fn top(key: u64) -> u32 {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector masks say what comparing the pairs one by one says.
    #[test]
    fn pair_masks_compare_pair_by_pair() {
        let mut rng = crate::hash::test_rng(13);
        for _ in 0..2000 {
            let pairs: [u32; 16] = std::array::from_fn(|_| [0, 1, 7, u32::MAX][rng(4) as usize]);
            for first in [0, 1, 7, u32::MAX] {
                for sentinel in [0, u32::MAX] {
                    let (mut marked, mut same) = (0, 0);
                    for j in 0..8 {
                        marked |= u32::from(pairs[2 * j + 1] == sentinel) << j;
                        same |=
                            u32::from(pairs[2 * j] == first && pairs[2 * j + 1] != sentinel) << j;
                    }
                    assert_eq!(pair_masks(&pairs, first, sentinel), (marked, same));
                }
            }
        }
    }

    /// A table filled from another holds each of its cells once, where a probe from the
    /// cell's home line finds it, across lines and around the end.
    #[test]
    fn a_filled_table_finds_every_cell() {
        let mut rng = crate::hash::test_rng(12);
        for _ in 0..100 {
            let lines = 1 + rng(6) as usize;
            let mut old = Table::new(lines * LINE_CELLS);
            let n = rng((lines * LINE_CELLS) as u64) as usize;
            for (i, top) in (0..n).map(|i| (i, rng(u32::MAX as u64) as u32)) {
                let home = (top as usize) % lines;
                let Err(at) = old.find_or_empty(home, top) else {
                    continue;
                };
                old[at] = Cell {
                    top,
                    value: i as u32,
                };
            }
            let bigger = lines + 1 + rng(3) as usize;
            let home = |top: u32| (top as usize) % bigger;
            let mut new = Table::new(bigger * LINE_CELLS);
            new.fill_from(&old, home);
            let full = |t: &Table| (0..t.len()).filter(|&i| t[i].value != EMPTY).count();
            assert_eq!(full(&new), full(&old));
            for i in (0..old.len()).filter(|&i| old[i].value != EMPTY) {
                let c = old[i];
                let at = new.find(home(c.top), c.top).expect("every cell is found");
                assert_eq!(new[at].value, c.value);
            }
        }
    }

    /// The line probes stop where a walk over the cells one by one stops: at the key's cell
    /// or the first empty one (which a miss gives), across lines and around the end of the
    /// table.
    #[test]
    fn line_probes_stop_where_a_walk_cell_by_cell_stops() {
        let mut rng = crate::hash::test_rng(11);
        for _ in 0..300 {
            let lines = 1 + rng(4) as usize;
            let mut table = Table::new(lines * LINE_CELLS);
            // Fill all but one cell at random with a few distinct tops (some the same).
            let keep_empty = rng((lines * LINE_CELLS) as u64) as usize;
            for i in 0..table.len() {
                if i != keep_empty && rng(4) != 0 {
                    table[i] = Cell {
                        top: rng(6) as u32,
                        value: rng(100) as u32,
                    };
                }
            }
            for home in 0..lines {
                for top in 0..7 {
                    let mut i = home * LINE_CELLS;
                    let walked = loop {
                        if table[i].value == EMPTY {
                            break None;
                        }
                        if table[i].top == top {
                            break Some(i);
                        }
                        i = (i + 1) % table.len();
                    };
                    assert_eq!(table.find(home, top), walked);
                    let mut i = home * LINE_CELLS;
                    while table[i].value != EMPTY {
                        i = (i + 1) % table.len();
                    }
                    // A miss stops at the first empty cell, where the key would go.
                    assert_eq!(table.find_or_empty(home, top), walked.ok_or(i));
                }
            }
        }
    }
}
