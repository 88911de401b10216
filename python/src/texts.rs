//! A batch's texts (and ids) as they come from Python, a slice at a time: an Arrow string
//! column read through the Arrow C stream interface (pyarrow, polars, Hugging Face datasets:
//! the engine reads the column's own buffers, no Python object per row), or any other
//! iterable read item by item and copied.
//!
//! A slice that could not be read whole (a generator raised, an item is not a text) comes
//! with the error and the rows read before it, which the caller decides before it raises:
//! so what a failed call reports as added is every row before the one that failed.

use crate::values::{differ, id_from_py};
use arrow_array::cast::AsArray;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi};
use arrow_array::ffi_stream::{ArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{Array, ArrayRef, make_array};
use arrow_schema::DataType;
use neardup::input::DocId;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyFloat, PyIterator, PyString};
use std::ffi::CStr;

/// What stands in a row where a text is missing, as the message names it.
pub(crate) type MissingKind = &'static str;

/// One row of a slice.
enum Row {
    /// Row `index` of the slice's Arrow chunk `chunk` (a null there is a missing value).
    Arrow { chunk: u32, index: u32 },
    /// A text copied out of a Python str.
    Owned(String),
    /// A missing value.
    Missing(MissingKind),
}

/// An Arrow chunk of a string column, and a dictionary's keys as positions in its values.
struct Chunk {
    array: ArrayRef,
    keys: Option<Vec<usize>>,
}

impl Chunk {
    fn new(array: ArrayRef) -> PyResult<Chunk> {
        let string = |t: &DataType| {
            matches!(
                t,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
            )
        };
        let keys = match array.data_type() {
            t if string(t) => None,
            DataType::Dictionary(_, values) if string(values) => {
                let dictionary = array.as_any_dictionary();
                Some(dictionary.normalized_keys())
            }
            other => {
                return Err(PyTypeError::new_err(format!(
                    "texts must be strings: the Arrow column is of type {other}"
                )));
            }
        };
        Ok(Chunk { array, keys })
    }

    /// Row `i`'s text, or `None` for a null.
    fn text(&self, i: usize) -> Option<&str> {
        if !self.array.is_valid(i) {
            return None;
        }
        match &self.keys {
            None => str_at(&self.array, i),
            Some(keys) => {
                let values = self.array.as_any_dictionary().values();
                let k = keys[i];
                values.is_valid(k).then(|| str_at(values, k)).flatten()
            }
        }
    }
}

