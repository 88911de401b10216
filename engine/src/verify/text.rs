//! Text stages of verification (`--verify edit|cosine|lcs`, methods §2 and §5).
//!
//! Candidates can be confirmed, alone or after the Jaccard check, by measures on the
//! normalised texts of the two documents:
//!
//! - **edit**: relative Levenshtein distance on characters, distance / longer length, at
//!   most `--max-edit`. Computed with Ukkonen's banded dynamic programme: only the diagonal
//!   band of half-width k = ⌊max-edit × longer length⌋ is filled, so the cost is
//!   O(length × k), and the run stops as soon as a whole row exceeds k.
//! - **cosine**: cosine of the word-count vectors, at least `--min-cosine` (order-blind:
//!   "dog bites man" and "man bites dog" score 1).
//! - **lcs**: longest common substring (characters) / shorter length, at least `--min-lcs`,
//!   with a suffix automaton of the first text: O(length of both).
//!
//! These need the text of every windowed document: the window keeps its normalised text only
//! when a stage is on (about one byte per character of the document).

use super::settings::TextStage;
use crate::text::words::Words;
use std::collections::HashMap;

impl TextStage {
    /// The stage's similarity if the pair passes: 1 − relative distance for edit, the cosine
    /// (of the texts' `words`), or the LCS ratio.
    pub fn check(&self, a: &str, b: &str, words: Words) -> Option<f64> {
        match *self {
            TextStage::Edit(max) => relative_edit_at_most(a, b, max).map(|d| 1.0 - d),
            TextStage::Cosine(min) => Some(cosine(a, b, words)).filter(|&c| c >= min - 1e-12),
            TextStage::Lcs(min) => Some(lcs_ratio(a, b)).filter(|&r| r >= min - 1e-12),
        }
    }
}

