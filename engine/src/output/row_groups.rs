//! A Parquet table's row groups encoded on several threads at once, written in order.
//!
//! Encoding and compressing the kept rows is the heaviest work of a Parquet output (zstd
//! alone runs at a few hundred MB/s a core), and one encoder thread would cap a run on many
//! cores at that speed. A row group's pages depend only on its own rows, so each group is
//! encoded by a thread of its own (Arrow's column writers, [`ArrowRowGroupWriterFactory`])
//! as its rows arrive; when the encoding falls behind, the next group starts on another
//! thread while the last one catches up, and the groups are appended to the file in order.
//!
//! Where a group ends is decided before it is encoded, from the rows alone: at a number of
//! rows, or after the batch that brings its Arrow data to the group's bytes. So the file is
//! the same bytes whatever the number of threads.

use super::sink::{Sink, parquet_error};
use crate::error::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use crossbeam_channel::{Sender, unbounded};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::file::writer::SerializedFileWriter;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;

/// A row group being encoded: the rows still to come go down `rows`; its thread returns the
/// group's column chunks. A table abandoned lets its threads end on their own: they hold
/// rows, not the file.
struct Group {
    rows: Option<Sender<RecordBatch>>,
    thread: JoinHandle<Result<Vec<ArrowColumnChunk>>>,
}

/// A Parquet file written a row group at a time, each encoded on a thread of its own as
/// its rows arrive.
pub(super) struct RowGroups {
    file: SerializedFileWriter<Sink>,
    factory: Arc<ArrowRowGroupWriterFactory>,
    schema: SchemaRef,
    /// The group taking rows, and its rows and Arrow bytes so far.
    current: Option<Group>,
    rows: usize,
    bytes: usize,
    /// A group ends at this many rows, or after the batch that brings it to `group_bytes`.
    group_rows: usize,
    group_bytes: usize,
    /// Groups that took all their rows, oldest first; with the current one, at most
    /// `threads` at once.
    ended: VecDeque<Group>,
    threads: usize,
    /// Groups started (the next one's index).
    started: usize,
    /// CPU nanoseconds the encoding threads spent.
    cpu: Arc<AtomicU64>,
}

