//! What a batch's in-order commit changed in the window, for the filter's speculation
//! (`pipeline/speculate.rs`): every bucket key a push, refresh or removal touched and every
//! copy-index key added or removed, since [`Window::track_changes`].
//!
//! A lookup reads the window only through the buckets of its keys (their members, in their
//! order), the copy index under its text hash, and the slots and records of the documents
//! those hold, which do not change while a document is held. So a lookup made before the
//! batch gives the answer a lookup made now would give when none of the keys it read is in
//! this set ([`Window::changed_since_tracking`]): that is the whole argument for the
//! speculation's exactness, and why every change to the buckets or the copy index goes
//! through [`Changed::key`] or [`Changed::copy`].

use super::Window;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Keys are hashes already: they are their own hash.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type KeySet = HashSet<u64, BuildHasherDefault<Identity>>;

/// The keys changed since tracking began.
#[derive(Default)]
pub(super) struct Changed {
    keys: KeySet,
    copies: KeySet,
    /// Set by a change no key names (the family keys of the warm-up documents rewritten):
    /// every lookup is then stale.
    all: bool,
    /// Whether changes are being recorded.
    on: bool,
}

impl Changed {
    #[inline]
    pub(super) fn key(&mut self, key: u64) {
        self.keys.insert(key);
    }

    #[inline]
    pub(super) fn copy(&mut self, key: u64) {
        self.copies.insert(key);
    }

    pub(super) fn everything(&mut self) {
        self.all = true;
    }
}

impl Window {
    /// Starts recording what changes ([`Window::changed_since_tracking`]), forgetting what
    /// was recorded before.
    pub fn track_changes(&mut self) {
        let mut changed = self.changed.take().unwrap_or_default();
        changed.keys.clear();
        changed.copies.clear();
        changed.all = false;
        changed.on = true;
        self.changed = Some(changed);
    }

    /// Stops recording changes (the set's memory is kept for the next batch).
    pub fn stop_tracking(&mut self) {
        if let Some(changed) = &mut self.changed {
            changed.all = true;
            changed.on = false;
        }
    }

    /// Whether a lookup made when tracking began, which read the buckets of `keys` and the
    /// copy index under `copy`, could give another answer now. Without tracking: yes.
    pub fn changed_since_tracking(&self, keys: &[u64], copy: Option<u128>) -> bool {
        let Some(changed) = &self.changed else {
            return true;
        };
        changed.all
            || copy.is_some_and(|h| changed.copies.contains(&(h as u64)))
            || keys.iter().any(|k| changed.keys.contains(k))
    }

    /// Whether the family keys of a document depend only on the documents before it and
    /// no longer on what is kept: the summaries' warm-up is over and its documents were
    /// keyed again ([`Window::add_family_keys`]). Until then the keys of a batch cannot be
    /// computed ahead of its decisions.
    pub fn family_settled(&self) -> bool {
        !self.family.warming()
    }

    /// The number of LSH band keys before a query's family keys (the rest are family keys).
    pub fn band_count(&self) -> usize {
        self.bands
    }

    /// Records a change of the buckets of `keys`.
    #[inline]
    pub(super) fn note_keys(&mut self, keys: &[u64]) {
        if let Some(changed) = self.changed.as_mut().filter(|c| c.on) {
            for &k in keys {
                changed.key(k);
            }
        }
    }

    /// Records a change of the copy index under `key`.
    #[inline]
    pub(super) fn note_copy(&mut self, key: u64) {
        if let Some(changed) = self.changed.as_mut().filter(|c| c.on) {
            changed.copy(key);
        }
    }

    /// Records a change no key names.
    pub(super) fn note_everything(&mut self) {
        if let Some(changed) = self.changed.as_mut().filter(|c| c.on) {
            changed.everything();
        }
    }
}
