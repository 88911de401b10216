//! MinHash signatures: K strongly universal hash lanes, vectorised.
//!
//! Each shingle is hashed once (seeded xxh3, in [`crate::text::shingle`]); the K MinHash values are
//! then derived from the top 32 bits `x` of that hash with K multiply-add-shift functions
//!
//! ```text
//! h_k(x) = ((a_k · x + b_k) mod 2^64) >> 32        a_k, b_k: 64-bit, drawn from the seed
//! ```
//!
//! the strongly universal (pairwise independent) family for 32-bit keys of Dietzfelbinger,
//! "Universal hashing and k-wise independent random variables via integer arithmetic without
//! primes" (STACS 1996). The loop over the K lanes has no branches and is chosen at run time:
//! with AVX-512 one 64 × 64-bit multiply (`vpmullq`), an add and an unsigned 64-bit minimum
//! (`vpminuq`) per lane and shingle; with AVX2 (no 64-bit multiply or minimum) `a_k · x mod
//! 2^64` comes from two 32 × 32 → 64-bit products (`vpmuludq`); a portable fallback otherwise.
//! All give the same minima (the per-instruction-set timings are in docs/performance.md).
//!
//! # Why this scheme
//! We implemented and measured three candidates (docs/performance.md has the figures):
//! - SuperMinHash (Ertl 2017, arXiv:1706.05698): its variance is at most J(1−J)/K, but its
//!   expected cost O(n + K log² K) is dominated by the K log² K term for documents of a few
//!   hundred shingles, which is what text documents are: several times slower;
//! - multiply-shift on the full 64-bit hash (64 × 64-bit products, which AVX2 must emulate
//!   with three `vpmuludq`): slower than 32-bit keys for no gain in accuracy;
//! - these lanes, with the estimator's measured variance equal to J(1−J)/K within sampling
//!   error at every set size tried (15 to 800 elements).
//!
//! One-permutation hashing with optimal densification (Shrivastava 2017) would be cheaper
//! still, but its values are correlated when a document has fewer shingles than K (empty bins
//! are filled by copying), which raises the variance above J(1−J)/K for short texts; we did
//! not take it. A first attempt with 32-bit multipliers and no wrap-around is a warning: the
//! lanes become monotone in `x`, all pick the same minimum, and the measured variance was 25×
//! the theory. The unit tests below would catch that. Keeping the minima as 64-bit values was
//! much slower (AVX2 has no unsigned 64-bit minimum).
//!
//! The minimum of each lane is kept as 32 bits: two different shingles win the same lane
//! with equal values with probability 2^-32, far below the estimator's own error; so do
//! two distinct shingles with the same top 32 hash bits.

/// A MinHash signature: K values; equal values at a position mean the same shingle won.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature(pub Vec<u64>);

impl Signature {
    /// Fraction of positions where the two signatures agree: an unbiased estimate of the
    /// Jaccard similarity of the two shingle sets.
    pub fn estimate(&self, other: &Signature) -> f64 {
        estimate(&self.0, &other.0)
    }
}

/// Fraction of equal positions of two equally long value slices (0 for empty slices).
pub fn estimate<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if a.is_empty() {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / a.len() as f64
}

/// Computes MinHash signatures with K multiply-shift hash lanes. Keep one per thread.
#[derive(Clone, Debug)]
pub struct Signer {
    a: Vec<u64>,
    b: Vec<u64>,
    mins: Vec<u32>,
}

impl Signer {
    /// A signer producing `k` values per signature, its lanes drawn from `seed`.
    pub fn new(k: usize, seed: u64) -> Signer {
        let mut rng = WyRand::new(seed ^ 0x4c41_4e45);
        let a = (0..k).map(|_| rng.next() | 1).collect();
        let b = (0..k).map(|_| rng.next()).collect();
        Signer {
            a,
            b,
            mins: vec![u32::MAX; k],
        }
    }

    /// Number of values per signature.
    pub fn num_perm(&self) -> usize {
        self.a.len()
    }

