//! Python values in and out: ids, texts (and missing ones), batches read a slice at a
//! time, and the settings' command line.

use neardup::input::DocId;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};

/// A command line's settings, its program name first.
pub(crate) fn with_program(argv: Vec<String>) -> Vec<String> {
    std::iter::once("neardup".to_string()).chain(argv).collect()
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

/// A document's text: a str, or a missing value (None, a float NaN as pandas and numpy
/// write one, `pd.NA`, `pd.NaT`, a pyarrow null), which is a text with no words, a bad
/// document as a line without its text field is. A pyarrow string scalar is its str.
pub(crate) fn text_of(text: &Bound<'_, PyAny>) -> PyResult<String> {
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
pub(crate) fn is_missing(value: &Bound<'_, PyAny>) -> PyResult<bool> {
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

/// Documents copied out of Python, at most this many at a time: a batch of any length (a
/// generator over a file, say) holds this many copies, and between slices Ctrl-C is heard.
pub(crate) const SLICE: usize = 1 << 16;

/// The texts (and ids) of a batch, read from Python iterables a slice at a time and copied,
/// so that the GIL can be released while they are signed.
pub(crate) struct Documents<'py> {
    texts: Bound<'py, pyo3::types::PyIterator>,
    ids: Option<Bound<'py, pyo3::types::PyIterator>>,
}

impl<'py> Documents<'py> {
    pub(crate) fn new(
        texts: &Bound<'py, PyAny>,
        ids: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
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
    pub(crate) fn next_slice(&mut self, n: usize) -> PyResult<Vec<(String, Option<DocId>)>> {
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

pub(crate) fn differ() -> PyErr {
    PyValueError::new_err("texts and ids differ in length")
}
