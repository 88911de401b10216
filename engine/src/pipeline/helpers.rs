//! Helper threads: they share a batch's bucket inserts, LSH lookups and verification with
//! the sequencer when the batch cannot evict anything, so the window is read-only meanwhile.
//! Results come back in the documents' order, so the output does not depend on them.

use super::decision::{Filtering, Scratch, Speculated};
use super::signing::Doc;
use crate::error::{Error, Result};
use crate::verify::Verifier;
use crate::window::{Entry, Held, Marks, SHARDS, Tables, Window, index_keys};
use crossbeam_channel::{Receiver, Sender, bounded};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What looking up and verifying one document found.
pub(super) struct Checked {
    /// Candidates checked.
    pub candidates: u64,
    /// The candidates that passed (earlier document, similarity), in sequence order.
    pub matches: Vec<(Held, f64)>,
}

/// A run of [`DOCS_PER_TAKE`] documents looked up and verified by one thread.
pub(super) struct Run {
    /// Its number (its first document is `number × DOCS_PER_TAKE`).
    number: usize,
    /// One outcome per document.
    outcomes: Vec<Checked>,
}

/// The candidates of each of `docs` (held, in sequence order) among the held documents with
/// smaller sequence numbers, and those that pass verification: (number of candidates,
/// matches in sequence order) per document.
fn check_docs(
    verifier: Verifier<'_>,
    window: &Window,
    docs: &[(Held, Entry)],
    marks: &mut Marks,
) -> std::io::Result<Vec<Checked>> {
    let mut out = Vec::with_capacity(docs.len());
    let mut candidates = Vec::new();
    for (k, (doc, entry)) in docs.iter().enumerate() {
        if let Some((_, next)) = docs.get(k + 1) {
            window.prefetch_buckets(&next.band_keys);
        }
        window.candidates_before(&entry.band_keys, doc.seq, marks, &mut candidates);
        let mut matches = Vec::new();
        window.visit(&candidates, |earlier, candidate| {
            if let Some(similarity) = verifier.decide(candidate.compared(), entry.compared()) {
                matches.push((earlier, similarity));
            }
        })?;
        out.push(Checked {
            candidates: candidates.len() as u64,
            matches,
        });
    }
    Ok(out)
}

/// Takes runs of [`DOCS_PER_TAKE`] of `docs` from the shared counter `next` until none is
/// left, and checks them ([`check_docs`]).
fn take_runs(
    verifier: Verifier<'_>,
    window: &Window,
    docs: &[(Held, Entry)],
    next: &AtomicUsize,
    marks: &mut Marks,
) -> std::io::Result<Vec<Run>> {
    take_shares(
        docs,
        &even_runs(docs.len(), DOCS_PER_TAKE),
        next,
        |number, share| {
            Ok(Run {
                number,
                outcomes: check_docs(verifier, window, share, marks)?,
            })
        },
    )
}

/// Where the runs of `len` items of `per` each start, and where the last ends: run
/// `number` is `bounds[number]..bounds[number + 1]`.
fn even_runs(len: usize, per: usize) -> Vec<usize> {
    let mut bounds: Vec<usize> = (0..len).step_by(per.max(1)).collect();
    bounds.push(len);
    bounds
}

/// Takes the runs `bounds` cuts `items` into ([`even_runs`], [`run_bounds`]) from the counter
/// `next`, shared by the threads taking them, until none is left; `each` does one run.
fn take_shares<T, R>(
    items: &[T],
    bounds: &[usize],
    next: &AtomicUsize,
    mut each: impl FnMut(usize, &[T]) -> std::io::Result<R>,
) -> std::io::Result<Vec<R>> {
    let runs = bounds.len().saturating_sub(1);
    let mut done = Vec::new();
    loop {
        let number = next.fetch_add(1, Ordering::Relaxed);
        if number >= runs {
            return Ok(done);
        }
        done.push(each(number, &items[bounds[number]..bounds[number + 1]])?);
    }
}

