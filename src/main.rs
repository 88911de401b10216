//! The `neardup` binary: arguments → [`neardup::Config`] → [`neardup::pipeline::run`].
//!
//! Exit codes: 0 success (also when stdout is closed early, as with `| head`), 1 runtime
//! failure, 2 usage error.

use clap::Parser;
use neardup::cli::Args;
use neardup::input::Input;
use neardup::pipeline;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Args::parse();
    let config = match args.into_config() {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let inputs = match Input::open_all(&config.inputs) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    let stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let terminal = pipeline::stderr_is_terminal();
    match pipeline::run(&config, inputs, stdout, &mut stderr, terminal) {
        Ok(summary) => {
            if config.stats {
                let _ = writeln!(stderr, "{}", summary.to_json());
            }
            ExitCode::SUCCESS
        }
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(e: &neardup::Error) -> ExitCode {
    let mut message = format!("neardup: {e}");
    let mut source = std::error::Error::source(e);
    // The Io variant already prints its source; show deeper causes only.
    if let Some(s) = source {
        source = s.source();
    }
    while let Some(s) = source {
        message.push_str(&format!(": {s}"));
        source = s.source();
    }
    eprintln!("{message}");
    ExitCode::from(e.exit_code() as u8)
}
