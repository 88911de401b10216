//! The in-process filter (`Deduper::add_many`, what the Python module's `add_many` and
//! `dedup` call) on a JSON Lines file, in batches of 10,000 documents (the whole count said
//! first, as `dedup` does: `Deduper::expect_documents`), with the command
//! line's flags: documents per second, documents decided from a speculated lookup, and a
//! hash of the outcomes (equal on any thread count).
//!
//! `cargo run --release --example deduper_cores -- FILE.jsonl [FLAGS…]`, e.g.
//! `… bench-data/tpl1-50000.jsonl -j 2 --helpers always` (not a test).

use neardup::pipeline::{Deduper, Outcome};
use std::hash::{Hash, Hasher};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (file, flags) = args
        .split_first()
        .expect("usage: deduper_cores FILE.jsonl [FLAGS…]");
    let texts: Vec<String> = std::fs::read_to_string(file)
        .expect("a readable file")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON Lines");
            v["text"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    let argv = [&["neardup".to_string()][..], flags].concat();
    let (config, job) = neardup::cmd::parse(argv)
        .and_then(|a| a.filter_settings())
        .expect("filter flags");
    let mut d = Deduper::for_job(config, &job).expect("a filter");
    // As the Python module's `dedup` says of the list it is given.
    d.expect_documents(texts.len() as u64);
    let start = Instant::now();
    let mut hash = std::collections::hash_map::DefaultHasher::new();
    let mut dropped = 0;
    for batch in texts.chunks(10_000) {
        let docs: Vec<(&str, _)> = batch.iter().map(|t| (t.as_str(), None)).collect();
        for outcome in d.add_many(&docs).expect("decided") {
            if let Outcome::Duplicate(m) = &outcome {
                dropped += 1;
                m.dup_of.to_string().hash(&mut hash);
            }
            matches!(outcome, Outcome::New).hash(&mut hash);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} docs in {seconds:.2} s ({:.0} docs/s), {dropped} dropped, {} speculated, outcomes {:016x}",
        texts.len(),
        texts.len() as f64 / seconds,
        d.summary().speculated,
        hash.finish()
    );
}
