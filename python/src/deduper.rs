//! `neardup.Deduper`: the streaming filter in process.

use crate::errors::{BadDocumentError, py_err, warn, with_outcomes};
use crate::matches::outcome_to_py;
use crate::texts::{Reader, text_of};
use crate::values::{SLICE, id_from_py, keywords};
use neardup::Error;
use neardup::cmd;
use neardup::config::BadLinePolicy;
use neardup::error::{Wording, worded};
use neardup::input::BadLine;
use neardup::pipeline::{BatchError, Deduper, Outcome};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use std::sync::Mutex;

/// The streaming filter; `neardup.Deduper` wraps it.
#[pyclass(module = "neardup._neardup", name = "Deduper")]
pub(crate) struct PyDeduper {
    inner: Mutex<Deduper>,
    policy: BadLinePolicy,
    quiet: bool,
}

/// Memory a slice of this many rows may take beyond what is held: its signatures, and the
/// window's growth by the documents kept (about 1.5 KiB each on ordinary text).
fn slice_need(rows: usize) -> u64 {
    rows as u64 * 2048 + (32 << 20)
}

/// Refuses to decide a slice of `rows` rows (the batch's rows from `first` on) when the
/// process is too close to its memory limit to take it: a `MemoryError` with the rows
/// before it added, rather than an abort of the interpreter when an allocation fails.
fn check_headroom(rows: usize, first: usize) -> PyResult<()> {
    let Some((left, limit)) = neardup::limits::headroom() else {
        return Ok(());
    };
    if left >= slice_need(rows) {
        return Ok(());
    }
    let mib = |b: u64| b >> 20;
    Err(PyMemoryError::new_err(format!(
        "memory is running out: {} MiB left under {} of {} MiB, and the {rows} rows from row \
         {first} on may need {} MiB; free memory (or give max_memory= a smaller budget, or \
         window=) and add the rows from row {first} on",
        mib(left),
        limit.source,
        mib(limit.bytes),
        mib(slice_need(rows)),
    )))
}

/// The rows of a call that are not documents: the first few as said, and how many.
#[derive(Default)]
pub(crate) struct BadRows {
    shown: Vec<String>,
    count: usize,
}

impl BadRows {
    /// Rows said one by one; the rest are counted.
    const SHOWN: usize = 5;

    /// Row `row` (None: the one text of `add`), a missing value of `missing`'s kind or a
    /// text that is not a document for `reason`.
    pub(crate) fn push(&mut self, row: Option<usize>, missing: Option<&str>, reason: &BadLine) {
        self.count += 1;
        if self.shown.len() < Self::SHOWN {
            let what = match (row, missing) {
                (Some(row), Some(kind)) => format!("row {row} is a missing value ({kind})"),
                (Some(row), None) => format!("row {row}: {reason}"),
                (None, Some(kind)) => format!("the text is a missing value ({kind})"),
                (None, None) => format!("the text: {reason}"),
            };
            self.shown.push(what);
        }
    }

    /// The warning: what the rows are, and what `policy` did with them.
    pub(crate) fn message(&self, policy: BadLinePolicy) -> String {
        let done = match policy {
            BadLinePolicy::Skip => "skipped (Skipped, not kept), as on_bad_line='skip' says",
            _ => {
                "kept as they are, as on_bad_line='pass' says (on_bad_line='skip' leaves them out)"
            }
        };
        let more = match self.count - self.shown.len() {
            0 => String::new(),
            n => format!("; and {n} more"),
        };
        let noun = match self.count {
            1 => "row is not a document",
            _ => "rows are not documents",
        };
        format!(
            "{} {noun}: {}{more}; {done}",
            self.count,
            self.shown.join("; ")
        )
    }
}

impl PyDeduper {
    fn lock(&self) -> std::sync::MutexGuard<'_, Deduper> {
        // A panic inside the engine is a bug; the state it left is still the filter's.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `against_texts` (and `against_ids`) into the reference, a slice at a time, as
    /// `add_many` reads a batch.
    fn add_reference(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        ids: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut reader = Reader::new(texts, ids)?;
        loop {
            let first = reader.read();
            let (slice, read_error) = reader.next_slice(SLICE);
            if !slice.is_empty() {
                check_headroom(slice.len(), first)?;
                let docs = slice.docs();
                if let Err(e) = py.detach(|| self.lock().add_reference(&docs)) {
                    return Err(match e {
                        Error::BadLine { reason, .. } => {
                            let row = self.lock().reference_texts() as usize - 1;
                            BadDocumentError::new_err(match slice.missing(row - first) {
                                Some(kind) => {
                                    format!("against_texts row {row} is a missing value ({kind})")
                                }
                                None => format!("against_texts row {row}: {reason}"),
                            })
                        }
                        e => py_err(e),
                    });
                }
            }
            if let Some(e) = read_error {
                let note = format!("neardup: reading row {} of against_texts", reader.read());
                let _ = e.value(py).call_method1("add_note", (note,));
                return Err(e);
            }
            py.check_signals()?;
            if slice.len() < SLICE {
                return Ok(());
            }
        }
    }

    /// Says the bad rows of a call as one `NeardupWarning` (unless `quiet`): what each is
    /// and what was done with it.
    fn say_bad(&self, py: Python<'_>, bad: &BadRows) -> PyResult<()> {
        if bad.count == 0 || self.quiet {
            return Ok(());
        }
        // A reason may name a setting (`‹max-line-bytes›`): worded as the keyword.
        warn(py, &worded(&bad.message(self.policy), Wording::Keywords))
    }

