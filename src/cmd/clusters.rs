//! `neardup clusters`: one JSON line per document with its group (connected component or
//! clique cluster), from the documents or from an edge list computed elsewhere.

#[cfg(feature = "cli")]
use super::args::choice;
use super::args::{CommandInput, CommonArgs, GroupingArgs};
use super::flags::keywords::{Keywords, Own};
use crate::config::{Config, Settings};
use crate::error::Result;
use crate::export::ClustersFormat;
use crate::graph::{ClusterBy, ClusterOptions};
#[cfg(feature = "cli")]
use crate::input::Input;
use crate::job::GraphJob;
#[cfg(feature = "cli")]
use crate::pipeline::{self, Prepared};
use std::path::PathBuf;

/// What `--by` left out means.
const DEFAULT_BY: ClusterBy = ClusterBy::Components;
/// `--format` left out.
const DEFAULT_FORMAT: ClustersFormat = ClustersFormat::Jsonl;

/// The own flags of `clusters` as the keyword API lists them ([`Own`]), besides
/// [`CommandInput::OWN`] and [`GroupingArgs::OWN`]: the API returns the groups as values.
pub const OWN: &[Own] = &[
    Own::taking("by", Some(|| DEFAULT_BY.to_string()), true),
    Own::taking("format", Some(|| DEFAULT_FORMAT.to_string()), false),
    Own::taking("from-edges", None, false),
    Own::taking("keep", None, false),
    Own::taking("report", None, true),
];

/// Arguments of `neardup clusters`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ClustersArgs {
    /// Input files and format.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub input: CommandInput,

    /// How documents are grouped: connected components, or disjoint cliques (greedily, the
    /// largest clique of the remaining documents first).
    #[cfg_attr(feature = "cli", arg(long, value_parser = choice::<ClusterBy>(), default_value_t = DEFAULT_BY, value_name = "METHOD", help_heading = "Output"))]
    pub by: ClusterBy,

    /// Output: jsonl ({"id":…,"cluster":N,"size":S}, and "component" with --by cliques) or
    /// tsv (ID TAB CLUSTER TAB SIZE [TAB COMPONENT]).
    #[cfg_attr(feature = "cli", arg(long, value_parser = choice::<ClustersFormat>(), default_value_t = DEFAULT_FORMAT, value_name = "FORMAT", help_heading = "Output"))]
    pub format: ClustersFormat,

    /// Group an edge list computed elsewhere (ID_A TAB ID_B [TAB SIMILARITY] per line, as
    /// --pairs writes it; '-' for standard input) instead of documents: one line per id, in
    /// order of first appearance. --on-bad-line fail stops at a malformed line; otherwise it
    /// is skipped and reported.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", help_heading = "Input")
    )]
    pub from_edges: Option<PathBuf>,

    /// Write one line per group instead, the survivor's input line unchanged, in input
    /// order: first, last, longest (text), shortest, max:FIELD or min:FIELD (the largest or
    /// smallest value of a JSON field, e.g. max:date); ties go to the earliest. Bad lines
    /// follow --on-bad-line. The input is read twice (standard input is copied to a file in
    /// --spill-dir).
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "POLICY",
            conflicts_with = "from_edges",
            help_heading = "Output"
        )
    )]
    pub keep: Option<String>,

    /// Also write an HTML page about the run to FILE: the --stats figures, each document's
    /// similarity to its most similar earlier one, the groups by size and the largest with
    /// their members (with --keep, the one kept first), borderline and random pairs with the word diff.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "FILE",
            conflicts_with = "from_edges",
            help_heading = "Output"
        )
    )]
    pub report: Option<PathBuf>,

    /// Grouping settings.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub grouping: GroupingArgs,

    /// Settings shared by every command.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub common: CommonArgs,
}

