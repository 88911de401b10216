//! Reading: files or stdin → batches of lines; one line → document text and id.
//!
//! [`LineReader`] reads its inputs in large blocks and splits them with memchr, handing out
//! [`Batch`]es of whole lines (about [`BATCH_BYTES`] each) that own their bytes, so a batch can
//! cross threads and the writer can later copy every line out unchanged. Lines end with LF; a
//! CR before the LF is kept in the output bytes but not in the document text. A last line with
//! no LF is a line too.
//!
//! [`extract`] turns one line into its text and [`DocId`] according to the input format; a line
//! that cannot be a document yields a [`BadLine`] reason instead (never a panic).

use crate::config::InputFormat;
use crate::error::{Error, Result};
use compact_str::CompactString;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Target size of a batch in bytes: large enough to amortise channel traffic and the
/// sequencer's per-batch work (handing work to its helpers and back), small enough to keep every
/// worker busy. 1 MiB against 256 KiB: -j 2 on the peer corpus, median of 9 runs, 1.16 ->
/// 1.03 s (512 KiB and 2 MiB within 2% of it).
pub const BATCH_BYTES: usize = 1 << 20;
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
}

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

/// An opened input and its display name.
pub struct Input {
    /// `-` or the path as given.
    pub name: String,
    reader: Box<dyn Read + Send>,
}

impl Input {
    /// Opens `path`; `-` is standard input.
    pub fn open(path: &Path) -> Result<Input> {
        if path.as_os_str() == "-" {
            return Ok(Input {
                name: "-".to_string(),
                reader: Box::new(io::stdin()),
            });
        }
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(format!("opening {name}"), e))?;
        Ok(Input {
            name,
            reader: Box::new(file),
        })
    }

    /// Wraps any reader (for tests and library use).
    pub fn from_reader(name: impl Into<String>, reader: Box<dyn Read + Send>) -> Input {
        Input {
            name: name.into(),
            reader,
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
        };
        Ok((prefix, lines, replay))
    }

    /// Opens every path (standard input when `paths` is empty) before anything is read, so
    /// a missing file fails before any output.
    pub fn open_all(paths: &[PathBuf]) -> Result<Vec<Input>> {
        if paths.is_empty() {
            return Ok(vec![Input::open(Path::new("-"))?]);
        }
        paths.iter().map(|p| Input::open(p)).collect()
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

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
        }
    }

    /// Continues a numbering: the first line read gets number `lines + 1` (`--state`).
    pub fn numbered_after(mut self, lines: u64) -> LineReader {
        self.number = lines;
        self
    }

    /// Takes the buffers of consumed batches from `recycled` instead of allocating: a new
    /// buffer costs page faults and zeroing, a used one neither (its length is kept, so it is
    /// never zeroed again).
    pub fn recycling(mut self, recycled: crossbeam_channel::Receiver<Vec<u8>>) -> LineReader {
        self.recycled = Some(recycled);
        self
    }

    /// The names of the inputs, indexed by [`LineSpan::input`].
    pub fn input_names(&self) -> Vec<String> {
        self.inputs.iter().map(|i| i.name.clone()).collect()
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The next batch, or `None` at the end of the last input.
    pub fn next_batch(&mut self) -> Result<Option<Batch>> {
        if self.done {
            return Ok(None);
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
        };
        let mut line_start = 0;
        let mut scan = 0;
        let mut hand_out = false;
        loop {
            while let Some(pos) = memchr::memchr(b'\n', &batch.data[scan..filled]) {
                let end = scan + pos + 1;
                self.push_line(&mut batch, line_start, end, true);
                line_start = end;
                scan = end;
            }
            if line_start >= BATCH_BYTES || (hand_out && line_start > 0) {
                break;
            }
            if self.current >= self.inputs.len() {
                self.done = true;
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
                if line_start < filled {
                    self.push_line(&mut batch, line_start, filled, false);
                    line_start = filled;
                }
                scan = filled;
                self.current += 1;
                self.input_line = 0;
            }
        }
        self.carry.clear();
        self.carry
            .extend_from_slice(&batch.data[line_start..filled]);
        batch.format = match self.format {
            InputFormat::Auto => InputFormat::Text,
            f => f,
        };
        if batch.lines.is_empty() {
            return Ok(None);
        }
        self.last_lines = batch.lines.len();
        Ok(Some(batch))
    }

    fn push_line(&mut self, batch: &mut Batch, start: usize, end: usize, terminated: bool) {
        let mut content_end = end;
        if terminated {
            content_end -= 1;
            if content_end > start && batch.data[content_end - 1] == b'\r' {
                content_end -= 1;
            }
        }
        if self.format == InputFormat::Auto {
            let content = &batch.data[start..content_end];
            if let Some(&first) = content.iter().find(|b| !b.is_ascii_whitespace()) {
                self.format = if first == b'{' {
                    InputFormat::Jsonl
                } else {
                    InputFormat::Text
                };
            }
        }
        self.number += 1;
        self.input_line += 1;
        batch.lines.push(LineSpan {
            start,
            content_end,
            end,
            number: self.number,
            input: self.current as u32,
            input_line: self.input_line,
        });
    }
}

