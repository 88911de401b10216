//! Docs stay in step: the man page and the README name every long flag of `--help`.

use crate::util::neardup;

/// Long flags of `neardup --help` and of every command's `--help`.
fn long_flags() -> Vec<String> {
    let mut help = String::new();
    for command in [
        &[][..],
        &["graph"],
        &["clusters"],
        &["explain"],
        &["idf"],
        &["tune"],
        &["hist"],
        &["sample"],
        &["report"],
        &["sign"],
        &["verify-pairs"],
    ] {
        help += &neardup(&[command, &["--help"]].concat(), b"").ok().out();
    }
    let mut flags: Vec<String> = help
        .split_whitespace()
        .filter_map(|w| {
            let w = w.trim_end_matches([',', '.']);
            let name = w.strip_prefix("--")?;
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            (!name.is_empty()).then(|| format!("--{name}"))
        })
        .collect();
    flags.sort();
    flags.dedup();
    assert!(flags.len() > 25, "{flags:?}");
    flags
}

#[test]
fn readme_and_man_page_name_every_command() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let man =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/neardup.1")).unwrap();
    for command in [
        "graph",
        "clusters",
        "explain",
        "idf",
        "tune",
        "hist",
        "sample",
        "report",
        "sign",
        "verify-pairs",
    ] {
        assert!(
            readme.contains(&format!("neardup {command}")),
            "README: {command}"
        );
        assert!(
            man.contains(&format!(".SS {command}")),
            "man page: {command}"
        );
    }
}

#[test]
fn man_page_names_every_flag() {
    let man =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/neardup.1")).unwrap();
    let man = man.replace("\\-", "-");
    for flag in long_flags() {
        assert!(man.contains(&flag), "man/neardup.1 does not mention {flag}");
    }
}

#[test]
fn readme_names_every_flag() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for flag in long_flags() {
        assert!(readme.contains(&flag), "README.md does not mention {flag}");
    }
}
