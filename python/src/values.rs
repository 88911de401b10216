//! Python values in and out: ids, texts (and missing ones), batches read a slice at a
//! time, and the settings' keywords.

use neardup::cmd::flags::keywords::{Keyword, Keywords};
use neardup::input::DocId;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};

/// The settings as `neardup/__init__.py` passes them: `(long flag name, value)`, the value
/// a bool (a switch), a str, or a list of str (a repeated or list flag). The engine reads
/// them by the flags' own parsers ([`neardup::cmd::filter_keywords`]).
pub(crate) fn keywords(given: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<Keywords> {
    let mut read = Vec::with_capacity(given.len());
    for (name, value) in given {
        let value = if value.is_instance_of::<pyo3::types::PyBool>() {
            Keyword::Switch(value.extract()?)
        } else if let Ok(text) = value.cast::<PyString>() {
            Keyword::One(text.to_str()?.to_string())
        } else {
            Keyword::Many(value.extract()?)
        };
        read.push((name, value));
    }
    Ok(Keywords::new(read))
}

/// The id as Python sees it: a position counts from 0 (the engine's line numbers from 1).
pub(crate) fn id_to_py(py: Python<'_>, id: &DocId) -> PyResult<Py<PyAny>> {
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
pub(crate) fn id_from_py(id: &Bound<'_, PyAny>) -> PyResult<DocId> {
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

/// Refuses a str or bytes where a batch of texts is wanted: iterating one gives its
/// characters, each taken for a document.
pub(crate) fn check_batch(texts: &Bound<'_, PyAny>) -> PyResult<()> {
    if texts.is_instance_of::<PyString>() || texts.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "texts must be an iterable of texts, not one {} (a str is iterated character by \
             character): put it in a list, or use add()",
            texts.get_type().name()?
        )));
    }
    Ok(())
}

/// Rows read out of Python at most at a time: a batch of any length (a generator over a
/// file, say) holds this many copies, and between slices Ctrl-C is heard.
pub(crate) const SLICE: usize = 1 << 16;

pub(crate) fn differ() -> PyErr {
    PyValueError::new_err("texts and ids differ in length")
}
