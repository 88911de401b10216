//! `neardup sample`: example pairs per similarity bin, with word diffs (methods §4), to see
//! what a threshold means on your data before choosing it.
//!
//! Bins whose lower edge is at least [`LSH_FROM`] are filled from the whole stream: the
//! engine (MinHash + LSH + exact verification, every flag applies) collects all pairs above
//! the lowest such edge. Pairs that similar are rare, so a sample of documents would hold
//! almost none. Lower bins are filled from a seeded reservoir sample of documents (`--sample`)
//! whose pairs are all compared exactly: those pairs are common. Within a bin, pairs are
//! picked in a fixed pseudo-random order (a hash of the two line numbers), so runs repeat.
//! The texts of the shown pairs are fetched by reading the input a second time.

use super::args::{CommandInput, CommonArgs, SampleSize};
use crate::config::{Config, SketchSettings, VerifySettings, Weights};
use crate::corpus::{reservoir, texts_of_lines};
use crate::diff::word_diff;
use crate::error::{Error, Result};
use crate::hash::mix64;
use crate::input::{DocId, Input};
use crate::job::GraphJob;
use crate::output::format_similarity;
use crate::pipeline::Prepared;
use crate::verify::{Fingerprint, jaccard, shingle_set};
use std::io::Write;

/// Arguments of `neardup sample`.
#[derive(clap::Args, Debug)]
pub struct SampleArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Ascending bin edges; the last bin runs to 1.
    #[arg(long, value_delimiter = ',', default_values_t = [0.1, 0.2, 0.3, 0.5, 0.8], value_name = "EDGES", help_heading = "Output")]
    pub bins: Vec<f64>,

    /// Pairs shown per bin.
    #[arg(long, default_value_t = 5, value_name = "N", help_heading = "Output")]
    pub per_bin: usize,

    /// Sample size, for the bins below 0.5.
    #[command(flatten)]
    pub sample: SampleSize,

    /// Write JSON lines ({"bin", "id_a", "id_b", "similarity", "diff"}) instead of text.
    #[arg(long, help_heading = "Output")]
    pub jsonl: bool,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl SampleArgs {
    /// Collects the example pairs and writes them with their diffs to standard output.
    pub fn run(self) -> Result<()> {
        bins_from_edges(&self.bins)?;
        let config = self.common.config(self.input)?.validate()?;
        if config.sketch.weights == Weights::TfIdf {
            return Err(Error::config(
                "weights",
                "sample compares set or bag shingles; tfidf is not supported here",
            ));
        }
        // The input is read more than once; standard input is kept in memory for that.
        let inputs = super::util::Rereadable::new(&config)?;
        let open = || inputs.open();
        let sample = self.sample.documents()?;
        let prepared = Prepared::new(config)?;
        let found = collect(&prepared, &self.bins, self.per_bin, sample, &open)?;
        let config = &prepared.config;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        write(config, &found, self.jsonl, &open, &mut out)
    }
}

/// Bins starting at or above this similarity are filled by LSH over the whole stream.
pub const LSH_FROM: f64 = 0.5;

/// Words of unchanged context around each change in the diffs.
const CONTEXT: usize = 4;

/// One example pair.
#[derive(Clone, Debug)]
pub struct Example {
    /// Line numbers (earlier, later).
    pub lines: (u64, u64),
    /// Their ids.
    pub ids: (DocId, DocId),
    /// Their similarity.
    pub similarity: f64,
}

/// The pairs of one bin.
#[derive(Clone, Debug)]
pub struct Bin {
    /// Lower edge (inclusive).
    pub lo: f64,
    /// Upper edge (exclusive, except 1.0).
    pub hi: f64,
    /// Pairs found in the bin (all of them, before picking).
    pub found: u64,
    /// Where they came from.
    pub source: &'static str,
    /// The picked examples, in pick order.
    pub examples: Vec<Example>,
}

