//! `pairs` and `clusters`: the pipeline over texts streamed from Python.

use crate::errors::{NeardupWarning, py_err};
use crate::values::{check_batch, text_of, with_program};
use neardup::cmd;
use neardup::config::Settings;
use neardup::error::{WordedWriter, Wording, worded};
use neardup::input::{Batch, Source, TextBatcher};
use neardup::job::GraphJob;
use neardup::pipeline::{self, Prepared};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

/// Batches in flight between the thread that copies the Python texts and the pipeline: the
/// engine's copy of the texts is bounded by these (about 1 MiB each), not a second corpus.
pub(crate) const BATCHES_IN_FLIGHT: usize = 4;

/// Texts copied between two checks for Ctrl-C.
pub(crate) const SIGNAL_CHECK: usize = 4096;

/// Runs `job` on the texts, handed to the pipeline as batches of documents
/// ([`Source::Batches`]) on a thread of its own while this one (holding the GIL) copies them
/// out of Python: the copying overlaps the signing, and the engine holds a few batches of
/// the texts, not a copy of them all. Returns the job's answer and the number of texts.
pub(crate) fn with_texts<T: Send>(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    job: impl FnOnce(Source) -> neardup::Result<T> + Send,
) -> PyResult<(T, usize)> {
    let (sender, receiver) = sync_channel::<Batch>(BATCHES_IN_FLIGHT);
    std::thread::scope(|scope| {
        let running = scope.spawn(move || job(Source::Batches(Box::new(receiver.into_iter()))));
        // The sender is dropped when this returns, which ends the input.
        let written = send_texts(py, texts, sender);
        let answer = py.detach(|| running.join());
        let n = written?;
        let answer =
            answer.map_err(|_| PyRuntimeError::new_err("neardup: the pipeline panicked"))?;
        Ok((answer.map_err(py_err)?, n))
    })
}

/// Copies each text into batches sent to `sender`; returns their number. Stops early,
/// without error, when the pipeline is gone (the job failed and says why).
pub(crate) fn send_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    sender: SyncSender<Batch>,
) -> PyResult<usize> {
    let send = |batch: Batch| match sender.try_send(batch) {
        Ok(()) => true,
        // Wait for the pipeline without holding up other Python threads.
        Err(TrySendError::Full(batch)) => py.detach(|| sender.send(batch).is_ok()),
        Err(TrySendError::Disconnected(_)) => false,
    };
    check_batch(texts)?;
    let mut batcher = TextBatcher::default();
    for item in texts.try_iter()? {
        let item = item?;
        let text = text_of(&item)?;
        let full = batcher.push(&text);
        if batcher.texts().is_multiple_of(SIGNAL_CHECK as u64) {
            // Ctrl-C: stop copying; the pipeline ends its input and the error goes up.
            py.check_signals()?;
        }
        if let Some(batch) = full
            && !send(batch)
        {
            return Ok(batcher.texts() as usize);
        }
    }
    if let Some(batch) = batcher.finish() {
        send(batch);
    }
    Ok(batcher.texts() as usize)
}

/// Runs the pipeline over the texts ([`with_texts`]) and returns the `graph` of verified
/// pairs.
pub(crate) fn graph_of(
    config: Settings,
    graph: GraphJob,
    texts: Source,
) -> neardup::Result<neardup::graph::DupGraph> {
    let prepared = Prepared::new(config)?;
    // Diagnostics name settings as the module's keywords (`max_line_bytes`).
    let mut stderr = WordedWriter::new(std::io::stderr(), Wording::Keywords);
    let (_, graph) = pipeline::collect_graph(&prepared, graph, texts, &mut stderr, false)?;
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