    /// Issues the engine's pending warnings through Python's `warnings` (so `logging`,
    /// filters and `-W error` apply), attributed to the caller of the public method.
    fn warn(&self, py: Python<'_>) -> PyResult<()> {
        let pending = py.detach(|| self.lock().take_warnings());
        for note in pending {
            warn(py, &note.worded(Wording::Keywords))?;
        }
        Ok(())
    }
}

#[pymethods]
impl PyDeduper {
    #[new]
    #[pyo3(signature = (settings, against_texts=None, against_ids=None, against_only=false))]
    fn new(
        py: Python<'_>,
        settings: Vec<(String, Bound<'_, PyAny>)>,
        against_texts: Option<&Bound<'_, PyAny>>,
        against_ids: Option<&Bound<'_, PyAny>>,
        against_only: bool,
    ) -> PyResult<Self> {
        let (config, job) = cmd::filter_keywords(keywords(settings)?).map_err(py_err)?;
        let (policy, quiet) = (config.read.on_bad_line, config.quiet);
        let deduper = py
            .detach(|| Deduper::for_job(config, &job))
            .map_err(py_err)?;
        let deduper = PyDeduper {
            inner: Mutex::new(deduper),
            policy,
            quiet,
        };
        if let Some(texts) = against_texts {
            deduper.add_reference(py, texts, against_ids)?;
        }
        if against_only {
            deduper.lock().compare_with_reference_only();
        }
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
        let (text, missing) = match text_of(text)? {
            Ok(text) => (Some(text), None),
            Err(kind) => (None, Some(kind)),
        };
        let id = id.map(id_from_py).transpose()?;
        let outcome = py.detach(|| self.lock().add(text.as_deref(), id));
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(Error::BadLine { reason, .. }) => {
                return Err(BadDocumentError::new_err(match missing {
                    Some(kind) => format!("the text is a missing value ({kind})"),
                    None => format!("the text is not a document: {reason}"),
                }));
            }
            Err(e) => return Err(py_err(e)),
        };
        if let Outcome::Bad(reason) = &outcome {
            let mut bad = BadRows::default();
            bad.push(None, missing, reason);
            self.say_bad(py, &bad)?;
        }
        self.warn(py)?;
        outcome_to_py(py, outcome, self.policy)
    }

    /// With `raw`, a row that is not a document is `Skipped` whatever the policy (for
    /// `dedup`, which gives it no group).
    #[pyo3(signature = (texts, ids=None, progress=None, raw=false))]
    fn add_many(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        ids: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
        raw: bool,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let policy = match raw {
            true => BadLinePolicy::Skip,
            false => self.policy,
        };
        let mut reader = Reader::new(texts, ids)?;
        // A batch handed over in several slices: the window is sized for all of it once the
        // first documents show the share it keeps.
        if let Ok(n) = texts.len()
            && n > SLICE
        {
            self.lock().expect_documents(n as u64);
        }
        let mut outcomes = Vec::new();
        let mut bad = BadRows::default();
        let result = (|| -> PyResult<()> {
            loop {
                // `--idf-warmup N` learns from the first N documents of the first batch.
                let n = SLICE.max(self.lock().idf_pending().unwrap_or(0));
                let first = reader.read();
                let (slice, read_error) = reader.next_slice(n);
                if !slice.is_empty() {
                    check_headroom(slice.len(), first)?;
                    let docs = slice.docs();
                    let decided = py.detach(|| self.lock().add_many(&docs));
                    let (decided, failed) = match decided {
                        Ok(decided) => (decided, None),
                        Err(BatchError { decided, error }) => (decided, Some(error)),
                    };
                    for (i, outcome) in decided.into_iter().enumerate() {
                        if let Outcome::Bad(reason) = &outcome {
                            bad.push(Some(first + i), slice.missing(i), reason);
                        }
                        outcomes.push(outcome_to_py(py, outcome, policy)?);
                    }
                    if let Some(error) = failed {
                        let row = outcomes.len() - first;
                        return Err(match error {
                            Error::BadLine { reason, .. } => {
                                BadDocumentError::new_err(match slice.missing(row) {
                                    Some(kind) => {
                                        format!("row {} is a missing value ({kind})", first + row)
                                    }
                                    None => format!("row {}: {reason}", first + row),
                                })
                            }
                            e => py_err(e),
                        });
                    }
                    if let Some(progress) = progress {
                        progress.call1((slice.len(),))?;
                    }
                }
                if let Some(e) = read_error {
                    let note = format!("neardup: reading row {} of the texts", reader.read());
                    let _ = e.value(py).call_method1("add_note", (note,));
                    return Err(e);
                }
                py.check_signals()?;
                if slice.len() < n {
                    return Ok(());
                }
            }
        })();
        let said = self.say_bad(py, &bad).and_then(|()| self.warn(py));
        match result.and(said) {
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

    /// Writes the `--report` page of the documents added so far to `path`, or to the
    /// `report` file; the page names the call that made the run, `call` (`neardup.dedup()`)
    /// or this `Deduper`.
    #[pyo3(signature = (path=None, call=None))]
    fn write_report(
        &self,
        py: Python<'_>,
        path: Option<std::path::PathBuf>,
        call: Option<String>,
    ) -> PyResult<()> {
        py.detach(|| {
            self.lock()
                .write_report(path.as_deref(), call.as_deref(), Wording::Keywords)
        })
        .map_err(py_err)
    }

    /// The counts so far, as `--stats` prints them (JSON).
    fn stats(&self, py: Python<'_>) -> String {
        // Another thread's batch holds the engine's lock: wait for it without the GIL.
        py.detach(|| self.lock().summary().to_json())
    }
}
