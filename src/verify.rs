//! Verification: the exact similarity of a candidate pair.
//!
//! Shingle sets are stored as sorted, distinct 64-bit hashes, so Jaccard is one linear merge.
//! Following SEEDS.md §1 it is computed as |A∩B| / (|A| + |B| − |A∩B|), with no union built.
//! Bag semantics need nothing special here: the shingler already turned repeats into distinct
//! elements. Before merging, the size bound J ≤ min(|A|,|B|) / max(|A|,|B|) rejects pairs that
//! cannot reach the threshold without touching the elements.

/// Size of the intersection of two sorted, distinct slices. With AVX-512 or AVX2 (detected at
/// run time) blocks of eight or four are compared all-against-all (the block with the smaller
/// maximum moves on), then the rest is merged one element at a time.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if a.len() >= 8 && b.len() >= 8 {
        // POPCNT counts a block's matches in one instruction (without it the count is a
        // chain of multiplies); every AVX2 processor has it, but it is checked all the same.
        let popcnt = std::is_x86_feature_detected!("popcnt");
        if popcnt && std::is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F and POPCNT are available (checked above); AVX-512F implies AVX2.
            return unsafe { intersection_avx512(a, b) };
        }
        if popcnt && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 and POPCNT are available (checked above).
            return unsafe { intersection_avx2(a, b, 0, 0) };
        }
    }
    merge_from(a, b, 0, 0)
}

/// The scalar merge of `a[i..]` and `b[j..]`, branch-free.
fn merge_from(a: &[u64], b: &[u64], mut i: usize, mut j: usize) -> usize {
    let mut n = 0;
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += (x == y) as usize;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    n
}

/// Block intersection: each equal pair is in the current blocks together exactly once, since
/// a block moves on only when no later element of the other slice can equal one of its own.
/// Blocks of eight: `a`'s block is compared with each element of `b`'s block broadcast (an
/// element of `a` equals at most one of `b`, so the OR of the masks counts each match once);
/// the rest goes to the blocks of four.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt")]
unsafe fn intersection_avx512(a: &[u64], b: &[u64]) -> usize {
    use std::arch::x86_64::*;
    let (mut i, mut j, mut n) = (0usize, 0usize, 0usize);
    while i + 8 <= a.len() && j + 8 <= b.len() {
        // SAFETY: i + 8 <= a.len(); unaligned load.
        let va = unsafe { _mm512_loadu_si512(a.as_ptr().add(i).cast()) };
        let bb = &b[j..j + 8];
        let eq = |k: usize| _mm512_cmpeq_epi64_mask(va, _mm512_set1_epi64(bb[k] as i64));
        let m = eq(0) | eq(1) | eq(2) | eq(3) | eq(4) | eq(5) | eq(6) | eq(7);
        n += m.count_ones() as usize;
        let (amax, bmax) = (a[i + 7], b[j + 7]);
        i += usize::from(amax <= bmax) * 8;
        j += usize::from(bmax <= amax) * 8;
    }
    // SAFETY: AVX2 and POPCNT are available (enabled on this function).
    n + unsafe { intersection_avx2(a, b, i, j) }
}

/// Blocks of four from `a[i..]` and `b[j..]`, then the scalar merge.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn intersection_avx2(a: &[u64], b: &[u64], mut i: usize, mut j: usize) -> usize {
    use std::arch::x86_64::*;
    let mut n = 0usize;
    while i + 4 <= a.len() && j + 4 <= b.len() {
        // SAFETY: i + 4 <= a.len() and j + 4 <= b.len(); unaligned loads.
        let (va, vb) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().add(i).cast()),
                _mm256_loadu_si256(b.as_ptr().add(j).cast()),
            )
        };
        let r1 = _mm256_permute4x64_epi64::<0b00_11_10_01>(vb);
        let r2 = _mm256_permute4x64_epi64::<0b01_00_11_10>(vb);
        let r3 = _mm256_permute4x64_epi64::<0b10_01_00_11>(vb);
        let m = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi64(va, vb), _mm256_cmpeq_epi64(va, r1)),
            _mm256_or_si256(_mm256_cmpeq_epi64(va, r2), _mm256_cmpeq_epi64(va, r3)),
        );
        n += _mm256_movemask_pd(_mm256_castsi256_pd(m)).count_ones() as usize;
        let (amax, bmax) = (a[i + 3], b[j + 3]);
        i += usize::from(amax <= bmax) * 4;
        j += usize::from(bmax <= amax) * 4;
    }
    n + merge_from(a, b, i, j)
}

