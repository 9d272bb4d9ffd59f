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

pub mod atomic_write;
pub mod baseline;
pub mod cases;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod collect;
pub mod commands;
pub mod config;
pub mod configs;
pub mod diagnostic;
pub mod discover;
pub mod engine;
pub mod error;
pub mod escape;
pub mod experiment;
pub mod fix;
pub mod formats;
pub mod handoff;
pub mod history;
pub mod json;
pub mod lsp;
pub mod merge;
pub mod paths;
pub mod platform;
pub mod process;
pub mod project;
pub mod read;
pub mod report;
pub mod ruledoc;
pub mod rules;
pub mod schema;
pub mod select;
pub mod shard;
pub mod source;
pub mod text;

use check::check;
pub use check::load_settings;
use cli::{Cli, Command};
pub use error::Error;
pub use process::{Env, ExitStatus};

pub fn run(cli: Cli, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    match cli.command {
        Some(Command::Check(args)) => check(*args, env),
        Some(Command::Rules(args)) => commands::rules(args, env),
        Some(Command::Explain(args)) => commands::explain(args, env),
        Some(Command::TestRules(args)) => commands::test_rules(args, env),
        Some(Command::Init) => commands::init(env),
        Some(Command::Completions(args)) => commands::completions(args, env),
        Some(Command::Schema(args)) => schema::command(args, env),
        Some(Command::Lsp(args)) => lsp::run(args, env),
        Some(Command::Merge(args)) => merge::merge(args, env),
        None => check(cli.check, env),
    }
}
