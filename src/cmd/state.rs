//! `neardup state`: looks at and compacts a `--state` index directory.

use crate::error::{Error, Result};
use crate::state::index;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `neardup state`.
#[derive(clap::Args, Debug)]
pub struct StateArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// What `neardup state` does.
#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Print what an index holds: documents, input lines read, output lines written, bytes
    /// on disk and in RAM once opened, settings. Changes nothing; runs beside a writer.
    Info {
        /// The index directory (a --state DIR).
        dir: PathBuf,
        /// Also read every record back, check it against its checksum, and print a digest
        /// of the held documents (equal digests: the same documents).
        #[arg(long)]
        check: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite an index without the records no longer used (evicted documents', and the
    /// old records of documents keyed again; runs do this themselves once they outweigh the
    /// held ones). Takes the index's lock.
    Compact {
        /// The index directory (a --state DIR).
        dir: PathBuf,
    },
}

impl StateArgs {
    /// Runs the action, printing to standard output.
    pub fn run(self) -> Result<()> {
        let mut out = std::io::stdout().lock();
        let io = |e| Error::io("writing output", e);
        match self.action {
            Action::Info { dir, check, json } => {
                let info = index::info(&dir, check)?;
                let m = &info.manifest;
                let limit = match m.limit {
                    None => "none".to_string(),
                    Some(why) => format!("{why:?}").to_lowercase(),
                };
                let digest = info.digest.map(|d| format!("{d:016x}"));
                if json {
                    let v = serde_json::json!({
                        "index": dir.display().to_string(),
                        "version": m.version,
                        "documents": m.documents,
                        "lines_read": m.lines,
                        "lines_written": m.written,
                        "records_bytes": info.records_bytes,
                        "garbage_bytes": m.garbage,
                        "tables_bytes": info.tables_bytes,
                        "log_bytes": m.log_len,
                        "log_documents": m.log_inserts,
                        "ram_bytes_when_opened": info.ram_bytes,
                        "mapped_bytes": info.mapped_bytes,
                        "capacity": m.capacity,
                        "evicts_for": limit,
                        "pending_output_bytes": m.pending.len(),
                        "tfidf": !m.idf.is_empty(),
                        "settings": m.settings,
                        "digest": digest,
                    });
                    writeln!(out, "{v}").map_err(io)?;
                } else {
                    let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
                    let mut lines = vec![
                        format!("index:          {} (version {})", dir.display(), m.version),
                        format!("documents:      {}", m.documents),
                        format!("last line read: {}", m.lines),
                        format!("output lines:   {}", m.written),
                        format!(
                            "on disk:        {} records ({} no longer used: evicted, or keyed again), \
                             {} tables, \
                             {} log ({} documents inserted since the tables)",
                            mb(info.records_bytes),
                            mb(m.garbage),
                            mb(info.tables_bytes),
                            mb(m.log_len),
                            m.log_inserts
                        ),
                        format!(
                            "RAM to open:    {}, and {} of tables mapped (a run reads the \
                             pages it touches)",
                            mb(info.ram_bytes as u64),
                            mb(info.mapped_bytes as u64)
                        ),
                        format!(
                            "window:         {}, evicts for: {limit}",
                            match m.capacity {
                                0 => "no document limit".to_string(),
                                n => format!("at most {n} documents"),
                            }
                        ),
                        format!("settings:       {}", readable_settings(&m.settings)),
                    ];
                    if let Some(d) = digest {
                        lines.push(format!("digest:         {d} (every record checked)"));
                    }
                    writeln!(out, "{}", lines.join("\n")).map_err(io)?;
                }
            }
            Action::Compact { dir } => {
                let _lock = crate::state::lock(&dir)?;
                let (before, after) = index::compact(&dir)?;
                eprintln!(
                    "neardup: {}: records {before} → {after} bytes",
                    dir.display()
                );
            }
        }
        Ok(())
    }
}

/// An index's settings key as `state info` shows it: the shingles (`words:5`, `chars:4`)
/// named as such, so that the word rule (`words:unicode`) is not a second `words:` key.
fn readable_settings(key: &str) -> String {
    key.split(' ')
        .enumerate()
        .map(|(i, token)| match (i, token.split_once(':')) {
            (0, Some((unit, n))) => format!("shingles:{n}-{unit}"),
            (_, Some(("words", rule))) => format!("word-rule:{rule}"),
            _ => token.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_is_named_once() {
        let key = "words:5 seed:1 lowercase:true words:unicode weights:set";
        assert_eq!(
            readable_settings(key),
            "shingles:5-words seed:1 lowercase:true word-rule:unicode weights:set"
        );
    }
}
