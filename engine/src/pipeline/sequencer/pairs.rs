//! The consumer of the jobs that want every verified pair (`--pairs`, the graph commands):
//! each document is looked up and verified against everything held, one by one or a batch
//! on all threads, and its pairs written or added to the graph; with only components wanted,
//! a union–find joins documents instead ([`crate::pipeline::components`]).

use super::consumer::{Consumer, Left, Parallel, Shared};
use super::pairing::Pairing;
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::input::{BadLine, Batch, DocId};
use crate::pipeline::decision::into_entry;
use crate::pipeline::helpers::{index_batch, look_up_and_verify};
use crate::pipeline::signing::{Doc, NodeData, Signed};
use crate::window::{Entry, Held, Window};
use std::io::Write;
use std::sync::Arc;

impl<W: Write> Consumer<W> for Pairing {
    /// A document of `--pairs` or a graph command, one by one: its pairs with the documents
    /// held (or its component's join), then it is held itself.
    fn document(
        &mut self,
        at: &mut Shared<'_, W>,
        batch: &Batch,
        i: usize,
        mut signed: Signed,
    ) -> Result<()> {
        let line = batch.lines[i];
        let spill = |e| Error::spill(e, line.number);
        if let (Some(components), Some(graph), Some(min_edge)) =
            (&mut self.components, &self.graph, self.components_over)
        {
            let joined = components
                .join(
                    at.config,
                    min_edge,
                    &mut at.window,
                    graph,
                    &signed,
                    &mut self.matches,
                )
                .map_err(spill)?;
            at.summary.candidates += joined.verified;
            self.report(at, batch, i, &signed.id, signed.node.take())?;
            if !joined.copy {
                let held = at
                    .window
                    .insert(line.number, into_entry(signed, false))
                    .map_err(spill)?;
                if let Some(components) = &mut self.components {
                    components.hold(held, joined.node);
                }
            }
            return Ok(());
        }
        // --pairs and the graph want every pair, copies included.
        at.window
            .candidates(&signed.band_keys, &mut self.candidates);
        at.summary.candidates += self.candidates.len() as u64;
        self.matches.clear();
        let (verifier, matches) = (
            crate::pipeline::prepare::verifier(at.config),
            &mut self.matches,
        );
        at.window
            .visit(&self.candidates, |held, entry| {
                if let Some(s) = verifier.decide(entry.compared(), signed.compared()) {
                    matches.push((held, s));
                }
            })
            .map_err(spill)?;
        self.report(at, batch, i, &signed.id, signed.node.take())?;
        at.window
            .insert(line.number, into_entry(signed, true))
            .map_err(spill)?;
        Ok(())
    }

    /// The documents of a batch of `--pairs` or a graph command that cannot evict anything,
    /// with the bucket inserts, the LSH lookups and verification on this thread and the
    /// helpers. Same output, window and recency order as [`Self::document`] one by one:
    /// 1. in order, each document is inserted without its band keys; with no eviction every
    ///    handle stays valid (inserts depend on neither lookup nor verdict);
    /// 2. on all threads, each owning some of the bucket tables, the batch's band keys are
    ///    added in sequence order ([`index_batch`]): each bucket gets its documents in the
    ///    order one-by-one inserts give;
    /// 3. on all threads, each inserted document finds its candidates among the documents
    ///    with smaller sequence numbers (exactly the window it would have seen one by one:
    ///    nothing was evicted, and later ones are filtered out) and verifies them;
    /// 4. in order, each document's outcome is written and its matches refreshed, then the
    ///    document itself: the same sequence of move-to-front operations as one by one (the
    ///    inserts' own moves in step 1 are all repeated here), so the same recency order.
    fn batch_in_parallel<'c>(
        &mut self,
        at: &mut Shared<'c, W>,
        batch: &Batch,
        docs: Vec<Doc>,
        parallel: Parallel<'_, 'c>,
    ) -> Result<()> {
        let (helpers, mut parallel) = (parallel.helpers, parallel);
        enum Plan {
            Bad(BadLine),
            /// The document's place in `inserted`.
            Near(usize, Option<NodeData>),
            Rest,
        }
        let mut plans = Vec::with_capacity(docs.len());
        let mut inserted = Vec::with_capacity(docs.len());
        for (i, doc) in docs.into_iter().enumerate() {
            let mut signed = match doc {
                Doc::Good(s) => s,
                Doc::Bad(_) if batch.lines[i].part.continues() => {
                    plans.push(Plan::Rest);
                    continue;
                }
                Doc::Bad(reason) => {
                    plans.push(Plan::Bad(reason));
                    continue;
                }
            };
            let node = signed.node.take();
            let line = batch.lines[i].number;
            let entry = into_entry(signed, true);
            let held = at
                .window
                .insert_unindexed(line, &entry)
                .map_err(|e| Error::spill(e, line))?;
            plans.push(Plan::Near(inserted.len(), node));
            inserted.push((held, entry));
        }
        let inserted: Arc<[(Held, Entry)]> = inserted.into();
        index_batch(&mut at.window, &inserted, helpers)?;
        let mut looked = look_up_and_verify(
            crate::pipeline::prepare::verifier(at.config),
            &mut at.window,
            Arc::clone(&inserted),
            &mut self.marks,
            helpers,
        )?
        .into_iter();
        for (i, plan) in plans.into_iter().enumerate() {
            at.lines = batch.lines[i].number;
            match plan {
                // The rest of an over-long line whose first piece was skipped.
                Plan::Rest => {}
                Plan::Bad(reason) => {
                    at.summary.docs_read += 1;
                    at.summary.bad_lines += 1;
                    parallel.skipped(&batch.lines[i], &reason)?;
                }
                Plan::Near(k, node) => {
                    let (held, entry) = &inserted[k];
                    at.summary.docs_read += 1;
                    let outcome = looked.next().expect("one outcome per inserted document");
                    at.summary.candidates += outcome.candidates;
                    self.matches = outcome.matches;
                    self.report(at, batch, i, &entry.id, node)?;
                    at.window.touch(*held);
                }
            }
        }
        Ok(())
    }

    fn parallel(&self) -> bool {
        true
    }

    fn note(&mut self) -> Option<String> {
        self.same_id.as_mut()?.take()
    }

    fn finish(self: Box<Self>, window: Window) -> Left {
        drop(window);
        Left {
            graph: self.graph,
            window: None,
        }
    }
}

