//! The TSV edge list: `ID_A<TAB>ID_B<TAB>SIMILARITY`, the bytes `--pairs` writes.

use crate::graph::DupGraph;
use crate::output::format_similarity;
use std::io::Write;

pub(super) fn tsv(graph: &DupGraph, w: &mut dyn Write) -> std::io::Result<()> {
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
