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
/// is a string or an integer: then (`Ok`), with no `--id-field`, that field is the
/// documents' id. Else the lines are numbered, and when some of those lines have an `id`
/// the error says which line's is not usable (`None`: fewer than half of them have one, or
/// one is not a JSON object, which the bad-line policy reports).
pub(crate) fn ids_in(batch: &Batch) -> Result<(), Option<String>> {
    let (mut looked, mut with_id, mut unusable) = (0, 0, None);
    for i in 0..batch.lines.len() {
        if looked == 32 {
            break;
        }
        if batch.lines[i].part.continues() || batch.content(i).trim_ascii().is_empty() {
            continue;
        }
        looked += 1;
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(batch.content(i)) else {
            return Err(None);
        };
        let what = match map.get("id") {
            Some(Value::String(_)) => None,
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => None,
            Some(Value::Number(_)) => Some("a fraction"),
            Some(Value::Null) => Some("null"),
            Some(Value::Bool(_)) => Some("a boolean"),
            Some(Value::Array(_)) => Some("an array"),
            Some(Value::Object(_)) => Some("an object"),
            None => Some("missing"),
        };
        with_id += usize::from(map.contains_key("id"));
        if let (Some(what), None) = (what, &unusable) {
            unusable = Some(format!(
                "line {}'s 'id' is {what}",
                batch.lines[i].input_line
            ));
        }
    }
    match unusable {
        None if looked > 0 => Ok(()),
        Some(why) if with_id * 2 >= looked => Err(Some(why)),
        _ => Err(None),
    }
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
/// the lines (rows) are numbered because an 'id' field (column) holds neither text nor
/// integers.
pub(crate) fn ids_note(batch: &Batch) -> Note {
    if let Some(why) = &batch.unusable_id {
        return Note::info(format!(
            "ids: the lines are numbered: {why}, not text or an integer (‹id-field› id takes \
             the field, a line without a usable one being a bad line; ‹id-field› none numbers \
             them without this note)"
        ));
    }
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
    fn lines_with_ids_say_which_one_is_not_usable() {
        assert_eq!(ids_in(&batch("{\"id\":\"a\"}\n{\"id\":7}\n")), Ok(()));
        let why = |text: &str| ids_in(&batch(text)).unwrap_err();
        assert_eq!(
            why("{\"id\":\"a\"}\n\n{\"id\":null}\n"),
            Some("line 3's 'id' is null".to_string())
        );
        assert_eq!(
            why("{\"id\":1.5}\n{\"id\":true}\n"),
            Some("line 1's 'id' is a fraction".to_string())
        );
        assert_eq!(
            why("{\"id\":\"a\"}\n{\"text\":\"b\"}\n"),
            Some("line 2's 'id' is missing".to_string())
        );
        // No ids to speak of: numbered without a word.
        assert_eq!(
            why("{\"text\":\"a\"}\n{\"text\":\"b\"}\n{\"id\":3}\n"),
            None
        );
        assert_eq!(why("{\"id\":\"a\"}\nnot json\n"), None);
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
