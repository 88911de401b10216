//! Why a window stopped growing: its memory budget, the system's refusal, or its disk
//! limit.

/// Why the window stopped growing and began to evict (said once on stderr by its owner).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Its RAM reached the memory budget (`--max-memory`).
    Memory,
    /// The system refused the memory for a bigger bucket table (below the budget: a
    /// `ulimit`, a container's limit, other processes).
    Refused,
    /// The spill file reached its limit (`--max-disk`).
    Disk,
}
