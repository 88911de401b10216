//! `neardup._neardup`: the Python module's native half. It takes command lines, not keyword
//! arguments: `neardup/__init__.py` turns `threshold=0.8` into `--threshold 0.8`, and
//! [`neardup::cmd::parse`] reads them as the binary does, so options, defaults and messages
//! are the command line's. Everything else is the crate's own engine:
//! [`neardup::pipeline::Deduper`] for `Deduper`, and the pipeline itself for `pairs` and
//! `clusters`. The GIL is released while documents are signed and verified.

use neardup::config::{BadLinePolicy, Config, InputFormat};
use neardup::input::{DocId, Input};
use neardup::pipeline::{self, Deduper, Outcome, Prepared};
use neardup::{Error, cmd};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};
use std::collections::HashMap;
use std::io::Read;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

/// jemalloc for the engine's allocations (Python's own objects stay with Python's
/// allocator), as in the binary: docs/performance.md measures what it saves here.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

create_exception!(
    _neardup,
    NeardupWarning,
    pyo3::exceptions::PyUserWarning,
    "What the neardup command says on stderr as a warning (settings, the reference's bad lines, the window reaching --max-memory), through Python's warnings."
);

create_exception!(
    _neardup,
    BadDocumentError,
    PyValueError,
    "A document that is not one (no words after normalisation) under on_bad_line='fail'."
);

/// The Python exception for an engine error: usage errors are `ValueError`s with the
/// command line's message.
fn py_err(e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::Config { .. } | Error::Usage(_) => PyValueError::new_err(message),
        Error::BadLine { .. } => BadDocumentError::new_err(message),
        Error::Io { .. } => PyOSError::new_err(message),
        Error::Data(_) | Error::Internal(_) => PyRuntimeError::new_err(message),
    }
}

/// A command line's settings, its program name first.
fn with_program(argv: Vec<String>) -> Vec<String> {
    std::iter::once("neardup".to_string()).chain(argv).collect()
}

/// The kept document a duplicate matched.
#[pyclass(frozen, module = "neardup", name = "Match")]
struct PyMatch {
    /// The id of the kept document: the one given to `add`, or its position (from 0).
    #[pyo3(get)]
    dup_of: Py<PyAny>,
    /// Their similarity (1.0 for an exact copy).
    #[pyo3(get)]
    similarity: f64,
    /// Whether their normalised texts are equal.
    #[pyo3(get)]
    exact: bool,
    /// Whether the kept document is one of the `against` reference.
    #[pyo3(get)]
    in_reference: bool,
}

#[pymethods]
impl PyMatch {
    #[new]
    #[pyo3(signature = (dup_of, similarity, exact=false, in_reference=false))]
    fn new(dup_of: Py<PyAny>, similarity: f64, exact: bool, in_reference: bool) -> Self {
        PyMatch {
            dup_of,
            similarity,
            exact,
            in_reference,
        }
    }

    /// The field names, in order (as a named tuple has them).
    #[classattr]
    fn _fields() -> (&'static str, &'static str, &'static str, &'static str) {
        ("dup_of", "similarity", "exact", "in_reference")
    }

    /// The fields for `match` statements' positional patterns.
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        Self::_fields()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let bool_text = |b: bool| if b { "True" } else { "False" };
        Ok(format!(
            "Match(dup_of={}, similarity={:?}, exact={}, in_reference={})",
            self.dup_of.bind(py).repr()?,
            self.similarity,
            bool_text(self.exact),
            bool_text(self.in_reference)
        ))
    }

    /// `dup_of, similarity, exact, in_reference = m`.
    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = (
            self.dup_of.clone_ref(py),
            self.similarity,
            self.exact,
            self.in_reference,
        )
            .into_pyobject(py)?;
        Ok(items.try_iter()?.into_any().unbind())
    }

    fn __len__(&self) -> usize {
        4
    }

    /// The fields as a dict (as a named tuple's `_asdict`).
    fn _asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("dup_of", self.dup_of.bind(py))?;
        d.set_item("similarity", self.similarity)?;
        d.set_item("exact", self.exact)?;
        d.set_item("in_reference", self.in_reference)?;
        Ok(d)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        let key = (
            self.dup_of.clone_ref(py),
            self.similarity,
            self.exact,
            self.in_reference,
        );
        key.into_pyobject(py)?.hash()
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<PyMatch>() else {
            return Ok(false);
        };
        let other = other.get();
        Ok(self.dup_of.bind(py).eq(other.dup_of.bind(py))?
            && self.similarity == other.similarity
            && self.exact == other.exact
            && self.in_reference == other.in_reference)
    }
}

/// A document that is not one (no words after normalisation), left out under
/// `on_bad_line="skip"`.
#[pyclass(frozen, module = "neardup", name = "Skipped")]
struct PySkipped {
    /// Why it is not a document.
    #[pyo3(get)]
    reason: String,
}

