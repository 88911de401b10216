//! The module's exceptions, and engine errors as Python exceptions.

use neardup::Error;
use neardup::error::Wording;
use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    neardup,
    NeardupWarning,
    pyo3::exceptions::PyUserWarning,
    "What the neardup command says on stderr as a warning (settings, the reference's bad lines, the window reaching --max-memory), through Python's warnings."
);

create_exception!(
    neardup,
    BadDocumentError,
    PyValueError,
    "A document that is not one (no words after normalisation) under on_bad_line='fail'."
);

/// Issues `message` as a `NeardupWarning`, attributed to the first caller outside the
/// `neardup` package (so that `warnings` filters by module and the shown line are the
/// user's, however deep inside the package the call was made).
pub(crate) fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let mut frame = py.import("sys")?.call_method1("_getframe", (0,))?;
    let mut level = 1;
    loop {
        let globals = frame.getattr("f_globals")?;
        let name = globals.get_item("__name__").ok();
        let name = name.as_ref().and_then(|n| n.extract::<String>().ok());
        let ours = name.is_some_and(|n| n == "neardup" || n.starts_with("neardup."));
        let back = frame.getattr("f_back")?;
        if !ours || back.is_none() {
            break;
        }
        frame = back;
        level += 1;
    }
    let category = py.get_type::<NeardupWarning>();
    let message = std::ffi::CString::new(message.replace('\0', "")).unwrap_or_default();
    PyErr::warn(py, &category, &message, level)
}

/// The Python exception for an engine error: usage errors are `ValueError`s, an invalid
/// setting named by its keyword (`max_edit: 2 is not in [0, 1]`); memory that runs out is a
/// `MemoryError`.
pub(crate) fn py_err(e: Error) -> PyErr {
    let message = e.worded(Wording::Keywords);
    match e {
        Error::Config { .. } | Error::Usage(_) => PyValueError::new_err(message),
        Error::BadLine { .. } => BadDocumentError::new_err(message),
        // A graph that would not fit in `max_memory`, or an allocation refused.
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::OutOfMemory => {
            PyMemoryError::new_err(message)
        }
        Error::Io { .. } => PyOSError::new_err(message),
        Error::Data(_) | Error::Internal(_) | Error::Stopped { .. } => {
            PyRuntimeError::new_err(message)
        }
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
