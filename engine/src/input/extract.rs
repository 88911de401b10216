//! One line → the document's text and id, by input format (plain text or JSON Lines), or the
//! reason it is not a document.

use super::settings::InputFormat;
use compact_str::CompactString;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

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
/// bytes are stored inline (`CompactString`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    pub(crate) fn write_tsv(&self, out: &mut Vec<u8>) {
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
                        b'\0' => out.extend_from_slice(b"\\0"),
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
    /// Plain text for TSV: tabs, newlines, carriage returns, NULs and backslashes in string
    /// ids are escaped.
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
    /// The line is longer than `--max-line-bytes` and was read in pieces: the first was this
    /// long ([`crate::input::Part`]).
    TooLongPiece(usize),
    /// The line is longer than the memory budget lets a document be (at least this long
    /// when it was read in pieces).
    OverBudget {
        /// Its length, or its first piece's.
        bytes: usize,
        /// It was read in pieces: `bytes` is its first.
        at_least: bool,
    },
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
    /// The text field is `null`.
    NullField(String),
    /// The id field is `null`.
    NullId(String),
    /// The id field is neither a string nor a number.
    BadId(String),
    /// The text has no tokens after normalisation.
    NoTokens,
    /// A missing value (a null in a table) where a text was handed over in process.
    Missing,
}

impl BadLine {
    /// The same, said as the memory budget's limit when it is one of length.
    pub(crate) fn over_budget(self) -> BadLine {
        match self {
            BadLine::TooLong(bytes) => BadLine::OverBudget {
                bytes,
                at_least: false,
            },
            BadLine::TooLongPiece(bytes) => BadLine::OverBudget {
                bytes,
                at_least: true,
            },
            other => other,
        }
    }
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadLine::Empty => write!(f, "empty line"),
            BadLine::TooLong(n) => write!(f, "line of {n} bytes is longer than ‹max-line-bytes›"),
            BadLine::TooLongPiece(n) => {
                write!(
                    f,
                    "line of at least {n} bytes is longer than ‹max-line-bytes›"
                )
            }
            BadLine::OverBudget { bytes, at_least } => write!(
                f,
                "line of {}{bytes} bytes is over the memory budget (‹max-memory› signs documents \
                 of up to 1/32 of it)",
                if *at_least { "at least " } else { "" }
            ),
            BadLine::InvalidUtf8 => write!(f, "invalid UTF-8"),
            BadLine::InvalidJson(e) => write!(f, "invalid JSON: {e}"),
            BadLine::NotAnObject => write!(f, "JSON value is not an object"),
            BadLine::MissingField(p) => write!(f, "missing field '{p}'"),
            BadLine::NotAString(p) => write!(f, "field '{p}' is not a string"),
            BadLine::MissingId(p) => write!(f, "missing id field '{p}'"),
            BadLine::NullField(p) => write!(f, "field '{p}' is null"),
            BadLine::NullId(p) => write!(f, "id field '{p}' is null"),
            BadLine::BadId(p) => write!(f, "id field '{p}' is not a string or a number"),
            BadLine::NoTokens => write!(f, "no words left after normalisation"),
            BadLine::Missing => write!(f, "a missing value"),
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
    pub(crate) fn with_attrs(mut self, paths: &[String]) -> Extractor {
        self.attrs = paths
            .iter()
            .map(|p| p.split('.').map(str::to_string).collect())
            .collect();
        self
    }

    /// Like [`Extractor::extract`], and fills `attrs` with the value of each attribute path
    /// (`None` where a line lacks it or the value is JSON null).
    pub(crate) fn extract_with_attrs<'a>(
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
            Some((path, name)) => match id_of(lookup(&value, path), name)? {
                // A parsed number has lost its form (1e400 reads as 1e+400): take its text.
                DocId::Num(parsed) => DocId::Num(
                    std::str::from_utf8(line)
                        .ok()
                        .and_then(|line| raw_at(line, path))
                        .map_or(parsed, Into::into),
                ),
                id => id,
            },
        };
        for (slot, path) in attrs.iter_mut().zip(&self.attrs) {
            *slot = lookup(&value, path).filter(|v| !v.is_null()).cloned();
        }
        match lookup_mut(&mut value, &self.field) {
            None => Err(BadLine::MissingField(self.field_name.clone())),
            Some(Value::Null) => Err(BadLine::NullField(self.field_name.clone())),
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
        let id = match (&self.id_field, id) {
            (None, _) => DocId::Line(number),
            (Some((_, name)), None) => id_of(None, name).ok()?,
            (Some((_, name)), Some(raw)) => raw_id(raw, name).ok()?,
        };
        Some((found?, id))
    }
}

/// A line as UTF-8 text. Every line is checked, so with `simdutf8`'s vectorised check rather
/// than `std::str::from_utf8`.
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
    id: Option<&'de RawValue>,
}

impl<'de> serde::de::Visitor<'de> for FlatObject<'_, 'de> {
    type Value = (Option<Cow<'de, str>>, Option<&'de RawValue>);

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

/// The id a JSON value gives, from its text as written: a number keeps its digits and form
/// (`1e400`, `1.50`, `12345678901234567890123`), which no parsed number does.
pub fn raw_id(raw: &RawValue, name: &str) -> std::result::Result<DocId, BadLine> {
    let text = raw.get();
    if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return Ok(DocId::Num(text.into()));
    }
    let value: Value = serde_json::from_str(text).map_err(|_| BadLine::BadId(name.into()))?;
    id_of(Some(&value), name)
}

/// The text of the value at `path` in the JSON object `line`, as written (duplicate keys:
/// the last, as the parsed value has it).
fn raw_at<'a>(line: &'a str, path: &[String]) -> Option<&'a str> {
    let mut raw = line;
    for key in path {
        let object: std::collections::HashMap<String, &RawValue> =
            serde_json::from_str(raw).ok()?;
        raw = object.get(key.as_str())?.get();
    }
    Some(raw)
}

/// The id a JSON value gives (`name` is the id field, for the reason a line is bad).
fn id_of(value: Option<&Value>, name: &str) -> std::result::Result<DocId, BadLine> {
    match value {
        None => Err(BadLine::MissingId(name.to_string())),
        Some(Value::Null) => Err(BadLine::NullId(name.to_string())),
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
