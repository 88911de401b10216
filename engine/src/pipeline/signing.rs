//! Signing one document, on the worker threads: extract the text and id, normalise,
//! shingle, weigh, sign (MinHash), cut the signature into LSH band keys, and keep what
//! verification needs (fingerprints, weights, text).

use super::family_counts::{Counted, Counting, FamilyCounts};
use super::prepare::Prepared;
use crate::config::{
    Config, InputFormat, ReadSettings, SketchSettings, VerifyMode, VerifySettings, Weights,
};
use crate::graph::snippet;
use crate::input::columnar::{RowProblem, Rows};
use crate::input::{BadLine, Batch, DocId, Extractor, Part};
use crate::job::Job;
use crate::sketch::lsh::{Sketch, prefix_length, sketch_of};
use crate::sketch::minhash::Signer;
use crate::sketch::weights::{IdfTable, Weigher};
use crate::text::normalize::{Normalized, Normalizer};
use crate::text::shingle::Shingler;
use crate::verify::{Compared, Fingerprint, fingerprints_into, weighted_fingerprints_into};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use xxhash_rust::xxh3::xxh3_128_with_seed;

/// A line after the workers: either what the window needs, or why it is not a document.
// Nearly every line is a good document, so boxing `Signed` would cost an allocation a line
// to save the space of the rare bad one.
#[allow(clippy::large_enum_variant)]
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
    pub text_hash: u128,
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
    /// The signature in brief, which ranks candidates.
    pub sketch: Sketch,
    /// The filter modes: the MinHash minima, which make the family keys
    /// ([`crate::window::Window::add_family_keys`]); else empty.
    pub minima: Vec<u32>,
    /// A filter document counted in the family summaries before its decision (`counting`
    /// ahead or in the window): its family keys, made from the fallback values the count gave
    /// it by the thread that counted it (where the signing threads count, off the in-order
    /// thread); else empty.
    pub family_keys: Vec<u64>,
    /// Whether, and where, the document was counted in the family summaries: when it was,
    /// the decision takes its `family_keys` instead of counting it again.
    pub counting: Counting,
    /// [`Job::Graph`]: the node's snippet and `--node-attr` values.
    pub node: Option<NodeData>,
}

impl Signed {
    /// Starts loading what deciding the document reads first: its keys, MinHash minima,
    /// family fallbacks and its shingles, up to 1 KiB of them (written by the thread that
    /// signed it, so on another core's caches; a kept document's record copies them into
    /// the window's store, which waited for them when only their start was asked for).
    #[inline]
    fn prefetch_keys(&self) {
        use crate::prefetch::prefetch_slice;
        prefetch_slice(&self.band_keys, 4);
        prefetch_slice(&self.minima, 8);
        prefetch_slice(&self.family_keys, 2);
        prefetch_slice(&self.shingles, 16);
    }
}

/// How many documents ahead of the one decided its own vectors are asked for
/// ([`ask_ahead`]): far enough for them to arrive from the core that signed it before its
/// buckets are asked for.
const VECTORS_AHEAD: usize = 4;

/// Called before each document is decided in order, with the documents still to come:
/// asks for the next document's buckets and copy-index cell in `window`, and for the own
/// vectors of the one [`VECTORS_AHEAD`] places on, so that neither is read cold.
#[inline]
pub(super) fn ask_ahead(window: &crate::window::Window, coming: &[Doc]) {
    if let Some(Doc::Good(next)) = coming.first() {
        window.prefetch_buckets(&next.band_keys);
        window.prefetch_copy(next.text_hash);
    }
    if let Some(Doc::Good(later)) = coming.get(VECTORS_AHEAD - 1) {
        later.prefetch_keys();
    }
}

/// What a graph node keeps besides its id.
#[derive(Debug, Default)]
pub struct NodeData {
    /// The first characters of the document's text.
    pub snippet: Box<str>,
    /// The `--node-attr` values, in the order of the flags.
    pub attrs: Box<[Option<Value>]>,
    /// Bytes of the document's text.
    pub text_bytes: u64,
    /// `--report`: the start of the text the page may show ([`crate::report::cut`]).
    pub report_text: Option<Box<str>>,
    /// `--report`, a text longer than what the page holds: the whole text, for finding
    /// where it differs from its match when their held starts are the same (dropped once
    /// the document is decided).
    pub report_whole: Option<Box<str>>,
}