#[pymethods]
impl PySkipped {
    fn __repr__(&self) -> String {
        format!("Skipped(reason={:?})", self.reason)
    }
}

/// The id as Python sees it: a position counts from 0 (the engine's line numbers from 1).
fn id_to_py(py: Python<'_>, id: &DocId) -> PyResult<Py<PyAny>> {
    Ok(match id {
        DocId::Line(n) => (n - 1).into_pyobject(py)?.into_any().unbind(),
        DocId::Str(s) => PyString::new(py, s).into_any().unbind(),
        DocId::Num(s) => match s.parse::<i64>() {
            Ok(n) => n.into_pyobject(py)?.into_any().unbind(),
            // Beyond 64 bits, or a JSON number id as written in a reference file ("3.5",
            // "1e3"): Python's int of it, else its float, else the text.
            Err(_) => {
                let text = PyString::new(py, s);
                let builtins = py.import("builtins")?;
                let int = builtins.getattr("int")?.call1((&text,));
                let number = int.or_else(|_| builtins.getattr("float")?.call1((&text,)));
                number.unwrap_or_else(|_| text.into_any()).unbind()
            }
        },
    })
}

/// An id given by the caller: a str or an int (a numpy integer, or anything else with
/// `__index__`; a pyarrow scalar of either).
fn id_from_py(id: &Bound<'_, PyAny>) -> PyResult<DocId> {
    if let Ok(s) = id.cast::<PyString>() {
        return Ok(DocId::Str(s.to_str()?.into()));
    }
    if id.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err("an id is a str or an int, not bool"));
    }
    if id.is_instance_of::<PyInt>() {
        return Ok(DocId::Num(id.str()?.to_str()?.into()));
    }
    if id.hasattr("__index__")? {
        let int = id.call_method0("__index__")?;
        return Ok(DocId::Num(int.str()?.to_str()?.into()));
    }
    if id.hasattr("as_py")? && id.get_type().module()?.to_str()?.starts_with("pyarrow") {
        return id_from_py(&id.call_method0("as_py")?);
    }
    Err(PyTypeError::new_err(format!(
        "an id is a str or an int, not {}",
        id.get_type().name()?
    )))
}

/// The Python value of an outcome: None (kept), a Match, or a Skipped.
fn outcome_to_py(py: Python<'_>, outcome: Outcome, policy: BadLinePolicy) -> PyResult<Py<PyAny>> {
    Ok(match outcome {
        Outcome::New => py.None(),
        Outcome::Bad(_) if policy == BadLinePolicy::Pass => py.None(),
        Outcome::Bad(reason) => Py::new(
            py,
            PySkipped {
                reason: reason.to_string(),
            },
        )?
        .into_any(),
        Outcome::Duplicate(m) => Py::new(
            py,
            PyMatch {
                dup_of: id_to_py(py, &m.dup_of)?,
                similarity: m.similarity,
                exact: m.exact,
                in_reference: m.in_reference,
            },
        )?
        .into_any(),
    })
}

/// The streaming filter; `neardup.Deduper` wraps it.
#[pyclass(module = "neardup._neardup", name = "Deduper")]
struct PyDeduper {
    inner: Mutex<Deduper>,
    policy: BadLinePolicy,
}

impl PyDeduper {
    fn lock(&self) -> std::sync::MutexGuard<'_, Deduper> {
        // A panic inside the engine is a bug; the state it left is still the filter's.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Issues the engine's pending warnings through Python's `warnings` (so `logging`,
    /// filters and `-W error` apply), attributed to the caller of the public method.
    fn warn(&self, py: Python<'_>) -> PyResult<()> {
        let pending = py.detach(|| self.lock().take_warnings());
        let category = py.get_type::<NeardupWarning>();
        for message in pending {
            let message = std::ffi::CString::new(message).unwrap_or_default();
            PyErr::warn(py, &category, &message, 3)?;
        }
        Ok(())
    }
}

#[pymethods]
impl PyDeduper {
    #[new]
    fn new(py: Python<'_>, argv: Vec<String>) -> PyResult<Self> {
        let config = cmd::parse(with_program(argv))
            .and_then(|args| args.filter_settings())
            .map_err(py_err)?;
        let policy = config.on_bad_line;
        let deduper = py.detach(|| Deduper::new(config)).map_err(py_err)?;
        let deduper = PyDeduper {
            inner: Mutex::new(deduper),
            policy,
        };
        deduper.warn(py)?;
        Ok(deduper)
    }

    #[pyo3(signature = (text, id=None))]
    fn add(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let text = text_of(text)?;
        let id = id.map(id_from_py).transpose()?;
        let outcome = py.detach(|| self.lock().add(&text, id)).map_err(py_err)?;
        self.warn(py)?;
        outcome_to_py(py, outcome, self.policy)
    }

