//! The flags every command shares: what a flag is ([`flag`]), each one's definition
//! ([`defs`]), its man page entry and README row made from it ([`man`], [`readme`]),
//! parsing a command line with the flags a command does not use refused ([`parse`]), and
//! reading them from keywords instead (the Python API, [`keywords`]), and the typed values
//! both give ([`shared`]). ripgrep's `flags/` is the model.

pub mod defs;
pub mod flag;
pub mod keywords;
#[cfg(feature = "cli")]
pub mod man;
#[cfg(feature = "cli")]
mod parse;
#[cfg(feature = "cli")]
pub mod readme;
pub mod shared;

#[cfg(feature = "cli")]
pub use parse::parse;
