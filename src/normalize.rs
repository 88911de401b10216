//! Normalisation and tokenisation: raw document text → word tokens joined by single spaces.
//!
//! Defaults (each can be turned off or on from the command line):
//! 1. optional HTML stripping (`--strip-html`): tags become spaces, the common named entities
//!    and numeric character references are decoded;
//! 2. Unicode NFKC (compatibility composition), so full-width letters, ligatures and the like
//!    compare equal to their plain forms (`--no-nfkc` turns it off);
//! 3. lower-casing with Unicode case rules (`--keep-case` turns it off);
//! 4. tokenising into words ([`Words`]): a word is a run of characters between white space,
//!    except that a character of a script written without spaces between words (Han,
//!    Hiragana, Katakana, Thai, Lao, Khmer, Myanmar and a few more: `words::is_word_of_its_own`),
//!    with the combining marks that follow it, is a word of its own, so that `我们今天` is four
//!    words and `Rust 1.89の新機能` five; with `--strip-punct` every character that is
//!    neither alphanumeric nor white space (punctuation and symbols) separates words too.
//!
//! The result is the tokens joined by one space (none on either side of a word of its own,
//! so that Chinese or Japanese text keeps its characters together and `rust の` equals
//! `rustの`),
//! with each token's byte range, so shingles are contiguous slices of one string and exact
//! duplicates are found by hashing it once. Which separator sits between two tokens depends
//! on the tokens alone, so a shingle's bytes depend only on its words. ASCII
//! input (most of it, in practice) takes fast paths that skip NFKC and Unicode case mapping,
//! and text that is already single-spaced (with non-ASCII characters that lower-casing keeps)
//! is copied whole.

pub use crate::words::Words;
use crate::words::{is_mark, is_word_of_its_own};
use unicode_normalization::UnicodeNormalization;

/// Which normalisation steps run. `Default` is the documented default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalizer {
    /// Lower-case the text.
    pub lowercase: bool,
    /// Apply Unicode NFKC.
    pub nfkc: bool,
    /// Remove HTML tags and decode entities.
    pub strip_html: bool,
    /// Treat punctuation and symbols as token separators.
    pub strip_punct: bool,
    /// What a word is.
    pub words: Words,
}

impl Default for Normalizer {
    fn default() -> Normalizer {
        Normalizer {
            lowercase: true,
            nfkc: true,
            strip_html: false,
            strip_punct: false,
            words: Words::Unicode,
        }
    }
}

/// A normalised document: `text` holds the tokens joined by single spaces (UTF-8).
///
/// Reuse one value per thread: [`Normalizer::normalize_into`] clears and refills it without
/// reallocating.
#[derive(Clone, Debug, Default)]
pub struct Normalized {
    /// Tokens joined by one space, as UTF-8 bytes.
    pub text: Vec<u8>,
    /// Byte range `(start, end)` of each token in `text`.
    pub tokens: Vec<(usize, usize)>,
    html: String,
    nfkc: String,
}

impl Normalized {
    /// The normalised text as a string.
    pub fn as_str(&self) -> &str {
        // Built only from whole UTF-8 sequences and ASCII spaces, so this cannot fail.
        std::str::from_utf8(&self.text).expect("normalised text is UTF-8")
    }

    /// The `i`-th token.
    pub fn token(&self, i: usize) -> &str {
        let (s, e) = self.tokens[i];
        &self.as_str()[s..e]
    }

    /// True when the document has no tokens.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// Byte classes for ASCII: white space always separates; with `--strip-punct` so does every
/// other non-alphanumeric byte.
const fn separator_table(strip_punct: bool) -> [bool; 128] {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
            || (strip_punct && !c.is_ascii_alphanumeric());
        b += 1;
    }
    t
}

const SEPARATORS: [bool; 128] = separator_table(false);

