//! The LSH bucket table: band key → the window slots of the documents with that key.
//!
//! One open-addressing table (linear probing, at most 4/5 full) of 8-byte cells, eight to a
//! cache line, a probe starting at the first cell of a line. A cell holds the top 32 bits of
//! the key's multiplicative hash (the home is the top bits of those, so a table can grow and
//! delete without the key) and either the one slot of a single-member bucket (most buckets:
//! a key shared by nothing else) or the index of a list of slots for a bucket of two or
//! more. Together with the key's table (its low 8 bits, [`super::SHARDS`]) that is 40 bits
//! of the key: two band keys of one table share a cell about once in 2^32 / (keys in the
//! table) pushes, and then the documents of both are found for either, one candidate more
//! that verification rejects like any other. Half the size of a cell holding the whole key,
//! so a held document's 16 band keys cost about 200 bytes at the tables' average load.
//!
//! Removal shifts the following cells back, so there are no tombstones and probe runs stay
//! short under churn. A bucket's slots are kept in insertion order, except in a limited
//! table, where a bucket is a segmented LRU list: its first members are the *protected*
//! ones, moved there when they matched a query ([`Buckets::refresh`]), at most half the
//! limit; the others follow in insertion order, and a push past the limit drops the oldest of
//! those. In a template family every kept document enters the family's buckets, most never to
//! match anything again, while a few central ones match document after document: a plain
//! "newest members" limit lets the stream of one-off documents push the central ones out.

pub use super::cells::{CELL_BYTES, MAX_SLOT};
use super::cells::{Cell, EMPTY, LINE_CELLS, MANY, Table, top};
use super::mapped::{ALIGN, Layout};

/// Smallest table, in cells.
const MIN_CELLS: usize = 16;

/// Most a table is filled (LOAD_NUM / LOAD_DEN) before it grows by half: so it is between
/// 53 % and 80 % full, two thirds on average (a doubling table at most 3/4 full averaged
/// barely half, and the cells are most of a held document's RAM).
const LOAD_NUM: usize = 4;
const LOAD_DEN: usize = 5;

/// The size a table of `cells` cells grows to: half as big again, in whole lines.
fn grown(cells: usize) -> usize {
    (cells + cells / 2).div_ceil(LINE_CELLS) * LINE_CELLS
}

/// Whether a table of `cells` cells may hold `keys` keys (at most LOAD_NUM / LOAD_DEN full).
#[inline]
fn holds(keys: usize, cells: usize) -> bool {
    keys * LOAD_DEN <= cells * LOAD_NUM
}

/// The size a table of `cells` cells grows to (itself when it is enough) to hold `keys` keys.
fn size_for(keys: usize, cells: usize) -> usize {
    let mut cells = cells;
    while !holds(keys, cells) {
        cells = grown(cells);
    }
    cells
}

/// The home line of a key with hash top bits `top` in a table of `lines` lines: the top bits
/// scaled to the number of lines (Lemire's multiply-shift range reduction), so a table need
/// not be a power of two and can grow by half.
#[inline]
fn home(top: u32, lines: usize) -> usize {
    ((u64::from(top) * lines as u64) >> 32) as usize
}

