//! Cost of signing per document at K = 128, word 5-grams, on the bundled Reuters sample:
//! set MinHash, tf (bag elements), tf-idf (weight groups + exponential race, including the
//! weighing), and ICWS (Ioffe 2010) on the same tf-idf weights as the textbook alternative.
//!
//! `cargo run --release --example sign_cost` (prints µs per document; not a test).

use neardup::config::ShingleKind;
use neardup::hash::mix64;
use neardup::sketch::minhash::Signer;
use neardup::sketch::weights::{DfCounter, Weigher};
use neardup::text::normalize::{Normalized, Normalizer};
use neardup::text::shingle::Shingler;
use std::time::Instant;

const K: usize = 128;
const SEED: u64 = 1;

/// ICWS: for every element and lane, r, c ~ Gamma(2, 1) and beta ~ U(0, 1) from a hash;
/// t = floor(ln w / r + beta), y = exp(r (t - beta)), a = c / (y e^r); the lane keeps the
/// element of least a.
fn icws(elements: &[(u64, f64)], out: &mut [(f64, u64)]) {
    let unit = |h: u64| ((h >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64);
    out.fill((f64::INFINITY, 0));
    for &(e, w) in elements {
        let lw = w.ln();
        for (k, slot) in out.iter_mut().enumerate() {
            let h = mix64(e ^ mix64(k as u64 + 1));
            let (h1, h2, h3, h4, h5) = (h, mix64(h), mix64(h ^ 1), mix64(h ^ 2), mix64(h ^ 3));
            let r = -(unit(h1) * unit(h2)).ln();
            let c = -(unit(h3) * unit(h4)).ln();
            let beta = unit(h5);
            let t = (lw / r + beta).floor();
            let y = (r * (t - beta)).exp();
            let a = c / (y * r.exp());
            if a < slot.0 {
                *slot = (a, e ^ (t as i64 as u64));
            }
        }
    }
}

fn main() {
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reuters-sample.jsonl"
    ))
    .expect("read the sample");
    let texts: Vec<String> = data
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            v["text"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    let normalizer = Normalizer::default();
    let docs: Vec<Normalized> = texts
        .iter()
        .map(|t| {
            let mut n = Normalized::default();
            normalizer.normalize_into(t, &mut n);
            n
        })
        .filter(|n| !n.is_empty())
        .collect();
    let set = Shingler::new(ShingleKind::Words(5), false, SEED);
    let bag = Shingler::new(ShingleKind::Words(5), true, SEED);
    let mut counter = DfCounter::default();
    let mut buf = Vec::new();
    for d in &docs {
        set.shingles_into(d, &mut buf);
        counter.add(&buf);
    }
    let table = counter.finish(usize::MAX, String::new());
    let set_elems: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            set.shingles_into(d, &mut v);
            v
        })
        .collect();
    let bag_elems: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            bag.shingles_into(d, &mut v);
            v
        })
        .collect();
    let shingles: usize = set_elems.iter().map(Vec::len).sum();
    println!(
        "{} documents, {:.0} distinct shingles each on average, K = {K}",
        docs.len(),
        shingles as f64 / docs.len() as f64
    );
    let mut signer = Signer::new(K, SEED);
    let mut out = vec![0u64; K];
    let rounds = 30;
    let time = |name: &str, f: &mut dyn FnMut()| {
        f();
        let start = Instant::now();
        for _ in 0..rounds {
            f();
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / (rounds * docs.len()) as f64;
        println!("{name:<40} {us:8.2} µs/doc");
        us
    };
    let mut scratch = Vec::new();
    let base = time("set (shingle + sign)", &mut || {
        for d in &docs {
            set.shingles_into(d, &mut scratch);
            signer.sign_into(&scratch, &mut out);
        }
    });
    time("set (sign only)", &mut || {
        for e in &set_elems {
            signer.sign_into(e, &mut out);
        }
    });
    time("tf = bag (sign only)", &mut || {
        for e in &bag_elems {
            signer.sign_into(e, &mut out);
        }
    });
    let mut weigher = Weigher::default();
    time("tf-idf (weigh only)", &mut || {
        for d in &docs {
            weigher.weigh(&bag, d, &table);
        }
    });
    let tfidf = time("tf-idf (shingle + weigh + sign)", &mut || {
        for d in &docs {
            weigher.weigh(&bag, d, &table);
            signer.sign_weighted_into(&weigher.groups(), &mut out);
        }
    });
    let mut weighed: Vec<Vec<(u64, f64)>> = Vec::new();
    for d in &docs {
        weigher.weigh(&bag, d, &table);
        weighed.push(
            weigher
                .elements
                .iter()
                .zip(&weigher.weights)
                .map(|(&e, &w)| (e, f64::from(w)))
                .collect(),
        );
    }
    let groups: usize = docs
        .iter()
        .map(|d| {
            weigher.weigh(&bag, d, &table);
            weigher.groups().len()
        })
        .sum();
    println!(
        "{:.1} weight groups per document",
        groups as f64 / docs.len() as f64
    );
    if std::env::var_os("SKIP_ICWS").is_some() {
        return;
    }
    let mut slots = vec![(0.0, 0u64); K];
    let icws_us = time("ICWS on the same weights (sign only)", &mut || {
        for e in &weighed {
            icws(e, &mut slots);
        }
    });
    println!(
        "tf-idf / set = {:.2}x; ICWS / tf-idf = {:.1}x",
        tfidf / base,
        icws_us / tfidf
    );
}