/// True when non-empty UTF-8 `bytes` has no ASCII white space but single spaces between
/// tokens: no tab, line feed, vertical tab, form feed or carriage return (bytes 9 to 13), no
/// space at either end and no two spaces in a row (these bytes never occur inside a multi-byte
/// character). Branch-free over the bytes, so it vectorises.
fn single_spaced(bytes: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    let controls = bytes
        .iter()
        .fold(0u8, |acc, &b| acc | u8::from(b.wrapping_sub(9) < 5));
    first != b' ' && last != b' ' && controls == 0 && memchr::memmem::find(bytes, b"  ").is_none()
}
/// Text already in normal form but for ASCII case (single-spaced tokens; see
/// [`Normalizer::keeps_non_ascii`]): copied and ASCII-lower-cased whole, the spaces found with
/// SIMD (memchr).
fn copy_single_spaced(bytes: &[u8], lowercase: bool, out: &mut Normalized) {
    out.text.extend_from_slice(bytes);
    if lowercase {
        out.text.make_ascii_lowercase();
    }
    let mut start = 0;
    for space in memchr::memchr_iter(b' ', bytes) {
        out.tokens.push((start, space));
        start = space + 1;
    }
    out.tokens.push((start, bytes.len()));
}

/// Copies single-spaced `bytes` (see [`single_spaced`]) into `out` as
/// [`copy_single_spaced`] does, and says whether any byte was non-ASCII; `None` when `bytes`
/// is not single-spaced (`out` then holds a partial copy). With AVX2 (detected at run time)
/// the checks, the lower-casing and the token boundaries take one pass over 32-byte blocks.
fn scan_single_spaced(bytes: &[u8], lowercase: bool, out: &mut Normalized) -> Option<bool> {
    let (&first, &last) = (bytes.first()?, bytes.last()?);
    if first == b' ' || last == b' ' {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is available (checked above).
        return unsafe { scan_single_spaced_avx2(bytes, lowercase, out) };
    }
    if !single_spaced(bytes) {
        return None;
    }
    copy_single_spaced(bytes, lowercase, out);
    Some(!bytes.is_ascii())
}

/// [`scan_single_spaced`] on 32-byte blocks: a block's spaces, control bytes (9 to 13),
/// high bytes and upper-case letters are bit masks; a space right after a space (within the
/// block, or carried from the previous one) rejects the text. Ends are checked by the caller.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_single_spaced_avx2(
    bytes: &[u8],
    lowercase: bool,
    out: &mut Normalized,
) -> Option<bool> {
    use std::arch::x86_64::*;
    out.text.extend_from_slice(bytes);
    let text = out.text.as_mut_slice();
    let tokens = &mut out.tokens;
    let n = text.len();
    let space = _mm256_set1_epi8(b' ' as i8);
    let tab = _mm256_set1_epi8(9);
    let four = _mm256_set1_epi8(4);
    let upper_a = _mm256_set1_epi8(b'A' as i8);
    let twenty_five = _mm256_set1_epi8(25);
    let case_bit = _mm256_set1_epi8(0x20);
    let (mut high, mut carry, mut start, mut i) = (0u32, 0u32, 0usize, 0usize);
    // Room for every token (spaces are never adjacent here: at most n / 2 + 1 tokens) and
    // for the eight written ahead below.
    tokens.reserve(n / 2 + 9);
    while i + 32 <= n {
        // SAFETY: i + 32 <= n = text.len(); unaligned load.
        let v = unsafe { _mm256_loadu_si256(text.as_ptr().add(i).cast()) };
        let spaces = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, space)) as u32;
        // Unsigned v − 9 ≤ 4: bytes 9 to 13.
        let d = _mm256_sub_epi8(v, tab);
        let controls = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(d, four), d));
        if controls != 0 || spaces & ((spaces << 1) | carry) != 0 {
            return None;
        }
        carry = spaces >> 31;
        high |= _mm256_movemask_epi8(v) as u32;
        if lowercase {
            // Unsigned v − 'A' ≤ 25: ASCII upper-case letters get the case bit.
            let u = _mm256_sub_epi8(v, upper_a);
            let upper = _mm256_cmpeq_epi8(_mm256_min_epu8(u, twenty_five), u);
            let lower = _mm256_or_si256(v, _mm256_and_si256(upper, case_bit));
            // SAFETY: as for the load.
            unsafe { _mm256_storeu_si256(text.as_mut_ptr().add(i).cast(), lower) };
        }
        if spaces != 0 {
            // A block has about five spaces: eight tokens are written whatever their number,
            // so that the loop has no exit that depends on the text (a mispredicted branch
            // per block); only the first `count` are kept.
            let count = spaces.count_ones() as usize;
            let len = tokens.len();
            let spare = tokens.spare_capacity_mut();
            let (mut m, mut from) = (spaces, start);
            for slot in &mut spare[..8] {
                let at = i + m.trailing_zeros() as usize;
                slot.write((from, at));
                from = at + 1;
                m &= m.wrapping_sub(1);
            }
            let mut k = 8;
            while m != 0 {
                let at = i + m.trailing_zeros() as usize;
                spare[k].write((from, at));
                from = at + 1;
                m &= m - 1;
                k += 1;
            }
            // SAFETY: the first `count` spare elements were written just above (one per
            // space, in order), and the capacity reserved before the loop covers them.
            unsafe { tokens.set_len(len + count) };
            start = i + 32 - spaces.leading_zeros() as usize;
        }
        i += 32;
    }
    let mut after_space = carry != 0;
    for (k, b) in text.iter_mut().enumerate().skip(i) {
        if b.wrapping_sub(9) < 5 || (*b == b' ' && after_space) {
            return None;
        }
        after_space = *b == b' ';
        if after_space {
            tokens.push((start, k));
            start = k + 1;
        }
        high |= u32::from(*b >> 7);
        if lowercase {
            b.make_ascii_lowercase();
        }
    }
    tokens.push((start, n));
    Some(high != 0)
}

