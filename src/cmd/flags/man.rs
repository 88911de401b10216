//! The man page's entries of the shared flags, made from their definitions
//! ([`super::defs`]): `man/neardup.1` holds them between two comment lines in the section of
//! their heading, and a test checks that they are what the table makes (`NEARDUP_BLESS=1
//! cargo test` writes them).

use super::defs;
use super::flag::{Flag, Value};

/// The comment line before a heading's generated entries; the heading follows in quotes.
const BEGIN: &str = ".\\\" The shared flags under \"";
/// The comment line after them.
const END: &str = ".\\\" end of the shared flags";

/// `page` with the entries between each pair of comment lines made anew from the table; an
/// error names a heading that has no flag, or a begin line without its end.
pub fn update(page: &str) -> Result<String, String> {
    let mut out = String::with_capacity(page.len());
    let mut lines = page.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        let Some(rest) = line.strip_prefix(BEGIN) else {
            continue;
        };
        let heading = rest.split('"').next().unwrap_or_default();
        let flags: Vec<&Flag> = defs::all().filter(|f| f.heading == heading).collect();
        if flags.is_empty() {
            return Err(format!("no shared flag is under \"{heading}\""));
        }
        for flag in flags {
            out.push_str(&entry(flag));
        }
        match lines.by_ref().find(|l| l.starts_with(END)) {
            Some(end) => out.push_str(end),
            None => return Err(format!("\"{heading}\": no line '{END}' after its entries")),
        }
    }
    Ok(out)
}

/// One flag's entry: `.TP`, the names and value, the text.
pub fn entry(flag: &Flag) -> String {
    let long = format!("\\-\\-{}", escape(flag.long));
    let value = flag.shown_value().map(|words| {
        let words: Vec<String> = words.iter().map(|w| escape(w)).collect();
        words.join("|")
    });
    let head = match (flag.short, value) {
        (None, None) => format!(".B {long}"),
        (None, Some(value)) => format!(".BI {long} \" {value}\""),
        (Some(c), None) => format!(".BR \\-{c} \", \" {long}"),
        (Some(c), Some(value)) => format!(".BR \\-{c} \", \" {long} \" \\fI{value}\\fR\""),
    };
    let mut text = match flag.man {
        "" => flag.long_help.unwrap_or(flag.help).to_string(),
        text => text.to_string(),
    };
    // A text that does not give the default (one written for `-h`) is followed by it.
    if let Value::One {
        default: Some(default),
        ..
    } = flag.value
        && !text.to_lowercase().contains("default")
    {
        if !text.ends_with('.') {
            text.push('.');
        }
        text.push_str(&format!(" Default: `{}`.", default()));
    }
    format!(".TP\n{head}\n{}\n", roff(&text))
}

/// Text with `code` and *names* as troff: bold, italics, hyphens as `\-`, lines of at most
/// [`WIDTH`] characters, none taken for a request.
fn roff(text: &str) -> String {
    let mut styled = String::with_capacity(text.len() * 2);
    let (mut bold, mut italic) = (false, false);
    for c in text.chars() {
        match c {
            '`' => {
                bold = !bold;
                styled.push_str(if bold { "\\fB" } else { "\\fR" });
            }
            '*' if !bold => {
                italic = !italic;
                styled.push_str(if italic { "\\fI" } else { "\\fR" });
            }
            c => push_escaped(&mut styled, c),
        }
    }
    let mut out = String::new();
    let mut line = String::new();
    for word in styled.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if line.is_empty() {
            // A line starting with '.' or '\'' would be a request.
            if word.starts_with(['.', '\'']) {
                line.push_str("\\&");
            }
        } else {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// Lines of the man page's entries are at most this long, as the hand-written ones.
const WIDTH: usize = 92;

/// `text` with troff's escape character and hyphens escaped, and the punctuation troff
/// names written by name (so that the page needs no input encoding for them).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// `c` as [`escape`] writes it.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\\' => out.push_str("\\e"),
        '-' => out.push_str("\\-"),
        '—' => out.push_str("\\(em"),
        '×' => out.push_str("\\(mu"),
        '≤' => out.push_str("\\(<="),
        '≥' => out.push_str("\\(>="),
        '“' => out.push_str("\\(lq"),
        '”' => out.push_str("\\(rq"),
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_and_names_become_bold_and_italics_and_no_line_is_a_request() {
        let text = roff("Dotted `--field` *PATH*, e.g. `a.b`; see .parquet files");
        assert_eq!(
            text,
            "Dotted \\fB\\-\\-field\\fR \\fIPATH\\fR, e.g. \\fBa.b\\fR; see .parquet files"
        );
        let long = format!("{} .parquet", "x".repeat(WIDTH - 2));
        assert_eq!(
            roff(&long),
            format!("{}\n\\&.parquet", "x".repeat(WIDTH - 2))
        );
    }

    /// A text's `code` and *names* are closed, or the rest of its entry would be bold.
    #[test]
    fn every_flags_text_closes_its_code_and_names() {
        for flag in defs::all() {
            assert_eq!(flag.man.matches('`').count() % 2, 0, "--{}", flag.long);
            let outside: String = flag.man.split('`').step_by(2).collect();
            assert_eq!(outside.matches('*').count() % 2, 0, "--{}", flag.long);
        }
    }

    #[test]
    fn an_entry_names_the_flag_its_value_and_says_its_text() {
        let quiet = defs::flag("quiet").unwrap();
        assert!(entry(quiet).starts_with(".TP\n.BR \\-q \", \" \\-\\-quiet\n"));
        let words = defs::flag("words").unwrap();
        assert!(entry(words).starts_with(".TP\n.BI \\-\\-words \" unicode|spaces\"\n"));
        let page = format!("{BEGIN}Memory\" x\n{END}\n");
        let updated = update(&page).unwrap();
        assert!(updated.contains("\\-\\-max\\-memory") && updated.ends_with(&format!("{END}\n")));
        assert!(update(&format!("{BEGIN}Nothing\"\n{END}\n")).is_err());
        assert!(update(&format!("{BEGIN}Memory\"\n")).is_err());
    }
}
