//! The shared flags under "Performance" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "threads",
        set: set!(config.threads = usize),
        short: Some('j'),
        group: Group::Threads,
        heading: PERFORMANCE,
        value: Value::One {
            name: "N",
            default: Some(|| DEFAULT_THREADS.to_string()),
            parse: parser!(usize),
        },
        help: "Signing threads (the sequencer is one of them: it signs while the next batch in \
            order is not ready), threads looking up and verifying a batch's candidates, and threads \
            grouping the components of `clusters` and `graph`; 0 uses all cores",
        man: "Signing threads, and threads that look up and verify a batch's candidates while the \
            window cannot evict, and threads that group the components of `clusters` and `graph` \
            (fewer under `--max-memory`: half of it for their clique searches); 0 (default) uses \
            all cores. The sequencer is one of the \
            signing threads: it signs batches while the next one in input order is not ready, \
            so `-j 1` runs everything but the reading on one thread. The output does not depend \
            on it.",
        summary: "threads signing (the sequencer among them), looking up and verifying a batch's \
            candidates, and grouping components",
        default_text: Some("0 (all cores)"),
        ..FLAG
    },
    Flag {
        long: "helpers",
        set: set!(config.helpers = choice HelperPolicy),
        group: Group::Helpers,
        heading: PERFORMANCE,
        value: Value::One {
            name: "WHEN",
            default: Some(|| HelperPolicy::default().to_string()),
            parse: parser!(choice HelperPolicy),
        },
        help: "When the sequencer shares a batch's LSH lookups and verification with the \
            other threads: with --pairs and the graph commands, every pair; in the filter \
            modes, lookups made before the batch is decided in order, used or brought up to \
            date where the batch changed what they read (with two threads, the signing \
            thread makes them between documents). auto (when signed batches queue up behind \
            it: it is then the slower stage; or when every batch read is signed, as at the \
            input's end; in the filter modes, while that is faster than deciding in order), \
            always, or never. The output is the same",
        man: "When the sequencer (the one thread that keeps the window and writes, in input \
            order) shares a batch's LSH lookups and verification with the other threads: with \
            `--pairs` and the graph commands, every pair of the batch; in the filter modes, \
            each document's lookup made against the window as it stood before the batch, used \
            in order where nothing it read has changed since and brought up to date from what \
            changed otherwise. With more than two threads, helper threads start for it; with \
            two, the signing thread takes it between the documents it signs. `auto` (default) \
            when signed batches queue up behind it, that is when it is the slower stage, \
            and when every batch read so far is signed (the signing threads have nothing to \
            do: at the input's end, where a templated input's last batches cost the most, or \
            while the input comes slower than it is signed); `always`; or `never`. Alone it spends less CPU per document, so where signing is \
            the slower stage `auto` leaves the cores to signing; and in the filter modes \
            `auto` weighs, as the run goes, the time per document speculating against \
            deciding in order, and decides in order for a while where speculating is the \
            slower (short documents, whose lookups cost little beside their inserts). The \
            output does not depend on it.",
        summary: "when the sequencer shares a batch's lookups and verification with the other \
            threads (`--pairs` and graphs: every pair; the filter: lookups made ahead, kept \
            up to date): `auto` (when signed batches queue up behind it or the signing has \
            nothing left to do, and it pays), `always`, `never`; same output",
        ..FLAG
    },
];
