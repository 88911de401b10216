//! A program's batch signed on every thread and handed over in order
//! ([`super::Deduper::add_many`], [`super::Deduper::add_reference`]): the command line's
//! ordered executor (`super::ordered`) over chunks of the batch, the calling thread signing a
//! waiting chunk rather than wait, and, for the filter's speculation, helper threads started
//! for the batch.

use super::helpers::Helpers;
use super::ordered::{self, Slot, Task};
use super::signing::{Doc, Worker};
use crate::config::{Config, HelperPolicy};
use crate::error::{Error, Result};
use crate::input::{BadLine, DocId};
use crossbeam_channel::bounded;

/// Documents signed together by one thread.
const CHUNK: usize = 256;

/// Chunks per thread signed ahead of the decisions.
const AHEAD: usize = 4;

/// A document's text as it is handed over: a `str`, or (`None`) a missing value (a null in
/// a table), which is not a document, as a JSON line without its text is not.
pub trait DocText: Sync {
    /// The text, or `None` for a missing value.
    fn text(&self) -> Option<&str>;
}

impl DocText for &str {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl DocText for String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl DocText for &String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl DocText for Option<&str> {
    fn text(&self) -> Option<&str> {
        *self
    }
}

impl DocText for Option<String> {
    fn text(&self) -> Option<&str> {
        self.as_deref()
    }
}

/// Signs `docs` (numbered from `first`: the ids of those without one) on every worker and
/// hands each chunk to `take` in order, with its texts, the caller's worker signing a
/// waiting chunk rather than wait; `take`'s error stops the batch. With `helpers` (the
/// run's settings, how many, the clock they count their CPU on), that many helper threads
/// start for the batch and `take` gets them for a chunk when the signing is ahead of the
/// decisions (`--helpers auto`: [`BEHIND`] chunks signed and waiting, or every chunk
/// signed) or always.
pub(super) fn sign_in_order<'c, T: DocText>(
    workers: &mut [Worker],
    docs: &[(T, Option<DocId>)],
    first: u64,
    helpers: Option<(&'c Config, usize, &super::clock::StageClock)>,
    mut take: impl FnMut(Vec<Doc>, &[(T, Option<DocId>)], Option<&Helpers<'c>>) -> Result<()>,
) -> Result<()> {
    let chunks: Vec<_> = docs.chunks(CHUNK).collect();
    let (deciding, signers) = split_workers(workers, chunks.len());
    let ahead = AHEAD * (signers.len() + 1);
    let (work_tx, work_rx) = bounded::<Task<usize, Vec<Doc>>>(ahead);
    let sign = |worker: &mut Worker, i: usize| -> Vec<Doc> {
        let start = first + (i * CHUNK) as u64;
        let chunk: &[(T, Option<DocId>)] = chunks[i];
        chunk
            .iter()
            .zip(start..)
            .map(|((text, id), number)| {
                let id = id.clone().unwrap_or(DocId::Line(number));
                match text.text() {
                    Some(text) => worker.sign_text(text, id),
                    None => Doc::Bad(BadLine::Missing),
                }
            })
            .collect()
    };
    std::thread::scope(|scope| -> Result<()> {
        for worker in signers {
            let work_rx = work_rx.clone();
            let sign = &sign;
            crate::guard::spawn_scoped(scope, "neardup-signer", move || {
                // The worker was made on the calling thread.
                crate::text::shingle::prepare_thread();
                ordered::serve(work_rx, |i| sign(worker, i))
            });
        }
        // Helpers start only for a batch that can use them (`auto` waits for chunks signed
        // ahead; a piece shorter than the speculation's least is decided in order): a
        // program handing over small batches does not start threads on every call.
        let helping = helpers.and_then(|(config, count, clock)| {
            let usable = match config.helpers {
                HelperPolicy::Always => docs.len() >= super::speculate::SPECULATE_DOCS,
                _ => chunks.len() > BEHIND,
            };
            usable.then(|| (Helpers::start(scope, (count, 0), clock).0, config.helpers))
        });
        let mut slots = std::collections::VecDeque::<Slot<Vec<Doc>>>::new();
        let mut queued = 0;
        let result = (|| {
            for k in 0..chunks.len() {
                while queued < chunks.len() && slots.len() < ahead {
                    let (task, slot) = Task::new(queued);
                    work_tx
                        .send(task)
                        .map_err(|_| Error::Internal("the signing threads stopped".into()))?;
                    slots.push_back(slot);
                    queued += 1;
                }
                let Some(slot) = slots.pop_front() else {
                    break;
                };
                // Signs a waiting chunk (maybe this one) rather than wait.
                let signed = ordered::wait_in_order(&slot, Some(&work_rx), |i| sign(deciding, i))?;
                let signed_ahead = slots.iter().filter(|s| !s.is_empty()).count();
                // Every chunk handed out and signed: the signing threads have nothing left
                // to do, and the last chunks cost the most where the window's work grows.
                let idle = queued == chunks.len() && signed_ahead == slots.len();
                let help = match &helping {
                    Some((helpers, policy)) if policy.calls(signed_ahead, BEHIND, idle) => {
                        Some(helpers)
                    }
                    _ => None,
                };
                take(signed, chunks[k], help)?;
            }
            Ok(())
        })();
        // Closing the work channel lets the signers finish; dropping the helpers, the helpers.
        drop(work_tx);
        drop(helping);
        result
    })
}

/// Signed chunks waiting behind the one taken from which `--helpers auto` speculates: the
/// signing is ahead of the decisions.
const BEHIND: usize = 2;

/// The caller's worker and the helpers' (no more helpers than chunks to sign).
fn split_workers(workers: &mut [Worker], chunks: usize) -> (&mut Worker, &mut [Worker]) {
    let (first, rest) = workers.split_first_mut().expect("at least one worker");
    let helpers = rest.len().min(chunks.saturating_sub(1));
    (first, &mut rest[..helpers])
}