/// What `clusters` runs: the settings (validated, unless `C` says otherwise while they are
/// being made), the graph it collects and how it groups it.
#[derive(Clone, Debug)]
pub struct ClustersPlan<C = Settings> {
    /// The run's settings.
    pub config: C,
    /// What the graph keeps (the components alone when no pair inside one is needed).
    pub graph: GraphJob,
    /// Components or cliques.
    pub by: ClusterBy,
    /// The grouping's options.
    pub grouping: ClusterOptions,
}

impl ClustersArgs {
    /// The arguments given as keywords (the Python API): the shared flags, `by`, `min-edge`,
    /// `max-cluster` and `report`, refused as the command line refuses them; what is left
    /// of `keywords` is refused. The flags about files and formats are the command line's
    /// (their defaults here: texts come from the caller, groups go back as values).
    pub fn from_keywords(mut keywords: Keywords) -> Result<Self> {
        let common = CommonArgs::from_keywords("neardup clusters", &mut keywords)?;
        let args = ClustersArgs {
            input: CommandInput::default(),
            by: (keywords.choice("by", "METHOD")?).unwrap_or(DEFAULT_BY),
            format: DEFAULT_FORMAT,
            from_edges: None,
            keep: None,
            report: keywords.one("report", "FILE")?,
            grouping: GroupingArgs {
                min_edge: (keywords.one("min-edge", "S")?)
                    .unwrap_or(GroupingArgs::DEFAULT.min_edge),
                max_cluster: (keywords.one("max-cluster", "N")?)
                    .unwrap_or(GroupingArgs::DEFAULT.max_cluster),
            },
            common,
        };
        keywords.finish()?;
        Ok(args)
    }

    /// The settings of a run over documents, validated, without `--keep` (for programs that
    /// group documents in process: the Python module).
    pub fn settings(self) -> Result<ClustersPlan> {
        let plan = self.plan()?;
        Ok(ClustersPlan {
            config: plan.config.validate()?,
            graph: plan.graph,
            by: plan.by,
            grouping: plan.grouping,
        })
    }

    /// The settings before `--keep` adds the fields it reads; the configuration is not yet
    /// validated.
    fn plan(&self) -> Result<ClustersPlan<Config>> {
        let mut grouping = self.grouping.options()?;
        let by = self.by;
        // Components print no clique unless --max-cluster splits them; only --stats (without
        // --keep) prints the components' edges, diameters, weakest edges and cliques. When
        // nothing but the components is printed, no pair inside one is verified.
        let stats = self.common.stats() && self.keep.is_none();
        grouping.cliques = by == ClusterBy::Cliques || grouping.max_cluster > 0 || stats;
        grouping.summaries = stats;
        let config = self.common.clone().config(self.input.clone())?;
        grouping = grouping.on_threads(config.worker_threads(), config.memory.max_memory);
        let mut graph = GraphJob {
            report: self.report.clone(),
            edge_bytes: grouping.edge_bytes(),
            ..GraphJob::ids_only()
        };
        if !grouping.cliques {
            graph.components_over = Some(grouping.min_edge);
        }
        Ok(ClustersPlan {
            config,
            graph,
            by,
            grouping,
        })
    }

