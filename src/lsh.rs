//! LSH banding: choosing bands × rows for a threshold, and a signature's band keys.
//!
//! A signature of K values is cut into `b` bands of `r` rows. Two documents become candidates
//! when all `r` values of at least one band agree, which for Jaccard similarity `s` happens with
//! probability
//!
//! ```text
//! P(s) = 1 − (1 − s^r)^b                      (the S-curve)
//! ```
//!
//! [`LshParams::from_threshold`] picks, among the (b, r) with b·r = K (so every value is used),
//! the pair minimising the weighted error area
//!
//! ```text
//! cost(b, r) = w_fp · ∫₀ᵀ P(s) ds  +  w_fn · ∫ₜ¹ (1 − P(s)) ds
//! ```
//!
//! with `w_fn` = 0.9 and `w_fp` = 0.1. The weights are not the symmetric 0.5/0.5 of other
//! tools on purpose: every candidate is verified exactly, so a false positive costs one
//! Jaccard computation while a false negative is a duplicate we never see. For K = 128 this
//! gives 16 × 8 at T = 0.8 (P(0.8) = 0.947, P(0.85) = 0.994) and 32 × 4 at T = 0.5.
//! T = 1.0 gives one band of all K rows (identical signatures only); T near 0 gives K bands
//! of one row (any shared minimum).

use crate::hash::mix64;

/// Weight of the false-negative area in the cost (see the module docs).
pub const FN_WEIGHT: f64 = 0.9;
/// Weight of the false-positive area in the cost.
pub const FP_WEIGHT: f64 = 0.1;

/// Bands and rows per band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LshParams {
    /// Number of bands `b`.
    pub bands: usize,
    /// Rows (signature values) per band `r`.
    pub rows: usize,
}

impl LshParams {
    /// The (b, r) with b·r = `num_perm` minimising the weighted error area for `threshold`.
    pub fn from_threshold(threshold: f64, num_perm: usize) -> LshParams {
        let mut best = LshParams {
            bands: num_perm,
            rows: 1,
        };
        let mut best_cost = f64::INFINITY;
        for rows in (1..=num_perm).filter(|r| num_perm.is_multiple_of(*r)) {
            let p = LshParams {
                bands: num_perm / rows,
                rows,
            };
            let cost = FP_WEIGHT * p.false_positive_area(threshold)
                + FN_WEIGHT * p.false_negative_area(threshold);
            if cost < best_cost {
                best_cost = cost;
                best = p;
            }
        }
        best
    }

    /// P(candidate | Jaccard = s) = 1 − (1 − s^r)^b.
    pub fn probability(&self, s: f64) -> f64 {
        1.0 - (1.0 - s.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// ∫₀ᵀ P(s) ds: how much of the curve lies left of the threshold.
    pub fn false_positive_area(&self, threshold: f64) -> f64 {
        integrate(|s| self.probability(s), 0.0, threshold)
    }

    /// ∫ₜ¹ (1 − P(s)) ds: how much of the curve is missing right of the threshold.
    pub fn false_negative_area(&self, threshold: f64) -> f64 {
        integrate(|s| 1.0 - self.probability(s), threshold, 1.0)
    }

    /// The similarity where the S-curve is steepest, about (1/b)^(1/r).
    pub fn effective_threshold(&self) -> f64 {
        (1.0 / self.bands as f64).powf(1.0 / self.rows as f64)
    }

    /// Writes one 64-bit key per band into `out` (cleared first). Keys of different bands
    /// differ even for equal values, so all bands can share one hash table.
    ///
    /// Each key is a chain of `rows` [`mix64`] steps, so one band is a chain of dependent
    /// multiplies; eight bands are computed side by side (one vector register on AVX-512),
    /// with the same arithmetic per band as keying one band at a time.
    pub fn band_keys_into(&self, values: &[u64], out: &mut Vec<u64>) {
        out.clear();
        let bands = self.bands.min(values.len() / self.rows.max(1));
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            // SAFETY: the CPU has AVX-512 F and DQ, checked just above.
            unsafe { band_keys_avx512(values, self.rows, bands, out) };
            return;
        }
        band_keys_lanes(values, self.rows, bands, out);
    }
}

/// Bands keyed side by side in [`LshParams::band_keys_into`].
const KEY_LANES: usize = 8;

/// The key of one band's `rows` values: [`mix64`] chained over them from a per-band start
/// (the reference the side-by-side lanes are tested against).
/// `--exact` keys instead of band keys. Length of the All-Pairs prefix of a set of `size` elements for Jaccard threshold `t`:
/// `size − ⌈t · size⌉ + 1` (at least 1 for a non-empty set, never more than `size`).
pub fn prefix_length(size: usize, t: f64) -> usize {
    if size == 0 {
        return 0;
    }
    let needed = (t * size as f64 - 1e-9).ceil().max(0.0) as usize;
    (size - needed.min(size) + 1).min(size)
}

#[cfg(test)]
fn band_key(band: usize, rows: &[u64]) -> u64 {
    let mut h = band_start(band);
    for &v in rows {
        h = band_step(h, v);
    }
    h
}

#[inline(always)]
fn band_start(band: usize) -> u64 {
    mix64(0x243f_6a88_85a3_08d3 ^ band as u64)
}

#[inline(always)]
fn band_step(h: u64, v: u64) -> u64 {
    mix64(h ^ v).wrapping_add(0x9e37_79b9_7f4a_7c15)
}

/// The keys of bands `0..bands` of `values` (`rows` values each), [`KEY_LANES`] bands at a
/// time; the last group's missing bands are computed on a repeat of its last band and
/// dropped.
#[inline(always)]
fn band_keys_lanes(values: &[u64], rows: usize, bands: usize, out: &mut Vec<u64>) {
    let mut first = 0;
    while first < bands {
        let last = bands - 1;
        let band = |l: usize| (first + l).min(last);
        let mut h: [u64; KEY_LANES] = std::array::from_fn(|l| band_start(first + l));
        for r in 0..rows {
            let v: [u64; KEY_LANES] = std::array::from_fn(|l| values[band(l) * rows + r]);
            for l in 0..KEY_LANES {
                h[l] = band_step(h[l], v[l]);
            }
        }
        out.extend_from_slice(&h[..KEY_LANES.min(bands - first)]);
        first += KEY_LANES;
    }
}

/// [`band_keys_lanes`] compiled for AVX-512, where a 64-bit multiply is one instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn band_keys_avx512(values: &[u64], rows: usize, bands: usize, out: &mut Vec<u64>) {
    band_keys_lanes(values, rows, bands, out);
}

