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
//! Every candidate is verified exactly, so a false positive costs one comparison while a false
//! negative is a duplicate never seen. [`LshParams::for_recall`] therefore starts from a
//! recall target R (`--recall`, default 0.99) at the threshold itself: among the (b, r) with
//! b·r ≤ K and P(T) ≥ R, it takes the one with the least false-positive area
//!
//! ```text
//! FP(b, r) = ∫₀ᵀ P(s) ds
//! ```
//!
//! (fewest candidates below T; ties: fewer values). Pairs above T are found more often
//! still, so the recall over a corpus's pairs is at least R. For K = 128 this gives 16 × 6 at
//! T = 0.8 (P(0.8) = 0.992; 96 of the 128 values), 35 × 3 at T = 0.5 and 49 × 2 at T = 0.3.
//! When no banding of K values reaches R (small K, T near 0 or 1 with few values), the one
//! with the highest P(T) is used and [`LshParams::reaches`] says so. T = 1.0 gives one band
//! of all K rows (identical signatures only).

use crate::hash::mix64;

/// A signature in brief, for ranking candidates by estimated similarity before any is
/// verified: the low 2 bits of each of the first 128 MinHash values (fewer when K is
/// smaller; the rest zero), 32 bytes a held document. Two documents' values agree with
/// probability J, and two unequal values' low bits agree by chance with probability 1/4, so
/// the agreeing pairs estimate J with a standard error of about 0.04 near J = 0.8: enough to
/// tell a candidate at 0.81 from one at 0.73, which the count of shared bands is not.
pub type Sketch = [u64; 4];

/// Values a [`Sketch`] holds.
pub(crate) const SKETCH_VALUES: usize = 128;

/// The sketch of a signature's values (see [`Sketch`]).
pub(crate) fn sketch_of(values: &[u64]) -> Sketch {
    #[cfg(target_arch = "x86_64")]
    if let Some(whole) = values.first_chunk::<SKETCH_VALUES>()
        && std::arch::is_x86_feature_detected!("avx2")
    {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { sketch_avx2(whole) };
    }
    sketch_generic(values)
}

/// [`sketch_of`] four values at a time: each value's low 2 bits shifted to its place by a
/// per-lane shift (`vpsllvq`), the four lanes or-ed at the end.
///
/// # Safety
/// The CPU must have avx2 (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sketch_avx2(values: &[u64; SKETCH_VALUES]) -> Sketch {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_loadu_si256, _mm256_or_si256, _mm256_set1_epi64x,
        _mm256_setr_epi64x, _mm256_setzero_si256, _mm256_sllv_epi64, _mm256_storeu_si256,
    };
    let mut sketch = [0u64; 4];
    let three = _mm256_set1_epi64x(3);
    for (word, chunk) in sketch.iter_mut().zip(values.as_chunks::<32>().0) {
        let mut acc = _mm256_setzero_si256();
        for (i, quad) in chunk.as_chunks::<4>().0.iter().enumerate() {
            let at = 8 * i as i64;
            // SAFETY: `quad` is four u64, the 32 bytes an unaligned load reads.
            let v = unsafe { _mm256_loadu_si256(quad.as_ptr().cast::<__m256i>()) };
            let shifts = _mm256_setr_epi64x(at, at + 2, at + 4, at + 6);
            acc = _mm256_or_si256(acc, _mm256_sllv_epi64(_mm256_and_si256(v, three), shifts));
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 writable bytes, what an unaligned store writes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast::<__m256i>(), acc) };
        *word = lanes[0] | lanes[1] | lanes[2] | lanes[3];
    }
    sketch
}

/// [`sketch_of`] with no vector instructions (and for fewer than 128 values).
fn sketch_generic(values: &[u64]) -> Sketch {
    let mut sketch = [0u64; 4];
    let values = &values[..values.len().min(SKETCH_VALUES)];
    let (whole, rest) = values.as_chunks::<32>();
    // A whole word's 32 shifts are constants once unrolled, and its values are or-ed in a
    // tree rather than one chain, so the word is built in a few dependent steps.
    for (word, chunk) in sketch.iter_mut().zip(whole) {
        *word = pack(chunk);
    }
    if let Some(word) = sketch.get_mut(whole.len()) {
        *word = rest
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &v)| acc | (v & 3) << (2 * i));
    }
    sketch
}

