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

pub(crate) mod atomic_write;
pub(crate) mod baseline;
pub mod case_runner;
pub mod catalog;
pub(crate) mod check;
pub mod cli;
pub(crate) mod collect;
pub(crate) mod commands;
pub mod config;
pub mod diagnostic;
pub mod discover;
pub mod engine;
pub(crate) mod env;
pub(crate) mod error;
pub mod escape;
pub mod experiment;
pub mod fix;
pub mod formats;
pub(crate) mod gitconfig;
pub(crate) mod handoff;
pub mod history;
pub mod json;
pub(crate) mod lsp;
pub(crate) mod merge;
pub(crate) mod paths;
pub mod platform_facts;
pub mod project;
pub mod read;
pub(crate) mod recent;
pub(crate) mod report;
pub mod ruledoc;
pub mod rules;
pub mod schema;
pub mod scratch;
pub mod secrets;
pub mod select;
pub(crate) mod shard;
pub mod text;

use check::check;
use cli::{Cli, Command};
pub use env::{Env, ExitStatus};
pub use error::Error;

pub fn run(cli: Cli, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    // An error can quote a config or rule file (its frame, a parser's message): it leaves with
    // the secrets the built-in rules find masked, as every excerpt of a file is.
    dispatch(cli, env).map_err(|e| e.masked(&rules::secret_detector([])))
}

fn dispatch(cli: Cli, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    match cli.command {
        Some(Command::Check(args)) => check(check::Options::from_args(*args, env)?, env),
        Some(Command::Rules(args)) => quiet_on_closed_pipe(commands::rules(args, env)),
        Some(Command::Explain(args)) => quiet_on_closed_pipe(commands::explain(args, env)),
        Some(Command::TestRules(args)) => commands::test_rules(args, env),
        Some(Command::Init) => commands::init(env),
        Some(Command::Completions(args)) => quiet_on_closed_pipe(commands::completions(args, env)),
        Some(Command::Schema(args)) => quiet_on_closed_pipe(commands::schema(args, env)),
        // `--stdio` is the only transport: accepted, nothing to decide.
        Some(Command::Lsp(_)) => lsp::run(env),
        Some(Command::Merge(args)) => commands::merge(args, env),
        Some(Command::History(args)) => {
            check::history(check::HistoryOptions::from_args(*args, env)?, env)
        }
        None => check(check::Options::from_args(cli.check, env)?, env),
    }
}

/// A listing whose reader closed standard output early (`forgelint rules | head`) ends quietly:
/// it was read as far as it was wanted.
fn quiet_on_closed_pipe(result: Result<ExitStatus, Error>) -> Result<ExitStatus, Error> {
    match result {
        Err(Error::Write { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(ExitStatus::Success)
        }
        other => other,
    }
}
