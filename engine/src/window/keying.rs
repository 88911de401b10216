//! The filter's family keys on the window: a document's extra bucket keys made from its
//! MinHash minima (what they are: the `family` module), the warm-up documents keyed again once
//! the summaries know the family, and the summaries saved with `--state`.

use super::{Entry, Family, Held, Window, record, shard};
use std::io;

impl Window {
    /// Appends to `keys` (the document's band keys) its family keys, made from its MinHash
    /// `minima` (see the `family` module), then counts it among the documents seen. Called
    /// once per document of the filter modes, in input order, before the lookup; when the
    /// warm-up ends, the documents kept during it are keyed again first. Fails when a record
    /// cannot be rewritten.
    pub(crate) fn add_family_keys(
        &mut self,
        minima: &[u32],
        keys: &mut Vec<u64>,
    ) -> io::Result<()> {
        if minima.is_empty() {
            return Ok(());
        }
        self.bands = keys.len();
        self.family.keys_then_count(minima, keys);
        match self.family.take_warm() {
            Some(warm) => self.key_again(warm),
            None => Ok(()),
        }
    }

    /// [`Window::add_family_keys`] for a document whose keys another thread makes: counts
    /// it, in input order, and writes into `fallbacks` what its family keys are made from
    /// ([`Window::family_keys_of`]). `bands`: its LSH band keys' count.
    pub(crate) fn add_family_fallbacks(
        &mut self,
        minima: &[u32],
        bands: usize,
        fallbacks: &mut Vec<u64>,
    ) -> io::Result<()> {
        fallbacks.clear();
        if minima.is_empty() {
            return Ok(());
        }
        self.bands = bands;
        self.family.fallbacks_then_count(minima, fallbacks);
        match self.family.take_warm() {
            Some(warm) => self.key_again(warm),
            None => Ok(()),
        }
    }

    /// Takes the family summaries' counts after a document that the pipeline's counter
    /// counted in input order ([`Family::counts`]); when they end the warm-up, the documents
    /// kept during it are keyed again, as [`Window::add_family_keys`] does. Fails when a
    /// record cannot be rewritten.
    /// `bands`: the document's LSH band keys' count.
    pub(crate) fn take_counts(&mut self, counts: Family, bands: usize) -> io::Result<()> {
        self.bands = bands;
        // The minima were allocated by the signing threads: freed beside the commit.
        let minima = self.family.take_counts(counts);
        if !minima.is_empty() {
            self.drop_later(Box::new(minima));
        }
        match self.family.take_warm() {
            Some(warm) => self.key_again(warm),
            None => Ok(()),
        }
    }

    /// A document the pipeline's counter counted, decided after the counts last taken: its
    /// `minima` are kept to count before a save ([`Window::settle_counts`]). Returns what
    /// [`Window::remember_minima`] needs of them: a copy during the warm-up, else nothing.
    /// `bands`: its LSH band keys' count.
    pub(crate) fn counted_elsewhere(&mut self, minima: Vec<u32>, bands: usize) -> Vec<u32> {
        self.bands = bands;
        let warm = match self.family.warming() {
            true => minima.clone(),
            false => Vec::new(),
        };
        self.family.counted_elsewhere(minima);
        warm
    }

    /// Counts the documents decided since the counts were last taken (before a save).
    pub(crate) fn settle_counts(&mut self) {
        self.family.settle();
    }

    /// Appends to `keys` the family keys made from `fallbacks`
    /// ([`Window::add_family_fallbacks`]), on any thread.
    pub(crate) fn family_keys_of(fallbacks: &[u64], keys: &mut Vec<u64>) {
        super::family::keys_of_fallbacks(fallbacks, keys);
    }

    /// After [`Window::insert`] of a document that [`Window::add_family_keys`] keyed: keeps
    /// its minima if it came during the warm-up.
    pub(crate) fn remember_minima(&mut self, held: Held, minima: Vec<u32>) {
        if !minima.is_empty() && self.family.warming() {
            self.family.remember(held.seq, minima);
        }
    }

    /// The family summaries (for `--state`).
    pub fn family(&self) -> &Family {
        &self.family
    }

    /// Puts back saved family summaries.
    pub(crate) fn set_family(&mut self, family: Family) {
        self.family = family;
    }

    /// Replaces the family keys of the held documents among `warm` (sequence number and
    /// minima) with what the summaries make of them now: in buckets and records.
    fn key_again(&mut self, warm: Vec<(u64, Vec<u32>)>) -> io::Result<()> {
        // Records and buckets change here in ways the journal does not replay.
        self.journal.stop();
        self.note_everything();
        let minima: std::collections::HashMap<u64, Vec<u32>> = warm.into_iter().collect();
        let held: Vec<Held> = self
            .oldest_first()
            .filter(|h| minima.contains_key(&h.seq))
            .collect();
        let mut entry = Entry::default();
        for h in held {
            self.load(h, &mut entry)?;
            let copy_key = self.view(h, &mut Vec::new())?.copy_key();
            let bands = self.bands.min(entry.band_keys.len());
            for &key in &entry.band_keys[bands..] {
                self.buckets[shard(key)].remove(key, h.slot);
            }
            entry.band_keys.truncate(bands);
            self.family.keys_of(&minima[&h.seq], &mut entry.band_keys);
            for &key in &entry.band_keys[bands..] {
                self.buckets[shard(key)].push(key, h.slot);
            }
            let place = self.store.append_with(
                record::encoded_len(&entry),
                |out| record::encode_onto(&entry, copy_key, out),
                &mut self.bytes,
            )?;
            let slot = &mut self.slots[h.slot as usize];
            let old = slot.place();
            slot.offset = place.offset;
            slot.len = place.len;
            slot.sum = 0;
            self.store.freed(old);
            self.unsummed_push(h.slot);
        }
        if self.store.needs_compaction() {
            self.compact()?;
        }
        Ok(())
    }
}
