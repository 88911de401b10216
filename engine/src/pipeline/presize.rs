//! How many documents a run's window will hold, estimated from the documents decided so far,
//! so that the window is sized for them at once ([`crate::window::Window::presize`]) instead
//! of growing by half again and again (each growth re-inserts every key it holds).
//!
//! The estimate is the inputs' size at the bytes per line read so far (or, when every input
//! is a Parquet file, the rows their footers count), times the share of the documents so far
//! that the window kept. It is only made when every input is a regular file (a pipe's size is
//! unknown). It errs low for a compressed file (counted at its compressed size), which costs
//! the growths it did not spare, and high where later documents are kept less often than the
//! first, which costs table cells that stay empty (the window caps what it reserves).
//!
//! [`Presizer`] makes it once the first batch is decided. A window whose records would then
//! no longer all fit in the store's RAM is not sized then: the tables, sized early, take RAM
//! from the records from the start and send more of them to disk, and a first batch is a
//! small sample (one template's first batch keeps 57% of its documents, the whole run 34%;
//! sized from it, the tables were 1.7 times too large and the run 9% slower). It is sized
//! once a sixteenth of the estimated input is decided, from that larger sample, and only
//! where the lookups have read records rarely (fewer verifications than one per 16
//! documents: many short documents, whose window is mostly its tables and whose lookups
//! find almost nothing); where lookups verify candidates, records on disk cost more than
//! the growths spared.

use crate::input::Batch;
use crate::window::{Sizing, Window};
use std::path::Path;

/// Where a run is in sizing its window ([`Presizer::after_batch`]).
#[derive(Debug, Default)]
pub(super) struct Presizer {
    /// Lines and bytes of the line batches decided so far (pieces of an over-long line are
    /// one line, all their bytes counted).
    lines: u64,
    bytes: u64,
    state: State,
}

#[derive(Debug, Default)]
enum State {
    /// Nothing decided yet.
    #[default]
    First,
    /// The window would spill its records: sized once this many documents are decided.
    At(u64),
    /// Sized, or left to grow.
    Done,
}

/// Of the estimated input, the share decided before a window that spills is sized (1 in 16).
const LATER_SHARE: u64 = 16;

/// A window that spills is sized only where its lookups have verified fewer candidates than
/// one per this many documents: a record sent to disk costs only when a lookup reads it.
const DOCS_PER_RECORD_READ: u64 = 16;

impl Presizer {
    /// A presizer for a run whose window is sized already (a resumed window) or must not be.
    pub(super) fn done() -> Presizer {
        Presizer {
            state: State::Done,
            ..Presizer::default()
        }
    }

    /// After each decided `batch`: sizes `window` for the documents the inputs named `names`
    /// promise, when it is time (module documentation). `docs`: the documents decided so
    /// far; `verified`: the candidates their lookups verified (each a record read).
    pub(super) fn after_batch(
        &mut self,
        batch: &Batch,
        names: &[String],
        counts: (u64, u64),
        window: &mut Window,
    ) {
        if matches!(self.state, State::Done) {
            return;
        }
        self.observe(batch);
        if !self.due(counts.0) {
            return;
        }
        let rows = match batch.rows.is_some() {
            true => parquet_rows(names),
            false => input_bytes(names).and_then(|b| rows_of_bytes(b, self.lines, self.bytes)),
        };
        self.size(rows, counts, window);
    }

    /// Whether the window may be sized now, `docs` documents decided.
    fn due(&self, docs: u64) -> bool {
        match self.state {
            State::First => true,
            State::At(at) => docs >= at,
            State::Done => false,
        }
    }

    /// [`Presizer::after_batch`] for a program that said how many documents it hands over
    /// in all (`rows`, those decided before included: [`super::Deduper::expect_documents`]).
    pub(super) fn after_documents(&mut self, rows: u64, counts: (u64, u64), window: &mut Window) {
        if self.due(counts.0) {
            self.size(Some(rows), counts, window);
        }
    }

