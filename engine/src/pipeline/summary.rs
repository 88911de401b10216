//! The counts of a run, printed as one JSON line by `--stats`, and the note said when the
//! window stops growing.

use crate::config::Config;
use crate::error::Note;
use crate::memory::binary_size;
use crate::window::{Limit, Window};

/// Counts reported at the end of a run (`--stats`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Lines read.
    pub docs_read: u64,
    /// Lines written (input lines in the filter modes, JSON lines in `--annotate`, pairs in
    /// `--pairs`).
    pub written: u64,
    /// Documents that are exact copies (same normalised text) of an earlier one.
    pub dropped_exact: u64,
    /// Documents that are near duplicates of an earlier one.
    pub dropped_near: u64,
    /// Documents that are exact copies or near duplicates of a reference document
    /// (`--against`).
    pub dropped_reference: u64,
    /// `--against`: documents in the reference (`None` without it).
    pub reference_docs: Option<u64>,
    /// Lines that were not documents (see `--on-bad-line`).
    pub bad_lines: u64,
    /// Candidate pairs verified.
    pub candidates: u64,
    /// Verified pairs at or above the threshold.
    pub pairs: u64,
    /// Filter modes: documents decided with the window lookup made on another thread
    /// before their batch was committed (as it was, or brought up to date with what the
    /// batch changed); the others were looked up again in order. Depends on the thread
    /// count, unlike the output.
    pub speculated: u64,
    /// Documents evicted from the window.
    pub evictions: u64,
    /// Input bytes read.
    pub bytes_read: u64,
    /// Documents in the window at the end.
    pub window_docs: u64,
    /// Approximate bytes the window held at the end, in RAM and in its spill file.
    pub window_bytes: u64,
    /// Of those, bytes in RAM (indexes, slots, the newest records).
    pub window_ram_bytes: u64,
    /// Of those, bytes of the spill file.
    pub window_disk_bytes: u64,
    /// RAM a held document costs ([`crate::window::Window::ram_bytes_per_doc`]).
    pub ram_bytes_per_doc: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `--state`: the input line the run resumed after and the output lines already written
    /// then (`None`: not resumed).
    pub resumed: Option<(u64, u64)>,
    /// `--state`: seconds spent loading the state at the start and saving it (all saves).
    pub state_seconds: Option<(f64, f64)>,
    /// `--max-memory` in bytes (0: no limit), and the system limit it is half of when it is
    /// the default.
    pub max_memory: (u64, Option<&'static str>),
    /// The process' peak resident memory at the end of the run, where it can be read.
    pub peak_rss: Option<u64>,
    /// CPU seconds by stage, each thread's own clock summed (empty: not measured).
    pub cpu_seconds: Vec<(&'static str, f64)>,
}

impl Summary {
    /// Duplicates found (exact + near + of the reference): in `--drop-dups` these are the
    /// dropped lines.
    pub fn duplicates(&self) -> u64 {
        self.dropped_exact + self.dropped_near + self.dropped_reference
    }

    /// The one-line JSON summary printed by `--stats`.
    pub fn to_json(&self) -> String {
        let secs = self.seconds.max(1e-9);
        let mut json = serde_json::json!({
            "docs_read": self.docs_read,
            "written": self.written,
            "dropped": self.duplicates(),
            "dropped_exact": self.dropped_exact,
            "dropped_near": self.dropped_near,
            "bad_lines": self.bad_lines,
            "candidates_checked": self.candidates,
            "pairs": self.pairs,
            "speculated": self.speculated,
            "evictions": self.evictions,
            "window_docs": self.window_docs,
            "window_bytes": self.window_bytes,
            "window_ram_bytes": self.window_ram_bytes,
            "window_disk_bytes": self.window_disk_bytes,
            "ram_bytes_per_doc": self.ram_bytes_per_doc,
            "disk_bytes_per_doc": self.window_disk_bytes.checked_div(self.window_docs).unwrap_or(0),
            "bytes_read": self.bytes_read,
            "seconds": (self.seconds * 1000.0).round() / 1000.0,
            "docs_per_sec": (self.docs_read as f64 / secs).round() as u64,
            "mb_per_sec": ((self.bytes_read as f64 / 1e6 / secs) * 100.0).round() / 100.0,
        });
        if !self.cpu_seconds.is_empty() {
            let mut cpu = serde_json::Map::new();
            for &(stage, seconds) in &self.cpu_seconds {
                cpu.insert(stage.into(), ((seconds * 1000.0).round() / 1000.0).into());
            }
            json["cpu_seconds"] = cpu.into();
        }
        json["max_memory"] = self.max_memory.0.into();
        if let Some(bytes) = self.peak_rss {
            json["peak_rss_bytes"] = bytes.into();
        }
        if let Some(source) = self.max_memory.1 {
            json["max_memory_from"] = format!("half of {source}").into();
        }
        if let Some(docs) = self.reference_docs {
            json["reference_docs"] = docs.into();
            json["dropped_reference"] = self.dropped_reference.into();
        }
        if let Some((line, written)) = self.resumed {
            json["resumed_after_line"] = line.into();
            json["output_lines_before"] = written.into();
        }
        if let Some((load, save)) = self.state_seconds {
            json["state_load_seconds"] = ((load * 1000.0).round() / 1000.0).into();
            json["state_save_seconds"] = ((save * 1000.0).round() / 1000.0).into();
        }
        json.to_string()
    }
}

/// The note said once when the window stops growing for want of memory or disk.
pub(super) fn limit_note(config: &Config, limit: Limit, window: &Window, line: u64) -> Note {
    let (what, flag) = match limit {
        Limit::Memory => (
            match &config.memory.memory_limit {
                Some(l) => format!(
                    "‹max-memory› ({}, half of {} of {})",
                    binary_size(config.memory.max_memory as u64),
                    l.source,
                    binary_size(l.bytes)
                ),
                None => format!(
                    "‹max-memory› ({})",
                    binary_size(config.memory.max_memory as u64)
                ),
            },
            "‹max-memory›",
        ),
        Limit::Refused => (
            "the memory the system gives (it refused more, below ‹max-memory›)".to_string(),
            "the memory limit (ulimit, container)",
        ),
        Limit::Disk => (
            format!("‹max-disk› ({})", binary_size(config.memory.max_disk)),
            "‹max-disk›",
        ),
    };
    Note::info(format!(
        "{what} reached at input line {line} with {} documents held: from here on the window \
         keeps that many, evicting the least recently matched, so later documents are not \
         compared with evicted ones (‹stats› counts them as evictions); raise {flag} to compare \
         with every document",
        window.capacity()
    ))
}
