//! Writing results: input lines unchanged, annotated JSON lines, or pairs.
//!
//! One [`Results`] owns stdout (one writer thread, so writes never tear). It is block-buffered
//! unless `--line-buffered` asks for a flush after every batch, and a buffer goes out only up
//! to its last whole line ([`LineBuffer`]), so that a run stopped at any point (out of memory:
//! [`crate::guard`]) leaves output that ends at a line boundary. Every write error is returned,
//! and a closed pipe surfaces as `BrokenPipe`, which the binary turns into a quiet exit.

mod encoder;
mod row_groups;
mod sink;
pub mod table;
mod writer_thread;

pub(crate) use writer_thread::WriterThread;

use crate::config::{InputFormat, PairsFormat};
use crate::error::{Error, Result};
use crate::input::Batch;
use crate::input::{DocId, write_json_string};
use std::io::Write;
use table::TableWriter;

/// What the sequencer decided about one document, as written by `--annotate`.
#[derive(Clone, Copy, Debug)]
pub struct Verdict<'a> {
    /// The earlier document this one duplicates, if any.
    pub dup_of: Option<&'a DocId>,
    /// Its similarity (1.0 for exact copies).
    pub similarity: f64,
    /// True when the normalised texts are identical.
    pub copy: bool,
    /// With `--against`: whether `dup_of` is a reference document (`None`: no reference, and
    /// no `reference` member is written).
    pub reference: Option<bool>,
}

impl Verdict<'_> {
    /// The verdict of a document that duplicates nothing; `reference` as in
    /// [`Verdict::reference`].
    pub(crate) fn new_document(reference: Option<bool>) -> Self {
        Verdict {
            dup_of: None,
            similarity: 0.0,
            copy: false,
            reference,
        }
    }
}

/// Bytes of lines buffered before they are written.
const LINE_BUFFER: usize = 256 << 10;

/// A write buffer that hands its writer whole lines only (a line longer than the buffer
/// goes out in pieces: nothing else can hold it), each write inside the out-of-memory gate
/// ([`crate::guard::begin_write`]).
pub struct LineBuffer<W: Write> {
    /// `None` only once [`LineBuffer::into_inner`] took it.
    inner: Option<W>,
    buf: Vec<u8>,
    capacity: usize,
    /// Whether the last byte written was not a line's end (a write stopped part way).
    mid_line: bool,
}

impl<W: Write> LineBuffer<W> {
    /// A buffer of `capacity` bytes in front of `inner`.
    pub fn new(capacity: usize, inner: W) -> LineBuffer<W> {
        LineBuffer {
            inner: Some(inner),
            mid_line: false,
            buf: Vec::with_capacity(capacity),
            capacity,
        }
    }

    /// Writes `self.buf[..end]` and keeps what was not written (all the rest on success;
    /// on a failure or a stop, from the first byte not written: [`LineBuffer::take_pending`]).
    fn send(&mut self, end: usize) -> std::io::Result<()> {
        let complete = crate::guard::complete_up_to(end == self.buf.len());
        let (done, result) = match &mut self.inner {
            Some(inner) => write_gated(inner, &self.buf[..end], complete),
            None => (end, Ok(())),
        };
        if done > 0 {
            self.mid_line = self.buf[done - 1] != b'\n';
        }
        self.buf.drain(..done);
        result
    }

