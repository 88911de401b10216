//! The filter decided on every core: a batch's documents are looked up and verified against
//! the window as it stood before the batch, on this thread and the helpers at once
//! ([`speculate_batch`]); the in-order commit ([`super::decision::filter`]) then uses a
//! document's speculated lookup when nothing it read has changed since, and looks it up
//! again otherwise. Every decision, `dup_of` and similarity is the one thread's: see
//! DESIGN.md, "Deciding on every core".

use super::decision::{Filter, Filtering, Scratch, Speculated, speculate};
use super::helpers::{Done, Helpers, Work, lend};
use super::signing::Doc;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::input::Batch;
use crate::window::Window;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Documents a thread takes at a time.
const DOCS_PER_TAKE: usize = 8;

/// Fewer good documents than this are decided in order alone (waking a helper costs more).
const SPECULATE_DOCS: usize = 16;

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
    tried: u64,
    held_before: u64,
    /// Batches left to decide in order without speculating: where even the smallest
    /// pieces' speculations mostly fail (a dense template family), looking up twice costs
    /// more than the helpers give, so speculation rests and is tried again later.
    resting: u32,
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

/// The speculated lookups of a run of [`DOCS_PER_TAKE`] documents of a batch.
pub(super) struct Run {
    /// Its number (its first document is `number × DOCS_PER_TAKE`).
    pub number: usize,
    pub looked: Vec<Option<Speculated>>,
}

/// Looks up the batch's good documents of the runs taken from `next` until none is left.
pub(super) fn take_runs(
    config: &Config,
    plain: super::decision::Plain,
    (reference, window): (Option<&Window>, &Window),
    docs: &[Doc],
    next: &AtomicUsize,
    scratch: &mut Scratch,
) -> std::io::Result<Vec<Run>> {
    let settings = Filtering::with(config, plain);
    let runs = docs.len().div_ceil(DOCS_PER_TAKE);
    let mut done = Vec::new();
    loop {
        let number = next.fetch_add(1, Ordering::Relaxed);
        if number >= runs {
            return Ok(done);
        }
        let share = &docs[number * DOCS_PER_TAKE..((number + 1) * DOCS_PER_TAKE).min(docs.len())];
        let mut looked = Vec::with_capacity(share.len());
        for doc in share {
            looked.push(match doc {
                Doc::Good(signed) => {
                    Some(speculate(&settings, reference, window, signed, scratch)?)
                }
                Doc::Bad(_) => None,
            });
        }
        done.push(Run { number, looked });
    }
}

/// Speculates the batch's documents for `filter` (on this thread and the `helpers`): first
/// each good document's family keys are added in input order (they depend on the documents
/// before, not on decisions, once the family summaries are warm), then every document is
/// looked up against the window and reference as they stand, and the window starts
/// recording its changes. Returns the documents, keyed; `filter.speculated` holds the
/// lookups by place. A batch whose keys cannot be made ahead (the summaries' warm-up), or
/// too small to share, is left to the in-order path.
#[allow(clippy::too_many_arguments)]
pub(super) fn speculate_batch(
    config: &Config,
    filter: &mut Filter,
    window: &mut Window,
    batch: &Batch,
    (base, mut docs): (usize, Vec<Doc>),
    helpers: &Helpers,
    held_so_far: u64,
) -> Result<Vec<Doc>> {
    filter.speculated.clear();
    filter.pace.base = base;
    filter.pace.held_before = held_so_far;
    if filter.pace.resting > 0 {
        return Ok(docs);
    }
    let good = docs.iter().filter(|d| matches!(d, Doc::Good(_))).count();
    let keyed_ahead = window.family_settled()
        || docs
            .iter()
            .all(|d| !matches!(d, Doc::Good(s) if !s.minima.is_empty()));
    if good < SPECULATE_DOCS || !keyed_ahead {
        return Ok(docs);
    }
    for (i, doc) in docs.iter_mut().enumerate() {
        if let Doc::Good(signed) = doc {
            window
                .add_family_keys(&signed.minima, &mut signed.band_keys)
                .map_err(|e| Error::spill(e, batch.lines[base + i].number))?;
        }
    }
    let plain = Filtering::new(config, &filter.job).plain();
    let docs = Arc::new(docs);
    let reference = filter.reference.take().map(Arc::new);
    let runs = docs.len().div_ceil(DOCS_PER_TAKE);
    let next = Arc::new(AtomicUsize::new(0));
    let mut by_run: Vec<Vec<Option<Speculated>>> = (0..runs).map(|_| Vec::new()).collect();
    let mut failed = None;
    let scratch = &mut filter.scratch;
    let lent = lend(
        window,
        helpers,
        |lent| {
            (0..helpers.count().min(runs.saturating_sub(1)))
                .map(|_| Work::Speculate {
                    window: Arc::clone(lent),
                    reference: reference.clone(),
                    docs: Arc::clone(&docs),
                    next: Arc::clone(&next),
                    plain,
                })
                .collect()
        },
        |lent| {
            let r = take_runs(
                config,
                plain,
                (reference.as_deref(), lent),
                &docs,
                &next,
                scratch,
            );
            Done::Speculated(r)
        },
        // Runs no helper took were taken here: their work is left with nothing to do.
        |_, _| None,
        |done| {
            if let Done::Speculated(done) = done {
                match done {
                    Ok(done) => {
                        for run in done {
                            by_run[run.number] = run.looked;
                        }
                    }
                    Err(e) => failed = Some(e),
                }
            }
        },
    );
    let kept = || Error::Internal("a verification thread kept the reference".into());
    filter.reference = match reference {
        Some(r) => Some(Arc::try_unwrap(r).map_err(|_| kept())?),
        None => None,
    };
    lent?;
    let docs = Arc::try_unwrap(docs)
        .map_err(|_| Error::Internal("a verification thread kept the batch".into()))?;
    if let Some(e) = failed {
        return Err(Error::spill(e, batch.lines.first().map_or(0, |l| l.number)));
    }
    filter.speculated = by_run.into_iter().flatten().collect();
    filter.pace.tried = (filter.speculated.iter())
        .filter(|s| s.as_ref().is_some_and(|s| s.looked_in_window()))
        .count() as u64;
    window.track_changes();
    Ok(docs)
}
