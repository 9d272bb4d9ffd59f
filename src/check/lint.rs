//! The lint run: the plan's paths walked, every file read, parsed once and linted on the
//! worker threads, and the findings collected. Files are linted as they are found and only
//! findings are kept, so memory does not grow with the number of clean files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use rayon::prelude::*;

use super::plan::Plan;
use super::walked::WalkedFolders;
use crate::discover::{self, Candidate};
use crate::env::Env;
use crate::error::Error;
use crate::fix::write::{file_key, FileKey};
use crate::project::{mentions_starforge, DirCache};
use crate::scratch::Scratch;
use crate::{escape, handoff};

mod collector;
mod file;
mod stdin;

pub use collector::Linted;
use collector::{Collector, FileOutcome};
use file::named_experiment_files;
use stdin::{lint_stdin, Stdin};

/// What every file's lint shares.
struct LintRun<'p, 's> {
    plan: &'p Plan<'s>,
    cwd: &'p Path,
    dir_cache: DirCache,
    cwd_mentions_starforge: bool,
    /// The experiment directories linted so far with a spec that names them: each once.
    claimed: Mutex<HashSet<PathBuf>>,
    /// The folders walked, absolute: an experiment directory under one, matching
    /// `[files] experiments`, is linted by the walk.
    walked: WalkedFolders,
    /// The experiment files named on the command line, absolute: linted as named, never again
    /// as part of an experiment a spec names.
    named: HashSet<PathBuf>,
    /// `--fix`: the files being fixed, each once whatever the paths that name it.
    fixing: Mutex<HashSet<FileKey>>,
    /// No finding's value hash is read: the run neither fixes (a fix tells a removed value
    /// from the next by it) nor compares with another run (a baseline, `--new-from-rev`).
    hashes_unread: bool,
}

/// Lints everything the plan names: the walked folders and named files in parallel (a few
/// named files and no folder on the calling thread), then the spec on standard input.
pub fn run(plan: &Plan<'_>, env: &mut Env<'_>) -> Result<Linted, Error> {
    let cwd = env.cwd.clone();
    // A finding's value hash is part of its identity across runs: a baseline's entries and
    // `--new-from-rev`'s comparison with the past read it; a report does not. (A fix reads the
    // hashes of its own file's findings: see `hashes_unread`.)
    let keeps_hashes = plan.baseline.is_some()
        || plan.options.write_baseline.is_some()
        || plan.options.new_from_rev.is_some();
    let linter = LintRun {
        plan,
        cwd: &cwd,
        dir_cache: DirCache::default(),
        cwd_mentions_starforge: mentions_starforge(&env.cwd),
        claimed: Mutex::new(HashSet::new()),
        walked: WalkedFolders::new(
            plan.options
                .paths
                .iter()
                .filter(|p| cwd.join(p).is_dir())
                .map(|p| crate::paths::normalize(p, &cwd))
                .collect(),
        ),
        named: named_experiment_files(plan, &cwd),
        fixing: Mutex::new(HashSet::new()),
        hashes_unread: !keeps_hashes && plan.options.fix.is_none(),
    };
    // Built from every rule of the run's configs with `mask = true`, selected or not.
    let detector = crate::rules::secret_detector(
        plan.profiles
            .iter()
            .flat_map(|p| p.settings.rules.rules.iter()),
    );
    let collector = Collector::new(detector, keeps_hashes);
    let serial = linter.walked.is_empty() && plan.options.paths.len() <= SERIAL_FILES;
    let discovery = if serial {
        find_named(&linter, &collector)
    } else {
        walk_and_lint(&linter, &collector)?
    };
    // Files named on the command line (a pre-commit batch): in parallel too, unless they are
    // few. A file named twice (a link and its target) is fixed once, as the first name names it.
    let named = once_per_file(
        discovery
            .files
            .iter()
            .filter(|candidate| linter.owns(&candidate.path))
            .collect(),
        plan.options.fix.is_some_and(|m| m.write),
    );
    let lint_named = |scratch: &mut Scratch, candidate: &&Candidate| {
        collector.files.fetch_add(1, Ordering::Relaxed);
        collector.keep(linter.contained(candidate, scratch))
    };
    if serial {
        let mut scratch = linter.scratch();
        named
            .iter()
            .for_each(|candidate| lint_named(&mut scratch, candidate));
    } else {
        plan.pool()?.install(|| {
            named
                .par_iter()
                .for_each_init(|| linter.scratch(), lint_named)
        });
    }
    if let Some(error) = plan.profiles.configs().take_errors().into_iter().next() {
        return Err(error);
    }
    for warning in &discovery.warnings {
        writeln!(env.stderr, "warning: {}", escape::visible(warning)).ok();
    }
    for (path, why) in &discovery.missing {
        let path = escape::visible(&path.display().to_string()).into_owned();
        writeln!(env.stderr, "error: {path}: {why}").ok();
    }
    let stdin = match &plan.options.stdin_name {
        Some(name) => lint_stdin(&linter, name, env, &collector)?,
        None => Stdin::default(),
    };
    let mut linted = collector.finish(!discovery.missing.is_empty())?;
    linted.binary_files = binary_files(plan);
    linted.files += plan
        .profiles
        .iter()
        .map(|p| p.experiments.counts.files.load(Ordering::Relaxed))
        .sum::<usize>();
    linted.stdin_source = stdin.source;
    linted.stdin_fixed = stdin.fixed;
    Ok(linted)
}

