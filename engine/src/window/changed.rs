//! What a batch's in-order commit changed in the window, for the filter's speculation
//! (`pipeline/speculate.rs`): every bucket key a push, refresh or removal touched, with the
//! bucket's members as they were before its first change, and every copy-index key added
//! or removed, since [`Window::track_changes`].
//!
//! A lookup reads the window only through the buckets of its keys (their members, in their
//! order), the copy index under its text hash, and the slots and records of the documents
//! those hold, which do not change while a document is held. So a lookup made before the
//! batch gives the answer a lookup made now would give when none of the keys it read is in
//! this set ([`Window::changed_since_tracking`]), and when some are, the lookup's counts
//! are brought up to date from those buckets alone, before and now
//! (`window/reconcile.rs`). That is the whole argument for the speculation's exactness, and
//! why every change to the buckets goes through [`Window::before_change`] first, and every
//! change to the copy index through [`Changed::copy`]. A slot freed while changes are
//! recorded is noted too ([`Window::was_freed`]): a later insert may reuse it for another
//! document.

use super::Window;
use super::shard;
use std::collections::{HashMap, HashSet};
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
type KeyMap = HashMap<u64, KeyChange, BuildHasherDefault<Identity>>;

/// A change of the documents a bucket gives a lookup since tracking began: the document in
/// `slot` (`new`: one that came after tracking began, in a slot freed since) entered (`by`
/// 1) or left (-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Delta {
    pub slot: u32,
    pub new: bool,
    pub by: i32,
}

/// A changed bucket: where its members as they were are kept, how often it changed since,
/// and where its changes as a lookup sees them are (`Changed::seen`; 0: not made yet): its
/// newest members for a family key, all for a band key. Small, as most changed keys are
/// never asked for (ordinary text: a kept document's keys).
#[derive(Clone, Copy, Default)]
struct KeyChange {
    at: u32,
    len: u32,
    version: u32,
    reach: u32,
    whole: u32,
}

/// The keys changed since tracking began.
#[derive(Default)]
pub(super) struct Changed {
    /// Each changed bucket key, and where its members as they were before are in `members`.
    keys: KeyMap,
    members: Vec<u32>,
    /// The changes of keys as lookups see them, made when asked for, with the version of
    /// the key they were made at ([`Window::changes_of`]).
    seen: Vec<(u32, Vec<Delta>)>,
    /// How many of `seen` are in use since tracking began (their buffers are reused).
    seen_used: usize,
    /// Scratch of [`Window::changes_of`].
    sorted: (Vec<u32>, Vec<u32>),
    copies: KeySet,
    /// Slots freed while recording (an insert may have reused them).
    freed: KeySet,
    /// Set by a change no key names (the family keys of the warm-up documents rewritten):
    /// every lookup is then stale.
    all: bool,
    /// Who reads what later ([`Window::will_read`]): by a key's low bits, one more than the
    /// place of the last lookup of the piece that reads a key with those bits; empty: every
    /// change is recorded. A change of a key whose readers are all committed already is
    /// asked for by nobody, and not recorded (most of them: a kept document's own keys).
    readers: Vec<u32>,
    /// One more than the place of the document being committed ([`Window::committing`]).
    committing: u32,
    /// Whether changes are being recorded.
    on: bool,
}

