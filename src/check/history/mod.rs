//! `forgelint history [REV-RANGE]... [-- PATHS]`: every version of every spec and experiment
//! file in the range's history linted once (by [`crate::history::walk`]), each finding
//! reported once with the commit that introduced it and the commit that removed it, through
//! the same collection, reports and exit status as `check`.
//!
//! What a version is linted with: the rules of its nearest config in the work tree (today's
//! rules: an audit asks what they find in the past), and its commit's tree as its project (the
//! experiment folder a spec names, that folder's config, the spec that names an experiment).
//! Which files are linted is decided as the walk of `check` decides, by `[files]`: specs by
//! `include` and `exclude`, experiment files by the `experiments` folders.

mod place;
mod sources;
mod tree_project;
pub(super) mod versions;

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::finish;
use super::lint::Linted;
use super::plan::{HistoryOptions, Plan};
use crate::collect::Spool;
use crate::config::ConfigTree;
use crate::diagnostic::Finding;
use crate::env::{Env, ExitStatus};
use crate::error::Error;
use crate::escape::visible;
use crate::history::git::{GitError, Range, Repo};
use crate::history::ledger::Record;
use crate::history::walk::{self, Notes};
use crate::report::{self, HistoryRead};

pub use place::Place;

pub fn history(options: HistoryOptions, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let started = Instant::now();
    let cwd = env.cwd.clone();
    let HistoryOptions {
        revs,
        all,
        pathspecs,
        options,
    } = options;
    let configs = ConfigTree::new(&options.config, &cwd)?;
    let plan = Plan::new(&options, &configs, &cwd)?;
    let repo = Repo::open(&cwd).map_err(git_error)?;
    let top = repo.top_level().map_err(git_error)?;
    let place = Place::new(&cwd, top.as_deref());
    let mut linter = versions::VersionLinter::new(&plan, &place);
    let range = Range { revs, all };
    let audit = walk::audit(&repo, &range, &pathspecs, &mut linter).map_err(git_error)?;
    if let Some(error) = configs.take_errors().into_iter().next() {
        return Err(error);
    }
    if !options.quiet {
        say_notes(&audit.notes, &place, env);
    }
    // Built from every rule of the run's configs with `mask = true`, selected or not.
    let detector = crate::rules::secret_detector(
        plan.profiles
            .iter()
            .flat_map(|p| p.settings.rules.rules.iter()),
    );
    let spool = Spool::new();
    for record in audit.records {
        let mut one = vec![reported(record)];
        detector.mask_findings(&mut one);
        spool.keep(one);
    }
    let findings = spool.finish().map_err(|source| Error::Write {
        path: "a temporary file of findings".into(),
        source,
    })?;
    let read = history_read(&audit.notes, &place);
    let linted = Linted {
        findings,
        files: read.versions,
        tool_error: linter.crashed,
        stdin_source: None,
        binary_files: plan
            .profiles
            .iter()
            .map(|p| p.experiments.counts.binary.load(Ordering::Relaxed))
            .sum(),
        fixes_applied: 0,
        diffs: Vec::new(),
        stdin_fixed: None,
        history: Some(read),
        new_from_rev: None,
        detector: detector.clone(),
    };
    let sources = sources::VersionSources::new(repo.objects().map_err(git_error)?, detector);
    finish::finish_from(plan, linted, started, Some(&sources), env)
}

/// A ledger's record as a finding of the report: its commits, no fix (history is never
/// written), and for a secret no file holds any more, what to do about the copies every clone
/// keeps.
fn reported(record: Record<Finding>) -> Finding {
    let mut finding = record.finding;
    // A fix edits a file as it is: `forgelint check --fix` makes those still at the tip.
    finding.fix = None;
    if let Some(history) = finding.history.as_mut() {
        history.introduced = record.introduced;
        history.removed = record.removed;
        if finding.secret && history.removed.is_some() {
            finding.help = Some(report::history::REVOKE.to_string());
        }
    }
    finding
}

/// What the audit read, for the summary: paths shown as findings name files.
fn history_read(notes: &Notes, place: &Place) -> HistoryRead {
    HistoryRead {
        commits: notes.commits,
        versions: notes.versions,
        shallow: notes.shallow.iter().map(|s| s.commit.clone()).collect(),
        submodules: notes
            .submodules
            .iter()
            .map(|p| place.shown(p).to_string())
            .collect(),
        lfs: notes
            .lfs
            .iter()
            .map(|p| place.shown(p).to_string())
            .collect(),
    }
}

/// Paths named in a note, at most this many (the summary of `json` lists them all).
const NAMED: usize = 5;

/// The notes of a history on standard error: where it stops, what was skipped, what git said.
fn say_notes(notes: &Notes, place: &Place, env: &mut Env<'_>) {
    let named = |paths: &std::collections::BTreeSet<String>| -> String {
        let mut shown: Vec<String> = paths
            .iter()
            .take(NAMED)
            .map(|p| visible(&place.shown(p)).into_owned())
            .collect();
        if paths.len() > NAMED {
            shown.push(format!("… {} more", paths.len() - NAMED));
        }
        shown.join(", ")
    };
    for stop in &notes.shallow {
        writeln!(
            env.stderr,
            "note: history stops at {} ({}): this clone is shallow, so what that commit holds is reported as introduced there or before; `git fetch --unshallow` (or `fetch-depth: 0` in actions/checkout) reads the rest",
            visible(stop.short()),
            visible(stop.day())
        )
        .ok();
    }
    let skipped = [
        (
            &notes.submodules,
            "submodule",
            "",
            "a submodule's history is another repository's (run forgelint history there)",
        ),
        (
            &notes.lfs,
            "file",
            " stored as Git LFS pointers",
            "their content is not in git",
        ),
    ];
    for (paths, what, how, why) in skipped.into_iter().filter(|s| !s.0.is_empty()) {
        let count = report::plural(paths.len(), what);
        writeln!(
            env.stderr,
            "note: skipped {count}{how}: {why}: {}",
            named(paths)
        )
        .ok();
    }
    for line in notes.warnings.lines().filter(|l| !l.trim().is_empty()) {
        writeln!(env.stderr, "warning: git: {}", visible(line)).ok();
    }
}

/// A failure to read git, as the run's error (exit 2).
pub fn git_error(e: GitError) -> Error {
    let help = match &e {
        GitError::NoGit(_) | GitError::TooOld { .. } => {
            Some("install git 2.31 or newer and put it on PATH".to_string())
        }
        GitError::NotARepository { .. } => {
            Some("run forgelint history in a git work tree or a bare repository".to_string())
        }
        _ => None,
    };
    Error::Git {
        message: e.to_string(),
        help,
    }
}
