//! Verification: the exact similarity of a candidate pair.
//!
//! Shingle sets are stored as sorted, distinct 64-bit hashes, so Jaccard is one linear merge.
//! Following SEEDS.md §1 it is computed as |A∩B| / (|A| + |B| − |A∩B|), with no union built.
//! Bag semantics need nothing special here: the shingler already turned repeats into distinct
//! elements. Before merging, the size bound J ≤ min(|A|,|B|) / max(|A|,|B|) rejects pairs that
//! cannot reach the threshold without touching the elements.

/// Size of the intersection of two sorted, distinct slices.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += (x == y) as usize;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    n
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
