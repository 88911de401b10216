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

/// The source files under `dir` (relative to the crate root), sorted.
fn source_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// DESIGN.md's map of the code (the text block under "## Layout") names every source file
/// of the command line (`src/`) and of the engine (`engine/src/`): a file at the top of a
/// crate's `src/` by its path, a file in a folder by its name, with the folder named too
/// (`engine/src/window/` and `store/index.rs`); a folder's `mod.rs` by the folder. A file
/// added, moved or renamed without the map fails here.
#[test]
fn the_design_map_names_every_source_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("DESIGN.md")).unwrap();
    let layout = design
        .split_once("## Layout")
        .and_then(|(_, rest)| rest.split_once("```text"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(map, _)| map)
        .expect("DESIGN.md has a text block under '## Layout'");
    let mut files = Vec::new();
    source_files(&root.join("src"), &mut files);
    let command_line = files.len();
    source_files(&root.join("engine/src"), &mut files);
    assert!(
        files.len() > command_line + 50,
        "engine/src has {} files",
        files.len() - command_line
    );
    let mut missing = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let in_crate = relative.strip_prefix("engine/").unwrap_or(&relative);
        let crate_src = &relative[..relative.len() - in_crate.len() + "src".len()];
        let parts: Vec<&str> = in_crate.split('/').collect();
        let named = match parts.as_slice() {
            ["src", _] => layout.contains(relative.as_str()),
            ["src", folder, inner @ ..] => {
                let name = inner.last().unwrap();
                let inside = inner.join("/");
                let folder_named = layout.contains(&format!("{crate_src}/{folder}/"));
                let file_named = if *name == "mod.rs" {
                    // A folder's mod.rs: the folder (or, nested, its name) is enough.
                    inner.len() == 1 || layout.contains(&format!("{}/", inner[inner.len() - 2]))
                } else {
                    layout.contains(inside.as_str()) || layout.contains(*name)
                };
                folder_named && file_named
            }
            _ => true,
        };
        if !named {
            missing.push(relative);
        }
    }
    assert!(
        missing.is_empty(),
        "DESIGN.md's map (## Layout) does not name: {missing:?}"
    );
}