/// Row `i` of a string array (of the types [`Chunk::new`] takes).
fn str_at(array: &ArrayRef, i: usize) -> Option<&str> {
    match array.data_type() {
        DataType::Utf8 => Some(array.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Some(array.as_string::<i64>().value(i)),
        DataType::Utf8View => Some(array.as_string_view().value(i)),
        _ => None,
    }
}

/// Rows read from a batch, ready to be decided without the GIL.
#[derive(Default)]
pub(crate) struct Slice {
    chunks: Vec<Chunk>,
    rows: Vec<Row>,
    ids: Vec<Option<DocId>>,
}

impl Slice {
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows as the engine takes them: each text (borrowed from the Arrow buffers or the
    /// copies), `None` for a missing value, and its id if one was given.
    pub(crate) fn docs(&self) -> Vec<(Option<&str>, Option<DocId>)> {
        self.rows
            .iter()
            .zip(&self.ids)
            .map(|(row, id)| {
                let text = match row {
                    Row::Arrow { chunk, index } => {
                        self.chunks[*chunk as usize].text(*index as usize)
                    }
                    Row::Owned(text) => Some(text.as_str()),
                    Row::Missing(_) => None,
                };
                (text, id.clone())
            })
            .collect()
    }

    /// What stands in row `i` if it is a missing value.
    pub(crate) fn missing(&self, i: usize) -> Option<MissingKind> {
        match &self.rows[i] {
            Row::Missing(kind) => Some(kind),
            Row::Arrow { chunk, index } => {
                let chunk = &self.chunks[*chunk as usize];
                chunk.text(*index as usize).is_none().then_some("null")
            }
            Row::Owned(_) => None,
        }
    }
}

/// Where the rows come from.
enum Rows<'py> {
    Arrow {
        stream: Chunks,
        /// The chunk being read, and the next row of it.
        current: Option<(ArrayRef, usize)>,
    },
    Python(Bound<'py, PyIterator>),
}

/// A batch's texts and ids, read a slice at a time.
pub(crate) struct Reader<'py> {
    rows: Rows<'py>,
    ids: Option<Bound<'py, PyIterator>>,
    /// Rows read so far (the next row's position in the batch).
    read: usize,
}

impl<'py> Reader<'py> {
    /// A reader of `texts`: an object that exports an Arrow string column (the C stream or
    /// array interface: `__arrow_c_stream__`, `__arrow_c_array__`), else any iterable of
    /// texts; `ids` any iterable of the same length.
    pub(crate) fn new(
        texts: &Bound<'py, PyAny>,
        ids: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Reader<'py>> {
        crate::values::check_batch(texts)?;
        if let (Some(ids), Ok(n)) = (ids, texts.len())
            && ids.len().is_ok_and(|m| m != n)
        {
            return Err(differ());
        }
        let rows = match arrow_stream(texts)? {
            Some(stream) => Rows::Arrow {
                stream,
                current: None,
            },
            None => Rows::Python(texts.try_iter()?),
        };
        Ok(Reader {
            rows,
            ids: ids.map(|ids| ids.try_iter()).transpose()?,
            read: 0,
        })
    }

    /// Whether the texts are read from Arrow buffers (no Python object per row).
    pub(crate) fn is_arrow(&self) -> bool {
        matches!(self.rows, Rows::Arrow { .. })
    }

    /// Up to `n` rows; fewer only at the end of the texts, or with the error that stopped
    /// the reading (the rows before it are in the slice).
    pub(crate) fn next_slice(&mut self, n: usize) -> (Slice, Option<PyErr>) {
        let mut slice = Slice::default();
        let error = self.fill(&mut slice, n).err();
        self.read += slice.len();
        (slice, error)
    }

    /// Rows read before this slice's.
    pub(crate) fn read(&self) -> usize {
        self.read
    }

    fn fill(&mut self, slice: &mut Slice, n: usize) -> PyResult<()> {
        while slice.len() < n {
            match &mut self.rows {
                Rows::Python(items) => {
                    let Some(item) = items.next() else { break };
                    let row = row_of(&item?)?;
                    let id = self.next_id()?;
                    slice.rows.push(row);
                    slice.ids.push(id);
                }
                Rows::Arrow { stream, current } => {
                    let (array, next) = match current {
                        Some((array, next)) if *next < array.len() => (array, next),
                        _ => match stream.next() {
                            None => break,
                            Some(array) => {
                                *current = Some((array.map_err(arrow_err)?, 0));
                                continue;
                            }
                        },
                    };
                    let same = |c: &Chunk| ArrayRef::ptr_eq(&c.array, array);
                    if !slice.chunks.last().is_some_and(same) {
                        slice.chunks.push(Chunk::new(array.clone())?);
                    }
                    let first = *next;
                    let take = (n - slice.len()).min(array.len() - first);
                    *next += take;
                    let chunk = (slice.chunks.len() - 1) as u32;
                    for index in first..first + take {
                        let id = self.next_id()?;
                        let index = index as u32;
                        slice.rows.push(Row::Arrow { chunk, index });
                        slice.ids.push(id);
                    }
                }
            }
        }
        if slice.len() < n
            && let Some(ids) = &mut self.ids
            && ids.next().is_some()
        {
            return Err(differ());
        }
        Ok(())
    }

    /// The id of the next row, if ids were given.
    fn next_id(&mut self) -> PyResult<Option<DocId>> {
        match &mut self.ids {
            None => Ok(None),
            Some(ids) => Ok(Some(id_from_py(&ids.next().ok_or_else(differ)??)?)),
        }
    }
}

/// A Python item as a row: a str, a missing value, or a pyarrow string scalar.
fn row_of(item: &Bound<'_, PyAny>) -> PyResult<Row> {
    Ok(match text_of(item)? {
        Ok(text) => Row::Owned(text),
        Err(kind) => Row::Missing(kind),
    })
}

/// A Python value as a text (a str, or a pyarrow string scalar), or what missing value it is
/// (None, NaN, `pd.NA`, a pyarrow null); anything else is a `TypeError`.
pub(crate) fn text_of(item: &Bound<'_, PyAny>) -> PyResult<Result<String, MissingKind>> {
    if let Ok(s) = item.cast::<PyString>() {
        return Ok(Ok(s.to_str()?.to_owned()));
    }
    if let Some(kind) = missing_kind(item)? {
        return Ok(Err(kind));
    }
    let kind = item.get_type();
    if item.hasattr("as_py")? && kind.module()?.to_str()?.starts_with("pyarrow") {
        let value = item.call_method0("as_py")?;
        return Ok(text_of(&value)?.map_err(|_| "null"));
    }
    let hint = if item.is_instance_of::<pyo3::types::PyDict>() {
        ": for rows of dicts, name the text's key with column="
    } else if item.is_instance_of::<pyo3::types::PyBytes>() {
        ": decode bytes first (text.decode('utf-8'))"
    } else {
        ""
    };
    Err(PyTypeError::new_err(format!(
        "texts must be str (or a missing value: None, NaN, pd.NA), not {}{hint}",
        kind.name()?
    )))
}

/// What a missing value is (None, a float NaN as pandas and numpy write one, `pd.NA`,
/// `pd.NaT`), or `None` for anything else.
pub(crate) fn missing_kind(value: &Bound<'_, PyAny>) -> PyResult<Option<MissingKind>> {
    if value.is_none() {
        return Ok(Some("None"));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(f.value().is_nan().then_some("NaN"));
    }
    let kind = value.get_type();
    if !kind.module()?.to_str()?.starts_with("pandas") {
        return Ok(None);
    }
    Ok(match kind.name()?.to_str()? {
        "NAType" => Some("pd.NA"),
        "NaTType" => Some("pd.NaT"),
        _ => None,
    })
}

/// The arrays of an Arrow column, one chunk after the other.
type Chunks = Box<dyn Iterator<Item = Result<ArrayRef, arrow_schema::ArrowError>>>;

/// The chunks of an object that exports an Arrow stream or array, else `None`.
fn arrow_stream(texts: &Bound<'_, PyAny>) -> PyResult<Option<Chunks>> {
    if texts.hasattr("__arrow_c_stream__")? {
        let capsule = texts.call_method0("__arrow_c_stream__")?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let pointer = capsule_pointer(capsule, c"arrow_array_stream")?;
        // SAFETY: the capsule holds an `ArrowArrayStream` (its name says so); `from_raw`
        // moves it out and marks the capsule's released, so the capsule's destructor does
        // not release it a second time.
        let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer.cast()) };
        let chunks = ArrayStreamReader::try_new(stream).map_err(arrow_err)?;
        return Ok(Some(Box::new(chunks)));
    }
    if texts.hasattr("__arrow_c_array__")? {
        let pair = texts.call_method0("__arrow_c_array__")?;
        let (schema, array): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract()?;
        let schema = capsule_pointer(schema.cast::<PyCapsule>()?, c"arrow_schema")?;
        let array = capsule_pointer(array.cast::<PyCapsule>()?, c"arrow_array")?;
        // SAFETY: as above, for the schema and array capsules; the schema is only read.
        let data = unsafe {
            let array = FFI_ArrowArray::from_raw(array.cast());
            let schema = &*(schema as *const FFI_ArrowSchema);
            from_ffi(array, schema)
        }
        .map_err(arrow_err)?;
        let array = make_array(data);
        return Ok(Some(Box::new(std::iter::once(Ok(array)))));
    }
    Ok(None)
}

fn capsule_pointer(capsule: &Bound<'_, PyCapsule>, name: &CStr) -> PyResult<*mut std::ffi::c_void> {
    capsule
        .pointer_checked(Some(name))
        .map(|p| p.as_ptr())
        .map_err(|_| PyValueError::new_err(format!("not an Arrow capsule named {name:?}")))
}

fn arrow_err(e: arrow_schema::ArrowError) -> PyErr {
    PyValueError::new_err(format!("reading the Arrow column: {e}"))
}
