//! The filter modes' decision for one document (`--drop-dups`, `--only-dups`, `--annotate`,
//! and [`super::Deduper`]): is it an exact copy or a near duplicate of a kept document, in
//! the `--against` reference or in the window, or new? New documents enter the window. The
//! lookups can be made ahead, on every core ([`speculate`]), and the decision in order
//! ([`filter`]) uses them where they still hold. The job's consumer, which both drivers hand
//! their documents to, is `super::filter`'s `Filter`.

use super::family_counts::Counting;
use super::signing::Signed;
use super::summary::Summary;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::job::{FilterJob, Output};
use crate::verify::Verifier;
use crate::window::chores::Discards;
use crate::window::{Entry, Held, Lookup, Rank, Reconciled, Reconciling, Window};

/// What [`filter`] decided.
#[derive(Clone, Copy, Debug)]
pub(super) enum Decision {
    /// No match: the document is kept (and entered the window, but with `--against-only`).
    /// With `--report`, `below` is the highest similarity among the candidates verified,
    /// all below the threshold.
    New { below: Option<f64> },
    /// A match: `held` in the reference (`in_reference`) or in the window.
    Dup {
        /// The matched document.
        held: Held,
        /// Whether `held` is in the reference window rather than the run's own.
        in_reference: bool,
        /// Its similarity (1 for a copy).
        similarity: f64,
        /// Whether it is an exact copy (same normalised text).
        copy: bool,
    },
}

/// The window a [`Decision::Dup`] was found in: the reference's when `in_reference`.
pub(super) fn window_of<'w>(
    reference: &'w Option<Window>,
    window: &'w Window,
    in_reference: bool,
) -> &'w Window {
    match (reference, in_reference) {
        (Some(reference), true) => reference,
        _ => window,
    }
}

/// The filter's settings: how candidates are verified, how many at most, whether the search
/// goes on past the first match (`--annotate` names the most similar), and whether the
/// input is compared with the `--against` reference alone.
#[derive(Clone, Copy, Debug)]
pub(super) struct Filtering<'c> {
    verifier: Verifier<'c>,
    /// Most candidates verified per window (`usize::MAX`: no bound).
    limit: usize,
    every_match: bool,
    against_only: bool,
    /// `--report`: the similarity of candidates below the threshold is wanted too.
    report: bool,
    /// Speculating: the most candidates whose ranking a lookup keeps for the commit to
    /// bring up to date ([`Found::ranking`]; 0: none kept).
    ranking_cap: usize,
}

impl<'c> Filtering<'c> {
    /// The settings of a run of `config` doing `filter`.
    pub(super) fn new(config: &'c Config, filter: &FilterJob) -> Filtering<'c> {
        Filtering {
            verifier: super::prepare::verifier(config),
            limit: match config.max_candidates {
                0 => usize::MAX,
                n => n,
            },
            every_match: filter.output == Output::Annotate,
            against_only: filter.against.only,
            report: filter.report.is_some(),
            ranking_cap: 0,
        }
    }
}

/// Scratch space reused from one document to the next (one per thread that looks up).
#[derive(Default)]
pub(super) struct Scratch {
    candidates: Vec<Held>,
    matches: Vec<(Held, f64)>,
    lookup: Lookup,
    /// Bringing a failed speculation's lookup up to date.
    reconciling: Reconciling,
    /// Speculated lookups brought up to date so far (for the pace of the pieces).
    pub(super) reconciled: u64,
    /// Speculating: a document's band and family keys.
    keys: Vec<u64>,
    /// Speculating: the verifications made, by the candidate's sequence number, kept with
    /// the lookup ([`Found::checked`]).
    recording: bool,
    /// Looking a document up again after its speculation failed: the verifications its
    /// speculation made (sorted by sequence number), which need not be made again (a
    /// verification depends on the two documents alone, and a sequence number names one).
    known: Vec<(u64, Option<f64>)>,
    /// Speculations' rankings, freed beside the commit.
    leftovers: Discards<Found>,
}

/// A decided document's lookup, when it holds a speculation's ranking (hundreds of
/// candidates in a template family, allocated by the thread that speculated): freed beside
/// the commit. A small lookup, and the document's signature, are freed here: handing each
/// over cost more than freeing it (a million short lines).
fn discard(scratch: &mut Scratch, window: &Window, found: Found) {
    if let Some(ranking) = &found.ranking
        && window.has_chores()
    {
        let bytes = (ranking.capacity() + found.checked.capacity()) * 16;
        if let Some(full) = scratch.leftovers.add(found, bytes) {
            window.drop_later(Box::new(full));
        }
    }
}

/// What a lookup of [`find_match`] read of the window besides the records of the
/// candidates: the copy index under the document's text hash, and the buckets of some of
/// its keys. A change to none of them leaves its answer as it was (`window/changed.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// The copy index only (an exact copy was found there).
    Copy,
    /// The copy index and the family keys' buckets.
    Family,
    /// The copy index and the buckets of every key (the LSH bands' too).
    Every,
}

