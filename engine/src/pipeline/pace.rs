//! How the filter's speculation cuts a batch into pieces ([`Pace`]), kept by the filter
//! from batch to batch (`decision.rs`) and followed by `speculate.rs`.

/// How many documents are speculated at a time, and how that adapts: a document's
/// speculation holds unless an earlier document of the same piece changed a bucket it read;
/// then the commit brings it up to date (`window/reconcile.rs`), at a cost that grows with
/// what the piece changed, or looks it up again. So the fewer documents a piece holds, the
/// less the in-order commit does (in a template family most documents share keys with
/// others), but each piece costs a hand-over to the helpers. The piece halves while fewer
/// than 3 in 4 speculations hold unchanged and doubles while 9 in 10 do. It changes how
/// much the commit does, never a decision.
#[derive(Debug)]
pub(crate) struct Pace {
    /// Documents in the next piece.
    pub piece: usize,
    /// The place in the batch of the current piece's first document.
    pub base: usize,
    /// Speculations made for the current piece; `summary.speculated` and the reconciled
    /// count before it.
    pub(super) tried: u64,
    pub(super) held_before: u64,
    pub(super) reconciled_before: u64,
    /// Batches left to decide in order without speculating: where even the smallest
    /// pieces' speculations often cannot be brought up to date and are looked up again,
    /// looking up twice costs more than the helpers give, so speculation rests and is tried
    /// again later.
    pub(super) resting: u32,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            piece: 256,
            base: 0,
            tried: 0,
            held_before: 0,
            reconciled_before: 0,
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

    /// After a piece: `speculated` is `summary.speculated` now (decided from a speculation,
    /// unchanged or brought up to date), `reconciled` how many were brought up to date.
    pub(super) fn adapt(&mut self, speculated: u64, reconciled: u64) {
        let used = speculated - self.held_before;
        let held = used - (reconciled - self.reconciled_before);
        if self.resting > 0 {
            self.resting -= 1;
            if self.resting == 0 {
                self.piece = 2 * MIN_PIECE;
            }
        } else if self.tried >= 16 {
            if used * 4 < self.tried * 3 && self.piece == MIN_PIECE {
                self.resting = REST_BATCHES;
            } else if held * 4 < self.tried * 3 {
                self.piece = (self.piece / 2).max(MIN_PIECE);
            } else if held * 10 >= self.tried * 9 {
                self.piece = (self.piece * 2).min(MAX_PIECE);
            }
        }
        self.tried = 0;
        self.held_before = 0;
        self.reconciled_before = 0;
    }
}
