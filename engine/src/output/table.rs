//! Writing rows back as a table: the filter's kept (or dropped) rows of a columnar input with
//! all their columns, as Parquet, an Arrow IPC stream, or JSON Lines.
//!
//! The sequencer marks the rows of a batch to write ([`TableWriter::row`]), with their
//! verdict under `--annotate`; at the batch's end ([`TableWriter::end_batch`]) the marked rows
//! are taken from the batch's table in one filter and written, with the `neardup_dup_of`,
//! `neardup_similarity` and `neardup_exact` columns appended under `--annotate`. The schema
//! and its metadata are the input's.
//!
//! A file (`-o FILE`) is written beside its target under a temporary name and renamed over it
//! when the run ends ([`TableWriter::finish`]), also when a signal stopped the run (its rows
//! so far, with a valid footer); a run that fails removes it ([`TableWriter::abandon`]), so the
//! target never holds a half-written file. On standard output the footer is written over the
//! rows written in both cases.

use super::Verdict;
use super::encoder::{Encoder, Writer};
use super::sink::{Out, Sink, arrow_error};
pub use crate::config::Compression;
use crate::error::{Error, Result};
use crate::input::DocId;
use crate::memory::MAX_ROW_GROUP_BYTES;
use crate::temporary::Replacing;
use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Opens the caller's standard output for a table written there (no `-o FILE`): the
/// process' descriptors are the caller's to hand out, so the engine opens none itself. A
/// table with no path and no standard output given is refused when it opens.
pub(crate) type StandardOutput = fn() -> std::io::Result<Box<dyn Write + Send>>;

/// How rows are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Apache Parquet.
    Parquet(Compression),
    /// An Arrow IPC stream.
    Arrow,
    /// One JSON object per row.
    Jsonl,
}

/// Parquet row groups end at this many rows or after the batch that brings them to
/// [`TableWriter::row_groups_of`] bytes of Arrow data, whichever comes first: large enough
/// for readers to skip and decode well.
const ROW_GROUP_ROWS: usize = 128 * 1024;

/// The annotation columns of the rows marked in a batch.
#[derive(Default)]
struct Annotations {
    dup_of_text: Vec<Option<String>>,
    dup_of_number: Vec<Option<i64>>,
    similarity: Vec<Option<f64>>,
    exact: Vec<bool>,
    reference: Vec<Option<bool>>,
}

/// Writes the marked rows of each batch of a columnar input as a table.
pub struct TableWriter {
    encoding: Encoding,
    annotate: bool,
    /// `--against`: a `neardup_reference` column too.
    reference: bool,
    /// The ids are texts (an id column of strings): `neardup_dup_of` is a string column.
    string_ids: bool,
    /// The text column's path (`--field`, split at dots), written without a dictionary.
    text_path: Vec<String>,
    /// `-o FILE`: the target, until the table is opened.
    target: Option<PathBuf>,
    /// `-o FILE`, once opened: the temporary written meanwhile, renamed over the target by
    /// [`TableWriter::finish`] and removed when the run fails (or the writer is dropped).
    replacing: Option<Replacing>,
    /// `-o FILE` of a device or FIFO, written directly.
    direct: Option<PathBuf>,
    /// Standard output, for a table with no path ([`StandardOutput`]).
    stdout: Option<StandardOutput>,
    /// The encoder thread, once the first batch gave the schema.
    writer: Option<Encoder>,
    /// CPU nanoseconds the encoder thread spent, once it ended.
    encoder_cpu: u64,
    schema: Option<SchemaRef>,
    /// The rows of the current batch marked for writing.
    marked: Vec<bool>,
    notes: Annotations,
    rows_written: u64,
    /// Parquet: the Arrow bytes of rows at which a row group ends.
    row_group_bytes: usize,
    /// Parquet: the row groups encoded at once, each on a thread of its own.
    encoding_threads: usize,
    /// `--replace-annotations`: the input's own `neardup_*` columns are left out, and the
    /// new ones written (else such a column is refused).
    replace: bool,
    /// The input's columns written (all but its `neardup_*` ones when replacing).
    projection: Option<Vec<usize>>,
}

