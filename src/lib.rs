//! # neardup
//!
//! Find near-duplicate text documents in a stream: one document per line (plain text or JSON
//! Lines), compared by the Jaccard similarity of their word (or character) n-gram shingles.
//!
//! This crate is the command line: [`cmd`] (the commands and their flags, each flag defined
//! once in `cmd::flags`) over the engine, `neardup-engine` (`engine/`), which has no command
//! line and whose modules are re-exported here unchanged ([`run`], [`Config`], [`Job`],
//! [`pipeline::Deduper`], …; its crate documentation is the map of the stages).
//!
//! # Example
//! ```
//! use neardup::{Config, Job, input::Input, job::Output};
//!
//! let text = "the quick brown fox jumps over the lazy dog while the cat sleeps in the sun\n\
//!             The quick brown fox jumps over the lazy dog while the cat sleeps in the sun!\n";
//! let config = Config { threads: 1, ..Config::default() }.validate().unwrap();
//! let input = Input::from_reader("example", Box::new(std::io::Cursor::new(text)));
//! let mut out = Vec::new();
//! let job = Job::Filter(Output::DropDups.into());
//! let summary = neardup::run(&config, &job, vec![input], &mut out, &mut std::io::sink()).unwrap();
//! assert_eq!(summary.duplicates(), 1);
//! ```

#![warn(missing_docs)]

pub use neardup_engine::*;

pub mod cmd;
pub mod stdout;
