//! What both forms of a saved state share: the loaded state ([`Saved`]), the settings words
//! that must match the run's, and the small pieces both write and read.

use crate::config::{Config, VerifyMode, Weights};
use crate::error::{Error, Result};
use crate::job::Job;
use crate::sketch::weights::IdfTable;
use crate::window::{Limit, Window};
use std::path::{Path, PathBuf};

/// A loaded state: the window and where the stream stopped.
pub struct Saved {
    /// Input lines consumed by the runs that made the state; the next line is `lines + 1`.
    pub lines: u64,
    /// Output lines the runs that made the state had written when it was saved (`None`
    /// from a state of version 2): after a crash, the output's first `written` lines are
    /// the ones that go with this state.
    pub written: Option<u64>,
    /// The frozen IDF table, when the state was made with `--weights tfidf`.
    pub idf: Option<IdfTable>,
    /// The window, as it was.
    pub window: Window,
    /// Output the run decided but could not write before it stopped (its pipe closed, a
    /// signal while the reader did not read): the resumed run writes it first.
    pub pending: Vec<u8>,
}

/// Everything that shapes what the window holds, as `key:value` words: shingling, weights,
/// K, bands × rows, what verification keeps, the exact join (whose keys depend on the
/// threshold), blocking, and whether the exact-copy index is kept (not in `--pairs`).
/// `shingling` is [`crate::sketch::weights::settings_of`] the run's shingler; `job` says whether
/// copies are dropped without a comparison.
pub fn settings(config: &Config, job: &Job, shingling: &str) -> String {
    let weights = match config.sketch.weights {
        Weights::Set if config.text.bag => "tf",
        Weights::Set => "set",
        Weights::Tf => "tf",
        Weights::TfIdf => "tfidf",
    };
    let verify = match config.verify.mode {
        VerifyMode::Jaccard => "jaccard",
        VerifyMode::None => "none",
        VerifyMode::Stages => "stages",
    };
    let mut s = format!(
        "{} weights:{weights} k:{} bands:{}x{} verify:{verify} texts:{} block_by:{} copies:{}",
        shingling,
        config.sketch.num_perm,
        config.sketch.lsh.bands,
        config.sketch.lsh.rows,
        !config.verify.text_stages.is_empty(),
        config.block_by.as_deref().unwrap_or("-"),
        job.drops_copies(),
    );
    if config.all_pairs {
        s.push_str(&format!(" exact:{}", config.verify.threshold));
    } else {
        s.push_str(" exact:no");
    }
    s
}

/// The directory of `path` and the temporary file a save writes there.
pub(super) fn temporary_path(path: &Path) -> Result<(PathBuf, PathBuf)> {
    let name = path.display().to_string();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| Error::config("state", format!("{name} is not a file name")))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    Ok((dir, tmp))
}

/// The byte a manifest or state file keeps for why the window evicts.
pub(super) fn limit_byte(limit: Option<Limit>) -> u8 {
    match limit {
        None => 0,
        Some(Limit::Memory) => 1,
        Some(Limit::Refused) => 2,
        Some(Limit::Disk) => 3,
    }
}

/// What [`limit_byte`] wrote.
pub(super) fn limit_of(byte: u8) -> Option<Limit> {
    match byte {
        1 => Some(Limit::Memory),
        2 => Some(Limit::Refused),
        3 => Some(Limit::Disk),
        _ => None,
    }
}

/// The error for a state made with other settings: names only the words that differ.
pub(super) fn conflict(name: &str, saved: &str, current: &str) -> Error {
    let only = |a: &str, b: &str| {
        a.split(' ')
            .filter(|w| !b.split(' ').any(|x| x == *w))
            .collect::<Vec<_>>()
            .join(" ")
    };
    Error::config(
        "state",
        format!(
            "{name} was made with other settings ({}) than this run ({}); use the same \
             settings or another state file{}",
            only(saved, current),
            only(current, saved),
            crate::sketch::weights::old_words_hint(saved, current)
        ),
    )
}
