//! The shared flags under "Normalisation" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "strip-html",
        set: set!(config.text.normalizer.strip_html: switch),
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Remove HTML tags and decode HTML entities before tokenising",
        man: "Remove HTML tags and decode entities before tokenising.",
        summary: "remove HTML tags, decode entities (`&amp;`, `&#163;`, …)",
        ..FLAG
    },
    Flag {
        long: "strip-punct",
        set: set!(config.text.normalizer.strip_punct: switch),
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Treat punctuation and symbols as word separators",
        man: "Treat punctuation and symbols as word separators.",
        summary: "punctuation and symbols separate words",
        ..FLAG
    },
    Flag {
        long: "keep-case",
        set: set!(config.text.normalizer.lowercase: off),
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Do not lower-case the text",
        man: "Do not lower-case.",
        summary: "do not lower-case",
        ..FLAG
    },
    Flag {
        long: "no-nfkc",
        set: set!(config.text.normalizer.nfkc: off),
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::Switch,
        help: "Do not apply Unicode NFKC normalisation",
        man: "Do not apply Unicode NFKC normalisation.",
        summary: "do not apply Unicode NFKC",
        ..FLAG
    },
    Flag {
        long: "words",
        set: set!(config.text.normalizer.words = choice Words),
        group: Group::Text,
        heading: NORMALISATION,
        value: Value::One {
            name: "WORDS",
            default: Some(|| TextSettings::default().normalizer.words.to_string()),
            parse: parser!(choice Words),
        },
        help: "What a word is: unicode (runs between white space, but each character of Chinese, \
            Japanese, Thai, Lao, Khmer, Myanmar and other scripts written without spaces is a \
            word of its own) or spaces (runs between white space only, as earlier versions \
            did; a Chinese sentence is then one word)",
        man: "What a word is. `unicode` (the default): a run of characters between white space, \
            except that each character of a script written without spaces (Han, Hiragana, \
            Katakana, Thai, Lao, Khmer, Myanmar, Bopomofo, Yi, the Tai scripts, Balinese, \
            Javanese), with the combining marks after it, is a word of its own: “我们今天” is four \
            words, “Rust 1.89の新機能” is rust, 1.89, の, 新, 機, 能. Other scripts are split as by \
            `spaces`: on white space only, as earlier versions did. IDF and state files record \
            the rule; one written before it existed is read with `--words spaces`.",
        summary: "what a word is (below): `unicode` makes each character of Chinese, Japanese, Thai, \
            Lao, Khmer, Myanmar … a word; `spaces` splits on white space only",
        ..FLAG
    },
];
