//! The bucket tables lent out: taken from the window and filled on other threads, each
//! owning some of the [`SHARDS`] tables, so a batch's keys are indexed on every core
//! (`pipeline/helpers.rs`), then put back before the next lookup.

use super::{Buckets, Entry, Held, SHARDS, Tables, Window, shard};

impl Window {
    /// Takes the bucket tables out (for [`index_keys`] on other threads); lookups and
    /// inserts need them back ([`Window::put_tables`]).
    pub(crate) fn take_tables(&mut self) -> Tables {
        std::mem::take(&mut self.buckets)
            .into_iter()
            .enumerate()
            .collect()
    }

    /// Puts back the tables [`Window::take_tables`] took, in any order.
    pub(crate) fn put_tables(&mut self, mut tables: Tables) {
        assert_eq!(tables.len(), SHARDS, "every table comes back");
        tables.sort_unstable_by_key(|(number, _)| *number);
        self.buckets = tables.into_iter().map(|(_, table)| table).collect();
    }
}

/// Adds the band keys of `docs` (inserted with [`Window::insert_unindexed`], in sequence
/// order, with their entries) that belong to `tables` (some of the tables
/// [`Window::take_tables`] took). Each bucket receives its documents in sequence order, as
/// one-by-one inserts give, whichever thread owns its table.
pub(crate) fn index_keys(docs: &[(Held, Entry)], tables: &mut Tables) {
    let mut mine: Vec<Option<&mut Buckets>> = (0..SHARDS).map(|_| None).collect();
    for (number, table) in tables.iter_mut() {
        mine[*number] = Some(table);
    }
    for (held, entry) in docs {
        for &key in &entry.band_keys {
            if let Some(table) = &mut mine[shard(key)] {
                table.push(key, held.slot);
            }
        }
    }
}
