//! How many documents a run's window will hold, estimated once its first batch is decided,
//! so that the window is sized for them at once ([`crate::window::Window::presize`]) instead
//! of growing by half again and again (each growth re-inserts every key it holds).
//!
//! The estimate is the inputs' size at the first batch's bytes per line (or, when every
//! input is a Parquet file, the rows their footers count), times the share of the first
//! batch's documents the window kept. It is only made when every input is a regular file
//! (a pipe's size is unknown). It errs low for a compressed file (counted at its
//! compressed size), which costs the growths it did not spare, and high where later batches
//! keep fewer documents than the first, which costs table cells that stay empty (the window
//! caps what it reserves).

use crate::input::Batch;
use std::path::Path;

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

/// The documents a window will hold in all, estimated from `input` bytes and the first
/// batch, `batch` (read from the start of the first input): of its documents, `docs`,
/// the window holds `held`. `None` for a batch that says nothing of line sizes (columnar
/// rows, no lines).
pub(super) fn expected_held(input: u64, batch: &Batch, docs: u64, held: u64) -> Option<usize> {
    // Pieces of an over-long line are one line, all their bytes counted.
    let lines = batch.lines.iter().filter(|l| !l.part.continues()).count() as u64;
    let bytes: u64 = batch.lines.iter().map(|l| (l.end - l.start) as u64).sum();
    if batch.rows.is_some() || lines == 0 || bytes == 0 || docs == 0 {
        return None;
    }
    let expected_docs = u128::from(input) * u128::from(lines) / u128::from(bytes);
    let expected = expected_docs * u128::from(held.min(docs)) / u128::from(docs);
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
    fn the_estimate_scales_the_first_batch_by_the_input_size() {
        // Ten lines of ten bytes (newline included).
        let batch = first_batch(&b"123456789\n".repeat(10));
        assert_eq!(batch.lines.len(), 10);
        // A 1,000-byte input holds 100 such lines; the window kept 8 of the batch's 10.
        assert_eq!(expected_held(1000, &batch, 10, 10), Some(100));
        assert_eq!(expected_held(1000, &batch, 10, 8), Some(80));
        assert_eq!(expected_held(0, &batch, 10, 8), Some(0));
        // Nothing decided, nothing known.
        assert_eq!(expected_held(1000, &batch, 0, 0), None);
        // A huge input does not overflow.
        assert!(expected_held(u64::MAX, &batch, 10, 10).is_some());
    }
}
