//! The harness every test binary shares: running the built binary under a watchdog ([`run`]),
//! temporary project trees ([`tree`]) and the reference spec with its patches ([`spec`]).
//!
//! A test binary includes it with `mod common;` (or, from a folder such as `tests/cli/`,
//! `#[path = "../common/mod.rs"] mod common;`) and uses what it needs.
#![allow(dead_code, unused_imports)]

pub mod run;
pub mod spec;
pub mod tree;

pub use run::{
    forgelint, run_full, run_in, run_within, scrub_time, without_skip_notes, Extra, Finding, Input,
    Run, BIN,
};
pub use spec::{manifest_dir, patch, patch_first, reference, sarif_validator, FORMATS};
pub use tree::Tree;
