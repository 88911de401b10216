//! The shared flags under "Similarity" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "ngram",
        set: set!(ngram: NgramArg),
        short: Some('n'),
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "N",
            default: Some(|| DEFAULT_NGRAM.to_string()),
            parse: parser!(NgramArg),
        },
        help: "Shingle length in words (hist: a range such as 1..7)",
        man: "Shingle length in words (default 5). A document shorter than *N* words is one \
            shingle.",
        summary: "shingle length in words",
        ..FLAG
    },
    Flag {
        long: "shingle",
        set: set!(shingle: choice ShingleUnit),
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "KIND",
            default: Some(|| TextSettings::default().shingle.unit().to_string()),
            parse: parser!(choice ShingleUnit),
        },
        help: "What a shingle is: words (-n consecutive words), chars (-n consecutive characters, \
            or --char-ngram), or stopword (spot signatures: at each stop word, the stop word \
            and the next -n words that are not stop words; robust to boilerplate around the \
            text)",
        man: "What a shingle is: `-n` consecutive words (default), `-n` consecutive characters, \
            or spot signatures (SpotSigs): at each stop word, the stop word and the next `-n` \
            words that are not stop words.",
        summary: "`stopword`: spot signatures (SpotSigs, methods §2): at every stop word, the stop \
            word and the next `-n` words that are not stop words; text without stop words \
            (menus, navigation, lists) adds nothing, so page boilerplate around an article \
            hardly matters",
        ..FLAG
    },
    Flag {
        long: "stopwords",
        set: set!(config.text.stopwords_path: PathBuf),
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "FILE",
            default: None,
            parse: parser!(PathBuf),
        },
        help: "Stop words for --shingle stopword, one per line [default: a built-in English list]",
        man: "Stop words for `--shingle stopword`, one per line (default: a built-in English \
            list).",
        summary: "the anchors of `--shingle stopword`, one per line (`#` comments), normalised like \
            the text; IDF files record the list",
        default_text: Some("built-in English (~150 words)"),
        ..FLAG
    },
    Flag {
        long: "char-ngram",
        set: set!(char_ngram: usize),
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::One {
            name: "N",
            default: None,
            parse: parser!(usize),
        },
        help: "Use shingles of N characters instead of words",
        man: "Use shingles of *N* characters instead of words.",
        summary: "shingles of N characters instead of words",
        default_text: Some("off"),
        ..FLAG
    },
    Flag {
        long: "weights",
        set: set!(config.sketch.weights = choice Weights),
        group: Group::Weights,
        heading: SIMILARITY,
        value: Value::One {
            name: "WEIGHTS",
            default: Some(|| SketchSettings::default().weights.to_string()),
            parse: parser!(choice Weights),
        },
        help: "Shingle weights: set (each distinct shingle weighs 1), tf (counts: weighted \
            Jaccard of shingle counts, the same as --bag) or tfidf (tf x idf; needs --idf or \
            --idf-warmup)",
        man: "Shingle weights. *set* (default): Jaccard of shingle sets. *tf*: weighted Jaccard \
            of shingle counts, the same as `--bag`. *tfidf*: weighted Jaccard of tf × idf, idf \
            = ln((1+N)/(1+df))+1; needs `--idf` or `--idf-warmup`. Signatures and verification \
            use the same measure.",
        summary: "shingle weights (below); `tf` is `--bag`",
        ..FLAG
    },
    Flag {
        long: "idf",
        set: set!(config.sketch.idf_path: PathBuf),
        group: Group::Weights,
        heading: SIMILARITY,
        value: Value::One {
            name: "FILE",
            default: None,
            parse: parser!(PathBuf),
        },
        help: "Document frequencies for --weights tfidf, from 'neardup idf'",
        conflicts: Some("idf-warmup"),
        man: "Document frequencies from `neardup idf` (made with the same shingling settings).",
        summary: "document frequencies from `neardup idf`, for `--weights tfidf`",
        ..FLAG
    },
    Flag {
        long: "idf-warmup",
        set: set!(config.sketch.idf_warmup = usize),
        group: Group::Weights,
        heading: SIMILARITY,
        value: Value::One {
            name: "N",
            default: Some(|| SketchSettings::default().idf_warmup.to_string()),
            parse: parser!(usize),
        },
        help: "Learn document frequencies for --weights tfidf from the first N lines, then freeze \
            them and process those lines and the rest of the stream with the same weights",
        man: "Learn document frequencies from the first *N* lines, freeze them, then process \
            those lines and the rest of the stream with the same weights, in input order \
            (default 0: no warm-up).",
        summary: "learn document frequencies from the first N lines instead, then freeze",
        ..FLAG
    },
    Flag {
        long: "block-by",
        set: set!(config.block_by: String),
        group: Group::Block,
        heading: SIMILARITY,
        value: Value::One {
            name: "PATH",
            default: None,
            parse: parser!(String),
        },
        python: false,
        help: "Only compare documents whose JSON field PATH has the same value (e.g. the date, as \
            in news deduplication); documents without it form one block of their own",
        man: "Only compare documents whose JSON field *PATH* has the same value (for example the \
            date); documents without it form one block of their own.",
        summary: "only compare documents whose JSON field has the same value (e.g. `date`); documents \
            without it are one block; the block is mixed into every LSH and exact-index key, so \
            it costs nothing",
        ..FLAG
    },
    Flag {
        long: "bag",
        set: set!(config.text.bag: switch),
        group: Group::Shingles,
        heading: SIMILARITY,
        value: Value::Switch,
        help: "Multiset semantics: a repeated shingle counts once per occurrence",
        man: "Multiset semantics: the k-th repeat of a shingle is an element of its own.",
        summary: "multiset semantics: the k-th repeat of a shingle is its own element",
        ..FLAG
    },
    Flag {
        long: "threshold",
        set: set!(config.verify.threshold = f64),
        short: Some('t'),
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "T",
            default: Some(|| DEFAULT_THRESHOLD.to_string()),
            parse: parser!(f64),
        },
        help: "Jaccard similarity at or above which a document is a duplicate, in (0, 1]",
        negative: true,
        man: "Jaccard similarity at or above which a document is a duplicate, in (0, 1] (default \
            0.8).",
        summary: "Jaccard cut-off, in (0, 1]",
        ..FLAG
    },
    Flag {
        long: "verify",
        set: set!(verify: list choice Method),
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::List {
            name: "METHODS",
            default: &["jaccard"],
            parse: parser!(choice Method),
        },
        help: "How candidates are confirmed, as a comma-separated chain: jaccard (exact Jaccard \
            of the shingles, at least --threshold), none alone (trust the MinHash estimate; no \
            shingles kept), and the text stages edit (relative edit distance at most \
            --max-edit), cosine (word-count cosine at least --min-cosine), lcs (longest common \
            substring / shorter length at least --min-lcs). Without jaccard the text stages \
            decide alone. Text stages keep each windowed document's normalised text",
        man: "How candidates are confirmed: a comma-separated chain of *jaccard* (exact Jaccard \
            at least `--threshold`, over 32-bit shingle fingerprints; the default), *none* \
            (alone: trust the MinHash estimate), *edit* (relative Levenshtein distance at most \
            `--max-edit`), *cosine* (word-count cosine at least `--min-cosine`), *lcs* (longest \
            common substring over the shorter length at least `--min-lcs`). Without *jaccard* \
            the text stages decide alone. Text stages keep the normalised text of windowed \
            documents.",
        summary: "how candidates are confirmed, a comma-separated chain (below): `jaccard`, `none` \
            (alone: trust the MinHash estimate, less memory), `edit`, `cosine`, `lcs`",
        ..FLAG
    },
    Flag {
        long: "max-edit",
        set: set!(max_edit: f64),
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "D",
            default: Some(|| StageBounds::default().max_edit.to_string()),
            parse: parser!(f64),
        },
        help: "--verify edit: largest relative edit distance (distance / longer length, \
            characters)",
        negative: true,
        man: "Largest relative edit distance for *edit* (default 0.05).",
        summary: "`edit`: largest relative Levenshtein distance (distance / longer length, \
            characters)",
        ..FLAG
    },
    Flag {
        long: "min-cosine",
        set: set!(min_cosine: f64),
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "C",
            default: Some(|| StageBounds::default().min_cosine.to_string()),
            parse: parser!(f64),
        },
        help: "--verify cosine: smallest cosine similarity of the word counts",
        negative: true,
        man: "Smallest cosine for *cosine* (default 0.95).",
        summary: "`cosine`: smallest cosine of the word-count vectors",
        ..FLAG
    },
    Flag {
        long: "min-lcs",
        set: set!(min_lcs: f64),
        group: Group::Verify,
        heading: SIMILARITY,
        value: Value::One {
            name: "R",
            default: Some(|| StageBounds::default().min_lcs.to_string()),
            parse: parser!(f64),
        },
        help: "--verify lcs: smallest longest-common-substring ratio (to the shorter text)",
        negative: true,
        man: "Smallest longest-common-substring ratio for *lcs* (default 0.6).",
        summary: "`lcs`: smallest longest-common-substring / shorter-length ratio",
        ..FLAG
    },
];
