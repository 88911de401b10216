//! Verification: the exact similarity of a candidate pair.
//!
//! A document's shingles are kept for verification as sorted, distinct 32-bit fingerprints:
//! the top 32 bits of each sorted 64-bit shingle hash ([`fingerprints_into`]), so Jaccard is
//! one linear merge. Following methods §1 it is computed as |A∩B| / (|A| + |B| − |A∩B|),
//! with no union built. Bag semantics need nothing special here: the shingler already turned
//! repeats into distinct elements. Before merging, the size bound J ≤ min(|A|,|B|) /
//! max(|A|,|B|) rejects pairs that cannot reach the threshold without touching the elements.
//!
//! Why 32 bits: the fingerprints are half the window's memory and half the bytes a merge
//! reads, and a window's candidates are rarely in cache. The price is a chance of
//! |A|·|B| / 2³² that two different shingles of a pair share a fingerprint (2 × 10⁻⁵ for two
//! 200-shingle documents); such a pair's similarity is then one element too high, at most
//! 1/|A∪B|. Inside one document, fingerprints that collide are merged into one element.

/// A verification element: the top 32 bits of a 64-bit shingle hash.
pub type Fingerprint = u32;

/// The fingerprints of sorted 64-bit shingle hashes, sorted and distinct, into `out`.
pub(crate) fn fingerprints_into(sorted: &[u64], out: &mut Vec<Fingerprint>) {
    out.clear();
    out.extend(sorted.iter().map(|&h| (h >> 32) as Fingerprint));
    out.dedup();
}

/// [`fingerprints_into`] into a new vector.
pub fn fingerprints(sorted: &[u64]) -> Vec<Fingerprint> {
    let mut out = Vec::with_capacity(sorted.len());
    fingerprints_into(sorted, &mut out);
    out
}

/// [`weighted_fingerprints_into`] into new vectors: (fingerprints, weights).
pub fn weighted_fingerprints(sorted: &[u64], weights: &[f32]) -> (Vec<Fingerprint>, Vec<f32>) {
    let (mut out, mut out_weights) = (Vec::new(), Vec::new());
    weighted_fingerprints_into(sorted, weights, &mut out, &mut out_weights);
    (out, out_weights)
}

/// [`fingerprints_into`] for weighted elements: the weights of elements that share a
/// fingerprint are added, so the total weight is unchanged.
pub(crate) fn weighted_fingerprints_into(
    sorted: &[u64],
    weights: &[f32],
    out: &mut Vec<Fingerprint>,
    out_weights: &mut Vec<f32>,
) {
    out.clear();
    out_weights.clear();
    for (&h, &w) in sorted.iter().zip(weights) {
        let f = (h >> 32) as Fingerprint;
        if out.last() == Some(&f) {
            *out_weights.last_mut().expect("one weight per fingerprint") += w;
        } else {
            out.push(f);
            out_weights.push(w);
        }
    }
}

