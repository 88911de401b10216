//! `neardup explain A B`: why two documents end up in one group.
//!
//! Finds the shortest chain of verified pairs between the two documents
//! ([`crate::graph::shortest_path`]: fewest hops, strongest weakest edge), then reads the
//! input a second time to fetch the texts on the path (only those are kept) and prints each
//! hop's similarity with a word diff, and the exact similarity of the two ends themselves —
//! which, for a chained component, is far below the threshold.

use super::args::{CommandInput, CommonArgs, check_similarity};
use crate::corpus::texts_of_lines;
use crate::diff::word_diff;
use crate::error::{Error, Result};
use crate::graph::DupGraph;
use crate::graph::{Adjacency, shortest_path};
use crate::input::Input;
use crate::job::GraphJob;
use crate::output::format_similarity;
use crate::pipeline::{self, Prepared};
use crate::text::normalize::Normalized;
use std::io::Write;

/// Arguments of `neardup explain`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// Id of the first document (as --pairs writes it: the line number unless --id-field).
    #[arg(value_name = "ID_A")]
    pub id_a: String,

    /// Id of the second document.
    #[arg(value_name = "ID_B")]
    pub id_b: String,

    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Only follow edges with at least this similarity.
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "S",
        allow_negative_numbers = true,
        help_heading = "Grouping"
    )]
    pub min_edge: f64,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl ExplainArgs {
    /// Builds the graph, then prints the path between the two documents with word diffs.
    pub fn run(self) -> Result<()> {
        // `explain 17 ads.jsonl`: one id, then a file taken for the second id.
        for id in [&self.id_a, &self.id_b] {
            if self.input.files.is_empty() && std::path::Path::new(id).is_file() {
                return Err(Error::Usage(format!(
                    "explain takes two ids, then the input files: '{id}' is a file, so an id \
                     is missing ('neardup explain ID_A ID_B FILE…')"
                )));
            }
        }
        let min_edge = check_similarity("min-edge", self.min_edge)?;
        let config = self.common.config(self.input)?.validate()?;
        // The input is read twice; standard input is copied to a file for that.
        let inputs = super::util::Rereadable::new(&config)?;
        // Freeze the IDF table once, so explain measures with the weights of the graph.
        let (prepared, first) = Prepared::new(config)?.with_idf(inputs.open()?)?;
        let config = &prepared.config;
        let mut stderr = super::util::diagnostics();
        let terminal = pipeline::stderr_is_terminal();
        let (summary, graph) = pipeline::collect_graph(
            &prepared,
            GraphJob::ids_only(),
            first,
            &mut stderr,
            terminal,
        )?;
        let adjacency = graph.adjacency(min_edge);
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let ids = (self.id_a.as_str(), self.id_b.as_str());
        // The lowest similarity a followed edge has: the threshold, or --min-edge above it.
        let cut = min_edge.max(config.verify.threshold);
        explain(
            &prepared,
            &graph,
            &adjacency,
            cut,
            ids,
            || inputs.open(),
            &mut out,
        )?;
        out.flush().map_err(|e| Error::io("writing output", e))?;
        if config.stats {
            let _ = writeln!(stderr, "{}", summary.to_json());
        }
        Ok(())
    }
}

/// Words of unchanged context shown on each side of a change.
const DIFF_CONTEXT: usize = 4;

/// The first node whose id, as written in TSV output, is `id`.
pub fn find_node(graph: &DupGraph, id: &str) -> Option<u32> {
    (0..graph.node_count() as u32).find(|&v| graph.node(v).id.to_string() == id)
}

/// The exact similarity of two texts under `config`'s normalisation, shingling and weights
/// (the measure the edges carry).
fn similarity(prepared: &Prepared, a: &str, b: &str) -> f64 {
    let config = &prepared.config;
    let shingler = prepared.shingler(config.text.bag);
    let normalize = |text: &str| {
        let mut normalized = Normalized::default();
        config.text.normalizer.normalize_into(text, &mut normalized);
        normalized
    };
    let idf = prepared.idf.as_deref();
    crate::verify::similarity(&shingler, idf, &normalize(a), &normalize(b))
}

/// Prints the explanation of `a`–`b` to `out`. `texts` maps line numbers to the texts of
/// (at least) the documents on the path; `reopen` gives the inputs for the second pass.
fn explain<W: Write>(
    prepared: &Prepared,
    graph: &DupGraph,
    adjacency: &Adjacency,
    cut: f64,
    ids: (&str, &str),
    reopen: impl FnOnce() -> Result<Vec<Input>>,
    out: &mut W,
) -> Result<()> {
    let config = &prepared.config;
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
    let texts = texts_of_lines(&crate::pipeline::reading(config), reopen()?, &wanted)?;
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
    let ends = similarity(prepared, text(a)?, text(b)?);
    let name = |v: u32| graph.node(v).id.to_string();
    let result = (|| -> std::io::Result<()> {
        let Some(path) = path else {
            writeln!(
                out,
                "no path: {} and {} are not connected by pairs at or above {}; their own \
                 similarity is {}",
                name(a),
                name(b),
                cut,
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
            cut
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
                writeln!(
                    out,
                    "  {}",
                    word_diff(tx, ty, DIFF_CONTEXT, config.text.normalizer.words)
                )?;
            }
        }
        Ok(())
    })();
    result.map_err(|e| Error::io("writing output", e))
}
