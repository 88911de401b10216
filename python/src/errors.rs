//! The module's exceptions, and engine errors as Python exceptions.

use neardup::Error;
use neardup::error::Wording;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

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

/// The Python exception for an engine error: usage errors are `ValueError`s, an invalid
/// setting named by its keyword (`max_edit: 2 is not in [0, 1]`).
pub(crate) fn py_err(e: Error) -> PyErr {
    let message = e.worded(Wording::Keywords);
    match e {
        Error::Config { .. } | Error::Usage(_) => PyValueError::new_err(message),
        Error::BadLine { .. } => BadDocumentError::new_err(message),
        Error::Io { .. } => PyOSError::new_err(message),
        Error::Data(_) | Error::Internal(_) => PyRuntimeError::new_err(message),
    }
}

/// `e` (raised while a batch was read or decided) with what was decided before it: the
/// slices decided whole are in the window, and the exception says so (`e.outcomes`, their
/// outcomes in order; `e.added`, their number; a note), so that a retry can start after
/// them instead of finding them as duplicates of themselves.
pub(crate) fn with_outcomes(py: Python<'_>, e: PyErr, outcomes: Vec<Py<PyAny>>) -> PyErr {
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
