//! Integration tests: they run the real `neardup` binary.

mod util;

mod accuracy;
mod bad_input;
mod docs;
mod graph;
mod modes;
mod unix;
mod weights;