/// Per-thread state of a signing worker: the settings of the stages it runs, taken whole,
/// what the job asks each document to carry, the tools made from them, and scratch buffers.
pub struct Worker {
    /// How lines are read (the text and id fields, the line limit).
    read: ReadSettings,
    /// The signature and its bands (K, seed, banding).
    sketch: SketchSettings,
    /// What verification will compare (the mode, the threshold, text stages).
    verify: VerifySettings,
    /// What the job asks each document to carry besides its signature.
    carry: Carry,
    extractor: Extractor,
    /// With no `--id-field`: the extractor for batches whose ids are the `id` field.
    by_id: Option<Extractor>,
    normalizer: Normalizer,
    shingler: Shingler,
    signer: Signer,
    idf: Option<Arc<IdfTable>>,
    weigher: Weigher,
    attrs: Vec<Option<Value>>,
    normalized: Normalized,
    shingles: Vec<u64>,
    values: Vec<u64>,
    /// The document's fingerprints (and weights), copied out at their exact size so that the
    /// window boxes them as they are (a vector sized before de-duplication was shrunk on the
    /// sequencer, with a copy when the two sizes fell in different allocation classes).
    fingerprints: Vec<Fingerprint>,
    fingerprint_weights: Vec<f32>,
    /// The run's family counter, which counts each batch signed here in input order.
    counts: Option<Arc<FamilyCounts>>,
}

/// What a job asks each signed document to carry besides its signature and band keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Carry {
    /// A graph command: the node's snippet (of `snippet_chars`) and `--node-attr` values.
    graph: bool,
    snippet_chars: usize,
    /// `--report`: the text the page shows (as a graph node's snippet is kept).
    report: bool,
    /// `--block-by`: the block's key among the band keys.
    block: bool,
    /// `--exact`: prefix keys instead of LSH bands.
    exact_join: bool,
    /// The filter modes: the family minima (and the report's whole long text).
    family: bool,
}

impl Carry {
    fn of(config: &Config, job: &Job) -> Carry {
        Carry {
            graph: job.graph().is_some(),
            snippet_chars: job.graph().map_or(0, |g| g.snippet_chars),
            report: job.report().is_some(),
            block: config.block_by.is_some(),
            exact_join: config.all_pairs,
            family: job.filters() && !config.all_pairs,
        }
    }
}

impl Worker {
    /// A worker signing for `job` with the settings of `prepared`, made on the thread that
    /// signs with it (which it prepares: [`crate::text::shingle::prepare_thread`]).
    pub fn new(prepared: &Prepared, job: &Job) -> Worker {
        crate::text::shingle::prepare_thread();
        let config = &prepared.config;
        let no_attrs = Vec::new();
        let node_attrs = job.graph().map_or(&no_attrs, |g| &g.node_attrs);
        let attrs: Vec<String> = node_attrs.iter().chain(&config.block_by).cloned().collect();
        let extractor = |id_field: Option<&str>| {
            Extractor::new(&config.read.field, id_field, config.read.max_line_bytes)
                .with_attrs(&attrs)
        };
        Worker {
            read: config.read.clone(),
            sketch: config.sketch.clone(),
            verify: config.verify.clone(),
            carry: Carry::of(config, job),
            extractor: extractor(config.read.id_field.as_deref()),
            by_id: (config.read.auto_ids && config.read.id_field.is_none())
                .then(|| extractor(Some("id"))),
            normalizer: config.text.normalizer,
            shingler: prepared.shingler(config.text.bag),
            signer: Signer::new(config.sketch.num_perm, config.sketch.seed),
            idf: match config.sketch.weights {
                Weights::TfIdf => Some(
                    prepared
                        .idf
                        .clone()
                        .expect("the IDF table is loaded before workers start"),
                ),
                _ => None,
            },
            weigher: Weigher::default(),
            attrs: Vec::new(),
            normalized: Normalized::default(),
            shingles: Vec::new(),
            values: vec![0; config.sketch.num_perm],
            fingerprints: Vec::new(),
            fingerprint_weights: Vec::new(),
            counts: None,
        }
    }

    /// Processes one line's content.
    pub fn process(&mut self, content: &[u8], format: InputFormat, number: u64) -> Doc {
        let extracted = if self.carry.graph || self.carry.block {
            self.extractor
                .extract_with_attrs(content, format, number, &mut self.attrs)
        } else {
            self.extractor.extract(content, format, number)
        };
        match extracted {
            Ok((text, id)) => self.sign_text(&text, id),
            Err(bad) => Doc::Bad(bad),
        }
    }

