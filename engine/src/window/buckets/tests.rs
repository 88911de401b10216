//! The bucket tables' tests: lookups, growth and removals against a map of lists, and a
//! limited bucket as a segmented LRU list (a refreshed member is protected, at most half the
//! limit; a push past the limit drops the oldest unprotected one; a protected member that is
//! removed frees its place) against a model of it.

use super::*;
use std::collections::HashMap;

/// A limited table's lists, put back into a table that got the same members in another
/// order, give it the same buckets (order and protected members included).
#[test]
fn restored_lists_give_back_order_and_protection() {
    let mut live = Buckets::with_limit(4);
    for slot in 0..6 {
        live.push(7, slot);
        live.push(9, slot % 3);
    }
    live.refresh(7, 3);
    live.push(11, 1);
    let mut again = Buckets::with_limit(4);
    for slot in [5, 4, 3, 2] {
        again.push(7, slot);
    }
    for slot in [2, 1, 0] {
        again.push(9, slot);
    }
    again.push(11, 1);
    let saved: Vec<(u32, u32, Vec<u32>)> =
        live.lists().map(|(t, p, m)| (t, p, m.to_vec())).collect();
    assert_eq!(saved.len(), 2, "keys 7 and 9 have lists, 11 one member");
    for (top, protected, members) in &saved {
        assert!(again.restore_list(*top, *protected, members));
    }
    for key in [7, 9, 11] {
        assert_eq!(again.get(key), live.get(key), "key {key}");
    }
    // The protected member outlives newer pushes in both.
    for slot in 20..24 {
        live.push(7, slot);
        again.push(7, slot);
    }
    assert_eq!(again.get(7), live.get(7));
    assert!(live.get(7).contains(&3));
    assert!(!again.restore_list(top(12345), 0, &[1, 2]), "no such key");
}

#[test]
fn refreshing_the_newest_protected_member_changes_nothing() {
    let mut b = Buckets::with_limit(6);
    for slot in 0..5 {
        b.push(7, slot);
    }
    assert_eq!(b.refresh(7, 2), 5, "moved");
    assert_eq!(b.get(7), [2, 0, 1, 3, 4]);
    assert_eq!(b.refresh(7, 2), 0, "already the newest protected");
    assert_eq!(b.get(7), [2, 0, 1, 3, 4]);
    assert_eq!(b.refresh(7, 4), 5);
    assert_eq!(b.get(7), [2, 4, 0, 1, 3]);
    assert_eq!(b.refresh(7, 4), 0);
    assert_eq!(b.refresh(7, 9), 0, "not a member");
}

#[test]
fn refreshed_members_outlive_newer_ones() {
    let mut b = Buckets::with_limit(4);
    for slot in 0..4 {
        b.push(7, slot);
    }
    b.refresh(7, 1);
    assert_eq!(b.get(7), [1, 0, 2, 3]);
    for slot in 4..8 {
        b.push(7, slot);
    }
    assert_eq!(b.get(7), [1, 5, 6, 7], "1 survives four newer pushes");
    b.refresh(7, 6);
    b.refresh(7, 7);
    // Half the limit (2) are protected already: the oldest of them, 1, goes back as the
    // newest unprotected member.
    assert_eq!(b.get(7), [6, 7, 5, 1]);
    b.refresh(7, 6);
    assert_eq!(
        b.get(7),
        [7, 6, 5, 1],
        "a protected member moves to the newest end"
    );
    b.remove(7, 7);
    b.push(7, 8);
    b.push(7, 9);
    assert_eq!(b.get(7), [6, 1, 8, 9]);
    // Without a limit, order is insertion order and refresh does nothing.
    let mut free = Buckets::new();
    for slot in 0..3 {
        free.push(1, slot);
    }
    free.refresh(1, 0);
    assert_eq!(free.get(1), [0, 1, 2]);
}

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