    /// The bytes not written yet (taken: dropping the buffer writes nothing more).
    pub(crate) fn take_pending(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// Whether what was written ends part way through a line (a write to a pipe stopped
    /// at a `PIPE_BUF` piece): the line's rest is then the first of the pending bytes.
    pub(crate) fn ends_mid_line(&self) -> bool {
        self.mid_line
    }
}

/// Writes `bytes` (whole lines, but for an over-long line's pieces) inside the out-of-memory
/// gate ([`crate::guard::begin_write`]), which says the output is then complete up to input
/// line `complete`; returns how many bytes went out, and the error that stopped the rest.
fn write_gated<W: Write>(
    inner: &mut W,
    bytes: &[u8],
    complete: u64,
) -> (usize, std::io::Result<()>) {
    if !crate::guard::begin_write() {
        // Memory ran out on another thread, which is ending the process.
        return (0, Err(std::io::ErrorKind::OutOfMemory.into()));
    }
    let mut done = 0;
    let result = loop {
        if done == bytes.len() {
            break Ok(());
        }
        match inner.write(&bytes[done..]) {
            Ok(0) => break Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    crate::guard::end_write(result.is_ok().then_some(complete));
    (done, result)
}

impl<W: Write> Write for LineBuffer<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= self.capacity {
            match memchr::memrchr(b'\n', &self.buf) {
                Some(last) => self.send(last + 1)?,
                None if self.buf.len() >= 4 * self.capacity => self.send(self.buf.len())?,
                None => {}
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.send(self.buf.len())?;
        }
        match &mut self.inner {
            Some(inner) => inner.flush(),
            None => Ok(()),
        }
    }
}

impl<W: Write> LineBuffer<W> {
    /// Flushes and gives back the writer (the tests read what was written).
    #[cfg(test)]
    pub fn into_inner(mut self) -> std::io::Result<W> {
        self.flush()?;
        Ok(self.inner.take().expect("taken once"))
    }
}

impl<W: Write> Drop for LineBuffer<W> {
    fn drop(&mut self) {
        // As BufWriter does: what is buffered goes out, errors are for explicit flushes.
        let _ = self.flush();
    }
}

/// Where a [`Results`]' lines go: a buffer written on this thread, or the buffer of a
/// writer thread ([`WriterThread`]).
enum Lines<W: Write> {
    Here(LineBuffer<W>),
    Beside(WriterThread),
}

impl<W: Write> Lines<W> {
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Lines::Here(buffer) => buffer.write_all(bytes),
            Lines::Beside(writer) => writer.write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Lines::Here(buffer) => buffer.flush(),
            Lines::Beside(writer) => writer.flush(),
        }
    }

    /// Flushes and gives back the writer written here (the tests read what was written).
    #[cfg(test)]
    fn into_inner(self) -> std::io::Result<W> {
        match self {
            Lines::Here(buffer) => buffer.into_inner(),
            Lines::Beside(_) => Err(std::io::Error::other("written by a thread")),
        }
    }
}

/// Where a run's results go: a writer, written on the deciding thread, or a thread that
/// writes it ([`WriterThread`]).
pub(crate) enum Target<W> {
    Here(W),
    Beside(WriterThread),
}

impl<W: Write> Target<W> {
    /// `w` written by a thread of `scope` (in hand-overs of the line buffer's size).
    pub(crate) fn beside<'scope>(scope: &'scope std::thread::Scope<'scope, '_>, w: W) -> Target<W>
    where
        W: Send + 'scope,
    {
        Target::Beside(WriterThread::start(scope, w, LINE_BUFFER))
    }
}

/// The buffered result writer.
pub struct Results<W: Write> {
    out: Lines<W>,
    scratch: Vec<u8>,
    pairs_format: PairsFormat,
    /// Rows of a columnar input written back as a table ([`table`]), instead of lines.
    table: Option<TableWriter>,
}

impl<W: Write> Results<W> {
    /// Wraps `w` in a 256 KiB buffer.
    pub fn new(w: W, pairs_format: PairsFormat) -> Results<W> {
        Results {
            out: Lines::Here(LineBuffer::new(LINE_BUFFER, w)),
            scratch: Vec::with_capacity(4096),
            pairs_format,
            table: None,
        }
    }

    /// Results written to `target`: a writer buffered here ([`Results::new`]) or a writer
    /// thread's buffer ([`Target::beside`]).
    pub(crate) fn of(target: Target<W>, pairs_format: PairsFormat) -> Results<W> {
        match target {
            Target::Here(w) => Results::new(w, pairs_format),
            Target::Beside(writer) => Results {
                out: Lines::Beside(writer),
                scratch: Vec::with_capacity(4096),
                pairs_format,
                table: None,
            },
        }
    }

    /// Writes the rows of columnar inputs with `table` instead of lines.
    pub fn with_table(mut self, table: TableWriter) -> Results<W> {
        self.table = Some(table);
        self
    }

    /// Whether rows are written as a table.
    pub(crate) fn is_table(&self) -> bool {
        self.table.is_some()
    }

    /// Records that what is written next is of input line `line`, so that a failed write
    /// can say how far the output is complete ([`Results::written_so_far`]). The filter's
    /// sequencer does this for every document; a command that writes lines of its own (the
    /// survivors of `clusters --keep`, the pairs of `verify-pairs`) calls it as it reads.
    pub fn at_line(&mut self, line: u64) {
        crate::guard::set_line(line);
    }

