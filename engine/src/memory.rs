//! The memory group of the settings: `--max-memory` and how a run shares it, and where the
//! window's records go past their RAM share (`--spill-dir`, `--spill-cache`, `--max-disk`).
//!
//! The budget bounds the whole process's peak RSS. What the pipeline holds besides the
//! window (code, stacks, buffers, the batches in flight) is reserved first, the same
//! whatever the thread count so that the window's size, and so the output, are too; a
//! columnar input's decoder and a table output's row group take their part next; the window
//! takes the rest and evicts past it ([`MemorySettings::window_budget`]).

use crate::error::{Error, Result};
use crate::limits::MemoryLimit;
use std::path::PathBuf;

/// RAM for the newest held records when `--spill-cache` is not given (at most an eighth of
/// `--max-memory`).
pub(crate) const DEFAULT_SPILL_CACHE: usize = 64 << 20;
/// What a run holds besides its window under `--max-memory`: half the budget up to this, an
/// eighth of it past twice this ([`MemorySettings::pipeline_reserve`]).
const PIPELINE_RESERVE: usize = 128 << 20;
/// Of the reserve, what is not batches: code, thread stacks, buffers, the allocator's slack
/// (measured: a run of one line peaks at 8.5 to 9.1 MiB with 1 to 8 threads).
const PIPELINE_FIXED: usize = 12 << 20;
/// A batch in flight: its 1 MiB of text and its signed documents (measured: 2.3 MiB on
/// ordinary text; 2,048 short lines' signatures and keys about as much).
const BATCH_COST: usize = 3 << 20;
/// The fewest batches in flight: one being read, one signed, one decided.
const MIN_BATCHES: usize = 3;
/// What a signing thread holds besides its batch: its scratch, its helper's lookups, the
/// allocator's slack, the longer queues of more threads (measured: 6 to 7 MiB a thread on
/// ordinary text; 10 keeps peak RSS within 1.1 times the budget at 48M to 256M).
const THREAD_COST: usize = 10 << 20;
/// Of the reserve, what a table's rows in the threads' batches take (measured: 4 threads on
/// a table of ordinary text under 128M held 8 MiB more than on its lines).
const COLUMNAR_THREADS_COST: usize = 10 << 20;
/// The least reserve: the fixed part, the fewest batches, one thread, and room to spare.
const MIN_RESERVE: usize = 32 << 20;
/// The least the window gets: a few thousand documents' records.
const MIN_WINDOW: usize = 8 << 20;
/// The smallest `--max-memory` a run keeps: the least reserve, the least window and room for
/// a window that holds a useful number of documents (a smaller one is refused, naming this).
pub(crate) const MIN_MAX_MEMORY: usize = 48 << 20;
/// The smallest `--max-memory` a run reading a table keeps: [`MIN_MAX_MEMORY`] and the
/// decoder's share (`COLUMNAR_RESERVE`).
pub(crate) const MIN_MAX_MEMORY_COLUMNAR: usize = 64 << 20;
/// The largest document under a budget is this share (1/N) of it: signing one holds about
/// five times its text (its normalised copy, its shingles, their sort), and each signing
/// thread may hold one; a longer line is a bad line, "over the memory budget".
const DOCUMENT_SHARE: usize = 32;
/// What a run reading a columnar input holds besides a run of lines, at most: the decoder's
/// pages and columns, the rows each batch in flight carries, and a table output's encoders
/// and row group in progress ([`MemorySettings::row_group_bytes`]). Taken from the window's
/// share (measured: long rows written back as zstd Parquet held 35 MiB more than their lines
/// under 64 MiB; a table of ordinary text 20 MiB more under 48 MiB).
const COLUMNAR_RESERVE: usize = 24 << 20;

/// The most a `--report` collector holds under a budget (its ring of snippets, its groups).
const REPORT_RESERVE: usize = 32 << 20;

/// Parquet output: the uncompressed (Arrow) bytes of a row group without a budget (its rows
/// and pages are held in memory until it is written), and the most under one.
pub(crate) const MAX_ROW_GROUP_BYTES: usize = 16 << 20;

/// `bytes` in binary units as messages and the report show them: `512 bytes`, `48 MiB`,
/// `13.6 MiB`, `3 GiB` (a whole number when exact, else one decimal).
pub(crate) fn binary_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let (mut whole, mut unit) = (bytes, 0);
    while whole >= 1 << 20 && unit + 1 < UNITS.len() {
        whole >>= 10;
        unit += 1;
    }
    let scale = 1u64 << (10 * (unit + 1));
    match bytes % scale {
        0 => format!("{} {}", bytes / scale, UNITS[unit]),
        _ => format!("{:.1} {}", bytes as f64 / scale as f64, UNITS[unit]),
    }
}