/// The README's option table gives each flag the default the command line has
/// ([`neardup::cmd::flag_defaults`]): its value first in the default column (a switch: `off`).
#[test]
fn readme_option_table_gives_the_command_lines_defaults() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let options = readme
        .split_once("## Options")
        .and_then(|(_, rest)| rest.split_once("\n## "))
        .map(|(section, _)| section)
        .expect("README.md has an Options section");
    let defaults: std::collections::HashMap<String, String> =
        neardup::cmd::flag_defaults(None).into_iter().collect();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for row in options.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let (flags, default) = (cells[0], cells.get(1).copied().unwrap_or_default());
        let longs: Vec<&str> = flags
            .split('`')
            .filter_map(|f| f.split_whitespace().next()?.strip_prefix("--"))
            .collect();
        // A row of several flags (modes, `--bands B`, `--rows R`) describes them together.
        let [long] = longs.as_slice() else { continue };
        let Some(value) = defaults.get(*long) else {
            continue;
        };
        let default = default.replace('`', "");
        let expected = if value == "false" {
            "off"
        } else {
            value.as_str()
        };
        checked += 1;
        if !default.starts_with(expected) {
            wrong.push(format!(
                "--{long}: README says {default:?}, --help {value:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(checked > 30, "only {checked} flags checked");
}

/// The README stays a user's page (issue 50: at most 30 KB); the details go to docs/guide.md.
#[test]
fn readme_stays_short_and_its_guide_links_resolve() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.len() <= 30 * 1024,
        "README.md is {} bytes",
        readme.len()
    );
    let guide = std::fs::read_to_string(root.join("docs/guide.md")).unwrap();
    // GitHub's anchors: the heading lower-cased, without punctuation, spaces as hyphens.
    let anchors: Vec<String> = guide
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|h| {
            h.to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect();
    let mut links = 0;
    for part in readme.split("docs/guide.md#").skip(1) {
        let anchor: String = part.chars().take_while(|&c| c != ')').collect();
        assert!(
            anchors.contains(&anchor),
            "README links to a missing #{anchor}: {anchors:?}"
        );
        links += 1;
    }
    assert!(links >= 8, "{links} links into docs/guide.md");
}

/// The man page describes each shared flag ([`neardup::cmd::flags::defs::all`]) under the
/// section of its `--help` heading, and gives the default of each that has one.
#[test]
fn man_page_gives_each_shared_flag_under_its_heading_with_its_default() {
    let man =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/neardup.1")).unwrap();
    let plain = |text: &str| {
        text.replace("\\-", "-")
            .replace("\\fB", "")
            .replace("\\fI", "")
            .replace("\\fR", "")
    };
    // Each `.TP` entry: its section, its first line (the flags) and its text.
    let mut entries = Vec::new();
    let mut section = String::new();
    let mut after_tp = false;
    for block in man.split("\n.") {
        if let Some(name) = block.strip_prefix("SH ") {
            section = name.lines().next().unwrap_or_default().trim().to_string();
        } else if after_tp {
            let (head, text) = block.split_once('\n').unwrap_or((block, ""));
            entries.push((section.clone(), plain(head), plain(text)));
        }
        after_tp = block.trim_end() == "TP";
    }
    let mut wrong = Vec::new();
    for flag in neardup::cmd::flags::defs::all() {
        let long = format!("--{}", flag.long);
        let Some((section, _, text)) = entries.iter().find(|(_, head, _)| {
            head.split(|c: char| c.is_whitespace() || c == '"' || c == ',')
                .any(|w| w == long)
        }) else {
            wrong.push(format!("{long}: no entry"));
            continue;
        };
        let heading = flag.heading.to_uppercase();
        if !section.starts_with(&heading) {
            wrong.push(format!(
                "{long}: under {section}, --help lists it under {heading}"
            ));
        }
        if let neardup::cmd::flags::flag::Value::One {
            default: Some(default),
            ..
        } = flag.value
        {
            let default = default();
            if !text.to_lowercase().contains("default") || !text.contains(&default) {
                wrong.push(format!("{long}: the default {default} is not given"));
            }
        }
    }
    assert!(wrong.is_empty(), "man/neardup.1: {wrong:#?}");
}

/// The engine's overview (the table at the top of `engine/src/lib.rs`) names every module of
/// the crate root, so that a module added or renamed without it fails here, as DESIGN.md's
/// map does.
#[test]
fn the_crate_overview_names_every_module() {
    let lib =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/engine/src/lib.rs")).unwrap();
    let overview: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    let modules: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.split_once("mod ")
                .filter(|(vis, _)| vis.starts_with("pub"))
        })
        .map(|(_, name)| name.trim_end_matches(';'))
        .collect();
    assert!(modules.len() > 15, "{modules:?}");
    let missing: Vec<&&str> = modules
        .iter()
        .filter(|m| {
            !overview.contains(&format!("`{m}`")) && !overview.contains(&format!("[`{m}`]"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "engine/src/lib.rs's overview does not name {missing:?}"
    );
}

/// The man page's entries of the shared flags are the ones their definitions make
/// (`neardup::cmd::flags::man`); `NEARDUP_BLESS=1 cargo test` writes them after a change
/// to the table.
#[test]
fn the_man_pages_flag_entries_are_made_from_the_flag_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/man/neardup.1");
    let page = std::fs::read_to_string(path).unwrap();
    let made = neardup::cmd::flags::man::update(&page).unwrap();
    if std::env::var_os("NEARDUP_BLESS").is_some() {
        std::fs::write(path, &made).unwrap();
        return;
    }
    let headings = page.matches(".\\\" The shared flags under ").count();
    assert_eq!(
        headings, 7,
        "a block of generated entries per --help heading"
    );
    assert!(
        made == page,
        "man/neardup.1's shared flags differ from src/cmd/flags/defs/: run \
         NEARDUP_BLESS=1 cargo test the_man_pages_flag_entries"
    );
}

/// The README's table of the shared flags is the one their definitions make
/// (`neardup::cmd::flags::readme`); `NEARDUP_BLESS=1 cargo test` writes it after a change to
/// the flag table.
#[test]
fn the_readmes_shared_flags_are_made_from_the_flag_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let made = neardup::cmd::flags::readme::update(&readme).unwrap();
    if std::env::var_os("NEARDUP_BLESS").is_some() {
        std::fs::write(path, &made).unwrap();
        return;
    }
    assert!(
        made == readme,
        "README.md's shared flags differ from src/cmd/flags/defs/: run \
         NEARDUP_BLESS=1 cargo test the_readmes_shared_flags"
    );
}