    /// `e`, a failed write's error ("writing output"), with how far the output got: the
    /// input line `line` being written and [`Results::how_complete`] for the output written
    /// to `path` (standard output when `None`). A closed pipe and other errors are left as
    /// they are.
    pub fn written_so_far(&self, e: Error, line: u64, path: Option<&std::path::Path>) -> Error {
        match e {
            Error::Io { context, source }
                if context == "writing output"
                    && source.kind() != std::io::ErrorKind::BrokenPipe =>
            {
                let what = self.how_complete(path);
                Error::io(
                    format!("writing output at input line {line} ({what})"),
                    source,
                )
            }
            e => e,
        }
    }

    /// After a failed write, how complete the output is, for its message: lines end at a
    /// whole line (the input line they are complete up to); a table file written to `path`
    /// is not left half-written (its temporary is removed, the target left as it was).
    pub(crate) fn how_complete(&self, path: Option<&std::path::Path>) -> String {
        match (self.is_table(), path) {
            (false, _) => format!(
                "the output ends at a whole line and is complete up to input line {}",
                crate::guard::written_line()
            ),
            (true, Some(path)) => format!(
                "the table is not written: {} is left as it was",
                path.display()
            ),
            (true, None) => "the table on standard output is cut short".to_string(),
        }
    }

    /// Writes document `i` of `batch` as it was read: its line, or its row (at the batch's
    /// end, [`Results::end_batch`]).
    pub fn document(&mut self, batch: &Batch, i: usize) -> Result<()> {
        match self.row_table(batch)? {
            Some(table) => {
                table.row(i, batch.lines.len(), None);
                Ok(())
            }
            None => {
                // With a writer thread, the line is copied there at the batch's end.
                if let Lines::Beside(writer) = &mut self.out {
                    let line = &batch.lines[i];
                    let kept = (writer.keep_line((line.start, line.end)))
                        .map_err(|e| Error::io("writing output", e))?;
                    if kept {
                        return Ok(());
                    }
                }
                self.line(batch.raw(i))
            }
        }
    }

    /// Copies the lines of `batch` that wait for its end ([`Results::document`]) into the
    /// output, before something else is written or when the batch is left part way.
    pub(crate) fn settle(&mut self, batch: &Batch) {
        if let Lines::Beside(writer) = &mut self.out {
            writer.settle(&batch.data);
        }
    }

    /// The end of the batch whose buffer is `data`: its lines that wait go to the writer
    /// thread with it. Gives back the buffers free to read into again.
    pub(crate) fn hand_over_batch(&mut self, data: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        let Lines::Beside(writer) = &mut self.out else {
            return Ok(vec![data]);
        };
        let back = writer.hand_over_kept(data);
        let back = back.map_err(|e| Error::io("writing output", e))?;
        Ok(back.into_iter().chain(writer.used_buffers()).collect())
    }

    /// Writes document `i` of `batch` with its verdict ([`Results::annotated`]; a row gets
    /// the verdict's columns).
    pub(crate) fn annotated_document(
        &mut self,
        batch: &Batch,
        i: usize,
        verdict: Verdict<'_>,
    ) -> Result<()> {
        match self.row_table(batch)? {
            Some(table) => {
                table.row(i, batch.lines.len(), Some(verdict));
                Ok(())
            }
            None => {
                self.settle(batch);
                self.annotated(batch.content(i), batch.format, verdict)
            }
        }
    }

    /// The table writer for `batch`'s rows, if the output is a table; an error for lines
    /// when it is (a table's rows come from a columnar input).
    fn row_table(&mut self, batch: &Batch) -> Result<Option<&mut TableWriter>> {
        let Some(table) = &mut self.table else {
            return Ok(None);
        };
        match batch.rows.as_ref().and_then(|r| r.table.as_ref()) {
            Some(_) => Ok(Some(table)),
            None => Err(Error::Usage(
                "a table output (Parquet, Arrow, or rows as JSON) takes its rows from Parquet \
             or Arrow inputs, and this input is lines: give --output-format lines, or \
             convert the input"
                    .into(),
            )),
        }
    }

    /// The end of `batch`: its rows marked for writing go out as a table.
    pub fn end_batch(&mut self, batch: &Batch) -> Result<()> {
        if let (Some(table), Some(rows)) = (&mut self.table, &batch.rows)
            && let Some(t) = &rows.table
        {
            table.end_batch(t, rows.string_ids)?;
        }
        Ok(())
    }

    /// The end of the output: a table's footer (a file renamed over its target).
    pub fn finish(&mut self) -> Result<()> {
        self.flush()?;
        match &mut self.table {
            Some(table) => table.finish(None),
            None => Ok(()),
        }
    }