    /// Sizes `window` for the `rows` documents the input holds in all (`None`: not known),
    /// once it is time ([`Presizer::due`]); `docs` of them decided so far, whose lookups
    /// `verified` candidates.
    fn size(&mut self, rows: Option<u64>, (docs, verified): (u64, u64), window: &mut Window) {
        let held = window.len() as u64;
        let expected = |rows: Option<u64>| Some((rows?, expected_held_of_rows(rows?, docs, held)?));
        match self.state {
            State::First => {
                self.state = State::Done;
                let Some((rows, expected)) = expected(rows) else {
                    return;
                };
                if window.presize(expected.saturating_sub(window.len()), false)
                    == Sizing::RecordsWouldSpill
                {
                    self.state = State::At(rows / LATER_SHARE);
                }
            }
            State::At(_) => {
                self.state = State::Done;
                if verified.saturating_mul(DOCS_PER_RECORD_READ) < docs
                    && let Some((_, expected)) = expected(rows)
                {
                    window.presize(expected.saturating_sub(window.len()), true);
                }
            }
            State::Done => {}
        }
    }

    /// Counts the lines and bytes of a line batch (pieces of an over-long line are one line,
    /// all their bytes counted); a batch of columnar rows says nothing of line sizes.
    fn observe(&mut self, batch: &Batch) {
        if batch.rows.is_none() {
            self.lines += batch.lines.iter().filter(|l| !l.part.continues()).count() as u64;
            self.bytes += batch
                .lines
                .iter()
                .map(|l| (l.end - l.start) as u64)
                .sum::<u64>();
        }
    }
}

/// Lines in `input` bytes at the `lines` in `bytes` read so far.
fn rows_of_bytes(input: u64, lines: u64, bytes: u64) -> Option<u64> {
    if lines == 0 || bytes == 0 {
        return None;
    }
    let rows = u128::from(input) * u128::from(lines) / u128::from(bytes);
    Some(u64::try_from(rows).unwrap_or(u64::MAX))
}

/// Bytes of the inputs named `names` (`-` is standard input) when every one is a regular
/// file; `None` when one is not (a pipe, a terminal, a device) or cannot be looked at.
pub(super) fn input_bytes(names: &[String]) -> Option<u64> {
    let mut total = 0u64;
    for name in names {
        let path = match name.as_str() {
            "-" => Path::new("/dev/stdin"),
            name => Path::new(name),
        };
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        total = total.saturating_add(meta.len());
    }
    Some(total)
}

/// Rows of the inputs named `names` when every one is a Parquet file (its footer counts
/// them); `None` otherwise, or when a footer cannot be read (the reader says why).
pub(super) fn parquet_rows(names: &[String]) -> Option<u64> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let mut total = 0u64;
    for name in names {
        let file = std::fs::File::open(name).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let reader = SerializedFileReader::new(file).ok()?;
        let rows = reader.metadata().file_metadata().num_rows();
        total = total.saturating_add(u64::try_from(rows).ok()?);
    }
    Some(total)
}

