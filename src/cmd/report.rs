//! `neardup report`: the `--report` page of a `--drop-dups` run, written to standard output
//! instead of the filtered lines (`neardup report ads.jsonl > report.html`).

use super::args::{CommandInput, CommonArgs};
use crate::error::Result;
use crate::job::{FilterJob, Job};
use crate::pipeline::Prepared;
use std::path::PathBuf;

/// Arguments of `neardup report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl ReportArgs {
    /// Runs the filter over the inputs, discarding its lines, and prints the page.
    pub fn run(self) -> Result<()> {
        let job = Job::Filter(FilterJob {
            report: Some(PathBuf::from("-")),
            ..FilterJob::default()
        });
        let config = self.common.config(self.input)?.validate()?;
        let prepared = Prepared::new(config)?;
        let config = &prepared.config;
        let inputs = crate::input::Input::open_all(&config.inputs, config.read.decompress)?;
        let mut stderr = super::util::diagnostics();
        let (summary, report) = crate::pipeline::run_reporting(
            &prepared,
            &job,
            inputs,
            std::io::sink(),
            &mut stderr,
            crate::pipeline::stderr_is_terminal(),
        )?;
        let stats = summary.to_json();
        if config.stats {
            use std::io::Write;
            let _ = writeln!(stderr, "{stats}");
        }
        match report {
            Some(report) => crate::report::write(
                config,
                "neardup --drop-dups",
                false,
                &stats,
                &report,
                "-".as_ref(),
            ),
            None => Ok(()),
        }
    }
}
