//! Reading: files or stdin → batches of lines; one line → document text and id.
//!
//! [`LineReader`] reads its inputs in large blocks and splits them with memchr, handing out
//! [`Batch`]es of whole lines (about [`BATCH_BYTES`] each) that own their bytes, so a batch can
//! cross threads and the writer can later copy every line out unchanged. Lines end with LF; a
//! CR before the LF is kept in the output bytes but not in the document text. A last line with
//! no LF is a line too.
//!
//! [`Extractor`] ([`extract`]) turns one line into its text and [`DocId`] according to the
//! input format; a line that cannot be a document yields a [`BadLine`] reason instead (never a
//! panic), which [`BadLines`] ([`bad_lines`]) counts and reports as `--on-bad-line` says.

pub mod bad_lines;
pub mod columnar;
pub mod decompress;
pub mod extract;
pub mod fields;
mod lines;
mod live;
pub mod settings;

pub use bad_lines::BadLines;
pub use extract::{BadLine, DocId, Extractor, raw_id, write_json_string};
pub use lines::LineReader;

use crate::error::{Error, Result};
use decompress::Decompressing;
pub(crate) use live::Halt;
use live::Live;
use settings::{Decompress, InputFormat};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Target size of a batch in bytes: large enough to amortise channel traffic and the
/// sequencer's per-batch work (handing work to its helpers and back), small enough to keep every
/// worker busy (the sizes tried are in docs/performance.md).
pub(crate) const BATCH_BYTES: usize = 1 << 20;
/// Most lines in a batch: a signed document costs about 1 KiB whatever its length (its
/// signature, band keys and shingles), so a megabyte of short lines would hold tens of
/// megabytes in flight; with this bound a batch holds at most about 4 MiB with its text,
/// which the memory budget counts on (`MemorySettings::batches_in_flight`).
pub(crate) const MAX_BATCH_LINES: usize = 2048;
/// Size of one read from an input.
const READ_BYTES: usize = 256 << 10;
/// Size of a new batch buffer: a batch ends at the first line end past [`BATCH_BYTES`], so
/// its last read ends before this, unless a line is longer (then the buffer grows).
const BUFFER_BYTES: usize = BATCH_BYTES + READ_BYTES;

/// One line of a batch.
#[derive(Clone, Copy, Debug)]
pub struct LineSpan {
    /// Offset of the line in [`Batch::data`].
    pub start: usize,
    /// End of the content, before `\r\n` or `\n`.
    pub content_end: usize,
    /// End of the line including its terminator.
    pub end: usize,
    /// 1-based line number over all inputs (the default document id).
    pub number: u64,
    /// Index of the input the line came from.
    pub input: u32,
    /// 1-based line number within that input.
    pub input_line: u64,
    /// Whole, or a piece of a line longer than the reader's limit.
    pub part: Part,
}

/// What a [`LineSpan`] holds of its line. A line longer than the limit of
/// [`LineReader::cutting_lines_over`] is handed on in pieces as it is read (all with the
/// line's numbers), so that memory stays bounded by the limit however long it is: the first
/// piece is longer than the limit and stands for the line (a bad line); the others are only
/// written through (`--on-bad-line pass`) or dropped. A line whose end is read with the byte
/// that takes it over the limit is whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The whole line.
    Whole,
    /// The first piece of an over-long line.
    First,
    /// A later piece of an over-long line, not the last.
    Rest,
    /// The last piece of an over-long line (with its terminator, if it has one).
    Last,
}

impl Part {
    /// True for the pieces after the first, which only follow their line.
    pub fn continues(self) -> bool {
        matches!(self, Part::Rest | Part::Last)
    }
}

/// Non-empty lines `--format auto` looks at before it decides (fewer at the end of input).
pub(crate) const AUTO_LINES: u64 = 32;

