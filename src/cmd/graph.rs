//! `neardup graph`: the similarity graph (documents as nodes, verified pairs as weighted
//! edges) with its components and clique clusters, as GraphML, TSV, JSON or DOT.

use super::args::{CommandInput, CommonArgs, GroupingArgs, choice};
use crate::config::DEFAULT_SNIPPET_CHARS;
use crate::error::Result;
use crate::export::{ExportOptions, GraphFormat};
use crate::graph::ClusterBy;
use crate::input::Input;
use crate::job::GraphJob;
use crate::pipeline::{self, Prepared};
use std::path::PathBuf;

/// Arguments of `neardup graph`.
#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// Input files and format.
    #[command(flatten)]
    pub input: CommandInput,

    /// Output format: graphml (Gephi, networkx, igraph), tsv (id_a id_b similarity), json
    /// (nodes, edges and groups with their diameter and weakest edge), dot (Graphviz, one
    /// box per component).
    #[arg(long, value_parser = choice::<GraphFormat>(), default_value_t = GraphFormat::Graphml, value_name = "FORMAT", help_heading = "Output")]
    pub format: GraphFormat,

    /// Also write documents that have no edge.
    #[arg(long, help_heading = "Output")]
    pub all_nodes: bool,

    /// Keep this JSON field (dotted path) as a node attribute; repeat for more.
    #[arg(long, value_name = "PATH", help_heading = "Output")]
    pub node_attr: Vec<String>,

    /// Characters of each document's text kept as its snippet (memory: about this many
    /// bytes per document).
    #[arg(long, default_value_t = DEFAULT_SNIPPET_CHARS, value_name = "N", help_heading = "Output")]
    pub snippet_chars: usize,

    /// Grouping settings.
    #[command(flatten)]
    pub grouping: GroupingArgs,

    /// Also write an HTML page about the run to FILE: the --stats figures, each document's
    /// similarity to its most similar earlier one, the groups by size and the largest with
    /// their members, borderline and random pairs with the word diff.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub report: Option<PathBuf>,

    /// Settings shared by every command.
    #[command(flatten)]
    pub common: CommonArgs,
}

impl GraphArgs {
    /// Builds the graph of the inputs and writes it to standard output.
    pub fn run(self) -> Result<()> {
        let start = std::time::Instant::now();
        let mut grouping = self.grouping.options()?;
        let stats = self.common.stats();
        // Compute only what the format (or --stats) prints: GraphML and JSON label each node
        // with its clique cluster, JSON and DOT describe each component.
        grouping.cliques = stats || matches!(self.format, GraphFormat::Graphml | GraphFormat::Json);
        grouping.summaries = stats || matches!(self.format, GraphFormat::Json | GraphFormat::Dot);
        let export = ExportOptions {
            all_nodes: self.all_nodes,
            attr_names: self.node_attr.clone(),
        };
        let config = self.common.config(self.input)?.validate()?;
        grouping = grouping.on_threads(config.worker_threads(), config.memory.max_memory);
        let report_path = self.report.clone();
        let job = GraphJob {
            components_over: None,
            node_attrs: self.node_attr,
            snippet_chars: self.snippet_chars,
            report: self.report,
            edge_bytes: grouping.edge_bytes(),
        };
        let prepared = Prepared::new(config.clone())?;
        let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
        let terminal = pipeline::stderr_is_terminal();
        let (summary, graph, report) = pipeline::collect_graph_reporting(
            &prepared,
            job,
            inputs,
            &mut super::util::diagnostics(),
            terminal,
        )?;
        let clustering = super::util::cluster(&config, &graph, ClusterBy::Components, grouping)?;
        let out = super::util::StopAtLine::new(std::io::stdout().lock());
        super::util::stopped_writing(crate::export::write_graph(
            &graph,
            &clustering,
            self.format,
            &export,
            out,
        ))?;
        let stats = super::util::graph_stats(&config, Some(&summary), &graph, &clustering, start);
        if let (Some(mut collector), Some(path)) = (report, &report_path) {
            let about = super::util::groups_about(ClusterBy::Components, None);
            let groups = super::util::report_groups(&graph, &clustering, &collector, None, about);
            collector.show_groups(groups);
            crate::report::write(
                &config,
                "neardup graph",
                true,
                &stats.to_string(),
                &collector,
                path,
            )?;
        }
        Ok(())
    }
}
