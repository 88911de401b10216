//! Normalisation and tokenisation: raw document text → word tokens joined by single spaces.
//!
//! Defaults (each can be turned off or on from the command line):
//! 1. optional HTML stripping (`--strip-html`): tags become spaces, the common named entities
//!    and numeric character references are decoded;
//! 2. Unicode NFKC (compatibility composition), so full-width letters, ligatures and the like
//!    compare equal to their plain forms (`--no-nfkc` turns it off);
//! 3. lower-casing with Unicode case rules (`--keep-case` turns it off);
//! 4. tokenising on Unicode white space, which also folds runs of white space; with
//!    `--strip-punct` every character that is neither alphanumeric nor white space
//!    (punctuation and symbols) separates tokens too.
//!
//! The result is the tokens joined by one space, with each token's byte range, so shingles are
//! contiguous slices of one string and exact duplicates are found by hashing it once. ASCII
//! input (most of it, in practice) takes fast paths that skip NFKC and Unicode case mapping.

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
}

impl Default for Normalizer {
    fn default() -> Normalizer {
        Normalizer {
            lowercase: true,
            nfkc: true,
            strip_html: false,
            strip_punct: false,
        }
    }
}

/// A normalised document: `text` holds the tokens joined by single spaces.
///
/// Reuse one value per thread: [`Normalizer::normalize_into`] clears and refills it without
/// reallocating.
#[derive(Clone, Debug, Default)]
pub struct Normalized {
    /// Tokens joined by one space.
    pub text: String,
    /// Byte range `(start, end)` of each token in `text`.
    pub tokens: Vec<(usize, usize)>,
    html: String,
    nfkc: String,
}

impl Normalized {
    /// The `i`-th token.
    pub fn token(&self, i: usize) -> &str {
        let (s, e) = self.tokens[i];
        &self.text[s..e]
    }

    /// True when the document has no tokens.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

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
        if self.nfkc && !text.is_ascii() {
            nfkc.clear();
            nfkc.extend(text.nfkc());
            text = &nfkc;
        }
        if text.is_ascii() {
            self.tokenize_ascii(text.as_bytes(), out);
        } else {
            self.tokenize_unicode(text, out);
        }
        out.html = html;
        out.nfkc = nfkc;
    }

    fn tokenize_ascii(&self, bytes: &[u8], out: &mut Normalized) {
        let mut start: Option<usize> = None;
        // Safety of the String: we only push ASCII bytes as chars.
        for &b in bytes {
            let separator = b.is_ascii_whitespace()
                || b == 0x0b
                || (self.strip_punct && !b.is_ascii_alphanumeric());
            if separator {
                if let Some(s) = start.take() {
                    out.tokens.push((s, out.text.len()));
                }
                continue;
            }
            if start.is_none() {
                if !out.text.is_empty() {
                    out.text.push(' ');
                }
                start = Some(out.text.len());
            }
            let c = if self.lowercase {
                b.to_ascii_lowercase()
            } else {
                b
            };
            out.text.push(c as char);
        }
        if let Some(s) = start {
            out.tokens.push((s, out.text.len()));
        }
    }

    fn tokenize_unicode(&self, text: &str, out: &mut Normalized) {
        let mut start: Option<usize> = None;
        for c in text.chars() {
            let separator =
                c.is_whitespace() || (self.strip_punct && !c.is_alphanumeric() && !is_mark(c));
            if separator {
                if let Some(s) = start.take() {
                    out.tokens.push((s, out.text.len()));
                }
                continue;
            }
            if start.is_none() {
                if !out.text.is_empty() {
                    out.text.push(' ');
                }
                start = Some(out.text.len());
            }
            if self.lowercase {
                out.text.extend(c.to_lowercase());
            } else {
                out.text.push(c);
            }
        }
        if let Some(s) = start {
            out.tokens.push((s, out.text.len()));
        }
    }
}

/// Combining marks belong to the word they modify (e.g. Devanagari vowel signs), so
/// `--strip-punct` must not split on them.
fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A | 0x064B..=0x065F
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963
        | 0x0981..=0x0983 | 0x09BC..=0x09D7 | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200C..=0x200D | 0x20D0..=0x20FF
        | 0x3099..=0x309A | 0xFE20..=0xFE2F)
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
                if next.is_ascii_alphabetic() || matches!(next, b'/' | b'!' | b'?') {
                    if let Some(end) = memchr::memchr(b'>', &bytes[i..]) {
                        out.push_str(&input[copied..i]);
                        out.push(' ');
                        i += end + 1;
                        copied = i;
                        continue;
                    }
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
        (out.text.clone(), toks)
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
        assert_eq!(norm(n, "Hello, world! (2024) — ok").0, "hello world 2024 ok");
        assert_eq!(norm(n, "naïve café—bar").0, "naïve café bar");
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
        assert_eq!(norm(n, "a < b and &unknown; stays").0, "a < b and &unknown; stays");
        assert_eq!(norm(n, "unclosed <b tag").0, "unclosed <b tag");
    }
}
