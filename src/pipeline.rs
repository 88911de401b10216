//! The pipeline: reader → signing workers → ordered sequencer → writer.
//!
//! ```text
//!  reader thread ──(batch, result slot)──▶ N − 1 workers: extract, normalise, shingle, sign
//!        │                                        │
//!        └──(result slots, in input order)──▶ sequencer (this thread): exact index,
//!                                              LSH window, verify, write; signs too
//!                                              while the next batch is not ready
//! ```
//!
//! The reader cuts the input into batches and sends each to the worker pool together with a
//! one-shot result channel; it sends the receiving ends, in input order, to the sequencer
//! (the ordered-pipeline pattern of gzp). The sequencer therefore sees documents in input
//! order whatever the scheduling, and it alone touches the window and stdout: the output
//! never depends on the thread count. Channels are bounded (2 × threads) for back-pressure.
//! When the sequencer stops early (closed pipe, `--on-bad-line fail`), dropping its receiver
//! makes the reader stop, which closes the work channel and lets the workers finish.

use crate::config::{BadLinePolicy, Config, HelperPolicy, InputFormat, Mode, VerifyMode, Weights};
use crate::error::{Error, Result};
use crate::graph::{DupGraph, GraphBuilder, Node, snippet};
use crate::input::{BadLine, Batch, DocId, Extractor, Input, LineReader};
use crate::lsh::LshParams;
use crate::minhash::Signer;
use crate::normalize::{Normalized, Normalizer};
use crate::output::{Output, Verdict};
use crate::shingle::Shingler;
use crate::verify::{
    Fingerprint, fingerprints_into, jaccard_at_least, weighted_fingerprints_into,
    weighted_jaccard_at_least,
};
use crate::weights::{IdfTable, Weigher};
use crate::window::{Entry, Held, Marks, SHARDS, Tables, Window, index_keys};
use crossbeam_channel::{Receiver, Sender, bounded};
use serde_json::Value;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use xxhash_rust::xxh3::xxh3_128_with_seed;

/// Counts reported at the end of a run (`--stats`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Lines read.
    pub docs_read: u64,
    /// Lines written (input lines in the filter modes, JSON lines in `--annotate`, pairs in
    /// `--pairs`).
    pub written: u64,
    /// Documents that are exact copies (same normalised text) of an earlier one.
    pub dropped_exact: u64,
    /// Documents that are near duplicates of an earlier one.
    pub dropped_near: u64,
    /// Lines that were not documents (see `--on-bad-line`).
    pub bad_lines: u64,
    /// Candidate pairs verified.
    pub candidates: u64,
    /// Verified pairs at or above the threshold.
    pub pairs: u64,
    /// Documents evicted from the window.
    pub evictions: u64,
    /// Input bytes read.
    pub bytes_read: u64,
    /// Documents in the window at the end.
    pub window_docs: u64,
    /// Approximate bytes the window held at the end.
    pub window_bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `--state`: seconds spent loading the state at the start and saving it (all saves).
    pub state_seconds: Option<(f64, f64)>,
}

impl Summary {
    /// Duplicates found (exact + near): in `--drop-dups` these are the dropped lines.
    pub fn duplicates(&self) -> u64 {
        self.dropped_exact + self.dropped_near
    }

    /// The one-line JSON summary printed by `--stats`.
    pub fn to_json(&self) -> String {
        let secs = self.seconds.max(1e-9);
        let mut json = serde_json::json!({
            "docs_read": self.docs_read,
            "written": self.written,
            "dropped": self.duplicates(),
            "dropped_exact": self.dropped_exact,
            "dropped_near": self.dropped_near,
            "bad_lines": self.bad_lines,
            "candidates_checked": self.candidates,
            "pairs": self.pairs,
            "evictions": self.evictions,
            "window_docs": self.window_docs,
            "window_bytes": self.window_bytes,
            "bytes_read": self.bytes_read,
            "seconds": (self.seconds * 1000.0).round() / 1000.0,
            "docs_per_sec": (self.docs_read as f64 / secs).round() as u64,
            "mb_per_sec": ((self.bytes_read as f64 / 1e6 / secs) * 100.0).round() / 100.0,
        });
        if let Some((load, save)) = self.state_seconds {
            json["state_load_seconds"] = ((load * 1000.0).round() / 1000.0).into();
            json["state_save_seconds"] = ((save * 1000.0).round() / 1000.0).into();
        }
        json.to_string()
    }
}

/// A line after the workers: either what the window needs, or why it is not a document.
#[derive(Debug)]
pub enum Doc {
    /// Not a document.
    Bad(BadLine),
    /// A signed document.
    Good(Signed),
}

/// A signed document.
#[derive(Debug)]
pub struct Signed {
    /// Its id.
    pub id: DocId,
    /// xxh3-128 of the normalised text.
    pub exact: u128,
    /// Sorted distinct shingle fingerprints (empty when verification is off).
    pub shingles: Vec<Fingerprint>,
    /// `--weights tfidf`: the weight of each shingle element (else empty).
    pub weights: Vec<f32>,
    /// Sum of `weights`.
    pub total_weight: f64,
    /// The normalised text, when a text confirmation stage is on.
    pub text: Option<Box<str>>,
    /// Compact signature (only when verification is off).
    pub signature: Vec<u32>,
    /// One key per LSH band.
    pub band_keys: Vec<u64>,
    /// [`Mode::Graph`]: the node's snippet and `--node-attr` values.
    pub node: Option<NodeExtras>,
}

/// What a graph node keeps besides its id: the text snippet and the `--node-attr` values.
pub type NodeExtras = (Box<str>, Box<[Option<Value>]>);

/// Per-thread state of a signing worker: settings plus reusable scratch buffers.
pub struct Worker {
    extractor: Extractor,
    normalizer: Normalizer,
    shingler: Shingler,
    signer: Signer,
    lsh: LshParams,
    verify: VerifyMode,
    seed: u64,
    graph: bool,
    block: bool,
    exact_join: bool,
    threshold: f64,
    keep_text: bool,
    snippet_chars: usize,
    attrs: Vec<Option<Value>>,
    idf: Option<Arc<IdfTable>>,
    weigher: Weigher,
    normalized: Normalized,
    shingles: Vec<u64>,
    values: Vec<u64>,
    /// The document's fingerprints (and weights), copied out at their exact size so that the
    /// window boxes them as they are (a vector sized before de-duplication was shrunk on the
    /// sequencer, with a copy when the two sizes fell in different allocation classes).
    fingerprints: Vec<Fingerprint>,
    fingerprint_weights: Vec<f32>,
}

