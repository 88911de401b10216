//! How the filter's speculation cuts a batch into pieces ([`Pace`]), kept by the filter
//! from batch to batch (`filter.rs`) and followed by `speculate.rs`; and whether it pays
//! at all ([`Costs`]).

use std::time::{Duration, Instant};

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
    /// The piece being decided, as `speculate.rs` began it ([`Pace::begin`]).
    begun: Option<Begun>,
    /// Whether speculation is weighed against deciding in order (`--helpers auto`).
    weighed: bool,
    costs: Costs,
}

/// A piece being decided, for [`Costs`]: when it started, its documents, and what it is.
#[derive(Clone, Copy, Debug)]
struct Begun {
    started: Instant,
    docs: usize,
    kind: Kind,
}

/// What a piece was, for [`Costs`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Not offered to the helpers (they were not called for, or too few documents).
    #[default]
    Other,
    /// Speculated on the helpers, then committed.
    Speculated,
    /// Offered, but decided in order: speculation was resting.
    Rested,
}

/// Whether speculating pays: the sequencer's time per document speculating (its share of
/// the lookups, the waits for the helpers' and the commit) against deciding in order,
/// measured on the pieces of each kind while signed batches wait for it (so neither waits
/// for input). Speculation moves lookups off the in-order thread; where the lookups are
/// cheap beside what stays in order (short documents: inserting them is most of the
/// work), the hand-overs, the recording of changes and the caches shared across cores cost
/// more than that saves, and `--helpers auto` then decides in order for a while (twice as
/// long each time speculation loses again, four times where it lost by far), and weighs
/// again. It changes the speed only, never a decision.
#[derive(Debug)]
struct Costs {
    /// Time and documents of the pieces speculated and of those decided in order while
    /// resting, since they were last weighed.
    speculated: (Duration, u64),
    in_order: (Duration, u64),
    /// Documents speculated before the two are weighed.
    weigh_after: u64,
    /// Batches the next rest lasts when speculation loses.
    rest: u32,
}

impl Default for Costs {
    fn default() -> Costs {
        Costs {
            speculated: (Duration::ZERO, 0),
            in_order: (Duration::ZERO, 0),
            weigh_after: WEIGH_AFTER,
            rest: LOSING_REST,
        }
    }
}

