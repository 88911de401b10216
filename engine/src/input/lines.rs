//! The line reader: inputs read one after another in large blocks, cut with memchr into
//! batches of whole lines; a columnar input (Parquet, Arrow) found on the way is handed to
//! its reader ([`super::columnar`]), whose rows come out as batches too.

use super::columnar;
use super::settings::InputFormat;
use super::{
    AUTO_LINES, BATCH_BYTES, BUFFER_BYTES, Batch, Input, LineSpan, MAX_BATCH_LINES, Part,
    READ_BYTES, fields,
};
use crate::error::{Error, Result};
use std::io::{self, Read};

/// Reads inputs one after another and cuts them into batches of whole lines.
pub struct LineReader {
    inputs: Vec<Input>,
    current: usize,
    carry: Vec<u8>,
    /// Buffers of batches that were consumed ([`LineReader::recycling`]).
    recycled: Option<crossbeam_channel::Receiver<Vec<u8>>>,
    format: InputFormat,
    number: u64,
    input_line: u64,
    bytes_read: u64,
    done: bool,
    /// Lines in the last batch: the next batch's line list starts with room for a few more
    /// (it grew from empty, reallocating about ten times a batch).
    last_lines: usize,
    /// Lines longer than this are cut into pieces ([`Part`]).
    limit: usize,
    /// The line being read is over the limit and its first piece was handed on.
    in_long_line: bool,
    /// `--format auto`: non-empty lines looked at, and those starting with `{`.
    auto_seen: u64,
    auto_json: u64,
    /// Whether ids are the `id` field: `None` until the first batch decides
    /// ([`LineReader::auto_ids`]).
    ids: Option<bool>,
    /// Inputs before this one were looked at and are lines.
    sniffed: usize,
    /// The columns a columnar input's documents come from ([`LineReader::columns`]).
    columns: columnar::Columns,
    /// The columnar input being read, if the current input is one.
    column_reader: Option<Box<columnar::ColumnReader>>,
    /// The first columnar input's name and schema (the others' must match it when rows
    /// are written back).
    first_schema: Option<(String, arrow_schema::SchemaRef)>,
}

impl LineReader {
    /// A reader over `inputs` in order. `format` may be `Auto`: it is resolved from the first
    /// non-empty line.
    pub fn new(inputs: Vec<Input>, format: InputFormat) -> LineReader {
        LineReader {
            inputs,
            current: 0,
            carry: Vec::new(),
            recycled: None,
            format,
            number: 0,
            input_line: 0,
            bytes_read: 0,
            done: false,
            last_lines: 0,
            limit: usize::MAX,
            in_long_line: false,
            auto_seen: 0,
            auto_json: 0,
            ids: Some(false),
            sniffed: 0,
            columns: columnar::Columns::default(),
            column_reader: None,
            first_schema: None,
        }
    }

    /// Which columns the documents of a columnar input (Parquet, Arrow) come from, and
    /// whether their rows are kept whole for the output ([`columnar::Columns`]).
    pub fn columns(mut self, columns: columnar::Columns) -> LineReader {
        self.columns = columns;
        self
    }

    /// Looks at the current input's first bytes (once): when it is columnar, opens it as
    /// such and returns true.
    fn open_columnar(&mut self) -> Result<bool> {
        self.sniffed = self.current + 1;
        let input = &mut self.inputs[self.current];
        if self.format == InputFormat::Text {
            return Ok(false);
        }
        let head = columnar::head(input)?;
        let Some(kind) = columnar::Kind::of(self.format, &head) else {
            return Ok(false);
        };
        let placeholder = Input::from_reader(input.name.clone(), Box::new(io::empty()));
        let input = std::mem::replace(input, placeholder);
        let reader = columnar::ColumnReader::open(input, kind, self.columns.clone())?;
        // Rows written back as one table must share one schema.
        let name = &self.inputs[self.current].name;
        match &self.first_schema {
            Some((first, schema))
                if self.columns.one_schema && schema.fields() != reader.schema().fields() =>
            {
                return Err(Error::Usage(format!(
                    "{name} has other columns than {first}, and the output is one table of \
                     their rows: {name}: {}; {first}: {} (write lines with ‹output-format› \
                     lines, or give the files one schema)",
                    columnar::describe(reader.schema().fields()),
                    columnar::describe(schema.fields()),
                )));
            }
            Some(_) => {}
            None => self.first_schema = Some((name.clone(), reader.schema().clone())),
        }
        self.column_reader = Some(Box::new(reader));
        Ok(true)
    }

