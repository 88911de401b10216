//! `neardup hist`: the distribution of pairwise Jaccard similarity for several shingle
//! lengths, to choose n and the threshold (methods §1's figure).
//!
//! A reservoir sample (Vitter's algorithm R, seeded, so runs repeat) of the stream's documents
//! is kept — memory is bounded by the sample, never the stream — and for each n the exact
//! Jaccard of every sampled pair is computed on all cores and binned in steps of 0.01. The
//! text table shows counts per 0.05 with their log10, and per n how many pairs per million lie
//! above common cut-offs; the SVG plots one curve of log10(count) per n.

use super::args::{CommandInput, CommonArgs, SampleSize};
use super::plot::svg_open;
use crate::config::{Config, ShingleKind};
use crate::corpus::{Sampled, reservoir};
use crate::error::Result;
use crate::input::Input;
use crate::text::shingle::Shingler;
use crate::verify::sample_pairs::pair_counts;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `neardup hist`.
#[derive(clap::Args, Debug)]
pub struct HistArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Sample size.
    #[command(flatten)]
    pub sample: SampleSize,

    /// Also write the histogram as an SVG plot to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub plot: Option<PathBuf>,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl HistArgs {
    /// Samples the inputs and prints the histograms (and writes the plot).
    pub fn run(self) -> Result<()> {
        let size = self.sample.documents()?;
        let ngrams = self.common.ngram().0..=self.common.ngram().1;
        let config = self
            .common
            .config_with_ngram_range(self.input)?
            .validate()?;
        let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
        let (docs, seen) = reservoir(
            &crate::pipeline::reading(&config),
            config.sketch.seed,
            inputs,
            size,
        )?;
        let hists = histograms(&config, &docs, ngrams, config.worker_threads());
        super::util::print(&table(&hists, docs.len(), seen))?;
        if let Some(path) = &self.plot {
            super::util::write_file(path, &svg(&hists))?;
        }
        Ok(())
    }
}

/// Bins per unit of similarity (bin `i` holds J in [i/100, (i+1)/100); J = 1 is bin 100).
pub const BINS: usize = 100;

/// Cut-offs reported as pairs per million.
pub const CUTOFFS: [f64; 5] = [0.1, 0.2, 0.3, 0.5, 0.8];

/// The similarity histogram of one shingle length.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Shingle length in words.
    pub n: usize,
    /// Pair counts per bin (`BINS + 1` bins).
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Pairs with J ≥ `cut` (to the bin), per million pairs.
    pub fn per_million_at_least(&self, cut: f64) -> f64 {
        let from = (cut * BINS as f64).round() as usize;
        let above: u64 = self.counts[from.min(BINS)..].iter().sum();
        above as f64 * 1e6 / self.pairs().max(1) as f64
    }
}

/// Exact Jaccard of every pair of `docs`, binned, for each n in `ngrams` (word shingles,
/// bag semantics if `config.text.bag`), using `threads` threads.
fn histograms(
    config: &Config,
    docs: &[Sampled],
    ngrams: std::ops::RangeInclusive<usize>,
    threads: usize,
) -> Vec<Histogram> {
    ngrams
        .map(|n| Histogram {
            n,
            counts: pair_counts(
                &Shingler::new(ShingleKind::Words(n), config.text.bag, config.sketch.seed),
                docs,
                BINS,
                threads,
            ),
        })
        .collect()
}

