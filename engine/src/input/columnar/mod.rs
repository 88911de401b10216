//! Columnar inputs: Parquet files and Arrow IPC (stream or file) → batches of documents.
//!
//! An input is columnar when its first bytes say so (`PAR1`, `ARROW1`, or the IPC stream's
//! continuation marker) or `--input-format parquet|arrow` says so. Its rows become a
//! [`Batch`] as lines do: each row's text is copied into the batch's bytes (so every later
//! stage sees a text line), and [`Rows`] carries what lines cannot: the ids of an id column,
//! which rows' text is null, and, when the output writes rows back as a table, the rows
//! themselves with all their columns ([`Columns::all`]).
//!
//! Parquet is read row group by row group with only the text and id columns decoded unless
//! the rows are written back, in batches of at most [`MAX_BATCH_LINES`] rows and about
//! [`BATCH_BYTES`] of text, so memory is bounded by a row group's pages in flight whatever the
//! file's size. A Parquet file on standard input is first copied to a temporary file (Parquet
//! is read from its footer back).

mod values;

pub use values::{Texts, column, describe};

use super::extract::DocId;
use super::{BATCH_BYTES, Batch, Input, LineSpan, MAX_BATCH_LINES, Part};
use crate::error::{Error, Result};
use crate::input::settings::InputFormat;
use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};
use std::fs::File;
use std::io::{Read, Seek};
use values::{auto_id, check, find, id_of, is_text, json_value};

/// What kind of columnar data an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An Apache Parquet file.
    Parquet,
    /// An Arrow IPC stream (what `pyarrow.ipc.new_stream` and `polars.write_ipc_stream` write).
    ArrowStream,
    /// An Arrow IPC file (Feather v2).
    ArrowFile,
}

impl Kind {
    /// The kind the first bytes of an input say, if any: text and JSON never start with
    /// these (the stream's marker is not UTF-8).
    pub(crate) fn sniff(head: &[u8]) -> Option<Kind> {
        if head.starts_with(b"PAR1") {
            Some(Kind::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(Kind::ArrowFile)
        } else if head.starts_with(&[0xff; 4]) {
            Some(Kind::ArrowStream)
        } else {
            None
        }
    }

    /// The kind of an input read as `format` whose first bytes are `head`: `Auto` goes by
    /// the bytes; `Parquet` and `Arrow` are taken at their word (an Arrow input is a stream
    /// unless it starts as a file); `Text` and `Jsonl` are lines.
    pub fn of(format: InputFormat, head: &[u8]) -> Option<Kind> {
        match format {
            InputFormat::Auto => Kind::sniff(head),
            InputFormat::Parquet => Some(Kind::Parquet),
            InputFormat::Arrow => match Kind::sniff(head) {
                Some(Kind::ArrowFile) => Some(Kind::ArrowFile),
                _ => Some(Kind::ArrowStream),
            },
            // JSON never starts with these bytes; `--field` and `--id-field` make `auto` JSON
            // Lines, and name columns as well.
            InputFormat::Jsonl => Kind::sniff(head),
            InputFormat::Text => None,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Parquet => "Parquet",
            Kind::ArrowStream => "Arrow IPC stream",
            Kind::ArrowFile => "Arrow IPC file",
        }
    }
}

/// Which columns a columnar input's documents come from.
#[derive(Clone, Debug)]
pub struct Columns {
    /// The text column (`--field`): a name, or a dotted path into struct columns.
    pub field: String,
    /// The id column (`--id-field`), if any: strings or integers.
    pub id_field: Option<String>,
    /// Keep every column of every row ([`Rows::table`]) for an output that writes rows.
    pub all: bool,
    /// Texts longer than this many bytes are bad rows (`--max-line-bytes`).
    pub max_bytes: usize,
    /// With no `id_field`: an `id` column of text or integers is the id (said once).
    pub auto_id: bool,
    /// Set by the reader: with [`Columns::auto_id`], the `id` column's type when it is
    /// neither text nor integers, so rows are numbered instead (said once where ids show).
    pub unusable_id: Option<String>,
    /// Every input must have the first one's columns: the rows are written back as one
    /// table (Parquet, Arrow, or annotated).
    pub one_schema: bool,
    /// Columns whose values each row carries as attributes (`--node-attr`, `--keep
    /// max:FIELD`, `--block-by`), in order, as JSON values ([`Rows::attrs`]).
    pub attrs: Vec<String>,
}

impl Default for Columns {
    fn default() -> Columns {
        Columns {
            field: "text".to_string(),
            id_field: None,
            all: false,
            max_bytes: usize::MAX,
            auto_id: false,
            unusable_id: None,
            one_schema: false,
            attrs: Vec::new(),
        }
    }
}

/// What a batch of rows carries besides their texts.
#[derive(Clone, Debug, Default)]
pub struct Rows {
    /// The id column's values, one per row (`None`: rows are numbered).
    pub ids: Option<Vec<Option<DocId>>>,
    /// Why row `i` is not a document, when it is not (a null text, an over-long text).
    pub bad: Vec<(u32, RowProblem)>,
    /// The rows with all their columns ([`Columns::all`]).
    pub table: Option<RecordBatch>,
    /// The id column holds text (not integers).
    pub string_ids: bool,
    /// [`Columns::unusable_id`], on the batch that says it.
    pub unusable_id: Option<String>,
    /// Per row, the values of [`Columns::attrs`] (`None`: null), as a JSON line's fields
    /// would give them.
    pub attrs: Vec<Vec<Option<serde_json::Value>>>,
}

impl Rows {
    /// The problem of row `i`, if it has one.
    pub(crate) fn problem(&self, i: usize) -> Option<RowProblem> {
        self.bad
            .binary_search_by_key(&(i as u32), |&(r, _)| r)
            .ok()
            .map(|k| self.bad[k].1)
    }
}

/// Why a row is not a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowProblem {
    /// The text is null.
    NullText,
    /// The id is null.
    NullId,
    /// The text is longer than the limit; its length.
    TooLong(usize),
}

