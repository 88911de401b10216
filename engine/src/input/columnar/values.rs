//! What a columnar input's columns hold: a column found by a dotted path, checked to hold
//! text (or ids), and read row by row as text, an id, or the JSON value a line's field would
//! give.

use super::Columns;
use crate::error::{Error, Result};
use crate::input::extract::DocId;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, SchemaRef};
use compact_str::CompactString;

/// The field at `path`: a top-level name as it is, else a dotted path through structs.
pub(super) fn find<'a>(fields: &'a Fields, path: &str) -> Option<&'a Field> {
    if let Some(f) = fields.iter().find(|f| f.name() == path) {
        return Some(f);
    }
    let (head, rest) = path.split_once('.')?;
    let f = fields.iter().find(|f| f.name() == head)?;
    match f.data_type() {
        DataType::Struct(children) => find(children, rest),
        _ => None,
    }
}

/// The column at `path` of `batch` (a top-level name as it is, else a dotted path through structs).
pub fn column(batch: &RecordBatch, path: &str) -> Option<ArrayRef> {
    if let Some(c) = batch.column_by_name(path) {
        return Some(c.clone());
    }
    let (head, rest) = path.split_once('.')?;
    let c = batch.column_by_name(head)?;
    let s: &StructArray = c.as_struct_opt()?;
    struct_column(s, rest)
}

fn struct_column(s: &StructArray, path: &str) -> Option<ArrayRef> {
    if let Some(c) = s.column_by_name(path) {
        return Some(c.clone());
    }
    let (head, rest) = path.split_once('.')?;
    let c = s.column_by_name(head)?;
    struct_column(c.as_struct_opt()?, rest)
}

/// The columns of `fields` with their types, dotted into structs: for messages.
pub fn describe(fields: &Fields) -> String {
    fn walk(fields: &Fields, prefix: &str, out: &mut Vec<String>) {
        for f in fields {
            let name = format!("{prefix}{}", f.name());
            match f.data_type() {
                DataType::Struct(children) => walk(children, &format!("{name}."), out),
                t => out.push(format!("{name} ({t})")),
            }
        }
    }
    let mut out = Vec::new();
    walk(fields, "", &mut out);
    out.join(", ")
}

/// Whether values of type `t` are texts a document can be.
pub(super) fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_text(values),
        _ => false,
    }
}

/// Whether values of type `t` can be ids.
pub(super) fn is_id(t: &DataType) -> bool {
    is_text(t)
        || matches!(
            t,
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
        )
}

/// [`Columns::auto_id`]: an `id` column of ids becomes the id column.
pub(super) fn auto_id(schema: &SchemaRef, columns: &mut Columns) {
    if columns.auto_id
        && columns.id_field.is_none()
        && let Some(f) = find(schema.fields(), "id")
        && is_id(f.data_type())
    {
        columns.id_field = Some("id".to_string());
    } else {
        if columns.auto_id
            && columns.id_field.is_none()
            && let Some(f) = find(schema.fields(), "id")
        {
            columns.unusable_id = Some(f.data_type().to_string());
        }
        columns.auto_id = false;
    }
}