/// Composite Simpson's rule with 512 intervals: the integrands are smooth polynomials.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    if b <= a {
        return 0.0;
    }
    let n = 512;
    let h = (b - a) / n as f64;
    let mut sum = f(a) + f(b);
    for i in 1..n {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(a + i as f64 * h);
    }
    sum * h / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_lengths() {
        // |x| − ⌈t|x|⌉ + 1, clamped to 1..=|x|.
        assert_eq!(prefix_length(10, 0.8), 3);
        assert_eq!(prefix_length(10, 0.5), 6);
        assert_eq!(prefix_length(10, 1.0), 1);
        assert_eq!(prefix_length(10, 0.05), 10);
        assert_eq!(prefix_length(1, 0.9), 1);
        assert_eq!(prefix_length(0, 0.5), 0);
        assert_eq!(prefix_length(5, 0.6), 3);
    }

    #[test]
    fn choices_table() {
        // (threshold, K) → (bands, rows), checked by brute force against the S-curve below.
        let cases = [
            (0.8, 128, 16, 8),
            (0.5, 128, 32, 4),
            (1.0, 128, 1, 128),
            (0.01, 128, 128, 1),
        ];
        for (t, k, b, r) in cases {
            let p = LshParams::from_threshold(t, k);
            assert_eq!((p.bands, p.rows), (b, r), "T={t} K={k}");
        }
    }

    #[test]
    fn choice_minimises_cost_over_all_divisors() {
        for &k in &[60usize, 64, 100, 128, 256] {
            for i in 1..=20 {
                let t = i as f64 / 20.0;
                let chosen = LshParams::from_threshold(t, k);
                assert_eq!(chosen.bands * chosen.rows, k);
                let cost = |p: &LshParams| {
                    FP_WEIGHT * p.false_positive_area(t) + FN_WEIGHT * p.false_negative_area(t)
                };
                for r in (1..=k).filter(|r| k % r == 0) {
                    let other = LshParams {
                        bands: k / r,
                        rows: r,
                    };
                    assert!(cost(&chosen) <= cost(&other) + 1e-12);
                }
            }
        }
    }

    #[test]
    fn s_curve_is_monotone_and_matches_closed_form() {
        let p = LshParams { bands: 16, rows: 8 };
        let mut last = 0.0;
        for i in 0..=100 {
            let s = i as f64 / 100.0;
            let v = p.probability(s);
            assert!(v >= last - 1e-15);
            last = v;
        }
        assert!((p.probability(0.8) - (1.0 - (1.0 - 0.8f64.powi(8)).powi(16))).abs() < 1e-15);
        // Areas sum to the area between the curve and the step function at T.
        let fp = p.false_positive_area(0.8);
        let fneg = p.false_negative_area(0.8);
        assert!(fp > 0.0 && fneg > 0.0 && fp < 0.8 && fneg < 0.2);
    }

    #[test]
    fn recall_at_the_default_threshold_is_high() {
        let p = LshParams::from_threshold(0.8, 128);
        assert!(p.probability(0.85) > 0.99);
        assert!(p.probability(0.3) < 0.01);
    }

    #[test]
    fn band_keys_differ_across_bands_and_values() {
        let p = LshParams { bands: 4, rows: 2 };
        let mut keys = Vec::new();
        p.band_keys_into(&[1, 1, 1, 1, 1, 1, 1, 1], &mut keys);
        assert_eq!(keys.len(), 4);
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 4);
        let mut other = Vec::new();
        p.band_keys_into(&[1, 1, 1, 1, 1, 1, 1, 2], &mut other);
        assert_eq!(&keys[..3], &other[..3]);
        assert_ne!(keys[3], other[3]);
    }

    #[test]
    fn side_by_side_keys_equal_one_band_at_a_time() {
        let mut rng = crate::hash::test_rng(11);
        let values: Vec<u64> = (0..300).map(|_| rng(u64::MAX)).collect();
        for (bands, rows) in [
            (16, 8),
            (32, 4),
            (1, 128),
            (128, 1),
            (3, 5),
            (13, 9),
            (9, 7),
        ] {
            let p = LshParams { bands, rows };
            let expected: Vec<u64> = (0..bands)
                .map(|b| band_key(b, &values[b * rows..(b + 1) * rows]))
                .collect();
            let mut keys = Vec::new();
            p.band_keys_into(&values[..bands * rows], &mut keys);
            assert_eq!(keys, expected, "{bands} x {rows}");
            band_keys_lanes(&values, rows, bands, &mut keys);
            assert_eq!(keys[bands..], expected, "{bands} x {rows}, portable lanes");
            // Fewer values than bands × rows: only the whole bands.
            p.band_keys_into(&values[..bands * rows - 1], &mut keys);
            assert_eq!(keys, expected[..bands - 1], "{bands} x {rows}, short");
        }
    }
}