/// Reads one columnar input in batches.
pub(crate) struct ColumnReader {
    name: String,
    batches: Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send>,
    columns: Columns,
    /// A decoded batch whose rows from the offset on are not handed out yet (a batch is
    /// handed out in slices of about [`BATCH_BYTES`] of text).
    pending: Option<(RecordBatch, usize)>,
    /// Rows of each Parquet row group, to name the row group of an error.
    row_groups: Vec<u64>,
    rows_read: u64,
    /// The file's size and rows, to count bytes read in proportion (`--stats`).
    size: u64,
    total_rows: u64,
    schema: SchemaRef,
    string_ids: bool,
    /// The input had no rows and its empty batch was handed out.
    ended: bool,
}

impl ColumnReader {
    /// Opens `input`, known to be of `kind`: checks that the text (and id) column exists and
    /// holds text (ids: text or integers), naming the columns there are when it does not.
    pub fn open(input: Input, kind: Kind, mut columns: Columns) -> Result<ColumnReader> {
        let name = input.name.clone();
        let bad_file = |e: &dyn std::fmt::Display| {
            Error::Data(format!("{name}: not readable as {}: {e}", kind.name()))
        };
        let reader = match kind {
            Kind::Parquet => {
                use parquet::arrow::ProjectionMask;
                use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
                let file = match input.file {
                    Some(file) => file,
                    None => spool(input)?,
                };
                let size = file.metadata().map_or(0, |m| m.len());
                let builder =
                    ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| bad_file(&e))?;
                let schema = builder.schema().clone();
                auto_id(&schema, &mut columns);
                check(&name, &schema, &columns)?;
                let meta = builder.metadata().clone();
                let row_groups: Vec<u64> = meta
                    .row_groups()
                    .iter()
                    .map(|g| g.num_rows().max(0) as u64)
                    .collect();
                let mask = match columns.all {
                    true => ProjectionMask::all(),
                    false => {
                        let mut wanted = vec![columns.field.as_str()];
                        wanted.extend(columns.id_field.as_deref());
                        wanted.extend(columns.attrs.iter().map(String::as_str));
                        projection(builder.parquet_schema(), &schema, &wanted)
                    }
                };
                let reader = builder
                    .with_projection(mask)
                    .with_batch_size(MAX_BATCH_LINES / 2)
                    .build()
                    .map_err(|e| bad_file(&e))?;
                let total_rows = row_groups.iter().sum();
                ColumnReader {
                    name,
                    batches: Box::new(reader),
                    columns,
                    pending: None,
                    row_groups,
                    rows_read: 0,
                    size,
                    total_rows,
                    schema,
                    string_ids: false,
                    ended: false,
                }
            }
            Kind::ArrowStream => {
                let reader = arrow_ipc::reader::StreamReader::try_new_buffered(input, None)
                    .map_err(|e| bad_file(&e))?;
                let schema = reader.schema();
                auto_id(&schema, &mut columns);
                check(&name, &schema, &columns)?;
                ColumnReader::of(name, Box::new(reader), columns, schema)
            }
            Kind::ArrowFile => {
                let file = match input.file {
                    Some(file) => file,
                    None => spool(input)?,
                };
                let size = file.metadata().map_or(0, |m| m.len());
                let reader = arrow_ipc::reader::FileReader::try_new_buffered(file, None)
                    .map_err(|e| bad_file(&e))?;
                let schema = reader.schema();
                auto_id(&schema, &mut columns);
                check(&name, &schema, &columns)?;
                let mut r = ColumnReader::of(name, Box::new(reader), columns, schema);
                r.size = size;
                r
            }
        };
        let mut reader = reader;
        reader.string_ids = reader
            .columns
            .id_field
            .as_deref()
            .and_then(|p| find(reader.schema.fields(), p))
            .is_some_and(|f| is_text(f.data_type()));
        Ok(reader)
    }

    fn of(
        name: String,
        batches: Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send>,
        columns: Columns,
        schema: SchemaRef,
    ) -> ColumnReader {
        ColumnReader {
            name,
            batches,
            columns,
            pending: None,
            row_groups: Vec::new(),
            rows_read: 0,
            size: 0,
            total_rows: 0,
            schema,
            string_ids: false,
            ended: false,
        }
    }

    /// The input's schema (all its columns, whatever is decoded).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Bytes of the input read so far, in proportion of its rows for a file.
    pub fn bytes_read(&self) -> u64 {
        match self.total_rows {
            0 => 0,
            n => (self.size as f64 * self.rows_read as f64 / n as f64) as u64,
        }
    }

    /// The next batch of rows, numbered after `number` (over all inputs) and `input_line`
    /// (within this input), or `None` at the end of the input. The rows' text is copied into
    /// `data` (a consumed batch's buffer, or an empty one), whose contents are dropped.
    pub fn next_batch(
        &mut self,
        input: u32,
        number: &mut u64,
        input_line: &mut u64,
        mut data: Vec<u8>,
    ) -> Result<Option<Batch>> {
        let (decoded, offset) = match self.pending.take() {
            Some(p) => p,
            // A damaged file can make the Arrow readers panic (offsets past a buffer's end,
            // which they do not check): that is a damaged input, said as one.
            None => match crate::guard::catching(|| self.batches.next()).unwrap_or_else(|_| {
                Some(Err(ArrowError::ParseError(
                    "damaged: its buffers' offsets or lengths lie outside the data".into(),
                )))
            }) {
                // An input of no rows still gives its schema to a table output: one batch
                // of no rows.
                None if self.rows_read == 0 && self.columns.all && !self.ended => {
                    self.ended = true;
                    (RecordBatch::new_empty(self.schema.clone()), 0)
                }
                None => return Ok(None),
                Some(Ok(b)) => (b, 0),
                Some(Err(e)) => return Err(self.failed(&e)),
            },
        };
        let text = column(&decoded, &self.columns.field)
            .ok_or_else(|| self.failed(&"the text column is missing from a batch"))?;
        let texts =
            Texts::of(&text).ok_or_else(|| self.failed(&"the text column changed its type"))?;
        // A slice of about BATCH_BYTES of text (at least one row).
        let mut end = offset;
        let mut bytes = 0;
        while end < decoded.num_rows() && (end == offset || bytes < BATCH_BYTES) {
            bytes += texts.get(end).map_or(0, str::len);
            end += 1;
        }
        if end < decoded.num_rows() {
            self.pending = Some((decoded.clone(), end));
        }
        let rows = end - offset;
        data.clear();
        data.reserve(bytes + rows);
        let mut lines = Vec::with_capacity(rows);
        let mut bad = Vec::new();
        let ids = match &self.columns.id_field {
            Some(path) => {
                let col = column(&decoded, path)
                    .ok_or_else(|| self.failed(&"the id column is missing from a batch"))?;
                Some(
                    (offset..end)
                        .map(|r| id_of(&col, r))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| self.failed(&"the id column changed its type"))?,
                )
            }
            None => None,
        };
        let mut attrs = Vec::new();
        if !self.columns.attrs.is_empty() {
            let cols = (self.columns.attrs.iter())
                .map(|p| column(&decoded, p))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| self.failed(&"an attribute column is missing from a batch"))?;
            attrs = (offset..end)
                .map(|r| cols.iter().map(|c| json_value(c, r)).collect())
                .collect();
        }
        for r in offset..end {
            let start = data.len();
            let i = (r - offset) as u32;
            match texts.get(r) {
                None => bad.push((i, RowProblem::NullText)),
                Some(t) if t.len() > self.columns.max_bytes => {
                    bad.push((i, RowProblem::TooLong(t.len())))
                }
                Some(t) => {
                    if matches!(&ids, Some(ids) if ids[i as usize].is_none()) {
                        bad.push((i, RowProblem::NullId));
                    }
                    data.extend_from_slice(t.as_bytes());
                }
            }
            let content_end = data.len();
            data.push(b'\n');
            *number += 1;
            *input_line += 1;
            lines.push(LineSpan {
                start,
                content_end,
                end: data.len(),
                number: *number,
                input,
                input_line: *input_line,
                part: Part::Whole,
            });
        }
        // The rows under the input's schema, with its metadata (Parquet's batches carry
        // the fields only).
        let table = match self.columns.all {
            true => Some(
                RecordBatch::try_new(
                    self.schema.clone(),
                    decoded.slice(offset, rows).columns().to_vec(),
                )
                .map_err(|e| self.failed(&e))?,
            ),
            false => None,
        };
        let first = self.rows_read == 0;
        self.rows_read += rows as u64;
        Ok(Some(Batch {
            data,
            lines,
            format: InputFormat::Text,
            note: None,
            idle: false,
            ids_from_field: false,
            ids_decided: first && (self.columns.auto_id || self.columns.unusable_id.is_some()),
            unusable_id: None,
            rows: Some(Box::new(Rows {
                ids,
                bad,
                table,
                string_ids: self.string_ids,
                unusable_id: self.columns.unusable_id.clone().filter(|_| first),
                attrs,
            })),
            ordinal: 0,
        }))
    }

    /// An error reading the input, with the row group it happened in.
    fn failed(&self, e: &dyn std::fmt::Display) -> Error {
        let mut first = 0;
        let mut place = String::new();
        for (g, &n) in self.row_groups.iter().enumerate() {
            if self.rows_read < first + n {
                place = format!(", row group {g} (rows {}–{})", first + 1, first + n);
                break;
            }
            first += n;
        }
        Error::Data(format!(
            "reading {}{place} after {} rows, column '{}': {e}",
            self.name, self.rows_read, self.columns.field
        ))
    }
}