/// Work for a helper on one batch, with the settings it is done with. The window is shared
/// read-only until every helper has dropped its work; the inserted documents are in
/// sequence order.
pub(super) enum Work<'v> {
    /// Add the documents' keys to these bucket tables ([`index_keys`]) and send them back.
    Index {
        docs: Arc<[(Held, Entry)]>,
        tables: Tables,
    },
    /// Look up and verify runs of the documents, taken from the counter `next`.
    Verify {
        verifier: Verifier<'v>,
        window: Arc<Window>,
        docs: Arc<[(Held, Entry)]>,
        next: Arc<AtomicUsize>,
    },
    /// The filter's lookups of runs of a batch's documents against the window (and the
    /// `--against` reference) as they stand ([`super::speculate`]).
    Speculate {
        settings: Filtering<'v>,
        window: Arc<Window>,
        reference: Option<Arc<Window>>,
        docs: Arc<Vec<Doc>>,
        /// Where each run of the documents starts ([`run_bounds`]).
        bounds: Arc<[usize]>,
        next: Arc<AtomicUsize>,
    },
}

/// Work offered to the helpers: its work is taken by the first helper to look (which
/// then sends back a [`Done`]) or, if none has by the time the sequencer has done its own
/// share, by the sequencer. So the sequencer never waits for a helper that the signing
/// threads keep from running; it waits only for work a helper has begun.
struct Offer<'v>(Arc<Mutex<Option<Work<'v>>>>);

impl<'v> Offer<'v> {
    fn take(&self) -> Option<Work<'v>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// What a helper sends back for the [`Work`] it took.
pub(super) enum Done {
    Indexed(Tables),
    Verified(std::io::Result<Vec<Run>>),
    Speculated(std::io::Result<Vec<Speculations>>),
}

/// Threads that help the sequencer index, look up and verify a batch (`--threads` − 1 of them),
/// started once for the whole run. A thread started per batch cost a `clone` and its stack,
/// and, at its exit, jemalloc's release of its caches: `madvise` calls whose TLB
/// shoot-downs reached the other core.
pub(super) struct Helpers<'v> {
    offers: Sender<Offer<'v>>,
    done: Receiver<std::thread::Result<Done>>,
    count: usize,
}

impl<'v> Helpers<'v> {
    /// How many helpers there are.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// Starts `threads` helpers in `scope`, and makes `servers` more [`Server`]s for the
    /// signing threads to serve offers with between their documents; they stop when the
    /// returned handle is dropped. Each offer brings the settings its work is done with.
    pub(super) fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        (threads, servers): (usize, usize),
        clock: &'scope super::clock::StageClock,
    ) -> (Helpers<'v>, Vec<Server<'v>>)
    where
        'v: 'scope,
    {
        // Unbounded: jobs the sequencer took back stay queued (empty) until a helper skips
        // them, and sending must never wait for a helper.
        let (offers, offer_rx) = crossbeam_channel::unbounded::<Offer<'v>>();
        let count = threads + servers;
        let (done_tx, done) = bounded(count.max(1));
        let server = || Server {
            offers: offer_rx.clone(),
            done: done_tx.clone(),
            marks: Marks::default(),
            scratch: Scratch::default(),
            served: 0,
        };
        for _ in 0..threads {
            let mut server = server();
            crate::guard::spawn_scoped(scope, "neardup-helper", move || {
                let _speculate = super::clock::Timed(clock, super::clock::Stage::Speculate);
                for offer in server.offers.clone() {
                    if !server.serve(offer) {
                        break;
                    }
                }
            });
        }
        let servers = (0..servers).map(|_| server()).collect();
        (
            Helpers {
                offers,
                done,
                count,
            },
            servers,
        )
    }
}

