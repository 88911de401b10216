//! One error type for the whole crate.
//!
//! Every error names its place: the input (file and line) or the flag that caused it, so the
//! binary can print `neardup: ads.jsonl:1234: invalid JSON: …` and choose an exit code
//! without string matching. A closed stdout is an [`Error::Io`] whose kind is `BrokenPipe`;
//! the binary treats that as success.

use std::fmt;
use std::io;

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
    pub fn spill(source: io::Error, line: u64) -> Error {
        let done = line.saturating_sub(1);
        let context = match source.kind() {
            io::ErrorKind::OutOfMemory => format!(
                "out of memory at input line {line} (the output is complete up to line \
                 {done}; give the run more memory, or a lower --max-memory so that the window \
                 evicts instead)"
            ),
            _ => format!(
                "the window's spill file, at input line {line} (the output is complete up to \
                 line {done}; free disk space, choose another --spill-dir, or set --max-disk \
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
            _ => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config { setting, message } => {
                write!(f, "invalid value for '--{setting}': {message}")
            }
            Error::Io { context, source } => write!(f, "{context}: {source}"),
            Error::BadLine { place, reason } => write!(f, "{place}: {reason}"),
            Error::Usage(message) | Error::Data(message) => f.write_str(message),
            Error::Internal(message) => write!(f, "internal error: {message}"),
        }
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