/// `--max-memory` and the spill file's settings ([`crate::Config::memory`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MemorySettings {
    /// `--max-memory`: bytes of RAM the run may use (0: no limit). The window takes what the
    /// pipeline's buffers leave ([`MemorySettings::window_budget`]) and, past it, evicts.
    pub max_memory: usize,
    /// The system's limit `max_memory` is half of, when it is the default (for messages).
    pub memory_limit: Option<MemoryLimit>,
    /// `--spill-dir`: where held documents' records go past the RAM share
    /// ([`MemorySettings::spill_cache`]); `None` keeps them all in RAM.
    pub spill_dir: Option<PathBuf>,
    /// `--spill-cache`: RAM for the newest records (`None`: the default share).
    pub spill_cache: Option<usize>,
    /// `--max-disk`: bytes the spill file may reach (0: no limit but the disk's).
    pub max_disk: u64,
    /// Not a flag: the run's first input is columnar (Parquet or Arrow), set when the run
    /// looks at it ([`crate::config::Settings::with_columnar_input`]). Its decoder and a
    /// table output's row group then take a part of the window's share.
    pub columnar: bool,
    /// Not a flag: the run collects a `--report` page, whose collector then takes a part of
    /// the window's share ([`MemorySettings::report_share`]).
    pub report: bool,
}

/// The command line's defaults: half of the tightest limit the system sets (physical
/// memory, a memory cgroup, `ulimit -v`), a spill file in the temporary directory.
/// Default `‹max-disk›`: 0, no bound on the spill file but the disk's.
pub const DEFAULT_MAX_DISK: u64 = 0;

impl Default for MemorySettings {
    fn default() -> MemorySettings {
        let memory_limit = crate::limits::memory_limit();
        MemorySettings {
            max_memory: memory_limit
                .as_ref()
                .map_or(0, |l| usize::try_from(l.bytes / 2).unwrap_or(usize::MAX)),
            memory_limit,
            spill_dir: Some(std::env::temp_dir()),
            spill_cache: None,
            max_disk: DEFAULT_MAX_DISK,
            columnar: false,
            report: false,
        }
    }
}

/// The smallest `‹max-disk›` that holds a window (16 of the spill file's smallest segments).
const MIN_MAX_DISK: u64 = 64 << 10;

/// `bytes` in MiB, as `--max-memory` takes them ("16M" is 16 MiB).
pub(crate) fn mebibytes(bytes: usize) -> String {
    match bytes % (1 << 20) {
        0 => format!("{}M", bytes >> 20),
        _ => format!("{:.2}M", bytes as f64 / f64::from(1 << 20)),
    }
}

impl MemorySettings {
    /// Raises a default budget below the least a run needs to it where the system's limit
    /// leaves room; refuses a budget below that least, and a `--max-disk` too small to hold
    /// a window on disk.
    pub fn validate(mut self) -> Result<MemorySettings> {
        // A default below the least a run needs is raised to it where the system's limit
        // leaves room (the window is then small, not the run refused).
        if let Some(limit) = &self.memory_limit
            && self.max_memory > 0
            && self.max_memory < MIN_MAX_MEMORY
            && limit.bytes >= MIN_MAX_MEMORY as u64
        {
            self.max_memory = MIN_MAX_MEMORY;
        }
        let budget = self.max_memory;
        if budget > 0 && budget < MIN_MAX_MEMORY {
            let why = "the pipeline's buffers and the fewest batches in flight take most of \
                       that; the window the rest";
            return Err(Error::config(
                "max-memory",
                match &self.memory_limit {
                    Some(limit) => format!(
                        "{} of {} leaves less than a run needs, {} ({why})",
                        limit.source,
                        mebibytes(usize::try_from(limit.bytes).unwrap_or(usize::MAX)),
                        mebibytes(MIN_MAX_MEMORY),
                    ),
                    None => format!(
                        "{} is less than a run needs: give at least {} ({why})",
                        mebibytes(budget),
                        mebibytes(MIN_MAX_MEMORY),
                    ),
                },
            ));
        }
        // The spill file grows by segments of at least 4 KiB and the window stops at half
        // the limit: below 16 of them no useful window is left on disk.
        if self.spill_dir.is_some() && self.max_disk > 0 && self.max_disk < MIN_MAX_DISK {
            return Err(Error::config(
                "max-disk",
                format!(
                    "{} bytes is too small to hold a window on disk: give at least 64K (the \
                     spill file grows by 4 KiB segments at least and the window stops at half \
                     the limit), or ‹spill-dir› none to keep every record in RAM",
                    self.max_disk
                ),
            ));
        }
        Ok(self)
    }

