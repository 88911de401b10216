//! `neardup verify-pairs`: candidate pairs found elsewhere (a distributed join of `neardup
//! sign` keys), verified here with the engine's own decision.
//!
//! Input: JSON Lines, one candidate per line, `{"a": ID, "b": ID, "text_a": "…", "text_b":
//! "…"}` (ids are strings or numbers; other members are ignored). Each text is normalised,
//! shingled and weighed exactly as a document of the stream would be, and the pair goes
//! through [`crate::verify::decide`], the same check the window applies to its candidates
//! (`--verify` chain, `--threshold`, weights). Verified pairs are written in input order as
//! `--pairs` writes them (`a TAB b TAB similarity`, or JSON with `--pairs-format jsonl`), ready
//! for `neardup clusters --from-edges`.
//!
//! Lines that are not candidates (invalid JSON, a missing id or text, a text with no words,
//! longer than twice `--max-line-bytes`) are reported with their line number and skipped, or
//! end the run under `--on-bad-line fail`.

use crate::config::{BadLinePolicy, Config, InputFormat};
use crate::error::{Error, Result};
use crate::input::{Input, LineReader};
use crate::output::Output;
use crate::pipeline::{Doc, Worker};
use crate::verify::decide;
use std::io::Write;

/// Counts of a `verify-pairs` run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    /// Candidate lines read.
    pub read: u64,
    /// Pairs verified and written.
    pub verified: u64,
    /// Lines that were not candidates.
    pub bad: u64,
}

/// Verifies every candidate of `inputs`, writing the verified pairs to `out`.
pub fn verify_pairs<W: Write, D: Write>(
    config: &Config,
    inputs: Vec<Input>,
    out: W,
    diag: &mut D,
) -> Result<Counts> {
    let side = |field: &str, id: &str| {
        Worker::new(&Config {
            field: field.into(),
            id_field: Some(id.into()),
            max_line_bytes: config.max_line_bytes.saturating_mul(2),
            ..config.clone()
        })
    };
    let (mut left, mut right) = (side("text_a", "a"), side("text_b", "b"));
    let mut reader = LineReader::new(inputs, InputFormat::Jsonl);
    let names = reader.input_names();
    let mut out = Output::new(out, config.pairs_format);
    let mut counts = Counts::default();
    let mut reported = 0;
    while let Some(batch) = reader.next_batch()? {
        for (i, line) in batch.lines.iter().enumerate() {
            counts.read += 1;
            let content = batch.content(i);
            let a = left.process(content, InputFormat::Jsonl, line.number);
            let b = right.process(content, InputFormat::Jsonl, line.number);
            let (a, b) = match (a, b) {
                (Doc::Good(a), Doc::Good(b)) => (a, b),
                (Doc::Bad(reason), _) | (_, Doc::Bad(reason)) => {
                    counts.bad += 1;
                    let place = format!("{}:{}", names[line.input as usize], line.input_line);
                    if config.on_bad_line == BadLinePolicy::Fail {
                        return Err(Error::BadLine {
                            place,
                            reason: reason.to_string(),
                        });
                    }
                    if !config.quiet && reported < config.max_bad_line_reports {
                        reported += 1;
                        let _ = writeln!(diag, "neardup: {place}: {reason} (skipped)");
                    }
                    continue;
                }
            };
            if let Some(s) = decide(config, a.compared(), b.compared()) {
                out.pair(&a.id, &b.id, s)?;
                counts.verified += 1;
            }
        }
    }
    out.flush()?;
    if !config.quiet && (reported as u64) < counts.bad {
        let _ = writeln!(
            diag,
            "neardup: {} bad lines in all ({} not shown)",
            counts.bad,
            counts.bad - reported as u64
        );
    }
    Ok(counts)
}
