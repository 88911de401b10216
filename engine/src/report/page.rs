//! The report page: one self-contained HTML file (inline style and SVG, no script, no
//! network), readable in light and dark mode. Every document text is escaped, and shown cut
//! at [`SNIPPET_BYTES`] bytes with a marker; a pair's word diff reads the [`HELD_BYTES`] the
//! report holds of each.

use super::charts::{self, Drawn};
use super::collect::{
    BINS, Collector, DIFFERS_SEP, Example, HELD_BYTES, SNIPPET_BYTES, Shown, bin, cut_at,
};
use crate::diff::{Edit, diff};
use crate::text::normalize::Words;
use std::fmt::Write as _;

/// What the page says about the run besides what the collector gathered.
pub struct RunInfo<'a> {
    /// The `--stats` summary of the run.
    pub stats: &'a serde_json::Value,
    /// The inputs' names.
    pub inputs: &'a [String],
    /// The call that made the run, as its user wrote it (`neardup --drop-dups`).
    pub mode: &'a str,
    /// The settings shown: (name, value).
    pub settings: Vec<(&'static str, String)>,
    /// The LSH bands, for the detection probability below the threshold.
    pub bands: usize,
    /// Rows per band.
    pub rows: usize,
    /// How texts are split into words (for the diffs).
    pub words: Words,
    /// A graph command's run (`graph`, `clusters`): every document is compared with every
    /// earlier one and nothing is dropped, so the page speaks of pairs and groups.
    pub graph: bool,
}

/// The figures of `--stats` shown, in order, with their labels.
const FIGURES: &[(&str, &str)] = &[
    ("docs_read", "documents read"),
    ("written", "lines written"),
    ("dropped", "dropped"),
    ("dropped_exact", "dropped: exact copies"),
    ("dropped_near", "dropped: near duplicates"),
    ("dropped_reference", "dropped: matching the reference"),
    ("bad_lines", "bad lines"),
    ("candidates_checked", "candidates verified"),
    ("seconds", "seconds"),
    ("docs_per_sec", "documents per second"),
    ("mb_per_sec", "MB per second"),
    ("peak_rss_bytes", "peak memory"),
    ("window_docs", "documents held at the end"),
];

/// The figures of a graph command's `--stats` shown (nothing is dropped there but with
/// `clusters --keep`).
const GRAPH_FIGURES: &[(&str, &str)] = &[
    ("docs_read", "documents read"),
    ("bad_lines", "bad lines"),
    ("candidates_checked", "candidates verified"),
    ("candidates", "candidates verified"),
    ("pairs", "verified pairs"),
    ("graph.nodes", "documents in the graph"),
    ("graph.edges", "pairs in the graph"),
    ("graph.components", "components of two or more"),
    ("graph.clusters", "groups"),
    ("graph.largest_cluster", "largest group"),
    ("groups", "groups (--keep: one line written each)"),
    ("written", "lines written"),
    ("dropped", "dropped"),
    ("seconds", "seconds"),
    ("docs_per_sec", "documents per second"),
    ("mb_per_sec", "MB per second"),
    ("peak_rss_bytes", "peak memory"),
];