/// Checks the text and id columns of `schema`: a usage error naming the input and its
/// columns when one is missing or of the wrong type.
pub(super) fn check(name: &str, schema: &SchemaRef, columns: &Columns) -> Result<()> {
    let fields = schema.fields();
    let mut wanted = vec![("field", columns.field.as_str(), true)];
    wanted.extend(columns.id_field.as_deref().map(|p| ("id-field", p, false)));
    for path in &columns.attrs {
        if find(fields, path).is_none() {
            return Err(Error::Usage(format!(
                "{name} has no column '{path}' (‹block-by›, ‹node-attr› or ‹keep›); its \
                 columns: {}",
                describe(fields)
            )));
        }
    }
    for (flag, path, text) in wanted {
        match find(fields, path) {
            None => {
                return Err(Error::Usage(format!(
                    "{name} has no column '{path}' (‹{flag}›); its columns: {}",
                    describe(fields)
                )));
            }
            Some(f) if text && !is_text(f.data_type()) => {
                return Err(Error::Usage(format!(
                    "{name}: column '{path}' (‹{flag}›) holds {}, not text; its columns: {}",
                    f.data_type(),
                    describe(fields)
                )));
            }
            Some(f) if !text && !is_id(f.data_type()) => {
                return Err(Error::Usage(format!(
                    "{name}: column '{path}' (‹{flag}›) holds {}, not text or integers",
                    f.data_type()
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The texts of a string column, whatever its encoding.
pub enum Texts<'a> {
    /// `Utf8`.
    Utf8(&'a arrow_array::StringArray),
    /// `LargeUtf8`.
    Large(&'a arrow_array::LargeStringArray),
    /// `Utf8View`.
    View(&'a arrow_array::StringViewArray),
    /// Dictionary-encoded: each row's key into the values.
    Dict(
        &'a dyn arrow_array::AnyDictionaryArray,
        Vec<usize>,
        Box<Texts<'a>>,
    ),
}

impl<'a> Texts<'a> {
    /// The column's texts, or `None` when it does not hold text.
    pub fn of(array: &'a ArrayRef) -> Option<Texts<'a>> {
        Texts::of_dyn(array.as_ref())
    }

    fn of_dyn(array: &'a dyn Array) -> Option<Texts<'a>> {
        match array.data_type() {
            DataType::Utf8 => Some(Texts::Utf8(array.as_string::<i32>())),
            DataType::LargeUtf8 => Some(Texts::Large(array.as_string::<i64>())),
            DataType::Utf8View => Some(Texts::View(array.as_string_view())),
            DataType::Dictionary(..) => {
                let dict = array.as_any_dictionary_opt()?;
                let values = Texts::of_dyn(dict.values().as_ref())?;
                Some(Texts::Dict(dict, dict.normalized_keys(), Box::new(values)))
            }
            _ => None,
        }
    }

    /// Row `i`'s text, `None` when it is null.
    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Texts::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Texts::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Texts::View(a) => a.is_valid(i).then(|| a.value(i)),
            Texts::Dict(d, keys, values) => match d.keys().is_valid(i) {
                true => values.get(keys[i]),
                false => None,
            },
        }
    }
}

/// Row `r`'s value in `col` as JSON: text as a string, integers, floats and booleans as
/// themselves, anything else as Arrow displays it (dates, timestamps, decimals); `None` when
/// null.
pub(super) fn json_value(col: &ArrayRef, r: usize) -> Option<serde_json::Value> {
    use serde_json::Value;
    if col.is_null(r) {
        return None;
    }
    if let Some(texts) = Texts::of(col) {
        return texts.get(r).map(|s| Value::String(s.to_string()));
    }
    let int = |v: i64| Some(Value::from(v));
    match col.data_type() {
        DataType::Boolean => Some(Value::Bool(col.as_boolean().value(r))),
        DataType::Int8 => int(col.as_primitive::<Int8Type>().value(r).into()),
        DataType::Int16 => int(col.as_primitive::<Int16Type>().value(r).into()),
        DataType::Int32 => int(col.as_primitive::<Int32Type>().value(r).into()),
        DataType::Int64 => int(col.as_primitive::<Int64Type>().value(r)),
        DataType::UInt8 => int(col.as_primitive::<UInt8Type>().value(r).into()),
        DataType::UInt16 => int(col.as_primitive::<UInt16Type>().value(r).into()),
        DataType::UInt32 => int(col.as_primitive::<UInt32Type>().value(r).into()),
        DataType::UInt64 => Some(Value::from(col.as_primitive::<UInt64Type>().value(r))),
        DataType::Float32 => {
            let v = col
                .as_primitive::<arrow_array::types::Float32Type>()
                .value(r);
            serde_json::Number::from_f64(f64::from(v)).map(Value::Number)
        }
        DataType::Float64 => {
            let v = col
                .as_primitive::<arrow_array::types::Float64Type>()
                .value(r);
            serde_json::Number::from_f64(v).map(Value::Number)
        }
        _ => {
            let options = arrow_cast::display::FormatOptions::default();
            let f = arrow_cast::display::ArrayFormatter::try_new(col.as_ref(), &options).ok()?;
            Some(Value::String(f.value(r).to_string()))
        }
    }
}

/// Row `r`'s id: `Some(None)` when it is null, `None` when the column holds no ids.
pub(super) fn id_of(col: &ArrayRef, r: usize) -> Option<Option<DocId>> {
    if let Some(texts) = Texts::of(col) {
        return Some(texts.get(r).map(|s| DocId::Str(CompactString::from(s))));
    }
    if col.is_null(r) {
        return Some(None);
    }
    let num = |v: String| Some(Some(DocId::Num(CompactString::from(v))));
    match col.data_type() {
        DataType::Int8 => num(col.as_primitive::<Int8Type>().value(r).to_string()),
        DataType::Int16 => num(col.as_primitive::<Int16Type>().value(r).to_string()),
        DataType::Int32 => num(col.as_primitive::<Int32Type>().value(r).to_string()),
        DataType::Int64 => num(col.as_primitive::<Int64Type>().value(r).to_string()),
        DataType::UInt8 => num(col.as_primitive::<UInt8Type>().value(r).to_string()),
        DataType::UInt16 => num(col.as_primitive::<UInt16Type>().value(r).to_string()),
        DataType::UInt32 => num(col.as_primitive::<UInt32Type>().value(r).to_string()),
        DataType::UInt64 => num(col.as_primitive::<UInt64Type>().value(r).to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use std::sync::Arc;

    fn batch() -> RecordBatch {
        let text: ArrayRef = Arc::new(StringArray::from(vec![Some("a b c"), None, Some("d")]));
        let id: ArrayRef = Arc::new(Int64Array::from(vec![Some(7), Some(8), None]));
        let meta = StructArray::from(vec![(
            Arc::new(Field::new("body", DataType::Utf8, true)),
            text.clone(),
        )]);
        RecordBatch::try_from_iter(vec![
            ("text", text),
            ("id", id),
            ("meta", Arc::new(meta) as ArrayRef),
        ])
        .unwrap()
    }

    #[test]
    fn finds_dotted_columns_and_describes() {
        let b = batch();
        let body = column(&b, "meta.body").unwrap();
        assert_eq!(Texts::of(&body).unwrap().get(0), Some("a b c"));
        assert!(column(&b, "meta.nope").is_none());
        assert_eq!(
            describe(b.schema().fields()),
            "text (Utf8), id (Int64), meta.body (Utf8)"
        );
    }

    #[test]
    fn ids_and_nulls() {
        let b = batch();
        let id = column(&b, "id").unwrap();
        assert!(matches!(id_of(&id, 0), Some(Some(DocId::Num(s))) if s == "7"));
        assert!(matches!(id_of(&id, 2), Some(None)));
        let text = column(&b, "text").unwrap();
        assert_eq!(Texts::of(&text).unwrap().get(1), None);
    }

    #[test]
    fn refuses_missing_and_mistyped_columns() {
        let schema = batch().schema();
        let cols = |field: &str, id: Option<&str>| Columns {
            field: field.into(),
            id_field: id.map(Into::into),
            ..Columns::default()
        };
        let e = check("x.parquet", &schema, &cols("body", None)).unwrap_err();
        assert!(e.to_string().contains("no column 'body'"), "{e}");
        assert!(e.to_string().contains("meta.body (Utf8)"), "{e}");
        let e = check("x.parquet", &schema, &cols("id", None)).unwrap_err();
        assert!(e.to_string().contains("holds Int64, not text"), "{e}");
        let e = check("x.parquet", &schema, &cols("text", Some("meta"))).unwrap_err();
        assert!(e.to_string().contains("not text or integers"), "{e}");
        assert!(check("x.parquet", &schema, &cols("meta.body", Some("id"))).is_ok());
    }

    #[test]
    fn dictionary_texts() {
        use arrow_array::DictionaryArray;
        use arrow_array::types::Int32Type;
        let d: DictionaryArray<Int32Type> = vec![Some("x"), None, Some("y"), Some("x")]
            .into_iter()
            .collect();
        let a: ArrayRef = Arc::new(d);
        let t = Texts::of(&a).unwrap();
        assert_eq!(
            (0..4).map(|i| t.get(i)).collect::<Vec<_>>(),
            vec![Some("x"), None, Some("y"), Some("x")]
        );
    }
}
