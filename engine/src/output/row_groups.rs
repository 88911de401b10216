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

use super::encoder::{Sink, parquet_error};
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
