//! The collector: each filter decision in, what the page needs kept in bounded memory.

use crate::hash::mix64;
use crate::input::DocId;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// Bytes of a document's text the page shows beside its match (cut at a character).
pub(crate) const SNIPPET_BYTES: usize = 1000;

/// Bytes of each document's text the report holds (cut at a character): more than it shows,
/// so that the word diff of a pair whose first [`SNIPPET_BYTES`] are the same still shows
/// where they differ. News stories, job ads and product pages fit whole.
pub(crate) const HELD_BYTES: usize = 8 << 10;

/// The start of a text the report holds: its first [`HELD_BYTES`] bytes ([`cut_at`]).
pub fn cut(text: &str) -> Box<str> {
    cut_at(text, HELD_BYTES)
}

/// The first `bytes` bytes of `text`, cut at a character, with "…" when cut. A plain copy
/// (this runs for every document); white space is folded when a text is shown.
pub(crate) fn cut_at(text: &str, bytes: usize) -> Box<str> {
    if text.len() <= bytes {
        return text.into();
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 3);
    out.push_str(&text[..end]);
    out.push('…');
    out.into_boxed_str()
}

/// Separates the parts of [`Example::differs`] (normalised words hold no control
/// characters).
pub(crate) const DIFFERS_SEP: char = '\u{1}';

/// Bytes of kept documents' snippets held for the examples' matches.
pub(crate) const RING_BYTES: usize = 16 << 20;

/// Examples of each kind shown.
pub(crate) const EXAMPLES: usize = 12;

/// Largest groups shown.
pub const TOP_GROUPS: usize = 10;
/// Members a group's card lists besides the one shown first (the rest are counted).
pub(crate) const MEMBERS_SHOWN: usize = 3;

/// Groups counted one by one at most; beyond, new groups are counted as a total only.
const MAX_GROUPS: usize = 1 << 20;

/// What a group counted one by one holds (its entry, and the members shown while it is
/// among the largest), for [`Collector::within`].
const GROUP_BYTES: usize = 128;

/// Similarity histogram bins: 0.00–0.01, …, 0.99–1.00, and exactly 1.
pub const BINS: usize = 101;

/// A document as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// Its input line (its number over all inputs).
    pub line: u64,
    /// Its id, as the output names it.
    pub id: DocId,
    /// The start of its text, if held.
    pub text: Option<Box<str>>,
}

/// A removal shown beside its kept match.
#[derive(Clone, Debug)]
pub struct Example {
    /// The document dropped.
    pub dropped: Shown,
    /// The document it matched.
    pub kept: Shown,
    /// Their similarity.
    pub similarity: f64,
    /// Whether their normalised texts are equal.
    pub exact: bool,
    /// Whether the match is an `--against` reference document.
    pub in_reference: bool,
    /// Where the dropped text differs from the kept one past what the page holds of each
    /// (long texts only): the place of its first word shingle the kept one lacks, the
    /// words before it, the shingle's and the words after, joined by [`DIFFERS_SEP`].
    pub differs: Option<Box<str>>,
}

/// The match a dropped document was dropped for.
#[derive(Clone, Copy, Debug)]
pub struct Matched<'a> {
    /// Its sequence number (its input line; a reference's own numbering).
    pub seq: u64,
    /// Its id.
    pub id: &'a DocId,
    /// Whether it is an `--against` reference document.
    pub in_reference: bool,
}

/// A group: a kept document and the documents dropped as its duplicates.
#[derive(Debug, Default)]
struct Group {
    /// Documents dropped as its duplicates.
    dropped: u32,
    /// While among the largest: the kept document and the first members, as shown.
    kept: Option<Shown>,
    members: Vec<Shown>,
}

