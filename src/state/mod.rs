//! `--state PATH`: the window saved between runs, so a restarted stream keeps deduplicating
//! against what it already saw.
//!
//! A state holds everything the sequencer needs to continue as if the stream had never
//! stopped: every windowed document (sequence number, id, sorted shingle fingerprints,
//! weights, kept text, compact signature, band keys, exact-index hash) in least-recently-used
//! order, the number of input lines consumed (line numbers and line ids continue from it), the
//! frozen IDF table of `--weights tfidf`, the filter's family summaries (which make the
//! family keys of the documents to come), the order of its limited buckets (which their
//! refreshes shaped), and the settings that shaped all of it.
//!
//! It is saved as an index directory ([`index`]): the records appended, the window's tables
//! and a manifest written last, so that a save costs what changed and an open costs the
//! tables, not the records. Single-file states of earlier versions ([`file`]) still load and
//! become index directories at their first save.
mod file;
pub mod index;
mod lock;

pub use file::has_magic;
pub use lock::Lock;

use crate::config::{Config, VerifyMode, Weights};
use crate::error::{Error, Result};
use crate::job::Job;
use crate::weights::IdfTable;
use crate::window::{Limit, Window, WindowSettings};
use std::fs::File;
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
/// `shingling` is [`crate::weights::settings_of`] the run's shingler; `job` says whether
/// copies are dropped without a comparison.
pub fn settings(config: &Config, job: &Job, shingling: &str) -> String {
    let weights = match config.weights {
        Weights::Set if config.bag => "tf",
        Weights::Set => "set",
        Weights::Tf => "tf",
        Weights::TfIdf => "tfidf",
    };
    let verify = match config.verify {
        VerifyMode::Jaccard => "jaccard",
        VerifyMode::None => "none",
        VerifyMode::Stages => "stages",
    };
    let mut s = format!(
        "{} weights:{weights} k:{} bands:{}x{} verify:{verify} texts:{} block_by:{} copies:{}",
        shingling,
        config.num_perm,
        config.lsh.bands,
        config.lsh.rows,
        !config.text_stages.is_empty(),
        config.block_by.as_deref().unwrap_or("-"),
        job.drops_copies(),
    );
    if config.all_pairs {
        s.push_str(&format!(" exact:{}", config.threshold));
    } else {
        s.push_str(" exact:no");
    }
    s
}

/// Checks, before any input is read, that a state can be saved at `path`: a save creates a
/// temporary file beside it, so one is created and removed now. A run that would fail only
/// at its end, after all its work, fails at once instead.
pub fn check_writable(path: &Path) -> Result<()> {
    let (dir, tmp) = temporary_path(path)?;
    File::create(&tmp)
        .and_then(|_| std::fs::remove_file(&tmp))
        .map_err(|e| {
            Error::io(
                format!("{} cannot be saved in {}", path.display(), dir.display()),
                e,
            )
        })?;
    remove_stale_temporaries(path, &dir);
    Ok(())
}

/// Takes the lock of the state file `path` ([`Lock`], on `.FILE.lock` beside it): a run
/// that finds another holding it fails (a usage error naming the holder's process id)
/// instead of saving over its state.
pub fn lock(path: &Path) -> Result<Lock> {
    let (dir, _) = temporary_path(path)?;
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    Lock::take(dir.join(format!(".{file_name}.lock")), path)
}

