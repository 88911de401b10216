//! `neardup tune`: what bands × rows a threshold and K give, and what they cost.
//!
//! Prints the chosen banding ([`LshParams::for_recall`] unless `--bands`/`--rows` are
//! given), whether it reaches the recall target at the threshold, the S-curve
//! P(candidate | J) on a grid of J, the false-positive and false-negative areas, the
//! alternatives (for each number of rows, the fewest bands reaching the target) ranked the
//! same way, and can write the S-curves as an SVG plot.

use super::args::{CommandInput, CommonArgs, SampleSize};
use super::plot::svg_open;
use crate::config::Config;
use crate::corpus::{Sampled, reservoir};
use crate::error::Result;
use crate::input::Input;
use crate::job::Output;
use crate::pipeline::{Deduper, Outcome};
use crate::sketch::lsh::LshParams;
use crate::text::shingle::Shingler;
use crate::verify::sample_pairs::pair_counts;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `neardup tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// A corpus to price the bandings on (optional; '-' for standard input): a sample's
    /// pairwise similarities give each banding's candidates per document and recall.
    #[command(flatten)]
    pub input: CommandInput,

    /// Sample size.
    #[command(flatten)]
    pub sample: SampleSize,

    /// Also write the S-curves as an SVG plot to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub plot: Option<PathBuf>,

    /// Threshold, K, banding, recall target, shingles and input settings.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl TuneArgs {
    /// Prints the report (and writes the plot).
    pub fn run(self) -> Result<()> {
        let size = self.sample.documents()?;
        let priced = !self.input.files.is_empty();
        let config = self.common.config(self.input)?.validate()?;
        let sample = match priced {
            true => Some(Sample::of(&config, size)?),
            false => None,
        };
        super::util::print(&report(&config, sample.as_ref()))?;
        if let Some(path) = &self.plot {
            super::util::write_file(
                path,
                &svg(
                    config.sketch.lsh,
                    config.verify.threshold,
                    config.sketch.num_perm,
                    config.sketch.recall,
                ),
            )?;
        }
        Ok(())
    }
}

/// Bins per unit of similarity in a [`Sample`]: fine, because most pairs of a corpus lie
/// below 0.01, where one-row bands still make candidates of some.
const BINS: usize = 10_000;

/// Sampled documents the bound is tried on at most: the exact greedy filter it is compared
/// with verifies every candidate, quadratic in a family's size.
const BOUND_DOCS: usize = 5_000;

/// The pairwise similarities of a reservoir sample of a corpus, to price a banding.
pub struct Sample {
    /// Sampled pairs per bin ([`BINS`] + 1 bins).
    counts: Vec<u64>,
    /// Documents sampled.
    sampled: usize,
    /// Documents in the corpus.
    docs: u64,
    /// What the `--max-candidates` bound costs: documents the filter drops from the sample
    /// (at most [`BOUND_DOCS`] of it, in input order) with the run's bound, twice and four
    /// times it, and without it (0, the exact greedy answer).
    bound: Vec<(usize, u64)>,
    /// Documents the bound was tried on.
    bound_docs: usize,
}

impl Sample {
    /// Samples `size` documents of the config's inputs and bins all their pairs.
    fn of(config: &Config, size: usize) -> Result<Sample> {
        let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
        let (docs, seen) = reservoir(
            &crate::pipeline::reading(config),
            config.sketch.seed,
            inputs,
            size,
        )?;
        let counts = pair_counts(
            &Shingler::new(config.text.shingle, config.text.bag, config.sketch.seed),
            &docs,
            BINS,
            config.worker_threads(),
        );
        let mut ordered: Vec<&Sampled> = docs.iter().collect();
        ordered.sort_by_key(|d| d.line);
        ordered.truncate(BOUND_DOCS);
        Ok(Sample {
            counts,
            sampled: docs.len(),
            docs: seen,
            bound: bound_drops(config, &ordered)?,
            bound_docs: ordered.len(),
        })
    }

    /// The similarity a bin stands for (its middle; the last bin is J = 1).
    fn similarity(bin: usize) -> f64 {
        if bin == BINS {
            1.0
        } else {
            (bin as f64 + 0.5) / BINS as f64
        }
    }

    /// Expected candidates verified per document over the whole corpus with every document
    /// held (each pair once, by its later document): (documents − 1) / 2 × the mean
    /// P(candidate) of the sampled pairs.
    fn candidates_per_doc(&self, p: LshParams) -> f64 {
        let pairs: u64 = self.counts.iter().sum();
        let expected: f64 = (self.counts.iter().enumerate())
            .map(|(b, &c)| c as f64 * p.probability(Sample::similarity(b)))
            .sum();
        self.docs.saturating_sub(1) as f64 / 2.0 * expected / pairs.max(1) as f64
    }

    /// Sampled pairs in the bins at or above `threshold`.
    fn at_or_above(&self, threshold: f64) -> impl Iterator<Item = (usize, u64)> + '_ {
        let first = (threshold * BINS as f64 - 1e-9).ceil() as usize;
        (self.counts.iter().copied().enumerate()).skip(first)
    }

    /// Expected share of the sampled pairs at or above `threshold` that become candidates
    /// (none when no sampled pair is that similar).
    fn recall(&self, p: LshParams, threshold: f64) -> Option<f64> {
        let above: u64 = self.at_or_above(threshold).map(|(_, c)| c).sum();
        let caught: f64 = (self.at_or_above(threshold))
            .map(|(b, c)| c as f64 * p.probability(Sample::similarity(b)))
            .sum();
        (above > 0).then(|| caught / above as f64)
    }
}

/// Documents `--drop-dups` drops from `docs` (in input order, normalised texts) at the run's
/// `--max-candidates`, twice and four times it, and at 0 (every candidate verified). Empty
/// when the weights are learnt from the input (`--idf-warmup`): the sample is too small a
/// warm-up to say anything of the run.
fn bound_drops(config: &Config, docs: &[&Sampled]) -> Result<Vec<(usize, u64)>> {
    if config.sketch.idf_warmup > 0 {
        return Ok(Vec::new());
    }
    let base = config.max_candidates;
    let limits: Vec<usize> = match base {
        0 => vec![0],
        _ => vec![base, base * 2, base * 4, 0],
    };
    let mut drops = Vec::with_capacity(limits.len());
    for limit in limits {
        let mut filter = config.clone();
        filter.max_candidates = limit;
        let mut deduper = Deduper::new(filter.validate()?, Output::DropDups)?;
        let mut dropped = 0;
        for doc in docs {
            let text = String::from_utf8_lossy(&doc.normalized.text);
            if let Outcome::Duplicate(_) = deduper.add(text.as_ref(), Some(doc.id.clone()))? {
                dropped += 1;
            }
        }
        drops.push((limit, dropped));
    }
    Ok(drops)
}

/// One banding and its error areas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Banding {
    /// Bands × rows.
    pub params: LshParams,
    /// P(candidate | J = T).
    pub at_threshold: f64,
    /// ∫₀ᵀ P(s) ds: the candidates below T the default choice minimises.
    pub fp_area: f64,
    /// ∫ₜ¹ (1 − P(s)) ds.
    pub fn_area: f64,
    /// Whether P(T) reaches the recall target.
    pub reaches: bool,
}

fn option(params: LshParams, threshold: f64, recall: f64) -> Banding {
    Banding {
        params,
        at_threshold: params.probability(threshold),
        fp_area: params.false_positive_area(threshold),
        fn_area: params.false_negative_area(threshold),
        reaches: params.reaches(threshold, recall),
    }
}

/// For each number of rows, the fewest bands reaching `recall` (or all that fit): those that
/// reach it first, fewest false candidates first; then the rest, highest P(T) first.
pub fn alternatives(threshold: f64, num_perm: usize, recall: f64) -> Vec<Banding> {
    let mut all: Vec<Banding> = LshParams::options(threshold, num_perm, recall)
        .into_iter()
        .map(|p| option(p, threshold, recall))
        .collect();
    all.sort_by(|a, b| {
        b.reaches.cmp(&a.reaches).then(if a.reaches {
            a.fp_area.total_cmp(&b.fp_area)
        } else {
            b.at_threshold.total_cmp(&a.at_threshold)
        })
    });
    all
}

/// The text report (with a corpus `sample`: each banding's price on it).
pub fn report(config: &Config, sample: Option<&Sample>) -> String {
    let (params, threshold, num_perm, recall) = (
        config.sketch.lsh,
        config.verify.threshold,
        config.sketch.num_perm,
        config.sketch.recall,
    );
    let chosen = option(params, threshold, recall);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "threshold {threshold}, K = {num_perm}: {} bands x {} rows ({} of {} values used)",
        params.bands,
        params.rows,
        params.bands * params.rows,
        num_perm
    );
    let _ = writeln!(
        s,
        "P(candidate | J = T) = {:.4}: recall target {recall} {}; steepest at J = (1/b)^(1/r) = {:.3}",
        chosen.at_threshold,
        if chosen.reaches {
            "reached"
        } else {
            "NOT reached (more values, --num-perm, reach it)"
        },
        params.effective_threshold(),
    );
    let _ = writeln!(
        s,
        "false-positive area (J < T) {:.4}, false-negative area (J >= T) {:.4}",
        chosen.fp_area, chosen.fn_area
    );
    if let Some(sample) = sample {
        let pairs: u64 = sample.counts.iter().sum();
        let above: u64 = sample.at_or_above(threshold).map(|(_, c)| c).sum();
        let _ = writeln!(
            s,
            "corpus: {} documents, {} sampled ({pairs} pairs, {above} at or above T): about {:.1} \
             candidates per document, recall over the sampled pairs at or above T {}",
            sample.docs,
            sample.sampled,
            sample.candidates_per_doc(params),
            sample
                .recall(params, threshold)
                .map_or("- (none sampled)".to_string(), |r| format!("{r:.4}"))
        );
        if let Some(&(_, exact)) = sample.bound.last() {
            let shares: Vec<String> = (sample.bound.iter())
                .filter(|(limit, _)| *limit > 0)
                .map(|&(limit, dropped)| {
                    let share = 100.0 * dropped as f64 / exact.max(1) as f64;
                    format!("{limit}: {dropped} ({share:.1}%)")
                })
                .collect();
            let scale = sample.docs as f64 / sample.sampled.max(1) as f64;
            let _ = writeln!(
                s,
                "the bound on {} sampled documents in input order: the exact greedy filter \
                 (--max-candidates 0) drops {exact}; --max-candidates {}{}",
                sample.bound_docs,
                if shares.is_empty() {
                    "0 is this run's".to_string()
                } else {
                    shares.join(", ")
                },
                if scale >= 1.5 {
                    format!(
                        " (a family of the corpus is ~{scale:.0}x larger than in the sample, \
                         where the bound can cost more)"
                    )
                } else {
                    String::new()
                },
            );
        }
    }
    let _ = writeln!(s, "\nJ\tP(candidate)\tP(missed)");
    for i in 0..=20 {
        let j = i as f64 / 20.0;
        let p = params.probability(j);
        let _ = writeln!(s, "{j:.2}\t{p:.6}\t{:.6}", 1.0 - p);
    }
    let priced = match sample {
        Some(_) => "\tcand/doc\trecall (sample)",
        None => "",
    };
    let _ = writeln!(
        s,
        "\nbands x rows\tvalues\tP(T)\tFP area\tFN area{priced}\t(for each rows, the fewest bands reaching {recall})"
    );
    for o in alternatives(threshold, num_perm, recall) {
        let mark = if o.params == params { "  <- used" } else { "" };
        let price = match sample {
            Some(sample) => format!(
                "\t{:.1}\t{}",
                sample.candidates_per_doc(o.params),
                sample
                    .recall(o.params, threshold)
                    .map_or("-".to_string(), |r| format!("{r:.4}"))
            ),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "{} x {}\t{}\t{:.4}\t{:.4}\t{:.4}{price}{}{mark}",
            o.params.bands,
            o.params.rows,
            o.params.bands * o.params.rows,
            o.at_threshold,
            o.fp_area,
            o.fn_area,
            if o.reaches {
                ""
            } else {
                "  (short of the target)"
            },
        );
    }
    s
}

/// An SVG plot of the S-curve of `params` (bold) and of the bandings with one row fewer and
/// one more (each with its fewest bands reaching `recall`), with the threshold marked.
pub fn svg(params: LshParams, threshold: f64, num_perm: usize, recall: f64) -> String {
    let (w, h, m) = (640.0, 420.0, 50.0);
    let x = |j: f64| m + j * (w - 2.0 * m);
    let y = |p: f64| h - m - p * (h - 2.0 * m);
    let mut s = svg_open(w, h);
    // Axes, ticks and grid.
    for i in 0..=10 {
        let v = i as f64 / 10.0;
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#eee"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#eee"/>"##,
            x(v),
            y(0.0),
            x(v),
            y(1.0),
            x(0.0),
            y(v),
            x(1.0),
            y(v)
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{v:.1}</text><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.1}</text>"#,
            x(v),
            y(0.0) + 16.0,
            x(0.0) - 6.0,
            y(v) + 4.0
        );
    }
    let _ = writeln!(
        s,
        r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"#,
        x(0.0),
        y(0.0),
        x(1.0),
        y(0.0),
        x(0.0),
        y(0.0),
        x(0.0),
        y(1.0)
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">Jaccard similarity J</text><text x="14" y="{:.1}" transform="rotate(-90 14 {:.1})" text-anchor="middle">P(candidate)</text>"#,
        x(0.5),
        h - 12.0,
        y(0.5),
        y(0.5)
    );
    let _ = writeln!(
        s,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#c00" stroke-dasharray="4 3"/><text x="{:.1}" y="{:.1}" fill="#c00">T = {threshold}</text>"##,
        x(threshold),
        y(0.0),
        x(threshold),
        y(1.0),
        x(threshold) + 4.0,
        y(0.2)
    );
    // The neighbours: one row fewer and one more, each with its fewest bands reaching the
    // target.
    let mut curves = vec![(params, "#1f4e99", 2.5)];
    let options = LshParams::options(threshold, num_perm, recall);
    for (rows, colour) in [
        (params.rows.wrapping_sub(1), "#7aa6d6"),
        (params.rows + 1, "#e3a33b"),
    ] {
        if let Some(&p) = rows.checked_sub(1).and_then(|i| options.get(i)) {
            curves.push((p, colour, 1.2));
        }
    }
    for (k, (p, colour, width)) in curves.iter().enumerate() {
        let points: Vec<String> = (0..=200)
            .map(|i| {
                let j = i as f64 / 200.0;
                format!("{:.1},{:.1}", x(j), y(p.probability(j)))
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="{width}" points="{}"/>"#,
            points.join(" ")
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" fill="{colour}">{} x {}</text>"#,
            x(0.03),
            y(0.95) + 16.0 * k as f64,
            p.bands,
            p.rows
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::VerifySettings;
    use crate::sketch::lsh::DEFAULT_RECALL;

    #[test]
    fn report_names_the_choice_and_is_monotone() {
        let config = Config {
            verify: VerifySettings {
                threshold: 0.5,
                ..VerifySettings::default()
            },
            ..Config::default()
        }
        .validate()
        .unwrap();
        let p = config.sketch.lsh;
        let r = report(&config, None);
        assert!(
            r.starts_with("threshold 0.5, K = 128: 35 bands x 3 rows (105 of 128 values used)"),
            "{r}"
        );
        assert!(r.contains("recall target 0.99 reached"), "{r}");
        assert!(r.contains("35 x 3\t105\t") && r.contains("<- used"));
        let probs: Vec<f64> = r
            .lines()
            .filter(|l| l.starts_with("0.") || l.starts_with("1.00"))
            .map(|l| l.split('\t').nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(probs.len(), 21);
        assert!(probs.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(probs[0], 0.0);
        assert_eq!(probs[20], 1.0);
        // The default choice is the first alternative.
        assert_eq!(alternatives(0.5, 128, DEFAULT_RECALL)[0].params, p);
        // 16 × 8, asked for, falls short at 0.5.
        let mut asked = config.into_config();
        asked.sketch.lsh = LshParams { bands: 16, rows: 8 };
        let short = report(&asked, None);
        assert!(short.contains("NOT reached"), "{short}");
    }

    #[test]
    fn svg_has_the_curves() {
        let s = svg(LshParams { bands: 16, rows: 8 }, 0.8, 128, DEFAULT_RECALL);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<polyline").count(), 3);
        assert!(s.contains("T = 0.8") && s.contains("16 x 8"));
    }
}
