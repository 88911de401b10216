//! The memory group of the settings: `--max-memory` and how a run shares it, and where the
//! window's records go past their RAM share (`--spill-dir`, `--spill-cache`, `--max-disk`).
//!
//! The budget bounds the whole process's peak RSS. What the pipeline holds besides the
//! window (code, stacks, buffers, the batches in flight) is reserved first, the same
//! whatever the thread count so that the window's size, and so the output, are too; a
//! columnar input's decoder and a table output's row group take their part next; the window
//! takes the rest and evicts past it ([`MemorySettings::window_budget`]).

use crate::limits::MemoryLimit;
use std::path::PathBuf;

/// RAM for the newest held records when `--spill-cache` is not given (at most an eighth of
/// `--max-memory`).
pub const DEFAULT_SPILL_CACHE: usize = 64 << 20;
/// What a run holds besides its window under `--max-memory`, at most. Past half the budget,
/// the batches in flight are fewer instead.
const PIPELINE_RESERVE: usize = 80 << 20;
/// Of the reserve, what is not batches: code, thread stacks, buffers, the allocator's slack
/// (measured: a run of short lines under 64 MiB held 34 MiB besides its window with three
/// batches in flight).
const PIPELINE_FIXED: usize = 20 << 20;
/// A batch in flight, at most: its 1 MiB of text and its signed documents.
const BATCH_COST: usize = 4 << 20;
/// What a run reading a columnar input holds besides a run of lines, at most: the decoder's
/// pages and columns, the rows each batch in flight carries, and a table output's encoders
/// and row group in progress ([`MemorySettings::row_group_bytes`]). Taken from the window's
/// share, or a third of the budget if that is less (measured: long rows written back as
/// zstd Parquet held 35 MiB more than their lines under 64 MiB).
const COLUMNAR_RESERVE: usize = 24 << 20;
/// Parquet output: the encoded bytes of a row group without a budget (it is held in memory
/// until then), and the most under one.
pub const MAX_ROW_GROUP_BYTES: usize = 16 << 20;

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
}

/// The command line's defaults: half of the tightest limit the system sets (physical
/// memory, a memory cgroup, `ulimit -v`), a spill file in the temporary directory.
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
            max_disk: 0,
            columnar: false,
        }
    }
}

impl MemorySettings {
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
    /// rest of the run holds ([`PIPELINE_RESERVE`], or half the budget if that is less, and
    /// for a columnar input [`COLUMNAR_RESERVE`], or a third of the budget).
    pub fn window_budget(&self) -> usize {
        if self.max_memory == 0 {
            return 0;
        }
        let columnar = match self.columnar {
            true => COLUMNAR_RESERVE.min(self.max_memory / 3),
            false => 0,
        };
        (self.max_memory - self.pipeline_reserve() - columnar).max(1)
    }

    /// Parquet output: the encoded bytes at which a row group ends (it is held until then).
    /// A 64th of `--max-memory`, between 1 and 16 MiB: row groups large enough for readers,
    /// within the part of the budget [`COLUMNAR_RESERVE`] leaves them.
    pub fn row_group_bytes(&self) -> usize {
        match self.max_memory {
            0 => MAX_ROW_GROUP_BYTES,
            budget => (budget / 64).clamp(1 << 20, MAX_ROW_GROUP_BYTES),
        }
    }

    /// Most batches the pipeline may hold at once (read, signed, waiting or recycled) within
    /// its share of `--max-memory`; `usize::MAX` without a budget.
    pub fn batches_in_flight(&self) -> usize {
        if self.max_memory == 0 {
            return usize::MAX;
        }
        (self.pipeline_reserve().saturating_sub(PIPELINE_FIXED) / BATCH_COST).max(3)
    }

    fn pipeline_reserve(&self) -> usize {
        PIPELINE_RESERVE.min(self.max_memory / 2)
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
        // 64 MiB: half to the pipeline, a third of the budget to the decoder.
        assert_eq!(under(64 * mib, false).window_budget(), 32 * mib);
        assert_eq!(
            under(64 * mib, true).window_budget(),
            32 * mib - 64 * mib / 3
        );
        assert_eq!(under(64 * mib, true).row_group_bytes(), mib);
        // 1 GiB: the pipeline's 80 MiB, the decoder's 24 MiB, 16 MiB row groups.
        assert_eq!(
            under(1024 * mib, true).window_budget(),
            (1024 - 80 - 24) * mib
        );
        assert_eq!(under(1024 * mib, true).row_group_bytes(), 16 * mib);
        // No budget: no limit, and row groups of the most bytes.
        assert_eq!(under(0, true).window_budget(), 0);
        assert_eq!(under(0, true).row_group_bytes(), MAX_ROW_GROUP_BYTES);
        // The fewest batches in flight fit 64 MiB; more as the budget grows.
        assert_eq!(under(64 * mib, false).batches_in_flight(), 3);
        assert!(under(1024 * mib, false).batches_in_flight() > 10);
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