/// Whole lines read together, with their bytes.
#[derive(Debug)]
pub struct Batch {
    /// The raw bytes of all lines, terminators included, then unused bytes (the buffer is
    /// reused whole: see [`LineReader::recycling`]).
    pub data: Vec<u8>,
    /// The lines, in input order.
    pub lines: Vec<LineSpan>,
    /// The input format resolved for these lines (`Auto` never appears here).
    pub format: InputFormat,
    /// What `--format auto` decided, when the lines it looked at did not agree (said once,
    /// on the batch that decided).
    pub note: Option<String>,
    /// The input had nothing more to read when the batch was handed out (a live pipe between
    /// two documents): what is decided up to it should reach the output now.
    pub idle: bool,
    /// The documents' ids are their lines' `id` field ([`LineReader::auto_ids`] found one in
    /// each of the first lines), not line numbers.
    pub ids_from_field: bool,
    /// This batch decided [`Batch::ids_from_field`] (said once on stderr).
    pub ids_decided: bool,
    /// Why lines that have an `id` field are numbered instead, on the batch that decided
    /// it (one of its first lines holds no usable id: [`fields::ids_in`]).
    pub unusable_id: Option<String>,
    /// Rows of a columnar input ([`columnar`]): their ids, bad rows and, when the output
    /// writes rows, the rows themselves. `None` for lines.
    pub rows: Option<Box<columnar::Rows>>,
    /// Its place among the run's batches, from 0 (set by the pipeline's reader thread).
    pub ordinal: u64,
}

impl Batch {
    /// The content of line `i`, without its terminator.
    pub fn content(&self, i: usize) -> &[u8] {
        let l = &self.lines[i];
        &self.data[l.start..l.content_end]
    }

    /// The raw bytes of line `i` including its terminator (exactly as read).
    pub fn raw(&self, i: usize) -> &[u8] {
        let l = &self.lines[i];
        &self.data[l.start..l.end]
    }
}

/// Where a run's documents come from.
pub enum Source {
    /// Lines of files or streams, cut into batches as they are read ([`LineReader`]).
    Lines(Vec<Input>),
    /// Batches a program made of the texts it holds (the Python module), one document per
    /// [`LineSpan`] of [`InputFormat::Text`], numbered in order, from one input named
    /// [`TEXTS`]: nothing is encoded as lines to be parsed again.
    Batches(Box<dyn Iterator<Item = Batch> + Send>),
}

impl From<Vec<Input>> for Source {
    fn from(inputs: Vec<Input>) -> Source {
        Source::Lines(inputs)
    }
}

/// The name [`Source::Batches`]' documents are reported under (`texts:LINE`).
pub const TEXTS: &str = "texts";

/// A [`Source`] being read.
pub(crate) enum Feed {
    /// Its lines, by a reader.
    Lines(Box<LineReader>),
    /// Its batches, and the bytes handed out so far.
    Batches(Box<dyn Iterator<Item = Batch> + Send>, u64),
}

impl Feed {
    /// The names of the inputs, indexed by [`LineSpan::input`].
    pub fn input_names(&self) -> Vec<String> {
        match self {
            Feed::Lines(reader) => reader.input_names(),
            Feed::Batches(..) => vec![TEXTS.to_string()],
        }
    }

    /// The next batch, or `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<Batch>> {
        match self {
            Feed::Lines(reader) => reader.next_batch(),
            Feed::Batches(batches, bytes) => Ok(batches.next().inspect(|b| {
                *bytes += b.lines.last().map_or(0, |l| l.end) as u64;
            })),
        }
    }

    /// Bytes read (or handed out) so far.
    pub fn bytes_read(&self) -> u64 {
        match self {
            Feed::Lines(reader) => reader.bytes_read(),
            Feed::Batches(_, bytes) => *bytes,
        }
    }
}

/// Builds [`Source::Batches`] out of texts: each text is one document, numbered from 1.
#[derive(Debug, Default)]
pub struct TextBatcher {
    batch: Option<Batch>,
    number: u64,
}

impl TextBatcher {
    /// Adds a text; returns the batch before it when the text would take that past
    /// [`BATCH_BYTES`] (so a batch's buffer is never grown: a text longer than that is a
    /// batch of its own).
    pub fn push(&mut self, text: &str) -> Option<Batch> {
        let full = match &self.batch {
            Some(b)
                if b.data.len() + text.len() > BATCH_BYTES || b.lines.len() >= MAX_BATCH_LINES =>
            {
                self.batch.take()
            }
            _ => None,
        };
        let batch = self.batch.get_or_insert_with(|| Batch {
            data: Vec::with_capacity(BATCH_BYTES.max(text.len())),
            lines: Vec::new(),
            format: InputFormat::Text,
            note: None,
            idle: false,
            ids_from_field: false,
            ids_decided: false,
            unusable_id: None,
            rows: None,
            ordinal: 0,
        });
        self.number += 1;
        let start = batch.data.len();
        batch.data.extend_from_slice(text.as_bytes());
        let end = batch.data.len();
        batch.lines.push(LineSpan {
            start,
            content_end: end,
            end,
            number: self.number,
            input: 0,
            input_line: self.number,
            part: Part::Whole,
        });
        full
    }

