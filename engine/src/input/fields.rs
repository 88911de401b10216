//! What the JSON lines of a batch hold, for the message that stops a run whose `--field` or
//! `--id-field` names nothing in its first lines: the fields there are, how many of the
//! lines have each, and the one to use instead.

use super::Batch;
use crate::error::Note;
use serde_json::Value;

/// A top-level field of the lines looked at: its name, the lines where it is a string (or,
/// for ids, a string or an integer), and the bytes of those strings in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Lines where it has the wanted type.
    pub lines: usize,
    /// Bytes of its strings in those lines (1 for an integer id).
    pub bytes: usize,
}

/// What the field looked for is: the text (strings only) or the id (strings or integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// `--field`: a string.
    Text,
    /// `--id-field`: a string or an integer.
    Id,
}

/// The top-level fields of `batch`'s JSON objects that could be `wanted`, the most common
/// first (then the longest: the likeliest text), with the number of lines looked at.
pub(crate) fn inventory(batch: &Batch, wanted: Wanted) -> (Vec<Field>, usize) {
    let mut fields: Vec<Field> = Vec::new();
    let mut looked = 0;
    for i in 0..batch.lines.len() {
        if batch.lines[i].part.continues() {
            continue;
        }
        looked += 1;
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(batch.content(i)) else {
            continue;
        };
        for (name, value) in map {
            let bytes = match (&value, wanted) {
                (Value::String(s), _) => s.len(),
                (Value::Number(n), Wanted::Id) if n.is_i64() || n.is_u64() => 1,
                _ => continue,
            };
            match fields.iter_mut().find(|f| f.name == name) {
                Some(f) => {
                    f.lines += 1;
                    f.bytes += bytes;
                }
                None => fields.push(Field {
                    name,
                    lines: 1,
                    bytes,
                }),
            }
        }
    }
    fields.sort_by(|a, b| {
        (b.lines, b.bytes)
            .cmp(&(a.lines, a.bytes))
            .then_with(|| a.name.cmp(&b.name))
    });
    (fields, looked)
}

/// Whether the first lines of `batch` (up to 32 that are not blank) each hold an `id` that
/// is a string or an integer: then, with no `--id-field`, that field is the documents' id.
pub(crate) fn ids_in(batch: &Batch) -> bool {
    let mut looked = 0;
    for i in 0..batch.lines.len() {
        if looked == 32 {
            break;
        }
        if batch.lines[i].part.continues() || batch.content(i).trim_ascii().is_empty() {
            continue;
        }
        looked += 1;
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(batch.content(i)) else {
            return false;
        };
        match map.get("id") {
            Some(Value::String(_)) => {}
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
            _ => return false,
        }
    }
    looked > 0
}

/// The message for `missing` of `looked` first lines of `input` lacking `flag`'s `path`:
/// the fields they have and the one to use, as the command line's flag (‹field›).
pub(crate) fn missing_message(
    batch: &Batch,
    input: &str,
    flag: &str,
    path: &str,
    missing: usize,
    wanted: Wanted,
) -> String {
    let (fields, looked) = inventory(batch, wanted);
    let kinds = match wanted {
        Wanted::Text => "string fields",
        Wanted::Id => "string or integer fields",
    };
    let listed: Vec<String> = fields
        .iter()
        .take(8)
        .map(|f| format!("{} ({} of {looked})", f.name, f.lines))
        .collect();
    let have = match listed.is_empty() {
        true => format!("they have no top-level {kinds}"),
        false => format!("their {kinds}: {}", listed.join(", ")),
    };
    // The text is the string field in most lines with the most bytes; an id, the field in
    // most lines (an id named like one first).
    let best = match wanted {
        Wanted::Text => fields.iter().max_by_key(|f| (f.lines, f.bytes)),
        Wanted::Id => fields
            .iter()
            .max_by_key(|f| (f.lines, f.name.to_ascii_lowercase().contains("id"))),
    };
    let fix = match best {
        Some(f) if f.lines * 2 > looked => format!("; use ‹{flag}› {}", f.name),
        _ => String::new(),
    };
    format!(
        "{input}: no field '{path}' in {missing} of the first {looked} lines ({have}){fix}; a \
         nested field is a dotted path (‹{flag}› body.text)"
    )
}

/// What a first batch whose ids were decided says of them: where they come from, or that
/// the rows are numbered because the 'id' column holds neither text nor integers.
pub(crate) fn ids_note(batch: &Batch) -> Note {
    let unusable = batch.rows.as_ref().and_then(|r| r.unusable_id.as_ref());
    Note::info(match (unusable, batch.rows.is_some()) {
        (Some(kind), _) => format!(
            "ids: the rows are numbered: the 'id' column holds {kind}, not text or integers \
             (‹id-field› none numbers them without this note)"
        ),
        (None, true) => {
            "ids: each row's 'id' column (‹id-field› none numbers the rows instead)".to_string()
        }
        (None, false) => {
            "ids: each line's 'id' field (‹id-field› none numbers the lines instead)".to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Input, LineReader};

    fn batch(text: &str) -> Batch {
        let input = Input::from_reader("t", Box::new(std::io::Cursor::new(text.to_string())));
        let mut reader = LineReader::new(vec![input], crate::input::settings::InputFormat::Jsonl);
        reader.next_batch().unwrap().unwrap()
    }

    #[test]
    fn names_the_fields_and_the_likeliest_text() {
        let b = batch(
            "{\"id\":1,\"title\":\"A\",\"body\":\"a long body of text\"}\n\
             {\"id\":2,\"title\":\"B\",\"body\":\"another long body\"}\n\
             {\"id\":3,\"title\":\"C\",\"n\":4.5}\n",
        );
        let m = missing_message(&b, "ads.jsonl", "field", "text", 3, Wanted::Text);
        assert!(
            m.starts_with("ads.jsonl: no field 'text' in 3 of the first 3 lines"),
            "{m}"
        );
        assert!(m.contains("title (3 of 3), body (2 of 3)"), "{m}");
        assert!(m.contains("use ‹field› title"), "{m}");
        let m = missing_message(&b, "ads.jsonl", "id-field", "uid", 3, Wanted::Id);
        assert!(m.contains("id (3 of 3)"), "{m}");
        assert!(m.contains("use ‹id-field› id"), "{m}");
    }

    #[test]
    fn lines_that_are_not_objects_have_no_fields() {
        let b = batch("[1,2]\nnot json\n");
        let m = missing_message(&b, "x", "field", "text", 2, Wanted::Text);
        assert!(m.contains("they have no top-level string fields"), "{m}");
        assert!(!m.contains("; use"), "{m}");
    }
}
