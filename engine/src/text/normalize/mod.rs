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

mod ascii;
mod html;

use crate::input::BadLine;
pub use crate::text::words::Words;
use crate::text::words::{is_mark, is_word_of_its_own};
use ascii::{SEPARATORS, SEPARATORS_PUNCT, scan_single_spaced};
pub(crate) use html::strip_html_into;
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

/// True when `c` lower-cases to exactly itself.
fn lowercases_to_itself(c: char) -> bool {
    let mut lower = c.to_lowercase();
    lower.next() == Some(c) && lower.next().is_none()
}

impl Normalizer {
    /// Normalises `text` into `out` (cleared first) and says whether it is a document: the
    /// one rule of what a document is, applied wherever a text is read (signing, the corpus
    /// passes of `idf` and `tune`, the reference texts a program gives before the IDF table
    /// is learnt). A text with no word left after normalisation is not one.
    pub(crate) fn document_into(&self, text: &str, out: &mut Normalized) -> Result<(), BadLine> {
        self.normalize_into(text, out);
        match out.is_empty() {
            true => Err(BadLine::NoTokens),
            false => Ok(()),
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A text is a document when a word is left after normalisation: spaces, nothing at
    /// all, or (stripped) punctuation and markup are not one.
    #[test]
    fn a_document_has_a_word_left() {
        let mut out = Normalized::default();
        let plain = Normalizer::default();
        let stripping = Normalizer {
            strip_punct: true,
            strip_html: true,
            ..Normalizer::default()
        };
        for (n, text) in [
            (&plain, ""),
            (&plain, " \t\n "),
            (&stripping, "!!! ... ---"),
            (&stripping, "<p> </p>"),
        ] {
            assert_eq!(
                n.document_into(text, &mut out),
                Err(BadLine::NoTokens),
                "{text:?}"
            );
        }
        for (n, text) in [
            (&plain, "!"),
            (&stripping, " Hello, world! "),
            (&stripping, "東京"),
        ] {
            assert_eq!(n.document_into(text, &mut out), Ok(()), "{text:?}");
            assert!(!out.is_empty());
        }
    }

    fn norm(n: Normalizer, s: &str) -> (String, Vec<String>) {
        let mut out = Normalized::default();
        n.normalize_into(s, &mut out);
        let toks = (0..out.tokens.len())
            .map(|i| out.token(i).to_string())
            .collect();
        (out.as_str().to_string(), toks)
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
}