/// Documents speculated before speculating is first weighed against deciding in order.
const WEIGH_AFTER: u64 = 16_384;
/// Documents speculated before weighing again after speculating lost by far.
const WEIGH_AGAIN_AFTER: u64 = WEIGH_AFTER / 4;
/// At most this many between two weighings where speculating pays.
const MAX_WEIGH_AFTER: u64 = 1 << 20;
/// Batches decided in order to measure that, when there is no recent figure.
const PROBE_BATCHES: u32 = 4;
/// Batches of the first rest when speculating does not pay, and of the longest.
const LOSING_REST: u32 = 16;
const MAX_LOSING_REST: u32 = 1024;

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            piece: 256,
            base: 0,
            tried: 0,
            held_before: 0,
            reconciled_before: 0,
            resting: 0,
            begun: None,
            weighed: false,
            costs: Costs::default(),
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

    /// A piece of `docs` documents begins now (`weighed`: under `--helpers auto`); what it
    /// is, [`Pace::found`] says ([`Kind::Other`] until then).
    pub(super) fn begin(&mut self, docs: usize, weighed: bool) {
        self.weighed = weighed;
        self.begun = Some(Begun {
            started: Instant::now(),
            docs,
            kind: Kind::Other,
        });
    }

    /// What the piece begun is: speculated, or decided in order during a rest.
    pub(super) fn found(&mut self, kind: Kind) {
        if let Some(begun) = &mut self.begun {
            begun.kind = kind;
        }
    }

    /// After a piece, ended at `now`: `speculated` is `summary.speculated` now (decided
    /// from a speculation, unchanged or brought up to date), `reconciled` how many were
    /// brought up to date.
    pub(super) fn adapt(&mut self, speculated: u64, reconciled: u64, now: Instant) {
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
        self.weigh(now);
    }

    /// Counts the piece just decided ([`Pace::begin`]) towards its kind's cost, ended at
    /// `now`, and weighs speculating against deciding in order when enough of both is
    /// known ([`Costs`]).
    fn weigh(&mut self, now: Instant) {
        // Only a piece begun in `speculate.rs` is counted: the time between pieces (and
        // between a program's batches) is neither's.
        let Some(Begun {
            started,
            docs,
            kind,
        }) = self.begun.take()
        else {
            return;
        };
        if !self.weighed {
            return;
        }
        let costs = &mut self.costs;
        let spent = now.saturating_duration_since(started);
        let add = |(time, count): &mut (Duration, u64)| {
            *time += spent;
            *count += docs as u64;
        };
        match kind {
            Kind::Speculated => add(&mut costs.speculated),
            // The last batches of a rest: the in-order cost next to the speculation it is
            // weighed against (a window's cost per document grows as it fills).
            Kind::Rested if self.resting < PROBE_BATCHES => add(&mut costs.in_order),
            Kind::Rested | Kind::Other => return,
        }
        if kind != Kind::Speculated || self.resting > 0 || costs.speculated.1 < costs.weigh_after {
            return;
        }
        let (in_order, in_order_docs) = costs.in_order;
        if in_order_docs == 0 {
            // No figure for deciding in order yet: a few batches measure it.
            self.resting = PROBE_BATCHES;
            return;
        }
        let (speculated, speculated_docs) = costs.speculated;
        // Per document, speculating is dropped when it is a tenth slower than deciding in
        // order: where it gains, it gains little on few cores (a few hundredths where a
        // template's lookups are most of the work), and where it loses, it loses much
        // (twice the time on short documents); the margin keeps the host's noise from
        // resting where it gains.
        let pays = speculated.as_nanos() * u128::from(in_order_docs) * 10
            <= in_order.as_nanos() * u128::from(speculated_docs) * 11;
        match pays {
            true => {
                costs.weigh_after = (costs.weigh_after * 4).min(MAX_WEIGH_AFTER);
                costs.rest = LOSING_REST;
            }
            false => {
                self.resting = costs.rest;
                // Lost by half again the time (short documents: twice): the next rests are
                // longer sooner, and the next weighing needs fewer documents to see it again.
                let far = speculated.as_nanos() * u128::from(in_order_docs) * 2
                    > in_order.as_nanos() * u128::from(speculated_docs) * 3;
                costs.rest = (costs.rest * if far { 4 } else { 2 }).min(MAX_LOSING_REST);
                costs.weigh_after = if far { WEIGH_AGAIN_AFTER } else { WEIGH_AFTER };
            }
        }
        costs.speculated = (Duration::ZERO, 0);
        costs.in_order = (Duration::ZERO, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces of 1,000 documents, each `micros` per document, of `kind`, from `at`; the
    /// pace adapting after each as the filter's commit makes it (every speculation held).
    fn pieces(pace: &mut Pace, at: &mut Instant, kind: Kind, micros: u64, count: usize) {
        for _ in 0..count {
            pace.begun = Some(Begun {
                started: *at,
                docs: 1000,
                kind,
            });
            *at += Duration::from_micros(micros * 1000);
            pace.adapt(0, 0, *at);
            // Time between pieces is neither's.
            *at += Duration::from_millis(50);
        }
    }

    /// Where speculating costs twice what deciding in order does (short documents), the
    /// pace measures both and rests, longer when it loses again; where it gains, it
    /// goes on, weighing again less often; under `--helpers always` it never weighs.
    #[test]
    fn speculation_rests_where_it_costs_more_than_deciding_in_order() {
        let mut at = Instant::now();
        let mut pace = Pace {
            weighed: true,
            ..Pace::default()
        };
        pieces(&mut pace, &mut at, Kind::Speculated, 4, 16);
        assert_eq!(pace.resting, 0, "too few documents to weigh");
        pieces(&mut pace, &mut at, Kind::Speculated, 4, 1);
        assert_eq!(
            pace.resting, PROBE_BATCHES,
            "no figure in order: measured first"
        );
        pieces(&mut pace, &mut at, Kind::Rested, 2, PROBE_BATCHES as usize);
        assert_eq!(pace.resting, 0);
        pieces(&mut pace, &mut at, Kind::Speculated, 4, 1);
        assert_eq!(pace.resting, LOSING_REST, "twice the cost: a rest");
        // Lost by far: weighed again after fewer documents, and rests four times as long.
        pieces(&mut pace, &mut at, Kind::Rested, 2, LOSING_REST as usize);
        pieces(&mut pace, &mut at, Kind::Speculated, 4, 4);
        assert_eq!(
            pace.resting, 0,
            "not weighed before {WEIGH_AGAIN_AFTER} documents"
        );
        pieces(&mut pace, &mut at, Kind::Speculated, 4, 1);
        assert_eq!(
            pace.resting,
            4 * LOSING_REST,
            "lost again: four times as long"
        );
        pieces(
            &mut pace,
            &mut at,
            Kind::Rested,
            2,
            4 * LOSING_REST as usize,
        );
        // Now speculating gains (longer documents): it goes on, weighed again later.
        pieces(&mut pace, &mut at, Kind::Speculated, 1, 5);
        assert_eq!(pace.resting, 0);
        assert_eq!(pace.costs.weigh_after, 4 * WEIGH_AGAIN_AFTER);
        assert_eq!(pace.costs.rest, LOSING_REST);
        // A few hundredths slower is within the margin: no rest.
        pieces(&mut pace, &mut at, Kind::Speculated, 105, 17);
        assert_eq!(pace.resting, PROBE_BATCHES);
        pieces(
            &mut pace,
            &mut at,
            Kind::Rested,
            100,
            PROBE_BATCHES as usize,
        );
        pieces(&mut pace, &mut at, Kind::Speculated, 105, 1);
        assert_eq!(pace.resting, 0, "{:?}", pace.costs);

        let mut always = Pace::default();
        pieces(&mut always, &mut at, Kind::Speculated, 4, 100);
        assert_eq!(always.resting, 0, "not weighed");
    }
}
