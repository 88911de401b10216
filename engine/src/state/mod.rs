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
mod disk;
mod file;
pub mod index;
mod lock;
mod saved;

pub(crate) use file::has_magic;
pub use lock::Lock;
use saved::temporary_path;
pub use saved::{Saved, settings};

use crate::config::Config;
use crate::error::{Error, Note, Result};
use crate::job::Job;
use crate::sketch::weights::IdfTable;
use crate::window::{Window, WindowSettings};
use std::fs::File;
use std::path::{Path, PathBuf};

/// Checks, before any input is read, that a state can be saved at `path`: a save creates a
/// temporary file beside it, so one is created and removed now. A run that would fail only
/// at its end, after all its work, fails at once instead.
pub(crate) fn check_writable(path: &Path) -> Result<()> {
    let (dir, _) = temporary_path(path)?;
    crate::temporary::beside(path)
        .and_then(|(_, tmp)| std::fs::remove_file(tmp))
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

/// Saves the state at `path`, recording the run's [`settings`]: as an index directory
/// ([`index`]: only what changed since the last save is written), made if missing. A state
/// file of an earlier version at `path` becomes an index directory there (the note returned says so);
/// a crash while converting leaves the file (moved to `.FILE.old` until the directory is in
/// place), which [`load`] then reads.
pub fn save(
    path: &Path,
    settings: &str,
    window: &mut Window,
    (lines, written): (u64, u64),
    idf: Option<&IdfTable>,
    pending: &[u8],
) -> Result<Option<Note>> {
    let progress = index::Progress {
        settings,
        lines,
        written,
        idf,
        pending,
    };
    let old = old_file(path)?;
    let Some(old) = old else {
        return index::save(path, window, &progress).map(|()| None);
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
    Ok(Some(Note::info(format!(
        "{}: the state file is now an index directory (version {})",
        path.display(),
        index::VERSION
    ))))
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
pub(crate) fn open_to_read(
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
            index::open(path, &expected, config, window, writable)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::file::save_file;
    use super::*;
    use crate::config::{Settings, SketchSettings, VerifySettings};
    use crate::input::DocId;
    use crate::window::Entry;

    const SHINGLING: &str = "words:5 seed:1 lowercase:true";

    const FILTER: Job = Job::Filter(crate::job::FilterJob {
        output: crate::job::Output::DropDups,
        against: crate::job::Reference {
            files: Vec::new(),
            only: false,
        },
        state: None,
        report: None,
    });

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
            sketch: SketchSettings {
                num_perm: 64,
                ..SketchSettings::default()
            },
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
            verify: VerifySettings {
                threshold: 0.5,
                ..VerifySettings::default()
            },
            sketch: SketchSettings {
                bands: Some(Config::default().sketch.lsh.bands),
                rows: Some(Config::default().sketch.lsh.rows),
                ..SketchSettings::default()
            },
            ..Config::default()
        }
        .validate()
        .expect("valid");
        assert!(load(&path, &t, &FILTER, SHINGLING, WindowSettings::default()).is_ok());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