/// What serves the helpers' offers on one thread: a helper's whole life, or a signing
/// thread's between its documents ([`Server::sign_and_serve`]). On two cores the signing
/// thread is the only other one, and a helper thread beside it was woken only after the
/// sequencer had taken every run of a piece itself.
pub(super) struct Server<'v> {
    offers: Receiver<Offer<'v>>,
    done: Sender<std::thread::Result<Done>>,
    marks: Marks,
    scratch: Scratch,
    /// CPU spent serving (nanoseconds), for a signing thread's split.
    served: u64,
}

impl<'v> Server<'v> {
    /// Does the work of `offer` (unless the sequencer took it back) and sends what it found.
    /// False when the sequencer is gone.
    fn serve(&mut self, offer: Offer<'v>) -> bool {
        // Taken back by the sequencer already: nothing to do or to answer.
        let Some(work) = offer.take() else {
            return true;
        };
        let (marks, scratch) = (&mut self.marks, &mut self.scratch);
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            match work {
                Work::Index { docs, mut tables } => {
                    index_keys(&docs, &mut tables);
                    Done::Indexed(tables)
                }
                Work::Verify {
                    verifier,
                    window,
                    docs,
                    next,
                } => Done::Verified(take_runs(verifier, &window, &docs, &next, marks)),
                Work::Speculate {
                    settings,
                    window,
                    reference,
                    docs,
                    bounds,
                    next,
                } => Done::Speculated(take_speculations(
                    &settings,
                    (reference.as_deref(), &window),
                    (&docs, &bounds),
                    &next,
                    scratch,
                )),
            }
            // The work's window handle is dropped here, before the sequencer hears of the
            // result.
        }));
        self.done.send(done).is_ok()
    }

    /// Serves `first` (if any) and the offers made so far, counting the CPU it takes.
    fn serve_waiting(&mut self, first: Option<Offer<'v>>) {
        if first.is_none() && self.offers.is_empty() {
            return;
        }
        let since = super::clock::thread_cpu();
        let mut next = first.or_else(|| self.offers.try_recv().ok());
        while let Some(offer) = next {
            self.serve(offer);
            next = self.offers.try_recv().ok();
        }
        self.served += super::clock::thread_cpu().saturating_sub(since);
    }

    /// A signing thread's loop: runs the tasks of `work` with `run` (which calls its last
    /// argument between documents) and serves the offers made while it waits for a task or
    /// signs one. Its CPU is the signing stage's, but for what serving took, which is the
    /// speculation's.
    pub(super) fn sign_and_serve<J, R>(
        mut self,
        clock: &super::clock::StageClock,
        work: Receiver<super::ordered::Task<J, R>>,
        mut run: impl FnMut(J, &mut dyn FnMut()) -> R,
    ) {
        use super::clock::Stage;
        let offers = self.offers.clone();
        loop {
            crossbeam_channel::select! {
                recv(work) -> task => match task {
                    Ok(task) => task.run(|job| run(job, &mut || self.serve_waiting(None))),
                    Err(_) => break,
                },
                recv(offers) -> offer => match offer {
                    Ok(offer) => self.serve_waiting(Some(offer)),
                    // The sequencer is gone: the tasks left are only signed.
                    Err(_) => {
                        for task in &work {
                            task.run(|job| run(job, &mut || {}));
                        }
                        break;
                    }
                },
            }
        }
        let total = super::clock::thread_cpu();
        clock.add(Stage::Sign, total.saturating_sub(self.served));
        clock.add(Stage::Speculate, self.served);
    }
}