/// Exact Jaccard similarity of two sorted, distinct slices (0 when both are empty).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = intersection_size(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Exact Jaccard if it can reach `threshold`, `None` when it cannot: the size bound is tried
/// first, then the merge.
pub fn jaccard_at_least(a: &[u64], b: &[u64], threshold: f64) -> Option<f64> {
    let (small, large) = if a.len() <= b.len() {
        (a.len(), b.len())
    } else {
        (b.len(), a.len())
    };
    if large == 0 || (small as f64) < threshold * large as f64 - 1e-9 {
        return None;
    }
    let j = jaccard(a, b);
    (j >= threshold).then_some(j)
}

/// Exact weighted Jaccard Σ_{A∩B} w / Σ_{A∪B} w of two sorted, distinct element slices
/// with parallel weights (an element has the same weight wherever it occurs). `total_a` and
/// `total_b` are the slices' weight sums. 0 when both are empty.
pub fn weighted_jaccard(a: (&[u64], &[f32], f64), b: (&[u64], &[f32], f64)) -> f64 {
    let ((ea, wa, total_a), (eb, _, total_b)) = (a, b);
    let (mut i, mut j, mut common) = (0, 0, 0.0f64);
    while i < ea.len() && j < eb.len() {
        let (x, y) = (ea[i], eb[j]);
        if x == y {
            common += f64::from(wa[i]);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    let union = total_a + total_b - common;
    if union <= 0.0 { 0.0 } else { common / union }
}

/// Weighted Jaccard if it can reach `threshold`: the weight-sum bound
/// min(total) / max(total) is tried first, then the merge.
pub fn weighted_jaccard_at_least(
    a: (&[u64], &[f32], f64),
    b: (&[u64], &[f32], f64),
    threshold: f64,
) -> Option<f64> {
    let (small, large) = if a.2 <= b.2 { (a.2, b.2) } else { (b.2, a.2) };
    if large <= 0.0 || small < threshold * large * (1.0 - 1e-9) {
        return None;
    }
    let j = weighted_jaccard(a, b);
    (j >= threshold).then_some(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_intersection_equals_the_merge() {
        let mut state = 11u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 20
        };
        for round in 0..3000 {
            let universe = 8 + round % 400;
            let mut pick = || {
                let len = next() as usize % 300;
                let mut v: Vec<u64> = (0..len).map(|_| next() % universe as u64).collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let a = pick();
            let b = pick();
            let expected = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
            assert_eq!(intersection_size(&a, &b), expected, "{a:?} {b:?}");
            assert_eq!(intersection_size(&b, &a), expected);
            assert_eq!(merge_from(&a, &b, 0, 0), expected);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
                // SAFETY: AVX2 and POPCNT are available (checked above).
                assert_eq!(unsafe { intersection_avx2(&a, &b, 0, 0) }, expected);
            }
        }
    }
    use std::collections::BTreeSet;

    #[test]
    fn table() {
        let cases: &[(&[u64], &[u64], f64)] = &[
            (&[1, 2, 3], &[1, 2, 3], 1.0),
            (&[1, 2, 3], &[4, 5], 0.0),
            (&[1, 2, 3, 4], &[3, 4, 5, 6], 2.0 / 6.0),
            (&[], &[1], 0.0),
            (&[], &[], 0.0),
            (&[5], &[1, 2, 3, 4, 5], 0.2),
        ];
        // Unit weights: the weighted measure is the plain one.
        for &(a, b, j) in cases {
            let (wa, wb) = (vec![1.0f32; a.len()], vec![1.0f32; b.len()]);
            let got = weighted_jaccard((a, &wa, a.len() as f64), (b, &wb, b.len() as f64));
            assert!((got - j).abs() < 1e-12, "{a:?} {b:?}");
        }
        for &(a, b, j) in cases {
            assert!((jaccard(a, b) - j).abs() < 1e-12, "{a:?} {b:?}");
            assert!((jaccard(b, a) - j).abs() < 1e-12);
        }
    }

    #[test]
    fn agrees_with_btreeset_on_random_sets() {
        let mut x = 12345u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 200
        };
        for _ in 0..200 {
            let a: BTreeSet<u64> = (0..next() % 60).map(|_| next()).collect();
            let b: BTreeSet<u64> = (0..next() % 60).map(|_| next()).collect();
            let inter = a.intersection(&b).count();
            let union = a.union(&b).count();
            let expected = if union == 0 {
                0.0
            } else {
                inter as f64 / union as f64
            };
            let av: Vec<u64> = a.into_iter().collect();
            let bv: Vec<u64> = b.into_iter().collect();
            assert!((jaccard(&av, &bv) - expected).abs() < 1e-12);
            for t in [0.1, 0.3, 0.5] {
                assert_eq!(
                    jaccard_at_least(&av, &bv, t).is_some(),
                    union > 0 && expected >= t
                );
            }
        }
    }
}