    /// Signs a set given as distinct element hashes (any order).
    pub fn sign(&mut self, elements: &[u64]) -> Signature {
        let mut out = vec![0u64; self.a.len()];
        self.sign_into(elements, &mut out);
        Signature(out)
    }

    /// Signs a set of element hashes into `out` (`k` values). An empty set gives all
    /// `u32::MAX`.
    pub fn sign_into(&mut self, elements: &[u64], out: &mut [u64]) {
        self.mins.fill(u32::MAX);
        lanes(&self.a, &self.b, elements, &mut self.mins);
        for (o, &m) in out.iter_mut().zip(&self.mins) {
            *o = m as u64;
        }
    }
}

impl Signer {
    /// Weighted MinHash of a set whose elements carry positive weights, given as groups of
    /// elements sharing one weight: `(weight, elements)`. Lane k picks the element minimising
    /// `E_k(e) / w(e)` with `E_k(e) = −ln(1 − U_k(e))` exponential, `U_k(e)` the lane's
    /// uniform value; two sets agree on a lane with probability Σ_{A∩B} w / Σ_{A∪B} w (see
    /// [`crate::sketch::weights`]). Each value identifies the winning element (its lane value and
    /// weight), as in the unweighted signature. Groups with weight ≤ 0 or not finite must not
    /// be passed (the caller drops them).
    ///
    /// Cost: one vectorised pass of the lanes over every element (as [`Signer::sign_into`]),
    /// plus per group and lane a multiply-compare; the logarithm is taken only when the
    /// cheap bound `p < best · w` (from `−ln(1 − p) ≥ p`) lets the group win, about K·(1 + ln
    /// groups) times per document.
    pub fn sign_weighted_into(&mut self, groups: &[(f64, &[u64])], out: &mut [u64]) {
        let k = self.a.len();
        let mut best = vec![f64::INFINITY; k];
        out.fill(u64::MAX);
        for &(w, elements) in groups {
            debug_assert!(w > 0.0 && w.is_finite());
            if elements.is_empty() {
                continue;
            }
            self.mins.fill(u32::MAX);
            lanes(&self.a, &self.b, elements, &mut self.mins);
            let weight_key = crate::hash::mix64(w.to_bits());
            for lane in 0..k {
                let m = self.mins[lane];
                let p = (m as f64 + 0.5) * (1.0 / 4_294_967_296.0);
                if p >= best[lane] * w {
                    continue;
                }
                let value = neg_ln_1m(p) / w;
                if value < best[lane] {
                    best[lane] = value;
                    out[lane] = crate::hash::mix64(m as u64 ^ weight_key);
                }
            }
        }
    }
}

/// `−ln(1 − p)` for p in (0, 1): the unit exponential of a uniform lane value. Small p (the
/// usual case: a lane's minimum over many elements) takes the series p + p²/2 + … + p¹⁰/10,
/// whose truncation error below 2^-6 is under 2^-66 relative: well within f64 rounding.
#[inline]
fn neg_ln_1m(p: f64) -> f64 {
    if p < 1.0 / 64.0 {
        let mut acc: f64 = 1.0 / 10.0;
        for k in (1..10).rev() {
            acc = acc * p + 1.0 / k as f64;
        }
        acc * p
    } else {
        -(-p).ln_1p()
    }
}

/// One lane: `((a · x + b) mod 2^64) >> 32` for a 32-bit key `x`, from two 32 × 32-bit products.
#[inline(always)]
fn lane(a: u64, b: u64, x: u64) -> u32 {
    let lo = (a as u32 as u64) * x;
    let hi = ((a >> 32) as u32 as u64).wrapping_mul(x) << 32;
    (lo.wrapping_add(hi).wrapping_add(b) >> 32) as u32
}

