//! `neardup._neardup`: the Python module's native half. It takes the settings as keywords by
//! their flags' names (`neardup/__init__.py` turns `threshold=0.8` into `("threshold",
//! "0.8")`), which [`neardup::cmd::filter_keywords`] and [`neardup::cmd::clusters_keywords`]
//! read by each flag's own parser in the flag table, without the command-line parser, so
//! options, defaults and messages are the command line's. Everything else is the crate's
//! own engine:
//! [`neardup::pipeline::Deduper`] for `Deduper`, and the pipeline itself for `pairs` and
//! `clusters`. The GIL is released while documents are signed and verified.
//!
//! - [`deduper`]: `Deduper`, the streaming filter;
//! - [`graphs`]: `pairs` and `clusters`, texts streamed into the pipeline;
//! - [`matches`]: what `Deduper` answers for a document (`Match`, `Skipped`);
//! - [`texts`]: a batch's texts read a slice at a time, from Arrow buffers or item by item;
//! - [`values`]: ids from Python and to it, and the settings' keywords;
//! - [`errors`]: the module's exceptions, and engine errors as Python exceptions.

mod deduper;
mod errors;
mod graphs;
mod matches;
mod texts;
mod values;

use deduper::PyDeduper;
use errors::{BadDocumentError, NeardupWarning};
use graphs::{clusters, pairs};
use matches::{PyMatch, PySkipped};
use neardup::cmd;
use pyo3::prelude::*;

/// jemalloc for the engine's allocations (Python's own objects stay with Python's
/// allocator), as in the binary: docs/performance.md measures what it saves here.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The long flags (without `--`) the filter (`command` None) or a command takes.
#[pyfunction]
#[pyo3(signature = (command=None))]
fn options(command: Option<&str>) -> Vec<String> {
    cmd::long_flags(command)
}

/// The flags of the filter (`command` None) or a command that the API refuses by name:
/// those about files, formats and printing.
#[pyfunction]
#[pyo3(signature = (command=None))]
fn command_line_only(command: Option<&str>) -> Vec<String> {
    cmd::command_line_only(command)
}

/// The default of each flag of the filter (`command` None) or a command that has one:
/// `(long flag, value as the command line takes it)`.
#[pyfunction]
#[pyo3(signature = (command=None))]
fn defaults(command: Option<&str>) -> Vec<(String, String)> {
    cmd::flag_defaults(command)
}

/// Whether the engine reads `texts` from Arrow buffers (an object that exports an Arrow
/// column) rather than item by item: for tests and for users who wonder.
#[pyfunction]
fn reads_arrow(texts: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(texts::Reader::new(texts, None)?.is_arrow())
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
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(command_line_only, m)?)?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(reads_arrow, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