    /// CPU nanoseconds a table's encoder thread spent (0 for lines; known once it ended).
    pub(crate) fn encoder_cpu(&self) -> u64 {
        self.table.as_ref().map_or(0, TableWriter::encoder_cpu)
    }

    /// A run that failed: a table file is removed, a table on standard output gets its
    /// footer over the rows written ([`TableWriter::abandon`]).
    pub fn abandon(&mut self) {
        if let Some(table) = &mut self.table {
            table.abandon();
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io("writing output", e))
    }

    /// Writes a piece of an over-long input line exactly as read ([`crate::input::Part`]).
    pub fn piece(&mut self, raw: &[u8]) -> Result<()> {
        self.put(raw)
    }

    /// Writes an input line exactly as read; a last line without LF gets one.
    pub fn line(&mut self, raw: &[u8]) -> Result<()> {
        self.put(raw)?;
        if raw.last() != Some(&b'\n') {
            self.put(b"\n")?;
        }
        Ok(())
    }

    /// Writes a document with its `neardup` verdict: JSON objects get the member appended
    /// (the original members keep their bytes and order); plain text becomes
    /// `{"text": …, "neardup": …}`.
    pub fn annotated(
        &mut self,
        content: &[u8],
        format: InputFormat,
        verdict: Verdict<'_>,
    ) -> Result<()> {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        let trimmed = trim_ascii_end(content);
        match format {
            InputFormat::Jsonl if trimmed.last() == Some(&b'}') => {
                let body = &trimmed[..trimmed.len() - 1];
                s.extend_from_slice(body);
                let open = body.iter().position(|&b| b == b'{').unwrap_or(0);
                if !body[open + 1..].iter().all(u8::is_ascii_whitespace) {
                    s.push(b',');
                }
            }
            _ => {
                s.extend_from_slice(b"{\"text\":");
                write_json_string(&String::from_utf8_lossy(content), &mut s);
                s.push(b',');
            }
        }
        s.extend_from_slice(b"\"neardup\":{\"dup_of\":");
        match verdict.dup_of {
            Some(id) => id.write_json(&mut s),
            None => s.extend_from_slice(b"null"),
        }
        s.extend_from_slice(b",\"similarity\":");
        if verdict.dup_of.is_some() {
            write_similarity(verdict.similarity, &mut s);
        } else {
            s.extend_from_slice(b"null");
        }
        s.extend_from_slice(if verdict.copy {
            b",\"exact\":true"
        } else {
            b",\"exact\":false"
        });
        match verdict.reference {
            Some(true) => s.extend_from_slice(b",\"reference\":true"),
            Some(false) => s.extend_from_slice(b",\"reference\":false"),
            None => {}
        }
        s.extend_from_slice(b"}}\n");
        let result = self.put(&s);
        self.scratch = s;
        result
    }

    /// `neardup sign`: a document's band keys as `ID<TAB>BAND<TAB>KEY` lines (hexadecimal
    /// keys), or, in JSONL, `{"id":…,"line":N,"bands":["…",…],"signature":[…]}` (signature
    /// only when given). The line number (1-based over all inputs) lets a distributed job
    /// put a document back in its place when the id is a field of the document's own.
    pub fn signed(
        &mut self,
        id: &DocId,
        line: u64,
        bands: &[u64],
        signature: Option<&[u32]>,
    ) -> Result<()> {
        use std::io::Write as _;
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        match self.pairs_format {
            PairsFormat::Tsv => {
                for (band, key) in bands.iter().enumerate() {
                    let _ = writeln!(s, "{id}\t{band}\t{key:016x}");
                }
                if let Some(values) = signature {
                    let _ = write!(s, "{id}\tsignature\t");
                    for (i, v) in values.iter().enumerate() {
                        let _ = write!(s, "{}{v}", if i == 0 { "" } else { "," });
                    }
                    s.push(b'\n');
                }
            }
            PairsFormat::Jsonl => {
                s.extend_from_slice(b"{\"id\":");
                id.write_json(&mut s);
                let _ = write!(s, ",\"line\":{line}");
                s.extend_from_slice(b",\"bands\":[");
                for (band, key) in bands.iter().enumerate() {
                    let _ = write!(s, "{}\"{key:016x}\"", if band == 0 { "" } else { "," });
                }
                s.push(b']');
                if let Some(values) = signature {
                    s.extend_from_slice(b",\"signature\":[");
                    for (i, v) in values.iter().enumerate() {
                        let _ = write!(s, "{}{v}", if i == 0 { "" } else { "," });
                    }
                    s.push(b']');
                }
                s.extend_from_slice(b"}\n");
            }
        }
        let result = self.put(&s);
        self.scratch = s;
        result
    }