    /// The next batch of the columnar input being read; at its end, the next input is
    /// current.
    fn next_rows(&mut self) -> Result<Option<Batch>> {
        let reader = self.column_reader.as_mut().expect("a columnar input");
        let input = self.current as u32;
        // A consumed batch's buffer, as for lines: a fresh allocation per batch of rows
        // left freed pages of every size behind (the allocator's slack under a budget).
        let data = (self.recycled.as_ref())
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_default();
        match reader.next_batch(input, &mut self.number, &mut self.input_line, data)? {
            Some(mut batch) => {
                // The id column is said once for the run, not once per input.
                batch.ids_decided &= self.ids != Some(true);
                if batch.ids_decided {
                    self.ids = Some(true);
                }
                Ok(Some(batch))
            }
            None => {
                self.bytes_read += reader.bytes_read();
                self.column_reader = None;
                self.current += 1;
                self.input_line = 0;
                Ok(None)
            }
        }
    }

    /// Hands lines longer than `limit` bytes on in pieces ([`Part`]) instead of holding them
    /// whole.
    pub fn cutting_lines_over(mut self, limit: usize) -> LineReader {
        self.limit = limit.max(1);
        self
    }

    /// With no `--id-field`: the first batch of JSON Lines decides whether the documents' ids
    /// are their `id` field (each of its first lines has one, a string or an integer:
    /// [`fields::ids_in`]) or line numbers; every batch then carries the decision.
    pub fn auto_ids(mut self, yes: bool) -> LineReader {
        self.ids = match yes {
            true => None,
            false => Some(false),
        };
        self
    }

    /// Continues a numbering: the first line read gets number `lines + 1` (`--state`).
    pub(crate) fn numbered_after(mut self, lines: u64) -> LineReader {
        self.number = lines;
        self
    }

    /// Takes the buffers of consumed batches from `recycled` instead of allocating: a new
    /// buffer costs page faults and zeroing, a used one neither (its length is kept, so it is
    /// never zeroed again).
    pub(crate) fn recycling(
        mut self,
        recycled: crossbeam_channel::Receiver<Vec<u8>>,
    ) -> LineReader {
        self.recycled = Some(recycled);
        self
    }

    /// The names of the inputs, indexed by [`LineSpan::input`].
    pub fn input_names(&self) -> Vec<String> {
        self.inputs.iter().map(|i| i.name.clone()).collect()
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read + self.column_reader.as_ref().map_or(0, |r| r.bytes_read())
    }

