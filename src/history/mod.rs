//! The audit of history: every version of every spec and experiment file in a repository's
//! history. [`git`] reads the repository.

pub mod git;

#[cfg(test)]
mod fixture;
