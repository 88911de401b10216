//! The README's table of the shared flags, made from their definitions ([`super::defs`]):
//! `README.md` holds it between two comment lines, and a test checks that it is what the
//! table makes (`NEARDUP_BLESS=1 cargo test` writes it).

use super::defs;
use super::flag::{Flag, Value};

/// The comment line before the table.
const BEGIN: &str = "<!-- The shared flags:";
/// The comment line after it.
const END: &str = "<!-- end of the shared flags -->";

/// `readme` with the table between the comment lines made anew; an error when they are
/// not there.
pub fn update(readme: &str) -> Result<String, String> {
    let begin = readme.find(BEGIN).ok_or("no table of the shared flags")?;
    let after_begin = begin
        + readme[begin..]
            .find('\n')
            .ok_or("no line after the begin")?
        + 1;
    let end = after_begin
        + readme[after_begin..]
            .find(END)
            .ok_or("no end of the table")?;
    Ok(format!(
        "{}{}{}",
        &readme[..after_begin],
        table(),
        &readme[end..]
    ))
}

/// The table: a row per flag, in `--help`'s order.
pub fn table() -> String {
    let mut table = String::from("| flag | default | meaning |\n|---|---|---|\n");
    for flag in defs::all() {
        table.push_str(&row(flag));
    }
    table
}

/// One flag's row: its names and value, its default, what it does.
pub fn row(flag: &Flag) -> String {
    let value = match flag.shown_value() {
        Some(words) => format!(" {}", words.join("\\|")),
        None => String::new(),
    };
    let names = match flag.short {
        Some(c) => format!("`-{c}`, `--{}{value}`", flag.long),
        None => format!("`--{}{value}`", flag.long),
    };
    let default = match (flag.default_text, flag.value) {
        (Some(text), _) => text.to_string(),
        (None, Value::Switch) => "off".to_string(),
        (None, Value::One { default: None, .. }) => "none".to_string(),
        (
            None,
            Value::One {
                default: Some(default),
                ..
            },
        ) => match flag.choices().is_empty() {
            true => default(),
            false => format!("`{}`", default()),
        },
        (None, Value::List { default, .. }) => format!("`{}`", default.join(",")),
    };
    let summary = match flag.summary {
        "" => flag.help,
        summary => summary,
    };
    format!(
        "| {names} | {default} | {} |\n",
        summary.replace('|', "\\|")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_gives_names_value_default_and_meaning() {
        let row_of = |long| row(defs::flag(long).unwrap());
        assert!(row_of("quiet").starts_with("| `-q`, `--quiet` | off | "));
        assert!(row_of("words").starts_with("| `--words unicode\\|spaces` | `unicode` | "));
        assert!(row_of("threshold").starts_with("| `-t`, `--threshold T` | 0.8 | "));
        let readme = format!("a\n{BEGIN} x -->\nSTALE\n{END}\nb\n");
        let updated = update(&readme).unwrap();
        assert!(updated.starts_with(&format!("a\n{BEGIN} x -->\n| flag |")));
        assert!(updated.ends_with(&format!("|\n{END}\nb\n")) && !updated.contains("STALE"));
        assert!(update("no table").is_err());
    }
}
