//! Reading a corpus document by document, outside the pipeline: for the commands that read
//! the whole input once or twice on one thread (`idf`, `hist`, `sample`, `explain`, and
//! `--idf-warmup`), and counting its document frequencies ([`count`], [`warmup`]). Lines become text and id with the run's `--format`, `--field`,
//! `--id-field` and `--max-line-bytes`, exactly as the pipeline's workers read them; lines
//! that are not documents are counted and skipped.

use crate::error::Result;
use crate::input::settings::InputFormat;
use crate::input::{DocId, Extractor, Input, LineReader};
use crate::sketch::weights::{DfCounter, IdfTable, settings_of};
use crate::text::normalize::{Normalized, Normalizer};
use crate::text::shingle::Shingler;

/// How a corpus is read: the run's `‹input-format›`, `‹field›`, `‹id-field›`, `‹max-line-bytes›`
/// and normalisation.
#[derive(Clone, Copy, Debug)]
pub struct Reading<'a> {
    /// The input format.
    pub format: InputFormat,
    /// The JSON field holding the text.
    pub field: &'a str,
    /// The JSON field holding the id (else line numbers).
    pub id_field: Option<&'a str>,
    /// Without `id_field`: whether the `id` field is the id when the first lines have one.
    pub auto_ids: bool,
    /// Lines longer than this are not documents.
    pub max_line_bytes: usize,
    /// How texts are normalised.
    pub normalizer: &'a Normalizer,
}

/// One document of the corpus, as read.
#[derive(Debug)]
pub struct Document<'a> {
    /// 1-based line number over all inputs.
    pub line: u64,
    /// Its id.
    pub id: DocId,
    /// Its text, before normalisation.
    pub text: &'a str,
}