/// Appends `n` in decimal.
fn write_decimal(mut n: u64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// A document's identifier: the line number, or the value of `--id-field`. Ids of up to 24
/// bytes are stored inline (`CompactString`): writing a pair reads the earlier id from the
/// window entry itself instead of a cold heap allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocId {
    /// 1-based line number over all inputs.
    Line(u64),
    /// A JSON string id.
    Str(CompactString),
    /// A JSON number id, kept as written.
    Num(CompactString),
}

impl DocId {
    /// Appends the id as TSV shows it (the same text as its `Display`), without the
    /// formatting machinery: this is on the path of every `--pairs` line.
    pub fn write_tsv(&self, out: &mut Vec<u8>) {
        match self {
            DocId::Line(n) => write_decimal(*n, out),
            DocId::Num(s) => out.extend_from_slice(s.as_bytes()),
            DocId::Str(s) => {
                for &b in s.as_bytes() {
                    match b {
                        b'\t' => out.extend_from_slice(b"\\t"),
                        b'\n' => out.extend_from_slice(b"\\n"),
                        b'\r' => out.extend_from_slice(b"\\r"),
                        b'\\' => out.extend_from_slice(b"\\\\"),
                        b => out.push(b),
                    }
                }
            }
        }
    }

    /// Writes the id as a JSON value (number or string).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            DocId::Line(n) => write_decimal(*n, out),
            DocId::Num(s) => out.extend_from_slice(s.as_bytes()),
            DocId::Str(s) => write_json_string(s, out),
        }
    }
}

impl fmt::Display for DocId {
    /// Plain text for TSV: tabs, newlines and backslashes in string ids are escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.write_tsv(&mut out);
        f.write_str(std::str::from_utf8(&out).expect("escapes keep UTF-8"))
    }
}

/// Appends `s` as a JSON string literal.
pub fn write_json_string(s: &str, out: &mut Vec<u8>) {
    // serde_json's string escaping is exact and fast; writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// Why a line is not a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadLine {
    /// The line is empty or only white space.
    Empty,
    /// The line is longer than `--max-line-bytes`.
    TooLong(usize),
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// The line is not valid JSON.
    InvalidJson(String),
    /// The JSON value is not an object.
    NotAnObject,
    /// The text field is absent.
    MissingField(String),
    /// The text field is not a string.
    NotAString(String),
    /// The id field is absent.
    MissingId(String),
    /// The id field is neither a string nor a number.
    BadId(String),
    /// The text has no tokens after normalisation.
    NoTokens,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadLine::Empty => write!(f, "empty line"),
            BadLine::TooLong(n) => write!(f, "line of {n} bytes is longer than --max-line-bytes"),
            BadLine::InvalidUtf8 => write!(f, "invalid UTF-8"),
            BadLine::InvalidJson(e) => write!(f, "invalid JSON: {e}"),
            BadLine::NotAnObject => write!(f, "JSON value is not an object"),
            BadLine::MissingField(p) => write!(f, "missing field '{p}'"),
            BadLine::NotAString(p) => write!(f, "field '{p}' is not a string"),
            BadLine::MissingId(p) => write!(f, "missing id field '{p}'"),
            BadLine::BadId(p) => write!(f, "id field '{p}' is not a string or a number"),
            BadLine::NoTokens => write!(f, "no words left after normalisation"),
        }
    }
}

/// How documents are taken from lines.
#[derive(Clone, Debug)]
pub struct Extractor {
    field: Vec<String>,
    field_name: String,
    id_field: Option<(Vec<String>, String)>,
    attrs: Vec<Vec<String>>,
    max_line_bytes: usize,
}

