//! One error type for the whole crate.
//!
//! Every error names its place: the input (file and line) or the setting that caused it, so the
//! binary can print `neardup: ads.jsonl:1234: invalid JSON: …` and choose an exit code
//! without string matching. A closed stdout is an [`Error::Io`] whose kind is `BrokenPipe`;
//! the binary treats that as success.

use std::borrow::Cow;
use std::fmt;
use std::io;

/// How a message names a setting. Engine messages write a setting as `‹name›` (the command
/// line's flag without its dashes, e.g. `‹max-line-bytes›`); each front end words it for its
/// users with [`worded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wording {
    /// The command line: `--max-line-bytes`.
    Flags,
    /// The Python module's keywords: `max_line_bytes`.
    Keywords,
}

/// `text` with each setting marked `‹name›` worded as `wording` says.
pub fn worded(text: &str, wording: Wording) -> Cow<'_, str> {
    if !text.contains('‹') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find('‹') {
        let after = &rest[start + '‹'.len_utf8()..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        if name_len == 0 || !after[name_len..].starts_with('›') {
            // Not a marked setting: the character is kept as it is.
            out.push_str(&rest[..start + '‹'.len_utf8()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..start]);
        let name = &after[..name_len];
        match wording {
            Wording::Flags => {
                out.push_str("--");
                out.push_str(name);
            }
            Wording::Keywords => out.push_str(&name.replace('-', "_")),
        }
        rest = &after[name_len + '›'.len_utf8()..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Errors returned by [`crate::run`] and the configuration builders.
#[derive(Debug)]
pub enum Error {
    /// A setting is invalid (usage error: exit code 2).
    Config {
        /// The setting, named as the command line's flag without its dashes (`threshold`,
        /// `max-memory`): the command line says `--threshold`, the Python module
        /// `threshold`.
        setting: &'static str,
        /// What is wrong with its value.
        message: String,
    },
    /// Reading an input or writing the output failed.
    Io {
        /// What was being done, e.g. `reading ads.jsonl` or `writing output`.
        context: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A command line that does not parse (usage error: exit code 2): clap's message, first
    /// paragraph (programs that run the engine in process show it as their own error).
    Usage(String),
    /// A bad input line under `--on-bad-line fail`.
    BadLine {
        /// `file:line` of the offending line.
        place: String,
        /// Why the line is bad.
        reason: String,
    },
    /// The input does not allow the request (e.g. `explain` names an id no document has).
    Data(String),
    /// A worker thread panicked: a bug, reported rather than hidden.
    Internal(String),
    /// The run was asked to stop (a signal, or its output closed, with `--state` or a table
    /// output) and stopped where it could resume: what it kept and where the input got are
    /// in `message` (`None`: nothing to say, `--quiet`). The caller ends the process if it
    /// wants to; the engine never does.
    Stopped {
        /// The exit status a command line gives it: 128 + the signal, or 1 for a closed
        /// output.
        status: i32,
        /// What was kept (the output, the state) and how far the input got.
        message: Option<String>,
    },
}

impl Error {
    /// A configuration error for `setting` (a flag's name without its dashes).
    pub fn config(setting: &'static str, message: impl Into<String>) -> Error {
        Error::Config {
            setting,
            message: message.into(),
        }
    }

    /// An I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// The window's records could not be stored or read back (its spill file's disk is full
    /// or failed, or `--max-disk` was reached) while input line `line` was decided.
    /// A record of an index that fails its checksum is a damaged index (the `‹state›`
    /// setting, exit status 2, as when it is opened), not a disk's failure.
    pub fn spill(source: io::Error, line: u64) -> Error {
        let done = line.saturating_sub(1);
        if source.kind() == io::ErrorKind::InvalidData {
            return Error::config(
                "state",
                format!(
                    "{source}, read at input line {line} (the output is complete up to line \
                     {done}): restore the index from a copy, or start a new one"
                ),
            );
        }
        let context = match source.kind() {
            io::ErrorKind::OutOfMemory => format!(
                "out of memory at input line {line} (the output is complete up to line \
                 {done}; give the run more memory, or a lower ‹max-memory› so that the window \
                 evicts instead)"
            ),
            _ => format!(
                "the window's spill file, at input line {line} (the output is complete up to \
                 line {done}; free disk space, choose another ‹spill-dir›, or set ‹max-disk› \
                 so that the window evicts instead)"
            ),
        };
        Error::io(context, source)
    }

    /// True when the error is a closed output pipe (`neardup … | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }

    /// The exit code the binary uses for this error: 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Config { .. } | Error::Usage(_) => 2,
            Error::Stopped { status, .. } => *status,
            _ => 1,
        }
    }
}

impl Error {
    /// The message, with settings worded for the command line ([`Wording::Flags`]) or the
    /// Python module ([`Wording::Keywords`]). `Display` words them as flags.
    pub fn worded(&self, wording: Wording) -> String {
        let text = match self {
            Error::Config { setting, message } => match wording {
                Wording::Flags => format!("invalid value for '‹{setting}›': {message}"),
                Wording::Keywords => format!("‹{setting}›: {message}"),
            },
            Error::Io { context, source } => format!("{context}: {source}"),
            Error::BadLine { place, reason } => format!("{place}: {reason}"),
            Error::Usage(message) | Error::Data(message) => message.clone(),
            Error::Internal(message) => format!("internal error: {message}"),
            Error::Stopped { message, .. } => message.clone().unwrap_or_default(),
        };
        worded(&text, wording).into_owned()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.worded(Wording::Flags))
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// A writer that words the settings marked in what is written through it (see [`worded`]):
/// the sink for the engine's diagnostics. A marked name must reach it whole in one write, as
/// it does when the engine writes a message built before, or a literal.
pub struct WordedWriter<W> {
    inner: W,
    wording: Wording,
}

impl<W: io::Write> WordedWriter<W> {
    /// Words what is written to `inner` as `wording` says.
    pub fn new(inner: W, wording: Wording) -> WordedWriter<W> {
        WordedWriter { inner, wording }
    }

    /// The writer underneath.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: io::Write> io::Write for WordedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) if text.contains('‹') => {
                self.inner
                    .write_all(worded(text, self.wording).as_bytes())?;
                Ok(buf.len())
            }
            _ => self.inner.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// What a run says besides its results and its error, as a value: a bad line, a limit
/// reached, a resumed state, a warning about the settings. Each front end says it in its
/// own terms: the command line prints `neardup: …` on standard error with the settings as
/// flags, the Python module issues a warning with them as keywords.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Whether it warns (the settings or the input may not be what was meant), rather than
    /// informs.
    pub warning: bool,
    /// What it says, each setting marked `‹name›` ([`worded`]), without the program's name.
    pub text: String,
}

impl Note {
    /// A note that informs.
    pub fn info(text: impl Into<String>) -> Note {
        Note {
            warning: false,
            text: text.into(),
        }
    }

    /// A note that warns.
    pub fn warning(text: impl Into<String>) -> Note {
        Note {
            warning: true,
            text: text.into(),
        }
    }

    /// Its text with the settings worded as `wording` says.
    pub fn worded(&self, wording: Wording) -> String {
        worded(&self.text, wording).into_owned()
    }
}

/// Where a run's notes go ([`Note`]), and its progress line.
pub trait Notes {
    /// Takes one note.
    fn note(&mut self, note: Note);

    /// Shows `line` as the run's progress (without the program's name), in place of the one
    /// before (a terminal's; the empty line clears it). Dropped by default.
    fn progress(&mut self, _line: &str) {}
}

/// Notes kept in order, for the caller to say.
impl Notes for Vec<Note> {
    fn note(&mut self, note: Note) {
        self.push(note);
    }
}

/// Notes printed as the command line prints them: `neardup: ` (and `warning: `) before the
/// text, one write a line; progress on one line after `neardup: `, rewritten in place.
impl<W: io::Write> Notes for WordedWriter<W> {
    fn note(&mut self, note: Note) {
        let kind = if note.warning { "warning: " } else { "" };
        let line = format!("neardup: {kind}{}\n", worded(&note.text, self.wording));
        let _ = self.inner.write_all(line.as_bytes());
    }

    fn progress(&mut self, line: &str) {
        let _ = match line {
            "" => write!(self.inner, "\r\x1b[K"),
            _ => write!(self.inner, "\r\x1b[Kneardup: {line}"),
        };
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_note_is_a_value_each_front_end_words() {
        let notes = [
            Note::warning("raise ‹max-memory›"),
            Note::info("in:3: empty line (skipped)"),
        ];
        let mut printed = WordedWriter::new(Vec::new(), Wording::Flags);
        let mut kept = Vec::new();
        for note in &notes {
            printed.note(note.clone());
            kept.note(note.clone());
        }
        printed.progress("3 docs");
        assert_eq!(
            String::from_utf8(printed.into_inner()).unwrap(),
            "neardup: warning: raise --max-memory\nneardup: in:3: empty line (skipped)\n\
             \r\x1b[Kneardup: 3 docs"
        );
        assert_eq!(kept, notes);
        assert_eq!(kept[0].worded(Wording::Keywords), "raise max_memory");
    }

    #[test]
    fn marked_settings_are_worded_for_each_front_end() {
        let text = "give ‹idf› or ‹idf-warmup› N; ‹ not a name›, ‹Upper›, ‹›";
        assert_eq!(
            worded(text, Wording::Flags),
            "give --idf or --idf-warmup N; ‹ not a name›, ‹Upper›, ‹›"
        );
        assert_eq!(
            worded(text, Wording::Keywords),
            "give idf or idf_warmup N; ‹ not a name›, ‹Upper›, ‹›"
        );
        assert!(matches!(
            worded("plain", Wording::Flags),
            Cow::Borrowed("plain")
        ));
    }

    #[test]
    fn errors_name_their_setting_for_each_front_end() {
        let e = Error::config("max-edit", "2 is not in [0, 1] (see ‹verify›)");
        assert_eq!(
            e.to_string(),
            "invalid value for '--max-edit': 2 is not in [0, 1] (see --verify)"
        );
        assert_eq!(
            e.worded(Wording::Keywords),
            "max_edit: 2 is not in [0, 1] (see verify)"
        );
    }

    #[test]
    fn the_writer_words_what_passes_through() {
        let mut out = WordedWriter::new(Vec::new(), Wording::Flags);
        let note = String::from("raise ‹max-memory›");
        writeln!(out, "neardup: {note}").unwrap();
        write!(out, "progress\r").unwrap();
        assert_eq!(out.inner, b"neardup: raise --max-memory\nprogress\r");
    }
}
