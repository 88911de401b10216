//! What a run needs before anything is signed: the window saved by `--state`, and the
//! frozen IDF table of `--weights tfidf`.

use crate::config::{Config, Weights};
use crate::error::{Error, Result};
use crate::input::Input;
use crate::weights::IdfTable;
use std::sync::Arc;

/// `--state`: loads the saved window (if the file exists) and the IDF table saved with it,
/// then freezes the IDF table as [`with_idf`] does. A table given with `--idf` must equal
/// the saved one; `--idf-warmup` is skipped when the state brings a table.
pub(super) fn resume(
    config: &Config,
    inputs: Vec<Input>,
) -> Result<(Config, Vec<Input>, Option<crate::state::Saved>)> {
    let Some(path) = &config.state else {
        let (config, inputs) = with_idf(config, inputs)?;
        return Ok((config, inputs, None));
    };
    let mut saved = crate::state::load(path, config)?;
    let mut config = config.clone();
    if let Some(table) = saved.as_mut().and_then(|s| s.idf.take()) {
        if let Some(idf_path) = &config.idf_path
            && IdfTable::load(idf_path, &config)? != table
        {
            return Err(Error::config(
                "--idf",
                format!(
                    "{} differs from the IDF table saved in {}",
                    idf_path.display(),
                    path.display()
                ),
            ));
        }
        config.idf = Some(Arc::new(table));
    }
    let (config, inputs) = with_idf(&config, inputs)?;
    Ok((config, inputs, saved))
}

/// Freezes the IDF table of `--weights tfidf` before anything is signed: loaded from
/// `--idf`, or learned from the first `--idf-warmup` lines (which are then replayed).
pub fn with_idf(config: &Config, inputs: Vec<Input>) -> Result<(Config, Vec<Input>)> {
    let mut config = config.clone();
    let mut inputs = inputs;
    if config.weights == Weights::TfIdf && config.idf.is_none() {
        let table = match &config.idf_path {
            Some(path) => IdfTable::load(path, &config)?,
            None => {
                let (table, replay) = crate::weights::warmup(&config, inputs, config.idf_warmup)?;
                inputs = replay;
                table
            }
        };
        config.idf = Some(Arc::new(table));
    }
    Ok((config, inputs))
}
