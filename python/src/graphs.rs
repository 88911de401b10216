//! `pairs` and `clusters`: the pipeline over texts streamed from Python.

use crate::errors::{py_err, warn};
use crate::texts::Reader;
use crate::values::keywords;
use neardup::cmd;
use neardup::cmd::flags::keywords::Keyword;
use neardup::config::Settings;
use neardup::error::{Note, Wording, worded};
use neardup::input::{Batch, Source, TEXTS, TextBatcher};
use neardup::job::GraphJob;
use neardup::pipeline::{self, Prepared};
use neardup::printed_similarity;
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
/// ([`Source::Batches`]) on a thread of its own while this one (holding the GIL) reads them
/// ([`Reader`]: out of an Arrow column's buffers, or item by item): the reading overlaps the
/// signing, and the engine holds a few batches of the texts, not a copy of them all.
/// What the pipeline says about bad rows is issued as `NeardupWarning`s, in row terms.
/// Returns the job's answer and the number of texts.
pub(crate) fn with_texts<T: Send>(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    lengths: Option<&mut Vec<u64>>,
    job: impl FnOnce(Source, &mut Vec<Note>) -> neardup::Result<T> + Send,
) -> PyResult<(T, usize)> {
    let (sender, receiver) = sync_channel::<Batch>(BATCHES_IN_FLIGHT);
    let mut missing = Missing::default();
    let mut said = Vec::new();
    let (answer, n) = std::thread::scope(|scope| {
        let said = &mut said;
        // Named as the command line's sequencer is, beside its `neardup-…` threads.
        let running = std::thread::Builder::new()
            .name("neardup".into())
            .spawn_scoped(scope, move || {
                job(Source::Batches(Box::new(receiver.into_iter())), said)
            })
            .expect("a thread for the pipeline");
        // The sender is dropped when this returns, which ends the input.
        let written = send_texts(py, texts, sender, &mut missing, lengths);
        let answer = py.detach(|| running.join());
        (answer, written)
    });
    let n = n?;
    let answer = answer.map_err(|_| PyRuntimeError::new_err("neardup: the pipeline panicked"))?;
    let answer = answer.map_err(|e| {
        let e = py_err(e);
        let message = missing.reworded(&e.value(py).to_string());
        e.get_type(py)
            .call1((message,))
            .map_or(e, PyErr::from_value)
    })?;
    for note in said {
        // Settings named as the module's keywords (`max_line_bytes`).
        warn(py, &missing.reworded(&note.worded(Wording::Keywords)))?;
    }
    Ok((answer, n))
}

/// The rows of the texts that were missing values (the first [`Missing::KEPT`]): the
/// pipeline sees an empty text there, and its messages name them as such.
#[derive(Default)]
pub(crate) struct Missing {
    rows: HashMap<usize, &'static str>,
}

impl Missing {
    const KEPT: usize = 1024;

    /// A pipeline message in row terms: `texts:5: empty line` is `row 4: empty text`, or
    /// `row 4 is a missing value (None)`.
    fn reworded(&self, message: &str) -> String {
        let prefix = format!("{TEXTS}:");
        let Some(rest) = message.strip_prefix(&prefix) else {
            return message.to_string();
        };
        let Some((number, reason)) = rest.split_once(": ") else {
            return message.to_string();
        };
        let Ok(number) = number.parse::<usize>() else {
            return message.to_string();
        };
        let row = number - 1;
        match self.rows.get(&row) {
            Some(kind) => {
                let action = reason.rsplit_once(" (").map_or("", |(_, a)| a);
                let action = action.strip_suffix(')').map(|a| format!(" ({a})"));
                format!(
                    "row {row} is a missing value ({kind}){}",
                    action.unwrap_or_default()
                )
            }
            None => format!(
                "row {row}: {}",
                reason.replacen("empty line", "empty text", 1)
            ),
        }
    }
}