/// The page.
pub fn page(c: &Collector, run: &RunInfo<'_>) -> String {
    let mut h = String::with_capacity(256 << 10);
    let t = c.threshold();
    let title = match run.inputs {
        [] => "standard input".to_string(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">\
         <title>neardup report: {}</title><style>{STYLE}</style></head><body>\
         <header><h1>neardup report</h1><p>{} · <code>{}</code> · threshold {t} · \
         neardup {}</p></header>",
        esc(&title),
        esc(&run.inputs.join(", ")),
        esc(run.mode),
        env!("CARGO_PKG_VERSION")
    );
    run_section(&mut h, c, run);
    if run.graph {
        pairs_section(&mut h, c);
    } else {
        similarity_section(&mut h, c, run);
    }
    curve_section(&mut h, c, run);
    groups_section(&mut h, c, run);
    if run.graph {
        pair_examples(&mut h, c, run.words);
        h.push_str("</body></html>\n");
        return h;
    }
    examples(
        &mut h,
        "borderline",
        "Borderline removals",
        &format!(
            "The {} removals closest to the threshold ({t}): each dropped document beside \
             the kept document it matched, with the words that differ ({} removed from the \
             dropped text, {} added).",
            c.borderline().len(),
            "<del>struck</del>",
            "<ins>underlined</ins>"
        ),
        &c.borderline(),
        run.words,
    );
    examples(
        &mut h,
        "random",
        "A random sample of removals",
        "Removals picked by a seeded hash of their line numbers (the same each run), in input \
         order.",
        &c.random(),
        run.words,
    );
    h.push_str("</body></html>\n");
    h
}

fn run_section(h: &mut String, _c: &Collector, run: &RunInfo<'_>) {
    h.push_str(
        "<section id=\"run\"><h2>The run</h2><div class=\"cols\"><table class=\"figures\"><tbody>",
    );
    let figures = if run.graph { GRAPH_FIGURES } else { FIGURES };
    for (key, label) in figures {
        // A dotted key is a member of an object (`graph.edges`).
        let value = key
            .split('.')
            .try_fold(run.stats, |value, part| value.get(part));
        let Some(value) = value else {
            continue;
        };
        // Bytes are shown in binary units, the exact figure kept for readers of the page.
        let _ = match (key.ends_with("_bytes"), value.as_u64()) {
            (true, Some(bytes)) => write!(
                h,
                "<tr><th>{label}</th><td data-stat=\"{key}\" data-value=\"{bytes}\">{}</td></tr>",
                crate::memory::binary_size(bytes)
            ),
            _ => write!(
                h,
                "<tr><th>{label}</th><td data-stat=\"{key}\">{}</td></tr>",
                esc(&value.to_string())
            ),
        };
    }
    h.push_str("</tbody></table><table class=\"figures\"><tbody>");
    for (name, value) in &run.settings {
        let _ = write!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(name), esc(value));
    }
    h.push_str("</tbody></table></div></section>");
}

/// A graph command's similarities: each document's most similar earlier one.
fn pairs_section(h: &mut String, c: &Collector) {
    let t = c.threshold();
    let first = bin(t);
    let paired: Vec<(f64, u64)> = (first..BINS)
        .map(|b| (b as f64 / 100.0, c.dropped[b]))
        .collect();
    let n: u64 = c.dropped.iter().sum();
    let _ = write!(
        h,
        "<section id=\"similarity\"><h2>How similar</h2>\
         <figure data-chart=\"dropped\" data-count=\"{n}\">{}<figcaption>The {n} documents \
         with a verified pair among the documents before them, by the similarity of the most \
         similar one (log scale). Pairs below the threshold ({t}) are not verified in a graph \
         command, so the page does not show them.</figcaption></figure></section>",
        chart(charts::histogram(
            &paired,
            (first as f64 / 100.0).min(0.99),
            1.01,
            0.01,
            "similarity to the most similar earlier document",
            Some(t)
        )),
    );
}

/// A graph command's examples: documents beside their most similar earlier document.
fn pair_examples(h: &mut String, c: &Collector, words: Words) {
    let t = c.threshold();
    examples(
        h,
        "borderline",
        "Borderline pairs",
        &format!(
            "The {} documents whose most similar earlier document is closest to the threshold \
             ({t}), beside it, with the words that differ.",
            c.borderline().len()
        ),
        &c.borderline(),
        words,
    );
    examples(
        h,
        "random",
        "A random sample of pairs",
        "Documents with a pair, picked by a seeded hash of their line numbers (the same each \
         run), in input order, beside their most similar earlier document.",
        &c.random(),
        words,
    );
}