    /// Writes one verified pair: the earlier document first.
    pub fn pair(&mut self, earlier: &DocId, later: &DocId, similarity: f64) -> Result<()> {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        match self.pairs_format {
            PairsFormat::Tsv => {
                earlier.write_tsv(&mut s);
                s.push(b'\t');
                later.write_tsv(&mut s);
                s.push(b'\t');
                write_similarity(similarity, &mut s);
                s.push(b'\n');
            }
            PairsFormat::Jsonl => {
                s.extend_from_slice(b"{\"id_a\":");
                earlier.write_json(&mut s);
                s.extend_from_slice(b",\"id_b\":");
                later.write_json(&mut s);
                s.extend_from_slice(b",\"similarity\":");
                write_similarity(similarity, &mut s);
                s.extend_from_slice(b"}\n");
            }
        }
        let result = self.put(&s);
        self.scratch = s;
        result
    }

    /// Flushes buffered output.
    pub fn flush(&mut self) -> Result<()> {
        if let Some(table) = &mut self.table {
            table.flush()?;
        }
        self.out.flush().map_err(|e| Error::io("writing output", e))
    }

    /// The output decided but not written (a closed pipe, a stop): taken, so that nothing
    /// more is written when the output is dropped.
    pub(crate) fn take_pending(&mut self) -> Vec<u8> {
        match &mut self.out {
            Lines::Here(buffer) => buffer.take_pending(),
            Lines::Beside(writer) => writer.take_pending(),
        }
    }

    /// Whether the output written ends part way through a line ([`LineBuffer::ends_mid_line`]).
    pub(crate) fn ends_mid_line(&self) -> bool {
        match &self.out {
            Lines::Here(buffer) => buffer.ends_mid_line(),
            Lines::Beside(writer) => writer.ends_mid_line(),
        }
    }

    /// CPU nanoseconds the lines' writer thread spent so far (0 without one).
    pub(crate) fn writer_cpu(&self) -> u64 {
        match &self.out {
            Lines::Here(_) => 0,
            Lines::Beside(writer) => writer.cpu(),
        }
    }

    /// Writes `bytes` as they are (the output a stopped run left in its state).
    pub fn raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.put(bytes)
    }
}

/// Similarity with 4 decimals, trailing zeros removed (`1`, `0.85`, `0.8571`).
pub fn format_similarity(s: f64) -> String {
    let mut out = Vec::with_capacity(8);
    write_similarity(s, &mut out);
    String::from_utf8(out).expect("ASCII digits")
}

/// Appends [`format_similarity`]`(s)` to `out` without allocating: a similarity in [0, 1]
/// is taken to 7 decimals as an f32 holds it, then rounded to 4, a tie half up, with integer
/// digits.
pub(crate) fn write_similarity(s: f64, out: &mut Vec<u8>) {
    if !(0.0..=1.0).contains(&s) {
        // Not a similarity (NaN, or out of range from a caller's own value): as `{:.4}`.
        let mut t = format!("{s:.4}");
        while t.ends_with('0') && t.contains('.') {
            t.pop();
        }
        if t.ends_with('.') {
            t.pop();
        }
        out.extend_from_slice(t.as_bytes());
        return;
    }
    let r = ten_thousandths(s);
    if r >= 10_000 {
        out.push(b'1');
        return;
    }
    out.push(b'0');
    if r == 0 {
        return;
    }
    out.push(b'.');
    let digits = [
        b'0' + (r / 1000) as u8,
        b'0' + (r / 100 % 10) as u8,
        b'0' + (r / 10 % 10) as u8,
        b'0' + (r % 10) as u8,
    ];
    let mut len = 4;
    while digits[len - 1] == b'0' {
        len -= 1;
    }
    out.extend_from_slice(&digits[..len]);
}

/// A similarity in [0, 1] in ten-thousandths, as the output prints it. The graph keeps
/// similarities as f32: every path takes the f32 value to 7 decimals (what an f32 holds) and
/// rounds that decimal half up, so a tie like 139/160 = 0.86875 prints 0.8688 from an f64
/// (--pairs) and from an f32 (the graph) alike.
fn ten_thousandths(s: f64) -> u64 {
    let tenth_micros = (f64::from(s as f32) * 1e7).round() as u64;
    (tenth_micros + 500) / 1000
}