/// A document's lookups made on another thread against the window as it stood before its
/// batch ([`speculate`]), for [`filter`] to use when nothing they read has changed since, or
/// to bring up to date from what changed ([`Window::reconcile`]).
pub(super) struct Speculated {
    /// What the `--against` reference gave (`None`: no reference). The reference never
    /// changes, so this holds whatever the batch did.
    reference: Option<Found>,
    /// What the window gave (`None`: not asked: the reference matched, or
    /// `--against-only`).
    window: Option<Found>,
    /// The document's family keys, made with the lookups (`Signed::fallbacks`).
    family_keys: Vec<u64>,
    /// Its place in its piece (set when the piece's speculations are gathered).
    pub(super) place: usize,
}

impl Speculated {
    /// The document's family keys.
    pub(super) fn family_keys(&self) -> &[u64] {
        &self.family_keys
    }

    /// Each key whose bucket the window lookup read (`band_keys`: the document's), for
    /// [`Window::will_read`]: the family keys, and the bands' too if the second tier ran.
    pub(super) fn read_keys(&self, band_keys: &[u64], mut each: impl FnMut(u64)) {
        let Some(found) = &self.window else {
            return;
        };
        if found.read == Read::Every {
            band_keys.iter().for_each(|&k| each(k));
        }
        if found.read != Read::Copy {
            self.family_keys.iter().for_each(|&k| each(k));
        }
    }

    /// Whether the window was looked up (the commit checks only that lookup).
    pub(super) fn looked_in_window(&self) -> bool {
        self.window.is_some()
    }
}

impl Filtering<'_> {
    /// These settings, speculating with rankings of at most `cap` candidates kept.
    pub(super) fn keeping_rankings(self, cap: usize) -> Self {
        Filtering {
            ranking_cap: cap,
            ..self
        }
    }
}

/// Looks `signed` up as [`filter`] would, reading `reference` and `window` only, with its
/// band keys and the family keys made from its fallbacks (counted in input order before,
/// [`Window::add_family_fallbacks`]).
/// Many threads may speculate on the same windows at once, each with its own `scratch`.
pub(super) fn speculate(
    settings: &Filtering<'_>,
    reference: Option<&Window>,
    window: &Window,
    signed: &Signed,
    scratch: &mut Scratch,
) -> std::io::Result<Speculated> {
    scratch.recording = true;
    scratch.known.clear();
    // The family keys, made when the document was counted in input order.
    let mut keys = std::mem::take(&mut scratch.keys);
    keys.clear();
    keys.extend_from_slice(&signed.band_keys);
    keys.extend_from_slice(&signed.family_keys);
    let looked = (|| {
        let reference = match reference {
            Some(r) => Some(find_match(settings, r, signed, &keys, scratch)?),
            None => None,
        };
        let matched = reference.as_ref().is_some_and(|f| f.best.is_some());
        let window = match matched || (reference.is_some() && settings.against_only) {
            true => None,
            false => Some(find_match(settings, window, signed, &keys, scratch)?),
        };
        std::io::Result::Ok((reference, window))
    })();
    let family_keys = keys[signed.band_keys.len()..].to_vec();
    scratch.keys = keys;
    scratch.recording = false;
    let (reference, mut window) = looked?;
    // In the order the commit looks them up in, sorted here on the thread that speculated.
    if let Some(found) = &mut window {
        found.checked.sort_unstable_by_key(|c| c.0);
    }
    Ok(Speculated {
        reference,
        window,
        family_keys,
        place: 0,
    })
}

