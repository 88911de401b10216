//! The TSV edge list: `ID_A<TAB>ID_B<TAB>SIMILARITY`, the bytes `--pairs` writes.

use super::{ExportOptions, Exporter};
use crate::graph::{Clustering, DupGraph};
use crate::output::format_similarity;
use std::io::Write;

/// Tsv.
pub(super) struct Tsv;

impl Exporter for Tsv {
    fn write(
        &self,
        graph: &DupGraph,
        _clustering: &Clustering,
        _options: &ExportOptions,
        _keep: &[bool],
        w: &mut dyn Write,
    ) -> std::io::Result<()> {
        tsv(graph, w)
    }
}

fn tsv(graph: &DupGraph, w: &mut dyn Write) -> std::io::Result<()> {
    for (a, b, s) in graph.edges() {
        writeln!(
            w,
            "{}\t{}\t{}",
            graph.node(a).id,
            graph.node(b).id,
            format_similarity(f64::from(s))
        )?;
    }
    Ok(())
}