/// True when `c` lower-cases to exactly itself.
fn lowercases_to_itself(c: char) -> bool {
    let mut lower = c.to_lowercase();
    lower.next() == Some(c) && lower.next().is_none()
}

const SEPARATORS_PUNCT: [bool; 128] = separator_table(true);

impl Normalizer {
    /// Normalises `input` into `out` (cleared first).
    pub fn normalize_into(&self, input: &str, out: &mut Normalized) {
        out.text.clear();
        out.tokens.clear();
        let mut html = std::mem::take(&mut out.html);
        let mut nfkc = std::mem::take(&mut out.nfkc);
        let mut text = input;
        if self.strip_html {
            strip_html_into(text, &mut html);
            text = &html;
        }
        // ASCII characters are NFKC-stable and have combining class 0, so the quick check
        // needs only the others: leaving the ASCII out can turn a "yes" into a conservative
        // "no" (two marks become adjacent) but never the other way round.
        if self.nfkc
            && !text.is_ascii()
            && unicode_normalization::is_nfkc_quick(text.chars().filter(|c| !c.is_ascii()))
                != unicode_normalization::IsNormalized::Yes
        {
            nfkc.clear();
            nfkc.extend(text.nfkc());
            text = &nfkc;
        }
        if !self.strip_punct && self.fast_single_spaced(text, out) {
            // Done: copied, lower-cased and split in one pass.
        } else if text.is_ascii() {
            self.tokenize_ascii(text.as_bytes(), out);
        } else {
            self.tokenize_mixed(text, out);
        }
        out.html = html;
        out.nfkc = nfkc;
    }

    /// The fast path for text already in normal form but for ASCII case: true when taken
    /// (`out` holds the result), false when `text` must take the general path (`out` is left
    /// empty).
    fn fast_single_spaced(&self, text: &str, out: &mut Normalized) -> bool {
        let taken = match scan_single_spaced(text.as_bytes(), self.lowercase, out) {
            None => false,
            Some(non_ascii) => !non_ascii || self.keeps_non_ascii(text),
        };
        if !taken {
            out.text.clear();
            out.tokens.clear();
        }
        taken
    }