fn similarity_section(h: &mut String, c: &Collector, run: &RunInfo<'_>) {
    let t = c.threshold();
    let first = bin(t);
    let dropped: Vec<(f64, u64)> = (first..BINS)
        .map(|b| (b as f64 / 100.0, c.dropped[b]))
        .collect();
    let below: Vec<(f64, u64)> = (0..first).map(|b| (b as f64 / 100.0, c.below[b])).collect();
    let n_dropped: u64 = c.dropped.iter().sum();
    let n_below: u64 = c.below.iter().sum();
    let _ = write!(
        h,
        "<section id=\"similarity\"><h2>How similar</h2>\
         <figure data-chart=\"dropped\" data-count=\"{n_dropped}\">{}<figcaption>The {n_dropped} dropped documents by their \
         similarity to the kept document they matched (exact copies at 1; log scale).</figcaption></figure>\
         <figure data-chart=\"below\" data-count=\"{n_below}\">{}<figcaption>The {n_below} kept documents that had a candidate \
         verified below the threshold, by the highest such similarity (among the first four \
         verified, the most similar by their sketches): the documents just below \
         {t} are the ones a lower threshold would drop first ({} kept documents had no candidate; \
         log scale). LSH finds a pair of similarity s as a candidate with probability \
         1 − (1 − s<sup>{}</sup>)<sup>{}</sup>, so pairs well below the threshold are seen \
         rarely.</figcaption></figure></section>",
        chart(charts::histogram(
            &dropped,
            (first as f64 / 100.0).min(0.99),
            1.01,
            0.01,
            "similarity to the match",
            Some(t)
        )),
        chart(charts::histogram(
            &below,
            0.0,
            t.max(0.01),
            0.01,
            "highest similarity below the threshold",
            Some(t)
        )),
        c.alone,
        run.rows,
        run.bands,
    );
}

/// The chance that LSH makes a pair of similarity `s` a candidate.
fn detected(s: f64, bands: usize, rows: usize) -> f64 {
    1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32)
}

/// The threshold curve: (threshold, found, estimated, error) from 0.30 to 1.00.
pub(crate) fn curve_points(c: &Collector, bands: usize, rows: usize) -> Vec<(f64, f64, f64, f64)> {
    (30..=100)
        .map(|k| {
            let from = k as usize;
            let dropped: u64 = c.dropped[from.min(BINS - 1)..].iter().sum();
            let (mut found, mut estimate, mut variance) = (dropped as f64, dropped as f64, 0.0);
            for b in from..BINS {
                let n = c.below[b] as f64;
                if n == 0.0 {
                    continue;
                }
                let p = detected((b as f64 + 0.5) / 100.0, bands, rows).max(1e-3);
                found += n;
                estimate += n / p;
                variance += n * (1.0 - p) / (p * p);
            }
            (k as f64 / 100.0, found, estimate, variance.sqrt())
        })
        .collect()
}

fn curve_section(h: &mut String, c: &Collector, run: &RunInfo<'_>) {
    let t = c.threshold();
    let mut points = curve_points(c, run.bands, run.rows);
    if run.graph {
        // Pairs below the threshold are not verified: the curve starts at it.
        points.retain(|p| p.0 >= t - 1e-9);
    }
    let at = |x: f64| points.iter().find(|p| (p.0 - x).abs() < 1e-9).copied();
    let mut rows = String::new();
    for x in [0.5, 0.6, 0.7, 0.8, 0.9, 1.0] {
        if let Some((_, found, estimate, error)) = at(x) {
            let _ = write!(
                rows,
                "<tr><td>{x:.1}</td><td>{found:.0}</td><td>{estimate:.0} ± {error:.0}</td></tr>"
            );
        }
    }
    let caption = if run.graph {
        format!(
            "Documents that would still have a verified pair with an earlier document at a \
             threshold above this run's ({t}): those whose most similar earlier document is at \
             least that similar. Lower thresholds need the pairs below {t}, which a graph \
             command does not verify: <code>neardup report</code> (a filter run) estimates them."
        )
    } else {
        format!(
            "Documents a threshold would drop, from this run's decisions: each document's \
             similarity to the nearest earlier kept document found (the match of a dropped one; \
             for a kept one, its most similar candidate below {t}). <em>Found</em> counts them; \
             <em>estimated</em> divides each found below {t} by the chance LSH finds a pair \
             that similar, and the band is one standard error of that estimate. Both ignore \
             that a different threshold keeps different documents to compare with, and the \
             bound on candidates verified per document, so read them as a guide."
        )
    };
    let _ = write!(
        h,
        "<section id=\"curve\"><h2>Other thresholds</h2><figure data-chart=\"curve\">{}\
         <figcaption>{caption}</figcaption></figure>\
         <table class=\"curve\"><thead><tr><th>threshold</th><th>found</th><th>estimated</th></tr>\
         </thead><tbody>{rows}</tbody></table></section>",
        chart(charts::curve(&points, t, if run.graph { t } else { 0.3 })),
    );
}