/// Band key → slots.
#[derive(Debug)]
pub struct Buckets {
    cells: Table,
    /// Occupied cells (distinct keys).
    keys: usize,
    /// Members of buckets with two or more.
    lists: Vec<Vec<u32>>,
    /// For each list, how many of its first members are protected (limited tables only).
    protected: Vec<u32>,
    /// Indexes of `lists` not in use (kept with their capacity).
    spare: Vec<u32>,
    /// Members in all lists (for the memory estimate).
    listed: usize,
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
            keys: 0,
            lists: Vec::new(),
            protected: Vec::new(),
            spare: Vec::new(),
            listed: 0,
            limit: 0,
        }
    }

    /// An empty table whose buckets keep at most `limit` members each, the most recently
    /// pushed (0: no limit). A template family can share a band key among thousands of
    /// documents; the filter looks at no more than the newest few of them, so keeping the
    /// rest would only cost memory and time (a list grows, and eviction scans it).
    pub(crate) fn with_limit(limit: usize) -> Buckets {
        Buckets {
            limit,
            ..Buckets::new()
        }
    }

    /// Number of distinct keys held.
    pub(crate) fn len(&self) -> usize {
        self.keys
    }

    /// True when no key is held.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.keys == 0
    }

    /// The 64-byte line where a key's probe starts, from the top bits of its hash: a probe
    /// run usually stays in that one line, which [`Buckets::prefetch`] asks for.
    #[inline]
    fn home_line(&self, top: u32) -> usize {
        home(top, self.cells.0.len())
    }

    /// The first cell of [`Buckets::home_line`].
    #[inline]
    fn home(&self, top: u32) -> usize {
        self.home_line(top) * LINE_CELLS
    }

    /// The cell after `i`, wrapping at the end.
    #[inline]
    fn next(&self, i: usize) -> usize {
        if i + 1 == self.cells.len() { 0 } else { i + 1 }
    }

    /// Cells from `from` forwards to `to`, wrapping.
    #[inline]
    fn gap(&self, from: usize, to: usize) -> usize {
        if to >= from {
            to - from
        } else {
            to + self.cells.len() - from
        }
    }

    /// The cell holding `key`, if any.
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        self.find_top(top(key))
    }

    /// The cell holding the key whose hash has top bits `top`, if any.
    #[inline]
    fn find_top(&self, top: u32) -> Option<usize> {
        self.cells.find(self.home_line(top), top)
    }

    /// The slots with `key`, in insertion order (empty when there are none).
    #[inline]
    pub fn get(&self, key: u64) -> &[u32] {
        match self.find(key) {
            None => &[],
            Some(i) => {
                let c = &self.cells[i];
                if c.value & MANY == 0 {
                    std::slice::from_ref(&c.value)
                } else {
                    &self.lists[(c.value & !MANY) as usize]
                }
            }
        }
    }

    /// Asks the CPU to start loading the cell where a lookup of `key` begins.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.cells.0[self.home_line(top(key))]);
    }

    /// Asks the CPU to start loading where the slots of `key` are listed (after
    /// [`Buckets::prefetch`] of the same key, so that its cell is on the way).
    #[inline]
    pub(crate) fn prefetch_members(&self, key: u64) {
        if let Some(i) = self.find(key) {
            let c = self.cells[i];
            if c.value & MANY != 0 {
                crate::prefetch::prefetch(&self.lists[(c.value & !MANY) as usize]);
            }
        }
    }

    /// Most members a bucket keeps (0: no limit).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Sets the most members a bucket keeps from now on (a journal replays pushes under the
    /// limit of the run that made them).
    pub(super) fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// The buckets of two or more members, in no particular order: each key as the table
    /// keeps it (the top bits of its hash), how many of its first members are protected, and
    /// the members in their order (which a limited table's refreshes have shaped, so that
    /// inserting the same documents again does not give it back: `--state` saves it).
    #[cfg(test)]
    pub fn lists(&self) -> impl Iterator<Item = (u32, u32, &[u32])> + '_ {
        self.cells
            .0
            .iter()
            .flat_map(|line| line.0.iter())
            .filter(|c| c.value != EMPTY && c.value & MANY != 0)
            .map(|c| {
                let index = (c.value & !MANY) as usize;
                (c.top, self.protected[index], self.lists[index].as_slice())
            })
    }

    /// Gives the bucket of the key with hash top bits `top` (one of [`Buckets::lists`]) exactly
    /// `members` (two or more), the first `protected` of them protected. False, and nothing
    /// changed, when the table holds no such key or `members` has fewer than two.
    pub(crate) fn restore_list(&mut self, top: u32, protected: u32, members: &[u32]) -> bool {
        let Some(i) = self.find_top(top) else {
            return false;
        };
        if members.len() < 2 {
            return false;
        }
        let c = self.cells[i];
        let index = if c.value & MANY != 0 {
            c.value & !MANY
        } else {
            let index = self.new_list(c.value, c.value);
            self.lists[index as usize].clear();
            self.listed -= 2;
            self.cells[i].value = MANY | index;
            index
        };
        let list = &mut self.lists[index as usize];
        self.listed = self.listed - list.len() + members.len();
        list.clear();
        list.extend_from_slice(members);
        self.protected[index as usize] = protected.min(members.len() as u32);
        true
    }

    /// Makes room for `additional` more keys without growing.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let cells = size_for(self.keys + additional, self.cells.len());
        if cells > self.cells.len() {
            self.resize(cells);
        }
    }

    /// Grows the table now if `additional` more keys would make it grow; false when the
    /// memory for that is refused, or could not be addressed (the table is unchanged and
    /// still works).
    #[inline]
    pub(crate) fn try_room_for(&mut self, additional: usize) -> bool {
        // Past this no table fits the address space, and the sizes below would overflow.
        const MOST_KEYS: usize = isize::MAX as usize / CELL_BYTES / LOAD_DEN;
        additional <= MOST_KEYS
            && (holds(self.keys + additional, self.cells.len()) || self.try_grow_for(additional))
    }

    /// [`Buckets::try_room_for`] when the table must grow.
    #[cold]
    fn try_grow_for(&mut self, additional: usize) -> bool {
        let cells = size_for(self.keys + additional, self.cells.len());
        if cells == self.cells.len() {
            return true;
        }
        match Table::try_new(cells) {
            Some(table) => {
                self.rehash_into(table);
                true
            }
            None => false,
        }
    }

    /// Adds `slot` to the bucket of `key` (after the slots already there).
    pub fn push(&mut self, key: u64, slot: u32) {
        debug_assert!(slot < MAX_SLOT);
        if !holds(self.keys + 1, self.cells.len()) {
            self.resize(grown(self.cells.len()));
        }
        let top = top(key);
        let i = match self.cells.find_or_empty(self.home_line(top), top) {
            Ok(i) => i,
            Err(empty) => {
                self.cells[empty] = Cell { top, value: slot };
                self.keys += 1;
                return;
            }
        };
        let c = self.cells[i];
        if c.value & MANY == 0 {
            let list = self.new_list(c.value, slot);
            self.cells[i].value = MANY | list;
        } else {
            let index = (c.value & !MANY) as usize;
            let list = &mut self.lists[index];
            if self.limit > 1 && list.len() >= self.limit {
                // The oldest member that is not protected (there is one: at most half
                // the limit are).
                list.remove((self.protected[index] as usize).min(list.len() - 1));
                self.listed -= 1;
            }
            list.push(slot);
            self.listed += 1;
        }
    }

    fn new_list(&mut self, first: u32, second: u32) -> u32 {
        self.listed += 2;
        match self.spare.pop() {
            Some(l) => {
                self.lists[l as usize].extend([first, second]);
                self.protected[l as usize] = 0;
                l
            }
            None => {
                let l = u32::try_from(self.lists.len())
                    .ok()
                    .filter(|&l| l < MAX_SLOT)
                    .expect("fewer than 2^31 buckets");
                self.lists.push(vec![first, second]);
                self.protected.push(0);
                l
            }
        }
    }

    /// In a limited table, `slot` matched a query that looked in the bucket of `key`: it
    /// becomes the newest protected member. When half the limit are protected already, the
    /// oldest of them goes back among the others, as the newest. Does nothing when the slot is
    /// not there or the table has no limit. Returns the bucket's length when the order of
    /// its members changed (0 when nothing did): its set does not change.
    pub(crate) fn refresh(&mut self, key: u64, slot: u32) -> usize {
        if self.limit <= 1 {
            return 0;
        }
        let Some(i) = self.find(key) else { return 0 };
        let c = self.cells[i];
        if c.value & MANY == 0 {
            return 0;
        }
        let index = (c.value & !MANY) as usize;
        let list = &mut self.lists[index];
        let protected = &mut self.protected[index];
        let p = *protected as usize;
        // In a template family one kept document matches many in a row: once refreshed it
        // is the newest protected member, where a refresh would remove and insert it in place
        // (two moves of the whole list) for nothing.
        if p > 0 && list.get(p - 1) == Some(&slot) {
            return 0;
        }
        let Some(at) = list.iter().position(|&s| s == slot) else {
            return 0;
        };
        // Each move shifts only the members between the slot's place and its new one (a
        // removal and an insertion would each shift the whole tail).
        if at < p {
            // Protected already: it becomes the newest protected member.
            list[at..p].rotate_left(1);
        } else {
            // The newest protected member now, at `p`.
            list[p..=at].rotate_right(1);
            match p < self.limit / 2 {
                true => *protected += 1,
                // Half the limit are protected: the oldest of them goes back among the
                // others, as the newest.
                false => list.rotate_left(1),
            }
        }
        list.len()
    }

    /// Removes `slot` from the bucket of `key`, and the key when its bucket empties. Does
    /// nothing when the slot is not there.
    pub fn remove(&mut self, key: u64, slot: u32) {
        let Some(i) = self.find(key) else { return };
        let c = self.cells[i];
        if c.value & MANY == 0 {
            if c.value == slot {
                self.delete(i);
            }
            return;
        }
        let index = c.value & !MANY;
        let list = &mut self.lists[index as usize];
        if let Some(at) = list.iter().position(|&s| s == slot) {
            list.remove(at);
            self.listed -= 1;
            if at < self.protected[index as usize] as usize {
                self.protected[index as usize] -= 1;
            }
        }
        if list.len() == 1 {
            let last = list[0];
            list.clear();
            self.listed -= 1;
            self.spare.push(index);
            self.cells[i].value = last;
        }
    }

    /// Empties cell `i` and shifts later cells of its probe run back into the hole, so that
    /// every key stays reachable from its home without tombstones.
    fn delete(&mut self, i: usize) {
        let mut hole = i;
        let mut j = self.next(i);
        loop {
            let c = self.cells[j];
            if c.value == EMPTY {
                break;
            }
            // The cell may move back when the hole lies between its home and its position.
            let home = self.home(c.top);
            if self.gap(home, j) >= self.gap(hole, j) {
                self.cells[hole] = c;
                hole = j;
            }
            j = self.next(j);
        }
        self.cells[hole] = Cell::default();
        self.keys -= 1;
    }

    fn resize(&mut self, cells: usize) {
        self.rehash_into(Table::new(cells));
    }

    fn rehash_into(&mut self, table: Table) {
        assert!(
            table.len() <= 1 << 32,
            "a bucket table of at most 2^32 cells"
        );
        let lines = table.0.len();
        let old = std::mem::replace(&mut self.cells, table);
        self.cells.fill_from(&old, |top| home(top, lines));
    }

    /// Writes the table as it is (`super::image`).
    pub(super) fn write_image<W: std::io::Write>(
        &self,
        put: &mut super::codec::Put<'_, W>,
    ) -> std::io::Result<()> {
        put.u64(self.keys as u64)?;
        put.u64(self.cells.len() as u64)?;
        put.align(ALIGN)?;
        put.raw(bytemuck::cast_slice(&self.cells.0))?;
        put.u64(self.lists.len() as u64)?;
        for (list, &protected) in self.lists.iter().zip(&self.protected) {
            put.u32(protected)?;
            put.u32(list.len() as u32)?;
            put.raw(bytemuck::cast_slice(list))?;
        }
        put.u32s(&self.spare)
    }

    /// What [`Buckets::write_image`] wrote (in `image`, laid out as `layout` says), for a
    /// window of `slots` slots, keeping at most `limit` members a bucket from now on. The
    /// lists are checked; so are the cells of a [`Layout::Fields`] image, read into RAM (an
    /// in-place one's are mapped, trusted to be what was written).
    pub(super) fn read_image(
        get: &mut super::codec::Get<'_, std::io::Cursor<&[u8]>>,
        image: &super::mapped::Image,
        layout: Layout,
        limit: usize,
        slots: usize,
    ) -> std::io::Result<Buckets> {
        use super::codec::damaged;
        let keys = get.count(0)?;
        let cells = get.count(CELL_BYTES as u64)?;
        if cells < LINE_CELLS || !cells.is_multiple_of(LINE_CELLS) || cells > 1 << 32 {
            return Err(damaged("a bucket table's size"));
        }
        if !holds(keys, cells) {
            return Err(damaged("a bucket table's keys"));
        }
        let mut lists_named = 0usize;
        let table = match layout {
            Layout::InPlace => {
                get.align(ALIGN)?;
                // SAFETY: the cursor only moves forwards, past each array it maps, so no two
                // regions share a byte, and the image's small parts are read from bytes after
                // or before them.
                let lines = unsafe { image.region(get.at(), cells / LINE_CELLS) }?;
                get.skip((cells * CELL_BYTES) as u64)?;
                Table(lines)
            }
            Layout::Fields => {
                let mut table = Table::new(cells);
                get.raw(bytemuck::cast_slice_mut(&mut table.0))?;
                let mut used = 0usize;
                for c in table.0.iter().flat_map(|l| l.0.iter()) {
                    if c.value != EMPTY {
                        used += 1;
                        if c.value & MANY != 0 {
                            lists_named = lists_named.max((c.value & !MANY) as usize + 1);
                        } else if c.value as usize >= slots {
                            return Err(damaged("a bucket's slot"));
                        }
                    }
                }
                if used != keys {
                    return Err(damaged("a bucket table's keys"));
                }
                table
            }
        };
        let n = get.count(8)?;
        if lists_named > n {
            return Err(damaged("a bucket's list"));
        }
        let (mut lists, mut protected, mut listed) = (Vec::with_capacity(n), Vec::new(), 0);
        protected.reserve(n);
        for _ in 0..n {
            let p = get.u32()?;
            let m = get.u32()? as u64;
            if m * 4 > get.left() {
                return Err(damaged("a bucket's list"));
            }
            let mut list = vec![0u32; m as usize];
            get.raw(bytemuck::cast_slice_mut(&mut list))?;
            if list.iter().any(|&slot| slot as usize >= slots) {
                return Err(damaged("a bucket's slot"));
            }
            listed += list.len();
            protected.push(p.min(list.len() as u32));
            lists.push(list);
        }
        let spare = get.u32s()?;
        if spare.iter().any(|&s| s as usize >= n) {
            return Err(damaged("a spare list"));
        }
        Ok(Buckets {
            cells: table,
            keys,
            lists,
            protected,
            spare,
            listed,
            limit,
        })
    }

    /// Approximate bytes held (cells and lists).
    /// Bytes its keys and members use at the tables' average load (two thirds full), not
    /// what is allocated: what they cost per document whatever the table's size.
    pub(crate) fn used_bytes(&self) -> usize {
        self.keys * CELL_BYTES * 3 / 2 + self.listed * 4 * 3 / 2
    }

    /// Bytes of cells that are a mapped index's ([`super::mapped`]): read as they are
    /// touched, not held.
    pub fn mapped_bytes(&self) -> usize {
        match self.cells.0.is_mapped() {
            true => self.cells.len() * CELL_BYTES,
            false => 0,
        }
    }

    /// Cells of the table (for tests: whether it grew).
    #[cfg(test)]
    pub(super) fn cells(&self) -> usize {
        self.cells.len()
    }

    pub(crate) fn approx_bytes(&self) -> usize {
        self.cells.len() * CELL_BYTES
            + self.lists.capacity() * std::mem::size_of::<Vec<u32>>()
            + self.protected.capacity() * 4
            + self.listed * 4 * 3 / 2
            + self.spare.capacity() * 4
    }
}

#[cfg(test)]
mod tests;