    /// The next batch, or `None` at the end of the last input.
    pub fn next_batch(&mut self) -> Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        loop {
            if self.column_reader.is_some() {
                match self.next_rows()? {
                    Some(batch) => return Ok(Some(batch)),
                    None => continue,
                }
            }
            let fresh = self.carry.is_empty() && !self.in_long_line;
            if fresh
                && self.current < self.inputs.len()
                && self.current >= self.sniffed
                && self.open_columnar()?
            {
                continue;
            }
            break;
        }
        let mut data = self
            .recycled
            .as_ref()
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_else(|| vec![0; BUFFER_BYTES]);
        // The bytes of `data` in use: the unfinished line carried over, then what was read.
        let mut filled = self.carry.len();
        if data.len() < filled {
            data.resize(filled, 0);
        }
        data[..filled].copy_from_slice(&self.carry);
        let mut batch = Batch {
            data,
            lines: Vec::with_capacity(self.last_lines + self.last_lines / 8),
            format: InputFormat::Text,
            note: None,
            idle: false,
            ids_from_field: false,
            ids_decided: false,
            unusable_id: None,
            rows: None,
            ordinal: 0,
        };
        let mut line_start = 0;
        let mut scan = 0;
        let mut hand_out = false;
        loop {
            while batch.lines.len() < MAX_BATCH_LINES
                && let Some(pos) = memchr::memchr(b'\n', &batch.data[scan..filled])
            {
                let end = scan + pos + 1;
                self.push_line(&mut batch, line_start, end, true);
                line_start = end;
                scan = end;
            }
            if batch.lines.len() >= MAX_BATCH_LINES {
                // The rest read is carried over to the next batch, unscanned.
                break;
            }
            // A line is known to be too long once it passes the limit; its later pieces go
            // on a batch at a time, so that the batches in flight hold one limit's worth of
            // it, not one each.
            let piece = match self.in_long_line {
                true => self.limit.min(BATCH_BYTES),
                false => self.limit,
            };
            if filled - line_start > piece {
                self.push_piece(&mut batch, line_start, filled);
                line_start = filled;
            }
            // `--format auto` waits for enough lines to decide by (or the end of input).
            let deciding = self.format == InputFormat::Auto && self.auto_seen < AUTO_LINES;
            if line_start >= BATCH_BYTES || (hand_out && line_start > 0 && !deciding) {
                break;
            }
            if self.current >= self.inputs.len() {
                self.done = true;
                break;
            }
            // A live input with nothing to read: the lines so far go now (`--format auto`
            // decides by them), rather than wait for the next line's arrival.
            if line_start > 0 && self.inputs[self.current].would_wait() {
                break;
            }
            // The next input may be columnar: its rows go in batches of their own.
            if self.current >= self.sniffed && line_start == filled && self.open_columnar()? {
                break;
            }
            let old = filled;
            if batch.data.len() < old + READ_BYTES {
                batch.data.resize(old + READ_BYTES, 0);
            }
            let input = &mut self.inputs[self.current];
            let n = loop {
                match input.reader.read(&mut batch.data[old..old + READ_BYTES]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io(format!("reading {}", input.name), e)),
                }
            };
            filled = old + n;
            self.bytes_read += n as u64;
            // A short read from a pipe means no more data is waiting: once the lines read so
            // far are split off, hand them out rather than block for more, so a slow stream is
            // not held back.
            hand_out = n > 0 && n < READ_BYTES;
            scan = old;
            if n == 0 {
                // End of this input: its unterminated last line is still a line.
                // (An over-long line ends here too, even with no bytes after its last piece.)
                if line_start < filled || self.in_long_line {
                    self.push_line(&mut batch, line_start, filled, false);
                    line_start = filled;
                }
                scan = filled;
                self.current += 1;
                self.input_line = 0;
                self.in_long_line = false;
            }
        }
        self.carry.clear();
        self.carry
            .extend_from_slice(&batch.data[line_start..filled]);
        if self.format == InputFormat::Auto && self.auto_seen > 0 {
            batch.note = self.decide_format();
        }
        batch.format = match self.format {
            InputFormat::Auto => InputFormat::Text,
            f => f,
        };
        if batch.lines.is_empty() {
            if self.column_reader.is_some() {
                return self.next_batch();
            }
            return Ok(None);
        }
        batch.idle = self.inputs.get(self.current).is_some_and(Input::would_wait);
        if self.ids.is_none() {
            let found = match batch.format {
                InputFormat::Jsonl => fields::ids_in(&batch),
                _ => Err(None),
            };
            self.ids = Some(found.is_ok());
            // Lines that have ids, numbered because one of the first has none usable: said,
            // so that the numbers in the output are not taken for the user's ids.
            batch.ids_decided = !matches!(found, Err(None));
            batch.unusable_id = found.err().flatten();
        }
        batch.ids_from_field = self.ids == Some(true);
        self.last_lines = batch.lines.len();
        Ok(Some(batch))
    }

    /// Resolves `--format auto` from the non-empty lines of the first batch that has any
    /// (thousands of lines of a file; a pipe's first batch waits for [`AUTO_LINES`] of them or
    /// the end of input): JSON Lines when most start with `{`. So one junk line at the top (`[]`, a comment) no longer
    /// turns a JSON Lines file into text; the lines that disagree are then bad lines (or
    /// plain lines), and the returned note says what was decided.
    fn decide_format(&mut self) -> Option<String> {
        let (seen, json) = (self.auto_seen, self.auto_json);
        let jsonl = json * 2 > seen;
        self.format = if jsonl {
            InputFormat::Jsonl
        } else {
            InputFormat::Text
        };
        if json == 0 || json == seen {
            return None;
        }
        Some(if jsonl {
            format!(
                "input format: JSON Lines ({json} of the first {seen} non-empty lines start \
                 with '{{'; the others are bad lines, see ‹on-bad-line›); ‹input-format› text reads \
                 every line as text"
            )
        } else {
            format!(
                "input format: plain text (only {json} of the first {seen} non-empty lines \
                 start with '{{'); ‹input-format› jsonl reads the lines as JSON"
            )
        })
    }

    /// A piece of an over-long line, not its end: bytes `start..end` of the batch.
    fn push_piece(&mut self, batch: &mut Batch, start: usize, end: usize) {
        self.push_span(batch, start, end, end, Part::First);
        self.in_long_line = true;
    }

    fn push_line(&mut self, batch: &mut Batch, start: usize, end: usize, terminated: bool) {
        let mut content_end = end;
        if terminated {
            content_end -= 1;
            if content_end > start && batch.data[content_end - 1] == b'\r' {
                content_end -= 1;
            }
        }
        self.push_span(batch, start, content_end, end, Part::Whole);
        self.in_long_line = false;
    }

    /// Adds a line (or a piece of one: `part`), or a later piece of the over-long line being
    /// read.
    fn push_span(
        &mut self,
        batch: &mut Batch,
        start: usize,
        content_end: usize,
        end: usize,
        part: Part,
    ) {
        let part = if self.in_long_line {
            match part {
                Part::Whole => Part::Last,
                _ => Part::Rest,
            }
        } else {
            if self.format == InputFormat::Auto {
                let content = &batch.data[start..content_end];
                if let Some(&first) = content.iter().find(|b| !b.is_ascii_whitespace()) {
                    self.auto_seen += 1;
                    self.auto_json += u64::from(first == b'{');
                }
            }
            self.number += 1;
            self.input_line += 1;
            part
        };
        batch.lines.push(LineSpan {
            start,
            content_end,
            end,
            number: self.number,
            input: self.current as u32,
            input_line: self.input_line,
            part,
        });
    }
}