impl Extractor {
    /// `field` and `id_field` are dotted paths (`a.b.c`).
    pub fn new(field: &str, id_field: Option<&str>, max_line_bytes: usize) -> Extractor {
        let split = |p: &str| p.split('.').map(str::to_string).collect::<Vec<_>>();
        Extractor {
            field: split(field),
            field_name: field.to_string(),
            id_field: id_field.map(|p| (split(p), p.to_string())),
            attrs: Vec::new(),
            max_line_bytes,
        }
    }

    /// Also takes these dotted paths from JSON lines ([`Extractor::extract_with_attrs`]);
    /// plain-text lines have none of them.
    pub fn with_attrs(mut self, paths: &[String]) -> Extractor {
        self.attrs = paths
            .iter()
            .map(|p| p.split('.').map(str::to_string).collect())
            .collect();
        self
    }

    /// Like [`Extractor::extract`], and fills `attrs` with the value of each attribute path
    /// (`None` where a line lacks it or the value is JSON null).
    pub fn extract_with_attrs<'a>(
        &self,
        line: &'a [u8],
        format: InputFormat,
        number: u64,
        attrs: &mut Vec<Option<Value>>,
    ) -> std::result::Result<(Cow<'a, str>, DocId), BadLine> {
        attrs.clear();
        attrs.resize(self.attrs.len(), None);
        self.extract_inner(line, format, number, attrs)
    }

    /// The document text and id of a line (content without terminator).
    pub fn extract<'a>(
        &self,
        line: &'a [u8],
        format: InputFormat,
        number: u64,
    ) -> std::result::Result<(Cow<'a, str>, DocId), BadLine> {
        self.extract_inner(line, format, number, &mut [])
    }

    fn extract_inner<'a>(
        &self,
        line: &'a [u8],
        format: InputFormat,
        number: u64,
        attrs: &mut [Option<Value>],
    ) -> std::result::Result<(Cow<'a, str>, DocId), BadLine> {
        if line.len() > self.max_line_bytes {
            return Err(BadLine::TooLong(line.len()));
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return Err(BadLine::Empty);
        }
        match format {
            InputFormat::Jsonl => self.extract_json(line, number, attrs),
            _ => {
                let text = utf8(line).map_err(|_| BadLine::InvalidUtf8)?;
                Ok((Cow::Borrowed(text), DocId::Line(number)))
            }
        }
    }

    fn extract_json<'a>(
        &self,
        line: &'a [u8],
        number: u64,
        attrs: &mut [Option<Value>],
    ) -> std::result::Result<(Cow<'a, str>, DocId), BadLine> {
        if attrs.is_empty()
            && let Some(found) = self.extract_json_flat(line, number)
        {
            return Ok(found);
        }
        self.extract_json_value(line, number, attrs)
    }

    /// [`Extractor::extract_json`] through the whole parsed value: any path, the attributes,
    /// and the reason a line is bad.
    fn extract_json_value<'a>(
        &self,
        line: &'a [u8],
        number: u64,
        attrs: &mut [Option<Value>],
    ) -> std::result::Result<(Cow<'a, str>, DocId), BadLine> {
        let mut value: Value = serde_json::from_slice(line).map_err(|e| {
            if std::str::from_utf8(line).is_err() {
                BadLine::InvalidUtf8
            } else {
                BadLine::InvalidJson(e.to_string())
            }
        })?;
        if !value.is_object() {
            return Err(BadLine::NotAnObject);
        }
        let id = match &self.id_field {
            None => DocId::Line(number),
            Some((path, name)) => id_of(lookup(&value, path), name)?,
        };
        for (slot, path) in attrs.iter_mut().zip(&self.attrs) {
            *slot = lookup(&value, path).filter(|v| !v.is_null()).cloned();
        }
        match lookup_mut(&mut value, &self.field) {
            None | Some(Value::Null) => Err(BadLine::MissingField(self.field_name.clone())),
            Some(Value::String(s)) => Ok((Cow::Owned(std::mem::take(s)), id)),
            Some(_) => Err(BadLine::NotAString(self.field_name.clone())),
        }
    }
}

