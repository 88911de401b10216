//! Where a table's bytes go ([`Sink`]: a file the table writer opened, or the caller's
//! standard output), and the Parquet and Arrow writers' errors as the output's I/O errors.
//! Shared by the encoder thread (`encoder.rs`) and the row groups' threads
//! (`row_groups.rs`), and by the table writer that opens the sink (`table.rs`).

use crate::error::Error;
use std::fs::File;
use std::io::{BufWriter, Write};

/// Where the table goes: standard output, or a temporary file renamed over its target.
pub(super) struct Sink {
    pub(super) out: BufWriter<Out>,
}

/// Where a table's bytes go: a file the table writer opened (a temporary renamed at the
/// end, or a device), or the caller's standard output ([`super::table::StandardOutput`]).
pub(super) enum Out {
    File(File),
    Given(Box<dyn Write + Send>),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Given(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Given(w) => w.flush(),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A Parquet writer's error as the output's I/O error, keeping the kind and the words of an
/// I/O error inside it (a closed pipe stays a closed pipe: a quiet exit; a full disk reads
/// as one, not as the writer's wrapping of it).
pub(super) fn parquet_error(e: &parquet::errors::ParquetError) -> Error {
    let io = match e {
        parquet::errors::ParquetError::External(inner) => inner.downcast_ref::<std::io::Error>(),
        _ => None,
    };
    output_error(io, e)
}

/// An Arrow writer's error as the output's I/O error, keeping the kind and the words of an
/// I/O error.
pub(super) fn arrow_error(e: &arrow_schema::ArrowError) -> Error {
    let io = match e {
        arrow_schema::ArrowError::IoError(_, inner) => Some(inner),
        _ => None,
    };
    output_error(io, e)
}

fn output_error(io: Option<&std::io::Error>, e: &dyn std::fmt::Display) -> Error {
    let source = match io {
        Some(io) => std::io::Error::new(io.kind(), io.to_string()),
        None => std::io::Error::other(e.to_string()),
    };
    Error::io("writing output", source)
}