/// Levenshtein distance of `a` and `b` if it is at most `k` (banded DP with early exit).
pub(crate) fn levenshtein_at_most<T: PartialEq>(a: &[T], b: &[T], k: usize) -> Option<usize> {
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let (n, m) = (a.len(), b.len());
    if m - n > k {
        return None;
    }
    if n == 0 {
        return Some(m);
    }
    const INF: usize = usize::MAX / 2;
    // Rows indexed by j in 0..=m; only j in [i-k, i+k] is meaningful.
    let mut prev: Vec<usize> = (0..=m).map(|j| if j <= k { j } else { INF }).collect();
    let mut cur = vec![INF; m + 1];
    for i in 1..=n {
        let lo = i.saturating_sub(k).max(1);
        let hi = (i + k).min(m);
        cur[lo - 1] = if lo == 1 && i <= k { i } else { INF };
        let mut row_min = cur[lo - 1];
        for j in lo..=hi {
            let substitute = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let delete = prev[j] + 1;
            let insert = cur[j - 1] + 1;
            let v = substitute.min(delete).min(insert);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if hi < m {
            cur[hi + 1] = INF;
        }
        if row_min > k {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[m]).filter(|&d| d <= k)
}

/// Relative edit distance (characters; distance / longer length) if it is at most `max`.
pub(crate) fn relative_edit_at_most(a: &str, b: &str, max: f64) -> Option<f64> {
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let longer = ca.len().max(cb.len());
    if longer == 0 {
        return Some(0.0);
    }
    let k = (max * longer as f64 + 1e-9).floor() as usize;
    levenshtein_at_most(&ca, &cb, k).map(|d| d as f64 / longer as f64)
}

/// Cosine similarity of the word-count vectors of two texts (their [`Words::split`]).
pub fn cosine(a: &str, b: &str, words: Words) -> f64 {
    let count = |t| {
        let mut m: HashMap<&str, f64> = HashMap::new();
        for w in words.split(t) {
            *m.entry(w).or_default() += 1.0;
        }
        m
    };
    let (ca, cb) = (count(a), count(b));
    let dot: f64 = ca
        .iter()
        .filter_map(|(w, x)| cb.get(w).map(|y| x * y))
        .sum();
    let norm = |m: &HashMap<&str, f64>| m.values().map(|v| v * v).sum::<f64>().sqrt();
    let denom = norm(&ca) * norm(&cb);
    if denom == 0.0 {
        0.0
    } else {
        (dot / denom).min(1.0)
    }
}

/// Longest common substring of two texts, in characters, divided by the shorter length.
pub(crate) fn lcs_ratio(a: &str, b: &str) -> f64 {
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let shorter = ca.len().min(cb.len());
    if shorter == 0 {
        return 0.0;
    }
    longest_common_substring(&ca, &cb) as f64 / shorter as f64
}

/// Length of the longest common substring, via a suffix automaton of `a`.
pub(crate) fn longest_common_substring(a: &[char], b: &[char]) -> usize {
    struct State {
        len: usize,
        link: Option<usize>,
        next: HashMap<char, usize>,
    }
    let mut st = vec![State {
        len: 0,
        link: None,
        next: HashMap::new(),
    }];
    let mut last = 0;
    for &c in a {
        let cur = st.len();
        st.push(State {
            len: st[last].len + 1,
            link: None,
            next: HashMap::new(),
        });
        let mut p = Some(last);
        while let Some(q) = p {
            if st[q].next.contains_key(&c) {
                break;
            }
            st[q].next.insert(c, cur);
            p = st[q].link;
        }
        match p {
            None => st[cur].link = Some(0),
            Some(p) => {
                let q = st[p].next[&c];
                if st[p].len + 1 == st[q].len {
                    st[cur].link = Some(q);
                } else {
                    let clone = st.len();
                    let next = st[q].next.clone();
                    st.push(State {
                        len: st[p].len + 1,
                        link: st[q].link,
                        next,
                    });
                    let mut p = Some(p);
                    while let Some(x) = p {
                        if st[x].next.get(&c) != Some(&q) {
                            break;
                        }
                        st[x].next.insert(c, clone);
                        p = st[x].link;
                    }
                    st[q].link = Some(clone);
                    st[cur].link = Some(clone);
                }
            }
        }
        last = cur;
    }
    let (mut v, mut l, mut best) = (0usize, 0usize, 0usize);
    for &c in b {
        while v != 0 && !st[v].next.contains_key(&c) {
            v = st[v].link.unwrap_or(0);
            l = st[v].len;
        }
        if let Some(&to) = st[v].next.get(&c) {
            v = to;
            l += 1;
        }
        best = best.max(l);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain_levenshtein(a: &[u8], b: &[u8]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                cur[j] = (prev[j - 1] + usize::from(a[i - 1] != b[j - 1]))
                    .min(prev[j] + 1)
                    .min(cur[j - 1] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    fn plain_lcs(a: &[u8], b: &[u8]) -> usize {
        let mut best = 0;
        for i in 0..a.len() {
            for j in 0..b.len() {
                let mut l = 0;
                while i + l < a.len() && j + l < b.len() && a[i + l] == b[j + l] {
                    l += 1;
                }
                best = best.max(l);
            }
        }
        best
    }

    fn random_strings(seed: u64) -> impl Iterator<Item = (Vec<u8>, Vec<u8>)> {
        let mut s = seed | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        (0..600).map(move |_| {
            let la = (next() % 25) as usize;
            let a: Vec<u8> = (0..la).map(|_| b"abc"[(next() % 3) as usize]).collect();
            // b is an edited copy of a, or random.
            let mut b = a.clone();
            for _ in 0..(next() % 6) {
                let at = if b.is_empty() {
                    0
                } else {
                    (next() as usize) % (b.len() + 1)
                };
                match next() % 3 {
                    0 if at < b.len() => {
                        b.remove(at);
                    }
                    1 if at < b.len() => b[at] = b"abcd"[(next() % 4) as usize],
                    _ => b.insert(at, b"abcd"[(next() % 4) as usize]),
                }
            }
            (a, b)
        })
    }

    #[test]
    fn banded_levenshtein_matches_the_plain_dp() {
        for (a, b) in random_strings(11) {
            let d = plain_levenshtein(&a, &b);
            for k in 0..8 {
                let got = levenshtein_at_most(&a, &b, k);
                assert_eq!(got, (d <= k).then_some(d), "{a:?} {b:?} k={k}");
            }
        }
    }

    #[test]
    fn suffix_automaton_matches_brute_force() {
        for (a, b) in random_strings(29) {
            let (ca, cb): (Vec<char>, Vec<char>) = (
                a.iter().map(|&x| x as char).collect(),
                b.iter().map(|&x| x as char).collect(),
            );
            assert_eq!(
                longest_common_substring(&ca, &cb),
                plain_lcs(&a, &b),
                "{a:?} {b:?}"
            );
        }
    }

    #[test]
    fn seeds_section_5_examples() {
        // "Dog bites man" / "Man bites dog": cosine 1, relative edit distance 6/13 = 0.46.
        let (a, b) = ("dog bites man", "man bites dog");
        assert!((cosine(a, b, Words::Unicode) - 1.0).abs() < 1e-12);
        assert_eq!(relative_edit_at_most(a, b, 1.0), Some(6.0 / 13.0));
        assert_eq!(TextStage::Edit(0.05).check(a, b, Words::Unicode), None);
        assert_eq!(
            TextStage::Cosine(0.95).check(a, b, Words::Unicode),
            Some(1.0)
        );
        // A Lorem-ipsum paragraph with one character changed: 1 / 660 ≈ 0.0015.
        let lorem = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod \
                     tempor incididunt ut labore et dolore magna aliqua. ut enim ad minim veniam, \
                     quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo \
                     consequat. duis aute irure dolor in reprehenderit in voluptate velit esse \
                     cillum dolore eu fugiat nulla pariatur. excepteur sint occaecat cupidatat \
                     non proident, sunt in culpa qui officia deserunt mollit anim id est laborum. \
                     curabitur pretium tincidunt lacus. nulla gravida orci a odio. nullam varius, \
                     turpis et commodo pharetra, est eros bibendum elit, nec luctus magna felis \
                     sollicitudin mauris. integer in mauris eu nibh euismod gravida. duis ac \
                     tellus et risus vulputate vehicula. donec lobortis risus a elit. etiam tempor.";
        let edited = lorem.replacen("dolor sit", "dolor sat", 1);
        let d = relative_edit_at_most(lorem, &edited, 0.05).unwrap();
        assert!(
            (d - 1.0 / lorem.len() as f64).abs() < 1e-12 && d < 0.002,
            "{d}"
        );
        assert!(
            TextStage::Lcs(0.6)
                .check(lorem, &edited, Words::Unicode)
                .is_some()
        );
    }

    #[test]
    fn edge_cases() {
        assert_eq!(relative_edit_at_most("", "", 0.0), Some(0.0));
        assert_eq!(relative_edit_at_most("abc", "", 0.5), None);
        assert_eq!(relative_edit_at_most("abc", "", 1.0), Some(1.0));
        assert_eq!(cosine("", "a", Words::Unicode), 0.0);
        assert_eq!(lcs_ratio("", "a"), 0.0);
        assert_eq!(lcs_ratio("héllo wörld", "wörld"), 1.0);
        assert_eq!(relative_edit_at_most("héllo", "hello", 0.2), Some(0.2));
    }

    /// The cosine counts the words shingles are made of: Chinese characters one by one.
    #[test]
    fn cosine_counts_characters_of_scripts_without_spaces() {
        let (a, b) = ("我们今天去公园", "今天我们去公园");
        assert!((cosine(a, b, Words::Unicode) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(a, b, Words::Spaces), 0.0);
    }
}
