//! A table output's encoder, on a thread of its own: the in-order thread hands it each
//! batch's rows to write and goes on deciding, while Parquet pages are encoded and
//! compressed (each row group on a thread of its own, `row_groups.rs`) or an Arrow stream's
//! or JSON's batches written beside it.
//!
//! The hand-over holds one batch ([`Encoder::write`] waits while the encoder is a batch
//! behind), so memory stays within the budget's share for a table output. A failed write
//! stops the encoder; the error comes back from the next call, or from
//! [`Encoder::finish`], which waits for every batch handed over and returns the writer for
//! its footer.

use super::sink::{Sink, arrow_error};
use crate::error::{Error, Result};
use arrow_array::RecordBatch;
use crossbeam_channel::{Sender, bounded};
use std::io::Write;
use std::thread::JoinHandle;

/// A table's writer, of one of the encodings.
pub(super) enum Writer {
    Parquet(super::row_groups::RowGroups),
    Arrow(arrow_ipc::writer::StreamWriter<Sink>),
    Jsonl(arrow_json::LineDelimitedWriter<Sink>),
}

impl Writer {
    /// Writes `batch` (Parquet: into the row group being gathered).
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            Writer::Parquet(w) => w.write(batch),
            Writer::Arrow(w) => w.write(batch).map_err(|e| arrow_error(&e)),
            Writer::Jsonl(w) => w.write(batch).map_err(|e| arrow_error(&e)),
        }
    }

    /// Flushes an Arrow stream's or JSON's batches (a Parquet row group stays open until it
    /// is full or the table ends).
    fn flush(&mut self) -> Result<()> {
        match self {
            Writer::Arrow(w) => w.flush().map_err(|e| arrow_error(&e)),
            Writer::Jsonl(w) => w
                .get_mut()
                .flush()
                .map_err(|e| Error::io("writing output", e)),
            Writer::Parquet(_) => Ok(()),
        }
    }
}

enum Job {
    Rows(RecordBatch),
    Flush,
}

/// The encoder thread of one table.
pub(super) struct Encoder {
    to: Option<Sender<Job>>,
    thread: Option<JoinHandle<Result<Writer>>>,
    /// The thread's CPU time, once it ended (`--stats`' `cpu_seconds.write`).
    cpu: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Encoder {
    /// Starts the thread that writes with `writer`.
    pub(super) fn start(mut writer: Writer) -> Result<Encoder> {
        let (to, from) = bounded::<Job>(1);
        let cpu = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let spent = cpu.clone();
        let thread = std::thread::Builder::new()
            .name("neardup-encoder".into())
            .spawn(move || {
                let written = from.iter().try_for_each(|job| match job {
                    Job::Rows(batch) => writer.write(&batch),
                    Job::Flush => writer.flush(),
                });
                spent.store(
                    crate::cpu::thread_cpu(),
                    std::sync::atomic::Ordering::Relaxed,
                );
                written.map(|()| writer)
            })
            .map_err(|e| Error::io("starting the table's encoder thread", e))?;
        Ok(Encoder {
            to: Some(to),
            thread: Some(thread),
            cpu,
        })
    }

    /// Hands `batch` over (waiting while the encoder is a batch behind); the error of an
    /// encoder that stopped.
    pub(super) fn write(&mut self, batch: RecordBatch) -> Result<()> {
        self.send(Job::Rows(batch))
    }

    /// Asks for what is written so far to be flushed once the batches before it are.
    pub(super) fn flush(&mut self) -> Result<()> {
        self.send(Job::Flush)
    }

    fn send(&mut self, job: Job) -> Result<()> {
        let sent = self.to.as_ref().is_some_and(|to| to.send(job).is_ok());
        match sent {
            true => Ok(()),
            // The encoder stopped: its error.
            false => self.join().map(|_| ()),
        }
    }

    /// Waits for every batch handed over to be written; the writer, for the table's end,
    /// and the CPU nanoseconds the thread spent.
    pub(super) fn finish(mut self) -> Result<(Writer, u64)> {
        let writer = self.join()?;
        Ok((writer, self.cpu.load(std::sync::atomic::Ordering::Relaxed)))
    }

    fn join(&mut self) -> Result<Writer> {
        self.to = None;
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or_else(|_| {
                Err(Error::Internal(
                    "the table's encoder thread panicked".into(),
                ))
            }),
            None => Err(Error::Internal("the table's encoder has ended".into())),
        }
    }
}

impl Drop for Encoder {
    /// A table abandoned: the thread ends with the channel, and is waited for so that its
    /// file is closed before the temporary is removed.
    fn drop(&mut self) {
        let _ = self.join();
    }
}
