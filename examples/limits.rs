//! The hardware floor for a corpus: how fast this machine can read it and hash it, against
//! which neardup's throughput is judged (README "Performance").
//!
//! `cargo run --release --example limits -- bench-data/peers-130mb.jsonl`
//!
//! Prints, per stage and cumulatively, MB/s and docs/s on one thread: reading the file
//! (page cache, 1 MiB reads), finding lines (memchr), xxh3 over every byte, extracting the
//! JSON text field, normalising, hashing word 5-grams, and MinHash at K = 128. The floor of
//! any tool that reads, hashes and signs every document is the last line.

use neardup::config::{InputFormat, ShingleKind};
use neardup::input::Extractor;
use neardup::sketch::minhash::Signer;
use neardup::text::normalize::{Normalized, Normalizer};
use neardup::text::shingle::Shingler;
use std::io::Read;
use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "bench-data/peers-130mb.jsonl".into());
    // Read once to warm the page cache, then time reading alone.
    let data = std::fs::read(&path).expect("read the corpus");
    let mb = data.len() as f64 / 1e6;
    let docs = memchr::memchr_iter(b'\n', &data).count() as f64;
    let report = |name: &str, secs: f64| {
        println!(
            "{name:<44} {:>8.0} MB/s {:>10.0} docs/s",
            mb / secs,
            docs / secs
        );
    };
    println!("{path}: {mb:.0} MB, {docs:.0} documents, one thread");

    let start = Instant::now();
    let mut file = std::fs::File::open(&path).expect("open");
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0;
    loop {
        let n = file.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        total += n;
    }
    assert_eq!(total, data.len());
    report("read (page cache)", start.elapsed().as_secs_f64());

    let start = Instant::now();
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    report("split lines", start.elapsed().as_secs_f64());

    let start = Instant::now();
    let mut h = 0u64;
    for l in &lines {
        h ^= xxhash_rust::xxh3::xxh3_64(l);
    }
    std::hint::black_box(h);
    report("xxh3 over every byte", start.elapsed().as_secs_f64());

    // Each line below runs the chain up to that stage over every document, one document at
    // a time with reused buffers (as a worker does).
    let extractor = Extractor::new("text", None, usize::MAX);
    // As scripts/bench-peers.sh runs neardup (--no-nfkc: tokens exactly Python's
    // str.lower().split()); the last line adds NFKC.
    let plain = Normalizer {
        nfkc: false,
        ..Normalizer::default()
    };
    let shingler = Shingler::new(ShingleKind::Words(5), false, 1);
    let mut signer = Signer::new(128, 1);
    let (mut normalized, mut shingles, mut values) =
        (Normalized::default(), Vec::new(), vec![0u64; 128]);
    let stages = [
        "+ JSON text field",
        "+ normalise",
        "+ word 5-gram hashes, sorted",
        "+ MinHash K = 128 (the floor of signing)",
        "  the same with NFKC",
    ];
    for (depth, name) in stages.iter().enumerate() {
        let normalizer = if depth == 4 {
            Normalizer::default()
        } else {
            plain
        };
        let start = Instant::now();
        for (i, l) in lines.iter().enumerate() {
            let Ok((text, _)) = extractor.extract(l, InputFormat::Jsonl, i as u64) else {
                continue;
            };
            if depth >= 1 {
                normalizer.normalize_into(&text, &mut normalized);
            }
            if depth >= 2 {
                shingler.shingles_into(&normalized, &mut shingles);
            }
            if depth >= 3 {
                signer.sign_into(&shingles, &mut values);
            }
        }
        std::hint::black_box(&values);
        report(name, start.elapsed().as_secs_f64());
    }
}