/// The number [`format_similarity`] prints, for programs that hand similarities on as
/// numbers (the Python module): 0.8571 for 6/7, so that they equal the command line's.
pub fn printed_similarity(s: f64) -> f64 {
    if !(0.0..=1.0).contains(&s) {
        return s;
    }
    ten_thousandths(s) as f64 / 1e4
}

fn trim_ascii_end(s: &[u8]) -> &[u8] {
    let end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotate(content: &str, format: InputFormat, dup: Option<&DocId>) -> String {
        let mut o = Results::new(Vec::new(), PairsFormat::Tsv);
        o.annotated(
            content.as_bytes(),
            format,
            Verdict {
                dup_of: dup,
                similarity: 0.875,
                copy: false,
                reference: None,
            },
        )
        .unwrap();
        String::from_utf8(o.out.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn annotate_table() {
        let id = DocId::Str("x".into());
        let cases: &[(&str, InputFormat, Option<&DocId>, &str)] = &[
            (
                r#"{"text":"a b","n":1}"#,
                InputFormat::Jsonl,
                Some(&id),
                r#"{"text":"a b","n":1,"neardup":{"dup_of":"x","similarity":0.875,"exact":false}}"#,
            ),
            (
                "{ }  ",
                InputFormat::Jsonl,
                None,
                r#"{ "neardup":{"dup_of":null,"similarity":null,"exact":false}}"#,
            ),
            (
                "say \"hi\"",
                InputFormat::Text,
                Some(&DocId::Line(3)),
                r#"{"text":"say \"hi\"","neardup":{"dup_of":3,"similarity":0.875,"exact":false}}"#,
            ),
        ];
        for (content, format, dup, expected) in cases {
            let got = annotate(content, *format, *dup);
            assert_eq!(got, format!("{expected}\n"));
            serde_json::from_str::<serde_json::Value>(&got).unwrap();
        }
    }

    #[test]
    fn integer_formatting_equals_exact_decimal_rounding() {
        // Of the value as an f32 holds it, to 7 decimals (what the graph keeps), a tie half
        // up: nudged above the tie, `{:.4}` rounds the same.
        let reference = |s: f64| {
            let s = (f64::from(s as f32) * 1e7).round() / 1e7 + 1e-12;
            let mut t = format!("{s:.4}");
            while t.ends_with('0') {
                t.pop();
            }
            if t.ends_with('.') {
                t.pop();
            }
            t
        };
        let mut values: Vec<f64> = vec![0.0, 1.0, 0.5, 0.99995, 0.00005, 0.12345, 1e-300];
        // Jaccard values a / b (ties at 4 decimals among them, e.g. 1/32 = 0.03125).
        for b in 1..=400u32 {
            values.extend((0..=b).map(|a| f64::from(a) / f64::from(b)));
        }
        let mut state = 1u64;
        for _ in 0..100_000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            values.push((state >> 11) as f64 / (1u64 << 53) as f64);
        }
        for s in values {
            assert_eq!(format_similarity(s), reference(s), "{s:e}");
        }
        assert_eq!(format_similarity(f64::NAN), "NaN");
    }

    #[test]
    fn pairs_formats() {
        let mut o = Results::new(Vec::new(), PairsFormat::Jsonl);
        o.pair(&DocId::Line(1), &DocId::Str("b".into()), 1.0)
            .unwrap();
        let mut t = Results::new(Vec::new(), PairsFormat::Tsv);
        t.pair(&DocId::Line(1), &DocId::Num("2.5".into()), 0.81234)
            .unwrap();
        assert_eq!(
            o.out.into_inner().unwrap(),
            b"{\"id_a\":1,\"id_b\":\"b\",\"similarity\":1}\n"
        );
        assert_eq!(t.out.into_inner().unwrap(), b"1\t2.5\t0.8123\n");
    }

    #[test]
    fn lines_are_written_unchanged() {
        let mut o = Results::new(Vec::new(), PairsFormat::Tsv);
        o.line(b"a\r\n").unwrap();
        o.line(b"no newline").unwrap();
        assert_eq!(o.out.into_inner().unwrap(), b"a\r\nno newline\n");
    }

    #[test]
    fn similarity_format() {
        for (s, t) in [(1.0, "1"), (0.85, "0.85"), (0.857142, "0.8571"), (0.0, "0")] {
            assert_eq!(format_similarity(s), t);
        }
    }
}