fn groups_section(h: &mut String, c: &Collector, _run: &RunInfo<'_>) {
    let sizes = c.group_sizes();
    let about = match c.groups_shown() {
        Some(groups) => groups.about.clone(),
        None => "A group is a kept document and the documents dropped as its duplicates. In \
                 each group the document kept is the first in input order: the filter keeps a \
                 document unless it is near one kept before it, so the earliest of a kind stays \
                 and the later ones go."
            .to_string(),
    };
    let _ = write!(
        h,
        "<section id=\"groups\"><h2>Groups</h2><p>{}</p><figure data-chart=\"sizes\">{}\
         <figcaption>Groups by size (both axes log).{}</figcaption></figure>\
         <h3>The largest groups</h3>",
        esc(&about),
        chart(charts::sizes(&sizes)),
        match c.untracked {
            0 => String::new(),
            n => format!(
                " {n} removals beyond the first million groups are counted in the totals only."
            ),
        }
    );
    for (kept, size, in_reference, members) in c.largest() {
        let whose = match (in_reference, c.groups_shown()) {
            (true, _) => "reference document",
            (false, Some(groups)) => groups.first,
            (false, None) => "kept",
        };
        let _ = write!(
            h,
            "<div class=\"group\"><h4>{size} documents · {whose} {}</h4>{}<ul>",
            name(&kept),
            text(&kept)
        );
        for m in &members {
            let _ = write!(h, "<li>{} {}</li>", name(m), text(m));
        }
        // A card shows a few members (those met while the group was among the largest):
        // the others are counted, so that the card adds up to its size.
        let first = usize::from(!in_reference);
        let unlisted = (size as usize).saturating_sub(first + members.len());
        if unlisted > 0 {
            let why = match members.len() < crate::report::collect::MEMBERS_SHOWN {
                true => "met before the group was among the largest, so not kept for the page"
                    .to_string(),
                false => format!(
                    "a card lists at most {}",
                    crate::report::collect::MEMBERS_SHOWN
                ),
            };
            let _ = write!(h, "<li class=\"more\">and {unlisted} more ({why})</li>");
        }
        h.push_str("</ul></div>");
    }
    h.push_str("</section>");
}

fn examples(h: &mut String, id: &str, title: &str, intro: &str, list: &[Example], words: Words) {
    let _ = write!(h, "<section id=\"{id}\"><h2>{title}</h2><p>{intro}</p>");
    if list.is_empty() {
        h.push_str("<p>No document was dropped.</p>");
    }
    for e in list {
        let what = match (e.exact, e.in_reference) {
            (true, _) => "exact copy".to_string(),
            (false, true) => format!("similarity {:.4} to a reference document", e.similarity),
            (false, false) => format!("similarity {:.4}", e.similarity),
        };
        let _ = write!(
            h,
            "<div class=\"pair\"><h4>{what}</h4><div class=\"cols\"><div><h5>dropped {}</h5>{}</div>\
             <div><h5>kept {}</h5>{}</div></div>",
            name(&e.dropped),
            text(&e.dropped),
            name(&e.kept),
            text(&e.kept)
        );
        if let (Some(a), Some(b)) = (&e.kept.text, &e.dropped.text) {
            let diff = word_diff_html(a, b, words, e.differs.as_deref());
            let _ = write!(h, "<p class=\"diff\">{diff}</p>");
        }
        h.push_str("</div>");
    }
    h.push_str("</section>");
}