impl Worker {
    /// A worker for `config` (validated).
    pub fn new(config: &Config) -> Worker {
        Worker {
            extractor: Extractor::new(
                &config.field,
                config.id_field.as_deref(),
                config.max_line_bytes,
            )
            .with_attrs(
                &config
                    .node_attrs
                    .iter()
                    .chain(&config.block_by)
                    .cloned()
                    .collect::<Vec<_>>(),
            ),
            normalizer: config.normalizer,
            shingler: Shingler::for_config(config, config.bag),
            signer: Signer::new(config.num_perm, config.seed),
            lsh: config.lsh,
            verify: config.verify,
            seed: config.seed,
            graph: config.mode == Mode::Graph,
            block: config.block_by.is_some(),
            exact_join: config.exact,
            threshold: config.threshold,
            keep_text: !config.confirm.is_empty(),
            snippet_chars: config.snippet_chars,
            attrs: Vec::new(),
            idf: match config.weights {
                Weights::TfIdf => Some(
                    config
                        .idf
                        .clone()
                        .expect("the IDF table is loaded before workers start"),
                ),
                _ => None,
            },
            weigher: Weigher::default(),
            normalized: Normalized::default(),
            shingles: Vec::new(),
            values: vec![0; config.num_perm],
            fingerprints: Vec::new(),
            fingerprint_weights: Vec::new(),
        }
    }

    /// Processes one line's content.
    pub fn process(&mut self, content: &[u8], format: InputFormat, number: u64) -> Doc {
        let extracted = if self.graph || self.block {
            self.extractor
                .extract_with_attrs(content, format, number, &mut self.attrs)
        } else {
            self.extractor.extract(content, format, number)
        };
        let (text, id) = match extracted {
            Ok(x) => x,
            Err(bad) => return Doc::Bad(bad),
        };
        self.normalizer.normalize_into(&text, &mut self.normalized);
        if self.normalized.is_empty() {
            return Doc::Bad(BadLine::NoTokens);
        }
        let mut exact = xxh3_128_with_seed(&self.normalized.text, self.seed);
        // --block-by: the block's hash is mixed into every key, so documents of different
        // blocks never meet in the LSH buckets or the exact index.
        let block = if self.block {
            block_hash(self.attrs.pop().flatten().as_ref(), self.seed)
        } else {
            0
        };
        exact ^= u128::from(block) << 64 | u128::from(block);
        let (mut fingerprints, mut weights, mut total_weight) = (Vec::new(), Vec::new(), 0.0);
        if let Some(table) = &self.idf {
            self.weigher.weigh(&self.shingler, &self.normalized, table);
            self.signer
                .sign_weighted_into(&self.weigher.groups(), &mut self.values);
            if self.verify == VerifyMode::Jaccard {
                weighted_fingerprints_into(
                    &self.weigher.elements,
                    &self.weigher.weights,
                    &mut self.fingerprints,
                    &mut self.fingerprint_weights,
                );
                fingerprints = self.fingerprints.to_vec();
                weights = self.fingerprint_weights.to_vec();
                total_weight = self.weigher.total;
            }
        } else {
            self.shingler
                .shingles_into(&self.normalized, &mut self.shingles);
            if !self.exact_join {
                self.signer.sign_into(&self.shingles, &mut self.values);
            }
            if self.verify == VerifyMode::Jaccard {
                fingerprints_into(&self.shingles, &mut self.fingerprints);
                fingerprints = self.fingerprints.to_vec();
            }
        }
        let mut band_keys = Vec::with_capacity(self.lsh.bands);
        if self.exact_join {
            // All-Pairs prefix filter: shingles are sorted by hash, a global order, and two
            // sets with Jaccard ≥ t share an element among their first |x| − ⌈t·|x|⌉ + 1.
            band_keys.extend_from_slice(
                &self.shingles[..prefix_length(self.shingles.len(), self.threshold)],
            );
        } else {
            self.lsh.band_keys_into(&self.values, &mut band_keys);
        }
        if self.block {
            for key in &mut band_keys {
                *key = crate::hash::mix64(*key ^ block);
            }
        }
        let signature = match self.verify {
            VerifyMode::None => compact_signature(&self.values),
            _ => Vec::new(),
        };
        let kept_text = self.keep_text.then(|| self.normalized.as_str().into());
        let node = self.graph.then(|| {
            (
                snippet(&text, self.snippet_chars),
                std::mem::take(&mut self.attrs).into_boxed_slice(),
            )
        });
        Doc::Good(Signed {
            id,
            exact,
            shingles: fingerprints,
            weights,
            total_weight,
            text: kept_text,
            signature,
            band_keys,
            node,
        })
    }

    fn process_batch(&mut self, batch: &Batch) -> Vec<Doc> {
        let format = batch.format;
        (0..batch.lines.len())
            .map(|i| self.process(batch.content(i), format, batch.lines[i].number))
            .collect()
    }
}

/// What verification compares of one document (from the window or just signed).
#[derive(Clone, Copy, Debug)]
pub struct Compared<'a> {
    /// Sorted shingle fingerprints (or weighted elements).
    pub shingles: &'a [Fingerprint],
    /// `--weights tfidf`: each element's weight (else empty).
    pub weights: &'a [f32],
    /// Sum of `weights`.
    pub total_weight: f64,
    /// Normalised text (text stages only).
    pub text: Option<&'a str>,
    /// Compact signature (`--verify none`).
    pub signature: &'a [u32],
    /// Hash of the normalised text (with the `--block-by` value mixed in).
    pub text_hash: u128,
}