/// An example ordered by a key (a max-heap keeps the smallest keys by popping the largest).
struct Keyed {
    key: (u64, u64),
    example: Example,
}

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Keyed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// What the page needs, gathered decision by decision.
pub struct Collector {
    threshold: f64,
    seed: u64,
    /// Dropped documents by their similarity to their match (exact copies in the last bin).
    pub dropped: [u64; BINS],
    /// Kept documents by the highest similarity of a candidate verified below the threshold.
    pub below: [u64; BINS],
    /// Kept documents with no candidate verified.
    pub alone: u64,
    /// Kept documents seen.
    pub kept: u64,
    groups: HashMap<u64, Group>,
    /// Groups not counted one by one ([`MAX_GROUPS`]).
    pub untracked: u64,
    /// The largest groups so far (dropped count, key), largest first.
    top: Vec<(u32, u64)>,
    /// The most recent kept documents' snippets, by line.
    ring: VecDeque<Shown>,
    ring_bytes: usize,
    /// Removals closest to the threshold (a max-heap on the distance: the farthest goes).
    borderline: BinaryHeap<Keyed>,
    /// A seeded random sample of removals (the smallest hashes of their lines).
    random: BinaryHeap<Keyed>,
    /// A graph command's groups, shown instead of the collector's own.
    groups_shown: Option<Groups>,
    /// [`RING_BYTES`] and [`MAX_GROUPS`], or less under a memory budget
    /// ([`Collector::within`]).
    ring_cap: usize,
    max_groups: usize,
}

/// Groups as a graph command forms them (components or cliques of the verified pairs),
/// which the page shows instead of the collector's own (a kept document and its duplicates).
#[derive(Clone, Debug, Default)]
pub struct Groups {
    /// (size, groups of that size), sizes ascending.
    pub sizes: Vec<(u64, u64)>,
    /// The largest groups: the member shown first (the one kept, with `--keep`), the size,
    /// and a few other members.
    pub largest: Vec<(Shown, u64, Vec<Shown>)>,
    /// What the page says the groups are, and which member is shown first.
    pub about: String,
    /// What the member shown first is called ("kept" with `--keep`, else "first").
    pub first: &'static str,
}

/// The key of a reference document's group (its own numbering is apart from the lines').
const REFERENCE: u64 = 1 << 63;

impl Collector {
    /// This collector holding about `bytes` at most (0: no limit but its own): half for
    /// the ring of snippets, half for the groups counted one by one. Fewer held only
    /// shortens what the page can show (older kept snippets, groups counted as a total).
    pub(crate) fn within(mut self, bytes: usize) -> Collector {
        if bytes > 0 {
            self.ring_cap = RING_BYTES.min(bytes / 2);
            self.max_groups = MAX_GROUPS.min(bytes / 2 / GROUP_BYTES);
        }
        self
    }

    /// A collector for a run at `threshold`; `seed` picks the random sample.
    pub fn new(threshold: f64, seed: u64) -> Collector {
        Collector {
            threshold,
            seed,
            dropped: [0; BINS],
            below: [0; BINS],
            alone: 0,
            kept: 0,
            groups: HashMap::new(),
            untracked: 0,
            top: Vec::new(),
            ring: VecDeque::new(),
            ring_bytes: 0,
            ring_cap: RING_BYTES,
            max_groups: MAX_GROUPS,
            borderline: BinaryHeap::new(),
            random: BinaryHeap::new(),
            groups_shown: None,
        }
    }

    /// The threshold the run dropped at.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// A kept document: `below`, the highest similarity of a candidate verified (all below
    /// the threshold), if any.
    pub fn kept(&mut self, line: u64, id: DocId, snippet: Option<Box<str>>, below: Option<f64>) {
        self.kept += 1;
        match below {
            Some(s) => self.below[bin(s)] += 1,
            None => self.alone += 1,
        }
        self.hold(line, id, snippet);
    }