#[inline(always)]
fn lanes_generic(a: &[u64], b: &[u64], elements: &[u64], mins: &mut [u32]) {
    // Four elements per pass over the lanes: each lane's constants and running minimum are
    // loaded and stored once for four keys.
    let mut quads = elements.chunks_exact(4);
    for q in &mut quads {
        let (x0, x1, x2, x3) = (q[0] >> 32, q[1] >> 32, q[2] >> 32, q[3] >> 32);
        for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
            let v = lane(a, b, x0)
                .min(lane(a, b, x1))
                .min(lane(a, b, x2))
                .min(lane(a, b, x3));
            *m = (*m).min(v);
        }
    }
    for &e in quads.remainder() {
        let x = e >> 32;
        for ((m, &a), &b) in mins.iter_mut().zip(a).zip(b) {
            *m = (*m).min(lane(a, b, x));
        }
    }
}

/// [`lanes`] with AVX2.
///
/// # Safety
/// The CPU must have avx2 (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2(a: &[u64], b: &[u64], elements: &[u64], mins: &mut [u32]) {
    lanes_generic(a, b, elements, mins)
}

/// The lanes for AVX-512 (F, DQ, VL, BW), which has a 64 × 64-bit multiply (`vpmullq`) and
/// an unsigned 64-bit minimum (`vpminuq`): for a 32-bit key, `a · x mod 2^64` is the same
/// product the two 32-bit halves give, and the minimum of `(a · x + b) >> 32` is the minimum
/// of `a · x + b` shifted, so each lane costs a multiply, an add and a minimum per element.
/// The lanes go in groups of [`WIDE`] whose constants and minima stay in registers while
/// every element passes; the last group takes the rest.
///
/// # Safety
/// The CPU must have avx512f, avx512dq, avx512vl and avx512bw
/// (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
unsafe fn lanes_avx512(a: &[u64], b: &[u64], elements: &[u64], mins: &mut [u32]) {
    let mut a_groups = a.chunks_exact(WIDE);
    let mut b_groups = b.chunks_exact(WIDE);
    let mut m_groups = mins.chunks_exact_mut(WIDE);
    for ((ag, bg), mg) in (&mut a_groups).zip(&mut b_groups).zip(&mut m_groups) {
        let ag: &[u64; WIDE] = ag.try_into().expect("a group of WIDE lanes");
        let bg: &[u64; WIDE] = bg.try_into().expect("a group of WIDE lanes");
        let mut low = [u64::MAX; WIDE];
        for &e in elements {
            let x = e >> 32;
            for l in 0..WIDE {
                low[l] = low[l].min(ag[l].wrapping_mul(x).wrapping_add(bg[l]));
            }
        }
        for (m, v) in mg.iter_mut().zip(low) {
            *m = (*m).min((v >> 32) as u32);
        }
    }
    lanes_generic(
        a_groups.remainder(),
        b_groups.remainder(),
        elements,
        m_groups.into_remainder(),
    );
}

/// Lanes per group in [`lanes_avx512`]: four 512-bit registers each of constants a, b and
/// running minima.
#[cfg(target_arch = "x86_64")]
const WIDE: usize = 32;

/// The lanes with the widest vectors this CPU has (detected once per call; the check is a
/// cached load).
#[inline]
fn lanes(a: &[u64], b: &[u64], elements: &[u64], mins: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512bw")
        {
            // SAFETY: the CPU supports these features, checked just above.
            return unsafe { lanes_avx512(a, b, elements, mins) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { lanes_avx2(a, b, elements, mins) };
        }
    }
    lanes_generic(a, b, elements, mins)
}

/// wyrand (Wang Yi): a tiny PRNG with 64-bit state and good statistical quality, seeded by the
/// element hash.
struct WyRand(u64);

impl WyRand {
    #[inline]
    fn new(seed: u64) -> WyRand {
        WyRand(seed)
    }

    #[inline]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) as u64) ^ (t as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    /// Classic MinHash with K independent hash functions (O(nK)): the reference the lanes are
    /// compared with.
    fn classic_minhash(elements: &[u64], k: usize, seed: u64) -> Signature {
        let mut out = vec![u64::MAX; k];
        for &e in elements {
            for (i, slot) in out.iter_mut().enumerate() {
                let v = mix64(e ^ mix64(seed.wrapping_add(i as u64)));
                if v < *slot {
                    *slot = v;
                }
            }
        }
        Signature(out)
    }

