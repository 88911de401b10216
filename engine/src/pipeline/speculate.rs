//! The filter decided on every core: a batch's documents are looked up and verified against
//! the window as it stood before the batch, on this thread and the helpers at once
//! ([`speculate_batch`]); the in-order commit ([`super::decision::filter`]) then uses a
//! document's speculated lookup when nothing it read has changed since, brings it up to
//! date from what changed otherwise (`window/reconcile.rs`), and looks it up again only
//! where that cannot be done. Every decision, `dup_of` and similarity is the one thread's: see
//! DESIGN.md, "Deciding on every core".

use super::decision::{Filtering, Speculated};
use super::family_counts::Counting;
use super::filter::Filter;
use super::helpers::{Done, Helpers, Work, lend, run_bounds, take_speculations};
use super::pace::Kind;
use super::signing::Doc;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::window::Window;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

/// Candidates whose rankings a piece's speculations keep in all, at most (6 MiB at 24
/// bytes a candidate), so that a failed speculation can be brought up to date
/// (`window/reconcile.rs`) instead of looked up again.
const RANKINGS_PER_PIECE: usize = 1 << 18;

/// A document's ranking is kept up to this many candidates, however large the piece.
const MIN_RANKING: usize = 64;

/// Fewer good documents than this are decided in order alone (waking a helper costs more).
pub(super) const SPECULATE_DOCS: usize = 16;

/// Speculates the batch's documents for `filter` (on this thread and the `helpers`): first
/// each good document not counted yet (the run's counter counted the command line's:
/// `family_counts.rs`) is counted in the family summaries in input order (its family keys
/// depend on the documents before, not on decisions, once the summaries are warm; the
/// threads that look it up make them), then every document is looked up against the
/// window and reference as they stand, and the window starts
/// recording its changes. Returns the documents, keyed, and this thread's CPU nanoseconds
/// spent keying them (in input order); `filter.speculated` holds the lookups by place. A batch whose keys cannot be made ahead (the summaries' warm-up), or
/// too small to share, is left to the in-order path. `number` gives the line (or document)
/// number of the piece's `i`th document, for errors; `base` is the piece's place in its batch.
pub(super) fn speculate_batch<'v>(
    config: &'v Config,
    filter: &mut Filter,
    window: &mut Window,
    number: &dyn Fn(usize) -> u64,
    (base, mut docs): (usize, Vec<Doc>),
    helpers: &Helpers<'v>,
    held_so_far: u64,
) -> Result<(Vec<Doc>, u64)> {
    filter.speculated.clear();
    filter.pace.base = base;
    filter.pace.held_before = held_so_far;
    filter.pace.reconciled_before = filter.scratch.reconciled;
    let weighed = config.helpers == crate::config::HelperPolicy::Auto;
    filter.pace.begin(docs.len(), weighed);
    if filter.pace.resting > 0 {
        filter.pace.found(Kind::Rested);
        return Ok((docs, 0));
    }
    let good = docs.iter().filter(|d| matches!(d, Doc::Good(_))).count();
    let keyed_ahead = window.family_settled()
        || docs
            .iter()
            .all(|d| !matches!(d, Doc::Good(s) if !s.minima.is_empty()));
    if good < SPECULATE_DOCS || !keyed_ahead {
        return Ok((docs, 0));
    }
    filter.pace.found(Kind::Speculated);
    let keying = crate::cpu::thread_cpu();
    let mut fallbacks = Vec::new();
    for (i, doc) in docs.iter_mut().enumerate() {
        if let Doc::Good(signed) = doc
            && matches!(signed.counting, Counting::Due)
        {
            let bands = signed.band_keys.len();
            window
                .add_family_fallbacks(&signed.minima, bands, &mut fallbacks)
                .map_err(|e| Error::spill(e, number(i)))?;
            Window::family_keys_of(&fallbacks, &mut signed.family_keys);
            signed.counting = Counting::InWindow;
        }
    }
    // Rankings kept for the commit to reconcile are bounded per piece, whatever its size.
    let cap = (RANKINGS_PER_PIECE / docs.len().max(1)).max(MIN_RANKING);
    let keyed = crate::cpu::thread_cpu().saturating_sub(keying);
    let settings = Filtering::new(config, &filter.job).keeping_rankings(cap);
    let docs = Arc::new(docs);
    let reference = filter.reference.take().map(Arc::new);
    let bounds: Arc<[usize]> = run_bounds(docs.len(), helpers.count()).into();
    let runs = bounds.len() - 1;
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
                    settings,
                    window: Arc::clone(lent),
                    reference: reference.clone(),
                    docs: Arc::clone(&docs),
                    bounds: Arc::clone(&bounds),
                    next: Arc::clone(&next),
                })
                .collect()
        },
        |lent| {
            let r = take_speculations(
                &settings,
                (reference.as_deref(), lent),
                (&docs, &bounds),
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
        return Err(Error::spill(e, number(0)));
    }
    filter.speculated = by_run.into_iter().flatten().collect();
    filter.pace.tried = (filter.speculated.iter())
        .filter(|s| s.as_ref().is_some_and(|s| s.looked_in_window()))
        .count() as u64;
    // The commit records a change only where a later lookup of the piece reads it.
    let keys = docs.iter().map(|d| match d {
        Doc::Good(s) => s.band_keys.len() * 2,
        _ => 0,
    });
    window.track_changes_read(keys.sum());
    for (place, (doc, s)) in docs.iter().zip(&mut filter.speculated).enumerate() {
        if let (Doc::Good(signed), Some(s)) = (doc, s) {
            s.place = place;
            s.read_keys(&signed.band_keys, |k| window.will_read(k, place));
        }
    }
    Ok((docs, keyed))
}