impl LintRun<'_, '_> {
    /// A worker's scratch for this run.
    fn scratch(&self) -> Scratch {
        let mut scratch = Scratch::default();
        scratch.lint.skip_value_hashes = self.hashes_unread;
        scratch
    }
}

/// `candidates` with each file once, by the first path that names it, when `fixing`.
fn once_per_file(candidates: Vec<&Candidate>, fixing: bool) -> Vec<&Candidate> {
    if !fixing || candidates.len() < 2 {
        return candidates;
    }
    let mut seen = HashSet::new();
    candidates
        .into_iter()
        .filter(|c| file_key(&c.path).map_or(true, |key| seen.insert(key)))
        .collect()
}

/// Experiment files skipped as binary, over every config.
fn binary_files(plan: &Plan<'_>) -> usize {
    plan.profiles
        .iter()
        .map(|p| p.experiments.counts.binary.load(Ordering::Relaxed))
        .sum()
}

/// The options of a walk with the run's configs.
fn walk_options<'a>(plan: &'a Plan<'_>, cwd: &'a Path, threads: usize) -> discover::Options<'a> {
    discover::Options {
        settings: plan.profiles.configs(),
        no_ignore: plan.options.no_ignore,
        threads,
        cwd,
        discovered_only: plan.options.discovered_only,
    }
}

/// At most this many files named, and no folder: the run lints them on the calling thread.
/// Starting the walker and two workers cost more than linting a commit's few files (a
/// pre-commit hook names them): 20 specs took 8.8 ms of CPU (9.3 ms wall) on one thread and
/// 11.6 ms (10.7 ms wall) with the threads. A spec's experiment folder is linted with it, so
/// many specs named go to the workers still.
const SERIAL_FILES: usize = 16;

/// The files the plan names, when it names no folder: nothing to walk, so no walker thread.
/// (A path that has become a folder since is walked here all the same, on this thread.)
fn find_named(linter: &LintRun<'_, '_>, collector: &Collector) -> discover::Discovery {
    let plan = linter.plan;
    let options = walk_options(plan, linter.cwd, 1);
    let scratch = Mutex::new(linter.scratch());
    discover::discover_each(&plan.options.paths, &options, &|batch| {
        let mut scratch = scratch.lock().unwrap_or_else(|e| e.into_inner());
        lint_batch(linter, collector, &batch, &mut scratch);
    })
}

/// Lints a batch of the walk and keeps what it found, counted and kept per batch: one shared
/// counter bumped per file would bounce between the workers, and one lock serves the batch's
/// findings.
fn lint_batch(
    linter: &LintRun<'_, '_>,
    collector: &Collector,
    batch: &[Candidate],
    scratch: &mut Scratch,
) {
    let owned = batch.iter().filter(|c| linter.owns(&c.path)).count();
    collector.files.fetch_add(owned, Ordering::Relaxed);
    let mut outcome = FileOutcome::default();
    let mut gathered = crate::collect::Gathered::default();
    for candidate in batch.iter().filter(|c| linter.owns(&c.path)) {
        let one = linter.contained(candidate, scratch);
        outcome.tool_error |= one.tool_error;
        outcome.fixed += one.fixed;
        if one.diff.is_some() {
            collector.keep_diff(one.diff);
        }
        collector.gather_findings(&mut gathered, one.findings, &mut scratch.clean);
    }
    collector.keep(outcome);
    collector.findings.keep_gathered(gathered);
}

/// The walker finds files on its own threads and passes them through a bounded queue to the
/// worker pool, which lints them as they come: walking and linting overlap, and memory does
/// not grow with the size of the tree. Returns what the walk found besides (named files,
/// warnings, missing paths).
fn walk_and_lint(
    linter: &LintRun<'_, '_>,
    collector: &Collector,
) -> Result<discover::Discovery, Error> {
    let plan = linter.plan;
    let options = walk_options(plan, linter.cwd, plan.options.threads);
    let pool = plan.pool()?;
    let batches = handoff::Handoff::<Vec<Candidate>>::new(32);
    std::thread::scope(|scope| {
        let walker = scope.spawn(|| {
            let _closer = batches.closer();
            discover::discover_each(&plan.options.paths, &options, &|batch| {
                // Refused only once the workers are gone, and then nobody needs the batch.
                batches.push(batch);
            })
        });
        let _closer = batches.closer();
        // Every worker takes batches from the queue itself. Behind `par_bridge` they would
        // share one lock around the queue, and a worker whose take wakes the walker can be
        // switched out for the walker while it holds that lock, leaving the other idle.
        pool.broadcast(|_| {
            // The worker's buffers and memos, for this run only.
            let mut scratch = linter.scratch();
            while let Some(batch) = batches.pop() {
                lint_batch(linter, collector, &batch, &mut scratch);
            }
        });
        walker.join()
    })
    .map_err(|_| Error::usage("the directory walk failed unexpectedly (this is a bug)"))
}