impl<'a> Compared<'a> {
    /// A windowed document.
    pub fn of_entry(e: &'a Entry) -> Compared<'a> {
        Compared {
            shingles: &e.shingles,
            weights: &e.weights,
            total_weight: e.total_weight,
            text: Some(&e.text),
            signature: &e.signature,
            text_hash: e.text_hash,
        }
    }

    /// A document as a worker signed it.
    pub fn of_signed(s: &'a Signed) -> Compared<'a> {
        Compared {
            shingles: &s.shingles,
            weights: &s.weights,
            total_weight: s.total_weight,
            text: s.text.as_deref(),
            signature: &s.signature,
            text_hash: s.exact,
        }
    }
}

/// The verification of a candidate pair: `Some(similarity)` when it is a duplicate under
/// `config` (`--verify` chain and threshold), `None` otherwise. The same decision for the
/// window's candidates and for `neardup verify-pairs`.
pub fn confirm(config: &Config, a: Compared<'_>, b: Compared<'_>) -> Option<f64> {
    // Equal normalised texts have equal shingles, weights, signatures and texts: every check
    // gives 1 (copies of boilerplate are most of the candidates on some corpora).
    if a.text_hash == b.text_hash {
        return Some(1.0);
    }
    let threshold = config.threshold;
    let similarity = match config.verify {
        VerifyMode::Jaccard if !a.weights.is_empty() => weighted_jaccard_at_least(
            (a.shingles, a.weights, a.total_weight),
            (b.shingles, b.weights, b.total_weight),
            threshold,
        ),
        VerifyMode::Jaccard => jaccard_at_least(a.shingles, b.shingles, threshold),
        VerifyMode::None => {
            let e = crate::minhash::estimate(a.signature, b.signature);
            (e >= threshold).then_some(e)
        }
        VerifyMode::Stages => Some(f64::NAN),
    };
    // Text stages confirm in order; alone, the first one's similarity is reported.
    similarity.and_then(|mut s| {
        if config.confirm.is_empty() {
            return Some(s);
        }
        let (a, b) = (a.text?, b.text?);
        for stage in &config.confirm {
            let v = stage.check(a, b)?;
            if s.is_nan() {
                s = v;
            }
        }
        Some(s)
    })
}

/// Length of the All-Pairs prefix of a set of `size` elements for Jaccard threshold `t`:
/// `size − ⌈t · size⌉ + 1` (at least 1 for a non-empty set, never more than `size`).
pub fn prefix_length(size: usize, t: f64) -> usize {
    if size == 0 {
        return 0;
    }
    let needed = (t * size as f64 - 1e-9).ceil().max(0.0) as usize;
    (size - needed.min(size) + 1).min(size)
}

/// The key of a `--block-by` value: strings by their text, other JSON values by their JSON
/// form; a missing or null value is a block of its own.
fn block_hash(value: Option<&Value>, seed: u64) -> u64 {
    let h = match value {
        None => 0x6e6f_6e65,
        Some(Value::String(s)) => xxhash_rust::xxh3::xxh3_64_with_seed(s.as_bytes(), seed),
        Some(other) => xxhash_rust::xxh3::xxh3_64_with_seed(other.to_string().as_bytes(), seed ^ 1),
    };
    crate::hash::mix64(h) | 1
}

/// The signature as the window keeps it for `--verify none`: the lanes' minima are 32-bit
/// values (see [`crate::minhash`]), so nothing is lost.
fn compact_signature(values: &[u64]) -> Vec<u32> {
    values.iter().map(|&v| v as u32).collect()
}

type Slot = Receiver<(Batch, Vec<Doc>)>;

enum Ordered {
    Batch(Slot),
    Failed(Error),
}

/// Runs the whole pipeline over `inputs`, writing results to `out` and diagnostics to
/// `diagnostics`. `config` must have been validated.
pub fn run<W: Write, D: Write>(
    config: &Config,
    inputs: Vec<Input>,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<Summary> {
    run_inner(config, inputs, out, diagnostics, stderr_is_terminal).map(|(s, _)| s)
}

/// Runs the pipeline in [`Mode::Graph`] (whatever `config.mode` says) and returns the
/// graph of documents and verified pairs. Nothing is written but diagnostics.
pub fn collect_graph<D: Write>(
    config: &Config,
    inputs: Vec<Input>,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<(Summary, DupGraph)> {
    let config = Config {
        mode: Mode::Graph,
        ..config.clone()
    };
    let (summary, graph) = run_inner(
        &config,
        inputs,
        std::io::sink(),
        diagnostics,
        stderr_is_terminal,
    )?;
    Ok((summary, graph.unwrap_or_default().finish()))
}

fn run_inner<W: Write, D: Write>(
    config: &Config,
    inputs: Vec<Input>,
    out: W,
    diagnostics: &mut D,
    stderr_is_terminal: bool,
) -> Result<(Summary, Option<GraphBuilder>)> {
    let start = Instant::now();
    let (config, inputs, saved) = resume(config, inputs)?;
    let load_seconds = start.elapsed().as_secs_f64();
    let config = &config;
    let threads = config.worker_threads().max(1);
    // The sequencer signs batches too while the next one in order is not signed yet, so it
    // is one of the `threads` signing threads: `-j 1` runs the whole pipeline but reading on
    // one thread, and `-j 2` keeps two cores busy with two threads.
    let workers = threads - 1;
    let lines_before = saved.as_ref().map_or(0, |s| s.lines);
    // Batch buffers in flight: the channels' capacities plus one per thread; more are freed.
    let (recycle_tx, recycle_rx) = bounded::<Vec<u8>>(4 * threads + 4);
    let mut reader = LineReader::new(inputs, config.format)
        .numbered_after(lines_before)
        .recycling(recycle_rx);
    let names = reader.input_names();
    let (work_tx, work_rx) = bounded::<ToSign>(2 * threads);
    let (order_tx, order_rx) = bounded::<Ordered>(2 * threads + 2);
    // Batches signed (the sequencer compares it with what it has taken).
    let signed = AtomicUsize::new(0);
    let signed = &signed;

    std::thread::scope(|scope| {
        let reader_handle = scope.spawn(move || {
            loop {
                let batch = match reader.next_batch() {
                    Ok(Some(b)) => b,
                    Ok(None) => break,
                    Err(e) => {
                        let _ = order_tx.send(Ordered::Failed(e));
                        break;
                    }
                };
                let (slot_tx, slot_rx) = bounded(1);
                if order_tx.send(Ordered::Batch(slot_rx)).is_err() {
                    break;
                }
                if work_tx.send((batch, slot_tx)).is_err() {
                    break;
                }
            }
            reader.bytes_read()
        });
        for _ in 0..workers {
            let work_rx = work_rx.clone();
            scope.spawn(move || {
                let mut worker = Worker::new(config);
                for work in work_rx {
                    sign(&mut worker, work, signed);
                }
            });
        }

        // `--sign` never looks up; otherwise the other threads help verify batches.
        let helpers = (threads > 1 && config.mode != Mode::Sign)
            .then(|| Helpers::start(scope, config, threads - 1));
        let mut sequencer =
            Sequencer::new(config, out, &names, stderr_is_terminal, helpers, signed);
        if let Some(saved) = saved {
            sequencer.window = saved.window;
        }
        sequencer.lines = lines_before;
        sequencer.recycle = Some(recycle_tx);
        sequencer.stealer = Some(Stealer {
            work: work_rx,
            worker: Worker::new(config),
        });
        let result = sequencer.run(order_rx, diagnostics);
        let bytes_read = reader_handle
            .join()
            .map_err(|_| Error::Internal("the reader thread panicked".into()))?;
        let (mut summary, graph) = result?;
        summary.bytes_read = bytes_read;
        summary.seconds = start.elapsed().as_secs_f64();
        if let Some((load, _)) = &mut summary.state_seconds {
            *load = load_seconds;
        }
        Ok((summary, graph))
    })
}

/// `--state`: loads the saved window (if the file exists) and the IDF table saved with it,
/// then freezes the IDF table as [`with_idf`] does. A table given with `--idf` must equal
/// the saved one; `--idf-warmup` is skipped when the state brings a table.
fn resume(
    config: &Config,
    inputs: Vec<Input>,
) -> Result<(Config, Vec<Input>, Option<crate::state::Saved>)> {
    let Some(path) = &config.state else {
        let (config, inputs) = with_idf(config, inputs)?;
        return Ok((config, inputs, None));
    };
    let mut saved = crate::state::load(path, config)?;
    let mut config = config.clone();
    if let Some(table) = saved.as_mut().and_then(|s| s.idf.take()) {
        if let Some(idf_path) = &config.idf_path
            && IdfTable::load(idf_path, &config)? != table
        {
            return Err(Error::config(
                "--idf",
                format!(
                    "{} differs from the IDF table saved in {}",
                    idf_path.display(),
                    path.display()
                ),
            ));
        }
        config.idf = Some(Arc::new(table));
    }
    let (config, inputs) = with_idf(&config, inputs)?;
    Ok((config, inputs, saved))
}

/// Freezes the IDF table of `--weights tfidf` before anything is signed: loaded from
/// `--idf`, or learned from the first `--idf-warmup` lines (which are then replayed).
pub fn with_idf(config: &Config, inputs: Vec<Input>) -> Result<(Config, Vec<Input>)> {
    let mut config = config.clone();
    let mut inputs = inputs;
    if config.weights == Weights::TfIdf && config.idf.is_none() {
        let table = match &config.idf_path {
            Some(path) => IdfTable::load(path, &config)?,
            None => {
                let (table, replay) = crate::weights::warmup(&config, inputs, config.idf_warmup)?;
                inputs = replay;
                table
            }
        };
        config.idf = Some(Arc::new(table));
    }
    Ok((config, inputs))
}

/// The single-threaded, input-ordered stage: exact index, LSH window, verification, output.
struct Sequencer<'c, W: Write> {
    config: &'c Config,
    names: &'c [String],
    out: Output<W>,
    window: Window,
    summary: Summary,
    candidates: Vec<Held>,
    matches: Vec<(Held, f64)>,
    graph: Option<GraphBuilder>,
    bad_reported: u64,
    progress: bool,
    last_progress: Instant,
    /// Number of the last input line handled (continues a `--state`'s count).
    lines: u64,
    /// `docs_read` at the last `--checkpoint-every` save.
    checkpointed: u64,
    /// The sequencer's candidate marks for a batch's lookups (each helper has its own).
    marks: Marks,
    /// Threads that look up and verify a batch's documents with the sequencer (none with
    /// `--threads 1`).
    helpers: Option<Helpers>,
    /// Where consumed batches' buffers go back to the reader.
    recycle: Option<Sender<Vec<u8>>>,
    /// Batches signed (by the workers or here), and batches taken here
    /// ([`Sequencer::wants_help`]).
    signed: &'c AtomicUsize,
    taken: usize,
    /// Batches waiting to be signed, taken while the next one in order is not ready.
    stealer: Option<Stealer>,
}

impl<'c, W: Write> Sequencer<'c, W> {
    fn new(
        config: &'c Config,
        out: W,
        names: &'c [String],
        stderr_is_terminal: bool,
        helpers: Option<Helpers>,
        signed: &'c AtomicUsize,
    ) -> Self {
        Sequencer {
            config,
            names,
            out: Output::new(out, config.pairs_format),
            window: Window::new(config.window),
            summary: Summary::default(),
            candidates: Vec::new(),
            matches: Vec::new(),
            graph: (config.mode == Mode::Graph).then(GraphBuilder::default),
            bad_reported: 0,
            progress: config.progress && !config.quiet && stderr_is_terminal,
            last_progress: Instant::now(),
            lines: 0,
            checkpointed: 0,
            marks: Marks::default(),
            helpers,
            recycle: None,
            signed,
            taken: 0,
            stealer: None,
        }
    }

    fn run<D: Write>(
        mut self,
        order: Receiver<Ordered>,
        diag: &mut D,
    ) -> Result<(Summary, Option<GraphBuilder>)> {
        let result = self.consume(order, diag);
        if self.progress {
            let _ = write!(diag, "\r\x1b[K");
        }
        // Flush what was written even when stopping on an error, unless the pipe is closed.
        let flushed = self.out.flush();
        result?;
        flushed?;
        self.save()?;
        if !self.config.quiet && self.bad_reported < self.summary.bad_lines {
            let _ = writeln!(
                diag,
                "neardup: {} bad lines in all ({} not shown; policy --on-bad-line {})",
                self.summary.bad_lines,
                self.summary.bad_lines - self.bad_reported,
                policy_name(self.config.on_bad_line)
            );
        }
        self.summary.evictions = self.window.evictions();
        self.summary.window_docs = self.window.len() as u64;
        if self.config.stats {
            self.summary.window_bytes = self.window.approx_bytes() as u64;
        }
        // Freeing every entry took 7 ms at the end of a run on the peer corpus, on one
        // thread with nothing else left to do: a detached thread does it, so that a process
        // that exits next does not wait for it. If no thread can be started, the refused
        // closure is dropped here, and the window with it (`thread::spawn` would panic).
        let window = std::mem::replace(&mut self.window, Window::placeholder());
        let _ = std::thread::Builder::new().spawn(move || drop(window));
        Ok((self.summary, self.graph))
    }

    /// `--state`: writes the window and the line count (output must be flushed first, so
    /// that the state never covers documents whose output was lost).
    fn save(&mut self) -> Result<()> {
        let Some(path) = &self.config.state else {
            return Ok(());
        };
        self.checkpointed = self.summary.docs_read;
        let saving = Instant::now();
        crate::state::save(
            path,
            self.config,
            &self.window,
            self.lines,
            self.config.idf.as_deref(),
        )?;
        self.summary.state_seconds.get_or_insert((0.0, 0.0)).1 += saving.elapsed().as_secs_f64();
        Ok(())
    }

    fn consume<D: Write>(&mut self, order: Receiver<Ordered>, diag: &mut D) -> Result<()> {
        let signals = match self.config.state {
            Some(_) => termination_signals()?,
            None => crossbeam_channel::never(),
        };
        loop {
            let item = crossbeam_channel::select! {
                recv(order) -> item => match item {
                    Ok(item) => item,
                    Err(_) => break,
                },
                recv(signals) -> signal => {
                    let signal = signal.unwrap_or(signal_hook::consts::SIGTERM);
                    self.out.flush()?;
                    self.save()?;
                    if !self.config.quiet {
                        let _ = writeln!(
                            diag,
                            "neardup: interrupted (signal {signal}); state saved after line {}",
                            self.lines
                        );
                    }
                    let _ = diag.flush();
                    // The reader may be blocked on an idle input: leave without joining it.
                    std::process::exit(128 + signal);
                }
            };
            let slot = match item {
                Ordered::Batch(slot) => slot,
                Ordered::Failed(e) => return Err(e),
            };
            let (batch, docs) = self.wait_for(&slot)?;
            self.taken += 1;
            // A batch that cannot evict anything may be verified on all threads; otherwise
            // each document's matches must be refreshed before the next insert may evict.
            let capacity = self.config.window;
            if self.helpers.is_some()
                && self.wants_help()
                && self.config.mode != Mode::Sign
                && (capacity == 0 || self.window.len() + docs.len() <= capacity)
            {
                self.batch_in_parallel(&batch, docs, diag)?;
            } else {
                let mut docs = docs.into_iter().enumerate().peekable();
                while let Some((i, doc)) = docs.next() {
                    if let Some((_, Doc::Good(next))) = docs.peek() {
                        self.window.prefetch_buckets(&next.band_keys);
                    }
                    self.document(&batch, i, doc, diag)?;
                }
            }
            if self.config.line_buffered {
                self.out.flush()?;
            }
            let every = self.config.checkpoint_every;
            if every > 0 && self.summary.docs_read - self.checkpointed >= every {
                self.out.flush()?;
                self.save()?;
            }
            if self.progress && self.last_progress.elapsed() >= Duration::from_millis(500) {
                self.last_progress = Instant::now();
                let _ = write!(
                    diag,
                    "\r\x1b[Kneardup: {} docs, {} duplicates, {} in window",
                    self.summary.docs_read,
                    self.summary.duplicates(),
                    self.window.len()
                );
                let _ = diag.flush();
            }
            // The reader fills the buffer again (when its pool is full, it is freed).
            if let Some(recycle) = &self.recycle {
                let _ = recycle.try_send(batch.data);
            }
        }
        Ok(())
    }

    /// The next batch in order, signed: while it is not, this thread signs batches that no
    /// worker has taken yet (later ones: their results wait in their slots), so that it
    /// never waits while there is signing to do.
    fn wait_for(&mut self, slot: &Slot) -> Result<(Batch, Vec<Doc>)> {
        let lost = || Error::Internal("a signing worker panicked".into());
        loop {
            if let Ok(done) = slot.try_recv() {
                return Ok(done);
            }
            let Some(stealer) = &mut self.stealer else {
                return slot.recv().map_err(|_| lost());
            };
            let work = crossbeam_channel::select! {
                recv(slot) -> done => return done.map_err(|_| lost()),
                recv(stealer.work) -> work => work,
            };
            match work {
                Ok(work) => sign(&mut stealer.worker, work, self.signed),
                // No batch is left to sign: the next one is on a worker.
                Err(_) => return slot.recv().map_err(|_| lost()),
            }
        }
    }

    /// Whether the helpers are called for the batch just taken ([`HelperPolicy`]). `Auto`:
    /// when at least [`BEHIND`] more signed batches wait. Alone, the sequencer spends less CPU
    /// per document than with the helpers; with two threads on two cores the signing is the
    /// slower stage and helpers only took CPU from it (`-j 2` was 5% faster without them);
    /// with more threads the signing outpaces the sequencer, signed batches queue up, and it
    /// is helped.
    fn wants_help(&self) -> bool {
        match self.config.helpers {
            HelperPolicy::Always => true,
            HelperPolicy::Never => false,
            HelperPolicy::Auto => self.signed.load(Ordering::Relaxed) >= self.taken + BEHIND,
        }
    }

    fn document<D: Write>(
        &mut self,
        batch: &Batch,
        i: usize,
        doc: Doc,
        diag: &mut D,
    ) -> Result<()> {
        self.summary.docs_read += 1;
        let line = batch.lines[i];
        self.lines = line.number;
        let mut signed = match doc {
            Doc::Good(s) => s,
            Doc::Bad(reason) => return self.bad_line(batch, i, &reason, diag),
        };

        if self.config.mode == Mode::Sign {
            self.summary.written += 1;
            return self.out.signed(
                &signed.id,
                &signed.band_keys,
                self.config.sign_values.then_some(&signed.signature[..]),
            );
        }
        // --pairs and the graph want every pair, copies included.
        let pairs_mode = matches!(self.config.mode, Mode::Pairs | Mode::Graph);
        // Exact copies first: no LSH lookup, no verification, nothing added to the window.
        if !pairs_mode && let Some(held) = self.window.find_exact(signed.exact) {
            return self.exact_copy(batch, i, held);
        }

        self.window
            .candidates(&signed.band_keys, &mut self.candidates);
        self.summary.candidates += self.candidates.len() as u64;
        self.matches.clear();
        for &held in &self.candidates {
            self.window.prefetch_slot(held);
        }
        for (k, &held) in self.candidates.iter().enumerate() {
            if let Some(&next) = self.candidates.get(k + 1) {
                self.window.prefetch(next);
            }
            let similarity = confirm(
                self.config,
                Compared::of_entry(self.window.entry(held)),
                Compared::of_signed(&signed),
            );
            if let Some(s) = similarity {
                self.matches.push((held, s));
            }
        }
        self.report(batch, i, &signed.id, signed.node.take())?;
        self.window
            .insert(line.number, into_entry(signed, pairs_mode));
        Ok(())
    }

    /// The documents of a batch that cannot evict anything, with the bucket inserts, the LSH
    /// lookups and verification on this thread and the helpers. Same output, window and
    /// recency order as [`Self::document`] one by one:
    /// 1. in order, each document is checked against the exact index and inserted without
    ///    its band keys; with no eviction every handle stays valid (inserts depend on neither
    ///    lookup nor verdict);
    /// 2. on all threads, each owning some of the bucket tables, the batch's band keys are
    ///    added in sequence order ([`index_batch`]): each bucket gets its documents in the
    ///    order one-by-one inserts give;
    /// 3. on all threads, each inserted document finds its candidates among the documents
    ///    with smaller sequence numbers (exactly the window it would have seen one by one:
    ///    nothing was evicted, and later ones are filtered out) and verifies them;
    /// 4. in order, each document's outcome is written and its matches refreshed, then the
    ///    document itself: the same sequence of move-to-front operations as one by one (the
    ///    inserts' own moves in step 1 are all repeated here), so the same recency order.
    fn batch_in_parallel<D: Write>(
        &mut self,
        batch: &Batch,
        docs: Vec<Doc>,
        diag: &mut D,
    ) -> Result<()> {
        enum Plan {
            Bad(BadLine),
            Exact(Held),
            Near(Held, Option<NodeExtras>),
        }
        let pairs_mode = matches!(self.config.mode, Mode::Pairs | Mode::Graph);
        let mut plans = Vec::with_capacity(docs.len());
        let mut inserted = Vec::with_capacity(docs.len());
        for (i, doc) in docs.into_iter().enumerate() {
            let mut signed = match doc {
                Doc::Good(s) => s,
                Doc::Bad(reason) => {
                    plans.push(Plan::Bad(reason));
                    continue;
                }
            };
            if !pairs_mode && let Some(held) = self.window.find_exact(signed.exact) {
                plans.push(Plan::Exact(held));
                continue;
            }
            let node = signed.node.take();
            let held = self
                .window
                .insert_unindexed(batch.lines[i].number, into_entry(signed, pairs_mode));
            inserted.push(held);
            plans.push(Plan::Near(held, node));
        }
        let inserted: Arc<[Held]> = inserted.into();
        index_batch(&mut self.window, &inserted, self.helpers.as_ref())?;
        let mut looked = look_up_and_verify(
            self.config,
            &mut self.window,
            inserted,
            &mut self.marks,
            self.helpers.as_ref(),
        )?
        .into_iter();
        for (i, plan) in plans.into_iter().enumerate() {
            self.summary.docs_read += 1;
            self.lines = batch.lines[i].number;
            match plan {
                Plan::Bad(reason) => self.bad_line(batch, i, &reason, diag)?,
                Plan::Exact(held) => self.exact_copy(batch, i, held)?,
                Plan::Near(held, node) => {
                    let (candidates, matches) =
                        looked.next().expect("one outcome per inserted document");
                    self.summary.candidates += candidates;
                    self.matches = matches;
                    let id = self.window.entry(held).id.clone();
                    self.report(batch, i, &id, node)?;
                    self.window.touch(held);
                }
            }
        }
        Ok(())
    }

    /// A line that is not a document: counted, reported (up to the limit), and passed
    /// through, skipped or fatal as `--on-bad-line` says.
    fn bad_line<D: Write>(
        &mut self,
        batch: &Batch,
        i: usize,
        reason: &BadLine,
        diag: &mut D,
    ) -> Result<()> {
        let line = batch.lines[i];
        self.summary.bad_lines += 1;
        let place = format!("{}:{}", self.names[line.input as usize], line.input_line);
        if self.config.on_bad_line == BadLinePolicy::Fail {
            return Err(Error::BadLine {
                place,
                reason: reason.to_string(),
            });
        }
        if !self.config.quiet && self.bad_reported < self.config.max_bad_line_reports as u64 {
            self.bad_reported += 1;
            let action = match self.config.on_bad_line {
                BadLinePolicy::Pass => "passed through",
                _ => "skipped",
            };
            let _ = writeln!(diag, "neardup: {place}: {reason} ({action})");
        }
        let writes_lines = matches!(self.config.mode, Mode::DropDups | Mode::Annotate);
        if self.config.on_bad_line == BadLinePolicy::Pass && writes_lines {
            self.out.line(batch.raw(i))?;
            self.summary.written += 1;
        }
        Ok(())
    }

    /// Line `i` is a copy of the held document (same normalised text): refreshed, and the
    /// line dropped or annotated. Nothing is added to the window.
    fn exact_copy(&mut self, batch: &Batch, i: usize, held: Held) -> Result<()> {
        self.window.touch(held);
        self.summary.dropped_exact += 1;
        self.summary.pairs += 1;
        let verdict = Verdict {
            dup_of: Some(&self.window.entry(held).id),
            similarity: 1.0,
            exact: true,
        };
        emit(
            &mut self.out,
            &mut self.summary,
            self.config,
            batch,
            i,
            verdict,
        )
    }

    /// Writes what line `i` (document `id`) gets once its verified matches are in
    /// `self.matches`: pairs, graph edges, or its line with the verdict; the matched documents
    /// are refreshed. The caller then inserts (or refreshes) the document itself.
    fn report(
        &mut self,
        batch: &Batch,
        i: usize,
        id: &DocId,
        node: Option<NodeExtras>,
    ) -> Result<()> {
        let pairs_mode = matches!(self.config.mode, Mode::Pairs | Mode::Graph);
        self.summary.pairs += self.matches.len() as u64;
        // The most similar earlier document; ties go to the earliest (candidates are sorted).
        let best = self
            .matches
            .iter()
            .copied()
            .fold(None::<(Held, f64)>, |best, m| match best {
                Some(b) if b.1 >= m.1 => Some(b),
                _ => Some(m),
            });
        for &(held, _) in &self.matches {
            self.window.touch(held);
        }

        if let Some(graph) = &mut self.graph {
            let (snippet, attrs) = node.unwrap_or_default();
            let node = graph.add_node(
                batch.lines[i].number,
                Node {
                    id: id.clone(),
                    snippet,
                    attrs,
                },
            );
            for &(held, similarity) in &self.matches {
                graph.add_edge(held.seq, node, similarity);
            }
        } else if pairs_mode {
            for &(held, similarity) in &self.matches {
                let earlier = &self.window.entry(held).id;
                self.out.pair(earlier, id, similarity)?;
                self.summary.written += 1;
            }
        } else {
            if best.is_some() {
                self.summary.dropped_near += 1;
            }
            let verdict = Verdict {
                dup_of: best.map(|(held, _)| &self.window.entry(held).id),
                similarity: best.map_or(0.0, |b| b.1),
                exact: false,
            };
            emit(
                &mut self.out,
                &mut self.summary,
                self.config,
                batch,
                i,
                verdict,
            )?;
        }
        Ok(())
    }
}

/// A document's number of candidates and its matches (earlier document, similarity), in
/// sequence order.
type Outcome = (u64, Vec<(Held, f64)>);

/// Runs of a batch's documents looked up and verified, by run number: (run, outcomes).
type Runs = Vec<(usize, Vec<Outcome>)>;

/// The candidates of each of `docs` (held, in sequence order) among the held documents with
/// smaller sequence numbers, and those that pass verification: (number of candidates,
/// matches in sequence order) per document.
fn check_docs(config: &Config, window: &Window, docs: &[Held], marks: &mut Marks) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(docs.len());
    let mut candidates = Vec::new();
    for (k, &doc) in docs.iter().enumerate() {
        if let Some(&next) = docs.get(k + 1) {
            window.prefetch_buckets(&window.entry(next).band_keys);
        }
        let entry = window.entry(doc);
        window.candidates_before(&entry.band_keys, doc.seq, marks, &mut candidates);
        for &held in &candidates {
            window.prefetch_slot(held);
        }
        let mut matches = Vec::new();
        for (c, &earlier) in candidates.iter().enumerate() {
            // Window entries are rarely in cache: ask for the next candidate's shingles
            // while this one is merged.
            if let Some(&next) = candidates.get(c + 1) {
                window.prefetch(next);
            }
            let verdict = confirm(
                config,
                Compared::of_entry(window.entry(earlier)),
                Compared::of_entry(entry),
            );
            if let Some(similarity) = verdict {
                matches.push((earlier, similarity));
            }
        }
        out.push((candidates.len() as u64, matches));
    }
    out
}

/// Takes runs of [`DOCS_PER_TAKE`] of `docs` from the shared counter `next` until none is
/// left, and checks them ([`check_docs`]).
fn take_runs(
    config: &Config,
    window: &Window,
    docs: &[Held],
    next: &AtomicUsize,
    marks: &mut Marks,
) -> Runs {
    let runs = docs.len().div_ceil(DOCS_PER_TAKE);
    let mut done = Vec::new();
    loop {
        let run = next.fetch_add(1, Ordering::Relaxed);
        if run >= runs {
            return done;
        }
        let share = &docs[run * DOCS_PER_TAKE..((run + 1) * DOCS_PER_TAKE).min(docs.len())];
        done.push((run, check_docs(config, window, share, marks)));
    }
}

/// Work for a helper on one batch. The window is shared read-only until every helper has
/// dropped its work; the inserted documents are in sequence order.
enum Work {
    /// Add the documents' keys to these bucket tables ([`index_keys`]) and send them back.
    Index {
        window: Arc<Window>,
        docs: Arc<[Held]>,
        tables: Tables,
    },
    /// Look up and verify runs of the documents, taken from the counter `next`.
    Verify {
        window: Arc<Window>,
        docs: Arc<[Held]>,
        next: Arc<AtomicUsize>,
    },
}

/// A job offered to the helpers: its work is taken by the first helper to look (which
/// then sends back a [`Done`]) or, if none has by the time the sequencer has done its own
/// share, by the sequencer. So the sequencer never waits for a helper that the signing
/// threads keep from running; it waits only for work a helper has begun.
struct Job(Arc<Mutex<Option<Work>>>);

impl Job {
    fn take(&self) -> Option<Work> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// What a helper sends back for the [`Work`] it took.
enum Done {
    Indexed(Tables),
    Verified(Runs),
}

/// Threads that help the sequencer index, look up and verify a batch (`--threads` − 1 of them),
/// started once for the whole run. A thread started per batch cost a `clone` and its stack,
/// and, at its exit, jemalloc's release of its caches: `madvise` calls whose TLB
/// shoot-downs reached the other core.
pub(crate) struct Helpers {
    jobs: Sender<Job>,
    done: Receiver<std::thread::Result<Done>>,
    count: usize,
}

impl Helpers {
    /// Starts `count` helpers in `scope`; they stop when the returned handle is dropped.
    fn start<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        config: &'scope Config,
        count: usize,
    ) -> Helpers {
        // Unbounded: jobs the sequencer took back stay queued (empty) until a helper skips
        // them, and sending must never wait for a helper.
        let (jobs, job_rx) = crossbeam_channel::unbounded::<Job>();
        let (done_tx, done) = bounded(count);
        for _ in 0..count {
            let (job_rx, done_tx) = (job_rx.clone(), done_tx.clone());
            scope.spawn(move || {
                let mut marks = Marks::default();
                for job in job_rx {
                    // Taken back by the sequencer already: nothing to do or to answer.
                    let Some(work) = job.take() else {
                        continue;
                    };
                    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        match work {
                            Work::Index {
                                window,
                                docs,
                                mut tables,
                            } => {
                                index_keys(&window, &docs, &mut tables);
                                Done::Indexed(tables)
                            }
                            Work::Verify { window, docs, next } => {
                                Done::Verified(take_runs(config, &window, &docs, &next, &mut marks))
                            }
                        }
                        // The work's window handle is dropped here, before the sequencer
                        // hears of the result.
                    }));
                    if done_tx.send(done).is_err() {
                        break;
                    }
                }
            });
        }
        Helpers { jobs, done, count }
    }
}

