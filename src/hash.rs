//! Small hashing helpers shared by the stages.

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

#[cfg(test)]
mod tests {
    use super::mix64;

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