impl Changed {
    /// Whether a lookup after the document being committed may read the bucket of `key`.
    #[inline]
    fn read_later(&self, key: u64) -> bool {
        let mask = self.readers.len().wrapping_sub(1);
        self.readers.is_empty() || self.readers[key as usize & mask] > self.committing
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
    pub(crate) fn track_changes(&mut self) {
        let mut changed = self.changed.take().unwrap_or_default();
        changed.keys.clear();
        changed.members.clear();
        changed.seen_used = 0;
        changed.copies.clear();
        changed.freed.clear();
        changed.all = false;
        changed.on = true;
        changed.readers.clear();
        changed.committing = 0;
        self.changed = Some(changed);
    }

    /// Starts recording what changes, as [`Window::track_changes`], but only what a lookup
    /// named by [`Window::will_read`] reads after the document being committed
    /// ([`Window::committing`]). `reads`: about how many reads will be named (the table of
    /// readers is four times that, so a key seldom shares its entry with another read
    /// later, which only records a change nobody asks for).
    pub(crate) fn track_changes_read(&mut self, reads: usize) {
        self.track_changes();
        let changed = self.changed.as_mut().expect("tracking");
        let len = (reads.max(1) * 4)
            .next_power_of_two()
            .clamp(1 << 10, 1 << 18);
        changed.readers.clear();
        changed.readers.resize(len, 0);
    }

    /// Notes that the lookup of the piece's document at `place` reads the bucket of `key`
    /// (a change to it before that document is committed must be recorded).
    #[inline]
    pub(crate) fn will_read(&mut self, key: u64, place: usize) {
        if let Some(changed) = self.changed.as_mut().filter(|c| !c.readers.is_empty()) {
            let mask = changed.readers.len() - 1;
            let last = &mut changed.readers[key as usize & mask];
            *last = (*last).max(place as u32 + 1);
        }
    }

    /// The piece's document at `place` is being committed: a change it (or an eviction it
    /// causes) makes to a key no later document reads is not recorded. A document committed
    /// without saying so keeps the place before it, which records more, never less.
    #[inline]
    pub(crate) fn committing(&mut self, place: usize) {
        if let Some(changed) = &mut self.changed {
            changed.committing = place as u32 + 1;
        }
    }

    /// Stops recording changes (the set's memory is kept for the next batch).
    pub(crate) fn stop_tracking(&mut self) {
        if let Some(changed) = &mut self.changed {
            changed.all = true;
            changed.on = false;
        }
    }

    /// How what a lookup reads in the bucket of `key` changed since tracking began (`reach`:
    /// its newest [`super::lookup::FAMILY_REACH`] members, as a family key; else all of
    /// them), or `None` when the bucket did not change. Made once per change of the bucket,
    /// for all the lookups that read it.
    pub(super) fn changes_of(&mut self, key: u64, reach: bool) -> Option<&[Delta]> {
        let changed = self.changed.as_mut()?;
        let c = changed.keys.get_mut(&key)?;
        let at = if reach { &mut c.reach } else { &mut c.whole };
        if *at == 0 {
            if changed.seen_used == changed.seen.len() {
                changed.seen.push((0, Vec::new()));
            }
            // A buffer of an earlier piece: made anew (versions start at 1).
            changed.seen[changed.seen_used].0 = 0;
            changed.seen_used += 1;
            *at = changed.seen_used as u32;
        }
        let (version, deltas) = &mut changed.seen[*at as usize - 1];
        if *version != c.version {
            *version = c.version;
            let before = &changed.members[c.at as usize..(c.at + c.len) as usize];
            let now = self.buckets[shard(key)].get(key);
            let seen = |m: &[u32], into: &mut Vec<u32>| {
                let from = if reach {
                    m.len().saturating_sub(super::lookup::FAMILY_REACH)
                } else {
                    0
                };
                into.clear();
                into.extend_from_slice(&m[from..]);
            };
            let (a, b) = &mut changed.sorted;
            seen(before, a);
            seen(now, b);
            a.sort_unstable();
            b.sort_unstable();
            deltas.clear();
            let freed =
                |slot: u32| !changed.freed.is_empty() && changed.freed.contains(&u64::from(slot));
            let (mut i, mut j) = (0, 0);
            while i < a.len() || j < b.len() {
                let (x, y) = (a.get(i).copied(), b.get(j).copied());
                let gone = |slot| Delta {
                    slot,
                    new: false,
                    by: -1,
                };
                let came = |slot| Delta {
                    slot,
                    new: freed(slot),
                    by: 1,
                };
                match (x, y) {
                    (Some(x), Some(y)) if x == y => {
                        // The same slot may hold another document now.
                        if freed(x) {
                            deltas.push(gone(x));
                            deltas.push(came(x));
                        }
                        i += 1;
                        j += 1;
                    }
                    (Some(x), Some(y)) if x < y => {
                        deltas.push(gone(x));
                        i += 1;
                    }
                    (Some(x), None) => {
                        deltas.push(gone(x));
                        i += 1;
                    }
                    (_, Some(y)) => {
                        deltas.push(came(y));
                        j += 1;
                    }
                    (None, None) => break,
                }
            }
        }
        Some(&deltas[..])
    }

    /// Whether the copy index under `text_hash` changed since tracking began (or nothing is
    /// tracked).
    pub(crate) fn copy_changed(&self, text_hash: u128) -> bool {
        self.changed
            .as_ref()
            .is_none_or(|c| c.all || c.copies.contains(&(text_hash as u64)))
    }

    /// Whether a change no key names made every lookup stale (or nothing is tracked).
    pub(super) fn all_changed(&self) -> bool {
        self.changed.as_ref().is_none_or(|c| c.all)
    }

    /// Whether a lookup made when tracking began, which read the buckets of `keys` and the
    /// copy index under `copy`, could give another answer now. Without tracking: yes.
    pub(crate) fn changed_since_tracking(&self, keys: &[u64], copy: Option<u128>) -> bool {
        let Some(changed) = &self.changed else {
            return true;
        };
        changed.all
            || copy.is_some_and(|h| changed.copies.contains(&(h as u64)))
            || keys.iter().any(|k| changed.keys.contains_key(k))
    }

    /// Whether the family keys of a document depend only on the documents before it and
    /// no longer on what is kept: the summaries' warm-up is over and its documents were
    /// keyed again ([`Window::add_family_keys`]). Until then the keys of a batch cannot be
    /// computed ahead of its decisions.
    pub(crate) fn family_settled(&self) -> bool {
        !self.family.warming()
    }

    /// The number of LSH band keys before a query's family keys (the rest are family keys).
    pub(crate) fn band_count(&self) -> usize {
        self.bands
    }

    /// Whether a change of the bucket of `key` is recorded now: changes are being recorded,
    /// and a lookup after the document being committed may read it.
    #[inline]
    pub(super) fn recorded(&self, key: u64) -> bool {
        self.changed
            .as_ref()
            .is_some_and(|c| c.on && c.read_later(key))
    }

    /// Records that the buckets of `keys` are about to change: the first time since tracking
    /// began, a bucket's members are kept as they are.
    #[inline]
    pub(super) fn before_change(&mut self, keys: &[u64]) {
        if let Some(changed) = self.changed.as_mut().filter(|c| c.on) {
            for &k in keys {
                if !changed.read_later(k) {
                    continue;
                }
                match changed.keys.entry(k) {
                    std::collections::hash_map::Entry::Vacant(e) => {
                        let members = self.buckets[shard(k)].get(k);
                        e.insert(KeyChange {
                            at: changed.members.len() as u32,
                            len: members.len() as u32,
                            version: 1,
                            ..KeyChange::default()
                        });
                        changed.members.extend_from_slice(members);
                    }
                    std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().version += 1,
                }
            }
        }
    }

    /// Records that the members of an already changed bucket are being reordered (a band key's
    /// refresh, which no lookup of it as a band key sees, but one of it as a family key may).
    #[inline]
    pub(super) fn reordering(&mut self, key: u64) {
        if let Some(changed) = self.changed.as_mut().filter(|c| c.on)
            && let Some(c) = changed.keys.get_mut(&key)
        {
            c.version += 1;
        }
    }

    /// Records that `slot` was freed (its document evicted).
    pub(super) fn note_freed(&mut self, slot: u32) {
        if let Some(changed) = self.changed.as_mut().filter(|c| c.on) {
            changed.freed.insert(u64::from(slot));
        }
    }

    /// Whether `slot` was freed since tracking began (it may hold another document now).
    pub(super) fn was_freed(&self, slot: u32) -> bool {
        self.changed
            .as_ref()
            .is_some_and(|c| !c.freed.is_empty() && c.freed.contains(&u64::from(slot)))
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

#[cfg(test)]
mod tests {
    use super::super::{Entry, Window};

    fn keyed(keys: &[u64]) -> Entry {
        Entry {
            band_keys: keys.to_vec(),
            ..Entry::default()
        }
    }

    /// A piece's commit records a change only where a lookup after the document making it
    /// reads the key; without readers named, every change.
    #[test]
    fn a_change_is_recorded_only_where_a_later_lookup_reads_it() {
        let mut w = Window::new(0);
        let (read, unread, own) = (0x10_u64, 0x20_u64, 0x30_u64);
        w.track_changes_read(4);
        w.will_read(read, 1);
        w.will_read(own, 1);
        w.committing(0);
        w.insert(0, keyed(&[read, unread])).unwrap();
        assert!(w.changed_since_tracking(&[read], None));
        assert!(!w.changed_since_tracking(&[unread], None));
        // The reader itself changing what it read: nobody after it asks.
        w.committing(1);
        w.insert(1, keyed(&[own])).unwrap();
        assert!(!w.changed_since_tracking(&[own], None));
        // A document committed without its place keeps the one before: recorded.
        w.stop_tracking();
        w.track_changes_read(4);
        w.will_read(own, 3);
        w.committing(1);
        w.insert(2, keyed(&[own])).unwrap();
        assert!(w.changed_since_tracking(&[own], None));
        w.stop_tracking();
        w.track_changes();
        w.insert(3, keyed(&[unread])).unwrap();
        assert!(w.changed_since_tracking(&[unread], None));
    }
}
