//! The main crate's hand-over queue, compiled on its own so that `--cfg loom` swaps its
//! `Mutex` and `Condvar` for loom's without rebuilding the linter's dependencies.

#[path = "../src/handoff.rs"]
pub mod handoff;
