//! The filter's family summaries counted beside the commit: each batch's documents are
//! counted in input order by the thread that signed the batch, once every batch before it
//! is counted, instead of by the in-order commit.
//!
//! A document's family keys depend on the summaries as the documents before it left them
//! (each document with minima is counted, kept or dropped), not on any decision, so the
//! counting can run ahead of the decisions on whichever thread signs. Two things the window
//! needs from the summaries do depend on where the decisions are: the warm-up's end, where
//! the documents kept so far are keyed again with the summaries of that moment, and a
//! `--state` save, which keeps the summaries after the last document decided. So the
//! counter hands the window a copy of the counts with the document that ends the warm-up and
//! with the last document of each batch ([`Counting::Ahead`]); the window
//! takes them when it decides that document, and a save mid-batch counts the documents
//! decided since ([`crate::window::Window::settle_counts`]). Every document is counted
//! once, in the same order, whatever the thread count: the same keys as counting in order.

use crate::window::{Family, Window};
use std::sync::{Condvar, Mutex, PoisonError};

/// Whether a filter document was counted in the family summaries (its fallbacks made), and
/// where: the summaries count every document in input order, before its lookup.
#[derive(Debug, Default)]
pub enum Counting {
    /// Not yet: its decision counts it in the window's summaries.
    #[default]
    Due,
    /// In the window's summaries, before its piece was looked up (`speculate.rs`).
    InWindow,
    /// By the run's counter as its batch was signed ([`FamilyCounts`]), with the summaries
    /// after it when it is the last of its batch counted or ends the warm-up (the window
    /// takes them then: [`crate::window::Window::take_counts`]).
    Ahead(Option<Box<Family>>),
}

/// What the counter reads and writes of a document with minima.
pub(crate) struct Counted<'d> {
    /// Its MinHash minima.
    pub minima: &'d [u32],
    /// Its family keys, made from the fallback values the count gives it.
    pub family_keys: &'d mut Vec<u64>,
    /// Set to [`Counting::Ahead`].
    pub counting: &'d mut Counting,
}

/// The run's family summaries and whose turn it is to count.
#[derive(Debug)]
pub(crate) struct FamilyCounts {
    turn: Mutex<Turn>,
    next_turn: Condvar,
}

#[derive(Debug)]
struct Turn {
    /// The summaries after every batch before `next`.
    family: Family,
    /// The next batch to count (its [`crate::input::Batch::ordinal`]).
    next: u64,
    /// The run has ended: a thread waiting for its turn stops waiting (the batch before it
    /// will not be counted).
    closed: bool,
}

impl FamilyCounts {
    /// A counter starting from `family` (the counts a resumed window was saved with).
    pub(crate) fn new(family: &Family) -> FamilyCounts {
        FamilyCounts {
            turn: Mutex::new(Turn {
                family: family.counts(),
                next: 0,
                closed: false,
            }),
            next_turn: Condvar::new(),
        }
    }