/// For each of `docs` (held, in sequence order): [`check_docs`], on this thread and the
/// `helpers` (this thread alone for fewer than [`PARALLEL_DOCS`] documents). The threads take
/// runs of [`DOCS_PER_TAKE`] documents from a shared counter until none is left, so a helper
/// that starts late (the signing workers hold the cores) costs nothing: this thread does the
/// rest. The results are in the documents' order, so they depend on neither the thread
/// count nor timing. The window is lent to the helpers and back.
pub(super) fn look_up_and_verify<'v>(
    verifier: Verifier<'v>,
    window: &mut Window,
    docs: Arc<[(Held, Entry)]>,
    marks: &mut Marks,
    helpers: Option<&Helpers<'v>>,
) -> Result<Vec<Checked>> {
    let spill = |e| Error::spill(e, docs.first().map_or(0, |d| d.0.seq));
    let helpers = match helpers {
        Some(h) if docs.len() >= PARALLEL_DOCS => h,
        _ => return check_docs(verifier, window, &docs, marks).map_err(spill),
    };
    let mut failed = None;
    let runs = docs.len().div_ceil(DOCS_PER_TAKE);
    let next = Arc::new(AtomicUsize::new(0));
    let mut by_run: Vec<Vec<Checked>> = (0..runs).map(|_| Vec::new()).collect();
    lend(
        window,
        helpers,
        |lent| {
            (0..helpers.count.min(runs - 1))
                .map(|_| Work::Verify {
                    verifier,
                    window: Arc::clone(lent),
                    docs: Arc::clone(&docs),
                    next: Arc::clone(&next),
                })
                .collect()
        },
        |lent| Done::Verified(take_runs(verifier, lent, &docs, &next, marks)),
        // Work no helper took finds no run left: this thread took them all.
        |_, _| None,
        |done| {
            if let Done::Verified(done) = done {
                match done {
                    Ok(done) => {
                        for run in done {
                            by_run[run.number] = run.outcomes;
                        }
                    }
                    Err(e) => failed = Some(e),
                }
            }
        },
    )?;
    if let Some(e) = failed {
        return Err(spill(e));
    }
    Ok(by_run.into_iter().flatten().collect())
}

/// Adds the band keys of a batch's `docs` (inserted unindexed, in sequence order) to the
/// window's bucket tables: on this thread and the `helpers`, each owning some of the
/// [`SHARDS`] tables (this thread alone for fewer than [`PARALLEL_DOCS`] documents).
pub(super) fn index_batch(
    window: &mut Window,
    docs: &Arc<[(Held, Entry)]>,
    helpers: Option<&Helpers>,
) -> Result<()> {
    let mut tables = window.take_tables();
    let helpers = match helpers {
        Some(h) if docs.len() >= PARALLEL_DOCS => h,
        _ => {
            index_keys(docs, &mut tables);
            window.put_tables(tables);
            return Ok(());
        }
    };
    let threads = (helpers.count + 1).min(SHARDS);
    // Table k goes to thread k mod threads; this thread keeps group 0.
    let mut groups: Vec<Tables> = (0..threads).map(|_| Vec::new()).collect();
    for (number, table) in tables {
        groups[number % threads].push((number, table));
    }
    let mut own = groups.swap_remove(0);
    let mut back = Vec::with_capacity(SHARDS);
    lend(
        window,
        helpers,
        |_| {
            groups
                .into_iter()
                .map(|tables| Work::Index {
                    docs: Arc::clone(docs),
                    tables,
                })
                .collect()
        },
        |_| {
            index_keys(docs, &mut own);
            Done::Indexed(own)
        },
        // Tables no helper took are filled here.
        |_, work| match work {
            Work::Index { mut tables, .. } => {
                index_keys(docs, &mut tables);
                Some(Done::Indexed(tables))
            }
            Work::Verify { .. } | Work::Speculate { .. } => None,
        },
        |done| {
            if let Done::Indexed(tables) = done {
                back.extend(tables);
            }
        },
    )?;
    window.put_tables(back);
    Ok(())
}