impl Extractor {
    /// The fast path of [`Extractor::extract_json`] for top-level fields and no attributes:
    /// one pass over the object that borrows the text when it has no escapes and skips every
    /// other field, instead of building the whole value. `None` for anything unusual (invalid
    /// UTF-8 or JSON, not an object, a missing or mistyped field, a nested path): the caller
    /// then parses the full value, which finds the reason, so bad lines are reported exactly
    /// as before. Duplicate keys keep the last value, as the full value does.
    fn extract_json_flat<'a>(&self, line: &'a [u8], number: u64) -> Option<(Cow<'a, str>, DocId)> {
        let [field] = self.field.as_slice() else {
            return None;
        };
        let id_key = match &self.id_field {
            None => None,
            Some((path, _)) => match path.as_slice() {
                [key] => Some(key.as_str()),
                _ => return None,
            },
        };
        // Validated here, so the parser need not check each string's UTF-8 again.
        let text = utf8(line).ok()?;
        let mut de = serde_json::Deserializer::from_str(text);
        let visitor = FlatObject {
            field,
            id_key,
            text: None,
            id: None,
        };
        let (found, id) = serde::Deserializer::deserialize_map(&mut de, visitor).ok()?;
        de.end().ok()?;
        let id = match &self.id_field {
            None => DocId::Line(number),
            Some((_, name)) => id_of(id.as_ref(), name).ok()?,
        };
        Some((found?, id))
    }
}

/// A line as UTF-8 text. Every line is checked, and `simdutf8`'s AVX2 check took this from
/// 3.0% to 1.8% of a one-core run on the peer corpus (`std::str::from_utf8` before).
#[inline]
fn utf8(line: &[u8]) -> std::result::Result<&str, simdutf8::basic::Utf8Error> {
    simdutf8::basic::from_utf8(line)
}

/// Visits a JSON object for [`Extractor::extract_json_flat`]: the text field's string (or
/// `None` if it is missing or not a string) and the id field's value.
struct FlatObject<'k, 'de> {
    field: &'k str,
    id_key: Option<&'k str>,
    text: Option<Cow<'de, str>>,
    id: Option<Value>,
}