/// The README's shell recipes that run on one file (`ads.jsonl`, a Parquet file, the
/// bundled sample) or a `crawler`'s stream, run as written in a directory holding the
/// bundled sample as `ads.jsonl` (and under its own path), as `train.parquet`, and as
/// `crawl.parquet` with its text in a struct column `meta.body`, with `crawler` and
/// `indexer` as a cat: each line exits 0 and writes something where it says. A line naming
/// placeholder ids is left out, and one piping into a program this machine lacks
/// (Graphviz) is said to be skipped.
#[test]
fn the_readmes_recipes_run_as_written() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, StructArray};
    use arrow_schema::{DataType, Field};
    use std::sync::Arc;
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let dir = crate::util::temp_path("readme-recipes");
    std::fs::create_dir_all(dir.join("tests/data")).unwrap();
    let sample = crate::util::sample_bytes();
    std::fs::write(dir.join("ads.jsonl"), &sample).unwrap();
    std::fs::write(dir.join("tests/data/reuters-sample.jsonl"), &sample).unwrap();
    let write = |name: &str, batch: &RecordBatch| {
        let file = std::fs::File::create(dir.join(name)).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
    };
    write("train.parquet", &crate::util::sample_table(None));
    let (ids, texts) = crate::util::sample_rows();
    let body = Arc::new(Field::new("body", DataType::Utf8, true));
    let meta = StructArray::from(vec![(body, Arc::new(StringArray::from(texts)) as ArrayRef)]);
    let crawl = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("meta", Arc::new(meta) as ArrayRef),
    ])
    .unwrap();
    write("crawl.parquet", &crawl);
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_neardup"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let have = |program: &str| {
        std::process::Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let mut ran = 0;
    let mut in_block = false;
    for line in readme.lines() {
        match line.trim_end() {
            "```sh" => in_block = true,
            "```" => in_block = false,
            _ if !in_block => {}
            _ => {
                let command = line.split("  #").next().unwrap().trim();
                let on_files = ["ads.jsonl", ".parquet", "reuters-sample.jsonl"]
                    .iter()
                    .any(|f| command.contains(f));
                let runs_here = (on_files && command.starts_with("neardup"))
                    || command.starts_with("cat ads.jsonl |")
                    || command.starts_with("crawler |");
                if !runs_here || command.contains("ID_A") {
                    continue;
                }
                if command.contains("| dot ") && !have("dot") {
                    eprintln!("skipped (no Graphviz 'dot' here): {command}");
                    continue;
                }
                let script =
                    format!("crawler() {{ cat ads.jsonl; }}; indexer() {{ cat; }}; {command}");
                let out = std::process::Command::new("bash")
                    .args(["-o", "pipefail", "-c", &script])
                    .current_dir(&dir)
                    .env("PATH", &path)
                    .stdin(std::process::Stdio::null())
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "{command}: {stderr}");
                // Where it writes: the file after `>` or `-o`, else standard output.
                let words: Vec<&str> = command.split_whitespace().collect();
                let target = words
                    .windows(2)
                    .rev()
                    .find(|w| w[0] == ">" || w[0] == "-o")
                    .map(|w| w[1]);
                let written = match target {
                    Some(file) => std::fs::metadata(dir.join(file)).map_or(0, |m| m.len()),
                    None => out.stdout.len() as u64,
                };
                assert!(written > 0, "{command}: nothing written ({stderr})");
                ran += 1;
            }
        }
    }
    assert!(ran >= 20, "{ran} recipes ran");
    let _ = std::fs::remove_dir_all(&dir);
}
