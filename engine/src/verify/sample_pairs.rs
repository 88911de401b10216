//! The exact Jaccard of every pair of a sample, binned: the similarity distribution that
//! `hist` draws and `tune` weighs a banding against. Quadratic in the sample, so it is only
//! run on a bounded reservoir sample (the corpus reader's reservoir), on all cores.

use crate::corpus::Sampled;
use crate::text::shingle::Shingler;
use crate::verify::{Fingerprint, jaccard, shingle_set};

/// The bin of similarity `j` among `bins` bins per unit (J = 1 is bin `bins`).
pub fn bin(j: f64, bins: usize) -> usize {
    ((j * bins as f64 + 1e-9).floor() as usize).min(bins)
}

/// Exact Jaccard of every pair of `docs` under `shingler`'s shingles, counted in `bins`
/// bins per unit (`bins` + 1 counts), on `threads` threads.
pub fn pair_counts(shingler: &Shingler, docs: &[Sampled], bins: usize, threads: usize) -> Vec<u64> {
    let sets: Vec<Vec<Fingerprint>> = docs
        .iter()
        .map(|d| shingle_set(shingler, &d.normalized))
        .collect();
    let threads = threads.max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let sets = &sets;
                crate::guard::spawn_scoped(scope, "neardup-sample", move || {
                    let mut counts = vec![0u64; bins + 1];
                    for j in (t..sets.len()).step_by(threads) {
                        for i in 0..j {
                            counts[bin(jaccard(&sets[i], &sets[j]), bins)] += 1;
                        }
                    }
                    counts
                })
            })
            .collect();
        let mut total = vec![0u64; bins + 1];
        for h in handles {
            for (a, b) in total
                .iter_mut()
                .zip(h.join().expect("a hist thread panicked"))
            {
                *a += b;
            }
        }
        total
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::DocId;
    use crate::text::normalize::{Normalized, Normalizer};
    use crate::text::shingle::ShingleKind;

    fn doc(text: &str) -> Sampled {
        let mut normalized = Normalized::default();
        Normalizer::default().normalize_into(text, &mut normalized);
        Sampled {
            line: 0,
            id: DocId::Line(0),
            normalized,
        }
    }

    #[test]
    fn bins_hold_their_lower_edge_and_one_is_the_last() {
        assert_eq!(bin(0.0, 100), 0);
        assert_eq!(bin(0.8, 100), 80);
        assert_eq!(bin(0.799_999, 100), 79);
        assert_eq!(bin(1.0, 100), 100);
        assert_eq!(bin(1.5, 100), 100);
    }

    #[test]
    fn every_pair_is_counted_once_on_any_thread_count() {
        let docs: Vec<Sampled> = ["a b c d", "a b c d", "a b x y", "p q r s", "a b c q"]
            .iter()
            .map(|t| doc(t))
            .collect();
        let words = Shingler::new(ShingleKind::Words(1), false, 7);
        let one = pair_counts(&words, &docs, 10, 1);
        assert_eq!(one.iter().sum::<u64>(), 10, "5 documents, 10 pairs");
        assert_eq!(one[10], 1, "one identical pair");
        for threads in [2, 4, 7] {
            let many = pair_counts(&words, &docs, 10, threads);
            assert_eq!(one, many, "{threads} threads");
        }
    }
}