    /// Two sets with |A∩B| = shared and |A∖B| = |B∖A| = only, drawn from a seeded stream.
    fn pair(shared: usize, only: usize, seed: u64) -> (Vec<u64>, Vec<u64>, f64) {
        let mut rng = WyRand::new(seed);
        let common: Vec<u64> = (0..shared).map(|_| rng.next()).collect();
        let mut a = common.clone();
        let mut b = common;
        a.extend((0..only).map(|_| rng.next()));
        b.extend((0..only).map(|_| rng.next()));
        let j = shared as f64 / (shared + 2 * only) as f64;
        (a, b, j)
    }

    #[test]
    fn every_instruction_set_gives_the_same_minima() {
        let mut rng = WyRand::new(3);
        for k in [128usize, 100, 7, 64] {
            let signer = Signer::new(k, 9);
            for n in [0usize, 1, 3, 4, 5, 17, 200] {
                let elements: Vec<u64> = (0..n).map(|_| rng.next()).collect();
                let mut generic = vec![u32::MAX; k];
                lanes_generic(&signer.a, &signer.b, &elements, &mut generic);
                let mut dispatched = vec![u32::MAX; k];
                lanes(&signer.a, &signer.b, &elements, &mut dispatched);
                assert_eq!(generic, dispatched, "k = {k}, n = {n}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut avx2 = vec![u32::MAX; k];
                    // SAFETY: AVX2 is available (checked).
                    unsafe { lanes_avx2(&signer.a, &signer.b, &elements, &mut avx2) };
                    assert_eq!(generic, avx2, "k = {k}, n = {n}");
                }
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                {
                    let mut wide = vec![u32::MAX; k];
                    // SAFETY: the AVX-512 subsets are available (checked).
                    unsafe { lanes_avx512(&signer.a, &signer.b, &elements, &mut wide) };
                    assert_eq!(generic, wide, "k = {k}, n = {n}");
                }
            }
        }
    }

    #[test]
    fn identical_sets_identical_signatures() {
        let (a, _, _) = pair(50, 0, 1);
        let mut s = Signer::new(128, 1);
        let mut rev = a.clone();
        rev.reverse();
        assert_eq!(s.sign(&a), s.sign(&rev));
        assert_eq!(s.sign(&a).estimate(&s.sign(&a)), 1.0);
    }

    #[test]
    fn disjoint_sets_rarely_agree() {
        let (a, b, _) = pair(0, 100, 2);
        let mut s = Signer::new(128, 1);
        assert!(s.sign(&a).estimate(&s.sign(&b)) <= 0.05);
    }

    #[test]
    fn values_fit_32_bits_and_depend_on_the_seed() {
        let (a, _, _) = pair(30, 0, 3);
        let sig = Signer::new(64, 1).sign(&a);
        assert!(sig.0.iter().all(|&v| v <= u32::MAX as u64));
        assert_ne!(sig, Signer::new(64, 2).sign(&a));
    }

    /// Mean and variance of the estimate over many independent random set pairs, against
    /// theory: mean J, variance at most J(1−J)/K (independent permutations); the bounds allow
    /// for sampling error of the trials (4 standard errors), not tuned to pass.
    fn check_estimator(k: usize, shared: usize, only: usize, trials: usize) {
        let mut signer = Signer::new(k, 1);
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        let mut j = 0.0;
        for t in 0..trials {
            let (a, b, jj) = pair(shared, only, 1000 + t as u64);
            j = jj;
            let e = signer.sign(&a).estimate(&signer.sign(&b));
            sum += e;
            sum_sq += e * e;
        }
        let n = trials as f64;
        let mean = sum / n;
        let var = (sum_sq / n - mean * mean) * n / (n - 1.0);
        let theory = j * (1.0 - j) / k as f64;
        let se_mean = (theory / n).sqrt();
        assert!(
            (mean - j).abs() <= 4.0 * se_mean + 1e-12,
            "K={k} n={} J={j:.3}: mean {mean:.4} too far from J (se {se_mean:.4})",
            shared + 2 * only
        );
        // The sample variance of n draws has relative standard error about sqrt(2/(n-1)).
        let slack = 1.0 + 4.0 * (2.0 / (n - 1.0)).sqrt();
        assert!(
            var <= theory * slack,
            "K={k} n={} J={j:.3}: variance {var:.6} above J(1-J)/K = {theory:.6}",
            shared + 2 * only
        );
    }

