//! Word-level diff for showing how two similar documents differ (`neardup explain`).
//!
//! Myers' O((N+M)·D) greedy algorithm ("An O(ND) difference algorithm and its variations",
//! 1986) on words after trimming the common prefix and suffix: near duplicates differ in few
//! words, so D is small and the diff is fast even for long documents. Past
//! [`MAX_EDITS`] edits the middle is shown as one replacement instead.

use crate::text::words::Words;

/// Edits beyond which the diff gives up on a minimal script (memory is O(D²)).
pub(crate) const MAX_EDITS: usize = 4000;

/// One step of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit<'a> {
    /// A word both sides have.
    Same(&'a str),
    /// A word only the first side has.
    Delete(&'a str),
    /// A word only the second side has.
    Insert(&'a str),
}

/// A shortest edit script turning `a` into `b` (minimal unless more than [`MAX_EDITS`]
/// edits are needed).
pub fn diff<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Edit<'a>> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut out: Vec<Edit<'a>> = a[..prefix].iter().map(|w| Edit::Same(w)).collect();
    match myers(ma, mb) {
        Some(middle) => out.extend(middle),
        None => {
            out.extend(ma.iter().map(|w| Edit::Delete(w)));
            out.extend(mb.iter().map(|w| Edit::Insert(w)));
        }
    }
    out.extend(a[a.len() - suffix..].iter().map(|w| Edit::Same(w)));
    out
}

fn myers<'a>(a: &[&'a str], b: &[&'a str]) -> Option<Vec<Edit<'a>>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    let offset = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    // snapshots[d] = v[-d..=d] after step d, for the backtrack.
    let mut snapshots: Vec<Vec<isize>> = Vec::new();
    let mut last = None;
    for d in 0..=max.min(MAX_EDITS) as isize {
        for k in (-d..=d).step_by(2) {
            let i = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) {
                v[i + 1]
            } else {
                v[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                last = Some(d);
                break;
            }
        }
        snapshots.push(v[(offset - d) as usize..=(offset + d) as usize].to_vec());
        if last.is_some() {
            break;
        }
    }
    let depth = last?;
    let mut edits = Vec::with_capacity((n + m) as usize);
    let (mut x, mut y) = (n, m);
    for d in (1..=depth).rev() {
        let prev = &snapshots[d as usize - 1];
        let get = |k: isize| prev[(k + d - 1) as usize];
        let k = x - y;
        let down = k == -d || (k != d && get(k - 1) < get(k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = get(prev_k);
        let prev_y = prev_x - prev_k;
        let (mid_x, mid_y) = if down {
            (prev_x, prev_y + 1)
        } else {
            (prev_x + 1, prev_y)
        };
        while x > mid_x && y > mid_y {
            x -= 1;
            y -= 1;
            edits.push(Edit::Same(a[x as usize]));
        }
        if down {
            edits.push(Edit::Insert(b[prev_y as usize]));
        } else {
            edits.push(Edit::Delete(a[prev_x as usize]));
        }
        x = prev_x;
        y = prev_y;
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        edits.push(Edit::Same(a[x as usize]));
    }
    edits.reverse();
    Some(edits)
}

/// A compact, wdiff-like rendering: `[-deleted words-]`, `{+inserted words+}`, and runs
/// of common words longer than `2 × context` elided to their ends around
/// `…(N words)…`.
pub fn render(edits: &[Edit<'_>], context: usize) -> String {
    if edits.iter().all(|e| matches!(e, Edit::Same(_))) {
        return format!("(no word differs: {} words)", edits.len());
    }
    let mut segments: Vec<String> = Vec::new();
    let mut i = 0;
    while i < edits.len() {
        let kind = std::mem::discriminant(&edits[i]);
        let j = (i..edits.len())
            .find(|&j| std::mem::discriminant(&edits[j]) != kind)
            .unwrap_or(edits.len());
        let words: Vec<&str> = edits[i..j]
            .iter()
            .map(|e| match e {
                Edit::Same(w) | Edit::Delete(w) | Edit::Insert(w) => *w,
            })
            .collect();
        match edits[i] {
            Edit::Same(_) => {
                let head = if i == 0 { 0 } else { context };
                let tail = if j == edits.len() { 0 } else { context };
                if words.len() > head + tail {
                    let n = words.len() - head - tail;
                    let elided = format!("…({n} word{})…", if n == 1 { "" } else { "s" });
                    segments.extend(
                        [
                            words[..head].join(" "),
                            elided,
                            words[words.len() - tail..].join(" "),
                        ]
                        .into_iter()
                        .filter(|s| !s.is_empty()),
                    );
                } else {
                    segments.push(words.join(" "));
                }
            }
            Edit::Delete(_) => segments.push(format!("[-{}-]", words.join(" "))),
            Edit::Insert(_) => segments.push(format!("{{+{}+}}", words.join(" "))),
        }
        i = j;
    }
    segments.join(" ")
}

/// The word diff of two texts (split into `words`, so a Chinese or Japanese text is compared
/// character by character), rendered with `context` unchanged words around each change (as
/// `explain` and `sample` show it).
pub fn word_diff(a: &str, b: &str, context: usize, words: Words) -> String {
    let wa: Vec<&str> = words.split(a).collect();
    let wb: Vec<&str> = words.split(b).collect();
    render(&diff(&wa, &wb), context)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    fn apply<'a>(edits: &[Edit<'a>]) -> (Vec<&'a str>, Vec<&'a str>) {
        let mut a = Vec::new();
        let mut b = Vec::new();
        for e in edits {
            match *e {
                Edit::Same(w) => {
                    a.push(w);
                    b.push(w);
                }
                Edit::Delete(w) => a.push(w),
                Edit::Insert(w) => b.push(w),
            }
        }
        (a, b)
    }

    fn lcs(a: &[&str], b: &[&str]) -> usize {
        let mut dp = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                dp[i + 1][j + 1] = if a[i] == b[j] {
                    dp[i][j] + 1
                } else {
                    dp[i][j + 1].max(dp[i + 1][j])
                };
            }
        }
        dp[a.len()][b.len()]
    }

    #[test]
    fn scripts_are_valid_and_minimal() {
        let mut seed = 0x1234_5678_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let vocab = ["a", "b", "c", "d", "e"];
        for _ in 0..500 {
            let la = (next() % 15) as usize;
            let lb = (next() % 15) as usize;
            let a: Vec<&str> = (0..la).map(|_| vocab[(next() % 5) as usize]).collect();
            let b: Vec<&str> = (0..lb).map(|_| vocab[(next() % 5) as usize]).collect();
            let edits = diff(&a, &b);
            assert_eq!(apply(&edits), (a.clone(), b.clone()));
            let same = edits.iter().filter(|e| matches!(e, Edit::Same(_))).count();
            assert_eq!(same, lcs(&a, &b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn diffs_chinese_character_by_character() {
        let d = word_diff("大家都很开心。", "大家都很高兴。", 1, Words::Unicode);
        assert_eq!(d, "…(3 words)… 很 [-开 心-] {+高 兴+} 。");
        let whole = word_diff("大家都很开心。", "大家都很高兴。", 1, Words::Spaces);
        assert_eq!(whole, "[-大家都很开心。-] {+大家都很高兴。+}");
    }

    #[test]
    fn renders_changes_with_context() {
        let a = words("the quick brown fox jumps over the lazy dog today");
        let b = words("the quick red fox jumps over the lazy dog today");
        assert_eq!(
            render(&diff(&a, &b), 2),
            "the quick [-brown-] {+red+} fox jumps …(5 words)…"
        );
        assert_eq!(render(&diff(&a, &a), 2), "(no word differs: 10 words)");
        let c = words("a b c d e f g h i j x");
        let d = words("a b c d e f g h i j");
        assert_eq!(render(&diff(&c, &d), 3), "…(7 words)… h i j [-x-]");
    }
}
