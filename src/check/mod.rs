//! `forgelint check` in three steps: the [`plan`] made once from the resolved [`Options`], the
//! [`lint`] run that turns it into findings, and the [`finish`] that reports them and decides
//! the exit status.

mod finish;
mod fixing;
mod history;
mod in_memory;
mod lint;
mod plan;
mod profiles;
mod since;
mod skipped;
mod walked;

use std::time::Instant;

pub use history::history;
pub use in_memory::{lint_experiment_text, lint_spec_text};
pub use plan::{HistoryOptions, Options};

use crate::env::{Env, ExitStatus};
use crate::error::Error;

pub fn check(options: Options, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let started = Instant::now();
    let cwd = env.cwd.clone();
    let configs = crate::config::ConfigTree::new(&options.config, &cwd)?;
    let plan = plan::Plan::new(&options, &configs, &cwd)?;
    let mut linted = lint::run(&plan, env)?;
    if let Some(rev) = &options.new_from_rev {
        linted.new_from_rev = Some(since::hide_known(&plan, &mut linted, rev, &cwd)?);
    }
    let status = finish::finish(plan, linted, started, env);
    // The process ends after a check: freeing every compiled rule would cost a tenth of a
    // one-file run, for nothing.
    std::mem::forget(configs);
    status
}
