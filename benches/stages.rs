//! Per-stage micro-benchmarks (criterion) on the bundled Reuters sample, K = 128, word
//! 5-grams, so that a regression shows at the stage that caused it:
//! `extract` (JSON field), `normalise`, `shingle`, `sign/{set,tf,tfidf}`, `lsh` (band keys +
//! window query + insert), `verify` (exact Jaccard of candidate pairs), and `worker` (the
//! whole per-document work of a signing thread). Throughput is reported per document.
//!
//! `cargo bench` (all) or `cargo bench -- sign` (a group).

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use neardup::config::{Config, InputFormat, SketchSettings, Weights};
use neardup::input::{DocId, Extractor};
use neardup::job::{Job, Output};
use neardup::pipeline::{Prepared, Worker};
use neardup::sketch::lsh::LshParams;
use neardup::sketch::minhash::Signer;
use neardup::sketch::weights::{DfCounter, Weigher};
use neardup::text::normalize::{Normalized, Normalizer};
use neardup::text::shingle::Shingler;
use neardup::verify::{Fingerprint, fingerprints, jaccard_at_least};
use neardup::window::{Entry, Window};
use std::hint::black_box;
use std::sync::Arc;

const K: usize = 128;
const SEED: u64 = 1;

struct Corpus {
    lines: Vec<Vec<u8>>,
    texts: Vec<String>,
    normalized: Vec<Normalized>,
    set: Vec<Vec<u64>>,
    bag: Vec<Vec<u64>>,
}

fn corpus() -> Corpus {
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reuters-sample.jsonl"
    ))
    .expect("read the sample");
    let lines: Vec<Vec<u8>> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let texts: Vec<String> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_slice(l).expect("JSON");
            v["text"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    let normalizer = Normalizer::default();
    let normalized: Vec<Normalized> = texts
        .iter()
        .map(|t| {
            let mut n = Normalized::default();
            normalizer.normalize_into(t, &mut n);
            n
        })
        .collect();
    let shingles = |bag| {
        let s = Shingler::new(neardup::config::ShingleKind::Words(5), bag, SEED);
        normalized
            .iter()
            .map(|d| {
                let mut v = Vec::new();
                s.shingles_into(d, &mut v);
                v
            })
            .collect::<Vec<_>>()
    };
    let (set, bag) = (shingles(false), shingles(true));
    Corpus {
        lines,
        texts,
        normalized,
        set,
        bag,
    }
}