/// The documents a window will hold in all, from `rows` in the inputs, of which the first
/// `docs` documents left `held` in the window.
pub(super) fn expected_held_of_rows(rows: u64, docs: u64, held: u64) -> Option<usize> {
    if docs == 0 {
        return None;
    }
    let expected = u128::from(rows) * u128::from(held.min(docs)) / u128::from(docs);
    Some(usize::try_from(expected).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Input, LineReader};
    use std::io::Write;

    fn first_batch(text: &[u8]) -> Batch {
        let input = Input::from_reader("in", Box::new(std::io::Cursor::new(text.to_vec())));
        let mut reader = LineReader::new(vec![input], crate::config::InputFormat::Text);
        reader.next_batch().unwrap().unwrap()
    }

    #[test]
    fn a_file_counts_its_bytes_and_a_pipe_none() {
        let dir = std::env::temp_dir().join(format!("neardup-presize-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::File::create(&a)
            .unwrap()
            .write_all(&[b'x'; 1000])
            .unwrap();
        std::fs::File::create(&b)
            .unwrap()
            .write_all(&[b'y'; 24])
            .unwrap();
        let name = |p: &Path| p.to_string_lossy().into_owned();
        assert_eq!(input_bytes(&[name(&a), name(&b)]), Some(1024));
        assert_eq!(input_bytes(&[name(&a), name(&dir)]), None, "a directory");
        assert_eq!(input_bytes(&[name(&dir.join("missing"))]), None);
        assert_eq!(input_bytes(&[]), Some(0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_parquet_input_counts_its_rows() {
        use arrow_array::{RecordBatch, StringArray};
        let dir = std::env::temp_dir().join(format!("neardup-presize-pq-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (table, text) = (dir.join("t.parquet"), dir.join("t.jsonl"));
        let column = StringArray::from(vec!["a b c"; 300]);
        let batch =
            RecordBatch::try_from_iter([("text", std::sync::Arc::new(column) as _)]).unwrap();
        let file = std::fs::File::create(&table).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        std::fs::write(&text, "{\"text\": \"a\"}\n").unwrap();
        let name = |p: &Path| p.to_string_lossy().into_owned();
        assert_eq!(parquet_rows(&[name(&table), name(&table)]), Some(1200));
        assert_eq!(
            parquet_rows(&[name(&table), name(&text)]),
            None,
            "not every input a table"
        );
        assert_eq!(parquet_rows(&[name(&dir)]), None, "a directory");
        // The first 2,048 rows left 1,024 in the window: half of the rest will stay too.
        assert_eq!(expected_held_of_rows(100_000, 2048, 1024), Some(50_000));
        assert_eq!(expected_held_of_rows(100_000, 0, 0), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_estimate_scales_the_lines_so_far_by_the_input_size() {
        // Ten lines of ten bytes (newline included), then ten of five.
        let mut p = Presizer::default();
        p.observe(&first_batch(&b"123456789\n".repeat(10)));
        assert_eq!((p.lines, p.bytes), (10, 100));
        // A 1,000-byte input holds 100 such lines; the window kept 8 of the first 10.
        let rows = rows_of_bytes(1000, p.lines, p.bytes).unwrap();
        assert_eq!(rows, 100);
        assert_eq!(expected_held_of_rows(rows, 10, 8), Some(80));
        p.observe(&first_batch(&b"1234\n".repeat(10)));
        assert_eq!(rows_of_bytes(1500, p.lines, p.bytes), Some(200));
        assert_eq!(rows_of_bytes(0, 10, 100), Some(0));
        // Nothing read, nothing known; a huge input does not overflow.
        assert_eq!(rows_of_bytes(1000, 0, 0), None);
        assert_eq!(rows_of_bytes(u64::MAX, 1, 1), Some(u64::MAX));
        assert_eq!(expected_held_of_rows(u64::MAX, 1, 1), Some(usize::MAX));
    }

    /// A window whose records would spill is not sized on the first batch; it is sized once
    /// a sixteenth of the input is decided if its lookups verified few candidates, and left
    /// to grow if they verified many.
    #[test]
    fn a_window_that_spills_is_sized_later_where_lookups_read_few_records() {
        use crate::input::DocId;
        use crate::window::{Entry, StoreSettings};
        let dir = std::env::temp_dir().join(format!("neardup-presize-sp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 3,200 lines of 100 bytes: 3,200 documents of 4 KiB records would pass the
        // 4 MiB a store of 1 MiB lends before spilling.
        let input = dir.join("in.txt");
        let line = [&[b'x'; 99][..], b"\n"].concat();
        std::fs::write(&input, line.repeat(3200)).unwrap();
        let names = [input.to_string_lossy().into_owned()];
        let batch = first_batch(&line.repeat(10));
        let window = || {
            let settings = StoreSettings {
                dir: Some(dir.clone()),
                ram: 1 << 20,
                disk: 0,
                index: None,
            };
            let mut w = Window::new(0).with_store(settings, 0);
            for seq in 0..10 {
                let entry = Entry {
                    id: DocId::Line(seq),
                    shingles: (0..1024).map(|i| i * (seq as u32 + 1)).collect(),
                    band_keys: (0..10).map(|b| crate::hash::mix64(seq << 4 | b)).collect(),
                    text_hash: u128::from(seq),
                    ..Entry::default()
                };
                w.insert(seq, entry).unwrap();
            }
            w
        };
        let sized_after = |verified: u64| {
            let (mut p, mut w) = (Presizer::default(), window());
            let before = w.ram_bytes();
            p.after_batch(&batch, &names, (10, 0), &mut w);
            assert_eq!(w.ram_bytes(), before, "not sized on the first batch");
            // 190 of the 3,200 documents: not yet a sixteenth.
            p.after_batch(&batch, &names, (190, 0), &mut w);
            assert_eq!(w.ram_bytes(), before, "not sized before a sixteenth");
            p.after_batch(&batch, &names, (200, verified), &mut w);
            let sized = w.ram_bytes() > before;
            p.after_batch(&batch, &names, (400, 0), &mut w);
            assert!(matches!(p.state, State::Done), "sized once at most");
            sized
        };
        assert!(sized_after(0));
        assert!(sized_after(12));
        assert!(
            !sized_after(13),
            "13 verifications in 200 documents: 1 in 16 or more"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