    #[test]
    fn estimator_unbiased_with_variance_at_most_independent_minhash() {
        // Small sets (fewer elements than K), medium and large, at several similarities.
        for &(shared, only) in &[(5, 5), (20, 10), (60, 20), (100, 50), (300, 30), (400, 200)] {
            check_estimator(128, shared, only, 1500);
        }
        check_estimator(32, 50, 25, 1500);
    }

    #[test]
    fn classic_reference_agrees_in_expectation() {
        let mut diff = 0.0;
        let mut signer = Signer::new(128, 1);
        for t in 0..200 {
            let (a, b, _) = pair(80, 40, 7000 + t);
            let e1 = signer.sign(&a).estimate(&signer.sign(&b));
            let e2 = classic_minhash(&a, 128, 9).estimate(&classic_minhash(&b, 128, 9));
            diff += e1 - e2;
        }
        assert!((diff / 200.0).abs() < 0.02);
    }

    #[test]
    fn positions_are_not_correlated_with_each_other() {
        // If two slots were copies of each other (as with densification), agreement at slot 0
        // would predict agreement at slot 1. Over many pairs with J = 0.5, the two indicators
        // must be (nearly) independent.
        let mut signer = Signer::new(64, 1);
        let (mut both, mut first, mut second) = (0.0, 0.0, 0.0);
        let trials = 4000;
        for t in 0..trials {
            let (a, b, _) = pair(30, 15, 50_000 + t);
            let (sa, sb) = (signer.sign(&a), signer.sign(&b));
            let x = (sa.0[0] == sb.0[0]) as u8 as f64;
            let y = (sa.0[1] == sb.0[1]) as u8 as f64;
            both += x * y;
            first += x;
            second += y;
        }
        let n = trials as f64;
        let cov = both / n - (first / n) * (second / n);
        assert!(cov < 0.03, "covariance between slots {cov}");
    }

    /// A weighted set as (weight, elements) groups.
    type Groups = Vec<(f64, Vec<u64>)>;

    /// Weighted set pair: shared elements and elements only in A / only in B, each with a
    /// weight drawn from a few IDF-like values (elements keep their weight in both sets).
    /// Returns the sets as weight groups and the exact weighted Jaccard.
    fn weighted_pair(shared: usize, only: usize, seed: u64) -> (Groups, Groups, f64) {
        const WEIGHTS: [f64; 5] = [1.0, 1.5, 2.75, 6.0, 11.25];
        let mut rng = WyRand::new(seed);
        let mut draw = |n: usize| -> Vec<(u64, f64)> {
            (0..n)
                .map(|_| (rng.next(), WEIGHTS[(rng.next() % 5) as usize]))
                .collect()
        };
        let (common, only_a, only_b) = (draw(shared), draw(only), draw(only));
        let group = |parts: &[&Vec<(u64, f64)>]| -> Vec<(f64, Vec<u64>)> {
            WEIGHTS
                .iter()
                .map(|&w| {
                    let elems = parts
                        .iter()
                        .flat_map(|p| p.iter())
                        .filter(|e| e.1 == w)
                        .map(|e| e.0)
                        .collect();
                    (w, elems)
                })
                .collect()
        };
        let sum = |v: &Vec<(u64, f64)>| v.iter().map(|e| e.1).sum::<f64>();
        let j = sum(&common) / (sum(&common) + sum(&only_a) + sum(&only_b));
        (group(&[&common, &only_a]), group(&[&common, &only_b]), j)
    }