/// A stream holding a file that is read from its end: copied to an unlinked temporary file.
fn spool(mut input: Input) -> Result<File> {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("neardup-input-{}.tmp", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| Error::io(format!("copying {} to {}", input.name, dir.display()), e))?;
    let _ = std::fs::remove_file(&path);
    std::io::copy(&mut input, &mut file)
        .map_err(|e| Error::io(format!("copying {} to {}", input.name, dir.display()), e))?;
    file.rewind()
        .map_err(|e| Error::io(format!("reading {}", input.name), e))?;
    Ok(file)
}

/// Parquet's mask for the named columns: a column found by its whole name (dots included)
/// is its root; otherwise the dotted path's leaves.
fn projection(
    parquet: &parquet::schema::types::SchemaDescriptor,
    schema: &SchemaRef,
    wanted: &[&str],
) -> parquet::arrow::ProjectionMask {
    use parquet::arrow::ProjectionMask;
    let roots: Vec<usize> = wanted
        .iter()
        .filter_map(|w| schema.fields().iter().position(|f| f.name() == w))
        .collect();
    let dotted: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| !schema.fields().iter().any(|f| f.name() == w))
        .collect();
    if dotted.is_empty() {
        return ProjectionMask::roots(parquet, roots);
    }
    let mut mask = ProjectionMask::columns(parquet, dotted);
    if !roots.is_empty() {
        mask.union(&ProjectionMask::roots(parquet, roots));
    }
    mask
}