impl TableWriter {
    /// A writer of `encoding` to `path` (standard output when `None`); `annotate` appends
    /// the verdict's columns, with `reference` one for `--against`.
    pub fn new(
        encoding: Encoding,
        path: Option<PathBuf>,
        annotate: bool,
        reference: bool,
        field: &str,
    ) -> TableWriter {
        // A device or a FIFO (`-o /dev/stdout`, `-o /dev/null`) is written directly.
        let (target, direct) = match path {
            Some(path) if crate::temporary::replaces(&path) => (Some(path), None),
            path => (None, path),
        };
        TableWriter {
            encoding,
            annotate,
            reference,
            string_ids: false,
            text_path: field.split('.').map(str::to_string).collect(),
            target,
            replacing: None,
            direct,
            stdout: None,
            writer: None,
            encoder_cpu: 0,
            schema: None,
            marked: Vec::new(),
            notes: Annotations::default(),
            rows_written: 0,
            row_group_bytes: MAX_ROW_GROUP_BYTES,
            encoding_threads: 1,
            replace: false,
            projection: None,
        }
    }

    /// A table with no path goes to the standard output `open` gives.
    pub fn standard_output(mut self, open: Option<StandardOutput>) -> TableWriter {
        self.stdout = open;
        self
    }

    /// Parquet: ends a row group after the batch that brings its rows to `bytes` of Arrow
    /// data (a group is held in memory until it is encoded and written), instead of
    /// [`MAX_ROW_GROUP_BYTES`].
    pub fn row_groups_of(mut self, bytes: usize) -> TableWriter {
        self.row_group_bytes = bytes.max(1);
        self
    }

    /// Parquet: encodes up to `threads` row groups at once, each on a thread of its own
    /// (1 by default). The file is the same bytes whatever the number.
    pub fn encoding_on(mut self, threads: usize) -> TableWriter {
        self.encoding_threads = threads.max(1);
        self
    }

    /// Under `--annotate`, leaves out the input's own `neardup_*` columns and writes the new
    /// ones (`--replace-annotations`), instead of refusing such an input.
    pub(crate) fn replacing_annotations(mut self, yes: bool) -> TableWriter {
        self.replace = yes;
        self
    }

    /// Marks row `i` of the current batch of `rows` rows for writing, with its verdict
    /// under `--annotate`.
    pub fn row(&mut self, i: usize, rows: usize, verdict: Option<Verdict<'_>>) {
        if self.marked.len() != rows {
            self.marked.clear();
            self.marked.resize(rows, false);
        }
        self.marked[i] = true;
        if self.annotate {
            let v = verdict.unwrap_or(Verdict::new_document(None));
            let n = &mut self.notes;
            match v.dup_of {
                Some(DocId::Str(s)) => {
                    n.dup_of_text.push(Some(s.to_string()));
                    n.dup_of_number.push(None);
                }
                Some(DocId::Num(s)) => {
                    n.dup_of_text.push(Some(s.to_string()));
                    n.dup_of_number.push(s.parse().ok());
                }
                Some(DocId::Line(l)) => {
                    n.dup_of_text.push(Some(l.to_string()));
                    n.dup_of_number.push(i64::try_from(*l).ok());
                }
                None => {
                    n.dup_of_text.push(None);
                    n.dup_of_number.push(None);
                }
            }
            n.similarity
                .push(v.dup_of.map(|_| super::printed_similarity(v.similarity)));
            n.exact.push(v.copy);
            n.reference.push(v.reference);
        }
    }

    /// Writes the rows of `table` marked since the last batch.
    pub fn end_batch(&mut self, table: &RecordBatch, string_ids: bool) -> Result<()> {
        let marked = std::mem::take(&mut self.marked);
        let notes = std::mem::take(&mut self.notes);
        if self.writer.is_none() {
            // A reference's ids may be of another kind than the input's: text then.
            self.string_ids = string_ids || self.reference;
            self.open(table.schema())?;
        }
        if !marked.iter().any(|&m| m) {
            return Ok(());
        }
        let mask = BooleanArray::from(marked);
        let mut kept = arrow_select::filter::filter_record_batch(table, &mask)
            .map_err(|e| Error::Internal(format!("selecting rows: {e}")))?;
        if let Some(columns) = &self.projection {
            kept = kept
                .project(columns)
                .map_err(|e| Error::Internal(format!("leaving out neardup_* columns: {e}")))?;
        }
        let batch = match self.annotate {
            true => self.annotated(kept, notes)?,
            false => kept,
        };
        let rows = batch.num_rows() as u64;
        self.writer.as_mut().expect("opened").write(batch)?;
        self.rows_written += rows;
        Ok(())
    }