/// The low 2 bits of 32 values, value `i` at bits `2i` and `2i + 1`.
#[inline]
fn pack(chunk: &[u64; 32]) -> u64 {
    let mut lanes = [0u64; 4];
    for (j, lane) in lanes.iter_mut().enumerate() {
        for i in 0..8 {
            *lane |= (chunk[4 * i + j] & 3) << (8 * i + 2 * j);
        }
    }
    lanes[0] | lanes[1] | lanes[2] | lanes[3]
}

/// How many of two sketches' 2-bit values agree (0 to [`SKETCH_VALUES`]).
#[inline]
pub(crate) fn sketch_agreement(a: &Sketch, b: &Sketch) -> u32 {
    let mut same = 0;
    for i in 0..4 {
        let x = a[i] ^ b[i];
        // A value agrees when both of its bits do: the low bit of each pair of `!(x | x >> 1)`.
        same += (!(x | x >> 1) & 0x5555_5555_5555_5555).count_ones();
    }
    same
}

/// Default recall target: P(candidate | J = T) ≥ 0.99.
pub const DEFAULT_RECALL: f64 = 0.99;

/// Bands and rows per band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LshParams {
    /// Number of bands `b`.
    pub bands: usize,
    /// Rows (signature values) per band `r`.
    pub rows: usize,
}

impl LshParams {
    /// The banding for `threshold` with `num_perm` values (see the module docs): the least
    /// false-positive area among [`LshParams::options`] that reach `recall` at the
    /// threshold, or, when none does, the highest P(T).
    pub fn for_recall(threshold: f64, num_perm: usize, recall: f64) -> LshParams {
        let options = LshParams::options(threshold, num_perm, recall);
        let fp = |p: &LshParams| p.false_positive_area(threshold);
        let cheapest = options
            .iter()
            .filter(|p| p.reaches(threshold, recall))
            .map(|p| (fp(p), p.bands * p.rows, *p))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        match cheapest {
            Some((_, _, p)) => p,
            None => options
                .into_iter()
                .max_by(|a, b| {
                    a.probability(threshold)
                        .total_cmp(&b.probability(threshold))
                        .then(fp(b).total_cmp(&fp(a)))
                })
                .unwrap_or(LshParams {
                    bands: 1,
                    rows: num_perm.max(1),
                }),
        }
    }

    /// For each number of rows r from 1 to `num_perm`: the fewest bands of r rows that
    /// reach `recall` at `threshold` within `num_perm` values, else as many as fit (⌊K/r⌋).
    pub fn options(threshold: f64, num_perm: usize, recall: f64) -> Vec<LshParams> {
        (1..=num_perm)
            .map(|rows| {
                let most = num_perm / rows;
                let bands = LshParams::bands_for(threshold, rows, recall, most);
                LshParams { bands, rows }
            })
            .collect()
    }

    /// The fewest bands of `rows` rows, at most `most`, whose P(`threshold`) ≥ `recall`
    /// (`most` when none is enough). From the closed form b = ln(1 − R) / ln(1 − T^r),
    /// corrected against [`LshParams::probability`] itself so that rounding never decides.
    fn bands_for(threshold: f64, rows: usize, recall: f64, most: usize) -> usize {
        let reaches = |bands| LshParams { bands, rows }.reaches(threshold, recall);
        let estimate = (1.0 - recall).ln() / (1.0 - threshold.powi(rows as i32)).ln();
        if !estimate.is_finite() || estimate >= most as f64 {
            return most;
        }
        let mut bands = (estimate.ceil() as usize).clamp(1, most);
        while bands > 1 && reaches(bands - 1) {
            bands -= 1;
        }
        while bands < most && !reaches(bands) {
            bands += 1;
        }
        bands
    }

