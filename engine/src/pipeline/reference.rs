//! `--against`: the reference documents an input is filtered against, loaded into a window
//! of their own before the input is read. Corpus files (any input format, compressed or not)
//! go through the pipeline and are signed as the input will be; saved `--state` files
//! (recognised by their first bytes) and index directories are loaded as they were saved,
//! and their settings must match the run's. An index directory given alone is the
//! reference window itself, opened read-only: its tables are read, its records stay on disk,
//! nothing is re-signed, and any number of runs can share it. The window is unbounded and never changes afterwards: nothing is evicted
//! from it, nothing of the input enters it, and the files are only read.

use super::prepare::Prepared;
use crate::config::{Config, MemorySettings, RunSettings};
use crate::error::{Error, Result};
use crate::input::Input;
use crate::job::{Job, Reference};
use crate::window::Window;
use std::io::Read;
use std::path::Path;

/// Loads every file of `files` into one window, in the order given, with the settings of
/// `prepared` (whose IDF table, if any, is frozen). Corpus files are signed by `sign`,
/// which runs the pipeline with the reference's settings over inputs and gives back its
/// window (the caller, which owns the pipeline, hands it over). Bad lines of corpus files
/// are reported and skipped (or fatal with `--on-bad-line fail`).
pub(super) fn load(
    prepared: &Prepared,
    files: &Reference,
    sign: impl FnOnce(&Prepared, Vec<Input>) -> Result<Window>,
) -> Result<Window> {
    let mut states = Vec::new();
    let mut corpora = Vec::new();
    for path in &files.files {
        if path.as_os_str() != "-" && is_state_file(path)? {
            states.push(path.clone());
        } else {
            corpora.push(path.clone());
        }
    }
    let reference = prepared_for(prepared, corpora)?;
    let config = &reference.config;
    let mut window = if config.inputs.is_empty() {
        empty_window(&reference)
    } else {
        let inputs = Input::open_all(&config.inputs, config.read.decompress)?;
        sign(&reference, inputs)?
    };
    // Saved documents follow the corpus ones, numbered on (only the order of their numbers
    // is used, to break ties between equally similar matches).
    let mut seq = window.newest_seq();
    let alone = states.len() == 1 && reference.config.inputs.is_empty();
    for path in states {
        let saved = crate::state::open_to_read(
            &path,
            &reference.config,
            &Job::Reference,
            &reference.shingling(),
            super::prepare::window_settings(&reference.config, &Job::Reference),
        )
        .map_err(against)?
        .ok_or_else(|| {
            let missing = std::io::ErrorKind::NotFound.into();
            Error::io(format!("opening {}", path.display()), missing)
        })?;
        let same_idf = match (&saved.idf, &reference.idf) {
            (None, None) => true,
            (Some(saved), Some(run)) => saved == run.as_ref(),
            _ => false,
        };
        if !same_idf {
            return Err(Error::config(
                "against",
                format!(
                    "{}: its IDF table differs from this run's (give the same ‹idf› file)",
                    path.display()
                ),
            ));
        }
        if alone {
            return Ok(saved.window);
        }
        let spill = |e| Error::spill(e, 0);
        for (_, entry) in saved.window.into_entries().map_err(spill)? {
            seq += 1;
            window.insert(seq, entry).map_err(spill)?;
        }
    }
    Ok(window)
}

/// The reference as a run of its own ([`Job::Reference`]) over `corpora`, with the run's
/// text and sketch settings (and its frozen IDF table) and none of its state or output.
/// The in-process filter's reference texts use it with no corpora.
pub(super) fn prepared_for(
    prepared: &Prepared,
    corpora: Vec<std::path::PathBuf>,
) -> Result<Prepared> {
    Ok(Prepared {
        config: Config {
            inputs: corpora,
            window: 0,
            // The reference is never evicted: its records spill, but no budget limits it.
            memory: MemorySettings {
                max_memory: 0,
                ..prepared.config.memory.clone()
            },
            // No output of its own.
            run: RunSettings::default(),
            progress: false,
            ..prepared.config.clone().into_config()
        }
        .validate()?,
        ..prepared.clone()
    })
}

/// The empty reference window of `reference` ([`prepared_for`]).
pub(super) fn empty_window(reference: &Prepared) -> Window {
    Window::with_settings(super::prepare::window_settings(
        &reference.config,
        &Job::Reference,
    ))
}

/// True when `path` starts as a `--state` file does, or is an index directory.
fn is_state_file(path: &Path) -> Result<bool> {
    if path.is_dir() {
        return Ok(true);
    }
    let name = path.display();
    let file = std::fs::File::open(path).map_err(|e| Error::io(format!("opening {name}"), e))?;
    let mut head = Vec::with_capacity(8);
    file.take(8)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(format!("reading {name}"), e))?;
    Ok(crate::state::has_magic(&head))
}

/// A state file's complaint names the flag that gave the file.
fn against(e: Error) -> Error {
    match e {
        Error::Config {
            setting: "state",
            message,
        } => Error::config("against", message),
        other => other,
    }
}