    /// Holds a document's text in the ring, for the examples it may be the match of.
    fn hold(&mut self, line: u64, id: DocId, snippet: Option<Box<str>>) {
        let text = snippet.unwrap_or_default();
        // A short snippet costs its entry too.
        self.ring_bytes += text.len() + std::mem::size_of::<Shown>();
        self.ring.push_back(Shown {
            line,
            id,
            text: Some(text),
        });
        while self.ring_bytes > self.ring_cap
            && let Some(old) = self.ring.pop_front()
        {
            self.ring_bytes -=
                old.text.as_deref().map_or(0, str::len) + std::mem::size_of::<Shown>();
        }
    }

    /// A dropped document, `similarity` to `matched` (`exact`: the same normalised text), and
    /// where its text differs from its match past what the page holds ([`Example::differs`]),
    /// asked of `differs` only when the pair is shown.
    pub fn dropped(
        &mut self,
        line: u64,
        id: DocId,
        snippet: Option<Box<str>>,
        matched: Matched<'_>,
        (similarity, exact): (f64, bool),
        differs: impl FnOnce() -> Option<String>,
    ) {
        let mut differs = Some(differs);
        let mut found: Option<Option<Box<str>>> = None;
        let mut differs = move || {
            found
                .get_or_insert_with(|| differs.take().and_then(|f| f()).map(Into::into))
                .clone()
        };
        self.dropped[if exact { BINS - 1 } else { bin(similarity) }] += 1;
        let key = match matched.in_reference {
            true => REFERENCE | matched.seq,
            false => matched.seq,
        };
        let dropped = Shown {
            line,
            id,
            text: snippet,
        };
        let mut example = |me: &Self| Example {
            dropped: dropped.clone(),
            kept: me.shown_kept(matched),
            similarity,
            exact,
            in_reference: matched.in_reference,
            differs: differs(),
        };
        // Closest to the threshold first, then the earliest.
        let distance = ((similarity - self.threshold).max(0.0) * 1e9) as u64;
        let key_near = (distance, line);
        if self.borderline.len() < EXAMPLES
            || self.borderline.peek().is_some_and(|k| key_near < k.key)
        {
            let example = example(self);
            keep_smallest(&mut self.borderline, key_near, example);
        }
        let key_random = (mix64(line ^ self.seed), line);
        if self.random.len() < EXAMPLES || self.random.peek().is_some_and(|k| key_random < k.key) {
            let example = example(self);
            keep_smallest(&mut self.random, key_random, example);
        }
        self.grow_group(key, matched, dropped);
    }

    /// A document of a graph job with a verified pair: `similarity` to `matched`, its most
    /// similar earlier document. Every document of a graph job can be another's match, so
    /// this one's text goes into the ring too.
    pub(crate) fn linked(
        &mut self,
        line: u64,
        id: DocId,
        snippet: Option<Box<str>>,
        matched: Matched<'_>,
        similarity: f64,
    ) {
        let how = (similarity, false);
        self.dropped(line, id.clone(), snippet.clone(), matched, how, || None);
        self.hold(line, id, snippet);
    }

    /// The text of the document at `line`, if the ring still holds it.
    pub fn text_of(&self, line: u64) -> Option<Box<str>> {
        let i = self.ring.binary_search_by_key(&line, |s| s.line).ok()?;
        self.ring[i].text.clone()
    }

    /// The kept document as shown: its snippet from the ring if still there.
    fn shown_kept(&self, matched: Matched<'_>) -> Shown {
        let text = match matched.in_reference {
            true => None,
            false => self.text_of(matched.seq),
        };
        Shown {
            line: matched.seq,
            id: matched.id.clone(),
            text,
        }
    }