/// Whether the speculated window lookup `found` of `signed` holds: nothing it read has
/// changed since [`Window::track_changes`].
fn still_holds(window: &Window, signed: &Signed, found: &Found) -> bool {
    let keys = match found.read {
        Read::Copy => &[][..],
        Read::Family => &signed.band_keys[window.band_count().min(signed.band_keys.len())..],
        Read::Every => &signed.band_keys[..],
    };
    !window.changed_since_tracking(keys, Some(signed.text_hash))
}

/// Decides one document of the filter modes, compared with the documents kept so far (never
/// with dropped ones): an exact copy of one (same normalised text: no LSH work at all), a
/// near duplicate of one (dropped), or new (kept: it enters the window as line `line`). So
/// no two kept documents in the window are at or above the threshold (up to LSH recall), and
/// a document is never dropped for resembling one that was dropped itself.
///
/// With `--against`, the reference is asked first, the same way: a document that matches a
/// reference document is dropped whatever the window holds, and does not enter it. With
/// `--against-only` the window is never asked nor filled.
///
/// The counts of `summary` that depend on the decision are updated here (candidates, pairs,
/// dropped); what is written is the caller's. The work is bounded whatever came before: see
/// [`find_match`].
#[allow(clippy::too_many_arguments)]
pub(super) fn filter(
    settings: &Filtering<'_>,
    reference: Option<&Window>,
    window: &mut Window,
    signed: Signed,
    line: u64,
    scratch: &mut Scratch,
    summary: &mut Summary,
    speculated: Option<Speculated>,
) -> Result<Decision> {
    let spill = |e| Error::spill(e, line);
    let mut signed = signed;
    let mut minima = std::mem::take(&mut signed.minima);
    // Counted by the run's counter as it was signed: the window takes the summaries it
    // hands over, or keeps the minima to count before a save.
    let counted = !matches!(signed.counting, Counting::Due);
    let bands = signed.band_keys.len();
    match std::mem::take(&mut signed.counting) {
        Counting::Ahead(Some(counts)) => window.take_counts(*counts, bands).map_err(spill)?,
        Counting::Ahead(None) => minima = window.counted_elsewhere(minima, bands),
        _ => {}
    }
    // A speculated document was counted in input order before its batch was looked up,
    // and its family keys made with its lookups.
    let (mut from_reference, mut from_window) = match speculated {
        Some(s) => {
            window.committing(s.place);
            signed.band_keys.extend_from_slice(&s.family_keys);
            (s.reference, s.window)
        }
        // Counted ahead (while an earlier piece was looked up, or by the run's counter),
        // then decided in order.
        None if counted => {
            signed.band_keys.extend_from_slice(&signed.family_keys);
            (None, None)
        }
        None => {
            window
                .add_family_keys(&minima, &mut signed.band_keys)
                .map_err(spill)?;
            (None, None)
        }
    };
    if let Some(reference) = reference {
        let found = match from_reference.take() {
            Some(found) => found,
            None => find_match(settings, reference, &signed, &signed.band_keys, scratch)
                .map_err(spill)?,
        };
        summary.candidates += found.verified;
        if let Some((held, similarity, copy)) = found.best {
            summary.dropped_reference += 1;
            summary.pairs += found.pairs;
            return Ok(Decision::Dup {
                held,
                in_reference: true,
                similarity,
                copy,
            });
        }
        if settings.against_only {
            return Ok(Decision::New { below: found.below });
        }
    }
    let found = match from_window.take() {
        Some(found) if still_holds(window, &signed, &found) => {
            summary.speculated += 1;
            found
        }
        // A failed speculation: its lookup brought up to date where it can be, else looked
        // up again; either way without verifying again what it verified.
        Some(mut stale) => {
            debug_assert!(stale.checked.is_sorted_by_key(|c| c.0));
            scratch.known = std::mem::take(&mut stale.checked);
            let reconciled = match &stale.ranking {
                Some(ranking) => {
                    let every = stale.read == Read::Every;
                    let (keys, sketch) = (&signed.band_keys[..], &signed.sketch);
                    let limit = settings.limit;
                    window.reconcile(
                        &mut scratch.reconciling,
                        (ranking, every),
                        keys,
                        sketch,
                        limit,
                    )
                }
                None => Reconciled::Unknown,
            };
            let found = match reconciled {
                // The buckets changed, what the lookup counted did not.
                Reconciled::Same if !window.copy_changed(signed.text_hash) => Some(stale),
                Reconciled::Changed => {
                    let found = look_up(
                        settings,
                        window,
                        &signed,
                        &signed.band_keys,
                        scratch,
                        Source::Reconciled,
                    );
                    let found = found.map_err(spill)?;
                    scratch.reconciled += u64::from(found.is_some());
                    found
                }
                Reconciled::Same | Reconciled::Unknown => None,
            };
            let found = match found {
                Some(found) => {
                    summary.speculated += 1;
                    Ok(found)
                }
                None => find_match(settings, window, &signed, &signed.band_keys, scratch),
            };
            scratch.known.clear();
            found.map_err(spill)?
        }
        None => find_match(settings, window, &signed, &signed.band_keys, scratch).map_err(spill)?,
    };
    summary.candidates += found.verified;
    summary.pairs += found.pairs;
    let Some((held, similarity, copy)) = found.best else {
        let held = window
            .insert(line, into_entry(signed, false))
            .map_err(spill)?;
        window.remember_minima(held, minima);
        let below = found.below;
        discard(scratch, window, found);
        return Ok(Decision::New { below });
    };
    // Only the first match is refreshed, so the window (and what is dropped) is the same in
    // the three modes.
    window.touch_in_buckets(found.first.unwrap_or(held), &signed.band_keys);
    discard(scratch, window, found);
    if copy {
        summary.dropped_exact += 1;
    } else {
        summary.dropped_near += 1;
    }
    Ok(Decision::Dup {
        held,
        in_reference: false,
        similarity,
        copy,
    })
}

