//! forgelint: a static policy linter for forge/v2 job specifications.
//!
//! The pipeline: config and rules compiled once ([`config`], [`rules`]) → files discovered
//! ([`discover`]) → each file read ([`read`]), parsed once and linted in parallel ([`engine`])
//! → findings collected and sorted → one reporter writes them ([`report`]). [`check`] runs it
//! in three steps: plan, lint, finish.

// Config and rule-file errors carry their file's text for the report; they happen once, before
// any spec is read, so their size does not matter.
#![allow(clippy::result_large_err)]
// Output goes through the `Env` streams (tests run in-process), never straight to the terminal.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod baseline;
pub mod cases;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod diagnostic;
pub mod discover;
pub mod engine;
pub mod error;
pub mod escape;
pub mod handoff;
pub mod json;
pub mod output;
pub mod paths;
pub mod project;
pub mod read;
pub mod report;
pub mod rules;
pub mod select;
pub mod source;

use std::io::{Read, Write};
use std::path::PathBuf;

use check::check;
pub use check::load_settings;
use cli::{Cli, Command};
pub use error::Error;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// No finding at or above `--fail-on`.
    Success = 0,
    /// Findings at or above `--fail-on`.
    Failure = 1,
    /// The tool could not do its job.
    Error = 2,
}

/// The process's surroundings, injectable so tests run in-process.
pub struct Env<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    pub stdin: &'a mut dyn Read,
    pub stdout_is_terminal: bool,
    /// `NO_COLOR` is set (to anything non-empty).
    pub no_color: bool,
    pub cwd: PathBuf,
    /// Terminal width for code frames.
    pub width: usize,
}

pub fn run(cli: Cli, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    match cli.command {
        Some(Command::Check(args)) => check(args, env),
        Some(Command::Rules(args)) => commands::rules(args, env),
        Some(Command::Explain(args)) => commands::explain(args, env),
        Some(Command::TestRules(args)) => commands::test_rules(args, env),
        Some(Command::Init) => commands::init(env),
        Some(Command::Completions(args)) => commands::completions(args, env),
        None => check(cli.check, env),
    }
}
