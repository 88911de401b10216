//! What a word is: the characters that are words of their own because their script is written
//! without spaces between words (Han, kana, Thai, Lao, Khmer, Myanmar, …), the combining marks
//! that stay with them, and the split of a normalised text back into its words.
//!
//! The tokeniser ([`crate::text::normalize`]) makes the words; this module says which characters
//! stand alone, from the Unicode Character Database (`unicode-script` for the Script
//! property, `unicode-normalization` for the combining marks), through bit tables for the
//! Basic Multilingual Plane.

use std::sync::LazyLock;
use unicode_normalization::char::is_combining_mark;
use unicode_script::{Script, UnicodeScript};

/// What a word is (`--words`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Words {
    /// Runs of characters between white space, but each character of a script written
    /// without spaces (see `is_word_of_its_own`) is a word of its own.
    #[default]
    Unicode,
    /// Runs of characters between white space, whatever the script, as neardup did
    /// before it knew of scripts without spaces (a Chinese sentence is one word).
    Spaces,
}

crate::choice::choices!(Words {
    "unicode" => Unicode: "Runs between white space; each character of a script written without spaces is a word of its own",
    "spaces" => Spaces: "Runs between white space only",
});

impl Words {
    /// The words of `text` (white space separates them; under [`Words::Unicode`] a word of
    /// its own and its marks are one too). On a normalised text these are its tokens, so
    /// measures on stored texts (the cosine stage) and word diffs count the words that
    /// shingles are made of.
    pub fn split(self, text: &str) -> impl Iterator<Item = &str> {
        let unicode = self == Words::Unicode;
        text.split_whitespace().flat_map(move |run| {
            let mut rest = run;
            std::iter::from_fn(move || {
                let mut chars = rest.char_indices();
                let (_, first) = chars.next()?;
                let end = if unicode && is_word_of_its_own(first) {
                    chars
                        .find(|&(_, c)| !is_mark(c))
                        .map_or(rest.len(), |(i, _)| i)
                } else if unicode {
                    chars
                        .find(|&(_, c)| is_word_of_its_own(c))
                        .map_or(rest.len(), |(i, _)| i)
                } else {
                    rest.len()
                };
                let (word, tail) = rest.split_at(end);
                rest = tail;
                Some(word)
            })
        })
    }
}

/// The scripts written without spaces between words: Han, the Japanese kana, Bopomofo and Yi,
/// the historic ideographic scripts, and the scripts of South-East Asia that Unicode's line
/// breaking leaves to a dictionary (Line_Break=SA: Thai, Lao, Khmer, Myanmar, the Tai scripts,
/// Balinese, Javanese).
const SPACELESS: [Script; 18] = [
    Script::Han,
    Script::Hiragana,
    Script::Katakana,
    Script::Bopomofo,
    Script::Yi,
    Script::Tangut,
    Script::Nushu,
    Script::Khitan_Small_Script,
    Script::Thai,
    Script::Lao,
    Script::Khmer,
    Script::Myanmar,
    Script::Tai_Le,
    Script::New_Tai_Lue,
    Script::Tai_Tham,
    Script::Tai_Viet,
    Script::Balinese,
    Script::Javanese,
];

/// True when `c` is a word of its own under [`Words::Unicode`]: its Script property (from
/// the Unicode Character Database, through `unicode-script`) is one of [`SPACELESS`].
/// Punctuation, digits and marks shared by every script (`、`, `ー`, `1`) have the script
/// Common or Inherited: they join the run they are in, as they do in any other script, and
/// such a run between two words of their own is a word too. (Script_Extensions would make
/// the middle dot `·`, used with Han among a dozen scripts, split Catalan `col·legi`.)
pub(crate) fn is_word_of_its_own(c: char) -> bool {
    // Below Thai (U+0E00) only the two Bopomofo tone letters are in such a script, so
    // Latin, Greek, Cyrillic, Arabic and the Indic scripts skip the table lookup; so do the
    // punctuation and symbols from U+2000 to the CJK radicals (U+2E80), the curly quotes and
    // dashes of any Western text, which would otherwise build the table (a test checks both
    // against the Unicode tables).
    if c < '\u{0E00}' {
        return matches!(c, '\u{02EA}' | '\u{02EB}');
    }
    if ('\u{2000}'..'\u{2E80}').contains(&c) {
        return false;
    }
    match BMP.alone.get(c as usize / 64) {
        Some(bits) => bits >> (c as usize % 64) & 1 == 1,
        None => SPACELESS.contains(&c.script()),
    }
}

/// True when `c` is a combining mark (General_Category M), which stays with the word of its
/// own before it.
pub(crate) fn is_mark(c: char) -> bool {
    match BMP.marks.get(c as usize / 64) {
        Some(bits) => bits >> (c as usize % 64) & 1 == 1,
        None => is_combining_mark(c),
    }
}

/// [`is_word_of_its_own`] and [`is_mark`] for the Basic Multilingual Plane, one bit a
/// character each, made from the Unicode tables the first time a character at or above
/// U+0E00 is seen (about a millisecond): a Chinese, Japanese or Thai text then costs a load
/// a character, not a binary search and a hash.
struct BmpBits {
    alone: Box<[u64]>,
    marks: Box<[u64]>,
}

static BMP: LazyLock<BmpBits> = LazyLock::new(|| {
    let mut alone = vec![0u64; 0x10000 / 64];
    let mut marks = vec![0u64; 0x10000 / 64];
    for c in (0..0x10000).filter_map(char::from_u32) {
        let (word, bit) = (c as usize / 64, 1 << (c as usize % 64));
        if SPACELESS.contains(&c.script()) {
            alone[word] |= bit;
        }
        if is_combining_mark(c) {
            marks[word] |= bit;
        }
    }
    BmpBits {
        alone: alone.into_boxed_slice(),
        marks: marks.into_boxed_slice(),
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcuts (below U+0E00, U+2000 to U+2E80) and the bit table of
    /// [`is_word_of_its_own`] against the Unicode tables.
    #[test]
    fn no_script_without_spaces_below_thai() {
        for c in (0..0x20000).filter_map(char::from_u32) {
            let table = SPACELESS.contains(&c.script());
            assert_eq!(is_word_of_its_own(c), table, "U+{:04X}", c as u32);
            assert_eq!(is_mark(c), is_combining_mark(c), "U+{:04X}", c as u32);
        }
        for c in [
            '我', '〇', '々', '𠀋', 'あ', 'ア', 'ｱ', 'ก', 'ລ', 'ក', 'မ', 'ㄅ', 'ꀀ',
        ] {
            assert!(is_word_of_its_own(c), "{c}");
        }
        for c in [
            'a', '1', ',', '、', 'ー', '·', '한', 'é', 'я', 'न', '\u{3000}', '\u{0300}',
        ] {
            assert!(!is_word_of_its_own(c), "{c:?}");
        }
    }

    #[test]
    fn split_gives_the_words() {
        let words = |w: Words, t| w.split(t).collect::<Vec<_>>();
        assert_eq!(
            words(Words::Unicode, "rust 1.89の新機能"),
            ["rust", "1.89", "の", "新", "機", "能"]
        );
        assert_eq!(words(Words::Unicode, "กินข้าว"), ["กิ", "น", "ข้", "า", "ว"]);
        assert_eq!(words(Words::Spaces, "a 我们 b"), ["a", "我们", "b"]);
    }
}