/// For each of `docs` (held, in sequence order): [`check_docs`], on this thread and the
/// `helpers` (this thread alone for fewer than [`PARALLEL_DOCS`] documents). The threads take
/// runs of [`DOCS_PER_TAKE`] documents from a shared counter until none is left, so a helper
/// that starts late (the signing workers hold the cores) costs nothing: this thread does the
/// rest. The results are in the documents' order, so they depend on neither the thread
/// count nor timing. The window is lent to the helpers and back.
fn look_up_and_verify(
    config: &Config,
    window: &mut Window,
    docs: Arc<[Held]>,
    marks: &mut Marks,
    helpers: Option<&Helpers>,
) -> Result<Vec<Outcome>> {
    let helpers = match helpers {
        Some(h) if docs.len() >= PARALLEL_DOCS => h,
        _ => return Ok(check_docs(config, window, &docs, marks)),
    };
    let runs = docs.len().div_ceil(DOCS_PER_TAKE);
    let next = Arc::new(AtomicUsize::new(0));
    let mut by_run: Vec<Vec<Outcome>> = (0..runs).map(|_| Vec::new()).collect();
    lend(
        window,
        helpers,
        |lent| {
            (0..helpers.count.min(runs - 1))
                .map(|_| Work::Verify {
                    window: Arc::clone(lent),
                    docs: Arc::clone(&docs),
                    next: Arc::clone(&next),
                })
                .collect()
        },
        |lent| Done::Verified(take_runs(config, lent, &docs, &next, marks)),
        // Work no helper took finds no run left: this thread took them all.
        |_, _| None,
        |done| {
            if let Done::Verified(done) = done {
                for (run, outcomes) in done {
                    by_run[run] = outcomes;
                }
            }
        },
    )?;
    Ok(by_run.into_iter().flatten().collect())
}

