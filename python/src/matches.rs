//! What `Deduper` returns for a document: `Match`, `Skipped`, or None.

use crate::values::id_to_py;
use neardup::config::BadLinePolicy;
use neardup::pipeline::Outcome;
use pyo3::prelude::*;

/// The kept document a duplicate matched.
#[pyclass(frozen, module = "neardup", name = "Match")]
pub(crate) struct PyMatch {
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
pub(crate) struct PySkipped {
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

/// The Python value of an outcome: None (kept), a Match, or a Skipped.
pub(crate) fn outcome_to_py(
    py: Python<'_>,
    outcome: Outcome,
    policy: BadLinePolicy,
) -> PyResult<Py<PyAny>> {
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
                similarity: neardup::printed_similarity(m.similarity),
                exact: m.exact,
                in_reference: m.in_reference,
            },
        )?
        .into_any(),
    })
}