fn name(s: &Shown) -> String {
    format!(
        "<span class=\"id\">id <bdi>{}</bdi> · line {}</span>",
        esc(&s.id.to_string()),
        s.line
    )
}

fn text(s: &Shown) -> String {
    match &s.text {
        Some(t) => format!(
            "<blockquote><bdi>{}</bdi></blockquote>",
            esc(&fold(&cut_at(t, SNIPPET_BYTES)))
        ),
        None => "<p class=\"missing\">(its text is not held: older than the kept documents \
                 the report keeps, or in the reference)</p>"
            .to_string(),
    }
}

/// A text with its runs of white space folded to one space and control characters left out.
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().filter(|c| !c.is_control()));
    }
    out
}

/// The words of `b` against `a`, with the changes marked and long unchanged runs cut;
/// `differs`: where `b` differs past what is held of the two ([`Example::differs`]).
fn word_diff_html(a: &str, b: &str, words: Words, differs: Option<&str>) -> String {
    let wa: Vec<&str> = words.split(a).collect();
    let wb: Vec<&str> = words.split(b).collect();
    let edits = diff(&wa, &wb);
    const CONTEXT: usize = 8;
    let mut out = String::new();
    let mut same = Vec::new();
    let flush = |same: &mut Vec<&str>, out: &mut String, at_end: bool, at_start: bool| {
        let n = same.len();
        let keep_before = if at_start { 0 } else { CONTEXT };
        let keep_after = if at_end { 0 } else { CONTEXT };
        if n > keep_before + keep_after + 1 {
            for w in &same[..keep_before] {
                let _ = write!(out, "{} ", esc(w));
            }
            let _ = write!(
                out,
                "<span class=\"cut\">…({} words)…</span> ",
                n - keep_before - keep_after
            );
            for w in &same[n - keep_after..] {
                let _ = write!(out, "{} ", esc(w));
            }
        } else {
            for w in same.iter() {
                let _ = write!(out, "{} ", esc(w));
            }
        }
        same.clear();
    };
    let mut started = false;
    let mut changes = 0;
    for e in &edits {
        match *e {
            Edit::Same(w) => same.push(w),
            Edit::Delete(w) => {
                flush(&mut same, &mut out, false, !started);
                started = true;
                changes += 1;
                let _ = write!(out, "<del>{}</del> ", esc(w));
            }
            Edit::Insert(w) => {
                flush(&mut same, &mut out, false, !started);
                started = true;
                changes += 1;
                let _ = write!(out, "<ins>{}</ins> ", esc(w));
            }
        }
    }
    if changes == 0 {
        // A text cut at HELD_BYTES ends with '…': the difference is past the cut.
        return match a.ends_with('…') || b.ends_with('…') {
            true => match differs.map(|d| d.split(DIFFERS_SEP).collect::<Vec<_>>()) {
                Some(parts) if parts.len() == 4 => format!(
                    "(the first {} KiB the report holds of each are the same) from word {}, \
                     normalised: {} <ins>{}</ins> {} (the first words the kept text lacks)",
                    HELD_BYTES >> 10,
                    esc(parts[0]),
                    esc(parts[1]),
                    esc(parts[2]),
                    esc(parts[3])
                ),
                _ => format!(
                    "(the first {} KiB the report holds of each are the same: the texts \
                     differ further on)",
                    HELD_BYTES >> 10
                ),
            },
            false => "(no word differs)".to_string(),
        };
    }
    flush(&mut same, &mut out, true, false);
    out.trim_end().to_string()
}

