//! The shared flags under "MinHash and LSH" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "exact",
        set: set!(config.all_pairs: switch),
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::Switch,
        help: "Exact similarity join (All-Pairs prefix filtering) instead of MinHash + LSH: every \
            pair at or above --threshold in the window is found (set or bag semantics)",
        man: "Find candidates with the exact All-Pairs prefix filter instead of MinHash and LSH: \
            every pair at or above the threshold in the window is found (set or bag semantics; \
            needs `--verify jaccard`).",
        summary: "exact join (All-Pairs prefix filtering) instead of MinHash + LSH: no pair at or \
            above T in the window is missed (below)",
        ..FLAG
    },
    Flag {
        long: "num-perm",
        set: set!(config.sketch.num_perm = usize),
        short: Some('k'),
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "K",
            default: Some(|| DEFAULT_NUM_PERM.to_string()),
            parse: parser!(usize),
        },
        help: "Number of MinHash values per document (K)",
        man: "MinHash values per document (default 128).",
        summary: "MinHash values per document",
        ..FLAG
    },
    Flag {
        long: "bands",
        set: set!(config.sketch.bands: usize),
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "B",
            default: None,
            parse: parser!(usize),
        },
        help: "LSH bands [default: chosen from --threshold and --recall]",
        man: "LSH bands. Default: chosen from the threshold and `--recall`: among the b×r ≤ K \
            that catch a pair at the threshold with probability at least the recall target, the \
            one with the least false-positive area of the S-curve (fewest candidates below the \
            threshold).",
        summary: "LSH bands; give `--bands` or `--rows` and the other is K / it",
        default_text: Some("from `-t`, `--recall`"),
        ..FLAG
    },
    Flag {
        long: "rows",
        set: set!(config.sketch.rows: usize),
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "R",
            default: None,
            parse: parser!(usize),
        },
        help: "LSH rows per band [default: chosen from --threshold and --recall]",
        man: "LSH rows per band. Given alone, `--bands` or `--rows` derives the other as K \
            divided by it.",
        summary: "LSH rows per band (see `--bands`)",
        default_text: Some("from `-t`, `--recall`"),
        ..FLAG
    },
    Flag {
        long: "recall",
        set: set!(config.sketch.recall = f64),
        group: Group::Sketch,
        heading: SKETCH,
        value: Value::One {
            name: "R",
            default: Some(|| DEFAULT_RECALL.to_string()),
            parse: parser!(f64),
        },
        help: "Recall target of the LSH banding: a pair exactly at --threshold becomes a \
            candidate with at least this probability (pairs above it more often). Lower is \
            faster",
        negative: true,
        man: "Recall target of the default banding: P(candidate | J = T) ≥ *R* (default 0.99; \
            pairs above T are caught more often). Lower is faster. When no banding of K values \
            reaches it, the one with the highest P(T) is used, with a warning.",
        summary: "LSH banding: a pair exactly at `-t` becomes a candidate with probability ≥ R (above \
            `-t`, more often); lower is faster",
        ..FLAG
    },
    Flag {
        long: "seed",
        set: set!(config.sketch.seed = u64),
        group: Group::Shingles,
        heading: SKETCH,
        value: Value::One {
            name: "SEED",
            default: Some(|| DEFAULT_SEED.to_string()),
            parse: parser!(u64),
        },
        help: "Seed for shingle hashing and MinHash",
        man: "Seed of shingle hashing and MinHash (default 1852137842).",
        summary: "seed of shingle hashing and MinHash",
        ..FLAG
    },
    Flag {
        long: "window",
        set: set!(config.window = usize),
        short: Some('w'),
        group: Group::Window,
        heading: SKETCH,
        value: Value::One {
            name: "N",
            default: Some(|| DEFAULT_WINDOW.to_string()),
            parse: parser!(usize),
        },
        help: "Keep at most N documents to compare with (least recently matched are evicted); 0 \
            keeps all",
        man: "Keep at most *N* documents to compare with; the least recently inserted or matched \
            is evicted. 0 (default) keeps all.",
        summary: "keep at most N documents to compare with; the least recently matched are evicted",
        default_text: Some("0 (all)"),
        ..FLAG
    },
    Flag {
        long: "max-candidates",
        set: set!(config.max_candidates = usize),
        group: Group::Candidates,
        heading: SKETCH,
        value: Value::One {
            name: "N",
            default: Some(|| DEFAULT_MAX_CANDIDATES.to_string()),
            parse: parser!(usize),
        },
        help: "Filter modes and clusters components: verify at most N candidates per document, \
            the most promising first (those lacking what it lacks in a template family, then \
            the most similar by a sketch of the signature), and keep at most 2N documents in \
            each LSH bucket, so that the work per document is bounded however many near copies \
            came before it. 0: no bound (the exact greedy answer with --exact)",
        man: "Filter modes: verify at most *N* (default 48) candidates per document, the most \
            promising first (those lacking what it lacks in a template family, then the most \
            similar by a sketch of the signature; `--drop-dups` and `--only-dups` stop at the \
            first match), and keep at most 2*N* documents in each LSH bucket (those that \
            matched before first), so that one template posted many times costs no more per \
            document than ordinary text. 0: no bound (with `--exact`, the exact greedy answer). \
            `clusters` components are bounded the same way; `--pairs` and the other graph \
            outputs list every pair and are not bounded.",
        summary: "filter modes and `clusters` components: verify at most N candidates per document \
            (the most promising first) and keep at most 2N documents in each LSH bucket; 0: no \
            bound",
        ..FLAG
    },
];
