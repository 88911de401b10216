//! The ordered executor both pipelines sign with (the binary's [`super::run`] and the
//! in-process [`super::Deduper`]): each job goes to the signing threads with a one-shot
//! result slot of its own, the slots go to the one consumer in submission order (the
//! ordered-pipeline pattern of gzp), and the consumer waits for each slot in turn, doing
//! jobs no thread has taken yet while it waits. So results are consumed in input order
//! whatever the scheduling, and the consuming thread is a signing thread too: it never idles
//! while there is signing to do.

use crate::error::{Error, Result};
use crossbeam_channel::{Receiver, Sender, bounded};

/// A job on its way to a signing thread, with the slot its result goes to.
pub(super) struct Task<J, R> {
    job: J,
    slot: Sender<R>,
}

/// Where the consumer reads a [`Task`]'s result.
pub(super) type Slot<R> = Receiver<R>;

impl<J, R> Task<J, R> {
    /// A task for `job`, and the slot its result will arrive in.
    pub(super) fn new(job: J) -> (Task<J, R>, Slot<R>) {
        let (slot, result) = bounded(1);
        (Task { job, slot }, result)
    }

    /// Runs the job with `run` and puts the result in its slot. The consumer may have stopped
    /// (a closed pipe, a bad line under `fail`); then nobody wants the result.
    pub(super) fn run(self, run: impl FnOnce(J) -> R) {
        let _ = self.slot.send(run(self.job));
    }
}

/// A signing thread's loop: runs every task of `work` until the channel closes.
pub(super) fn serve<J, R>(work: Receiver<Task<J, R>>, mut run: impl FnMut(J) -> R) {
    for task in work {
        task.run(&mut run);
    }
}

/// The result of `slot`, the next in order. While it is not ready, this thread runs the
/// tasks of `work` no thread has taken yet (later ones: their results wait in their slots).
/// An error when the slot's task was lost (its thread panicked).
pub(super) fn wait_in_order<J, R>(
    slot: &Slot<R>,
    work: Option<&Receiver<Task<J, R>>>,
    mut run: impl FnMut(J) -> R,
) -> Result<R> {
    let lost = || Error::Internal("a signing thread panicked".into());
    loop {
        if let Ok(done) = slot.try_recv() {
            return Ok(done);
        }
        let Some(work) = work else {
            return slot.recv().map_err(|_| lost());
        };
        let task = crossbeam_channel::select! {
            recv(slot) -> done => return done.map_err(|_| lost()),
            recv(work) -> task => task,
        };
        match task {
            Ok(task) => task.run(&mut run),
            // Nothing is left to run: the slot's task is on another thread.
            Err(_) => return slot.recv().map_err(|_| lost()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_submission_order_whoever_runs_them() {
        let (work_tx, work_rx) = bounded::<Task<u32, u32>>(64);
        let mut slots = Vec::new();
        for job in 0..50 {
            let (task, slot) = Task::new(job);
            work_tx.send(task).unwrap();
            slots.push(slot);
        }
        drop(work_tx);
        let mut by_consumer = 0;
        let results: Vec<u32> = std::thread::scope(|scope| {
            let other = work_rx.clone();
            scope.spawn(move || serve(other, |j| j * 10));
            slots
                .iter()
                .map(|slot| {
                    wait_in_order(slot, Some(&work_rx), |j| {
                        by_consumer += 1;
                        j * 10
                    })
                    .unwrap()
                })
                .collect()
        });
        assert_eq!(results, (0..50).map(|j| j * 10).collect::<Vec<_>>());
        assert!(by_consumer <= 50);
    }

    #[test]
    fn a_lost_task_is_an_error_not_a_hang() {
        let (task, slot) = Task::<u32, u32>::new(1);
        drop(task);
        let e = wait_in_order::<u32, u32>(&slot, None, |j| j).unwrap_err();
        assert!(e.to_string().contains("panicked"), "{e}");
    }
}
