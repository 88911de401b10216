//! The `neardup` binary: arguments → [`neardup::Config`] → [`neardup::pipeline::run`].
//!
//! Exit codes: 0 success (also when stdout is closed early, as with `| head`), 1 runtime
//! failure, 2 usage error.

use clap::Parser;
use neardup::cli::{Args, Job};
use neardup::config::Config;
use neardup::export;
use neardup::graph::{ClusterBy, ClusterOptions, Clustering, DupGraph};
use neardup::input::Input;
use neardup::{Error, Result, Summary, explain, pipeline};
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// jemalloc: 12% faster on one core and 8% on two than glibc's malloc on the peer corpus,
/// mostly fewer system calls while the signing threads' memory grows (README, Performance).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let job = match Args::parse().into_job() {
        Ok(j) => j,
        Err(e) => return fail(&e),
    };
    match run(job) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn run(job: Job) -> Result<()> {
    let stdout = std::io::stdout().lock();
    // Not locked for the whole run: the clustering thread (and a panic message) may write.
    let mut stderr = std::io::stderr();
    let terminal = pipeline::stderr_is_terminal();
    match job {
        Job::Filter(config) => {
            let inputs = Input::open_all(&config.inputs)?;
            let summary = pipeline::run(&config, inputs, stdout, &mut stderr, terminal)?;
            if config.stats {
                let _ = writeln!(stderr, "{}", summary.to_json());
            }
            Ok(())
        }
        Job::Graph {
            config,
            format,
            grouping,
            export,
        } => {
            let inputs = Input::open_all(&config.inputs)?;
            let (summary, graph) = pipeline::collect_graph(&config, inputs, &mut stderr, terminal)?;
            let clustering = cluster(&graph, ClusterBy::Components, grouping)?;
            warn(&config, &clustering, &mut stderr);
            export::write_graph(&graph, &clustering, format, &export, stdout)?;
            graph_stats(&config, &summary, &graph, &clustering, &mut stderr);
            Ok(())
        }
        Job::Clusters {
            from_edges: Some(path),
            config,
            by,
            grouping,
        } => {
            let input = Input::open(&path)?;
            let strict = config.on_bad_line == neardup::config::BadLinePolicy::Fail;
            let mut reported = 0;
            let mut skipped = |message: String| {
                reported += 1;
                if !config.quiet && reported <= config.max_bad_line_reports {
                    let _ = writeln!(std::io::stderr(), "neardup: {message} (skipped)");
                }
            };
            let name = input.name.clone();
            let graph = neardup::graph::read_edges(
                &name,
                std::io::BufReader::new(input),
                strict,
                &mut skipped,
            )?;
            let clustering = cluster(&graph, by, grouping)?;
            warn(&config, &clustering, &mut stderr);
            export::write_clusters(&graph, &clustering, by, stdout)
        }
        Job::Clusters {
            from_edges: None,
            config,
            by,
            grouping,
        } => {
            let inputs = Input::open_all(&config.inputs)?;
            let (summary, graph) = pipeline::collect_graph(&config, inputs, &mut stderr, terminal)?;
            let clustering = cluster(&graph, by, grouping)?;
            warn(&config, &clustering, &mut stderr);
            export::write_clusters(&graph, &clustering, by, stdout)?;
            graph_stats(&config, &summary, &graph, &clustering, &mut stderr);
            Ok(())
        }
        Job::Hist {
            config,
            ngrams,
            sample,
            plot,
        } => {
            let inputs = Input::open_all(&config.inputs)?;
            let (docs, seen) = neardup::hist::reservoir(&config, inputs, sample)?;
            let hists = neardup::hist::histograms(
                &config,
                &docs,
                ngrams.0..=ngrams.1,
                config.worker_threads(),
            );
            let mut out = std::io::BufWriter::new(stdout);
            out.write_all(neardup::hist::table(&hists, docs.len(), seen).as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| Error::io("writing output", e))?;
            if let Some(path) = plot {
                std::fs::write(&path, neardup::hist::svg(&hists))
                    .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
            }
            Ok(())
        }
        Job::Sample {
            config,
            bins,
            per_bin,
            sample,
            jsonl,
        } => {
            let stdin_data = read_stdin_if_needed(&config)?;
            let open = || open_inputs(&config.inputs, stdin_data.as_ref());
            let found = neardup::sample::collect(&config, &bins, per_bin, sample, &open)?;
            let mut out = std::io::BufWriter::new(stdout);
            neardup::sample::write(&config, &found, jsonl, &open, &mut out)
        }
        Job::Tune { config, plot } => {
            let mut out = std::io::BufWriter::new(stdout);
            let report = neardup::tune::report(config.lsh, config.threshold, config.num_perm);
            out.write_all(report.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| Error::io("writing output", e))?;
            if let Some(path) = plot {
                let svg = neardup::tune::svg(config.lsh, config.threshold, config.num_perm);
                std::fs::write(&path, svg)
                    .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
            }
            Ok(())
        }
        Job::VerifyPairs(config) => {
            let start = std::time::Instant::now();
            let inputs = Input::open_all(&config.inputs)?;
            let (config, inputs) = pipeline::with_idf(&config, inputs)?;
            let counts = neardup::candidates::verify_pairs(&config, inputs, stdout, &mut stderr)?;
            if config.stats {
                let _ = writeln!(
                    stderr,
                    "{}",
                    serde_json::json!({
                        "candidates_read": counts.read,
                        "verified": counts.verified,
                        "bad_lines": counts.bad,
                        "seconds": (start.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
                    })
                );
            }
            Ok(())
        }
        Job::Idf { config, max_terms } => {
            use std::io::IsTerminal;
            if std::io::stdout().is_terminal() {
                return Err(Error::config(
                    "idf",
                    "the IDF file is binary; redirect standard output to a file",
                ));
            }
            let start = std::time::Instant::now();
            let inputs = Input::open_all(&config.inputs)?;
            let (counter, bad) = neardup::weights::count(&config, inputs)?;
            let docs = counter.docs();
            let table = counter.finish(max_terms, neardup::weights::settings_of(&config));
            let mut out = std::io::BufWriter::new(stdout);
            table
                .write_to(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| Error::io("writing output", e))?;
            if bad > 0 && !config.quiet {
                let _ = writeln!(stderr, "neardup: {bad} lines were not documents (skipped)");
            }
            if config.stats {
                let stats = serde_json::json!({
                    "docs": docs,
                    "bad_lines": bad,
                    "terms": table.len(),
                    "seconds": (start.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
                });
                let _ = writeln!(stderr, "{stats}");
            }
            Ok(())
        }
        Job::Explain {
            config,
            ids,
            min_edge,
        } => {
            // The input is read twice; standard input is kept in memory for that.
            let stdin_data = read_stdin_if_needed(&config)?;
            let open = || open_inputs(&config.inputs, stdin_data.as_ref());
            // Freeze the IDF table once, so explain measures with the weights of the graph.
            let (config, inputs) = pipeline::with_idf(&config, open()?)?;
            let (summary, graph) = pipeline::collect_graph(&config, inputs, &mut stderr, terminal)?;
            let adjacency = graph.adjacency(min_edge);
            let mut out = std::io::BufWriter::new(stdout);
            explain::explain(
                &config,
                &graph,
                &adjacency,
                (&ids.0, &ids.1),
                open,
                &mut out,
            )?;
            out.flush().map_err(|e| Error::io("writing output", e))?;
            if config.stats {
                let _ = writeln!(stderr, "{}", summary.to_json());
            }
            Ok(())
        }
    }
}

/// Reads all of standard input when the inputs include it (for commands that read twice).
fn read_stdin_if_needed(config: &Config) -> Result<Option<Arc<[u8]>>> {
    let reads_stdin =
        config.inputs.is_empty() || config.inputs.iter().any(|p| p.as_os_str() == "-");
    if !reads_stdin {
        return Ok(None);
    }
    let mut data = Vec::new();
    std::io::stdin()
        .read_to_end(&mut data)
        .map_err(|e| Error::io("reading standard input", e))?;
    Ok(Some(data.into()))
}

/// Opens the inputs, serving standard input from memory when it was read already.
fn open_inputs(paths: &[std::path::PathBuf], stdin: Option<&Arc<[u8]>>) -> Result<Vec<Input>> {
    let stdin_input = |data: &Arc<[u8]>| {
        Input::from_reader("-", Box::new(std::io::Cursor::new(Arc::clone(data))))
    };
    if paths.is_empty() {
        return Ok(stdin.map(stdin_input).into_iter().collect());
    }
    paths
        .iter()
        .map(|p| match stdin {
            Some(data) if p.as_os_str() == "-" => Ok(stdin_input(data)),
            _ => Input::open(Path::new(p)),
        })
        .collect()
}

/// Groups the graph on a thread with a large stack: the clique search recurses once per
/// member of the clique being built.
fn cluster(graph: &DupGraph, by: ClusterBy, options: ClusterOptions) -> Result<Clustering> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("cluster".into())
            .stack_size(512 << 20)
            .spawn_scoped(scope, || graph.cluster(by, options))
            .map_err(|e| Error::io("starting the clustering thread", e))?
            .join()
            .map_err(|_| Error::Internal("the clustering thread panicked".into()))
    })
}

fn warn<D: Write>(config: &Config, clustering: &Clustering, stderr: &mut D) {
    if !config.quiet {
        for w in &clustering.warnings {
            let _ = writeln!(stderr, "neardup: warning: {w}");
        }
    }
}

/// `--stats` of the graph commands: the run summary plus a `graph` object.
fn graph_stats<D: Write>(
    config: &Config,
    summary: &Summary,
    graph: &DupGraph,
    clustering: &Clustering,
    stderr: &mut D,
) {
    if !config.stats {
        return;
    }
    let mut value: serde_json::Value =
        serde_json::from_str(&summary.to_json()).expect("the summary is JSON");
    value["graph"] = export::graph_stats(graph, clustering, 10);
    let _ = writeln!(stderr, "{value}");
}

fn fail(e: &neardup::Error) -> ExitCode {
    let mut message = format!("neardup: {e}");
    let mut source = std::error::Error::source(e);
    // The Io variant already prints its source; show deeper causes only.
    if let Some(s) = source {
        source = s.source();
    }
    while let Some(s) = source {
        message.push_str(&format!(": {s}"));
        source = s.source();
    }
    eprintln!("{message}");
    ExitCode::from(e.exit_code() as u8)
}