/// Lends `window` to helpers for one step of a batch: the work `jobs` makes is offered
/// first, then `own` runs on this thread, then work no helper has taken is taken back and
/// given to `reclaim`, and every result (this thread's too) goes to `take`. The window comes
/// back once each helper has finished what it took. A helper's panic is an error.
pub(super) fn lend<'v>(
    window: &mut Window,
    helpers: &Helpers<'v>,
    jobs: impl FnOnce(&Arc<Window>) -> Vec<Work<'v>>,
    own: impl FnOnce(&Window) -> Done,
    mut reclaim: impl FnMut(&Window, Work<'v>) -> Option<Done>,
    mut take: impl FnMut(Done),
) -> Result<()> {
    let stopped = || Error::Internal("a verification thread stopped".into());
    let lent = Arc::new(std::mem::replace(window, Window::placeholder()));
    let offered: Vec<Offer<'v>> = jobs(&lent)
        .into_iter()
        .map(|work| Offer(Arc::new(Mutex::new(Some(work)))))
        .collect();
    for job in &offered {
        // A send fails only when no thread serves offers any more (the signing threads end
        // with the input): nothing was taken then, and this thread takes it all back below.
        if helpers.offers.send(Offer(Arc::clone(&job.0))).is_err() {
            break;
        }
    }
    take(own(&lent));
    let mut begun = 0;
    for job in &offered {
        match job.take() {
            Some(work) => {
                if let Some(done) = reclaim(&lent, work) {
                    take(done);
                }
            }
            None => begun += 1,
        }
    }
    let mut panicked = false;
    for _ in 0..begun {
        match helpers.done.recv() {
            Ok(Ok(done)) => take(done),
            Ok(Err(_)) => panicked = true,
            Err(_) => return Err(stopped()),
        }
    }
    *window = Arc::try_unwrap(lent)
        .map_err(|_| Error::Internal("a verification thread kept the window".into()))?;
    if panicked {
        return Err(Error::Internal("a verification thread panicked".into()));
    }
    Ok(())
}

/// Most documents a thread speculates at a time (the filter's, `speculate.rs`).
pub(super) const SPECULATED_PER_TAKE: usize = 8;

/// Documents a thread speculates at a time in a piece of `docs` shared by `helpers` and the
/// sequencer: [`SPECULATED_PER_TAKE`], or fewer, so that each thread can take about two
/// runs. A template's pieces settle at 32–64 documents, which runs of 8 would give to 4–8
/// threads however many there are; a take is one step of a shared counter, so runs of one
/// cost little.
pub(super) fn run_length(docs: usize, helpers: usize) -> usize {
    docs.div_ceil(2 * (helpers + 1))
        .clamp(1, SPECULATED_PER_TAKE)
}

/// The runs a piece of `docs` documents is speculated in by `helpers` and the sequencer
/// (as [`even_runs`] gives them): [`run_length`] at first, then shorter, each a share of
/// what is left, down to one document. The sequencer commits once the last run is done,
/// and the thread that took it is the one it waits for: a long run at the end kept it
/// waiting for half a run on average, a run of one for half a document. The runs depend on the piece and the thread count only, never on
/// which thread takes which.
pub(super) fn run_bounds(docs: usize, helpers: usize) -> Vec<usize> {
    let (per, takers) = (run_length(docs, helpers), helpers + 1);
    let mut bounds = vec![0];
    let mut at = 0;
    while at < docs {
        at += ((docs - at) / (2 * takers)).clamp(1, per);
        bounds.push(at);
    }
    bounds
}

/// The filter's speculated lookups of a run of documents of a batch (`speculate.rs`).
pub(super) struct Speculations {
    /// Its number ([`run_bounds`]).
    pub number: usize,
    pub looked: Vec<Option<Speculated>>,
}

/// Looks up the batch's good documents of the runs `bounds` makes ([`run_bounds`]) taken
/// from `next` until none is left.
pub(super) fn take_speculations(
    settings: &Filtering<'_>,
    (reference, window): (Option<&Window>, &Window),
    (docs, bounds): (&[Doc], &[usize]),
    next: &AtomicUsize,
    scratch: &mut Scratch,
) -> std::io::Result<Vec<Speculations>> {
    take_shares(docs, bounds, next, |number, share| {
        let looked = share
            .iter()
            .map(|doc| match doc {
                Doc::Good(signed) => {
                    super::decision::speculate(settings, reference, window, signed, scratch)
                        .map(Some)
                }
                Doc::Bad(_) => Ok(None),
            })
            .collect::<std::io::Result<_>>()?;
        Ok(Speculations { number, looked })
    })
}

