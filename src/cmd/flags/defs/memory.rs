//! The shared flags under "Memory" in `--help` and the man page.

use super::*;

/// The flags, in the order `--help` and the man page list them.
pub(super) static FLAGS: &[Flag] = &[
    Flag {
        long: "max-memory",
        set: set!(max_memory: size),
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "SIZE",
            default: None,
            parse: parser!(size),
        },
        help: "RAM the run may use, e.g. 512M or 8G (K, M, G, T: powers of 1024). Held documents \
            cost their index entries in RAM (about 300 bytes each) and their records on disk \
            (--spill-dir); when the window reaches the limit it keeps its size from then on, \
            evicting the least recently matched, and says so once. The limit bounds the whole \
            process's peak RSS (the window takes what the pipeline's buffers leave; at least \
            48M, 64M reading a table; a small budget signs on fewer threads, and a line over \
            1/32 of it is a bad line). Default: \
            half the smallest of the physical memory, the memory cgroup's limit (a \
            container's) and the address-space limit (ulimit -v); --stats says which; 0: no \
            limit",
        man: "Peak resident memory of the whole run, e.g. 512M or 8G (K, M, G, T are powers of \
            1024; 0: no limit): the window takes what the batches in flight and the buffers \
            leave. At least 48M (64M when the input is Parquet or Arrow: the decoder's share); \
            smaller is refused. Under a small budget fewer threads sign (each holds its own \
            buffers; the output is the same), and a line longer than 1/32 of the budget is a \
            bad line (\"over the memory budget\", under `--on-bad-line`), read in pieces. When \
            the window would pass its share, it keeps its size from then on, \
            evicting the least recently matched, and a note on stderr says at which input line. \
            The same happens when the system refuses memory below the limit. Default: half the \
            smallest of the physical memory, the memory cgroup's limit (a container's; v1 and \
            v2) and the address-space limit (`ulimit -v`, less what a run maps unused); \
            `--stats` says which, and the run's `peak_rss_bytes`.",
        summary: "peak RSS of the whole run (`512M`, `8G`; 0: no limit); past it the window keeps its \
            size and evicts (below)",
        default_text: Some("half the RAM, container or `ulimit -v`"),
        ..FLAG
    },
    Flag {
        long: "spill-dir",
        set: set!(spill_dir: PathBuf),
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "DIR",
            default: None,
            parse: parser!(PathBuf),
        },
        help: "Directory of the spill file holding the held documents' records (shingle \
            fingerprints, band keys, ids) past the RAM share of --spill-cache. The file is \
            unlinked as soon as it is created, so nothing is left behind however the run ends; \
            a directory that cannot hold one is refused before any input is read. Default: the \
            system's temporary directory ($TMPDIR or /tmp); 'none' keeps every record in RAM",
        man: "Directory of the spill file (default: `$TMPDIR` or /tmp); `none` keeps every record \
            in RAM. A directory that cannot hold a file is a usage error before any input is \
            read.",
        summary: "where held documents' records go past `--spill-cache`; `none` keeps them in RAM; \
            checked before any input is read (exit 2)",
        default_text: Some("`$TMPDIR` or `/tmp`"),
        ..FLAG
    },
    Flag {
        long: "spill-cache",
        set: set!(spill_cache: size),
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "SIZE",
            default: None,
            parse: parser!(size),
        },
        help: "RAM for the newest held records before they go to the spill file. Default: 64M, or \
            an eighth of --max-memory if that is less",
        man: "RAM for the newest held records (default 64M, or an eighth of `--max-memory` if \
            less).",
        summary: "RAM for the newest held records",
        default_text: Some("64M (≤ ⅛ of `--max-memory`)"),
        ..FLAG
    },
    Flag {
        long: "max-disk",
        set: set!(config.memory.max_disk = size),
        group: Group::Memory,
        heading: MEMORY,
        value: Value::One {
            name: "SIZE",
            default: Some(|| DEFAULT_MAX_DISK.to_string()),
            parse: parser!(size),
        },
        help: "Most bytes the spill file may take: the window stops growing at half of it \
            (evicting from then on, said once), and evicted records' space is reclaimed before \
            the file reaches it. No effect with --spill-dir none. Default 0: no limit but the \
            disk's (a full disk stops the run with exit status 1, the output ending at a whole \
            line)",
        man: "Most bytes the spill file may take: the window stops growing at half of it and \
            evicts, with a note, and evicted records' space is reclaimed in place before the \
            file reaches it. No effect with `--spill-dir none`. Default 0: the disk's limit (a \
            full disk ends the run with status 1, the output at a whole line).",
        summary: "most the spill file may take; the window stops growing at half of it and evicts; \
            nothing with `--spill-dir none`",
        default_text: Some("0 (the disk's)"),
        ..FLAG
    },
];