/// `--report`: candidates refused whose full similarity is computed, the first ones verified
/// (the most similar by their sketches), so that the report's cost per document is bounded.
const REPORT_BELOW: usize = 4;

/// What [`find_match`] found in a window.
pub(super) struct Found {
    /// The most similar document checked (ties: the earliest), its similarity, and whether
    /// it is an exact copy.
    best: Option<(Held, f64, bool)>,
    /// The first match verified (the one the filter refreshes); none for a copy.
    first: Option<Held>,
    /// Candidates verified.
    verified: u64,
    /// Matches found.
    pairs: u64,
    /// `--report`: the highest similarity of a candidate below the threshold, among the
    /// first [`REPORT_BELOW`] refused.
    below: Option<f64>,
    /// What the lookup read of the window.
    read: Read,
    /// Speculating: each candidate verified (sequence number, the verifier's answer), in
    /// sequence order once [`speculate`] returns.
    checked: Vec<(u64, Option<f64>)>,
    /// Speculating: every candidate ranked, both tiers (`None`: not kept, more than
    /// [`Filtering::ranking_cap`]), for [`Window::reconcile`].
    ranking: Option<Vec<(Rank, Held)>>,
}

/// Where [`look_up`] takes its candidates from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The window's buckets as they are.
    Fresh,
    /// A speculated lookup brought up to date with the buckets changed since
    /// ([`Window::reconcile`], in the scratch's `reconciling`).
    Reconciled,
}

/// Looks a document up in `window` as the filter modes do: an exact copy of a held
/// document (same normalised text) is found in the copy index with no LSH work; otherwise
/// candidates are verified in the order of [`Window::ranked_candidates`] (most similar by
/// the sketches first), at most [`Config::max_candidates`] of them, so the work is bounded
/// whatever the window holds. `--drop-dups` and `--only-dups` stop at the first match; `--annotate` goes
/// on through the bounded list to name the most similar.
fn find_match(
    settings: &Filtering<'_>,
    window: &Window,
    signed: &Signed,
    keys: &[u64],
    scratch: &mut Scratch,
) -> std::io::Result<Found> {
    match look_up(settings, window, signed, keys, scratch, Source::Fresh)? {
        Some(found) => Ok(found),
        None => Err(std::io::Error::other(
            "a lookup of the window gave no answer",
        )),
    }
}

