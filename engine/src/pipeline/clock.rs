//! Each thread's own CPU clock, summed by stage (`--stats` "cpu_seconds"): where a run's
//! CPU goes, so that its speed-up on more cores can be projected from one run (the in-order
//! commit is the part no core count shortens).

use std::sync::atomic::{AtomicU64, Ordering};

/// The stages a run's CPU is split into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// The reader thread: reading, decompressing, cutting lines, decoding tables.
    Read,
    /// Normalising, shingling and signing, on the workers and on the sequencer.
    Sign,
    /// Lookups and verification on the helpers (the filter's speculation, the pairs' checks)
    /// and the sequencer's own share of them.
    Speculate,
    /// The in-order loop: deciding, inserting, counting (lines written included).
    Commit,
    /// Work beside the commit: a table's rows encoded and written, the window's chores (its
    /// next record segment's pages written, inserted documents' buffers freed).
    Write,
}

const STAGES: [(&str, Stage); 5] = [
    ("read", Stage::Read),
    ("sign", Stage::Sign),
    ("speculate", Stage::Speculate),
    ("commit", Stage::Commit),
    ("write", Stage::Write),
];

/// CPU nanoseconds by stage, added to by every thread of a run.
#[derive(Debug, Default)]
pub(crate) struct StageClock {
    nanos: [AtomicU64; 5],
}

impl StageClock {
    /// Adds `nanos` of CPU to `stage`.
    pub(crate) fn add(&self, stage: Stage, nanos: u64) {
        self.nanos[stage as usize].fetch_add(nanos, Ordering::Relaxed);
    }

    /// Adds the CPU the calling thread used since `since` ([`thread_cpu`]) to `stage`, and
    /// returns the thread's clock now.
    pub(crate) fn since(&self, stage: Stage, since: u64) -> u64 {
        let now = thread_cpu();
        self.add(stage, now.saturating_sub(since));
        now
    }

    /// The stages' names and seconds, in pipeline order.
    pub(crate) fn seconds(&self) -> Vec<(&'static str, f64)> {
        STAGES
            .iter()
            .map(|&(name, stage)| {
                (
                    name,
                    self.nanos[stage as usize].load(Ordering::Relaxed) as f64 / 1e9,
                )
            })
            .collect()
    }
}

pub(crate) use crate::cpu::thread_cpu;

/// Adds the CPU its thread used while it lived to a stage (a thread's whole life is one
/// stage: the reader's, a worker's, a helper's).
pub(super) struct Timed<'c>(pub &'c StageClock, pub Stage);

impl Drop for Timed<'_> {
    fn drop(&mut self) {
        self.0.add(self.1, thread_cpu());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread that works adds its CPU to the stage it names, and only there.
    #[test]
    fn a_threads_work_lands_in_its_stage() {
        let clock = StageClock::default();
        let start = thread_cpu();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        clock.since(Stage::Sign, start);
        let seconds = clock.seconds();
        assert_eq!(seconds[1].0, "sign");
        assert!(seconds[1].1 > 0.0, "{seconds:?}");
        assert!(seconds.iter().filter(|s| s.0 != "sign").all(|s| s.1 == 0.0));
    }
}
