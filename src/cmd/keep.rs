//! `neardup clusters --keep POLICY`: one survivor per group, written as its input line
//! unchanged (of Parquet or Arrow input, as its row, as the filter writes rows). The input is read twice (standard input is copied to a file with no name in
//! `--spill-dir` for the second read): once to build the groups, once to write the survivors in input order.

use crate::config::{BadLinePolicy, Config, PairsFormat};
use crate::error::{Error, Result};
use crate::graph::DupGraph;
use crate::graph::survivors::Keep;
use crate::input::{Input, LineReader, Part};
use crate::output::Results;
use crate::output::table::{Encoding, TableWriter};
use std::io::Write;

/// Parses a `--keep` value: `first`, `last`, `longest`, `shortest`, `max:FIELD`,
/// `min:FIELD`. A field becomes the node attribute after those already in `node_attrs`.
pub fn parse(value: &str, node_attrs: &mut Vec<String>) -> Result<Keep> {
    let mut field = |f: &str| {
        if f.is_empty() {
            return Err(Error::config("keep", "max: and min: need a field name"));
        }
        node_attrs.push(f.to_string());
        Ok(node_attrs.len() - 1)
    };
    Ok(match value {
        "first" => Keep::First,
        "last" => Keep::Last,
        "longest" => Keep::Longest,
        "shortest" => Keep::Shortest,
        _ => match value.split_once(':') {
            Some(("max", f)) => Keep::Max(field(f)?),
            Some(("min", f)) => Keep::Min(field(f)?),
            _ => {
                return Err(Error::config(
                    "keep",
                    format!(
                        "'{value}' is not first, last, longest, shortest, max:FIELD or min:FIELD"
                    ),
                ));
            }
        },
    })
}

/// What the second read wrote and left out.
#[derive(Debug, Default, PartialEq)]
pub struct Written {
    /// Lines read.
    pub read: u64,
    /// Survivors written.
    pub kept: u64,
    /// Documents left out (another member of their group survived).
    pub dropped: u64,
    /// Lines that were not documents (written through with `--on-bad-line pass`).
    pub bad: u64,
}

/// Reads `inputs` again and writes, in input order, the line of every survivor (node indices
/// `survivors` of `graph`) and, with `--on-bad-line pass`, every bad line; the others are
/// counted as dropped. Bad lines were reported by the first read.
pub fn write_survivors<W: Write>(
    config: &Config,
    inputs: Vec<Input>,
    graph: &DupGraph,
    survivors: &[u32],
    out: W,
) -> Result<Written> {
    let mut kept: Vec<u64> = survivors.iter().map(|&v| graph.lines[v as usize]).collect();
    kept.sort_unstable();
    // The documents' line numbers, ascending: a line that is not one was a bad line.
    let documents = &graph.lines;
    let pass = config.read.on_bad_line == BadLinePolicy::Pass;
    // Lines (the format of pairs does not apply), or the rows of a Parquet or Arrow input
    // as the filter writes them.
    let mut inputs = inputs;
    let filter = crate::job::Job::Filter(crate::job::FilterJob::default());
    let encoding = crate::pipeline::prepare::table_encoding(config, &filter, &mut inputs)?;
    let mut out = Results::new(out, PairsFormat::Tsv);
    if let Some(encoding) = encoding {
        let table = TableWriter::new(
            encoding,
            config.run.output.clone(),
            false,
            false,
            &config.read.field,
        )
        .row_groups_of(config.memory.row_group_bytes())
        .encoding_on(config.memory.row_groups_at_once(config.worker_threads()))
        .standard_output(Some(crate::stdout::for_table));
        out = out.with_table(table);
    }
    let mut reader = LineReader::new(inputs, config.read.format)
        .cutting_lines_over(config.read.max_line_bytes)
        .columns(crate::input::columnar::Columns {
            one_schema: encoding.is_some_and(|e| e != Encoding::Jsonl),
            ..crate::pipeline::prepare::columns(config, &filter, encoding.is_some())
        });
    let mut written = Written::default();
    let result = survivors_of(&mut reader, &mut out, (documents, &kept), pass, &mut written);
    // A failed write says how far the output got (it ends at a whole line: the binary's
    // `Stdout` cuts a file back to the last whole line written).
    let path = config.run.output.as_deref();
    let result = result.map_err(|e| out.written_so_far(e, written.read, path));
    match &result {
        Ok(()) | Err(Error::Stopped { .. }) => out.finish()?,
        Err(_) => out.abandon(),
    }
    result?;
    if written.kept != kept.len() as u64 {
        return Err(Error::Data(format!(
            "the input changed between its two reads ({} of {} survivors found)",
            written.kept,
            kept.len()
        )));
    }
    Ok(written)
}

/// The second read of [`write_survivors`]: `documents` are the documents' line numbers and
/// `kept` the survivors', both ascending; counts into `written` as it goes.
fn survivors_of<W: Write>(
    reader: &mut LineReader,
    out: &mut Results<W>,
    (documents, kept): (&[u64], &[u64]),
    pass: bool,
    written: &mut Written,
) -> Result<()> {
    let (mut next_doc, mut next_kept) = (0, 0);
    let mut passing = false;
    while let Some(batch) = reader.next_batch()? {
        // A signal ends the second read between batches: what is written so far stays (a
        // table gets its footer, [`write_survivors`]).
        if let Some(signal) = crate::guard::stop_requested() {
            return Err(Error::Stopped {
                status: 128 + signal,
                message: Some(format!(
                    "interrupted (signal {signal}) after the input ended, while writing the \
                     survivors of {} input lines; the output ends at a whole line",
                    written.read
                )),
            });
        }
        for (i, line) in batch.lines.iter().enumerate() {
            if line.part.continues() {
                if passing {
                    match line.part {
                        Part::Last => out.line(batch.raw(i))?,
                        _ => out.piece(batch.raw(i))?,
                    }
                }
                continue;
            }
            written.read += 1;
            out.at_line(written.read);
            passing = false;
            while next_doc < documents.len() && documents[next_doc] < line.number {
                next_doc += 1;
            }
            if documents.get(next_doc) != Some(&line.number) {
                written.bad += 1;
                if pass {
                    passing = true;
                    match line.part {
                        Part::First => out.piece(batch.raw(i))?,
                        _ => out.document(&batch, i)?,
                    }
                }
                continue;
            }
            while next_kept < kept.len() && kept[next_kept] < line.number {
                next_kept += 1;
            }
            if kept.get(next_kept) == Some(&line.number) {
                written.kept += 1;
                out.document(&batch, i)?;
            } else {
                written.dropped += 1;
            }
        }
        out.end_batch(&batch)?;
    }
    Ok(())
}