    #[pyo3(signature = (texts, ids=None, progress=None))]
    fn add_many(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        ids: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let mut documents = Documents::new(texts, ids)?;
        let mut outcomes = Vec::new();
        let result = (|| -> PyResult<()> {
            loop {
                // `--idf-warmup N` learns from the first N documents of the first batch.
                let n = SLICE.max(self.lock().idf_pending().unwrap_or(0));
                let docs = documents.next_slice(n)?;
                if docs.is_empty() {
                    return Ok(());
                }
                let decided = py.detach(|| self.lock().add_many(&docs)).map_err(py_err)?;
                for outcome in decided {
                    outcomes.push(outcome_to_py(py, outcome, self.policy)?);
                }
                if let Some(progress) = progress {
                    progress.call1((docs.len(),))?;
                }
                py.check_signals()?;
                if docs.len() < n {
                    return Ok(());
                }
            }
        })();
        let result = result.and_then(|()| self.warn(py));
        match result {
            Ok(()) => Ok(outcomes),
            Err(e) => Err(with_outcomes(py, e, outcomes)),
        }
    }

    /// Saves the window to `path`, or to the `--state` file.
    #[pyo3(signature = (path=None))]
    fn save(&self, py: Python<'_>, path: Option<std::path::PathBuf>) -> PyResult<()> {
        py.detach(|| self.lock().save(path.as_deref()))
            .map_err(py_err)
    }

    /// The counts so far, as `--stats` prints them (JSON).
    fn stats(&self, py: Python<'_>) -> String {
        // Another thread's batch holds the engine's lock: wait for it without the GIL.
        py.detach(|| self.lock().summary().to_json())
    }
}

/// `e` (raised while a batch was read or decided) with what was decided before it: the
/// slices decided whole are in the window, and the exception says so (`e.outcomes`, their
/// outcomes in order; `e.added`, their number; a note), so that a retry can start after
/// them instead of finding them as duplicates of themselves.
fn with_outcomes(py: Python<'_>, e: PyErr, outcomes: Vec<Py<PyAny>>) -> PyErr {
    let added = outcomes.len();
    let value = e.value(py);
    // Exceptions that refuse attributes (rare) still get the note.
    let _ = value.setattr("outcomes", outcomes);
    let _ = value.setattr("added", added);
    let note = format!(
        "neardup: the first {added} documents of this batch were added (decided and kept or \
         dropped) before the error: e.outcomes has their outcomes; pass only the documents \
         after them when you retry"
    );
    let _ = value.call_method1("add_note", (note,));
    e
}

/// A document's text: a str, or a missing value (None, a float NaN as pandas and numpy
/// write one, `pd.NA`, `pd.NaT`, a pyarrow null), which is a text with no words, a bad
/// document as a line without its text field is. A pyarrow string scalar is its str.
fn text_of(text: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = text.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    if is_missing(text)? {
        return Ok(String::new());
    }
    let kind = text.get_type();
    if text.hasattr("as_py")? && kind.module()?.to_str()?.starts_with("pyarrow") {
        return text_of(&text.call_method0("as_py")?);
    }
    Err(PyTypeError::new_err(format!(
        "texts must be str (or a missing value: None, NaN, pd.NA), not {}",
        kind.name()?
    )))
}

/// Whether `value` is a missing value: None, a float NaN, pandas' NA or NaT.
fn is_missing(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if value.is_none() {
        return Ok(true);
    }
    if let Ok(f) = value.cast::<pyo3::types::PyFloat>() {
        return Ok(f.value().is_nan());
    }
    let kind = value.get_type();
    let name = kind.name()?;
    Ok(matches!(name.to_str()?, "NAType" | "NaTType")
        && kind.module()?.to_str()?.starts_with("pandas"))
}

/// Refuses a str or bytes where a batch of texts is wanted: iterating one gives its
/// characters, each taken for a document.
fn check_batch(texts: &Bound<'_, PyAny>) -> PyResult<()> {
    if texts.is_instance_of::<PyString>() || texts.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "texts must be an iterable of texts, not one {} (a str is iterated character by \
             character): put it in a list, or use add()",
            texts.get_type().name()?
        )));
    }
    Ok(())
}

/// Documents copied out of Python, at most this many at a time: a batch of any length (a
/// generator over a file, say) holds this many copies, and between slices Ctrl-C is heard.
const SLICE: usize = 1 << 16;

/// The texts (and ids) of a batch, read from Python iterables a slice at a time and copied,
/// so that the GIL can be released while they are signed.
struct Documents<'py> {
    texts: Bound<'py, pyo3::types::PyIterator>,
    ids: Option<Bound<'py, pyo3::types::PyIterator>>,
}

