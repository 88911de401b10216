//! How the filter's speculation cuts a batch into pieces ([`Pace`]), kept by the filter
//! from batch to batch (`decision.rs`) and followed by `speculate.rs`.

/// How many documents are speculated at a time, and how that adapts: a document's
/// speculation holds unless an earlier document of the same piece changed a bucket it read,
/// so the fewer documents a piece holds, the more hold (in a template family most documents
/// share keys with a few others), but each piece costs a hand-over to the helpers. The
/// piece halves while fewer than half its speculations hold and doubles while nearly all
/// do. It changes how much is looked up twice, never a decision.
#[derive(Debug)]
pub(crate) struct Pace {
    /// Documents in the next piece.
    pub piece: usize,
    /// The place in the batch of the current piece's first document.
    pub base: usize,
    /// Speculations made for the current piece, and `summary.speculated` before it.
    pub(super) tried: u64,
    pub(super) held_before: u64,
    /// Batches left to decide in order without speculating: where even the smallest
    /// pieces' speculations mostly fail (a dense template family), looking up twice costs
    /// more than the helpers give, so speculation rests and is tried again later.
    pub(super) resting: u32,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            piece: 256,
            base: 0,
            tried: 0,
            held_before: 0,
            resting: 0,
        }
    }
}

/// Smallest and largest pieces.
const MIN_PIECE: usize = 32;
const MAX_PIECE: usize = 4096;

/// Batches a rest lasts ([`Pace::resting`]).
const REST_BATCHES: u32 = 32;

impl Pace {
    /// Documents in the next piece: a whole batch while resting.
    pub(crate) fn piece(&self) -> usize {
        match self.resting {
            0 => self.piece,
            _ => usize::MAX,
        }
    }

    /// After a piece: `held` is `summary.speculated` now.
    pub(super) fn adapt(&mut self, held: u64) {
        let held = held - self.held_before;
        if self.resting > 0 {
            self.resting -= 1;
            if self.resting == 0 {
                self.piece = 2 * MIN_PIECE;
            }
        } else if self.tried >= 16 {
            if held * 4 < self.tried * 3 && self.piece == MIN_PIECE {
                self.resting = REST_BATCHES;
            } else if held * 4 < self.tried * 3 {
                self.piece = (self.piece / 2).max(MIN_PIECE);
            } else if held * 10 >= self.tried * 9 {
                self.piece = (self.piece * 2).min(MAX_PIECE);
            }
        }
        self.tried = 0;
        self.held_before = 0;
    }
}