/// Adds the band keys of a batch's `docs` (inserted unindexed, in sequence order) to the
/// window's bucket tables: on this thread and the `helpers`, each owning some of the
/// [`SHARDS`] tables (this thread alone for fewer than [`PARALLEL_DOCS`] documents).
fn index_batch(window: &mut Window, docs: &Arc<[Held]>, helpers: Option<&Helpers>) -> Result<()> {
    let mut tables = window.take_tables();
    let helpers = match helpers {
        Some(h) if docs.len() >= PARALLEL_DOCS => h,
        _ => {
            index_keys(window, docs, &mut tables);
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
        |lent| {
            groups
                .into_iter()
                .map(|tables| Work::Index {
                    window: Arc::clone(lent),
                    docs: Arc::clone(docs),
                    tables,
                })
                .collect()
        },
        |lent| {
            index_keys(lent, docs, &mut own);
            Done::Indexed(own)
        },
        // Tables no helper took are filled here.
        |lent, work| match work {
            Work::Index { mut tables, .. } => {
                index_keys(lent, docs, &mut tables);
                Some(Done::Indexed(tables))
            }
            Work::Verify { .. } => None,
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
fn lend(
    window: &mut Window,
    helpers: &Helpers,
    jobs: impl FnOnce(&Arc<Window>) -> Vec<Work>,
    own: impl FnOnce(&Window) -> Done,
    mut reclaim: impl FnMut(&Window, Work) -> Option<Done>,
    mut take: impl FnMut(Done),
) -> Result<()> {
    let stopped = || Error::Internal("a verification thread stopped".into());
    let lent = Arc::new(std::mem::replace(window, Window::placeholder()));
    let offered: Vec<Job> = jobs(&lent)
        .into_iter()
        .map(|work| Job(Arc::new(Mutex::new(Some(work)))))
        .collect();
    for job in &offered {
        // A send fails only when every helper has gone: nothing was taken then.
        helpers
            .jobs
            .send(Job(Arc::clone(&job.0)))
            .map_err(|_| stopped())?;
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

/// Fewer documents than this in a batch are looked up and verified on the sequencer alone
/// (waking a helper costs more than they take).
const PARALLEL_DOCS: usize = 16;

/// Documents a thread takes at a time.
const DOCS_PER_TAKE: usize = 4;

/// `--helpers auto` calls the helpers when this many signed batches wait behind the one the
/// sequencer takes (the order queue holds 2 × threads + 2). With fewer, they came in often
/// enough on two cores to cost time: `-j 2` on the peer corpus, medians of 9 interleaved
/// runs, 0.46 s with 1, 0.45 s with 2, 0.43 s with 4 and with no helpers at all; 0.45 s
/// when they helped on every batch.
const BEHIND: usize = 4;

/// A batch to sign and where its result goes.
type ToSign = (Batch, Sender<(Batch, Vec<Doc>)>);

/// Signs a batch into its slot and counts it in `signed`.
fn sign(worker: &mut Worker, (batch, slot): ToSign, signed: &AtomicUsize) {
    let docs = worker.process_batch(&batch);
    // The sequencer may have stopped; then nobody wants the result.
    let _ = slot.send((batch, docs));
    signed.fetch_add(1, Ordering::Relaxed);
}

/// What the sequencer signs with while it would wait: the work channel and a worker.
struct Stealer {
    work: Receiver<ToSign>,
    worker: Worker,
}

/// What the window keeps of a signed document. `--pairs` never asks the exact index (copies
/// go through LSH to find all their pairs), so the text hash is not indexed there.
fn into_entry(signed: Signed, pairs_mode: bool) -> Entry {
    Entry {
        id: signed.id,
        shingles: signed.shingles.into_boxed_slice(),
        weights: signed.weights.into_boxed_slice(),
        text: signed.text.unwrap_or_default(),
        total_weight: signed.total_weight,
        signature: signed.signature.into_boxed_slice(),
        band_keys: signed.band_keys.into_boxed_slice(),
        exact: (!pairs_mode).then_some(signed.exact),
        text_hash: signed.exact,
    }
}

/// SIGINT and SIGTERM, delivered on a channel instead of ending the process (`--state`).
fn termination_signals() -> Result<Receiver<i32>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .map_err(|e| Error::io("installing signal handlers", e))?;
    let (tx, rx) = bounded(1);
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let _ = tx.send(signal);
        }
    });
    Ok(rx)
}

/// Writes one document's line according to the mode (not used by `--pairs`).
fn emit<W: Write>(
    out: &mut Output<W>,
    summary: &mut Summary,
    config: &Config,
    batch: &Batch,
    i: usize,
    verdict: Verdict<'_>,
) -> Result<()> {
    let is_dup = verdict.dup_of.is_some();
    let write = match config.mode {
        Mode::DropDups => !is_dup,
        Mode::OnlyDups => is_dup,
        Mode::Annotate => true,
        Mode::Pairs | Mode::Graph | Mode::Hist | Mode::Sign => false,
    };
    if !write {
        return Ok(());
    }
    summary.written += 1;
    if config.mode == Mode::Annotate {
        let format = batch.format;
        out.annotated(batch.content(i), format, verdict)
    } else {
        out.line(batch.raw(i))
    }
}

fn policy_name(p: BadLinePolicy) -> &'static str {
    match p {
        BadLinePolicy::Pass => "pass",
        BadLinePolicy::Skip => "skip",
        BadLinePolicy::Fail => "fail",
    }
}

/// True when standard error is a terminal (progress is shown only then).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::prefix_length;

    #[test]
    fn prefix_lengths() {
        // |x| − ⌈t|x|⌉ + 1, clamped to 1..=|x|.
        assert_eq!(prefix_length(10, 0.8), 3);
        assert_eq!(prefix_length(10, 0.5), 6);
        assert_eq!(prefix_length(10, 1.0), 1);
        assert_eq!(prefix_length(10, 0.05), 10);
        assert_eq!(prefix_length(1, 0.9), 1);
        assert_eq!(prefix_length(0, 0.5), 0);
        assert_eq!(prefix_length(5, 0.6), 3);
    }
}
