//! Small hashing helpers shared by the stages.

use std::hash::Hasher;

/// murmur3's 64-bit finaliser (fmix64): a bijection on u64 with full avalanche. Used to derive
/// well-spread keys from values that are already hashes or small integers.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Sorts `v`, whose values are hashes (uniform over u64), in ascending order; `scratch` is
/// reused between calls and its contents are not kept.
///
/// A counting pass on the top ⌈log2 n⌉ bits scatters the values into about one bucket each,
/// then one insertion-sort pass puts each bucket in order: O(n) for uniform values, about half
/// the time of `sort_unstable` on a document's few hundred shingles. Values that are not
/// spread (a bucket holding more than 32) fall back to `sort_unstable`, so the worst case
/// stays O(n log n).
pub(crate) fn sort_hashes(v: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    const MAX_BITS: u32 = 12;
    let n = v.len();
    if n < 64 {
        v.sort_unstable();
        return;
    }
    let bits = (usize::BITS - (n - 1).leading_zeros()).min(MAX_BITS);
    // Counters on the stack, zeroed only as far as needed: a document's few hundred
    // shingles need 257 of them, and zeroing all 4,097 cost as much as the counting.
    if bits <= 8 {
        scatter_sort(v, scratch, bits, &mut [0u32; (1 << 8) + 1]);
    } else {
        scatter_sort(v, scratch, bits, &mut [0u32; (1 << MAX_BITS) + 1]);
    }
}

/// [`sort_hashes`] for `v.len() >= 64` with `bits` bits of bucket number; `starts` is zeroed
/// and holds at least 2^bits + 1 counters.
fn scatter_sort(v: &mut Vec<u64>, scratch: &mut Vec<u64>, bits: u32, starts: &mut [u32]) {
    const MAX_BUCKET: u32 = 32;
    let n = v.len();
    let shift = 64 - bits;
    let starts = &mut starts[..(1 << bits) + 1];
    for &x in v.iter() {
        starts[(x >> shift) as usize + 1] += 1;
    }
    let mut total = 0;
    for s in starts.iter_mut() {
        if *s > MAX_BUCKET {
            v.sort_unstable();
            return;
        }
        total += *s;
        *s = total;
    }
    scratch.clear();
    scratch.resize(n, 0);
    for &x in v.iter() {
        let b = (x >> shift) as usize;
        scratch[starts[b] as usize] = x;
        starts[b] += 1;
    }
    std::mem::swap(v, scratch);
    // Disorder is only inside buckets, so each value moves at most a few places.
    for i in 1..n {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// A small deterministic generator for tests (a 64-bit LCG, high bits): each call of the
/// returned closure gives a value in `0..m`.
/// A hasher for keys that are already well mixed or small integers: murmur3's finaliser on
/// the written value. Deterministic (no random state), so runs are reproducible.
#[derive(Default, Clone, Copy)]
pub(crate) struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        mix64(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }

    fn write_u128(&mut self, n: u128) {
        self.0 ^= (n as u64) ^ ((n >> 64) as u64).rotate_left(31);
    }
}

#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |m| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    }
}

#[cfg(test)]
mod tests {
    use super::{mix64, sort_hashes};

    #[test]
    fn sort_hashes_sorts_spread_and_clustered_values() {
        let mut scratch = Vec::new();
        for n in [0usize, 1, 5, 63, 64, 65, 230, 1000, 5000, 70_000] {
            for spread in [true, false] {
                // Spread: hashes; clustered: small integers (one bucket: the fallback), with
                // repeats.
                let mut v: Vec<u64> = (0..n as u64)
                    .map(|i| {
                        if spread {
                            mix64(i % 997 + n as u64)
                        } else {
                            i % 300
                        }
                    })
                    .collect();
                let mut expected = v.clone();
                expected.sort_unstable();
                sort_hashes(&mut v, &mut scratch);
                assert_eq!(v, expected, "n = {n}, spread = {spread}");
            }
        }
    }

    #[test]
    fn is_a_spreading_bijection_on_samples() {
        let mut seen: Vec<u64> = (0..10_000u64).map(mix64).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 10_000);
        // Consecutive inputs land far apart: about half the bits differ.
        let flips: u32 = (0..1000u64)
            .map(|i| (mix64(i) ^ mix64(i + 1)).count_ones())
            .sum();
        assert!((28_000..36_000).contains(&flips), "{flips}");
    }
}
