//! # neardup-engine
//!
//! The engine of neardup, without its command line (the `neardup` crate, which re-exports
//! these modules): find near-duplicate text documents in a stream: one document per line (plain text or JSON
//! Lines), compared by the Jaccard similarity of their word (or character) n-gram shingles.
//!
//! # Overview
//! Data flows one way, one module per stage; a module uses only the stages before it, plus
//! [`config`] (validated settings), [`job`] (what the run does with them) and [`error`]:
//!
//! | stage | module |
//! |---|---|
//! | read lines, take text and id, report bad lines | [`input`] |
//! | read a whole corpus outside the pipeline (idf, hist, sample, explain) | `corpus` |
//! | a text's words and shingles: normalise and tokenise, shingle → 64-bit hashes | [`text`] ([`text::normalize`], what a word is: `words`, [`text::shingle`]) |
//! | a document's sketch: TF / TF-IDF weights, MinHash signature, LSH band keys | [`sketch`] ([`sketch::weights`], [`sketch::minhash`], [`sketch::lsh`]) |
//! | bounded window of recent documents, its buckets | [`window`] (`prefetch` hints) |
//! | verification: exact (weighted) Jaccard, text stages, the decision | [`verify`] |
//! | similarity graph, components, cliques, paths | [`graph`] |
//! | GraphML, TSV, JSON, DOT, cluster JSONL | `export` |
//! | writing lines, annotations, pairs | `output` |
//! | `--report`: the HTML page of what the filter removed | [`report`] (word diffs: `diff`) |
//! | `--state`: the window saved between runs | `state` |
//! | temporaries beside a file being replaced, never through a planted link | `temporary` |
//! | threads and ordering: prepare, sign, sequence, help | [`pipeline`] |
//! | the enumerated settings' names, which the command line parses and lists | [`choice`] |
//! | out of memory: stop at a whole output line, exit 1 | [`guard`] (the system's limit: [`limits`]; the budget's shares: [`memory`]) |
//! | hashing helpers the stages share | [`hash`] |
//! | a thread's own CPU clock, summed by stage in `--stats` | [`cpu`] |
//!
//! Modules named without a link are internal (`prefetch`) or hidden: there for the command
//! line (the `neardup` crate), not an API. Internals are described in `DESIGN.md`. Settings
//! live in a validated [`Config`]; a [`Prepared`] run adds the tables it loads, and hands
//! each stage its own settings ([`verify::Verifier`], [`window::WindowSettings`], …);
//! [`run`] executes a [`Job`] (filter, pairs, graph, sign) with them. A program that holds
//! its documents itself hands them to a [`pipeline::Deduper`], one at a time or in batches
//! (the Python module does).
//!
//! # Example
//! ```
//! use neardup_engine::{Config, Job, input::Input, job::Output};
//!
//! let text = "the quick brown fox jumps over the lazy dog while the cat sleeps in the sun\n\
//!             something else entirely different here and now\n\
//!             The quick brown fox jumps over the lazy dog while the cat sleeps in the sun!\n";
//! let config = Config { threads: 1, ..Config::default() }
//!     .validate()
//!     .unwrap();
//! let input = Input::from_reader("example", Box::new(std::io::Cursor::new(text)));
//! let mut out = Vec::new();
//! let job = Job::Filter(Output::DropDups.into());
//! let summary = neardup_engine::run(&config, &job, vec![input], &mut out, &mut std::io::sink()).unwrap();
//! assert_eq!(summary.duplicates(), 1);
//! assert_eq!(out.len(), text.lines().take(2).map(|l| l.len() + 1).sum::<usize>());
//! ```

#![deny(missing_docs)]
// The public items' docs say how they work, naming the crate-private items they use; read
// them with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

pub mod choice;
pub mod config;
#[doc(hidden)]
pub mod corpus;
pub(crate) mod cpu;
#[doc(hidden)]
pub mod diff;
pub mod error;
#[doc(hidden)]
pub mod export;
pub mod graph;
pub mod guard;
pub mod hash;
pub mod input;
pub mod job;
pub mod limits;
pub(crate) mod memory;
#[doc(hidden)]
pub mod output;
pub use output::printed_similarity;
pub mod pipeline;
pub(crate) mod prefetch;
pub mod report;
pub mod sketch;
#[doc(hidden)]
pub mod state;
pub mod temporary;
pub mod text;
pub mod verify;
pub mod window;

pub use config::Config;
pub use error::{Error, Result};
pub use job::Job;
pub use pipeline::{Prepared, Summary};

use std::io::Write;

/// Runs `job` with the settings of `config` (validated) over `inputs`, writing results to
/// `out` and warnings to `diagnostics`: loads the tables it names ([`Prepared`]), then runs
/// the pipeline.
///
/// Progress is never shown through this entry point; the binary uses
/// [`pipeline::run`] with the terminal check.
pub fn run<W: Write + Send, D: Write>(
    config: &config::Settings,
    job: &Job,
    inputs: Vec<input::Input>,
    out: W,
    diagnostics: &mut D,
) -> Result<Summary> {
    let prepared = Prepared::new(config.clone())?;
    let mut diagnostics = error::WordedWriter::new(diagnostics, error::Wording::Flags);
    pipeline::run(&prepared, job, inputs, out, &mut diagnostics, false)
}
