//! `neardup.Deduper`: the streaming filter in process.

use crate::errors::{NeardupWarning, py_err, with_outcomes};
use crate::matches::outcome_to_py;
use crate::values::{Documents, SLICE, id_from_py, text_of, with_program};
use neardup::cmd;
use neardup::config::BadLinePolicy;
use neardup::error::{Wording, worded};
use neardup::pipeline::Deduper;
use pyo3::prelude::*;
use std::sync::Mutex;

/// The streaming filter; `neardup.Deduper` wraps it.
#[pyclass(module = "neardup._neardup", name = "Deduper")]
pub(crate) struct PyDeduper {
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
            let message = worded(&message, Wording::Keywords);
            let message = std::ffi::CString::new(message.as_bytes()).unwrap_or_default();
            PyErr::warn(py, &category, &message, 3)?;
        }
        Ok(())
    }
}

#[pymethods]
impl PyDeduper {
    #[new]
    fn new(py: Python<'_>, argv: Vec<String>) -> PyResult<Self> {
        let (config, job) = cmd::parse(with_program(argv))
            .and_then(|args| args.filter_settings())
            .map_err(py_err)?;
        let policy = config.on_bad_line;
        let deduper = py
            .detach(|| Deduper::for_job(config, &job))
            .map_err(py_err)?;
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