/// Calls `visit` with every document of `inputs` in order, until it returns `false`.
/// Returns the number of lines that were not documents.
pub(crate) fn for_each_document(
    reading: &Reading<'_>,
    inputs: Vec<Input>,
    mut visit: impl FnMut(Document<'_>) -> bool,
) -> Result<u64> {
    let by_line = Extractor::new(reading.field, reading.id_field, reading.max_line_bytes);
    let by_id = Extractor::new(reading.field, Some("id"), reading.max_line_bytes);
    let mut reader = LineReader::new(inputs, reading.format)
        .cutting_lines_over(reading.max_line_bytes)
        .auto_ids(reading.auto_ids && reading.id_field.is_none())
        .columns(crate::input::columnar::Columns {
            field: reading.field.to_string(),
            id_field: reading.id_field.map(str::to_string),
            all: false,
            max_bytes: reading.max_line_bytes,
            auto_id: reading.auto_ids,
            one_schema: false,
            attrs: Vec::new(),
            unusable_id: None,
        });
    let mut bad = 0;
    while let Some(batch) = reader.next_batch()? {
        if let Some(rows) = &batch.rows {
            // A columnar input's rows: their texts as they are, ids from the id column.
            for (i, line) in batch.lines.iter().enumerate() {
                let text = std::str::from_utf8(batch.content(i)).unwrap_or_default();
                if rows.problem(i).is_some() || text.trim().is_empty() {
                    bad += 1;
                    continue;
                }
                let id = match &rows.ids {
                    Some(ids) => ids[i].clone().unwrap_or(DocId::Line(line.number)),
                    None => DocId::Line(line.number),
                };
                let document = Document {
                    line: line.number,
                    id,
                    text,
                };
                if !visit(document) {
                    return Ok(bad);
                }
            }
            continue;
        }
        let extractor = match batch.ids_from_field {
            true => &by_id,
            false => &by_line,
        };
        for (i, line) in batch.lines.iter().enumerate() {
            // An over-long line's first piece is longer than the limit: a bad line.
            if line.part.continues() {
                continue;
            }
            match extractor.extract(batch.content(i), batch.format, line.number) {
                Ok((text, id)) => {
                    let document = Document {
                        line: line.number,
                        id,
                        text: &text,
                    };
                    if !visit(document) {
                        return Ok(bad);
                    }
                }
                Err(_) => bad += 1,
            }
        }
    }
    Ok(bad)
}

/// Calls `visit` with every document of `inputs` and its normalised text (what is a document:
/// [`Normalizer::document_into`], as in the pipeline). Returns the number of lines that were
/// not documents.
pub(crate) fn for_each_normalized(
    reading: &Reading<'_>,
    inputs: Vec<Input>,
    mut visit: impl FnMut(Document<'_>, &Normalized),
) -> Result<u64> {
    let mut normalized = Normalized::default();
    let mut empty = 0;
    let bad = for_each_document(reading, inputs, |document| {
        match reading
            .normalizer
            .document_into(document.text, &mut normalized)
        {
            Ok(()) => visit(document, &normalized),
            Err(_) => empty += 1,
        }
        true
    })?;
    Ok(bad + empty)
}

/// A document kept by [`reservoir`].
#[derive(Clone, Debug)]
pub struct Sampled {
    /// 1-based line number over all inputs.
    pub line: u64,
    /// Its id.
    pub id: DocId,
    /// Its normalised text.
    pub normalized: Normalized,
}

/// Reservoir-samples up to `size` documents of `inputs`, normalised (Vitter's algorithm R
/// with a fixed xorshift sequence from `seed`, so the sample is the same every run), and
/// counts the documents read. Memory is bounded by the sample, never by the input.
pub fn reservoir(
    reading: &Reading<'_>,
    seed: u64,
    inputs: Vec<Input>,
    size: usize,
) -> Result<(Vec<Sampled>, u64)> {
    let mut kept: Vec<Sampled> = Vec::with_capacity(size);
    let (mut seen, mut state) = (0u64, seed | 1);
    for_each_normalized(reading, inputs, |document, normalized| {
        seen += 1;
        let item = || Sampled {
            line: document.line,
            id: document.id.clone(),
            normalized: normalized.clone(),
        };
        if kept.len() < size {
            kept.push(item());
        } else {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let j = (state % seen) as usize;
            if j < size {
                kept[j] = item();
            }
        }
    })?;
    Ok((kept, seen))
}

/// The texts of the documents on the given lines (`lines` sorted), read from `inputs`; the
/// reading stops once all are found.
pub fn texts_of_lines(
    reading: &Reading<'_>,
    inputs: Vec<Input>,
    lines: &[u64],
) -> Result<std::collections::HashMap<u64, String>> {
    let mut texts = std::collections::HashMap::new();
    for_each_document(reading, inputs, |document| {
        if lines.binary_search(&document.line).is_ok() {
            texts.insert(document.line, document.text.to_string());
        }
        texts.len() < lines.len()
    })?;
    Ok(texts)
}

/// Counts document frequencies over the documents of `inputs` (bad lines are skipped and
/// counted). Returns the counter and the number of bad lines.
pub fn count(
    reading: &Reading<'_>,
    shingler: &Shingler,
    inputs: Vec<Input>,
) -> Result<(DfCounter, u64)> {
    let mut counter = DfCounter::default();
    let mut shingles = Vec::new();
    let bad = for_each_normalized(reading, inputs, |_, normalized| {
        shingler.shingles_into(normalized, &mut shingles);
        counter.add(&shingles);
    })?;
    Ok((counter, bad))
}

/// `--idf-warmup N`: reads the first `n` lines of the stream, learns document frequencies
/// from them, and returns the frozen table with inputs that replay those lines before the
/// rest of the stream (so they are filtered with the same weights as everything after).
pub fn warmup(
    reading: &Reading<'_>,
    shingler: &Shingler,
    inputs: Vec<Input>,
    n: usize,
) -> Result<(IdfTable, Vec<Input>)> {
    let mut remaining = n;
    let mut replay = Vec::with_capacity(inputs.len());
    let mut prefixes = Vec::new();
    for input in inputs {
        if remaining == 0 {
            replay.push(input);
            continue;
        }
        let (prefix, lines, input) = input.take_lines(remaining)?;
        remaining -= lines;
        prefixes.push(Input::from_reader(
            input.name.clone(),
            Box::new(std::io::Cursor::new(prefix.clone())),
        ));
        replay.push(input);
    }
    let (counter, _) = count(reading, shingler, prefixes)?;
    let settings = settings_of(shingler, reading.normalizer);
    Ok((counter.finish(usize::MAX, settings), replay))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(text: &str) -> Vec<Input> {
        vec![Input::from_reader(
            "test",
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        )]
    }

    fn normalizer() -> Normalizer {
        // "!!!" then has no words.
        Normalizer {
            strip_punct: true,
            ..Normalizer::default()
        }
    }

    fn reading(normalizer: &Normalizer) -> Reading<'_> {
        Reading {
            format: InputFormat::Jsonl,
            field: "text",
            id_field: Some("id"),
            auto_ids: false,
            max_line_bytes: 1 << 20,
            normalizer,
        }
    }

    const CORPUS: &str = "{\"id\":\"a\",\"text\":\"One Two\"}\nnot json\n\
                          {\"id\":\"b\",\"text\":\"!!!\"}\n{\"id\":\"c\",\"text\":\"three\"}\n";

    #[test]
    fn documents_in_order_bad_lines_counted() {
        let mut seen = Vec::new();
        let bad = for_each_document(&reading(&normalizer()), inputs(CORPUS), |d| {
            seen.push((d.line, d.id.to_string(), d.text.to_string()));
            true
        })
        .unwrap();
        assert_eq!(bad, 1);
        let ids: Vec<_> = seen.iter().map(|s| (s.0, s.1.as_str())).collect();
        assert_eq!(ids, [(1, "a"), (3, "b"), (4, "c")]);
    }

    #[test]
    fn normalized_skips_documents_without_words() {
        let mut seen = Vec::new();
        let bad = for_each_normalized(&reading(&normalizer()), inputs(CORPUS), |d, n| {
            seen.push((d.line, n.as_str().to_string()));
        })
        .unwrap();
        assert_eq!(bad, 2, "the invalid line and the one with no words");
        assert_eq!(seen, [(1, "one two".to_string()), (4, "three".to_string())]);
    }

    #[test]
    fn reservoir_keeps_everything_below_its_size_and_repeats() {
        let (kept, seen) = reservoir(&reading(&normalizer()), 1, inputs(CORPUS), 10).unwrap();
        assert_eq!((kept.len(), seen), (2, 2));
        let text: String = (0..500)
            .map(|i| format!("{{\"id\":{i},\"text\":\"word{i} other\"}}\n"))
            .collect();
        let lines = |k: &[Sampled]| k.iter().map(|s| s.line).collect::<Vec<_>>();
        let (a, seen) = reservoir(&reading(&normalizer()), 1, inputs(&text), 20).unwrap();
        let (b, _) = reservoir(&reading(&normalizer()), 1, inputs(&text), 20).unwrap();
        assert_eq!((a.len(), seen), (20, 500));
        assert_eq!(lines(&a), lines(&b));
        assert!(
            a.iter().any(|s| s.line > 20),
            "later documents replace earlier ones"
        );
    }

    #[test]
    fn texts_of_lines_stops_when_all_are_found() {
        let texts = texts_of_lines(&reading(&normalizer()), inputs(CORPUS), &[1, 4]).unwrap();
        assert_eq!(texts.len(), 2);
        assert_eq!(texts[&4], "three");
    }
}
