//! `neardup explain A B`: why two documents end up in one group.
//!
//! Finds the shortest chain of verified pairs between the two documents
//! ([`crate::cluster::shortest_path`]: fewest hops, strongest weakest edge), then reads the
//! input a second time to fetch the texts on the path (only those are kept) and prints each
//! hop's similarity with a word diff, and the exact similarity of the two ends themselves —
//! which, for a chained component, is far below the threshold.

use crate::cluster::{Adjacency, shortest_path};
use crate::config::Config;
use crate::diff::{diff, render};
use crate::error::{Error, Result};
use crate::graph::DupGraph;
use crate::input::{Extractor, Input, LineReader};
use crate::normalize::Normalized;
use crate::output::format_similarity;
use crate::shingle::Shingler;
use crate::verify::{fingerprints, jaccard, weighted_fingerprints, weighted_jaccard};
use crate::weights::Weigher;
use std::collections::HashMap;
use std::io::Write;

/// Words of unchanged context shown on each side of a change.
const DIFF_CONTEXT: usize = 4;

/// The first node whose id, as written in TSV output, is `id`.
pub fn find_node(graph: &DupGraph, id: &str) -> Option<u32> {
    (0..graph.node_count() as u32).find(|&v| graph.node(v).id.to_string() == id)
}

/// Reads `inputs` again and returns the text of the documents on the given lines (sorted,
/// distinct).
pub fn fetch_texts(
    config: &Config,
    inputs: Vec<Input>,
    lines: &[u64],
) -> Result<HashMap<u64, String>> {
    let extractor = Extractor::new(
        &config.field,
        config.id_field.as_deref(),
        config.max_line_bytes,
    );
    let mut reader = LineReader::new(inputs, config.format);
    let mut texts = HashMap::new();
    while let Some(batch) = reader.next_batch()? {
        for (i, line) in batch.lines.iter().enumerate() {
            if lines.binary_search(&line.number).is_ok()
                && let Ok((text, _)) =
                    extractor.extract(batch.content(i), batch.format, line.number)
            {
                texts.insert(line.number, text.into_owned());
            }
        }
        if texts.len() == lines.len() {
            break;
        }
    }
    Ok(texts)
}

/// Exact similarity of two texts under `config`'s normalisation, shingling and weights (the
/// measure the edges carry).
pub fn similarity(config: &Config, a: &str, b: &str) -> f64 {
    let shingler = Shingler::for_config(config, config.bag);
    let normalize = |text: &str| {
        let mut normalized = Normalized::default();
        config.normalizer.normalize_into(text, &mut normalized);
        normalized
    };
    let (na, nb) = (normalize(a), normalize(b));
    if let Some(table) = &config.idf {
        let (mut wa, mut wb) = (Weigher::default(), Weigher::default());
        wa.weigh(&shingler, &na, table);
        wb.weigh(&shingler, &nb, table);
        let (fa, ga) = weighted_fingerprints(&wa.elements, &wa.weights);
        let (fb, gb) = weighted_fingerprints(&wb.elements, &wb.weights);
        return weighted_jaccard((&fa, &ga, wa.total), (&fb, &gb, wb.total));
    }
    let shingles = |normalized: &Normalized| {
        let mut out = Vec::new();
        shingler.shingles_into(normalized, &mut out);
        fingerprints(&out)
    };
    jaccard(&shingles(&na), &shingles(&nb))
}

/// Prints the explanation of `a`–`b` to `out`. `texts` maps line numbers to the texts of
/// (at least) the documents on the path; `reopen` gives the inputs for the second pass.
pub fn explain<W: Write>(
    config: &Config,
    graph: &DupGraph,
    adjacency: &Adjacency,
    ids: (&str, &str),
    reopen: impl FnOnce() -> Result<Vec<Input>>,
    out: &mut W,
) -> Result<()> {
    let find = |id: &str| {
        find_node(graph, id).ok_or_else(|| Error::Data(format!("no document has the id '{id}'")))
    };
    let (a, b) = (find(ids.0)?, find(ids.1)?);
    let path = shortest_path(adjacency, a, b);
    let mut wanted: Vec<u64> = match &path {
        Some(p) => p.iter().map(|&v| graph.lines[v as usize]).collect(),
        None => Vec::new(),
    };
    wanted.extend([graph.lines[a as usize], graph.lines[b as usize]]);
    wanted.sort_unstable();
    wanted.dedup();
    let texts = fetch_texts(config, reopen()?, &wanted)?;
    let text = |v: u32| {
        texts
            .get(&graph.lines[v as usize])
            .map(String::as_str)
            .ok_or_else(|| {
                Error::Data(format!(
                    "document {} (line {}) could not be read again; did the input change?",
                    graph.node(v).id,
                    graph.lines[v as usize]
                ))
            })
    };
    let ends = similarity(config, text(a)?, text(b)?);
    let name = |v: u32| graph.node(v).id.to_string();
    let result = (|| -> std::io::Result<()> {
        let Some(path) = path else {
            writeln!(
                out,
                "no path: {} and {} are not connected by pairs at or above {}; their own \
                 similarity is {}",
                name(a),
                name(b),
                config.threshold,
                format_similarity(ends)
            )?;
            return Ok(());
        };
        let hops = path.len() - 1;
        let weakest = path
            .windows(2)
            .filter_map(|w| adjacency.weight(w[0], w[1]))
            .fold(f32::INFINITY, f32::min);
        if hops == 0 {
            writeln!(out, "{} and {} are the same document", ids.0, ids.1)?;
            return Ok(());
        }
        writeln!(
            out,
            "path {} -> {}: {hops} hop{}, weakest edge {}; the ends' own similarity is {} \
             (threshold {})",
            name(a),
            name(b),
            if hops == 1 { "" } else { "s" },
            format_similarity(f64::from(weakest)),
            format_similarity(ends),
            config.threshold
        )?;
        for w in path.windows(2) {
            let (x, y) = (w[0], w[1]);
            let s = adjacency.weight(x, y).unwrap_or(0.0);
            writeln!(
                out,
                "\n{} -- {}  similarity {}",
                name(x),
                name(y),
                format_similarity(f64::from(s))
            )?;
            let (tx, ty) = (
                texts.get(&graph.lines[x as usize]),
                texts.get(&graph.lines[y as usize]),
            );
            if let (Some(tx), Some(ty)) = (tx, ty) {
                let wx: Vec<&str> = tx.split_whitespace().collect();
                let wy: Vec<&str> = ty.split_whitespace().collect();
                writeln!(out, "  {}", render(&diff(&wx, &wy), DIFF_CONTEXT))?;
            }
        }
        Ok(())
    })();
    result.map_err(|e| Error::io("writing output", e))
}
