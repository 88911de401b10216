//! `neardup idf`: document frequencies of a corpus, written as the binary IDF file that
//! `--weights tfidf --idf FILE` loads.

use super::args::{CommandInput, CommonArgs};
use crate::config::{Config, SketchSettings, Weights};
use crate::error::{Error, Result};
use crate::input::Input;
use crate::pipeline::Prepared;
use std::io::{IsTerminal, Write};

/// Arguments of `neardup idf`.
#[derive(clap::Args, Debug)]
pub struct IdfArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Keep at most this many shingles (12 bytes each in the file).
    #[arg(
        long,
        default_value_t = 4_000_000,
        value_name = "N",
        help_heading = "Output"
    )]
    pub max_terms: usize,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl IdfArgs {
    /// Counts the inputs' document frequencies and writes the table to standard output.
    pub fn run(self) -> Result<()> {
        let max_terms = self.max_terms;
        let config = self.common.config(self.input)?;
        let config = Config {
            sketch: SketchSettings {
                weights: Weights::Set,
                idf_path: None,
                idf_warmup: 0,
                ..config.sketch.clone()
            },
            ..config
        }
        .validate()?;
        if std::io::stdout().is_terminal() {
            return Err(Error::Usage(
                "'neardup idf' writes a binary table: send it to a file ('neardup idf FILE > \
                 FILE.idf'), then use it with ‹idf› FILE.idf"
                    .into(),
            ));
        }
        let start = std::time::Instant::now();
        let prepared = Prepared::new(config)?;
        let config = &prepared.config;
        let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
        let (counter, bad) = crate::corpus::count(
            &crate::pipeline::reading(config),
            &prepared.shingler(false),
            inputs,
        )?;
        let docs = counter.docs();
        let table = counter.finish(max_terms, prepared.shingling());
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        table
            .write_to(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("writing output", e))?;
        if bad > 0 && !config.quiet {
            let _ = writeln!(
                super::util::diagnostics(),
                "neardup: {bad} lines were not documents (skipped)"
            );
        }
        if config.stats {
            super::util::print_stats(&serde_json::json!({
                "docs": docs,
                "bad_lines": bad,
                "terms": table.len(),
                "seconds": super::util::seconds_since(start),
            }));
        }
        Ok(())
    }
}