/// Bins from ascending edges: [e0, e1), …, [e_last, 1].
pub fn bins_from_edges(edges: &[f64]) -> Result<Vec<(f64, f64)>> {
    if edges.is_empty()
        || edges.windows(2).any(|w| w[0] >= w[1])
        || edges.iter().any(|e| !(0.0..1.0).contains(e))
    {
        return Err(Error::config(
            "bins",
            "give ascending edges in [0, 1), e.g. 0.1,0.2,0.3,0.5,0.8",
        ));
    }
    let mut out: Vec<(f64, f64)> = edges.windows(2).map(|w| (w[0], w[1])).collect();
    out.push((*edges.last().expect("not empty"), 1.0));
    Ok(out)
}

fn in_bin(s: f64, (lo, hi): (f64, f64)) -> bool {
    s >= lo - 1e-12 && (s < hi - 1e-12 || (hi >= 1.0 && s <= 1.0 + 1e-12))
}

fn pick_key(lines: (u64, u64), seed: u64) -> u64 {
    mix64(lines.0 ^ mix64(lines.1 ^ seed))
}

/// Collects the examples of every bin. `open` gives the inputs afresh (it is called up to
/// three times).
fn collect(
    prepared: &Prepared,
    edges: &[f64],
    per_bin: usize,
    sample: usize,
    open: &dyn Fn() -> Result<Vec<Input>>,
) -> Result<Vec<Bin>> {
    let config = &prepared.config;
    let ranges = bins_from_edges(edges)?;
    let mut bins: Vec<Bin> = ranges
        .iter()
        .map(|&(lo, hi)| Bin {
            lo,
            hi,
            found: 0,
            source: if lo >= LSH_FROM {
                "LSH over all documents"
            } else {
                "all pairs of the sample"
            },
            examples: Vec::new(),
        })
        .collect();
    let mut candidates: Vec<Vec<(u64, Example)>> = vec![Vec::new(); bins.len()];
    let push = |bin: &mut Vec<(u64, Example)>, lines, ids, similarity| {
        let key = pick_key(lines, config.sketch.seed);
        bin.push((
            key,
            Example {
                lines,
                ids,
                similarity,
            },
        ));
    };

    if let Some(low) = ranges.iter().map(|r| r.0).find(|&lo| lo >= LSH_FROM) {
        let lsh = config.clone().into_config();
        let lsh = Config {
            verify: VerifySettings {
                threshold: low.max(1e-6),
                ..lsh.verify.clone()
            },
            sketch: SketchSettings {
                bands: None,
                rows: None,
                ..lsh.sketch.clone()
            },
            ..lsh
        }
        .validate()?;
        let mut sink: Vec<crate::error::Note> = Vec::new();
        let lsh = Prepared {
            config: lsh,
            ..prepared.clone()
        };
        let ids = GraphJob::ids_only();
        let (_, graph) = crate::pipeline::collect_graph(&lsh, ids, open()?, &mut sink, false)?;
        for (a, b, s) in graph.edges() {
            let s = f64::from(s);
            let lines = (graph.lines[a as usize], graph.lines[b as usize]);
            if let Some(k) = ranges.iter().position(|&r| r.0 >= LSH_FROM && in_bin(s, r)) {
                let ids = (graph.node(a).id.clone(), graph.node(b).id.clone());
                push(&mut candidates[k], lines, ids, s);
            }
        }
    }

    if ranges.iter().any(|r| r.0 < LSH_FROM) {
        let (docs, _) = reservoir(
            &crate::pipeline::reading(config),
            config.sketch.seed,
            open()?,
            sample,
        )?;
        let shingler = prepared.shingler(config.text.bag);
        let sets: Vec<Vec<Fingerprint>> = docs
            .iter()
            .map(|d| shingle_set(&shingler, &d.normalized))
            .collect();
        for j in 0..sets.len() {
            for i in 0..j {
                let s = jaccard(&sets[i], &sets[j]);
                if let Some(k) = ranges.iter().position(|&r| r.0 < LSH_FROM && in_bin(s, r)) {
                    let (x, y) = if docs[i].line < docs[j].line {
                        (i, j)
                    } else {
                        (j, i)
                    };
                    let lines = (docs[x].line, docs[y].line);
                    let ids = (docs[x].id.clone(), docs[y].id.clone());
                    push(&mut candidates[k], lines, ids, s);
                }
            }
        }
    }

    for (bin, mut found) in bins.iter_mut().zip(candidates) {
        bin.found = found.len() as u64;
        found.sort_by_key(|(key, e)| (*key, e.lines));
        bin.examples = found.into_iter().take(per_bin).map(|(_, e)| e).collect();
    }
    Ok(bins)
}

