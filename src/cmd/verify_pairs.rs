//! `neardup verify-pairs`: candidate pairs found elsewhere (a distributed join of `neardup
//! sign` keys), verified here with the engine's own decision.
//!
//! Input: JSON Lines, one candidate per line, `{"a": ID, "b": ID, "text_a": "…", "text_b":
//! "…"}` (ids are strings or numbers; other members are ignored). Each text is normalised,
//! shingled and weighed exactly as a document of the stream would be, and the pair goes
//! through [`crate::verify::Verifier::decide`], the same check the window applies to its candidates
//! (`--verify` chain, `--threshold`, weights). Verified pairs are written in input order as
//! `--pairs` writes them (`a TAB b TAB similarity`, or JSON with `--pairs-format jsonl`), ready
//! for `neardup clusters --from-edges`.
//!
//! A pair may also name its documents instead of carrying their texts: a line `{"id": ID,
//! "text": "…"}` gives a document, held (normalised and shingled once) for the rest of the
//! run, and a later line `{"a": ID, "b": ID}` is the pair of two documents given before. A
//! job that sends each text once and then every pair among them (the Spark job, per
//! partition) saves the bytes and the work of a text per pair; held documents cost memory
//! until the input ends.
//!
//! Lines that are not candidates (invalid JSON, a missing id or text, a text with no words,
//! a named document not given before, longer than twice `--max-line-bytes`) are reported with
//! their line number and skipped, or end the run under `--on-bad-line fail`.

use super::args::{CommandInput, CommonArgs, choice};
use crate::config::{Config, InputFormat, PairsFormat, ReadSettings, Settings};
use crate::error::{Error, Notes, Result};
use crate::input::{DocId, Input, LineReader, raw_id};
use crate::job::Job;
use crate::output::Results;
use crate::pipeline::{Doc, Prepared, Signed, Worker};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `neardup verify-pairs`.
#[derive(clap::Args, Debug)]
pub struct VerifyPairsArgs {
    /// Candidate files ('-' or none: standard input).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Output: tsv (A TAB B TAB SIMILARITY) or jsonl.
    #[arg(long = "format", visible_alias = "pairs-format", value_parser = choice::<PairsFormat>(), default_value_t = PairsFormat::Tsv, value_name = "FORMAT", help_heading = "Output")]
    pub pairs_format: PairsFormat,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl VerifyPairsArgs {
    /// The validated settings.
    fn config(self) -> Result<(Settings, PairsFormat)> {
        if self.common.idf_warmup() > 0 {
            return Err(Error::config(
                "idf-warmup",
                "verify-pairs needs the IDF table of the run that signed: use --idf FILE",
            ));
        }
        let format = self.pairs_format;
        let config = self.common.config(CommandInput {
            files: self.files,
            input_format: InputFormat::Jsonl,
        })?;
        if config.all_pairs {
            return Err(Error::config(
                "exact",
                "verify-pairs checks given candidates; --exact does not apply",
            ));
        }
        Ok((config.validate()?, format))
    }

    /// Verifies the candidates of the inputs, writing the pairs that pass to standard output.
    pub fn run(self) -> Result<()> {
        let (config, format) = self.config()?;
        let start = std::time::Instant::now();
        let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
        let (prepared, inputs) = Prepared::new(config)?.with_idf(inputs)?;
        let config = &prepared.config;
        let mut stderr = super::util::diagnostics();
        let counts = verify_pairs(
            &prepared,
            format,
            inputs,
            // Written directly: a failed write leaves a file at its last whole line.
            crate::stdout::Stdout::new(),
            &mut stderr,
        )?;
        if config.stats {
            super::util::print_stats(&serde_json::json!({
                "candidates_read": counts.read,
                "verified": counts.verified,
                "documents_held": counts.held,
                "bad_lines": counts.bad,
                "seconds": super::util::seconds_since(start),
            }));
        }
        Ok(())
    }
}

/// Counts of a `verify-pairs` run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    /// Candidate lines read.
    pub read: u64,
    /// Pairs verified and written.
    pub verified: u64,
    /// Lines that were not candidates.
    pub bad: u64,
    /// Documents given by id and held.
    pub held: u64,
}

/// The kinds of line `verify-pairs` reads.
enum Line {
    /// `{"a", "b", "text_a", "text_b"}` (or any line with a text member of a pair).
    Texts,
    /// `{"id", "text"}`: a document to hold.
    Document,
    /// `{"a", "b"}` without texts: two held documents.
    Named(DocId, DocId),
    /// Not JSON, or a pair whose ids are not ids.
    Bad(String),
}

