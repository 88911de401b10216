//! The LSH bucket table: band key → the window slots of the documents with that key.
//!
//! One open-addressing table (linear probing, at most 3/4 full) of 16-byte cells, four to a
//! cache line, a probe starting at the first cell of a line: the key,
//! and either the one slot of a single-member bucket (most buckets: a key shared by nothing
//! else) or the index of a list of slots for a bucket of two or more. Removal shifts the
//! following cells back, so there are no tombstones and probe runs stay short under churn.
//!
//! Against a `HashMap<u64, SmallVec<[u32; 4]>>` the cells are half the size, a lookup is one
//! multiply and a short scan, and [`Buckets::prefetch`] can ask for a key's cell ahead of
//! use (the table is far larger than the caches, so nearly every lookup is a miss).
//!
//! A bucket's slots are kept in insertion order. The cell position comes from Fibonacci
//! hashing (multiply, keep the top bits), so even keys with regular low bits spread out.

/// A cell: empty, one member, or a list of members.
#[derive(Clone, Copy, Default, Debug)]
#[repr(C, align(16))]
struct Cell {
    key: u64,
    tag: u32,
    /// The slot (`ONE`) or the index into `lists` (`MANY`).
    value: u32,
}

const EMPTY: u32 = 0;
const ONE: u32 = 1;
const MANY: u32 = 2;

/// Cells in a 64-byte cache line.
const LINE_CELLS: usize = 4;

/// One cache line of cells (the table is an array of them, so it is line-aligned).
#[derive(Clone, Copy, Default, Debug)]
#[repr(C, align(64))]
struct Line([Cell; LINE_CELLS]);

/// The cells, indexed one by one.
#[derive(Debug)]
struct Table(Box<[Line]>);

impl Table {
    /// `cells` empty cells (a multiple of [`LINE_CELLS`]).
    fn new(cells: usize) -> Table {
        Table(vec![Line::default(); cells / LINE_CELLS].into_boxed_slice())
    }

    fn len(&self) -> usize {
        self.0.len() * LINE_CELLS
    }

    fn iter(&self) -> impl Iterator<Item = &Cell> {
        self.0.iter().flat_map(|line| line.0.iter())
    }
}

impl std::ops::Index<usize> for Table {
    type Output = Cell;
    #[inline]
    fn index(&self, i: usize) -> &Cell {
        &self.0[i / LINE_CELLS].0[i % LINE_CELLS]
    }
}

impl std::ops::IndexMut<usize> for Table {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Cell {
        &mut self.0[i / LINE_CELLS].0[i % LINE_CELLS]
    }
}

/// Smallest table, in cells.
const MIN_CELLS: usize = 16;

/// Band key → slots.
#[derive(Debug)]
pub struct Buckets {
    cells: Table,
    /// 64 − log2(cells.len()).
    shift: u32,
    /// Occupied cells (distinct keys).
    keys: usize,
    /// Members of buckets with two or more.
    lists: Vec<Vec<u32>>,
    /// Indexes of `lists` not in use (kept with their capacity).
    spare: Vec<u32>,
    /// Most members a bucket keeps (0: no limit); a push past it drops the oldest member.
    limit: usize,
}

impl Default for Buckets {
    fn default() -> Self {
        Buckets::new()
    }
}

impl Buckets {
    /// An empty table.
    pub fn new() -> Buckets {
        Buckets {
            cells: Table::new(MIN_CELLS),
            shift: 64 - MIN_CELLS.trailing_zeros(),
            keys: 0,
            lists: Vec::new(),
            spare: Vec::new(),
            limit: 0,
        }
    }

    /// An empty table whose buckets keep at most `limit` members each, the most recently
    /// pushed (0: no limit). A template family can share a band key among thousands of
    /// documents; the filter looks at no more than the newest few of them, so keeping the
    /// rest would only cost memory and time (a list grows, and eviction scans it).
    pub fn with_limit(limit: usize) -> Buckets {
        Buckets {
            limit,
            ..Buckets::new()
        }
    }

    /// Number of distinct keys held.
    pub fn len(&self) -> usize {
        self.keys
    }