    /// Counts the documents with minima of batch `ordinal` (signed, in input order), once
    /// every batch before it is counted: each gets its family keys and [`Counting::Ahead`],
    /// the last and the one that ends the warm-up with the summaries after it.
    pub(crate) fn count(&self, ordinal: u64, docs: &mut [Counted<'_>]) {
        let turn = self.turn.lock().unwrap_or_else(PoisonError::into_inner);
        let mut turn = self
            .next_turn
            .wait_while(turn, |t| t.next != ordinal && !t.closed)
            .unwrap_or_else(PoisonError::into_inner);
        if turn.closed {
            return;
        }
        let last = docs.len().wrapping_sub(1);
        for (i, doc) in docs.iter_mut().enumerate() {
            let warming = turn.family.warming();
            turn.family
                .fallbacks_then_count(doc.minima, doc.family_keys);
            let handed = i == last || (warming && !turn.family.warming());
            *doc.counting = Counting::Ahead(handed.then(|| Box::new(turn.family.counts())));
        }
        turn.next += 1;
        drop(turn);
        self.next_turn.notify_all();
        // The keys depend on the fallbacks alone: made after the turn, so that the next
        // batch's counting does not wait for them, and on this thread, so that the lookups
        // (the sequencer's share of them) do not make them.
        let mut fallbacks = Vec::new();
        for doc in docs.iter_mut() {
            std::mem::swap(&mut fallbacks, doc.family_keys);
            doc.family_keys.clear();
            Window::family_keys_of(&fallbacks, doc.family_keys);
        }
    }

    /// The run has ended: threads waiting for their turn return without counting.
    pub(crate) fn close(&self) {
        self.turn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closed = true;
        self.next_turn.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document as the counter sees it: minima, family keys, counting.
    type Doc = (Vec<u32>, Vec<u64>, Counting);

    fn doc(minima: Vec<u32>) -> Doc {
        (minima, Vec::new(), Counting::Due)
    }

    fn count(counts: &FamilyCounts, ordinal: u64, docs: &mut [Doc]) {
        let mut counted: Vec<Counted<'_>> = docs
            .iter_mut()
            .map(|(minima, family_keys, counting)| Counted {
                minima,
                family_keys,
                counting,
            })
            .collect();
        counts.count(ordinal, &mut counted);
    }

    /// Templated minima: row values shared by every document but a few changed rows.
    fn templated(n: u32) -> Vec<u32> {
        (0..128u32)
            .map(|row| match row % 7 == n % 7 && row < 40 {
                true => 1_000_000 + n,
                false => row * 31 + (row == (n % 5) * 3) as u32,
            })
            .collect()
    }

    #[test]
    fn batches_counted_on_any_thread_give_the_in_order_counts() {
        let batches: Vec<Vec<u32>> = (0..40).map(|b| (b * 50..b * 50 + 50).collect()).collect();
        // In order, on one thread.
        let mut alone = Family::default();
        let (mut expected, mut warm_end) = (Vec::new(), None);
        for batch in &batches {
            for &n in batch {
                let (mut fallbacks, warming) = (Vec::new(), alone.warming());
                alone.fallbacks_then_count(&templated(n), &mut fallbacks);
                if warming && !alone.warming() {
                    warm_end = Some(expected.len());
                }
                let mut keys = Vec::new();
                Window::family_keys_of(&fallbacks, &mut keys);
                expected.push(keys);
            }
        }
        // Out of order, on four threads.
        let counts = FamilyCounts::new(&Family::default());
        let mut signed: Vec<Vec<Doc>> = batches
            .iter()
            .map(|b| b.iter().map(|&n| doc(templated(n))).collect())
            .collect();
        std::thread::scope(|scope| {
            let counts = &counts;
            // Each thread takes its batches in input order, as signing threads take them
            // from the queue; the threads start at different times.
            let mut chunks: Vec<Vec<(u64, &mut Vec<Doc>)>> = (0..4).map(|_| Vec::new()).collect();
            for (b, docs) in signed.iter_mut().enumerate() {
                chunks[b % 4].push((b as u64, docs));
            }
            for (t, chunk) in chunks.into_iter().enumerate().rev() {
                scope.spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(5 * t as u64));
                    for (ordinal, docs) in chunk {
                        count(counts, ordinal, docs);
                    }
                });
            }
        });
        let got: Vec<Vec<u64>> = signed.iter().flatten().map(|d| d.1.clone()).collect();
        assert_eq!(got, expected);
        // Each batch's last document carries the counts after it; so does the warm-up's end.
        let handed: Vec<usize> = (signed.iter().flatten().enumerate())
            .filter(|(_, d)| matches!(d.2, Counting::Ahead(Some(_))))
            .map(|(i, _)| i)
            .collect();
        let mut want: Vec<usize> = (0..40).map(|b| b * 50 + 49).collect();
        want.push(warm_end.expect("2,000 documents end the warm-up"));
        want.sort_unstable();
        assert_eq!(handed, want);
        let Counting::Ahead(Some(family)) = &signed[39][49].2 else {
            unreachable!()
        };
        assert_eq!(**family, alone.counts());
    }

    #[test]
    fn a_closed_run_does_not_wait_for_a_batch_never_counted() {
        let counts = FamilyCounts::new(&Family::default());
        let mut docs = vec![doc(templated(1))];
        std::thread::scope(|scope| {
            let counts = &counts;
            let waiting = scope.spawn(move || count(counts, 1, &mut docs));
            std::thread::sleep(std::time::Duration::from_millis(20));
            counts.close();
            waiting.join().unwrap();
        });
    }
}
