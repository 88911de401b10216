//! `neardup sign`: each document's LSH band keys (and signature), for a join done
//! elsewhere (Spark, MapReduce); `verify-pairs` checks the pairs that join finds.

use super::args::{CommandInput, CommonArgs, choice};
use crate::config::PairsFormat;
use crate::config::{Settings, VerifyMode};
use crate::error::{Error, Result};
use crate::job::{Job, SignJob};
use crate::pipeline::Prepared;

/// Arguments of `neardup sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Output: tsv (a line per band) or jsonl (an object per document).
    #[arg(long, value_parser = choice::<PairsFormat>(), default_value_t = PairsFormat::Tsv, value_name = "FORMAT", help_heading = "Output")]
    pub format: PairsFormat,

    /// Also write the K MinHash values of each document.
    #[arg(long, help_heading = "Output")]
    pub signature: bool,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl SignArgs {
    /// The validated settings.
    fn config(self) -> Result<Settings> {
        let mut config = self.common.config(self.input)?;
        if config.all_pairs {
            return Err(Error::config(
                "exact",
                "sign writes MinHash LSH keys; the exact join does not apply",
            ));
        }
        // Verification flags are accepted (the same flags can go to sign and to
        // verify-pairs) but do not change the keys. The signature is the compact one that
        // --verify none keeps.
        config.verify.mode = VerifyMode::None;
        config.verify.text_stages.clear();
        config.validate()
    }

    /// Writes the keys of every document to standard output, in input order.
    pub fn run(self) -> Result<()> {
        let job = Job::Sign(SignJob {
            format: self.format,
            values: self.signature,
        });
        super::filter::run_prepared(
            &Prepared::new(self.config()?)?.with_standard_output(crate::stdout::for_table),
            &job,
        )
    }
}
