//! `--report FILE.html`: what the filter removed and why, on one self-contained page.
//!
//! The [`Collector`] sees each decision of the filter, in input order, and keeps in bounded
//! memory what the page needs: histograms (the dropped documents' similarity to their match,
//! the kept ones' highest similarity below the threshold), the size of each group (a kept
//! document and the documents dropped as its duplicates), and a few examples with their
//! texts — the removals closest to the threshold, a seeded random sample of removals, and
//! members of the largest groups. A kept document's text is only known when it is kept, so
//! the snippets of the most recent kept documents are held in a ring of [`RING_BYTES`], from
//! which an example takes its match's text (an older match is named, its text not shown).
//! [`page`] renders it all at the end of the run: no second read of the input.
//!
//! - [`collect`]: the [`Collector`] and the examples it keeps;
//! - [`page`]: the HTML page;
//! - [`charts`]: its charts, drawn by `plotters` as inline SVG;
//! - [`write`]: the run's settings as the page lists them, and the file written whole.

pub mod charts;
pub mod collect;
pub mod page;
mod write;

pub use collect::{BINS, Collector, Example, Groups, Matched, Shown, TOP_GROUPS, bin, cut};
pub(crate) use collect::{DIFFERS_SEP, HELD_BYTES};
pub use page::{RunInfo, page};
pub use write::{filter_mode, write};