/// Reads each text into batches sent to `sender` (and its length in bytes into `lengths`);
/// returns their number. Stops early, without error, when the pipeline is gone (the job
/// failed and says why).
pub(crate) fn send_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    sender: SyncSender<Batch>,
    missing: &mut Missing,
    mut lengths: Option<&mut Vec<u64>>,
) -> PyResult<usize> {
    let send = |batch: Batch| match sender.try_send(batch) {
        Ok(()) => true,
        // Wait for the pipeline without holding up other Python threads.
        Err(TrySendError::Full(batch)) => py.detach(|| sender.send(batch).is_ok()),
        Err(TrySendError::Disconnected(_)) => false,
    };
    let mut reader = Reader::new(texts, None)?;
    let mut batcher = TextBatcher::default();
    loop {
        let first = reader.read();
        let (slice, error) = reader.next_slice(SIGNAL_CHECK);
        for (i, (text, _)) in slice.docs().into_iter().enumerate() {
            if text.is_none() && missing.rows.len() < Missing::KEPT {
                missing
                    .rows
                    .insert(first + i, slice.missing(i).unwrap_or("None"));
            }
            if let Some(lengths) = &mut lengths {
                lengths.push(text.map_or(0, str::len) as u64);
            }
            if let Some(batch) = batcher.push(text.unwrap_or(""))
                && !send(batch)
            {
                return Ok(reader.read());
            }
        }
        if let Some(e) = error {
            let note = format!("neardup: reading row {} of the texts", reader.read());
            let _ = e.value(py).call_method1("add_note", (note,));
            return Err(e);
        }
        if slice.len() < SIGNAL_CHECK {
            break;
        }
        // Ctrl-C: stop reading; the pipeline ends its input and the error goes up.
        py.check_signals()?;
    }
    if let Some(batch) = batcher.finish() {
        send(batch);
    }
    Ok(reader.read())
}

/// Runs the pipeline over the texts ([`with_texts`]) and returns the `graph` of verified
/// pairs; what it says goes to `diagnostics`.
pub(crate) fn graph_of(
    config: Settings,
    graph: GraphJob,
    texts: Source,
    diagnostics: &mut Vec<Note>,
) -> neardup::Result<neardup::graph::DupGraph> {
    let prepared = Prepared::new(config)?;
    let (_, graph) = pipeline::collect_graph(&prepared, graph, texts, diagnostics, false)?;
    Ok(graph)
}

/// Every verified pair (earlier position, later position, similarity), as `--pairs` lists
/// them.
#[pyfunction]
pub(crate) fn pairs(
    py: Python<'_>,
    settings: Vec<(String, Bound<'_, PyAny>)>,
    texts: &Bound<'_, PyAny>,
) -> PyResult<Vec<(u64, u64, f64)>> {
    // The settings of `--pairs`, so that a filter's keyword (`only_dups`) is refused; every
    // pair is collected as a graph's edges.
    let mut settings = keywords(settings)?;
    settings.push("pairs", Keyword::Switch(true));
    let (config, _) = cmd::filter_keywords(settings).map_err(py_err)?;
    let (pairs, _) = with_texts(py, texts, None, |input, said| {
        let graph = graph_of(config, GraphJob::ids_only(), input, said)?;
        let position = |node: u32| graph.lines[node as usize] - 1;
        Ok(graph
            .edges()
            .map(|(a, b, s)| (position(a), position(b), printed_similarity(f64::from(s))))
            .collect())
    })?;
    Ok(pairs)
}

/// The group of each text (groups numbered from 0 in order of their first member; -1 for a
/// text that is not a document); with `longest`, also the position of each group's longest
/// text (in bytes; the first of equals), as `neardup clusters --keep longest` keeps.
#[pyfunction]
#[pyo3(signature = (settings, texts, longest=false))]
pub(crate) fn clusters(
    py: Python<'_>,
    settings: Vec<(String, Bound<'_, PyAny>)>,
    texts: &Bound<'_, PyAny>,
    longest: bool,
) -> PyResult<(Vec<i64>, Option<Vec<u64>>)> {
    let plan = cmd::clusters_keywords(keywords(settings)?).map_err(py_err)?;
    let config = &plan.config;
    let mut lengths = Vec::new();
    let ((graph, clustering), n) =
        with_texts(py, texts, longest.then_some(&mut lengths), |input, said| {
            let graph = graph_of(config.clone(), plan.graph.clone(), input, said)?;
            let clustering = graph.cluster_in_thread(plan.by, plan.grouping)?;
            Ok((graph, clustering))
        })?;
    // The grouping's warnings (a clique search cut short) go through Python's `warnings`,
    // like the engine's other warnings, unless `quiet`.
    if !config.quiet {
        for w in &clustering.warnings {
            warn(py, &worded(w, Wording::Keywords))?;
        }
    }
    let mut groups = vec![-1; n];
    for (node, &line) in graph.lines.iter().enumerate() {
        groups[(line - 1) as usize] = i64::from(clustering.cluster[node]);
    }
    if !longest {
        return Ok((groups, None));
    }
    let mut best: Vec<Option<u64>> = Vec::new();
    for (row, &group) in groups.iter().enumerate() {
        let Ok(group) = usize::try_from(group) else {
            continue;
        };
        if best.len() <= group {
            best.resize(group + 1, None);
        }
        let row = row as u64;
        match best[group] {
            Some(b) if lengths[b as usize] >= lengths[row as usize] => {}
            _ => best[group] = Some(row),
        }
    }
    Ok((
        groups,
        Some(best.into_iter().map(|b| b.unwrap_or(0)).collect()),
    ))
}