impl Line {
    /// What a line is, from its members (the texts are not parsed here).
    fn of(content: &[u8]) -> Line {
        use serde_json::value::RawValue;
        let members: std::collections::HashMap<std::borrow::Cow<'_, str>, &RawValue> =
            match serde_json::from_slice(content) {
                Ok(members) => members,
                // The pair's own reading says what is wrong with it.
                Err(_) => return Line::Texts,
            };
        if members.contains_key("text_a") || members.contains_key("text_b") {
            return Line::Texts;
        }
        match (members.get("a"), members.get("b")) {
            (Some(a), Some(b)) => match (raw_id(a, "a"), raw_id(b, "b")) {
                (Ok(a), Ok(b)) => Line::Named(a, b),
                (Err(e), _) | (_, Err(e)) => Line::Bad(e.to_string()),
            },
            _ if members.contains_key("text") => Line::Document,
            _ => Line::Texts,
        }
    }
}

/// A pair to decide: two held documents, or two read from its line.
enum Pair<'h> {
    Held(&'h Signed, &'h Signed),
    Read(Box<(Signed, Signed)>),
}

/// Verifies every candidate of `inputs`, writing the verified pairs to `out` in `format`.
fn verify_pairs<W: Write, D: Notes>(
    prepared: &Prepared,
    format: PairsFormat,
    inputs: Vec<Input>,
    out: W,
    diag: &mut D,
) -> Result<Counts> {
    let config = &prepared.config;
    // A line holds two texts.
    let limit = config.read.max_line_bytes.saturating_mul(2);
    let side = |field: &str, id: &str| -> Result<Worker> {
        let config = prepared.config.clone().into_config();
        let config = Config {
            read: ReadSettings {
                field: field.into(),
                id_field: Some(id.into()),
                max_line_bytes: limit,
                ..config.read.clone()
            },
            ..config
        };
        let side = Prepared {
            config: config.validate()?,
            ..prepared.clone()
        };
        Ok(Worker::new(&side, &Job::Pairs(format.into())))
    };
    let (mut left, mut right) = (side("text_a", "a")?, side("text_b", "b")?);
    let mut given = side("text", "id")?;
    let mut held: std::collections::HashMap<DocId, Signed> = std::collections::HashMap::new();
    let mut reader = LineReader::new(inputs, InputFormat::Jsonl).cutting_lines_over(limit);
    let names = reader.input_names();
    let mut out = Results::new(out, format);
    let mut counts = Counts::default();
    let mut bad = crate::pipeline::bad_lines(config);
    let verifier = crate::pipeline::verifier(config);
    let mut last_line = 0;
    while let Some(batch) = reader.next_batch()? {
        for (i, line) in batch.lines.iter().enumerate() {
            // An over-long line's first piece is longer than the limit: a bad line.
            if line.part.continues() {
                continue;
            }
            out.at_line(line.number);
            last_line = line.number;
            let content = batch.content(i);
            let place = || format!("{}:{}", names[line.input as usize], line.input_line);
            let kind = Line::of(content);
            if !matches!(kind, Line::Document) {
                counts.read += 1;
            }
            let pair = match kind {
                Line::Document => {
                    match given.process(content, InputFormat::Jsonl, line.number) {
                        Doc::Good(doc) => {
                            held.insert(doc.id.clone(), doc);
                        }
                        Doc::Bad(reason) => bad.add(place(), &reason, "skipped", diag)?,
                    }
                    continue;
                }
                Line::Named(a, b) => match (held.get(&a), held.get(&b)) {
                    (Some(a), Some(b)) => Pair::Held(a, b),
                    (None, _) | (_, None) => {
                        let missing = if held.contains_key(&a) { b } else { a };
                        let reason = format!("document {missing} was not given before");
                        bad.add(place(), &reason, "skipped", diag)?;
                        continue;
                    }
                },
                Line::Texts => {
                    let a = left.process(content, InputFormat::Jsonl, line.number);
                    let b = right.process(content, InputFormat::Jsonl, line.number);
                    match (a, b) {
                        (Doc::Good(a), Doc::Good(b)) => Pair::Read(Box::new((a, b))),
                        (Doc::Bad(reason), _) | (_, Doc::Bad(reason)) => {
                            bad.add(place(), &reason, "skipped", diag)?;
                            continue;
                        }
                    }
                }
                Line::Bad(reason) => {
                    bad.add(place(), &reason, "skipped", diag)?;
                    continue;
                }
            };
            let (a, b) = match &pair {
                Pair::Held(a, b) => (*a, *b),
                Pair::Read(both) => (&both.0, &both.1),
            };
            if let Some(s) = verifier.decide(a.compared(), b.compared()) {
                out.pair(&a.id, &b.id, s)
                    .map_err(|e| out.written_so_far(e, line.number, None))?;
                counts.verified += 1;
            }
        }
    }
    out.flush()
        .map_err(|e| out.written_so_far(e, last_line, None))?;
    counts.bad = bad.count();
    counts.held = held.len() as u64;
    bad.finish(diag);
    Ok(counts)
}