fn chart(drawn: Drawn) -> String {
    match drawn {
        Ok(svg) => svg,
        Err(e) => format!(
            "<p class=\"missing\">(the chart could not be drawn: {})</p>",
            esc(&e)
        ),
    }
}

/// Text as HTML: `<`, `>`, `&` and quotes escaped, so a document's markup shows as text;
/// control characters shown as their symbols (U+2400…) and bidirectional controls (which
/// would reorder what follows them: a hostile id could disguise itself) as their code
/// points, so that what the page shows is what the input holds.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(ch),
            '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + ch as u32).unwrap_or('?')),
            '\u{7f}' => out.push('\u{2421}'),
            '\u{200e}'
            | '\u{200f}'
            | '\u{061c}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => {
                let _ = write!(out, "<span class=\"ctl\">U+{:04X}</span>", ch as u32);
            }
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
:root{--fg:#1d2330;--bg:#ffffff;--muted:#5b6475;--card:#f4f6f9;--line:#d6dbe3;--del:#fbe1df;--ins:#dff3e3}\
@media (prefers-color-scheme: dark){:root{--fg:#e6e9ef;--bg:#15181e;--muted:#a3abb9;--card:#1e232b;--line:#363c48;--del:#5a2a27;--ins:#24492f}}\
*{box-sizing:border-box}body{margin:0 auto;max-width:1100px;padding:1rem 1.2rem 3rem;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}\
h1{margin:.2rem 0}h2{margin-top:2.2rem;border-bottom:1px solid var(--line)}header p,figcaption,.id,.missing{color:var(--muted)}\
figure{margin:1rem 0}svg{width:100%;height:auto;max-width:720px;display:block}svg text{fill:var(--fg)}\
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.2rem .7rem;border-bottom:1px solid var(--line);text-align:left}td{font-variant-numeric:tabular-nums}\
.cols{display:flex;gap:1.2rem;flex-wrap:wrap}.cols>*{flex:1 1 320px;min-width:0}\
.pair,.group{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;margin:.8rem 0}\
blockquote{margin:.3rem 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:14rem;overflow:auto}\
h4,h5{margin:.2rem 0}del{background:var(--del)}ins{background:var(--ins);text-decoration:none}.cut{color:var(--muted)}.diff{overflow-wrap:anywhere}";

#[cfg(test)]
mod tests {
    use super::super::collect::Matched;
    use super::*;
    use crate::input::DocId;

    /// A right-to-left override or a NUL in an id or a text shows as what it is, never
    /// reorders the page's text.
    #[test]
    fn controls_and_bidi_overrides_show_as_themselves() {
        let shown = esc("id\u{202e}gpj.exe\u{0}x\u{1b}");
        assert_eq!(
            shown,
            "id<span class=\"ctl\">U+202E</span>gpj.exe\u{2400}x\u{241b}"
        );
        assert!(!shown.contains('\u{202e}') && !shown.contains('\u{0}'));
    }

    #[test]
    fn a_page_escapes_texts_and_shows_the_stats() {
        let mut c = Collector::new(0.8, 1);
        let kept = DocId::Str("a<b".into());
        let text = "<script>alert(1)</script> kept words here";
        c.kept(1, kept.clone(), Some(text.into()), None);
        c.dropped(
            2,
            DocId::Str("d".into()),
            Some("<script>alert(1)</script> kept words there".into()),
            Matched {
                seq: 1,
                id: &kept,
                in_reference: false,
            },
            (0.82, false),
            || None,
        );
        let stats = serde_json::json!({"docs_read": 2, "written": 1, "dropped": 1});
        let p = page(
            &c,
            &RunInfo {
                stats: &stats,
                inputs: &["in.jsonl".to_string()],
                mode: "neardup --drop-dups",
                settings: vec![("threshold", "0.8".into())],
                bands: 16,
                rows: 8,
                words: Words::Unicode,
                graph: false,
            },
        );
        assert!(!p.contains("<script>"));
        assert!(p.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(p.contains("<td data-stat=\"docs_read\">2</td>"));
        assert!(p.contains("id <bdi>a&lt;b</bdi>"));
        assert!(p.contains("<del>here</del> <ins>there</ins>"), "{p}");
        assert_eq!(p.matches("<svg").count(), 4);
    }

    /// A pair whose first [`SNIPPET_BYTES`] are the same shows where it differs further on
    /// (within what the report holds), while each text is shown cut.
    #[test]
    fn a_difference_past_the_shown_text_is_in_the_diff() {
        let mut c = Collector::new(0.8, 1);
        let kept = DocId::Line(1);
        let words: Vec<String> = (0..800).map(|i| format!("w{i}")).collect();
        let mut changed = words.clone();
        changed[600] = "changed".into();
        let (a, b) = (words.join(" "), changed.join(" "));
        assert!(a.len() > 3 * SNIPPET_BYTES && a.len() < HELD_BYTES);
        c.kept(1, kept.clone(), Some(crate::report::cut(&a)), None);
        let matched = Matched {
            seq: 1,
            id: &kept,
            in_reference: false,
        };
        c.dropped(
            2,
            DocId::Line(2),
            Some(crate::report::cut(&b)),
            matched,
            (0.81, false),
            || None,
        );
        let stats = serde_json::json!({"docs_read": 2, "written": 1, "dropped": 1});
        let info = RunInfo {
            stats: &stats,
            inputs: &["in.jsonl".to_string()],
            mode: "neardup --drop-dups",
            settings: vec![],
            bands: 16,
            rows: 8,
            words: Words::Unicode,
            graph: false,
        };
        let p = page(&c, &info);
        assert!(p.contains("<del>w600</del> <ins>changed</ins>"), "{p}");
        assert!(!p.contains("further on"));
        // The texts themselves are shown cut.
        assert!(p.contains("w100 ") && !p.contains("w300 w301"));
        // Past what the report holds, the page says so.
        let long: Vec<String> = (0..3000).map(|i| format!("w{i}")).collect();
        let mut far = long.clone();
        far[2900] = "changed".into();
        let mut c = Collector::new(0.8, 1);
        c.kept(
            1,
            kept.clone(),
            Some(crate::report::cut(&long.join(" "))),
            None,
        );
        let b = crate::report::cut(&far.join(" "));
        c.dropped(2, DocId::Line(2), Some(b), matched, (0.81, false), || None);
        assert!(page(&c, &info).contains("the first 8 KiB the report holds of each are the same"));
    }

    #[test]
    fn the_curve_counts_what_each_threshold_drops() {
        let mut c = Collector::new(0.8, 1);
        let k = DocId::Line(1);
        let m = Matched {
            seq: 1,
            id: &k,
            in_reference: false,
        };
        c.kept(1, k.clone(), None, Some(0.55));
        c.kept(2, DocId::Line(2), None, None);
        c.dropped(3, DocId::Line(3), None, m, (0.9, false), || None);
        c.dropped(4, DocId::Line(4), None, m, (1.0, true), || None);
        let points = curve_points(&c, 16, 8);
        let at = |x: f64| *points.iter().find(|p| (p.0 - x).abs() < 1e-9).unwrap();
        assert_eq!(at(1.0).1, 1.0);
        assert_eq!(at(0.9).1, 2.0);
        assert_eq!(at(0.8).1, 2.0);
        assert_eq!(at(0.5).1, 3.0);
        // Below the threshold the estimate corrects for the pairs LSH rarely finds.
        assert!(at(0.5).2 > at(0.5).1 && at(0.5).3 > 0.0);
        assert_eq!(at(0.8).2, 2.0);
    }
}