/// Writes the bins as text (default) or JSON lines, with a word diff per pair.
fn write<W: Write>(
    config: &Config,
    bins: &[Bin],
    jsonl: bool,
    open: &dyn Fn() -> Result<Vec<Input>>,
    out: &mut W,
) -> Result<()> {
    let mut lines: Vec<u64> = bins
        .iter()
        .flat_map(|b| b.examples.iter().flat_map(|e| [e.lines.0, e.lines.1]))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let texts = texts_of_lines(&crate::pipeline::reading(config), open()?, &lines)?;
    let diff_of = |e: &Example| -> String {
        match (texts.get(&e.lines.0), texts.get(&e.lines.1)) {
            (Some(a), Some(b)) => word_diff(a, b, CONTEXT, config.text.normalizer.words),
            _ => "(text not found on the second reading)".to_string(),
        }
    };
    let result = (|| -> std::io::Result<()> {
        for bin in bins {
            if !jsonl {
                writeln!(
                    out,
                    "== J in [{}, {}{}: {} pairs ({}), showing {}",
                    bin.lo,
                    bin.hi,
                    if bin.hi >= 1.0 { "]" } else { ")" },
                    bin.found,
                    bin.source,
                    bin.examples.len()
                )?;
            }
            for e in &bin.examples {
                if jsonl {
                    let mut line = Vec::new();
                    line.extend_from_slice(
                        format!("{{\"bin\":[{},{}],\"id_a\":", bin.lo, bin.hi).as_bytes(),
                    );
                    e.ids.0.write_json(&mut line);
                    line.extend_from_slice(b",\"id_b\":");
                    e.ids.1.write_json(&mut line);
                    line.extend_from_slice(
                        format!(
                            ",\"similarity\":{},\"diff\":",
                            format_similarity(e.similarity)
                        )
                        .as_bytes(),
                    );
                    crate::input::write_json_string(&diff_of(e), &mut line);
                    line.extend_from_slice(b"}\n");
                    out.write_all(&line)?;
                } else {
                    writeln!(
                        out,
                        "\n{} -- {}  similarity {}",
                        e.ids.0,
                        e.ids.1,
                        format_similarity(e.similarity)
                    )?;
                    writeln!(out, "  {}", diff_of(e))?;
                }
            }
            if !jsonl {
                writeln!(out)?;
            }
        }
        out.flush()
    })();
    result.map_err(|e| Error::io("writing output", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_and_edges() {
        let b = bins_from_edges(&[0.1, 0.2, 0.5, 0.8]).unwrap();
        assert_eq!(b, vec![(0.1, 0.2), (0.2, 0.5), (0.5, 0.8), (0.8, 1.0)]);
        assert!(in_bin(1.0, (0.8, 1.0)) && in_bin(0.8, (0.8, 1.0)) && !in_bin(0.8, (0.5, 0.8)));
        assert!(bins_from_edges(&[]).is_err());
        assert!(bins_from_edges(&[0.5, 0.2]).is_err());
        assert!(bins_from_edges(&[0.5, 1.0]).is_err());
    }
}
