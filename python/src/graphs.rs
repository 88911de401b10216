//! `pairs` and `clusters`: the pipeline over texts streamed from Python.

use crate::errors::{NeardupWarning, py_err};
use crate::values::{check_batch, text_of, with_program};
use neardup::cmd;
use neardup::config::{Config, InputFormat};
use neardup::error::{WordedWriter, Wording, worded};
use neardup::input::Input;
use neardup::job::GraphJob;
use neardup::pipeline::{self, Prepared};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

/// Bytes of JSON Lines per chunk sent from the thread that writes the Python texts to the
/// pipeline, and chunks in flight: the engine's copy of the texts is bounded by these, not a
/// second corpus.
pub(crate) const CHUNK_BYTES: usize = 1 << 20;
pub(crate) const CHUNKS_IN_FLIGHT: usize = 4;

/// Texts written between two checks for Ctrl-C.
pub(crate) const SIGNAL_CHECK: usize = 4096;

/// The pipeline's input for `pairs` and `clusters`: JSON Lines (a text may hold newlines),
/// received in chunks from the thread that writes them from the Python strings.
pub(crate) struct ChunkReader {
    chunks: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.chunks.recv() {
                Ok(chunk) => (self.chunk, self.at) = (chunk, 0),
                // The writer is done (or stopped on an error it reports itself).
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Runs `job` on the texts as pipeline input, on a thread of its own that reads them while
/// this one (holding the GIL) writes them: the writing overlaps the signing, and the engine
/// holds a few chunks of the texts, not a copy of them all. Returns the job's answer and the
/// number of texts.
pub(crate) fn with_texts<T: Send>(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    job: impl FnOnce(Input) -> neardup::Result<T> + Send,
) -> PyResult<(T, usize)> {
    let (sender, receiver) = sync_channel(CHUNKS_IN_FLIGHT);
    let reader = ChunkReader {
        chunks: receiver,
        chunk: Vec::new(),
        at: 0,
    };
    std::thread::scope(|scope| {
        let running = scope.spawn(move || job(Input::from_reader("texts", Box::new(reader))));
        // The sender is dropped when this returns, which ends the input.
        let written = write_texts(py, texts, sender);
        let answer = py.detach(|| running.join());
        let n = written?;
        let answer =
            answer.map_err(|_| PyRuntimeError::new_err("neardup: the pipeline panicked"))?;
        Ok((answer.map_err(py_err)?, n))
    })
}

/// Writes each text as a JSON Lines document to `sender`, in chunks; returns their number.
/// Stops early, without error, when the reader is gone (the job failed and says why).
pub(crate) fn write_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    sender: SyncSender<Vec<u8>>,
) -> PyResult<usize> {
    let mut chunk = Vec::with_capacity(CHUNK_BYTES);
    let mut n = 0;
    let send = |chunk: Vec<u8>| match sender.try_send(chunk) {
        Ok(()) => true,
        // Wait for the pipeline without holding up other Python threads.
        Err(TrySendError::Full(chunk)) => py.detach(|| sender.send(chunk).is_ok()),
        Err(TrySendError::Disconnected(_)) => false,
    };
    check_batch(texts)?;
    for item in texts.try_iter()? {
        let item = item?;
        let text = text_of(&item)?;
        chunk.extend_from_slice(b"{\"text\":");
        neardup::input::write_json_string(&text, &mut chunk);
        chunk.extend_from_slice(b"}\n");
        n += 1;
        if n % SIGNAL_CHECK == 0 {
            // Ctrl-C: stop writing; the pipeline ends its input and the error goes up.
            py.check_signals()?;
        }
        if chunk.len() >= CHUNK_BYTES {
            let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_BYTES));
            if !send(full) {
                return Ok(n);
            }
        }
    }
    if !chunk.is_empty() {
        send(chunk);
    }
    Ok(n)
}

/// Runs the pipeline over the texts (`input`, the JSON Lines [`with_texts`] writes) and
/// returns the `graph` of verified pairs.
pub(crate) fn graph_of(
    mut config: Config,
    graph: GraphJob,
    input: Input,
) -> neardup::Result<neardup::graph::DupGraph> {
    config.format = InputFormat::Jsonl;
    let prepared = Prepared::new(config)?;
    // Diagnostics name settings as the module's keywords (`max_line_bytes`).
    let mut stderr = WordedWriter::new(std::io::stderr(), Wording::Keywords);
    let (_, graph) = pipeline::collect_graph(&prepared, graph, vec![input], &mut stderr, false)?;
    Ok(graph)
}

/// Every verified pair (earlier position, later position, similarity), as `--pairs` lists
/// them.
#[pyfunction]
pub(crate) fn pairs(
    py: Python<'_>,
    argv: Vec<String>,
    texts: &Bound<'_, PyAny>,
) -> PyResult<Vec<(u64, u64, f64)>> {
    // The command line of `--pairs`, so that a filter's keyword (`only_dups`) is refused;
    // every pair is collected as a graph's edges.
    let (config, _) = cmd::parse(with_program([vec!["--pairs".into()], argv].concat()))
        .and_then(|args| args.filter_settings())
        .map_err(py_err)?;
    let (pairs, _) = with_texts(py, texts, |input| {
        let graph = graph_of(config, GraphJob::ids_only(), input)?;
        let position = |node: u32| graph.lines[node as usize] - 1;
        // Similarities repeat (1 for every exact copy, small fractions): each is turned
        // into its decimal once.
        let mut decimal = HashMap::new();
        Ok(graph
            .edges()
            .map(|(a, b, s)| {
                let s = *decimal.entry(s.to_bits()).or_insert_with(|| shortest(s));
                (position(a), position(b), s)
            })
            .collect())
    })?;
    Ok(pairs)
}

/// The group of each text (groups numbered from 0 in order of their first member; -1 for a
/// text that is not a document).
#[pyfunction]
pub(crate) fn clusters(
    py: Python<'_>,
    argv: Vec<String>,
    texts: &Bound<'_, PyAny>,
) -> PyResult<Vec<i64>> {
    let argv = [vec!["clusters".to_string()], argv].concat();
    let plan = cmd::parse(with_program(argv))
        .and_then(|args| args.clusters_settings())
        .map_err(py_err)?;
    let config = &plan.config;
    let ((graph, clustering), n) = with_texts(py, texts, |input| {
        let graph = graph_of(config.clone(), plan.graph.clone(), input)?;
        let clustering = graph.cluster_in_thread(plan.by, plan.grouping)?;
        Ok((graph, clustering))
    })?;
    // The grouping's warnings (a clique search cut short) go through Python's `warnings`,
    // like the engine's other warnings, unless `quiet`.
    if !config.quiet {
        let category = py.get_type::<NeardupWarning>();
        for w in &clustering.warnings {
            let message = worded(w, Wording::Keywords);
            let message = std::ffi::CString::new(message.as_bytes()).unwrap_or_default();
            PyErr::warn(py, &category, &message, 2)?;
        }
    }
    let mut groups = vec![-1; n];
    for (node, &line) in graph.lines.iter().enumerate() {
        groups[(line - 1) as usize] = i64::from(clustering.cluster[node]);
    }
    Ok(groups)
}

/// The shortest decimal that reads back as the same f32 (edges hold f32 similarities), so
/// that Python shows 0.8, not 0.800000011920929.
pub(crate) fn shortest(s: f32) -> f64 {
    s.to_string().parse().unwrap_or(f64::from(s))
}