    /// The last batch, if any text is left.
    pub fn finish(&mut self) -> Option<Batch> {
        self.batch.take()
    }

    /// Texts added so far.
    pub fn texts(&self) -> u64 {
        self.number
    }
}

/// An opened input and its display name.
pub struct Input {
    /// `-` or the path as given.
    pub name: String,
    reader: Box<dyn Read + Send>,
    /// The descriptor of an input that can run dry (standard input, a FIFO): polled to
    /// tell a live stream waiting for its next line ([`Input::would_wait`]).
    live: Option<i32>,
    /// A regular file's own handle, for inputs read by position (Parquet: [`columnar`]).
    file: Option<File>,
    /// What ends a live input's wait for data when the run stops ([`Input::halt`]).
    halt: Option<Halt>,
}

impl Input {
    /// Opens `path`; `-` is standard input. Compressed data (gzip, zstd, bzip2, xz) is
    /// recognised by its first bytes and decompressed ([`decompress`]).
    /// `decompress` says how (`--decompress`).
    pub fn open(path: &Path, decompress: Decompress) -> Result<Input> {
        if path.as_os_str() == "-" {
            // Descriptor 0 read through a copy of its own, not through `io::stdin()`, whose
            // buffer would hold data that polling the descriptor does not see.
            use std::os::fd::{AsFd, AsRawFd};
            let (reader, halt): (Box<dyn Read + Send>, _) =
                match io::stdin().as_fd().try_clone_to_owned() {
                    Ok(fd) => {
                        let file = File::from(fd);
                        let halt = Halt::default();
                        let raw = file.as_raw_fd();
                        (Box::new(Live::new(file, raw, halt.clone())), Some(halt))
                    }
                    Err(_) => (Box::new(io::stdin()), None),
                };
            return Ok(Input {
                name: "-".to_string(),
                reader: Box::new(Decompressing::with(reader, decompress)),
                live: Some(0),
                file: None,
                halt,
            });
        }
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(format!("opening {name}"), e))?;
        let live = {
            use std::os::fd::AsRawFd;
            use std::os::unix::fs::FileTypeExt;
            let fifo = file.metadata().is_ok_and(|m| m.file_type().is_fifo());
            fifo.then(|| file.as_raw_fd())
        };
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        let own = match regular {
            true => file.try_clone().ok(),
            false => None,
        };
        let (reader, halt): (Box<dyn Read + Send>, _) = match live {
            Some(fd) => {
                let halt = Halt::default();
                (Box::new(Live::new(file, fd, halt.clone())), Some(halt))
            }
            None => (Box::new(file), None),
        };
        Ok(Input {
            name,
            reader: Box::new(Decompressing::with(reader, decompress)),
            live,
            file: own,
            halt,
        })
    }

    /// Whether a read would wait now: a live input (standard input, a FIFO) with no data
    /// ready. Files never wait.
    pub(crate) fn would_wait(&self) -> bool {
        let Some(fd) = self.live else {
            return false;
        };
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, living through the call; a zero timeout returns at once.
        unsafe { libc::poll(&mut poll, 1, 0) == 0 }
    }

    /// What ends this input's wait for data when the run stops: a live input's (standard
    /// input, a FIFO), which may wait for as long as the writer upstream sends nothing.
    pub(crate) fn halt(&self) -> Option<Halt> {
        self.halt.clone()
    }

    /// Wraps any reader, read as it is (for tests and library use; wrap it in a
    /// [`Decompressing`] for compressed data).
    pub fn from_reader(name: impl Into<String>, reader: Box<dyn Read + Send>) -> Input {
        Input {
            name: name.into(),
            reader,
            live: None,
            file: None,
            halt: None,
        }
    }

    /// Reads up to `n` whole lines (the last may lack its LF at end of input) and returns
    /// them, how many there were, and an input that yields those bytes again followed by the
    /// rest.
    pub fn take_lines(self, n: usize) -> Result<(Vec<u8>, usize, Input)> {
        use std::io::BufRead;
        let mut reader = io::BufReader::with_capacity(256 << 10, self.reader);
        let mut prefix = Vec::new();
        let mut lines = 0;
        while lines < n {
            let before = prefix.len();
            reader
                .read_until(b'\n', &mut prefix)
                .map_err(|e| Error::io(format!("reading {}", self.name), e))?;
            if prefix.len() == before {
                break;
            }
            lines += 1;
        }
        let replay = Input {
            name: self.name,
            reader: Box::new(io::Cursor::new(prefix.clone()).chain(reader)),
            live: self.live,
            file: self.file,
            halt: self.halt,
        };
        Ok((prefix, lines, replay))
    }

    /// Opens every path (standard input when `paths` is empty) before anything is read, so
    /// a missing file fails before any output.
    pub fn open_all(paths: &[PathBuf], decompress: Decompress) -> Result<Vec<Input>> {
        if paths.is_empty() {
            return Ok(vec![Input::open(Path::new("-"), decompress)?]);
        }
        paths.iter().map(|p| Input::open(p, decompress)).collect()
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_batches_hold_one_document_per_text_and_never_grow() {
        let mut batcher = TextBatcher::default();
        let big = "x".repeat(BATCH_BYTES / 2 + 1);
        let mut batches = Vec::new();
        for text in ["one\ntwo", &big, "", &big, "last"] {
            batches.extend(batcher.push(text));
        }
        batches.extend(batcher.finish());
        assert_eq!(batcher.texts(), 5);
        let sizes: Vec<usize> = batches.iter().map(|b| b.lines.len()).collect();
        assert_eq!(sizes, vec![3, 2], "the second big text starts a batch");
        assert!(batches.iter().all(|b| b.data.capacity() == BATCH_BYTES));
        assert_eq!(batches[0].content(0), b"one\ntwo");
        let numbers: Vec<u64> = batches
            .iter()
            .flat_map(|b| b.lines.iter().map(|l| l.number))
            .collect();
        assert_eq!(numbers, vec![1, 2, 3, 4, 5]);
        assert_eq!(batches[1].content(1), b"last");
    }

    #[test]
    fn recycled_buffers_give_the_same_lines() {
        // Lines of every length up to past a buffer, in two inputs, the second without a final
        // LF; the recycled buffers are full of stale bytes (newlines among them).
        let mut rng = crate::hash::test_rng(3);
        let mut parts: Vec<Vec<u8>> = vec![Vec::new(), Vec::new()];
        for (k, part) in parts.iter_mut().enumerate() {
            for i in 0..400 {
                let len = if i % 97 == 5 {
                    BUFFER_BYTES + 123
                } else {
                    rng(3000) as usize
                };
                part.extend((0..len).map(|j| b'a' + ((i + j + k) % 26) as u8));
                part.push(b'\n');
            }
        }
        parts[1].extend_from_slice(b"last, unterminated");
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let expected = all_lines(&mut reader(&parts, InputFormat::Text));
        let (tx, rx) = crossbeam_channel::bounded(4);
        let mut r = reader(&parts, InputFormat::Text).recycling(rx);
        let mut got = Vec::new();
        let mut batches = 0;
        while let Some(b) = r.next_batch().unwrap() {
            batches += 1;
            push_lines(&b, &mut got);
            let mut stale = b.data;
            stale.fill(b'\n');
            tx.send(stale).unwrap();
        }
        assert!(batches > 3);
        assert_eq!(got.len(), 801);
        assert_eq!(got, expected);
    }

    fn reader(parts: &[&[u8]], format: InputFormat) -> LineReader {
        let inputs = parts
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Input::from_reader(format!("in{i}"), Box::new(io::Cursor::new(p.to_vec())))
            })
            .collect();
        LineReader::new(inputs, format)
    }

    /// (content, raw bytes, number, input index, line within input)
    type Line = (Vec<u8>, Vec<u8>, u64, u32, u64);

    fn push_lines(b: &Batch, out: &mut Vec<Line>) {
        for (i, l) in b.lines.iter().enumerate() {
            out.push((
                b.content(i).to_vec(),
                b.raw(i).to_vec(),
                l.number,
                l.input,
                l.input_line,
            ));
        }
    }

    fn all_lines(r: &mut LineReader) -> Vec<Line> {
        let mut out = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            push_lines(&b, &mut out);
        }
        out
    }

    #[test]
    fn splits_lines_keeping_raw_bytes() {
        let mut r = reader(&[b"a\r\nb\n\nlast", b"x\n"], InputFormat::Text);
        let lines = all_lines(&mut r);
        let contents: Vec<&[u8]> = lines.iter().map(|l| l.0.as_slice()).collect();
        assert_eq!(contents, vec![&b"a"[..], b"b", b"", b"last", b"x"]);
        assert_eq!(lines[0].1, b"a\r\n");
        assert_eq!(lines[3].1, b"last");
        assert_eq!(lines[4].2, 5);
        assert_eq!((lines[4].3, lines[4].4), (1, 1));
    }

    #[test]
    fn long_inputs_cross_batches_without_loss() {
        let mut data = Vec::new();
        for i in 0..100_000 {
            data.extend_from_slice(format!("line number {i}\n").as_bytes());
        }
        let mut r = reader(&[&data], InputFormat::Text);
        let mut n = 0;
        let mut joined = Vec::new();
        let mut batches = 0;
        while let Some(b) = r.next_batch().unwrap() {
            batches += 1;
            for i in 0..b.lines.len() {
                joined.extend_from_slice(b.raw(i));
                n += 1;
            }
        }
        assert_eq!(n, 100_000);
        assert!(batches > 1);
        assert_eq!(joined, data);
    }

    #[test]
    fn over_long_lines_come_in_pieces_with_their_numbers() {
        let long = vec![b'x'; 3 * READ_BYTES + 17];
        let first = [b"a\n".as_slice(), &long, b"\nb\n", &long].concat();
        let second = [long.as_slice(), b"\r\nc"].concat();
        let mut r = reader(&[&first, &second], InputFormat::Text).cutting_lines_over(1000);
        let mut pieces = Vec::new();
        let mut bytes = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            for (i, l) in b.lines.iter().enumerate() {
                assert!(
                    b.raw(i).len() <= BUFFER_BYTES,
                    "a piece is at most a buffer"
                );
                bytes.extend_from_slice(b.raw(i));
                pieces.push((l.part, l.number, l.input, l.input_line));
            }
        }
        assert_eq!(
            bytes,
            [first.as_slice(), &second].concat(),
            "every byte, in order"
        );
        // Consecutive pieces of one line collapse into (first part, last part, numbers).
        let mut lines: Vec<(Part, Part, u64, u32, u64)> = Vec::new();
        for (part, number, input, input_line) in pieces {
            match lines.last_mut() {
                Some(last) if part.continues() => {
                    assert_eq!((last.2, last.3, last.4), (number, input, input_line));
                    last.1 = part;
                }
                _ => lines.push((part, part, number, input, input_line)),
            }
        }
        use Part::{First, Last, Whole};
        assert_eq!(
            lines,
            vec![
                (Whole, Whole, 1, 0, 1),
                (First, Last, 2, 0, 2),
                (Whole, Whole, 3, 0, 3),
                // The first input ends inside a long line: it ends there.
                (First, Last, 4, 0, 4),
                (First, Last, 5, 1, 1),
                (Whole, Whole, 6, 1, 2),
            ]
        );
        // Without a limit the same lines come whole.
        let mut whole = reader(&[&first, &second], InputFormat::Text);
        assert_eq!(all_lines(&mut whole).len(), 6);
    }

    #[test]
    fn a_line_longer_than_a_batch_stays_whole() {
        let big = vec![b'x'; 3 * BATCH_BYTES];
        let mut data = big.clone();
        data.extend_from_slice(b"\nsmall\n");
        let mut r = reader(&[&data], InputFormat::Text);
        let lines = all_lines(&mut r);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].0, big);
    }

    #[test]
    fn auto_format_is_resolved_from_first_non_empty_line() {
        let mut r = reader(&[b"\n  {\"text\":\"a\"}\n"], InputFormat::Auto);
        let b = r.next_batch().unwrap().unwrap();
        assert_eq!(b.format, InputFormat::Jsonl);
        let mut r = reader(&[b"plain\n{\"text\":1}\n"], InputFormat::Auto);
        assert_eq!(r.next_batch().unwrap().unwrap().format, InputFormat::Text);
    }

    #[test]
    fn auto_format_is_decided_by_most_lines_not_the_first() {
        let mut r = reader(
            &[b"[]\n{\"text\":\"a\"}\n{\"text\":\"b\"}\n"],
            InputFormat::Auto,
        );
        let b = r.next_batch().unwrap().unwrap();
        assert_eq!(b.format, InputFormat::Jsonl);
        assert!(b.note.unwrap().contains("2 of the first 3"));
        let mut r = reader(&[b"{\"text\":\"a\"}\n"], InputFormat::Auto);
        assert_eq!(
            r.next_batch().unwrap().unwrap().note,
            None,
            "unanimous: nothing to say"
        );
    }
}
