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
//! with the last document of each batch ([`super::signing::Counting::Ahead`]); the window
//! takes them when it decides that document, and a save mid-batch counts the documents
//! decided since ([`crate::window::Window::settle_counts`]). Every document is counted
//! once, in the same order, whatever the thread count: the same keys as counting in order.

use super::signing::{Counting, Doc};
use crate::window::Family;
use std::sync::{Condvar, Mutex, PoisonError};

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

    /// Counts the documents of batch `ordinal` (signed), once every batch before it is
    /// counted: each good document with minima gets its fallbacks and
    /// [`Counting::Ahead`], the last of them and the one that ends the warm-up with the
    /// summaries after it.
    pub(crate) fn count(&self, ordinal: u64, docs: &mut [Doc]) {
        let turn = self.turn.lock().unwrap_or_else(PoisonError::into_inner);
        let mut turn = self
            .next_turn
            .wait_while(turn, |t| t.next != ordinal && !t.closed)
            .unwrap_or_else(PoisonError::into_inner);
        if turn.closed {
            return;
        }
        let counted = |d: &Doc| matches!(d, Doc::Good(s) if !s.minima.is_empty());
        let last = docs.iter().rposition(counted);
        for (i, doc) in docs.iter_mut().enumerate() {
            let Doc::Good(signed) = doc else { continue };
            if signed.minima.is_empty() {
                continue;
            }
            let warming = turn.family.warming();
            turn.family
                .fallbacks_then_count(&signed.minima, &mut signed.fallbacks);
            let handed = Some(i) == last || (warming && !turn.family.warming());
            signed.counting = Counting::Ahead(handed.then(|| Box::new(turn.family.counts())));
        }
        turn.next += 1;
        drop(turn);
        self.next_turn.notify_all();
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
    use crate::pipeline::signing::Signed;

    fn doc(minima: Vec<u32>) -> Doc {
        Doc::Good(Signed {
            minima,
            ..Signed::for_tests()
        })
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
                expected.push(fallbacks);
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
                        counts.count(ordinal, docs);
                    }
                });
            }
        });
        let got: Vec<Vec<u64>> = signed
            .iter()
            .flatten()
            .map(|d| match d {
                Doc::Good(s) => s.fallbacks.clone(),
                Doc::Bad(_) => unreachable!(),
            })
            .collect();
        assert_eq!(got, expected);
        // Each batch's last document carries the counts after it; so does the warm-up's end.
        let handed: Vec<usize> = signed
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, d)| matches!(d, Doc::Good(s) if matches!(s.counting, Counting::Ahead(Some(_)))))
            .map(|(i, _)| i)
            .collect();
        let mut want: Vec<usize> = (0..40).map(|b| b * 50 + 49).collect();
        want.push(warm_end.expect("2,000 documents end the warm-up"));
        want.sort_unstable();
        assert_eq!(handed, want);
        let Doc::Good(last) = &signed[39][49] else {
            unreachable!()
        };
        let Counting::Ahead(Some(family)) = &last.counting else {
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
            let waiting = scope.spawn(move || counts.count(1, &mut docs));
            std::thread::sleep(std::time::Duration::from_millis(20));
            counts.close();
            waiting.join().unwrap();
        });
    }
}