/// Fewer documents than this in a batch are looked up and verified on the sequencer alone
/// (waking a helper costs more than they take).
const PARALLEL_DOCS: usize = 16;

/// Documents a thread takes at a time.
const DOCS_PER_TAKE: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::clock::StageClock;
    use crate::pipeline::ordered::Task;

    /// Every thread can take about two runs of a piece, and two threads take runs of
    /// [`SPECULATED_PER_TAKE`] from the smallest piece (32 documents) up.
    #[test]
    fn runs_are_shorter_when_more_threads_share_a_piece() {
        for docs in [32, 64, 256, 4096] {
            assert_eq!(run_length(docs, 1), SPECULATED_PER_TAKE);
        }
        for (docs, helpers, runs) in [(32, 15, 32), (64, 15, 32), (32, 3, 8), (256, 63, 128)] {
            assert_eq!(docs / run_length(docs, helpers), runs, "{docs} {helpers}");
        }
        for docs in 1..100 {
            for helpers in 0..70 {
                assert!((1..=SPECULATED_PER_TAKE).contains(&run_length(docs, helpers)));
            }
        }
    }

    /// A piece's runs cover it in order without a gap, none longer than [`run_length`],
    /// shortening to single documents at its end, so that the thread the commit waits for
    /// has at most one document to finish; a piece of none has no run.
    #[test]
    fn a_pieces_runs_cover_it_and_end_in_single_documents() {
        assert_eq!(run_bounds(0, 1), vec![0]);
        assert_eq!(run_bounds(1, 1), vec![0, 1]);
        assert_eq!(
            run_bounds(32, 1),
            vec![0, 8, 14, 18, 21, 23, 25, 26, 27, 28, 29, 30, 31, 32]
        );
        for docs in 0..300 {
            for helpers in [0, 1, 3, 15] {
                let bounds = run_bounds(docs, helpers);
                assert_eq!((bounds[0], bounds[bounds.len() - 1]), (0, docs));
                let lengths: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
                assert!(
                    lengths
                        .iter()
                        .all(|&n| (1..=run_length(docs, helpers)).contains(&n))
                );
                assert!(
                    lengths.windows(2).all(|w| w[1] <= w[0]),
                    "never longer again"
                );
                if docs > 0 {
                    assert_eq!(lengths.last(), Some(&1), "{docs} {helpers}");
                }
            }
        }
        assert_eq!(even_runs(10, 4), vec![0, 4, 8, 10]);
        assert_eq!(even_runs(0, 4), vec![0]);
    }

    /// A signing thread with no batch to sign takes the work offered to it (the sequencer
    /// takes nothing back), and ends once the offers and the batches end.
    #[test]
    fn a_signing_thread_takes_the_work_offered_while_it_waits() {
        let clock = StageClock::default();
        let (work_tx, work_rx) = bounded::<Task<(), ()>>(1);
        std::thread::scope(|scope| {
            let (helpers, mut servers) = Helpers::start(scope, (0, 1), &clock);
            assert_eq!((helpers.count(), servers.len()), (1, 1));
            let server = servers.pop().expect("one server");
            let clock = &clock;
            scope.spawn(move || server.sign_and_serve(clock, work_rx, |(), _| ()));
            let mut window = Window::placeholder();
            let (mut reclaimed, mut done) = (0, 0);
            lend(
                &mut window,
                &helpers,
                |_| {
                    vec![Work::Index {
                        docs: Arc::from(Vec::new()),
                        tables: Vec::new(),
                    }]
                },
                // This thread's share is long enough for the waiting thread to take its own.
                |_| {
                    std::thread::sleep(std::time::Duration::from_millis(500));
                    Done::Indexed(Vec::new())
                },
                |_, _| {
                    reclaimed += 1;
                    None
                },
                |_| done += 1,
            )
            .expect("lent and back");
            assert_eq!((reclaimed, done), (0, 2));
            drop(helpers);
            drop(work_tx);
        });
    }
}