impl<'py> Documents<'py> {
    fn new(texts: &Bound<'py, PyAny>, ids: Option<&Bound<'py, PyAny>>) -> PyResult<Self> {
        check_batch(texts)?;
        if let (Some(ids), Ok(n)) = (ids, texts.len())
            && ids.len().is_ok_and(|m| m != n)
        {
            return Err(differ());
        }
        Ok(Documents {
            texts: texts.try_iter()?,
            ids: ids.map(|ids| ids.try_iter()).transpose()?,
        })
    }

    /// Up to `n` documents; fewer only at the end of the texts.
    fn next_slice(&mut self, n: usize) -> PyResult<Vec<(String, Option<DocId>)>> {
        let mut docs = Vec::new();
        while docs.len() < n {
            let Some(text) = self.texts.next() else {
                if let Some(ids) = &mut self.ids
                    && ids.next().is_some()
                {
                    return Err(differ());
                }
                break;
            };
            let text = text_of(&text?)?;
            let id = match &mut self.ids {
                Some(ids) => Some(id_from_py(&ids.next().ok_or_else(differ)??)?),
                None => None,
            };
            docs.push((text, id));
        }
        Ok(docs)
    }
}

fn differ() -> PyErr {
    PyValueError::new_err("texts and ids differ in length")
}

/// Bytes of JSON Lines per chunk sent from the thread that writes the Python texts to the
/// pipeline, and chunks in flight: the engine's copy of the texts is bounded by these, not a
/// second corpus.
const CHUNK_BYTES: usize = 1 << 20;
const CHUNKS_IN_FLIGHT: usize = 4;

/// Texts written between two checks for Ctrl-C.
const SIGNAL_CHECK: usize = 4096;

/// The pipeline's input for `pairs` and `clusters`: JSON Lines (a text may hold newlines),
/// received in chunks from the thread that writes them from the Python strings.
struct ChunkReader {
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
fn with_texts<T: Send>(
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
fn write_texts(
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

/// Runs the pipeline over the texts and returns the graph of verified pairs.
fn graph_of(mut config: Config, input: Input) -> neardup::Result<neardup::graph::DupGraph> {
    config.format = InputFormat::Jsonl;
    config.snippet_chars = 0;
    let prepared = Prepared::new(config)?;
    let mut stderr = std::io::stderr();
    let (_, graph) = pipeline::collect_graph(&prepared, vec![input], &mut stderr, false)?;
    Ok(graph)
}

/// Every verified pair (earlier position, later position, similarity), as `--pairs` lists
/// them.
#[pyfunction]
fn pairs(
    py: Python<'_>,
    argv: Vec<String>,
    texts: &Bound<'_, PyAny>,
) -> PyResult<Vec<(u64, u64, f64)>> {
    let config = cmd::parse(with_program([vec!["--pairs".into()], argv].concat()))
        .and_then(|args| args.filter_settings())
        .map_err(py_err)?;
    let (pairs, _) = with_texts(py, texts, |input| {
        let graph = graph_of(config, input)?;
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
fn clusters(py: Python<'_>, argv: Vec<String>, texts: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    let argv = [vec!["clusters".to_string()], argv].concat();
    let (config, by, grouping) = cmd::parse(with_program(argv))
        .and_then(|args| args.clusters_settings())
        .map_err(py_err)?;
    let ((graph, clustering), n) = with_texts(py, texts, |input| {
        let graph = graph_of(config.clone(), input)?;
        let clustering = cmd::cluster(&config, &graph, by, grouping)?;
        Ok((graph, clustering))
    })?;
    let mut groups = vec![-1; n];
    for (node, &line) in graph.lines.iter().enumerate() {
        groups[(line - 1) as usize] = i64::from(clustering.cluster[node]);
    }
    Ok(groups)
}

/// The shortest decimal that reads back as the same f32 (edges hold f32 similarities), so
/// that Python shows 0.8, not 0.800000011920929.
fn shortest(s: f32) -> f64 {
    s.to_string().parse().unwrap_or(f64::from(s))
}

/// The long flags (without `--`) the filter (`command` None) or a command takes.
#[pyfunction]
#[pyo3(signature = (command=None))]
fn options(command: Option<&str>) -> Vec<String> {
    cmd::long_flags(command)
}

/// Runs a whole `neardup` command line (the program name first) and returns its exit code:
/// the `neardup` command of the Python package.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| cmd::main(argv))
}

#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDeduper>()?;
    m.add_class::<PyMatch>()?;
    m.add_class::<PySkipped>()?;
    m.add("BadDocumentError", m.py().get_type::<BadDocumentError>())?;
    m.add("NeardupWarning", m.py().get_type::<NeardupWarning>())?;
    m.add_function(wrap_pyfunction!(pairs, m)?)?;
    m.add_function(wrap_pyfunction!(clusters, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