    /// RAM for the newest held records: `--spill-cache`, else [`DEFAULT_SPILL_CACHE`] or an
    /// eighth of `--max-memory`, whichever is less.
    pub fn spill_cache(&self) -> usize {
        match (self.spill_cache, self.max_memory) {
            (Some(bytes), _) => bytes,
            (None, 0) => DEFAULT_SPILL_CACHE,
            (None, budget) => DEFAULT_SPILL_CACHE.min(budget / 8),
        }
    }

    /// RAM the window may use under `--max-memory` (0: no limit): the budget less what the
    /// rest of the run holds (the pipeline's reserve: half the budget up to 128 MiB, an
    /// eighth of a larger one, at least 32 MiB; and 24 MiB for a columnar input), at least
    /// 8 MiB.
    pub(crate) fn window_budget(&self) -> usize {
        if self.max_memory == 0 {
            return 0;
        }
        let columnar = match self.columnar {
            true => COLUMNAR_RESERVE,
            false => 0,
        };
        self.max_memory
            .saturating_sub(self.pipeline_reserve() + columnar + self.report_share())
            .max(MIN_WINDOW.min(self.max_memory))
    }

    /// What a `--report` collector may hold under the budget (0: no report, or no limit): an
    /// eighth of the budget up to [`REPORT_RESERVE`], taken from the window's share.
    pub(crate) fn report_share(&self) -> usize {
        match (self.report, self.max_memory) {
            (false, _) | (_, 0) => 0,
            (true, budget) => (budget / 8).min(REPORT_RESERVE),
        }
    }

    /// Parquet output: the Arrow bytes at which a row group ends (it is held until written).
    /// A 64th of `--max-memory`, between 1 and 16 MiB: row groups large enough for readers,
    /// within the part of the budget [`COLUMNAR_RESERVE`] leaves them.
    pub fn row_group_bytes(&self) -> usize {
        match self.max_memory {
            0 => MAX_ROW_GROUP_BYTES,
            budget => (budget / 64).clamp(1 << 20, MAX_ROW_GROUP_BYTES),
        }
    }

    /// Parquet output: the row groups encoded at once on a run of `threads` threads. A
    /// group's thread is one more beside the signing threads, so half of them at most (on
    /// two cores one, which keeps pace beside the others). Each group holds its rows and
    /// pages ([`MemorySettings::row_group_bytes`] and about as much again) until it is
    /// written, so a budget gives them at most a 32nd of itself: under a budget below 2 GiB
    /// one group at a time, as [`COLUMNAR_RESERVE`] was measured with.
    pub fn row_groups_at_once(&self, threads: usize) -> usize {
        let most = (threads / 2).max(1);
        match self.max_memory {
            0 => most,
            budget => (budget / (64 * self.row_group_bytes())).clamp(1, most),
        }
    }

    /// The signing threads a run uses when `asked` for: under a small budget fewer, since each
    /// holds its scratch besides the batches (threads never change the output, only the speed).
    pub(crate) fn threads_within(&self, asked: usize) -> usize {
        if self.max_memory == 0 {
            return asked;
        }
        // A table's batches carry their rows too: a thread's share is larger.
        let rows = match self.columnar {
            true => COLUMNAR_THREADS_COST,
            false => 0,
        };
        let spare = self
            .pipeline_reserve()
            .saturating_sub(PIPELINE_FIXED + MIN_BATCHES * BATCH_COST + rows);
        asked.min((spare / THREAD_COST).max(1))
    }

    /// Most batches the pipeline may hold at once (read, signed, waiting or recycled) within
    /// its share of `--max-memory`; `usize::MAX` without a budget.
    pub(crate) fn batches_in_flight(&self) -> usize {
        if self.max_memory == 0 {
            return usize::MAX;
        }
        (self.pipeline_reserve().saturating_sub(PIPELINE_FIXED) / BATCH_COST).max(MIN_BATCHES)
    }

    /// The longest line a document may be under the budget (`usize::MAX` without one).
    pub(crate) fn document_limit(&self) -> usize {
        match self.max_memory {
            0 => usize::MAX,
            budget => budget / DOCUMENT_SHARE,
        }
    }