    /// Whether P(candidate | J = `threshold`) is at least `recall`.
    pub fn reaches(&self, threshold: f64, recall: f64) -> bool {
        self.probability(threshold) >= recall
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
pub(crate) fn prefix_length(size: usize, t: f64) -> usize {
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
///
/// # Safety
/// The CPU must have avx512f and avx512dq (the caller checks with `is_x86_feature_detected!`).
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

    /// The agreement of two sketches counts equal 2-bit values, and on signatures that agree
    /// in a fraction J of their values it is about 128 · (J + (1 − J) / 4).
    #[test]
    fn sketch_agreement_estimates_similarity() {
        let a: Vec<u64> = (0..128u64).map(|i| mix64(i + 1)).collect();
        assert_eq!(sketch_agreement(&sketch_of(&a), &sketch_of(&a)), 128);
        for agree in [0usize, 64, 102, 128] {
            let b: Vec<u64> = (0..128)
                .map(|i| {
                    if i < agree {
                        a[i]
                    } else {
                        mix64(1000 + i as u64)
                    }
                })
                .collect();
            let same = sketch_agreement(&sketch_of(&a), &sketch_of(&b)) as usize;
            let by_chance = (agree..128).filter(|&i| a[i] & 3 == b[i] & 3).count();
            assert_eq!(same, agree + by_chance);
        }
        // K below 128: the missing values are zero on both sides.
        assert_eq!(
            sketch_agreement(&sketch_of(&a[..10]), &sketch_of(&a[..10])),
            128
        );
        assert_eq!(sketch_of(&[7, 1])[0], 0b01_11);
    }

    /// Value `i`'s low 2 bits sit at bits `2i` of word `i / 32`, whatever K is (whole words
    /// and a partial last one), and values past the 128th are left out.
    #[test]
    fn sketch_bits_are_in_value_order() {
        let a: Vec<u64> = (0..200u64).map(|i| mix64(i ^ 0x5a)).collect();
        for k in [0, 1, 31, 32, 33, 64, 100, 127, 128, 200] {
            let mut expected = [0u64; 4];
            for (i, &v) in a[..k.min(SKETCH_VALUES)].iter().enumerate() {
                expected[i / 32] |= (v & 3) << (2 * (i % 32));
            }
            assert_eq!(sketch_of(&a[..k]), expected, "K = {k}");
            assert_eq!(sketch_generic(&a[..k]), expected, "K = {k}");
        }
    }

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
        // (threshold, K) → (bands, rows), checked by brute force below.
        let cases = [
            (0.8, 128, 16, 6),
            (0.5, 128, 35, 3),
            (0.3, 128, 49, 2),
            (1.0, 128, 1, 128),
        ];
        for (t, k, b, r) in cases {
            let p = LshParams::for_recall(t, k, DEFAULT_RECALL);
            assert_eq!((p.bands, p.rows), (b, r), "T={t} K={k}");
        }
    }

    /// Every T in 0.05 steps, several K: the choice reaches the target within K values and
    /// has the least false-positive area of every (b, r) that does (ties: fewer values).
    #[test]
    fn choice_reaches_the_target_with_the_fewest_false_candidates() {
        for &k in &[64usize, 100, 128] {
            for recall in [0.95, DEFAULT_RECALL, 0.999] {
                for i in 1..=20 {
                    let t = i as f64 / 20.0;
                    let chosen = LshParams::for_recall(t, k, recall);
                    assert!(chosen.bands * chosen.rows <= k);
                    // 64 or 100 one-row bands cannot catch J = 0.05 with 0.99 (at most
                    // 1 − 0.95^100 = 0.994): the unreachable case is tested below.
                    let reachable = (1..=k).any(|r| {
                        LshParams {
                            bands: k / r,
                            rows: r,
                        }
                        .reaches(t, recall)
                    });
                    if !reachable {
                        continue;
                    }
                    assert!(chosen.reaches(t, recall), "T={t} K={k} R={recall}");
                    let fp = chosen.false_positive_area(t);
                    for rows in 1..=k {
                        for bands in 1..=k / rows {
                            let other = LshParams { bands, rows };
                            if other.reaches(t, recall) {
                                let o = other.false_positive_area(t);
                                assert!(fp <= o + 1e-12, "T={t} K={k}: {chosen:?} vs {other:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn an_unreachable_target_gets_the_highest_probability() {
        // 16 values cannot catch J = 0.05 with probability 0.99: all 16 one-row bands give
        // 1 − 0.95^16 ≈ 0.56, the most there is.
        let p = LshParams::for_recall(0.05, 16, DEFAULT_RECALL);
        assert_eq!((p.bands, p.rows), (16, 1));
        assert!(!p.reaches(0.05, DEFAULT_RECALL));
        for r in 1..=16 {
            let other = LshParams {
                bands: 16 / r,
                rows: r,
            };
            assert!(other.probability(0.05) <= p.probability(0.05));
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
        let p = LshParams::for_recall(0.8, 128, DEFAULT_RECALL);
        assert!(p.probability(0.8) >= 0.99);
        assert!(p.probability(0.3) < 0.02);
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