    fn grow_group(&mut self, key: u64, matched: Matched<'_>, member: Shown) {
        if !self.groups.contains_key(&key) && self.groups.len() >= self.max_groups {
            self.untracked += 1;
            return;
        }
        let group = self.groups.entry(key).or_default();
        group.dropped += 1;
        let size = group.dropped;
        // The largest groups, kept in order; a group that leaves them gives up its examples.
        let place = self.top.iter().position(|&(_, k)| k == key);
        match place {
            Some(i) => self.top[i].0 = size,
            None if self.top.len() < TOP_GROUPS => self.top.push((size, key)),
            None if self.top.last().is_some_and(|&(s, _)| size > s) => {
                let (_, out) = self.top.pop().expect("the list is full");
                if let Some(g) = self.groups.get_mut(&out) {
                    g.kept = None;
                    g.members = Vec::new();
                }
                self.top.push((size, key));
            }
            None => return,
        }
        self.top.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // A large group's later members change nothing shown: its kept document is copied
        // from the ring once, not at every member.
        let group = &self.groups[&key];
        let kept = group.kept.is_none().then(|| self.shown_kept(matched));
        let group = self.groups.get_mut(&key).expect("inserted above");
        if kept.is_some() {
            group.kept = kept;
        }
        if group.members.len() < MEMBERS_SHOWN {
            group.members.push(member);
        }
    }

    /// Shows a graph command's groups instead of the collector's own.
    pub fn show_groups(&mut self, groups: Groups) {
        self.groups_shown = Some(groups);
    }

    /// A graph command's groups, when shown.
    pub(crate) fn groups_shown(&self) -> Option<&Groups> {
        self.groups_shown.as_ref()
    }

    /// Documents per group size: (size, groups of that size), a group being a kept
    /// document and its duplicates (kept documents without duplicates are groups of 1), or
    /// a graph command's groups.
    pub(crate) fn group_sizes(&self) -> Vec<(u64, u64)> {
        if let Some(groups) = &self.groups_shown {
            return groups.sizes.clone();
        }
        let mut sizes: HashMap<u64, u64> = HashMap::new();
        let mut own = 0;
        for (key, group) in &self.groups {
            let size = u64::from(group.dropped) + u64::from(key & REFERENCE == 0);
            *sizes.entry(size).or_default() += 1;
            own += u64::from(key & REFERENCE == 0);
        }
        let alone = self.kept.saturating_sub(own);
        if alone > 0 {
            *sizes.entry(1).or_default() += alone;
        }
        let mut sizes: Vec<_> = sizes.into_iter().collect();
        sizes.sort_unstable();
        sizes
    }

    /// The largest groups, largest first: the kept document (or reference document), its
    /// size, whether it is in the reference, and the first members shown.
    pub fn largest(&self) -> Vec<(Shown, u64, bool, Vec<Shown>)> {
        if let Some(groups) = &self.groups_shown {
            let largest = groups.largest.iter().cloned();
            return largest
                .map(|(first, size, rest)| (first, size, false, rest))
                .collect();
        }
        self.top
            .iter()
            .filter_map(|&(_, key)| {
                let group = self.groups.get(&key)?;
                let in_reference = key & REFERENCE != 0;
                let size = u64::from(group.dropped) + u64::from(!in_reference);
                Some((
                    group.kept.clone()?,
                    size,
                    in_reference,
                    group.members.clone(),
                ))
            })
            .collect()
    }

    /// The removals closest to the threshold, closest first.
    pub fn borderline(&self) -> Vec<Example> {
        sorted(&self.borderline)
    }

    /// The random sample of removals, in input order.
    pub fn random(&self) -> Vec<Example> {
        let mut examples = sorted(&self.random);
        examples.sort_by_key(|e| e.dropped.line);
        examples
    }
}

/// Keeps the [`EXAMPLES`] smallest keys.
fn keep_smallest(heap: &mut BinaryHeap<Keyed>, key: (u64, u64), example: Example) {
    heap.push(Keyed { key, example });
    if heap.len() > EXAMPLES {
        heap.pop();
    }
}

fn sorted(heap: &BinaryHeap<Keyed>) -> Vec<Example> {
    let mut keyed: Vec<&Keyed> = heap.iter().collect();
    keyed.sort_by_key(|k| k.key);
    keyed.into_iter().map(|k| k.example.clone()).collect()
}