/// The text report: counts per 0.05 with log10, and pairs per million above the cut-offs.
fn table(hists: &[Histogram], sampled: usize, seen: u64) -> String {
    let mut s = String::new();
    let pairs = hists.first().map_or(0, Histogram::pairs);
    let _ = writeln!(
        s,
        "{sampled} documents sampled of {seen}; {pairs} pairs; exact Jaccard of word n-gram shingles"
    );
    let _ = write!(s, "\nJ from\tJ to");
    for h in hists {
        let _ = write!(s, "\tn={}\tlog10", h.n);
    }
    let _ = writeln!(s);
    for row in 0..=20 {
        let (lo, hi) = (row * 5, if row == 20 { BINS + 1 } else { row * 5 + 5 });
        if row == 20 {
            let _ = write!(s, "1.00\t1.00");
        } else {
            let _ = write!(s, "{:.2}\t{:.2}", lo as f64 / 100.0, hi as f64 / 100.0);
        }
        for h in hists {
            let c: u64 = h.counts[lo..hi.min(BINS + 1)].iter().sum();
            let log = if c == 0 {
                "-".to_string()
            } else {
                format!("{:.2}", (c as f64).log10())
            };
            let _ = write!(s, "\t{c}\t{log}");
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "\npairs per million at or above");
    let _ = write!(s, "n");
    for c in CUTOFFS {
        let _ = write!(s, "\tJ>={c}");
    }
    let _ = writeln!(s);
    for h in hists {
        let _ = write!(s, "{}", h.n);
        for c in CUTOFFS {
            let _ = write!(s, "\t{:.1}", h.per_million_at_least(c));
        }
        let _ = writeln!(s);
    }
    s
}

/// An SVG plot: log10(pairs) per similarity bin, one curve per n.
fn svg(hists: &[Histogram]) -> String {
    let (w, h, m) = (720.0, 440.0, 55.0);
    let top = hists
        .iter()
        .flat_map(|h| h.counts.iter())
        .map(|&c| (c.max(1) as f64).log10())
        .fold(1.0f64, f64::max)
        .ceil();
    let x = |j: f64| m + j * (w - 2.0 * m);
    let y = |l: f64| h - m - l / top * (h - 2.0 * m);
    let colours = [
        "#1f4e99", "#e3a33b", "#2e8b57", "#c0392b", "#8e44ad", "#16a085", "#7f8c8d", "#d35400",
        "#2c3e50",
    ];
    let mut s = svg_open(w, h);
    for i in 0..=10 {
        let v = i as f64 / 10.0;
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{v:.1}</text>"##,
            x(v),
            y(0.0),
            x(v),
            y(top),
            x(v),
            y(0.0) + 16.0
        );
    }
    for l in 0..=top as usize {
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">1e{l}</text>"##,
            x(0.0),
            y(l as f64),
            x(1.0),
            y(l as f64),
            x(0.0) - 6.0,
            y(l as f64) + 4.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">Jaccard similarity (bins of 0.01)</text><text x="14" y="{:.1}" transform="rotate(-90 14 {:.1})" text-anchor="middle">pairs (log scale)</text>"#,
        x(0.5),
        h - 12.0,
        y(top / 2.0),
        y(top / 2.0)
    );
    for (k, hist) in hists.iter().enumerate() {
        let colour = colours[k % colours.len()];
        let points: Vec<String> = hist
            .counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| {
                format!(
                    "{:.1},{:.1}",
                    x((i as f64 + 0.5) / BINS as f64),
                    y((c as f64).log10())
                )
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#,
            points.join(" ")
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" fill="{colour}">n = {}</text>"#,
            x(0.85),
            y(top) + 16.0 * (k as f64 + 1.0),
            hist.n
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::DocId;
    use crate::text::normalize::{Normalized, Normalizer};

    fn doc(text: &str) -> Sampled {
        let mut n = Normalized::default();
        Normalizer::default().normalize_into(text, &mut n);
        Sampled {
            line: 0,
            id: DocId::Line(0),
            normalized: n,
        }
    }

    #[test]
    fn histograms_count_every_pair_once() {
        let docs = vec![
            doc("a b c d e f"),
            doc("a b c d e f"),
            doc("a b c x y z"),
            doc("p q r s t u"),
        ];
        let config = Config::default();
        for threads in [1, 3] {
            let h = histograms(&config, &docs, 1..=2, threads);
            assert_eq!(h.len(), 2);
            assert!(h.iter().all(|x| x.pairs() == 6));
            // n = 1: identical pair J = 1; docs 0/2 and 1/2 share 3 of 9 words: 0.33.
            assert_eq!(h[0].counts[BINS], 1);
            assert_eq!(h[0].counts[33], 2);
            assert_eq!(h[0].counts[0], 3);
            assert!((h[0].per_million_at_least(0.3) - 500_000.0).abs() < 1e-6);
        }
        let t = table(&histograms(&config, &docs, 1..=2, 2), 4, 4);
        assert!(t.contains("n=1\tlog10\tn=2\tlog10"), "{t}");
        assert!(
            svg(&histograms(&config, &docs, 1..=2, 1))
                .matches("<polyline")
                .count()
                == 2
        );
    }
}