    /// True when no key is held.
    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }

    /// The first cell of the 64-byte line where `key`'s probe starts: a probe run usually
    /// stays in that one line, which [`Buckets::prefetch`] asks for.
    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize & !(LINE_CELLS - 1)
    }

    #[inline]
    fn mask(&self) -> usize {
        self.cells.len() - 1
    }

    /// The cell holding `key`, if any.
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let c = &self.cells[i];
            if c.tag == EMPTY {
                return None;
            }
            if c.key == key {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The slots with `key`, in insertion order (empty when there are none).
    #[inline]
    pub fn get(&self, key: u64) -> &[u32] {
        match self.find(key) {
            None => &[],
            Some(i) => {
                let c = &self.cells[i];
                if c.tag == ONE {
                    std::slice::from_ref(&c.value)
                } else {
                    &self.lists[c.value as usize]
                }
            }
        }
    }

    /// Asks the CPU to start loading the cell where a lookup of `key` begins.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.cells[self.home(key)]);
    }

    /// Makes room for `additional` more keys without growing.
    pub fn reserve(&mut self, additional: usize) {
        let wanted = self.keys + additional;
        let mut cells = self.cells.len();
        while wanted * 4 > cells * 3 {
            cells *= 2;
        }
        if cells > self.cells.len() {
            self.resize(cells);
        }
    }

    /// Adds `slot` to the bucket of `key` (after the slots already there).
    pub fn push(&mut self, key: u64, slot: u32) {
        if (self.keys + 1) * 4 > self.cells.len() * 3 {
            self.resize(self.cells.len() * 2);
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let c = self.cells[i];
            if c.tag == EMPTY {
                self.cells[i] = Cell {
                    key,
                    tag: ONE,
                    value: slot,
                };
                self.keys += 1;
                return;
            }
            if c.key == key {
                if c.tag == ONE {
                    let list = self.new_list(c.value, slot);
                    self.cells[i].tag = MANY;
                    self.cells[i].value = list;
                } else {
                    let list = &mut self.lists[c.value as usize];
                    if self.limit > 1 && list.len() >= self.limit {
                        list.remove(0);
                    }
                    list.push(slot);
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn new_list(&mut self, first: u32, second: u32) -> u32 {
        match self.spare.pop() {
            Some(l) => {
                self.lists[l as usize].extend([first, second]);
                l
            }
            None => {
                let l = u32::try_from(self.lists.len()).expect("fewer than 2^32 buckets");
                self.lists.push(vec![first, second]);
                l
            }
        }
    }

    /// Removes `slot` from the bucket of `key`, and the key when its bucket empties. Does
    /// nothing when the slot is not there.
    pub fn remove(&mut self, key: u64, slot: u32) {
        let Some(i) = self.find(key) else { return };
        let c = self.cells[i];
        if c.tag == ONE {
            if c.value == slot {
                self.delete(i);
            }
            return;
        }
        let list = &mut self.lists[c.value as usize];
        if let Some(at) = list.iter().position(|&s| s == slot) {
            list.remove(at);
        }
        if list.len() == 1 {
            let last = list[0];
            list.clear();
            self.spare.push(c.value);
            self.cells[i].tag = ONE;
            self.cells[i].value = last;
        }
    }

    /// Empties cell `i` and shifts later cells of its probe run back into the hole, so that
    /// every key stays reachable from its home without tombstones.
    fn delete(&mut self, i: usize) {
        let mask = self.mask();
        let mut hole = i;
        let mut j = (i + 1) & mask;
        loop {
            let c = self.cells[j];
            if c.tag == EMPTY {
                break;
            }
            // The cell may move back when the hole lies between its home and its position.
            let home = self.home(c.key);
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.cells[hole] = c;
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.cells[hole] = Cell::default();
        self.keys -= 1;
    }

    fn resize(&mut self, cells: usize) {
        let old = std::mem::replace(&mut self.cells, Table::new(cells));
        self.shift = 64 - cells.trailing_zeros();
        let mask = self.mask();
        for c in old.iter().filter(|c| c.tag != EMPTY) {
            let mut i = self.home(c.key);
            while self.cells[i].tag != EMPTY {
                i = (i + 1) & mask;
            }
            self.cells[i] = *c;
        }
    }

    /// Approximate bytes held (cells and lists).
    pub fn approx_bytes(&self) -> usize {
        self.cells.len() * std::mem::size_of::<Cell>()
            + self
                .lists
                .iter()
                .map(|l| std::mem::size_of::<Vec<u32>>() + l.capacity() * 4)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Random pushes and removes (many keys in few homes, so probe runs wrap and shift)
    /// against a map of vectors.
    #[test]
    fn a_limited_bucket_keeps_its_newest_members() {
        let mut b = Buckets::with_limit(3);
        for slot in 0..10 {
            b.push(42, slot);
            b.push(7, 100 + slot);
        }
        assert_eq!(b.get(42), &[7, 8, 9]);
        assert_eq!(b.get(7), &[107, 108, 109]);
        // Removing a member the limit dropped changes nothing; the others go as usual.
        b.remove(42, 2);
        b.remove(42, 8);
        assert_eq!(b.get(42), &[7, 9]);
        let mut unlimited = Buckets::new();
        for slot in 0..10 {
            unlimited.push(42, slot);
        }
        assert_eq!(unlimited.get(42).len(), 10);
    }

    #[test]
    fn equals_a_map_of_lists() {
        let mut next = crate::hash::test_rng(11u64);
        for keys in [3u64, 40, 3000] {
            let mut b = Buckets::new();
            let mut model: HashMap<u64, Vec<u32>> = HashMap::new();
            for step in 0..20_000u32 {
                // Keys that are multiples of a large power of two hit few homes at first.
                let key = next(keys) << 40;
                if next(3) == 0 {
                    let members = model.get(&key).cloned().unwrap_or_default();
                    let slot = if members.is_empty() || next(4) == 0 {
                        next(50) as u32 + 1000
                    } else {
                        members[next(members.len() as u64) as usize]
                    };
                    b.remove(key, slot);
                    if let Some(list) = model.get_mut(&key) {
                        if let Some(at) = list.iter().position(|&s| s == slot) {
                            list.remove(at);
                        }
                        if list.is_empty() {
                            model.remove(&key);
                        }
                    }
                } else {
                    b.push(key, step);
                    model.entry(key).or_default().push(step);
                }
                assert_eq!(b.len(), model.len(), "step {step}");
                if step % 97 == 0 {
                    for k in 0..keys {
                        let k = k << 40;
                        let expected = model.get(&k).map(Vec::as_slice).unwrap_or(&[]);
                        assert_eq!(b.get(k), expected, "key {k}, step {step}");
                    }
                }
            }
        }
    }

    #[test]
    fn reserve_and_growth_keep_every_key() {
        let mut b = Buckets::new();
        b.reserve(1000);
        let cells = b.cells.len();
        assert!(cells * 3 >= 1000 * 4);
        for k in 0..1000u64 {
            b.push(k, k as u32);
        }
        assert_eq!(b.cells.len(), cells, "reserved room needs no growth");
        for k in 1000..5000u64 {
            b.push(k, k as u32);
        }
        for k in 0..5000u64 {
            assert_eq!(b.get(k), &[k as u32]);
        }
        assert!(b.get(5000).is_empty());
    }

    #[test]
    fn lists_shrink_back_to_one_cell_and_are_reused() {
        let mut b = Buckets::new();
        b.push(7, 1);
        b.push(7, 2);
        b.push(7, 3);
        assert_eq!(b.get(7), &[1, 2, 3]);
        b.remove(7, 2);
        b.remove(7, 1);
        assert_eq!(b.get(7), &[3]);
        assert_eq!(b.spare.len(), 1);
        b.push(8, 4);
        b.push(8, 5);
        assert_eq!(b.lists.len(), 1, "the spare list is reused");
        b.remove(7, 3);
        assert!(b.get(7).is_empty());
        assert_eq!(b.len(), 1);
        b.remove(9, 1);
        b.remove(8, 99);
        assert_eq!(b.get(8), &[4, 5]);
    }
}
