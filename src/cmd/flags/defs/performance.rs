//! The shared flags under "Performance" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "threads",
        short: Some('j'),
        group: Group::Threads,
        heading: PERFORMANCE,
        value: Value::One {
            name: "N",
            default: Some(|| 0.to_string()),
            parse: parser!(usize),
        },
        help: "Signing threads (the sequencer is one of them: it signs while the next batch in \
            order is not ready), and threads looking up and verifying a batch's candidates; 0 \
            uses all cores",
        man: "Signing threads, and threads that look up and verify a batch's candidates while the \
            window cannot evict; 0 (default) uses all cores. The sequencer is one of the \
            signing threads: it signs batches while the next one in input order is not ready, \
            so `-j 1` runs everything but the reading on one thread. The output does not depend \
            on it.",
        summary: "signing threads (the sequencer among them), and threads looking up and verifying a \
            batch's candidates",
        default_text: Some("0 (all cores)"),
        ..FLAG
    },
    Flag {
        long: "helpers",
        group: Group::Helpers,
        heading: PERFORMANCE,
        value: Value::One {
            name: "WHEN",
            default: Some(|| HelperPolicy::Auto.to_string()),
            parse: parser!(choice HelperPolicy),
        },
        help: "--pairs and the graph commands: when the sequencer shares a batch's LSH lookups \
            and verification with helper threads (with more than one thread): auto (when \
            signed batches queue up behind it: it is then the slower stage), always, or never. \
            The output is the same",
        man: "With `--pairs` and the graph commands: when the sequencer (the one thread that \
            keeps the window and writes, in input order) shares a batch's LSH lookups and \
            verification with the other threads: `auto` (default) when signed batches queue up \
            behind it, that is when it is the slower stage; `always`; or `never`. Alone it \
            spends less CPU per document, so on two cores `auto` leaves them to signing. The \
            output does not depend on it.",
        summary: "`--pairs` and the graph commands: when the sequencer shares a batch's lookups and \
            verification with the other threads: `auto` (when signed batches queue up behind \
            it), `always`, `never`; same output",
        ..FLAG
    },
];