    fn separators(&self) -> &'static [bool; 128] {
        if self.strip_punct {
            &SEPARATORS_PUNCT
        } else {
            &SEPARATORS
        }
    }

    /// True when no non-ASCII character of `text` is white space, a word of its own (with
    /// Unicode words) or (when lower-casing) changes under lower-casing: then a single-spaced
    /// `text` is already normal but for its
    /// ASCII letters. Only the non-ASCII characters are decoded (curly quotes, accented
    /// lower-case letters: a few per document in most text).
    fn keeps_non_ascii(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // Skip eight ASCII bytes at a time.
            if let Some(chunk) = bytes.get(i..i + 8) {
                let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8;
                    continue;
                }
            }
            if bytes[i] < 0x80 {
                i += 1;
                continue;
            }
            // `i` is on a character boundary: every byte before it was ASCII or a whole
            // character.
            let c = text[i..].chars().next().expect("i is on a char boundary");
            if c.is_whitespace()
                || (self.lowercase && !lowercases_to_itself(c))
                || (self.words == Words::Unicode && is_word_of_its_own(c))
            {
                return false;
            }
            i += c.len_utf8();
        }
        true
    }

    /// Pure ASCII: whole tokens are copied and lower-cased in place.
    fn tokenize_ascii(&self, bytes: &[u8], out: &mut Normalized) {
        let sep = self.separators();
        let n = bytes.len();
        let mut i = 0;
        loop {
            while i < n && sep[bytes[i] as usize] {
                i += 1;
            }
            if i == n {
                break;
            }
            let s = i;
            while i < n && !sep[bytes[i] as usize] {
                i += 1;
            }
            if !out.text.is_empty() {
                out.text.push(b' ');
            }
            let start = out.text.len();
            out.text.extend_from_slice(&bytes[s..i]);
            if self.lowercase {
                out.text[start..].make_ascii_lowercase();
            }
            out.tokens.push((start, out.text.len()));
        }
    }

    /// Mixed text: tokens are found by character (ASCII bytes through the table, others by
    /// Unicode rules), then copied and lower-cased ([`Self::push_token`]).
    fn tokenize_mixed(&self, text: &str, out: &mut Normalized) {
        let sep = self.separators();
        let unicode = self.words == Words::Unicode;
        let bytes = text.as_bytes();
        let n = bytes.len();
        // What the character at byte `i` is, and its length in bytes.
        let class = |i: usize| -> (Class, usize) {
            let b = bytes[i];
            if b < 0x80 {
                let class = if sep[b as usize] {
                    Class::Separator
                } else {
                    Class::Ascii
                };
                return (class, 1);
            }
            let c = text[i..].chars().next().expect("i is on a char boundary");
            let class =
                if c.is_whitespace() || (self.strip_punct && !c.is_alphanumeric() && !is_mark(c)) {
                    Class::Separator
                } else if unicode && is_word_of_its_own(c) {
                    Class::Alone
                } else {
                    Class::Other
                };
            (class, c.len_utf8())
        };
        let mut after_alone = false;
        let mut i = 0;
        loop {
            let (mut first, mut len) = (Class::Separator, 0);
            while i < n {
                (first, len) = class(i);
                if first != Class::Separator {
                    break;
                }
                i += len;
            }
            if i == n {
                break;
            }
            let s = i;
            i += len;
            let alone = first == Class::Alone;
            let mut ascii = first == Class::Ascii;
            if alone {
                // The marks that modify it (a Thai vowel sign, a Myanmar virama) are part
                // of it.
                while let Some(c) = text[i..].chars().next() {
                    if !is_mark(c) {
                        break;
                    }
                    i += c.len_utf8();
                }
            } else {
                while i < n {
                    let (next, len) = class(i);
                    if matches!(next, Class::Separator | Class::Alone) {
                        break;
                    }
                    ascii &= next == Class::Ascii;
                    i += len;
                }
            }
            if !out.text.is_empty() && !alone && !after_alone {
                out.text.push(b' ');
            }
            // The scripts of words of their own have no case: copied as they are.
            self.push_token(&text[s..i], ascii || alone, out);
            after_alone = alone;
        }
    }

    /// Appends one token (lower-cased when asked; only its ASCII letters when `caseless_but_ascii`)
    /// and its byte range.
    fn push_token(&self, token: &str, caseless_but_ascii: bool, out: &mut Normalized) {
        let start = out.text.len();
        if caseless_but_ascii || !self.lowercase {
            out.text.extend_from_slice(token.as_bytes());
            if self.lowercase {
                out.text[start..].make_ascii_lowercase();
            }
        } else {
            let mut buf = [0u8; 4];
            for c in token.chars() {
                if c.is_ascii() {
                    out.text.push(c.to_ascii_lowercase() as u8);
                } else {
                    for l in c.to_lowercase() {
                        out.text
                            .extend_from_slice(l.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
        }
        out.tokens.push((start, out.text.len()));
    }
}

/// What a character is to the tokeniser.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// White space (and, with `--strip-punct`, punctuation and symbols).
    Separator,
    /// A word of its own ([`is_word_of_its_own`]).
    Alone,
    /// Any other ASCII character: part of a run.
    Ascii,
    /// Any other character: part of a run.
    Other,
}

/// Replaces HTML tags by a space and decodes entities, writing into `out`.
///
/// A tag starts at `<` followed by a letter, `/`, `!` or `?` and ends at the next `>`; a lone
/// `<` (as in `a < b`) is kept. Decoded: `&amp; &lt; &gt; &quot; &apos; &nbsp;` and numeric
/// references `&#NN;` / `&#xHH;`; unknown entities are kept as written.
pub fn strip_html_into(input: &str, out: &mut String) {
    out.clear();
    let bytes = input.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => {
                let next = bytes.get(i + 1).copied().unwrap_or(b' ');
                if (next.is_ascii_alphabetic() || matches!(next, b'/' | b'!' | b'?'))
                    && let Some(end) = memchr::memchr(b'>', &bytes[i..])
                {
                    out.push_str(&input[copied..i]);
                    out.push(' ');
                    i += end + 1;
                    copied = i;
                    continue;
                }
                i += 1;
            }
            b'&' => {
                if let Some((decoded, len)) = decode_entity(&input[i..]) {
                    out.push_str(&input[copied..i]);
                    out.push(decoded);
                    i += len;
                    copied = i;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&input[copied..]);
}

/// Decodes an entity at the start of `s` (which begins with `&`): the character and the
/// number of bytes consumed.
fn decode_entity(s: &str) -> Option<(char, usize)> {
    let semi = s.as_bytes().iter().take(12).position(|&b| b == b';')?;
    let name = &s[1..semi];
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        _ => {
            let digits = name.strip_prefix('#')?;
            let code = if let Some(hex) = digits.strip_prefix(['x', 'X']) {
                u32::from_str_radix(hex, 16).ok()?
            } else {
                digits.parse::<u32>().ok()?
            };
            char::from_u32(code)?
        }
    };
    Some((c, semi + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(n: Normalizer, s: &str) -> (String, Vec<String>) {
        let mut out = Normalized::default();
        n.normalize_into(s, &mut out);
        let toks = (0..out.tokens.len())
            .map(|i| out.token(i).to_string())
            .collect();
        (out.as_str().to_string(), toks)
    }

    /// The one-pass scan against the check, the copy and `is_ascii`, on random texts long
    /// enough for several 32-byte blocks, with spaces (single and double, at block edges, and
    /// one every other byte), tabs, upper case and non-ASCII bytes.
    fn scan_equals_check_and_copy() {
        let mut next = crate::hash::test_rng(3u64);
        let alphabet: &[&str] = &["a", "Q", "z", "Z", "@", "[", "`", "{", "7", " ", "é", "\t"];
        for round in 0..20_000 {
            let len = next(140) as usize;
            let mut s = String::new();
            if round % 5 == 0 {
                // One-letter words (the first nine pieces: no space, tab or é): sixteen
                // spaces in a block, more than the eight tokens the scan writes ahead.
                let words: Vec<&str> = (0..len / 2 + 1)
                    .map(|_| alphabet[next(9) as usize])
                    .collect();
                s = words.join(" ");
            } else {
                for _ in 0..len {
                    // Spaces one in twelve; tabs and é only in some rounds.
                    let piece = match next(alphabet.len() as u64) as usize {
                        11 if round % 7 != 0 => "x",
                        10 if round % 3 != 0 => "y",
                        p => alphabet[p],
                    };
                    s.push_str(piece);
                }
            }
            for lowercase in [true, false] {
                let mut scanned = Normalized::default();
                let got = scan_single_spaced(s.as_bytes(), lowercase, &mut scanned);
                let expected = single_spaced(s.as_bytes()).then(|| !s.is_ascii());
                assert_eq!(got, expected, "{s:?}");
                if got.is_some() {
                    let mut copied = Normalized::default();
                    copy_single_spaced(s.as_bytes(), lowercase, &mut copied);
                    assert_eq!(scanned.text, copied.text, "{s:?}");
                    assert_eq!(scanned.tokens, copied.tokens, "{s:?}");
                }
            }
        }
    }

    #[test]
    fn single_spaced_fast_path_equals_the_general_one() {
        // A trailing tab sends the same text down the general path; the tokens must agree.
        // Non-ASCII words: unchanged ones (quotes, lower-case accents) keep the fast path;
        // upper-case ones, a no-break space, a ligature (NFKC) and İ (two characters when
        // lower-cased) must leave it.
        let words = [
            "The",
            "QUICK",
            "brown",
            "fox,",
            "a",
            "",
            "x-y",
            "Zz9",
            "\u{201c}café\u{201d}",
            "naïve",
            "ÉCOLE",
            "a\u{a0}b",
            "\u{fb01}ne",
            "İstanbul",
            "日本語",
            "\u{2019}s",
        ];
        let keep_case = Normalizer {
            lowercase: false,
            ..Normalizer::default()
        };
        let no_nfkc = Normalizer {
            nfkc: false,
            ..Normalizer::default()
        };
        for n in [Normalizer::default(), keep_case, no_nfkc] {
            compare_fast_and_general(n, &words);
        }
        assert!(single_spaced(b"a b c"));
        scan_equals_check_and_copy();
        assert!(!single_spaced(b"a  b") && !single_spaced(b" a") && !single_spaced(b"a\tb"));
        assert!(!single_spaced(b""));
        let n = Normalizer::default();
        assert!(n.keeps_non_ascii("“a” b naïve plain ascii text longer than eight"));
        // Words of their own must be split: the general path.
        assert!(!n.keeps_non_ascii("“a” b naïve 日本語 plain ascii text longer than eight"));
        let spaces = Normalizer {
            words: Words::Spaces,
            ..Normalizer::default()
        };
        assert!(spaces.keeps_non_ascii("“a” b naïve 日本語 plain ascii text longer than eight"));
        compare_fast_and_general(spaces, &words);
        assert!(!n.keeps_non_ascii("plain ascii text longer than eight ÉCOLE"));
        assert!(!n.keeps_non_ascii("a\u{2003}b") && keep_case.keeps_non_ascii("ÉCOLE"));
    }

    fn compare_fast_and_general(n: Normalizer, words: &[&str]) {
        let mut state = 7u64;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..(state % 9) {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(words[(state >> 33) as usize % words.len()]);
                text.push_str(match (state >> 40) % 7 {
                    0 => "  ",
                    1 => "\n",
                    _ => " ",
                });
            }
            state = state.wrapping_add(3);
            let (mut fast, mut slow) = (Normalized::default(), Normalized::default());
            n.normalize_into(text.trim_end(), &mut fast);
            n.normalize_into(&format!("{}\t", text.trim_end()), &mut slow);
            assert_eq!(fast.text, slow.text, "{text:?}");
            assert_eq!(fast.tokens, slow.tokens, "{text:?}");
        }
    }

    #[test]
    fn defaults_table() {
        let d = Normalizer::default();
        let cases: &[(&str, &str)] = &[
            ("Hello   World", "hello world"),
            ("  leading\tand\r\ntrailing  ", "leading and trailing"),
            ("", ""),
            ("   ", ""),
            ("Ｆｕｌｌ　ｗｉｄｔｈ", "full width"),
            ("ﬁne Straße", "fine straße"),
            ("ÉCOLE", "école"),
            ("punct, stays!", "punct, stays!"),
        ];
        for (input, expected) in cases {
            assert_eq!(norm(d, input).0, *expected, "input {input:?}");
        }
    }

    #[test]
    fn token_ranges_match_text() {
        let (text, toks) = norm(Normalizer::default(), "  Ａ b  ÇÇ d ");
        assert_eq!(text, "a b çç d");
        assert_eq!(toks, vec!["a", "b", "çç", "d"]);
    }

    #[test]
    fn strip_punct_splits_on_symbols() {
        let n = Normalizer {
            strip_punct: true,
            ..Normalizer::default()
        };
        assert_eq!(
            norm(n, "Hello, world! (2024) — ok").0,
            "hello world 2024 ok"
        );
        assert_eq!(norm(n, "naïve café—bar").0, "naïve café bar");
    }

    /// Real text in each script written without spaces: every character (with the marks
    /// that modify it) is a word; no space is put on either side of such a word.
    #[test]
    fn scripts_without_spaces_are_split_into_characters() {
        let d = Normalizer::default();
        let cases: &[(&str, &str, &[&str])] = &[
            // Chinese: the full-width comma folds to ',' (NFKC); it and the full stop (script
            // Common) are words.
            (
                "我们今天去公园散步，天气非常好。",
                "我们今天去公园散步,天气非常好。",
                &[
                    "我", "们", "今", "天", "去", "公", "园", "散", "步", ",", "天", "气", "非",
                    "常", "好", "。",
                ],
            ),
            // Japanese: kanji, hiragana, katakana, the prolonged sound mark, mixed Latin and
            // digits; `Rust 1.89 の` and `Rust 1.89の` are the same words and the same text.
            (
                "Rust 1.89 の新機能",
                "rust 1.89の新機能",
                &["rust", "1.89", "の", "新", "機", "能"],
            ),
            (
                "Rust 1.89の新機能",
                "rust 1.89の新機能",
                &["rust", "1.89", "の", "新", "機", "能"],
            ),
            ("コーヒー", "コーヒー", &["コ", "ー", "ヒ", "ー"]),
            // Half-width katakana and its voiced mark fold to full width (NFKC): ガ is one
            // character; full-width Latin folds to ASCII.
            ("ｶﾞｲﾄﾞ ＡＢＣ", "ガイドabc", &["ガ", "イ", "ド", "abc"]),
            // Thai, Lao, Khmer, Myanmar: combining vowel signs and tone marks stay with their
            // consonant; a space between two Thai phrases is not kept.
            (
                "กินข้าว แล้ว",
                "กินข้าวแล้ว",
                &["กิ", "น", "ข้", "า", "ว", "แ", "ล้", "ว"],
            ),
            ("ສະບາຍດີ", "ສະບາຍດີ", &["ສ", "ະ", "ບ", "າ", "ຍ", "ດີ"]),
            ("ខ្មែរ", "ខ្មែរ", &["ខ្", "មែ", "រ"]),
            ("မြန်မာ", "မြန်မာ", &["မြ", "န်", "မာ"]),
            // Korean is written with spaces: its words stay whole.
            (
                "안녕하세요 세계",
                "안녕하세요 세계",
                &["안녕하세요", "세계"],
            ),
            // Scripts with spaces keep today's words, punctuation included.
            (
                "Привет, мир! नमस्ते",
                "привет, мир! नमस्ते",
                &["привет,", "мир!", "नमस्ते"],
            ),
        ];
        for (input, text, tokens) in cases {
            let (got_text, got_tokens) = norm(d, input);
            assert_eq!(got_text, *text, "input {input:?}");
            assert_eq!(got_tokens, *tokens, "input {input:?}");
        }
        // With --strip-punct the Chinese punctuation separates and is gone.
        let strip = Normalizer {
            strip_punct: true,
            ..d
        };
        assert_eq!(norm(strip, "散步，天气。Ok!").0, "散步天气ok");
        // --words spaces: one word per run between spaces, as before.
        let spaces = Normalizer {
            words: Words::Spaces,
            ..d
        };
        assert_eq!(
            norm(spaces, "我们今天去公园散步，天气").1,
            ["我们今天去公园散步,天气"]
        );
        assert_eq!(
            norm(spaces, "Rust 1.89の新機能").1,
            ["rust", "1.89の新機能"]
        );
        // Splitting a normalised text gives its tokens back.
        for (input, _, tokens) in cases {
            let (text, _) = norm(d, input);
            assert_eq!(Words::Unicode.split(&text).collect::<Vec<_>>(), *tokens);
        }
        assert_eq!(
            Words::Spaces.split("a 我们 b").collect::<Vec<_>>(),
            ["a", "我们", "b"]
        );
    }

    #[test]
    fn keep_case_and_no_nfkc() {
        let n = Normalizer {
            lowercase: false,
            nfkc: false,
            ..Normalizer::default()
        };
        assert_eq!(norm(n, "Ｆｕｌｌ Word").0, "Ｆｕｌｌ Word");
    }

    #[test]
    fn html_is_stripped_and_entities_decoded() {
        let n = Normalizer {
            strip_html: true,
            ..Normalizer::default()
        };
        assert_eq!(
            norm(n, "<p>Fish &amp; Chips</p><br/>for&nbsp;&#163;5 &#x41;").0,
            "fish & chips for £5 a"
        );
        assert_eq!(
            norm(n, "a < b and &unknown; stays").0,
            "a < b and &unknown; stays"
        );
        assert_eq!(norm(n, "unclosed <b tag").0, "unclosed <b tag");
    }
}