fn stages(c: &mut Criterion) {
    let corpus = corpus();
    let docs = corpus.texts.len() as u64;

    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Elements(docs));
    let extractor = Extractor::new("text", None, 1 << 24);
    g.bench_function("json-field", |b| {
        b.iter(|| {
            for (i, l) in corpus.lines.iter().enumerate() {
                black_box(extractor.extract(l, InputFormat::Jsonl, i as u64).is_ok());
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("normalise");
    g.throughput(Throughput::Elements(docs));
    let normalizer = Normalizer::default();
    let mut out = Normalized::default();
    g.bench_function("nfkc+lowercase+tokens", |b| {
        b.iter(|| {
            for t in &corpus.texts {
                normalizer.normalize_into(t, &mut out);
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("shingle");
    g.throughput(Throughput::Elements(docs));
    for (name, bag) in [("set", false), ("bag", true)] {
        let s = Shingler::new(neardup::config::ShingleKind::Words(5), bag, SEED);
        let mut v = Vec::new();
        g.bench_function(name, |b| {
            b.iter(|| {
                for d in &corpus.normalized {
                    s.shingles_into(d, &mut v);
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("sign");
    g.throughput(Throughput::Elements(docs));
    let mut signer = Signer::new(K, SEED);
    let mut values = vec![0u64; K];
    g.bench_function("set", |b| {
        b.iter(|| {
            for e in &corpus.set {
                signer.sign_into(e, &mut values);
            }
        })
    });
    g.bench_function("tf", |b| {
        b.iter(|| {
            for e in &corpus.bag {
                signer.sign_into(e, &mut values);
            }
        })
    });
    let bag = Shingler::new(neardup::config::ShingleKind::Words(5), true, SEED);
    let mut counter = DfCounter::default();
    for e in &corpus.set {
        counter.add(e);
    }
    let table = counter.finish(usize::MAX, String::new());
    let mut weigher = Weigher::default();
    g.bench_function("tfidf (weigh + sign)", |b| {
        b.iter(|| {
            for d in &corpus.normalized {
                weigher.weigh(&bag, d, &table);
                signer.sign_weighted_into(&weigher.groups(), &mut values);
            }
        })
    });
    g.finish();

    // Band keys of every document, then a window that queries and inserts each in turn.
    let lsh = LshParams::for_recall(0.8, K, neardup::sketch::lsh::DEFAULT_RECALL);
    let keys: Vec<Vec<u64>> = corpus
        .set
        .iter()
        .map(|e| {
            signer.sign_into(e, &mut values);
            let mut k = Vec::new();
            lsh.band_keys_into(&values, &mut k);
            k
        })
        .collect();
    let mut g = c.benchmark_group("lsh");
    g.throughput(Throughput::Elements(docs));
    g.bench_function("band-keys", |b| {
        let mut k = Vec::new();
        b.iter(|| {
            for e in &corpus.set {
                signer.sign_into(e, &mut values);
                lsh.band_keys_into(&values, &mut k);
            }
        })
    });
    g.bench_function("window query+insert", |b| {
        b.iter_batched(
            || Window::new(0),
            |mut w| {
                let mut found = Vec::new();
                for (i, k) in keys.iter().enumerate() {
                    w.candidates(k, &mut found);
                    w.insert(
                        i as u64,
                        Entry {
                            id: DocId::Line(i as u64),
                            band_keys: k.clone(),
                            text_hash: i as u128,
                            ..Entry::default()
                        },
                    )
                    .expect("records in RAM");
                }
                w
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();

    // Verification: each document against its successor (mostly unrelated, some copies).
    let mut g = c.benchmark_group("verify");
    g.throughput(Throughput::Elements(docs));
    let prints: Vec<Vec<Fingerprint>> = corpus.set.iter().map(|s| fingerprints(s)).collect();
    g.bench_function("jaccard", |b| {
        b.iter(|| {
            for w in prints.windows(2) {
                black_box(jaccard_at_least(&w[0], &w[1], 0.8));
            }
        })
    });
    // Near-duplicate pairs, what the window's candidates mostly are: each document against
    // a copy with every tenth shingle replaced.
    let edited: Vec<Vec<Fingerprint>> = corpus
        .set
        .iter()
        .map(|s| {
            let mut e: Vec<u64> = s
                .iter()
                .enumerate()
                .map(|(k, &h)| {
                    if k % 10 == 3 {
                        h ^ (0x5bd1_e995 << 32)
                    } else {
                        h
                    }
                })
                .collect();
            e.sort_unstable();
            fingerprints(&e)
        })
        .collect();
    g.bench_function("jaccard near-duplicates", |b| {
        b.iter(|| {
            for (x, y) in prints.iter().zip(&edited) {
                black_box(jaccard_at_least(x, y, 0.8));
            }
        })
    });
    g.finish();

    // The whole worker: extract, normalise, shingle, sign, band keys.
    let mut g = c.benchmark_group("worker");
    g.throughput(Throughput::Elements(docs));
    for weights in [Weights::Set, Weights::TfIdf] {
        let config = Config {
            sketch: SketchSettings {
                weights,
                // The table is given below; a source must still be named to validate.
                idf_warmup: usize::from(weights == Weights::TfIdf),
                ..SketchSettings::default()
            },
            ..Config::default()
        }
        .validate()
        .expect("valid");
        let mut prepared = Prepared::new(config).expect("prepared");
        prepared.idf = (weights == Weights::TfIdf).then(|| Arc::new(table.clone()));
        let mut worker = Worker::new(&prepared, &Job::Filter(Output::DropDups.into()));
        g.bench_function(format!("{weights:?}"), |b| {
            b.iter(|| {
                for (i, l) in corpus.lines.iter().enumerate() {
                    black_box(worker.process(l, InputFormat::Jsonl, i as u64));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