/// Removes the temporary files of saves that never finished (a process killed while
/// saving, `kill -9` included, leaves `.FILE.tmpPID` behind): those beside `path` whose
/// process is gone. Only names of exactly that form are touched, and only when the process
/// table can be read (`/proc`), so a save still running elsewhere is never disturbed.
fn remove_stale_temporaries(path: &Path, dir: &Path) {
    let Some(file_name) = path.file_name() else {
        return;
    };
    let prefix = format!(".{}.tmp", file_name.to_string_lossy());
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let is_pid = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
        if is_pid && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The directory of `path` and the temporary file a save writes there.
fn temporary_path(path: &Path) -> Result<(PathBuf, PathBuf)> {
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

/// Saves the state at `path`, recording the run's [`settings`]: as an index directory
/// ([`index`]: only what changed since the last save is written), made if missing. A state
/// file of an earlier version at `path` becomes an index directory there (said on stderr);
/// a crash while converting leaves the file (moved to `.FILE.old` until the directory is in
/// place), which [`load`] then reads.
pub fn save(
    path: &Path,
    settings: &str,
    window: &mut Window,
    (lines, written): (u64, u64),
    idf: Option<&IdfTable>,
    pending: &[u8],
) -> Result<()> {
    let progress = index::Progress {
        settings,
        lines,
        written,
        idf,
        pending,
    };
    let old = old_file(path)?;
    let Some(old) = old else {
        return index::save(path, window, &progress);
    };
    let (dir, tmp) = temporary_path(path)?;
    let building = tmp.with_extension(format!("index{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    index::save(&building, window, &progress)?;
    let io = |e| {
        Error::io(
            format!("converting {} to an index directory", path.display()),
            e,
        )
    };
    if old != path {
        // An earlier conversion moved the file aside and stopped.
    } else {
        std::fs::rename(path, aside(path)?).map_err(io)?;
    }
    std::fs::rename(&building, path).map_err(io)?;
    window.index_moved(path);
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    let _ = std::fs::remove_file(aside(path)?);
    eprintln!(
        "neardup: {}: the state file is now an index directory (version {})",
        path.display(),
        index::VERSION
    );
    Ok(())
}

/// Where a state file being converted waits until its index directory is in place.
fn aside(path: &Path) -> Result<PathBuf> {
    let (dir, _) = temporary_path(path)?;
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    Ok(dir.join(format!(".{file_name}.old")))
}

/// The single-file state (version 2–7) at `path`, or the one a stopped conversion moved
/// aside; `None` when `path` is an index directory or nothing.
fn old_file(path: &Path) -> Result<Option<PathBuf>> {
    if path.is_file() {
        return Ok(Some(path.to_path_buf()));
    }
    let aside = aside(path)?;
    Ok((!path.exists() && aside.is_file()).then_some(aside))
}

/// The byte a manifest or state file keeps for why the window evicts.
fn limit_byte(limit: Option<Limit>) -> u8 {
    match limit {
        None => 0,
        Some(Limit::Memory) => 1,
        Some(Limit::Refused) => 2,
        Some(Limit::Disk) => 3,
    }
}

/// What [`limit_byte`] wrote.
fn limit_of(byte: u8) -> Option<Limit> {
    match byte {
        1 => Some(Limit::Memory),
        2 => Some(Limit::Refused),
        3 => Some(Limit::Disk),
        _ => None,
    }
}

/// Loads the state at `path` for `job` run with `config` into a window made with `window`:
/// `None` when the file does not exist. A window smaller than the saved one keeps the most
/// recently used documents. Conflicting settings, a truncated or corrupted file are usage
/// errors.
pub fn load(
    path: &Path,
    config: &Config,
    job: &Job,
    shingling: &str,
    window: WindowSettings,
) -> Result<Option<Saved>> {
    open(path, config, job, shingling, window, true)
}

/// [`load`], for a run that only reads the state (`--against`): an index directory is
/// opened read-only and nothing in it is changed, so many runs can share it, also while
/// one run saves it.
pub fn open_to_read(
    path: &Path,
    config: &Config,
    job: &Job,
    shingling: &str,
    window: WindowSettings,
) -> Result<Option<Saved>> {
    open(path, config, job, shingling, window, false)
}

fn open(
    path: &Path,
    config: &Config,
    job: &Job,
    shingling: &str,
    window: WindowSettings,
    writable: bool,
) -> Result<Option<Saved>> {
    match old_file(path)? {
        Some(file) => file::load_file(&file, config, job, shingling, window),
        None => {
            let expected = settings(config, job, shingling);
            Ok(index::open(path, &expected, config, window, writable)?.map(|(saved, _)| saved))
        }
    }
}

/// The error for a state made with other settings: names only the words that differ.
fn conflict(name: &str, saved: &str, current: &str) -> Error {
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
            crate::weights::old_words_hint(saved, current)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::file::save_file;
    use super::*;
    use crate::config::Settings;
    use crate::input::DocId;
    use crate::window::Entry;

    const SHINGLING: &str = "words:5 seed:1 lowercase:true";

    const FILTER: Job = Job::Filter(crate::job::Output::DropDups);

    /// The settings [`save`] records for [`config`].
    fn recorded() -> String {
        settings(&config(), &FILTER, SHINGLING)
    }

    fn config() -> Settings {
        Config::default().validate().expect("valid")
    }

    fn window() -> Window {
        let mut w = Window::new(0);
        for seq in 1..=50u64 {
            w.insert(
                seq,
                Entry {
                    id: match seq % 3 {
                        0 => DocId::Line(seq),
                        1 => DocId::Str(format!("doc-{seq}-é").into()),
                        _ => DocId::Num(format!("{seq}.5").into()),
                    },
                    shingles: (0..seq).map(|i| (i * 7919 + seq) as u32).collect(),
                    weights: Vec::new(),
                    total_weight: 0.0,
                    text: String::new(),
                    signature: Vec::new(),
                    band_keys: (0..16).map(|b| b * 1000 + seq % 7).collect(),
                    copy_key: (seq % 5 != 0).then_some(u128::from(seq) << 70 | 3),
                    text_hash: u128::from(seq) << 70 | 3,
                    sketch: [seq, seq * 3, 0, u64::MAX],
                },
            )
            .expect("in RAM");
            if seq % 4 == 0 {
                w.touch(w.find_seq(seq / 2).expect("held"));
            }
        }
        w
    }

    fn dump(w: &Window) -> Vec<String> {
        w.oldest_first()
            .map(|held| {
                let mut e = Entry::default();
                w.load(held, &mut e).expect("in RAM");
                format!("{} {e:?}", held.seq)
            })
            .collect()
    }

    #[test]
    fn round_trip_keeps_order_and_contents() {
        let dir = std::env::temp_dir().join(format!("neardup-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("rt.ndstate");
        let mut w = window();
        save_file(&path, &recorded(), &w, 77, 70, None, b"pending\n").expect("saved");
        let mut saved = load(
            &path,
            &config(),
            &FILTER,
            SHINGLING,
            WindowSettings::default(),
        )
        .expect("loads")
        .expect("exists");
        assert_eq!(saved.lines, 77);
        assert_eq!(saved.written, Some(70));
        assert_eq!(saved.pending, b"pending\n");
        assert_eq!(dump(&saved.window), dump(&w));
        let mut a = Vec::new();
        let mut b = Vec::new();
        w.candidates(&[1003, 15004], &mut a);
        saved.window.candidates(&[1003, 15004], &mut b);
        let seqs = |v: &[crate::window::Held]| v.iter().map(|h| h.seq).collect::<Vec<_>>();
        assert_eq!(seqs(&a), seqs(&b));
        assert!(!a.is_empty());
        assert_eq!(
            w.find_copy(7u128 << 70 | 3).unwrap().map(|h| h.seq),
            saved
                .window
                .find_copy(7u128 << 70 | 3)
                .unwrap()
                .map(|h| h.seq)
        );
        assert!(
            load(
                &dir.join("missing"),
                &config(),
                &FILTER,
                SHINGLING,
                WindowSettings::default()
            )
            .expect("ok")
            .is_none()
        );

        // Every truncation and every flipped byte is an error, never a panic or a window.
        let bytes = std::fs::read(&path).expect("read");
        let broken = dir.join("broken.ndstate");
        for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
            std::fs::write(&broken, &bytes[..cut]).expect("write");
            let e = load(
                &broken,
                &config(),
                &FILTER,
                SHINGLING,
                WindowSettings::default(),
            )
            .err()
            .expect("truncation is refused");
            assert_eq!(e.exit_code(), 2, "{e}");
        }
        for at in (0..bytes.len()).step_by(3) {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            std::fs::write(&broken, &b).expect("write");
            assert!(
                load(
                    &broken,
                    &config(),
                    &FILTER,
                    SHINGLING,
                    WindowSettings::default()
                )
                .is_err(),
                "flip at {at} accepted"
            );
        }

        // A smaller window keeps the most recently used documents.
        let small = WindowSettings {
            capacity: 10,
            ..WindowSettings::default()
        };
        let saved = load(&path, &config(), &FILTER, SHINGLING, small)
            .expect("loads")
            .expect("exists");
        assert_eq!(dump(&saved.window), dump(&w)[40..].to_vec());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn stale_temporary_files_are_removed_and_live_ones_kept() {
        let dir = std::env::temp_dir().join(format!("neardup-stale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("s.ndstate");
        // A PID no process has (above the kernel's maximum), PID 1 (always running), and
        // names of another form.
        let stale = dir.join(".s.ndstate.tmp4999999");
        let live = dir.join(".s.ndstate.tmp1");
        let other = dir.join(".t.ndstate.tmp4999999");
        let odd = dir.join(".s.ndstate.tmp12x");
        for f in [&stale, &live, &other, &odd] {
            std::fs::write(f, b"x").expect("write");
        }
        check_writable(&path).expect("writable");
        if Path::new("/proc/self").exists() {
            assert!(!stale.exists(), "the dead process's file is removed");
        }
        assert!(live.exists(), "a running process's file is kept");
        assert!(other.exists() && odd.exists(), "other names are left alone");
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn other_settings_are_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("neardup-state2-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("s.ndstate");
        save_file(&path, &recorded(), &window(), 1, 1, None, &[]).expect("saved");
        let other = Config {
            num_perm: 64,
            ..Config::default()
        }
        .validate()
        .expect("valid");
        let e = load(&path, &other, &FILTER, SHINGLING, WindowSettings::default())
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("k:128") && e.contains("k:64"), "{e}");
        // The threshold alone does not shape the window (bands are kept explicitly here).
        let t = Config {
            threshold: 0.5,
            bands: Some(Config::default().lsh.bands),
            rows: Some(Config::default().lsh.rows),
            ..Config::default()
        }
        .validate()
        .expect("valid");
        assert!(load(&path, &t, &FILTER, SHINGLING, WindowSettings::default()).is_ok());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
