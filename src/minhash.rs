//! MinHash signatures with SuperMinHash (Ertl 2017).
//!
//! O. Ertl, "SuperMinHash – A New Minwise Hashing Algorithm for Jaccard Similarity
//! Estimation", arXiv:1706.05698 (2017).
//!
//! # Why SuperMinHash
//! Classic MinHash hashes every shingle K times (O(nK)). Each shingle here is hashed once (its
//! xxh3 value seeds a small PRNG) and the K values are derived from that. Among the cheap
//! schemes we considered:
//! - one-permutation hashing with optimal densification (Shrivastava 2017) costs O(n + K) but
//!   its K values are correlated when a document has fewer shingles than K (empty bins are
//!   filled by copying), so the estimator's variance rises above J(1−J)/K for short texts;
//! - SuperMinHash correlates the K values *negatively* by drawing, for each shingle, a random
//!   permutation of the K slots (lazy Fisher–Yates) and offsetting the j-th draw by j. Its
//!   variance is at most J(1−J)/K for every set size, and with early termination (stop a
//!   shingle once no slot can still be improved) the expected cost is O(n + K log² K).
//!
//! The unit tests check that the estimate is unbiased and that its variance stays at or below
//! J(1−J)/K, the variance of K independent permutations. `scripts/bench.sh` measures the cost;
//! the README gives the figures.
//!
//! Values are kept as fixed-point numbers `(j << 32) | r`, where `j` is the slot rank and `r`
//! a 32-bit uniform fraction, so comparisons are integer comparisons and equal values mean
//! the same shingle won the slot.

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

/// Computes SuperMinHash signatures. Holds scratch space: keep one per thread.
#[derive(Clone, Debug)]
pub struct Signer {
    k: usize,
    h: Vec<u64>,
    p: Vec<u32>,
    q: Vec<u32>,
    b: Vec<u32>,
}

impl Signer {
    /// A signer producing `k` values per signature (`k` ≥ 1).
    pub fn new(k: usize) -> Signer {
        assert!(k >= 1 && k <= u32::MAX as usize);
        Signer {
            k,
            h: vec![0; k],
            p: vec![0; k],
            q: vec![0; k],
            b: vec![0; k],
        }
    }

    /// Number of values per signature.
    pub fn num_perm(&self) -> usize {
        self.k
    }

    /// Signs a set given as distinct element hashes (any order). The result depends only on
    /// the set: the element hashes seed the per-element random streams.
    pub fn sign(&mut self, elements: &[u64]) -> Signature {
        let mut out = vec![0u64; self.k];
        self.sign_into(elements, &mut out);
        Signature(out)
    }

    /// Like [`Signer::sign`], writing the `k` values into `out`.
    pub fn sign_into(&mut self, elements: &[u64], out: &mut [u64]) {
        let m = self.k;
        assert_eq!(out.len(), m);
        let h = &mut self.h;
        let p = &mut self.p;
        let q = &mut self.q;
        let b = &mut self.b;
        h.fill(u64::MAX);
        q.fill(u32::MAX);
        b.fill(0);
        b[m - 1] = m as u32;
        let mut a = m - 1;
        for (i, &d) in elements.iter().enumerate() {
            let i = i as u32;
            let mut rng = WyRand::new(d);
            let mut j = 0usize;
            while j <= a {
                let x = rng.next();
                let r = x & 0xffff_ffff;
                // Uniform k in [j, m) by multiply-shift (Lemire); the bias is below 2^-32·m.
                let k = j + (((x >> 32) * (m - j) as u64) >> 32) as usize;
                if q[j] != i {
                    q[j] = i;
                    p[j] = j as u32;
                }
                if q[k] != i {
                    q[k] = i;
                    p[k] = k as u32;
                }
                p.swap(j, k);
                let slot = p[j] as usize;
                let value = ((j as u64) << 32) | r;
                if value < h[slot] {
                    let old_rank = ((h[slot] >> 32) as usize).min(m - 1);
                    h[slot] = value;
                    if j < old_rank {
                        b[old_rank] -= 1;
                        b[j] += 1;
                        while b[a] == 0 {
                            a -= 1;
                        }
                    }
                }
                j += 1;
            }
        }
        out.copy_from_slice(h);
    }
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

/// Classic MinHash with K independent hash functions (O(nK)): the reference the tests and the
/// benchmark compare SuperMinHash against.
pub fn classic_minhash(elements: &[u64], k: usize, seed: u64) -> Signature {
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

/// murmur3's 64-bit finaliser.
fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn identical_sets_identical_signatures() {
        let (a, _, _) = pair(50, 0, 1);
        let mut s = Signer::new(128);
        let mut rev = a.clone();
        rev.reverse();
        assert_eq!(s.sign(&a), s.sign(&rev));
        assert_eq!(s.sign(&a).estimate(&s.sign(&a)), 1.0);
    }

    #[test]
    fn disjoint_sets_rarely_agree() {
        let (a, b, _) = pair(0, 100, 2);
        let mut s = Signer::new(128);
        assert!(s.sign(&a).estimate(&s.sign(&b)) <= 0.05);
    }

    #[test]
    fn values_are_in_range() {
        let (a, _, _) = pair(3, 0, 3);
        let sig = Signer::new(64).sign(&a);
        assert!(sig.0.iter().all(|&v| (v >> 32) < 64));
    }

    /// Mean and variance of the estimate over many independent random set pairs, against
    /// theory: mean J, variance at most J(1−J)/K (independent permutations); the bounds allow
    /// for sampling error of the trials (4 standard errors), not tuned to pass.
    fn check_estimator(k: usize, shared: usize, only: usize, trials: usize) {
        let mut signer = Signer::new(k);
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
        let mut signer = Signer::new(128);
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
        // must be (nearly) independent; SuperMinHash makes them slightly negatively correlated.
        let mut signer = Signer::new(64);
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
}