impl Pairing {
    /// `--report` in a graph job: the document's most similar earlier document (its pairs
    /// are in `matches`), or none.
    fn report_pairs<W: Write>(
        &mut self,
        at: &mut Shared<'_, W>,
        line: u64,
        id: &DocId,
        text: Option<Box<str>>,
    ) -> Result<()> {
        let best = self.matches.iter().copied().reduce(|b, m| {
            if m.1 > b.1 || (m.1 == b.1 && m.0.seq < b.0.seq) {
                m
            } else {
                b
            }
        });
        let matched = match best {
            Some((held, s)) => {
                let earlier = at.window.id(held).map_err(|e| Error::spill(e, line))?;
                Some((held.seq, earlier, s))
            }
            None => None,
        };
        let Some(collector) = &mut at.report else {
            return Ok(());
        };
        match &matched {
            None => collector.kept(line, id.clone(), text, None),
            Some((seq, earlier, s)) => {
                let with = crate::report::Matched {
                    seq: *seq,
                    id: earlier,
                    in_reference: false,
                };
                collector.linked(line, id.clone(), text, with, *s);
            }
        }
        Ok(())
    }

    /// Writes what line `i` (document `id`) of `--pairs` or a graph command gets once its
    /// verified matches are in `self.matches`: pairs or graph edges; the matched documents
    /// are refreshed. The caller then inserts (or refreshes) the document itself.
    fn report<W: Write>(
        &mut self,
        at: &mut Shared<'_, W>,
        batch: &Batch,
        i: usize,
        id: &DocId,
        mut node: Option<NodeData>,
    ) -> Result<()> {
        if at.report.is_some() {
            let text = node.as_mut().and_then(|n| n.report_text.take());
            self.report_pairs(at, batch.lines[i].number, id, text)?;
        }
        at.summary.pairs += self.matches.len() as u64;
        for &(held, _) in &self.matches {
            at.window.touch(held);
        }
        if let Some(graph) = &mut self.graph {
            let NodeData {
                snippet,
                attrs,
                text_bytes,
                ..
            } = node.unwrap_or_default();
            let node = graph.add_node(
                batch.lines[i].number,
                Node {
                    id: id.clone(),
                    snippet,
                    attrs,
                    text_bytes,
                },
            );
            for &(held, similarity) in &self.matches {
                graph.add_edge(held.seq, node, similarity);
            }
            // The window keeps to its share of the budget by evicting; the graph cannot
            // give anything back, so the run stops before grouping it would pass the budget
            // (the window is gone by then: the budget is the graph's but for what the
            // process holds anyway).
            let (budget, peak) = (
                at.config.memory.max_memory,
                graph.peak_bytes(self.edge_bytes),
            );
            if budget > 0 && peak > budget.saturating_sub(GRAPH_BASE) {
                let line = batch.lines[i].number;
                return Err(graph_over_budget(budget, line, graph.edge_count(), peak));
            }
        } else {
            for &(held, similarity) in &self.matches {
                let earlier = at.window.id(held).map_err(|e| Error::spill(e, at.lines))?;
                if earlier == *id && self.same_id.is_none() {
                    self.same_id = Some(Some(format!(
                        "warning: lines {} and {} have the same id ({id}), so a pair names them \
                         alike (check ‹id-field›; without it, ids are line numbers)",
                        held.seq, batch.lines[i].number
                    )));
                }
                at.out.pair(&earlier, id, similarity)?;
                at.summary.written += 1;
            }
        }
        Ok(())
    }
}

/// What the process holds besides the graph while it is grouped and written (the code,
/// the allocator's arenas, the output's buffers).
const GRAPH_BASE: usize = 32 << 20;

/// The error of a graph that would not fit in `budget` (`--max-memory`) once grouped: at
/// input line `line`, `edges` pairs whose grouping would take about `peak` bytes.
fn graph_over_budget(budget: usize, line: u64, edges: usize, peak: usize) -> Error {
    let mib = crate::memory::mebibytes;
    Error::io(
        format!(
            "the graph at input line {line}: its {edges} verified pairs would take about {} \
             to group and write, with the {} the run holds besides, more than ‹max-memory› \
             ({}) allows; nothing was written (raise ‹threshold› or ‹max-memory›, or hold no \
             pairs: ‹pairs› writes them as they are found, and clusters ‹by› components \
             joins documents without them)",
            mib(peak),
            mib(GRAPH_BASE),
            mib(budget),
        ),
        std::io::Error::from(std::io::ErrorKind::OutOfMemory),
    )
}