/// Reads the first bytes of an input without losing them: a file by position, a stream by
/// reading them and putting them back in front of it.
pub fn head(input: &mut Input) -> Result<Vec<u8>> {
    let mut head = [0u8; 8];
    if let Some(file) = &input.file {
        use std::os::unix::fs::FileExt;
        let n = file
            .read_at(&mut head, 0)
            .map_err(|e| Error::io(format!("reading {}", input.name), e))?;
        return Ok(head[..n].to_vec());
    }
    let mut n = 0;
    while n < head.len() {
        match input.reader.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(format!("reading {}", input.name), e)),
        }
    }
    let bytes = head[..n].to_vec();
    let rest = std::mem::replace(&mut input.reader, Box::new(std::io::empty()));
    input.reader = Box::new(std::io::Cursor::new(bytes.clone()).chain(rest));
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_by_first_bytes() {
        assert_eq!(Kind::sniff(b"PAR1\x15\x04"), Some(Kind::Parquet));
        assert_eq!(Kind::sniff(b"ARROW1\0\0"), Some(Kind::ArrowFile));
        assert_eq!(
            Kind::sniff(&[0xff, 0xff, 0xff, 0xff, 1]),
            Some(Kind::ArrowStream)
        );
        assert_eq!(Kind::sniff(b"{\"text\""), None);
        assert_eq!(Kind::of(InputFormat::Text, b"PAR1"), None);
        assert_eq!(Kind::of(InputFormat::Arrow, b""), Some(Kind::ArrowStream));
    }
}