/// Size of the intersection of two sorted, distinct slices. With AVX-512 or AVX2 (detected at
/// run time) blocks of sixteen or eight are compared all-against-all (the block with the
/// smaller maximum moves on), then the rest is merged one element at a time.
pub(crate) fn intersection_size(a: &[Fingerprint], b: &[Fingerprint]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if a.len() >= 16 && b.len() >= 16 {
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
fn merge_from(a: &[Fingerprint], b: &[Fingerprint], mut i: usize, mut j: usize) -> usize {
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
/// Blocks of sixteen: `a`'s block is compared with each element of `b`'s block broadcast (an
/// element of `a` equals at most one of `b`, so the OR of the masks counts each match once);
/// the rest goes to the blocks of eight.
///
/// # Safety
/// The CPU must have avx512f, avx2 and popcnt (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt")]
unsafe fn intersection_avx512(a: &[Fingerprint], b: &[Fingerprint]) -> usize {
    use std::arch::x86_64::*;
    let (mut i, mut j, mut n) = (0usize, 0usize, 0usize);
    while i + 16 <= a.len() && j + 16 <= b.len() {
        // SAFETY: i + 16 <= a.len(); unaligned load.
        let va = unsafe { _mm512_loadu_si512(a.as_ptr().add(i).cast()) };
        let bb = &b[j..j + 16];
        let eq = |k: usize| _mm512_cmpeq_epi32_mask(va, _mm512_set1_epi32(bb[k] as i32));
        let m = (eq(0) | eq(1) | eq(2) | eq(3))
            | (eq(4) | eq(5) | eq(6) | eq(7))
            | (eq(8) | eq(9) | eq(10) | eq(11))
            | (eq(12) | eq(13) | eq(14) | eq(15));
        n += m.count_ones() as usize;
        let (amax, bmax) = (a[i + 15], b[j + 15]);
        i += usize::from(amax <= bmax) * 16;
        j += usize::from(bmax <= amax) * 16;
    }
    // SAFETY: AVX2 and POPCNT are available (enabled on this function).
    n + unsafe { intersection_avx2(a, b, i, j) }
}

/// Blocks of eight from `a[i..]` and `b[j..]` (each element of `b`'s block broadcast against
/// `a`'s), then the scalar merge.
///
/// # Safety
/// The CPU must have avx2 and popcnt (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn intersection_avx2(
    a: &[Fingerprint],
    b: &[Fingerprint],
    mut i: usize,
    mut j: usize,
) -> usize {
    use std::arch::x86_64::*;
    let mut n = 0usize;
    while i + 8 <= a.len() && j + 8 <= b.len() {
        // SAFETY: i + 8 <= a.len(); unaligned load.
        let va = unsafe { _mm256_loadu_si256(a.as_ptr().add(i).cast()) };
        let bb = &b[j..j + 8];
        let eq = |k: usize| _mm256_cmpeq_epi32(va, _mm256_set1_epi32(bb[k] as i32));
        let m = _mm256_or_si256(
            _mm256_or_si256(_mm256_or_si256(eq(0), eq(1)), _mm256_or_si256(eq(2), eq(3))),
            _mm256_or_si256(_mm256_or_si256(eq(4), eq(5)), _mm256_or_si256(eq(6), eq(7))),
        );
        n += _mm256_movemask_ps(_mm256_castsi256_ps(m)).count_ones() as usize;
        let (amax, bmax) = (a[i + 7], b[j + 7]);
        i += usize::from(amax <= bmax) * 8;
        j += usize::from(bmax <= amax) * 8;
    }
    n + merge_from(a, b, i, j)
}

/// Exact Jaccard similarity of two sorted, distinct slices (0 when both are empty).
pub fn jaccard(a: &[Fingerprint], b: &[Fingerprint]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = intersection_size(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Exact Jaccard if it can reach `threshold`, `None` when it cannot: the size bound is tried
/// first, then the merge.
pub fn jaccard_at_least(a: &[Fingerprint], b: &[Fingerprint], threshold: f64) -> Option<f64> {
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

/// A sorted, distinct fingerprint slice with its parallel weights and their sum.
pub type Weighted<'a> = (&'a [Fingerprint], &'a [f32], f64);

/// Exact weighted Jaccard Σ min(w_A, w_B) / Σ max(w_A, w_B) of two sorted, distinct element
/// slices with parallel weights, computed as common / (total_a + total_b − common) where
/// common is the sum of the minima over shared elements. An element has the same weight
/// wherever it occurs, except where fingerprints merged (then the minimum counts). 0 when
/// both are empty.
pub fn weighted_jaccard(a: Weighted<'_>, b: Weighted<'_>) -> f64 {
    let ((ea, wa, total_a), (eb, wb, total_b)) = (a, b);
    let (mut i, mut j, mut common) = (0, 0, 0.0f64);
    while i < ea.len() && j < eb.len() {
        let (x, y) = (ea[i], eb[j]);
        if x == y {
            common += f64::from(wa[i].min(wb[j]));
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    let union = total_a + total_b - common;
    if union <= 0.0 { 0.0 } else { common / union }
}

/// Weighted Jaccard if it can reach `threshold`: the weight-sum bound
/// min(total) / max(total) is tried first, then the merge.
pub(crate) fn weighted_jaccard_at_least(
    a: Weighted<'_>,
    b: Weighted<'_>,
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
            // Half the rounds near the top of the range: the block maxima compare unsigned.
            let base = if round % 2 == 0 { 0 } else { u32::MAX - 500 };
            let mut pick = || {
                let len = next() as usize % 300;
                let mut v: Vec<Fingerprint> = (0..len)
                    .map(|_| base + (next() % universe as u64) as Fingerprint)
                    .collect();
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
        let cases: &[(&[Fingerprint], &[Fingerprint], f64)] = &[
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
            let a: BTreeSet<Fingerprint> = (0..next() % 60).map(|_| next() as u32).collect();
            let b: BTreeSet<Fingerprint> = (0..next() % 60).map(|_| next() as u32).collect();
            let inter = a.intersection(&b).count();
            let union = a.union(&b).count();
            let expected = if union == 0 {
                0.0
            } else {
                inter as f64 / union as f64
            };
            let av: Vec<Fingerprint> = a.into_iter().collect();
            let bv: Vec<Fingerprint> = b.into_iter().collect();
            assert!((jaccard(&av, &bv) - expected).abs() < 1e-12);
            for t in [0.1, 0.3, 0.5] {
                assert_eq!(
                    jaccard_at_least(&av, &bv, t).is_some(),
                    union > 0 && expected >= t
                );
            }
        }
    }

    #[test]
    fn fingerprints_are_the_top_bits_sorted_and_merged() {
        let sorted = [1u64, 5, 1 << 32, (1 << 32) | 9, 3 << 32, u64::MAX];
        let mut out = Vec::new();
        fingerprints_into(&sorted, &mut out);
        assert_eq!(out, [0, 1, 3, u32::MAX]);
        let weights = [0.5f32, 0.25, 1.0, 2.0, 4.0, 8.0];
        let mut w = Vec::new();
        weighted_fingerprints_into(&sorted, &weights, &mut out, &mut w);
        assert_eq!(out, [0, 1, 3, u32::MAX]);
        assert_eq!(w, [0.75, 3.0, 4.0, 8.0]);
    }

    #[test]
    fn weighted_jaccard_takes_the_smaller_weight_of_a_shared_element() {
        // Element 1 weighs 3 in a (two shingles merged) and 1 in b: min 1, max 3.
        let a: Weighted<'_> = (&[1, 2], &[3.0, 1.0], 4.0);
        let b: Weighted<'_> = (&[1, 3], &[1.0, 1.0], 2.0);
        // Σ min = 1; Σ max = 3 + 1 + 1 = 5.
        assert!((weighted_jaccard(a, b) - 0.2).abs() < 1e-12);
        assert!((weighted_jaccard(b, a) - 0.2).abs() < 1e-12);
    }
}