/// [`find_match`] with the candidates from `source`; `None` when a reconciled lookup cannot
/// give the fresh lookup's candidates (the caller looks up afresh).
fn look_up(
    settings: &Filtering<'_>,
    window: &Window,
    signed: &Signed,
    keys: &[u64],
    scratch: &mut Scratch,
    source: Source,
) -> std::io::Result<Option<Found>> {
    if let Some(held) = window.find_copy(signed.text_hash)? {
        return Ok(Some(Found {
            best: Some((held, 1.0, true)),
            first: None,
            verified: 0,
            pairs: 1,
            below: None,
            read: Read::Copy,
            checked: Vec::new(),
            ranking: None,
        }));
    }
    let Scratch {
        candidates,
        matches,
        lookup,
        reconciling,
        recording,
        known,
        ..
    } = scratch;
    let mut checked = Vec::new();
    let Filtering {
        verifier,
        limit,
        every_match,
        report,
        ranking_cap,
        ..
    } = *settings;
    matches.clear();
    let mut verified = 0;
    let mut below: Option<f64> = None;
    let mut refused = 0;
    // Verifies in order until a match ends the search; true when it did not.
    let mut verify = |window: &Window, candidates: &[Held]| {
        let mut more = true;
        window.visit_while(candidates, |held, entry| {
            verified += 1;
            let decided = match known.binary_search_by_key(&held.seq, |k| k.0) {
                Ok(at) => known[at].1,
                Err(_) => verifier.decide(entry.compared(), signed.compared()),
            };
            if *recording {
                checked.push((held.seq, decided));
            }
            if let Some(s) = decided {
                matches.push((held, s));
                more = every_match;
            } else if report
                && refused < REPORT_BELOW
                && let Some(s) = verifier.similarity_below(entry.compared(), signed.compared())
            {
                refused += 1;
                below = Some(below.map_or(s, |b| b.max(s)));
            }
            more
        })?;
        std::io::Result::Ok(more)
    };
    let sketch = &signed.sketch;
    let mut ranking = (*recording).then(Vec::new);
    let mut keep = |lookup: &Lookup| {
        if let Some(kept) = &mut ranking {
            match kept.len() + lookup.ranked().len() <= ranking_cap {
                true => kept.extend_from_slice(lookup.ranked()),
                false => ranking = None,
            }
        }
    };
    let mut reconciled = true;
    let rest = match source {
        Source::Fresh => {
            let rest = window.ranked_candidates_in(lookup, keys, sketch, limit, candidates);
            keep(lookup);
            rest.limit
        }
        Source::Reconciled => window.reconciled_first(reconciling, limit, candidates),
    };
    // The LSH bands are looked up only when the family keys' candidates left room.
    let mut read = Read::Family;
    if verify(window, candidates)? && rest > 0 {
        read = Read::Every;
        match source {
            Source::Fresh => {
                let rest = crate::window::Rest { limit: rest };
                window.ranked_rest_in(lookup, keys, sketch, rest, candidates);
                keep(lookup);
            }
            Source::Reconciled => {
                reconciled = window.reconciled_rest(reconciling, rest, candidates)
            }
        }
        if !reconciled {
            return Ok(None);
        }
        verify(window, candidates)?;
    }
    let best = matches.iter().copied().reduce(|b, m| {
        if m.1 > b.1 || (m.1 == b.1 && m.0.seq < b.0.seq) {
            m
        } else {
            b
        }
    });
    Ok(Some(Found {
        best: best.map(|(held, s)| (held, s, false)),
        first: matches.first().map(|m| m.0),
        verified,
        pairs: matches.len() as u64,
        below,
        read,
        checked,
        ranking,
    }))
}

/// What the window keeps of a signed document. `--pairs` never asks the exact index (copies
/// go through LSH to find all their pairs), so the text hash is not indexed there.
pub(super) fn into_entry(signed: Signed, pairs_mode: bool) -> Entry {
    Entry {
        id: signed.id,
        shingles: signed.shingles,
        weights: signed.weights,
        text: signed.text.map(String::from).unwrap_or_default(),
        total_weight: signed.total_weight,
        signature: signed.signature,
        band_keys: signed.band_keys,
        sketch: signed.sketch,
        copy_key: (!pairs_mode).then_some(signed.text_hash),
        text_hash: signed.text_hash,
    }
}
