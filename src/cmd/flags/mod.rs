//! The flags every command shares: what a flag is ([`flag`]), each one's definition
//! ([`defs`]), and parsing a command line with the flags a command does not use refused
//! ([`parse`]). ripgrep's `flags/` is the model.

pub mod defs;
pub mod flag;
mod parse;

pub use parse::parse;
