//! How a document's text becomes shingles: normalisation and tokenising ([`normalize`], with
//! what a word is in each script: `words`), then the shingles as 64-bit hashes ([`shingle`]).
//! The next stage, [`crate::sketch`], turns the shingles into a signature.

pub mod normalize;
pub mod settings;
pub mod shingle;
pub(crate) mod words;