    fn sign_groups(signer: &mut Signer, groups: &[(f64, Vec<u64>)]) -> Signature {
        let borrowed: Vec<(f64, &[u64])> = groups.iter().map(|(w, e)| (*w, &e[..])).collect();
        let mut out = vec![0u64; signer.num_perm()];
        signer.sign_weighted_into(&borrowed, &mut out);
        Signature(out)
    }

    #[test]
    fn weighted_estimator_is_unbiased_with_minhash_variance() {
        for &(shared, only) in &[(10, 10), (60, 20), (200, 40), (300, 300)] {
            let (k, trials) = (128, 1500);
            let mut signer = Signer::new(k, 3);
            let (mut sum, mut sum_sq, mut j_sum) = (0.0, 0.0, 0.0);
            let mut errors = Vec::with_capacity(trials);
            for t in 0..trials {
                let (a, b, j) = weighted_pair(shared, only, 90_000 + t as u64);
                let e = sign_groups(&mut signer, &a).estimate(&sign_groups(&mut signer, &b));
                sum += e - j;
                sum_sq += (e - j) * (e - j);
                j_sum += j * (1.0 - j);
                errors.push(e - j);
            }
            let n = trials as f64;
            let bias = sum / n;
            let mse = sum_sq / n;
            let theory = j_sum / n / k as f64;
            let se = (theory / n).sqrt();
            assert!(
                bias.abs() <= 4.0 * se,
                "{shared}/{only}: bias {bias:.5}, se {se:.5}"
            );
            let slack = 1.0 + 4.0 * (2.0 / (n - 1.0)).sqrt();
            assert!(
                mse <= theory * slack && mse >= theory / slack,
                "{shared}/{only}: error variance {mse:.6} vs J(1-J)/K {theory:.6}"
            );
        }
    }

    #[test]
    fn weighted_signatures_are_consistent_and_scale_free() {
        let (a, b, _) = weighted_pair(80, 30, 5);
        let mut signer = Signer::new(128, 9);
        assert_eq!(sign_groups(&mut signer, &a), sign_groups(&mut signer, &a));
        assert_eq!(
            sign_groups(&mut signer, &a),
            sign_groups(&mut Signer::new(128, 9), &a)
        );
        // Scaling every weight by the same factor changes no lane's winner, so the estimate
        // is unchanged (the weighted Jaccard is scale-free).
        let scale = |g: &[(f64, Vec<u64>)]| -> Vec<(f64, Vec<u64>)> {
            g.iter().map(|(w, e)| (w * 3.5, e.clone())).collect()
        };
        let plain = sign_groups(&mut signer, &a).estimate(&sign_groups(&mut signer, &b));
        let scaled =
            sign_groups(&mut signer, &scale(&a)).estimate(&sign_groups(&mut signer, &scale(&b)));
        assert_eq!(plain, scaled);
    }

    #[test]
    fn equal_weights_give_the_set_signature_winners() {
        // One weight group: each lane's winner is the set MinHash winner, so the two
        // estimators agree on every pair.
        let mut signer = Signer::new(128, 4);
        for t in 0..50 {
            let (a, b, _) = pair(40, 20, 300 + t);
            let set = signer.sign(&a).estimate(&signer.sign(&b));
            let weighted = sign_groups(&mut signer, &[(2.5, a.clone())])
                .estimate(&sign_groups(&mut signer, &[(2.5, b.clone())]));
            assert_eq!(set, weighted);
        }
    }

    #[test]
    fn exponential_transform_is_accurate() {
        for i in 1..2000 {
            let p = i as f64 / 2000.0 * 0.05;
            let exact = -(-p).ln_1p();
            assert!((neg_ln_1m(p) - exact).abs() <= exact * 1e-14, "{p}");
        }
    }
}
