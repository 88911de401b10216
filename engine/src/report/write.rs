//! Writing the page: the run's settings as the page shows them, and the file written whole
//! or not at all.

use super::collect::Collector;
use super::page::{RunInfo, page};
use crate::config::{Config, ShingleKind};
use crate::error::{Error, Result, Wording};
use crate::job::Output;
use std::io::Write;
use std::path::Path;

/// The call of a filter run writing `output` as the page names it, in its front end's
/// terms: the command line (`neardup --drop-dups`), or the Python module's `Deduper`, whose
/// `most_similar=True` annotates and which has no mode of only the duplicates.
pub fn filter_mode(output: Output, wording: Wording) -> &'static str {
    match (wording, output) {
        (Wording::Flags, Output::OnlyDups) => "neardup --only-dups",
        (Wording::Flags, Output::Annotate) => "neardup --annotate",
        (Wording::Flags, Output::DropDups) => "neardup --drop-dups",
        (Wording::Keywords, Output::Annotate) => "neardup.Deduper(most_similar=True)",
        (Wording::Keywords, _) => "neardup.Deduper()",
    }
}

/// Writes the page of a run of `config` made by `mode` (the call: [`filter_mode`], or a graph
/// command, `neardup graph`, when `graph`), whose `--stats` summary is `stats` (JSON), to `path` (`-`: standard
/// output): to a temporary file beside it, renamed over it once complete, so a reader never
/// sees half a page; a device or a pipe (/dev/null, a FIFO) is written to directly, never
/// replaced.
pub fn write(
    config: &Config,
    mode: &str,
    graph: bool,
    stats: &str,
    collector: &Collector,
    path: &Path,
) -> Result<()> {
    let stats: serde_json::Value = serde_json::from_str(stats)
        .map_err(|e| Error::Internal(format!("the summary is not JSON: {e}")))?;
    let inputs: Vec<String> = match config.inputs.as_slice() {
        [] => vec!["standard input".into()],
        files => files.iter().map(|f| f.display().to_string()).collect(),
    };
    let page = page(
        collector,
        &RunInfo {
            stats: &stats,
            inputs: &inputs,
            mode,
            settings: settings(config),
            bands: config.sketch.lsh.bands,
            rows: config.sketch.lsh.rows,
            words: config.text.normalizer.words,
            graph,
        },
    );
    let failed = |e| Error::io(format!("writing the report {}", path.display()), e);
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(page.as_bytes())
            .and_then(|()| out.flush())
            .map_err(failed);
    }
    if !crate::temporary::replaces(path) {
        return std::fs::write(path, page).map_err(failed);
    }
    // A page that cannot be written whole leaves the file as it was.
    let (mut file, replacing) = crate::temporary::Replacing::new(path).map_err(failed)?;
    file.write_all(page.as_bytes()).map_err(failed)?;
    replacing.commit().map_err(failed)
}

/// The settings the page lists, as a reader names them.
fn settings(config: &Config) -> Vec<(&'static str, String)> {
    let shingles = match config.text.shingle {
        ShingleKind::Words(n) => format!("word {n}-grams"),
        ShingleKind::Chars(n) => format!("character {n}-grams"),
        ShingleKind::Stopword(n) => format!("spot signatures of {n} words"),
    };
    let window = match config.window {
        0 => "unbounded (memory-limited)".into(),
        n => format!("{n} documents"),
    };
    vec![
        ("threshold", config.verify.threshold.to_string()),
        ("shingles", shingles),
        (
            "weights",
            format!("{:?}", config.sketch.weights).to_lowercase(),
        ),
        ("MinHash values", config.sketch.num_perm.to_string()),
        (
            "LSH bands × rows",
            format!("{} × {}", config.sketch.lsh.bands, config.sketch.lsh.rows),
        ),
        (
            "verification",
            format!("{:?}", config.verify.mode).to_lowercase(),
        ),
        ("window", window),
        (
            "candidates verified at most",
            config.max_candidates.to_string(),
        ),
    ]
}