impl RowGroups {
    /// Writes rows of `schema` to `sink` with `props`: groups of at most `group_rows` rows,
    /// ending after the batch that brings one to `group_bytes` of Arrow data, encoded on up
    /// to `threads` threads at once.
    pub(super) fn new(
        sink: Sink,
        schema: &SchemaRef,
        props: parquet::file::properties::WriterProperties,
        (group_rows, group_bytes): (usize, usize),
        threads: usize,
    ) -> Result<RowGroups> {
        // Arrow's writer makes the file's schema, with the Arrow schema in its metadata, and
        // hands over the file and the factory of column writers.
        let (file, factory) = ArrowWriter::try_new(sink, schema.clone(), Some(props))
            .and_then(ArrowWriter::into_serialized_writer)
            .map_err(|e| parquet_error(&e))?;
        Ok(RowGroups {
            file,
            factory: Arc::new(factory),
            schema: schema.clone(),
            current: None,
            rows: 0,
            bytes: 0,
            group_rows: group_rows.max(1),
            group_bytes: group_bytes.max(1),
            ended: VecDeque::new(),
            threads: threads.max(1),
            started: 0,
            cpu: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Hands `batch`'s rows to the group taking rows (starting one when none is), ending
    /// each group they complete.
    pub(super) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut batch = batch.clone();
        while batch.num_rows() > 0 {
            let room = self.group_rows - self.rows;
            let taken = batch.slice(0, room.min(batch.num_rows()));
            batch = batch.slice(taken.num_rows(), batch.num_rows() - taken.num_rows());
            self.rows += taken.num_rows();
            self.bytes += (taken.columns().iter())
                .map(|c| c.to_data().get_slice_memory_size().unwrap_or(0))
                .sum::<usize>();
            if self.current.is_none() {
                self.current = Some(self.start_group()?);
            }
            // A thread that stopped gives its error when its group is written.
            if let Some(rows) = self.current.as_ref().and_then(|g| g.rows.as_ref()) {
                let _ = rows.send(taken);
            }
            if self.rows >= self.group_rows || self.bytes >= self.group_bytes {
                self.end_group();
            }
        }
        Ok(())
    }

    /// Starts a group's thread, once fewer than `threads` groups are being encoded (the
    /// oldest is written first).
    fn start_group(&mut self) -> Result<Group> {
        while self.ended.len() + 1 > self.threads {
            self.write_oldest()?;
        }
        let (rows, arriving) = unbounded::<RecordBatch>();
        let (factory, schema, cpu) = (self.factory.clone(), self.schema.clone(), self.cpu.clone());
        let index = self.started;
        let thread = std::thread::Builder::new()
            .name("neardup-row-group".into())
            .spawn(move || {
                let chunks = encode(&factory, &schema, index, arriving.iter());
                cpu.fetch_add(crate::cpu::thread_cpu(), Ordering::Relaxed);
                chunks
            })
            .map_err(|e| Error::io("starting a row group's encoding thread", e))?;
        self.started += 1;
        Ok(Group {
            rows: Some(rows),
            thread,
        })
    }

    /// The group taking rows has them all: its thread finishes it.
    fn end_group(&mut self) {
        if let Some(mut group) = self.current.take() {
            group.rows = None;
            self.ended.push_back(group);
        }
        self.rows = 0;
        self.bytes = 0;
    }

    /// Waits for the oldest group and appends it to the file.
    fn write_oldest(&mut self) -> Result<()> {
        let Some(group) = self.ended.pop_front() else {
            return Ok(());
        };
        let chunks = group.thread.join().unwrap_or_else(|_| {
            Err(Error::Internal(
                "a row group's encoding thread panicked".into(),
            ))
        })?;
        let mut writer = self.file.next_row_group().map_err(|e| parquet_error(&e))?;
        for chunk in chunks {
            chunk
                .append_to_row_group(&mut writer)
                .map_err(|e| parquet_error(&e))?;
        }
        writer.close().map_err(|e| parquet_error(&e))?;
        Ok(())
    }

    /// Ends the last group, waits for every group and writes the footer; the sink, and the
    /// CPU nanoseconds the encoding threads spent.
    pub(super) fn finish(mut self) -> Result<(Sink, u64)> {
        self.end_group();
        while !self.ended.is_empty() {
            self.write_oldest()?;
        }
        // The footer is written as the file is let go.
        let sink = self.file.into_inner().map_err(|e| parquet_error(&e))?;
        Ok((sink, self.cpu.load(Ordering::Relaxed)))
    }
}

/// Encodes the `batches` of row group `index` as they arrive: each column's leaves through
/// its writer.
fn encode(
    factory: &ArrowRowGroupWriterFactory,
    schema: &SchemaRef,
    index: usize,
    batches: impl Iterator<Item = RecordBatch>,
) -> Result<Vec<ArrowColumnChunk>> {
    let mut writers = factory
        .create_column_writers(index)
        .map_err(|e| parquet_error(&e))?;
    for batch in batches {
        let mut leaves = writers.iter_mut();
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            for leaf in compute_leaves(field, column).map_err(|e| parquet_error(&e))? {
                let writer = leaves
                    .next()
                    .ok_or_else(|| Error::Internal("a column without its writer".into()))?;
                writer.write(&leaf).map_err(|e| parquet_error(&e))?;
            }
        }
    }
    writers
        .into_iter()
        .map(|w| w.close().map_err(|e| parquet_error(&e)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::sink::Out;
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use std::sync::Mutex;

    /// A writer into a buffer the test keeps.
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Batches of `sizes` rows, numbered on from 0, with texts of varied lengths.
    fn batches(sizes: &[usize]) -> Vec<RecordBatch> {
        let mut next = 0i64;
        sizes
            .iter()
            .map(|&n| {
                let ids: Vec<i64> = (next..next + n as i64).collect();
                next += n as i64;
                let texts: Vec<String> = ids
                    .iter()
                    .map(|i| "w ".repeat(1 + (*i as usize % 97)))
                    .collect();
                RecordBatch::try_from_iter([
                    ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
                    ("text", Arc::new(StringArray::from(texts)) as ArrayRef),
                ])
                .unwrap()
            })
            .collect()
    }

    /// The file `batches` make in groups of `limits` on `threads` threads.
    fn written(batches: &[RecordBatch], limits: (usize, usize), threads: usize) -> Vec<u8> {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink {
            out: std::io::BufWriter::new(Out::Given(Box::new(Shared(buffer.clone())))),
        };
        let props = parquet::file::properties::WriterProperties::builder().build();
        let mut groups =
            RowGroups::new(sink, &batches[0].schema(), props, limits, threads).unwrap();
        for b in batches {
            groups.write(b).unwrap();
        }
        let (mut sink, _) = groups.finish().unwrap();
        std::io::Write::flush(&mut sink).unwrap();
        drop(sink);
        Arc::try_unwrap(buffer).unwrap().into_inner().unwrap()
    }

    /// The row counts of the file's groups and its ids in order.
    fn read(file: Vec<u8>) -> (Vec<i64>, Vec<i64>) {
        static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = FILES.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "neardup-row-groups-{}-{n}.parquet",
            std::process::id()
        ));
        std::fs::write(&path, file).unwrap();
        let opened = std::fs::File::open(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let builder = ParquetRecordBatchReaderBuilder::try_new(opened).unwrap();
        let groups = (builder.metadata().row_groups().iter())
            .map(|g| g.num_rows())
            .collect();
        let mut ids = Vec::new();
        for b in builder.build().unwrap() {
            let b = b.unwrap();
            let col = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            ids.extend(col.values().iter().copied());
        }
        (groups, ids)
    }

    #[test]
    fn the_file_is_the_same_on_any_number_of_threads_and_keeps_the_rows_in_order() {
        let input = batches(&[1, 700, 0, 2500, 13, 999, 4000, 1]);
        let total: usize = input.iter().map(RecordBatch::num_rows).sum();
        // Groups end at 1,000 rows, and after a batch that brings them to 20 KB.
        let one = written(&input, (1000, 20_000), 1);
        for threads in [2, 3, 8] {
            assert_eq!(written(&input, (1000, 20_000), threads), one, "{threads}");
        }
        let (groups, ids) = read(one);
        assert_eq!(ids, (0..total as i64).collect::<Vec<_>>());
        assert!(groups.len() > 8, "{groups:?}");
        assert!(groups.iter().all(|&n| n <= 1000), "{groups:?}");
    }

    #[test]
    fn a_group_ends_at_its_rows_or_after_the_batch_that_fills_its_bytes() {
        // Rows alone: 2,500 rows in groups of 1,000.
        let (groups, _) = read(written(&batches(&[2500]), (1000, usize::MAX), 2));
        assert_eq!(groups, [1000, 1000, 500]);
        // Bytes: each batch of 10 rows passes 1 byte, so each ends a group.
        let (groups, _) = read(written(&batches(&[10, 10, 10]), (1000, 1), 2));
        assert_eq!(groups, [10, 10, 10]);
        // No rows: a file with no group.
        let input = batches(&[0]);
        let (groups, ids) = read(written(&input, (1000, 1), 2));
        assert!(groups.is_empty() && ids.is_empty());
    }
}