    /// The output's schema: the input's (with its metadata), and the annotation columns.
    fn out_schema(&self, schema: SchemaRef) -> SchemaRef {
        if !self.annotate {
            return schema;
        }
        let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        let dup_type = match self.string_ids {
            true => DataType::Utf8,
            false => DataType::Int64,
        };
        fields.push(Field::new("neardup_dup_of", dup_type, true));
        fields.push(Field::new("neardup_similarity", DataType::Float64, true));
        fields.push(Field::new("neardup_exact", DataType::Boolean, false));
        if self.reference {
            fields.push(Field::new("neardup_reference", DataType::Boolean, true));
        }
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    }

    fn annotated(&self, kept: RecordBatch, notes: Annotations) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = kept.columns().to_vec();
        let dup: ArrayRef = match self.string_ids {
            true => {
                let mut b = StringBuilder::new();
                notes
                    .dup_of_text
                    .iter()
                    .for_each(|v| b.append_option(v.as_deref()));
                Arc::new(b.finish())
            }
            false => {
                let mut b = Int64Builder::new();
                notes.dup_of_number.iter().for_each(|&v| b.append_option(v));
                Arc::new(b.finish())
            }
        };
        columns.push(dup);
        let mut b = Float64Builder::new();
        notes.similarity.iter().for_each(|&v| b.append_option(v));
        columns.push(Arc::new(b.finish()));
        let mut b = BooleanBuilder::new();
        notes.exact.iter().for_each(|&v| b.append_value(v));
        columns.push(Arc::new(b.finish()));
        if self.reference {
            let mut b = BooleanBuilder::new();
            notes.reference.iter().for_each(|&v| b.append_option(v));
            columns.push(Arc::new(b.finish()));
        }
        let schema = self.schema.clone().expect("opened");
        RecordBatch::try_new(schema, columns)
            .map_err(|e| Error::Internal(format!("annotating rows: {e}")))
    }

    /// Opens the sink and the encoder for rows of `schema`.
    fn open(&mut self, schema: SchemaRef) -> Result<()> {
        let mut schema = schema;
        if self.annotate && self.replace {
            let columns: Vec<usize> = (0..schema.fields().len())
                .filter(|&i| !schema.field(i).name().starts_with("neardup_"))
                .collect();
            if columns.len() < schema.fields().len() {
                schema = Arc::new(
                    schema
                        .project(&columns)
                        .map_err(|e| Error::Internal(format!("leaving out columns: {e}")))?,
                );
                self.projection = Some(columns);
            }
        }
        // Two columns of one name make a table other readers refuse ("multiple matches").
        if self.annotate
            && let Some(taken) = schema
                .fields()
                .iter()
                .find(|f| f.name().starts_with("neardup_"))
        {
            return Err(Error::config(
                "annotate",
                format!(
                    "the input already has a column '{}', and ‹annotate› adds the neardup_* \
                     columns: give ‹replace-annotations› to write new ones in their place (an \
                     annotated table deduplicated again), or use another mode",
                    taken.name()
                ),
            ));
        }
        let schema = self.out_schema(schema);
        let file = match self.target.take() {
            Some(target) => {
                let (file, replacing) = Replacing::new(&target).map_err(|e| {
                    Error::io(
                        format!(
                            "creating a temporary file in {} (for {})",
                            crate::temporary::directory_of(&target).display(),
                            target.display()
                        ),
                        e,
                    )
                })?;
                self.replacing = Some(replacing);
                Out::File(file)
            }
            None => match (&self.direct, self.stdout) {
                (Some(path), _) => Out::File(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(path)
                        .map_err(|e| Error::io(format!("opening {}", path.display()), e))?,
                ),
                (None, Some(open)) => {
                    Out::Given(open().map_err(|e| Error::io("opening standard output", e))?)
                }
                (None, None) => {
                    return Err(Error::Usage(
                        "a table is written to a file here: give an output path".into(),
                    ));
                }
            },
        };
        let sink = Sink {
            out: BufWriter::with_capacity(1 << 20, file),
        };
        let writer = match self.encoding {
            Encoding::Parquet(compression) => {
                use parquet::basic::{Compression as C, GzipLevel, ZstdLevel};
                use parquet::file::properties::WriterProperties;
                let codec = match compression {
                    Compression::Zstd => C::ZSTD(ZstdLevel::try_new(1).expect("a valid level")),
                    Compression::Snappy => C::SNAPPY,
                    Compression::Gzip => C::GZIP(GzipLevel::default()),
                    Compression::Lz4 => C::LZ4_RAW,
                    Compression::None => C::UNCOMPRESSED,
                };
                // The text column's values are long and nearly all distinct: a dictionary
                // would be tried and dropped, and its statistics would be long strings.
                let texts = parquet::schema::types::ColumnPath::from(self.text_path.clone());
                let props = WriterProperties::builder()
                    .set_compression(codec)
                    .set_column_dictionary_enabled(texts.clone(), false)
                    .set_column_statistics_enabled(
                        texts,
                        parquet::file::properties::EnabledStatistics::None,
                    )
                    .set_created_by(format!("neardup {}", env!("CARGO_PKG_VERSION")))
                    // The input's key–value metadata, where readers look for it (the Arrow
                    // schema written beside it carries it too).
                    .set_key_value_metadata(Some(
                        schema
                            .metadata()
                            .iter()
                            .map(|(k, v)| {
                                parquet::file::metadata::KeyValue::new(k.clone(), v.clone())
                            })
                            .collect(),
                    ))
                    .build();
                Writer::Parquet(super::row_groups::RowGroups::new(
                    sink,
                    &schema,
                    props,
                    (ROW_GROUP_ROWS, self.row_group_bytes),
                    self.encoding_threads,
                )?)
            }
            Encoding::Arrow => Writer::Arrow(
                arrow_ipc::writer::StreamWriter::try_new(sink, &schema)
                    .map_err(|e| arrow_error(&e))?,
            ),
            Encoding::Jsonl => Writer::Jsonl(arrow_json::LineDelimitedWriter::new(sink)),
        };
        self.writer = Some(Encoder::start(writer)?);
        self.schema = Some(schema);
        Ok(())
    }

    /// Flushes what is written so far (an Arrow stream's or JSON's batches; a Parquet row
    /// group stays open until it is full or the run ends).
    pub fn flush(&mut self) -> Result<()> {
        match (&mut self.writer, self.encoding) {
            (Some(encoder), Encoding::Arrow | Encoding::Jsonl) => encoder.flush(),
            _ => Ok(()),
        }
    }

    /// Ends the table: with no rows at all, an empty table of the input's schema (`schema`,
    /// when known); the footer; a file renamed over its target.
    pub fn finish(&mut self, schema: Option<SchemaRef>) -> Result<()> {
        if self.writer.is_none() {
            match schema {
                Some(s) => self.open(s)?,
                None if self.encoding == Encoding::Jsonl => self.open(Arc::new(Schema::empty()))?,
                None => {
                    self.abandon();
                    return Ok(());
                }
            }
        }
        let (writer, cpu) = self.writer.take().expect("opened").finish()?;
        self.encoder_cpu += cpu;
        let mut sink = match writer {
            Writer::Parquet(w) => {
                let (sink, cpu) = w.finish()?;
                self.encoder_cpu += cpu;
                sink
            }
            Writer::Arrow(mut w) => {
                w.finish().map_err(|e| arrow_error(&e))?;
                w.into_inner().map_err(|e| arrow_error(&e))?
            }
            Writer::Jsonl(mut w) => {
                w.finish().map_err(|e| arrow_error(&e))?;
                w.into_inner()
            }
        };
        sink.flush().map_err(|e| Error::io("writing output", e))?;
        drop(sink);
        if let Some(replacing) = self.replacing.take() {
            let target = replacing.target().display().to_string();
            // Synced, then renamed; removed when either fails, the target left as it was.
            replacing
                .commit()
                .map_err(|e| Error::io(format!("putting {target} in place"), e))?;
        }
        Ok(())
    }

    /// CPU nanoseconds the encoder thread spent (known once the table ended).
    pub(crate) fn encoder_cpu(&self) -> u64 {
        self.encoder_cpu
    }

    /// A failed run: a file is removed (its target is left as it was); on standard output
    /// the footer is written over the rows written.
    pub fn abandon(&mut self) {
        match self.replacing.take() {
            Some(replacing) => {
                self.writer = None;
                drop(replacing);
            }
            // Nothing written yet: nothing to end.
            None if self.writer.is_none() => {}
            None => {
                let _ = self.finish(None);
            }
        }
    }
}