/// A limited table under random pushes, refreshes and removals keeps each bucket's
/// members in the order of a model that moves members one removal and one insertion at a
/// time (the protected members first, at most half the limit of them).
#[test]
fn limited_buckets_equal_a_model_of_protected_lists() {
    let mut next = crate::hash::test_rng(23u64);
    for limit in [2usize, 5, 8, 96] {
        let mut b = Buckets::with_limit(limit);
        // Per key: its members, and how many of the first are protected.
        let mut model: HashMap<u64, (Vec<u32>, usize)> = HashMap::new();
        for step in 0..30_000u32 {
            let key = next(6);
            let members = model.get(&key).map(|m| m.0.clone()).unwrap_or_default();
            let known = |next: &mut dyn FnMut(u64) -> u64| match members.is_empty() {
                true => next(40) as u32 + 100_000,
                false => members[next(members.len() as u64) as usize],
            };
            match next(4) {
                0 => {
                    let slot = known(&mut next);
                    b.remove(key, slot);
                    if let Some((list, protected)) = model.get_mut(&key)
                        && let Some(at) = list.iter().position(|&s| s == slot)
                    {
                        list.remove(at);
                        if at < *protected {
                            *protected -= 1;
                        }
                        match list.len() {
                            0 => drop(model.remove(&key)),
                            // One member is kept in its cell, without a list.
                            1 => *protected = 0,
                            _ => {}
                        }
                    }
                }
                1 | 2 => {
                    let slot = known(&mut next);
                    b.refresh(key, slot);
                    if let Some((list, protected)) = model.get_mut(&key)
                        && list.len() > 1
                        && let Some(at) = list.iter().position(|&s| s == slot)
                    {
                        let p = *protected;
                        list.remove(at);
                        if at < p {
                            list.insert(p - 1, slot);
                        } else if p < limit / 2 {
                            list.insert(p, slot);
                            *protected += 1;
                        } else {
                            list.insert(p, slot);
                            let demoted = list.remove(0);
                            list.push(demoted);
                        }
                    }
                }
                _ => {
                    b.push(key, step);
                    let (list, protected) = model.entry(key).or_default();
                    if list.len() >= 2 && list.len() >= limit {
                        list.remove((*protected).min(list.len() - 1));
                    }
                    list.push(step);
                }
            }
            let expected = model.get(&key).map(|m| m.0.as_slice()).unwrap_or(&[]);
            assert_eq!(
                b.get(key),
                expected,
                "limit {limit}, key {key}, step {step}"
            );
        }
    }
}

#[test]
fn reserve_and_growth_keep_every_key() {
    let mut b = Buckets::new();
    b.reserve(1000);
    let cells = b.cells.len();
    assert!(cells * LOAD_NUM >= 1000 * LOAD_DEN);
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

/// A window's document with these keys (its record holds them, as a real one's does).
fn keyed(keys: &[u64]) -> crate::window::Entry {
    crate::window::Entry {
        band_keys: keys.into(),
        ..crate::window::Entry::default()
    }
}

/// A match is refreshed only in the buckets that hold it, and the buckets come out as a
/// refresh in every bucket of the query's keys leaves them (a bucket without the match
/// unchanged), protected members and all.
#[test]
fn a_refresh_in_the_matchs_buckets_alone_is_a_refresh_in_all() {
    let mut seed = 7u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let (mut skipping, mut every) = (
        crate::window::Window::new(0).with_bucket_limit(8),
        crate::window::Window::new(0).with_bucket_limit(8),
    );
    for seq in 1..400u64 {
        let keys: Vec<u64> = (0..4).map(|b| b * 100 + next(6)).collect();
        skipping.insert(seq, keyed(&keys)).unwrap();
        every.insert(seq, keyed(&keys)).unwrap();
        if seq > 10 {
            let query: Vec<u64> = (0..4).map(|b| b * 100 + next(6)).collect();
            let matched = 1 + next(seq - 1);
            let (Some(a), Some(b)) = (skipping.find_seq(matched), every.find_seq(matched)) else {
                continue;
            };
            skipping.touch_in_buckets(a, &query);
            every.touch(b);
            for &key in &query {
                every.buckets[crate::window::shard(key)].refresh(key, b.slot);
            }
        }
    }
    for key in (0..4).flat_map(|b| (0..6).map(move |k| b * 100 + k)) {
        assert_eq!(
            skipping.buckets[crate::window::shard(key)].get(key),
            every.buckets[crate::window::shard(key)].get(key),
            "key {key}"
        );
    }
}