    /// Signs a document given as its text and id (what [`Worker::process`] extracts from a
    /// line; the `--node-attr` and `--block-by` values, if any, were extracted with them).
    pub(crate) fn sign_text(&mut self, text: &str, id: DocId) -> Doc {
        if let Err(bad) = self.normalizer.document_into(text, &mut self.normalized) {
            return Doc::Bad(bad);
        }
        let mut text_hash = xxh3_128_with_seed(&self.normalized.text, self.sketch.seed);
        // --block-by: the block's hash is mixed into every key, so documents of different
        // blocks never meet in the LSH buckets or the exact index.
        let block = if self.carry.block {
            block_hash(self.attrs.pop().flatten().as_ref(), self.sketch.seed)
        } else {
            0
        };
        text_hash ^= u128::from(block) << 64 | u128::from(block);
        let (mut fingerprints, mut weights, mut total_weight) = (Vec::new(), Vec::new(), 0.0);
        if let Some(table) = &self.idf {
            self.weigher.weigh(&self.shingler, &self.normalized, table);
            self.signer
                .sign_weighted_into(&self.weigher.groups(), &mut self.values);
            if self.verify.mode == VerifyMode::Jaccard {
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
            if !self.carry.exact_join {
                self.signer.sign_into(&self.shingles, &mut self.values);
            }
            if self.verify.mode == VerifyMode::Jaccard {
                fingerprints_into(&self.shingles, &mut self.fingerprints);
                fingerprints = self.fingerprints.to_vec();
            }
        }
        // A filter document's family keys are appended to its band keys when it is
        // decided, on the in-order thread: room for them here spares that thread a copy.
        let family_room = match self.carry.family {
            true => crate::window::MAX_FAMILY_KEYS,
            false => 0,
        };
        let mut band_keys = Vec::with_capacity(self.sketch.lsh.bands + family_room);
        if self.carry.exact_join {
            // All-Pairs prefix filter: shingles are sorted by hash, a global order, and two
            // sets with Jaccard ≥ t share an element among their first |x| − ⌈t·|x|⌉ + 1.
            band_keys.extend_from_slice(
                &self.shingles[..prefix_length(self.shingles.len(), self.verify.threshold)],
            );
        } else {
            self.sketch.lsh.band_keys_into(&self.values, &mut band_keys);
        }
        if self.carry.block {
            for key in &mut band_keys {
                *key = crate::hash::mix64(*key ^ block);
            }
        }
        let signature = match self.verify.mode {
            VerifyMode::None => compact_signature(&self.values),
            _ => Vec::new(),
        };
        let sketch = sketch_of(&self.values);
        let minima = match self.carry.family {
            true => compact_signature(&self.values),
            false => Vec::new(),
        };
        let kept_text =
            (!self.verify.text_stages.is_empty()).then(|| self.normalized.as_str().into());
        let node = (self.carry.graph || self.carry.report).then(|| NodeData {
            snippet: match self.carry.graph {
                true => snippet(text, self.carry.snippet_chars),
                false => Box::default(),
            },
            // The report folds the few texts it shows itself: here, only a copy.
            report_text: self.carry.report.then(|| crate::report::cut(text)),
            report_whole: (self.carry.report
                && self.carry.family
                && text.len() > crate::report::HELD_BYTES)
                .then(|| text.into()),
            attrs: std::mem::take(&mut self.attrs).into_boxed_slice(),
            text_bytes: text.len() as u64,
        });
        Doc::Good(Signed {
            id,
            text_hash,
            shingles: fingerprints,
            weights,
            total_weight,
            text: kept_text,
            signature,
            band_keys,
            sketch,
            minima,
            family_keys: Vec::new(),
            counting: Counting::Due,
            node,
        })
    }

    /// `between` is called before each document: a signing thread serves the helpers'
    /// offers there ([`super::helpers::Server`]).
    pub(super) fn process_batch(&mut self, batch: &Batch, between: &mut dyn FnMut()) -> Vec<Doc> {
        let mut docs = self.process_lines(batch, between);
        if self.read.budget_limited {
            for doc in &mut docs {
                if let Doc::Bad(bad) = doc {
                    *bad = std::mem::replace(bad, BadLine::Empty).over_budget();
                }
            }
        }
        if let Some(counts) = &self.counts {
            let mut counted: Vec<Counted<'_>> = (docs.iter_mut())
                .filter_map(|doc| match doc {
                    Doc::Good(s) if !s.minima.is_empty() => Some(Counted {
                        minima: &s.minima,
                        family_keys: &mut s.family_keys,
                        counting: &mut s.counting,
                    }),
                    _ => None,
                })
                .collect();
            counts.count(batch.ordinal, &mut counted);
        }
        docs
    }

    /// This worker, counting the family summaries of each batch it signs with `counts`
    /// (in input order: it waits for the batches before to be counted).
    pub(super) fn counting(self, counts: Option<Arc<FamilyCounts>>) -> Worker {
        Worker { counts, ..self }
    }

    fn process_lines(&mut self, batch: &Batch, between: &mut dyn FnMut()) -> Vec<Doc> {
        let format = batch.format;
        // Ids from the lines' `id` field (decided by the reader): that extractor for this
        // batch.
        let by_id = batch.ids_from_field && self.by_id.is_some();
        if by_id {
            std::mem::swap(&mut self.extractor, self.by_id.as_mut().expect("checked"));
        }
        if let Some(rows) = &batch.rows {
            return self.process_rows(batch, rows, between);
        }
        let docs = (0..batch.lines.len())
            .map(|i| match batch.lines[i].part {
                Part::Whole => {
                    between();
                    self.process(batch.content(i), format, batch.lines[i].number)
                }
                // Pieces of an over-long line: the first stands for the line; the sequencer
                // only writes the others through.
                Part::First | Part::Rest | Part::Last => {
                    Doc::Bad(BadLine::TooLongPiece(batch.content(i).len()))
                }
            })
            .collect();
        if by_id {
            std::mem::swap(&mut self.extractor, self.by_id.as_mut().expect("checked"));
        }
        docs
    }
}

impl Worker {
    /// The rows of a columnar input: each text is signed as it is (no line to parse), with
    /// the id column's value as its id.
    fn process_rows(&mut self, batch: &Batch, rows: &Rows, between: &mut dyn FnMut()) -> Vec<Doc> {
        (0..batch.lines.len())
            .map(|i| {
                between();
                match rows.problem(i) {
                    Some(RowProblem::NullText) => {
                        return Doc::Bad(BadLine::NullField(self.read.field.clone()));
                    }
                    Some(RowProblem::TooLong(n)) => return Doc::Bad(BadLine::TooLong(n)),
                    Some(RowProblem::NullId) => {
                        // Ids read from the default column name it, not the empty setting.
                        let named = self.read.id_field.as_deref().filter(|f| !f.is_empty());
                        let column = named.unwrap_or("id").to_string();
                        return Doc::Bad(BadLine::NullId(column));
                    }
                    None => {}
                }
                // SAFETY: the row's bytes are a copy of one value of an Arrow string column
                // (`columnar::ColumnReader`), which the Parquet and IPC readers validated as
                // UTF-8 when they decoded it.
                let text = unsafe { std::str::from_utf8_unchecked(batch.content(i)) };
                let id = match &rows.ids {
                    Some(ids) => ids[i].clone().unwrap_or(DocId::Line(batch.lines[i].number)),
                    None => DocId::Line(batch.lines[i].number),
                };
                if text.trim().is_empty() {
                    return Doc::Bad(BadLine::Empty);
                }
                // The attribute columns' values, as a line's fields would give them.
                self.attrs.clear();
                if let Some(values) = rows.attrs.get(i) {
                    self.attrs.extend(values.iter().cloned());
                }
                self.sign_text(text, id)
            })
            .collect()
    }
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
/// values (see [`crate::sketch::minhash`]), so nothing is lost.
fn compact_signature(values: &[u64]) -> Vec<u32> {
    values.iter().map(|&v| v as u32).collect()
}

impl Signed {
    /// What verification compares of this document.
    pub fn compared(&self) -> Compared<'_> {
        Compared {
            shingles: &self.shingles,
            weights: &self.weights,
            total_weight: self.total_weight,
            text: self.text.as_deref(),
            signature: &self.signature,
            text_hash: self.text_hash,
        }
    }
}

/// Signs a batch (a task of the ordered executor, `super::ordered`) and counts it in
/// `signed`; gives back the batch with its signed documents.
pub(super) fn sign(worker: &mut Worker, batch: Batch, signed: &AtomicUsize) -> (Batch, Vec<Doc>) {
    sign_between(worker, batch, signed, &mut || {})
}

/// [`sign`], calling `between` before each document.
pub(super) fn sign_between(
    worker: &mut Worker,
    batch: Batch,
    signed: &AtomicUsize,
    between: &mut dyn FnMut(),
) -> (Batch, Vec<Doc>) {
    let docs = worker.process_batch(&batch, between);
    signed.fetch_add(1, Ordering::Relaxed);
    (batch, docs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{FilterJob, GraphJob};

    /// What each job asks its documents to carry: the filter its family minima, a graph
    /// its snippets, `--report` the shown text, `--exact` prefix keys, `--block-by` a key.
    #[test]
    fn each_job_asks_for_what_it_uses() {
        let config = Config::default();
        let filter = Job::Filter(FilterJob::default());
        let carry = Carry::of(&config, &filter);
        assert!(carry.family && !carry.graph && !carry.report && !carry.exact_join);
        let reported = Job::Filter(FilterJob {
            report: Some("page.html".into()),
            ..FilterJob::default()
        });
        assert!(Carry::of(&config, &reported).report);
        let graph = Job::Graph(GraphJob::default());
        let carry = Carry::of(&config, &graph);
        assert!(carry.graph && !carry.family);
        assert_eq!(carry.snippet_chars, GraphJob::default().snippet_chars);
        let exact = Config {
            all_pairs: true,
            block_by: Some("site".into()),
            ..Config::default()
        };
        let carry = Carry::of(&exact, &filter);
        assert!(carry.exact_join && carry.block && !carry.family);
    }
}