impl<'de> serde::de::Visitor<'de> for FlatObject<'_, 'de> {
    type Value = (Option<Cow<'de, str>>, Option<Value>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        mut self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        use serde::de::IgnoredAny;
        while let Some(TextValue(key)) = map.next_key::<TextValue<'de>>()? {
            if key == self.field {
                self.text = map.next_value::<Option<TextValue<'de>>>()?.map(|t| t.0);
            } else if Some(key.as_ref()) == self.id_key {
                self.id = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok((self.text, self.id))
    }
}

/// A JSON string (a key or the text), borrowed from the line when it holds no escapes.
struct TextValue<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for TextValue<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = TextValue<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(TextValue(Cow::Borrowed(v)))
            }

            fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(TextValue(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(TextValue(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// The id a JSON value gives (`name` is the id field, for the reason a line is bad).
fn id_of(value: Option<&Value>, name: &str) -> std::result::Result<DocId, BadLine> {
    match value {
        None | Some(Value::Null) => Err(BadLine::MissingId(name.to_string())),
        Some(Value::String(s)) => Ok(DocId::Str(s.as_str().into())),
        Some(Value::Number(n)) => Ok(DocId::Num(n.to_string().into())),
        Some(_) => Err(BadLine::BadId(name.to_string())),
    }
}

fn lookup<'v>(mut value: &'v Value, path: &[String]) -> Option<&'v Value> {
    for key in path {
        value = value.as_object()?.get(key)?;
    }
    Some(value)
}

fn lookup_mut<'v>(mut value: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    for key in path {
        value = value.as_object_mut()?.get_mut(key)?;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_json_path_agrees_with_the_full_value() {
        let lines: &[&[u8]] = &[
            br#"{"text":"plain words","id":"a"}"#,
            br#"  {"id": 7, "text": "esc\u00e9ped \"quoted\"\n"}  "#,
            br#"{"te\u0078t":"escaped key","id":1.50}"#,
            br#"{"text":"first","text":"last wins","id":-0}"#,
            br#"{"text":"x","id":"first","id":1e3}"#,
            br#"{"meta":{"text":"nested, not it","a":[1,{"b":null}]},"text":"top","id":"m"}"#,
            br#"{"text":null,"id":"n"}"#,
            br#"{"text":5,"id":"n"}"#,
            br#"{"text":"no id"}"#,
            br#"{"text":"null id","id":null}"#,
            br#"{"text":"bool id","id":true}"#,
            br#"{"id":"no text"}"#,
            br#"["text","not an object"]"#,
            br#"{"text":"trailing"} x"#,
            br#"{"text":"unterminated"#,
            b"{\"text\":\"ok\",\"other\":\"bad \xff byte\",\"id\":\"u\"}",
            b"{\"text\":\"bad \xfe text\",\"id\":\"u\"}",
            br#"{}"#,
            br#"{"text":"","id":""}"#,
        ];
        for id_field in [None, Some("id")] {
            let e = Extractor::new("text", id_field, usize::MAX);
            let mut answered = 0;
            for &line in lines {
                let full = e.extract_json_value(line, 9, &mut []);
                let got = e.extract(line, InputFormat::Jsonl, 9);
                assert_eq!(
                    format!("{got:?}"),
                    format!("{full:?}"),
                    "{}",
                    String::from_utf8_lossy(line)
                );
                if let Some((text, _)) = e.extract_json_flat(line, 9) {
                    // The fast path only answers for good lines, and borrows unescaped text.
                    assert!(full.is_ok());
                    if !line.contains(&b'\\') {
                        assert!(matches!(text, Cow::Borrowed(_)));
                    }
                    answered += 1;
                }
            }
            // The good lines: all but the bad ones of each kind.
            assert_eq!(answered, if id_field.is_some() { 7 } else { 10 });
        }
        // Nested paths go the full way.
        let nested = Extractor::new("meta.text", None, usize::MAX);
        let line = br#"{"meta":{"text":"deep"}}"#;
        assert!(nested.extract_json_flat(line, 1).is_none());
        assert_eq!(
            nested.extract(line, InputFormat::Jsonl, 1).unwrap().0,
            "deep"
        );
    }

    #[test]
    fn ids_as_tsv() {
        let tsv = |id: DocId| {
            let mut out = Vec::new();
            id.write_tsv(&mut out);
            assert_eq!(String::from_utf8(out.clone()).unwrap(), id.to_string());
            String::from_utf8(out).unwrap()
        };
        assert_eq!(tsv(DocId::Line(0)), "0");
        assert_eq!(
            tsv(DocId::Line(18_446_744_073_709_551_615)),
            "18446744073709551615"
        );
        assert_eq!(tsv(DocId::Num("2.50".into())), "2.50");
        assert_eq!(
            tsv(DocId::Str("a\tb\\c\nd\ré".into())),
            "a\\tb\\\\c\\nd\\ré"
        );
        let mut json = Vec::new();
        DocId::Line(907).write_json(&mut json);
        assert_eq!(json, b"907");
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
    fn extract_table() {
        let e = Extractor::new("body.text", Some("id"), 100);
        let j = InputFormat::Jsonl;
        let ok = |line: &'static str| e.extract(line.as_bytes(), j, 7);
        assert_eq!(
            ok(r#"{"id":"a1","body":{"text":"Hi"}}"#).unwrap(),
            (Cow::Owned("Hi".to_string()), DocId::Str("a1".into()))
        );
        assert_eq!(
            ok(r#"{"id":12,"body":{"text":"Hi"}}"#).unwrap().1,
            DocId::Num("12".into())
        );
        let bad: &[(&[u8], BadLine)] = &[
            (b"", BadLine::Empty),
            (b"   ", BadLine::Empty),
            (b"{not json", BadLine::InvalidJson(String::new())),
            (b"[1,2]", BadLine::NotAnObject),
            (br#"{"id":1}"#, BadLine::MissingField("body.text".into())),
            (
                br#"{"id":1,"body":{"text":5}}"#,
                BadLine::NotAString("body.text".into()),
            ),
            (br#"{"body":{"text":"x"}}"#, BadLine::MissingId("id".into())),
            (
                br#"{"id":[1],"body":{"text":"x"}}"#,
                BadLine::BadId("id".into()),
            ),
            (
                b"{\"id\":1,\"body\":{\"text\":\"\xff\"}}",
                BadLine::InvalidUtf8,
            ),
            (&[b'x'; 101], BadLine::TooLong(101)),
        ];
        for (line, expected) in bad {
            let got = e.extract(line, j, 1).unwrap_err();
            match (&got, expected) {
                (BadLine::InvalidJson(_), BadLine::InvalidJson(_)) => {}
                _ => assert_eq!(&got, expected, "line {:?}", String::from_utf8_lossy(line)),
            }
        }
        assert_eq!(
            e.extract(b"\xfe plain", InputFormat::Text, 1).unwrap_err(),
            BadLine::InvalidUtf8
        );
    }

    #[test]
    fn ids_render_for_tsv_and_json() {
        let id = DocId::Str("a\tb".into());
        assert_eq!(id.to_string(), "a\\tb");
        let mut out = Vec::new();
        id.write_json(&mut out);
        assert_eq!(out, br#""a\tb""#);
        let mut out = Vec::new();
        DocId::Line(3).write_json(&mut out);
        assert_eq!(out, b"3");
    }
}