    /// Half the budget up to [`PIPELINE_RESERVE`], an eighth of a large one, at least
    /// [`MIN_RESERVE`]: the same whatever the thread count, so that the window is too.
    fn pipeline_reserve(&self) -> usize {
        (self.max_memory / 2)
            .min(PIPELINE_RESERVE)
            .max(self.max_memory / 8)
            .max(MIN_RESERVE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No budget and no spill file, whatever the machine.
    fn in_ram() -> MemorySettings {
        MemorySettings {
            max_memory: 0,
            memory_limit: None,
            spill_dir: None,
            spill_cache: None,
            max_disk: 0,
            columnar: false,
            report: false,
        }
    }

    #[test]
    fn row_groups_encoded_at_once_stay_in_a_32nd_of_the_budget() {
        let mib = 1usize << 20;
        let under = |budget: usize| MemorySettings {
            max_memory: budget,
            ..MemorySettings::default()
        };
        assert_eq!(under(0).row_groups_at_once(8), 4);
        assert_eq!(under(0).row_groups_at_once(0), 1);
        assert_eq!(under(0).row_groups_at_once(2), 1);
        for budget in [48 * mib, 64 * mib, 256 * mib, 1024 * mib, 2047 * mib] {
            assert_eq!(under(budget).row_groups_at_once(16), 1, "{budget}");
        }
        assert_eq!(under(4096 * mib).row_groups_at_once(16), 4);
        assert_eq!(under(4096 * mib).row_groups_at_once(4), 2);
        for budget in [64 * mib, 512 * mib, 4096 * mib, 12 << 30] {
            let m = under(budget);
            let held = m.row_groups_at_once(64) * 2 * m.row_group_bytes();
            assert!(held <= budget / 32, "{budget}: {held}");
        }
    }

    #[test]
    fn a_columnar_input_leaves_its_decoder_and_row_group_room() {
        let mib = 1usize << 20;
        let under = |max_memory: usize, columnar: bool| MemorySettings {
            max_memory,
            columnar,
            ..in_ram()
        };
        // 64 MiB: half to the pipeline, 24 MiB to the decoder.
        assert_eq!(under(64 * mib, false).window_budget(), 32 * mib);
        assert_eq!(under(64 * mib, true).window_budget(), MIN_WINDOW);
        assert_eq!(under(64 * mib, true).row_group_bytes(), mib);
        // The smallest budget: the least reserve, and the least window for a table.
        assert_eq!(under(MIN_MAX_MEMORY, false).window_budget(), 16 * mib);
        // 1 GiB: the pipeline's 128 MiB, the decoder's 24 MiB, 16 MiB row groups.
        assert_eq!(
            under(1024 * mib, true).window_budget(),
            (1024 - 128 - 24) * mib
        );
        // 16 GiB: an eighth to the pipeline.
        assert_eq!(
            under(16384 * mib, false).window_budget(),
            (16384 - 2048) * mib
        );
        assert_eq!(under(1024 * mib, true).row_group_bytes(), 16 * mib);
        // No budget: no limit, and row groups of the most bytes.
        assert_eq!(under(0, true).window_budget(), 0);
        assert_eq!(under(0, true).row_group_bytes(), MAX_ROW_GROUP_BYTES);
        // The fewest batches in flight fit 64 MiB; more as the budget grows.
        assert_eq!(under(64 * mib, false).batches_in_flight(), 6);
        assert!(under(1024 * mib, false).batches_in_flight() > 30);
    }

    #[test]
    fn sizes_are_shown_in_binary_units() {
        assert_eq!(binary_size(512), "512 bytes");
        assert_eq!(binary_size(3 << 10), "3 KiB");
        assert_eq!(binary_size(48 << 20), "48 MiB");
        assert_eq!(binary_size(14_241_792), "13.6 MiB");
        assert_eq!(binary_size(3 << 30), "3 GiB");
    }

    #[test]
    fn a_small_budget_signs_on_fewer_threads_and_shorter_documents() {
        let mib = 1usize << 20;
        let under = |max_memory: usize| MemorySettings {
            max_memory,
            ..in_ram()
        };
        assert_eq!(under(0).threads_within(64), 64);
        assert_eq!(under(MIN_MAX_MEMORY).threads_within(8), 1);
        assert_eq!(under(128 * mib).threads_within(8), 4);
        assert_eq!(under(MIN_MAX_MEMORY).threads_within(1), 1);
        assert_eq!(under(1024 * mib).threads_within(64), 10);
        assert_eq!(under(0).document_limit(), usize::MAX);
        assert_eq!(under(64 * mib).document_limit(), 2 * mib);
    }

    #[test]
    fn the_spill_cache_is_at_most_an_eighth_of_the_budget() {
        let mib = 1usize << 20;
        let with = |max_memory: usize, spill_cache: Option<usize>| MemorySettings {
            max_memory,
            spill_cache,
            ..in_ram()
        };
        assert_eq!(with(0, None).spill_cache(), DEFAULT_SPILL_CACHE);
        assert_eq!(with(128 * mib, None).spill_cache(), 16 * mib);
        assert_eq!(with(4096 * mib, None).spill_cache(), DEFAULT_SPILL_CACHE);
        assert_eq!(with(128 * mib, Some(mib)).spill_cache(), mib);
    }
}