    /// Groups the documents (or the `--from-edges` graph) and writes one line per document.
    #[cfg(feature = "cli")]
    pub fn run(self) -> Result<()> {
        let start = std::time::Instant::now();
        let ClustersPlan {
            config,
            mut graph,
            by,
            grouping,
        } = self.plan()?;
        let keep = match &self.keep {
            Some(policy) => Some(super::keep::parse(policy, &mut graph.node_attrs)?),
            None => None,
        };
        let config = config.validate()?;
        let mut stderr = super::util::diagnostics();
        if let Some(keep) = keep {
            let plan = ClustersPlan {
                config,
                graph,
                by,
                grouping,
            };
            let policy = self.keep.as_deref().unwrap_or("first");
            return keep_survivors(plan, &keep, policy, start);
        }
        if config.run.output_format != crate::config::OutputFormat::Auto
            || config.run.compression.is_some()
        {
            return Err(crate::error::Error::Usage(
                "--output-format and --compression are for the rows clusters --keep writes; \
                 without --keep, clusters writes one JSON line per document"
                    .into(),
            ));
        }
        let mut report = None;
        let (summary, graph) = match &self.from_edges {
            Some(path) => {
                let input = Input::open(path, config.read.decompress)?;
                let name = input.name.clone();
                let mut bad = crate::pipeline::bad_lines(&config);
                let graph = crate::graph::read_edges(
                    &name,
                    std::io::BufReader::new(input),
                    &mut |place, reason| bad.add(place, &reason, "skipped", &mut stderr),
                )?;
                (None, graph)
            }
            None => {
                let prepared = Prepared::new(config.clone())?;
                let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
                let terminal = pipeline::stderr_is_terminal();
                let (summary, graph, collector) = pipeline::collect_graph_reporting(
                    &prepared,
                    graph,
                    inputs,
                    &mut stderr,
                    terminal,
                )?;
                report = collector;
                (Some(summary), graph)
            }
        };
        let clustering = super::util::cluster(&config, &graph, by, grouping)?;
        super::util::stopped_writing(crate::export::write_clusters(
            &graph,
            &clustering,
            by,
            self.format,
            super::util::StopAtLine::new(std::io::stdout().lock()),
        ))?;
        let stats = super::util::graph_stats(&config, summary.as_ref(), &graph, &clustering, start);
        if let (Some(mut collector), Some(path)) = (report, &self.report) {
            let about = super::util::groups_about(by, None);
            let groups = super::util::report_groups(&graph, &clustering, &collector, None, about);
            collector.show_groups(groups);
            crate::report::write(
                &config,
                "neardup clusters",
                true,
                &stats.to_string(),
                &collector,
                path,
            )?;
        }
        Ok(())
    }
}

#[cfg(feature = "cli")]
/// `clusters --keep`: groups the documents, then reads the input again and writes each
/// group's survivor.
fn keep_survivors(
    plan: ClustersPlan,
    keep: &crate::graph::survivors::Keep,
    policy: &str,
    start: std::time::Instant,
) -> Result<()> {
    let ClustersPlan {
        config,
        graph,
        by,
        grouping,
    } = plan;
    let config = &config;
    let inputs = super::util::Rereadable::new(config)?;
    let report_path = graph.report.clone();
    let prepared = Prepared::new(config.clone())?;
    let mut stderr = super::util::diagnostics();
    let terminal = pipeline::stderr_is_terminal();
    let (summary, graph, report) =
        pipeline::collect_graph_reporting(&prepared, graph, inputs.open()?, &mut stderr, terminal)?;
    let clustering = super::util::cluster(config, &graph, by, grouping)?;
    let survivors = crate::graph::survivors::survivors(&graph, &clustering.cluster, keep);
    let written = super::util::stopped_writing(super::keep::write_survivors(
        config,
        inputs.open()?,
        &graph,
        &survivors,
        super::util::StopAtLine::new(crate::stdout::Stdout::new()),
    ))?;
    let stats = serde_json::json!({
            "docs_read": written.read,
            "written": written.kept + if config.read.on_bad_line == crate::config::BadLinePolicy::Pass { written.bad } else { 0 },
            "groups": written.kept,
            "dropped": written.dropped,
            "bad_lines": written.bad,
            "candidates": summary.candidates,
            "pairs": summary.pairs,
            "seconds": super::util::seconds_since(start),
    });
    if config.stats {
        use std::io::Write as _;
        let _ = writeln!(stderr, "{stats}");
    }
    if let (Some(mut collector), Some(path)) = (report, &report_path) {
        let about = super::util::groups_about(by, Some(policy));
        let kept = Some(survivors.as_slice());
        let groups = super::util::report_groups(&graph, &clustering, &collector, kept, about);
        collector.show_groups(groups);
        crate::report::write(
            config,
            "neardup clusters --keep",
            true,
            &stats.to_string(),
            &collector,
            path,
        )?;
    }
    Ok(())
}