/// The histogram bin of a similarity in [0, 1]: hundredths, 1 in the last.
pub fn bin(s: f64) -> usize {
    ((s.clamp(0.0, 1.0) * 100.0 + 1e-9).floor() as usize).min(BINS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: DocId = DocId::Line(0);

    fn matched(seq: u64) -> Matched<'static> {
        Matched {
            seq,
            id: &K,
            in_reference: false,
        }
    }

    fn id(n: u64) -> DocId {
        DocId::Line(n)
    }

    #[test]
    fn groups_count_the_kept_document_and_its_duplicates() {
        let mut c = Collector::new(0.8, 1);
        for line in 1..=3 {
            c.kept(line, id(line), Some("kept text".into()), None);
        }
        c.dropped(4, id(0), Some("a".into()), matched(1), (0.9, false), || {
            None
        });
        c.dropped(5, id(0), Some("b".into()), matched(1), (1.0, true), || None);
        c.dropped(6, id(0), None, matched(2), (0.85, false), || None);
        assert_eq!(c.group_sizes(), vec![(1, 1), (2, 1), (3, 1)]);
        let largest = c.largest();
        assert_eq!(largest[0].0.line, 1);
        assert_eq!(largest[0].1, 3);
        assert_eq!(largest[0].0.text.as_deref(), Some("kept text"));
        assert_eq!(largest[0].3.len(), 2);
        assert_eq!(c.dropped[100], 1);
        assert_eq!(c.dropped[90], 1);
        assert_eq!(c.dropped[85], 1);
    }

    #[test]
    fn examples_are_the_closest_to_the_threshold_and_a_seeded_sample() {
        let mut c = Collector::new(0.8, 7);
        c.kept(1, id(0), Some("x".into()), Some(0.42));
        for line in 2..200u64 {
            let s = 0.8 + (line % 20) as f64 / 100.0;
            c.dropped(line, id(0), None, matched(1), (s, false), || None);
        }
        let near = c.borderline();
        assert_eq!(near.len(), EXAMPLES);
        assert!(near.iter().all(|e| e.similarity < 0.8101), "{near:?}");
        assert!(near.windows(2).all(|w| w[0].similarity <= w[1].similarity));
        let random = c.random();
        assert_eq!(random.len(), EXAMPLES);
        let mut again = Collector::new(0.8, 7);
        again.kept(1, id(0), Some("x".into()), None);
        for line in 2..200u64 {
            again.dropped(line, id(0), None, matched(1), (0.9, false), || None);
        }
        let lines = |v: Vec<Example>| v.iter().map(|e| e.dropped.line).collect::<Vec<_>>();
        assert_eq!(lines(random), lines(again.random()));
        assert_eq!(c.below[42], 1);
    }

    #[test]
    fn texts_are_cut_at_a_character() {
        assert_eq!(&*cut("short"), "short");
        let long = "é".repeat(HELD_BYTES);
        let c = cut(&long);
        assert!(c.ends_with('…') && c.len() <= HELD_BYTES + 3);
        assert_eq!(c.chars().filter(|&ch| ch == 'é').count(), HELD_BYTES / 2);
        let c = cut_at(&long, 7);
        assert_eq!(&*c, "ééé…");
    }

    #[test]
    fn the_ring_holds_recent_kept_texts_within_its_bytes() {
        let mut c = Collector::new(0.8, 1);
        let text = "w".repeat(1000);
        let n = (RING_BYTES / 1000 + 100) as u64;
        for line in 1..=n {
            c.kept(line, id(0), Some(text.clone().into()), None);
        }
        assert!(c.ring_bytes <= RING_BYTES);
        c.dropped(n + 1, id(0), None, matched(1), (0.9, false), || None);
        c.dropped(n + 2, id(0), None, matched(n), (0.9, false), || None);
        let shown = c.borderline();
        assert_eq!(shown.len(), 2);
        let by_kept = |line| shown.iter().find(|e| e.kept.line == line).unwrap();
        assert!(by_kept(1).kept.text.is_none());
        assert!(by_kept(n).kept.text.is_some());
    }
}
