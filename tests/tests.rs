//! Integration tests: they run the real `neardup` binary.

mod util;

mod accuracy;
mod against;
mod bad_input;
mod clobber;
mod columnar;
mod components;
mod compressed;
mod deduper;
mod docs;
mod faults;
mod filter;
mod front_door;
mod graph;
mod keep;
mod languages;
mod limits;
mod memory;
mod modes;
mod mutation;
mod real_inputs;
mod report;
mod state;
mod unix;
mod weights;
