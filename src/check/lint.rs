//! The lint run: the plan's paths walked, every file read, parsed once and linted on the
//! worker threads, and the findings collected. Files are linted as they are found and only
//! findings are kept, so memory does not grow with the number of clean files.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::fixing::FixTarget;
use super::plan::Plan;
use super::profiles::Profile;
use super::walked::WalkedFolders;
use crate::diagnostic::{Finding, INVALID_JSON};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;

use crate::discover::WalkMemo;
use crate::discover::{self, Candidate, Kind};
use crate::engine::{self, ExperimentLookup, ExperimentToLint, FileName, LintInput, SpecInput};
use crate::env::Env;
use crate::error::Error;
use crate::fix::write::{file_key, FileKey, ReadState};
use crate::project::{mentions_starforge, DirCache, DirMemo, RealProject};
use crate::read::MAX_FILE_SIZE;
use crate::recent::Recent;
use crate::scratch::{LintScratch, Scratch};
use crate::secrets::Detector;
use crate::{escape, handoff};

/// What the lint run found.
pub struct Linted {
    /// Sorted; held in memory or spilled to disk.
    pub findings: crate::collect::Collected,
    pub files: usize,
    /// A file named on the command line could not be read, or linting one crashed: exit 2.
    pub tool_error: bool,
    /// The spec read from standard input, by its reported name, for code frames.
    pub stdin_source: Option<(Arc<str>, Arc<str>)>,
    /// Experiment files skipped as binary (or not UTF-8).
    pub binary_files: usize,
    /// Fixes applied (`--fix`), or that would be (`--diff`).
    pub fixes_applied: usize,
    /// `--diff`: each changed file's diff, by path.
    pub diffs: Vec<(Arc<str>, String)>,
    /// `--fix` on standard input: the fixed spec (the spec as read when nothing applied).
    pub stdin_fixed: Option<String>,
    /// A history audit: what it read of git.
    pub history: Option<crate::report::HistoryRead>,
    /// `--new-from-rev`: the findings hidden because the files had them at the revision.
    pub new_from_rev: Option<crate::report::SinceRev>,
    /// The secret detector of the run's rules: code frames mask what it finds.
    pub detector: Detector,
}

#[derive(Default)]
struct FileOutcome {
    findings: Vec<Finding>,
    /// An explicitly named file that could not be read: exit 2.
    tool_error: bool,
    /// Fixes applied to the file (`--fix`), or that would be (`--diff`).
    fixed: usize,
    /// `--diff`: what fixing the file would change.
    diff: Option<(Arc<str>, String)>,
}

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
}

/// Lints everything the plan names: the walked folders and named files in parallel (a few
/// named files and no folder on the calling thread), then the spec on standard input.
pub fn run(plan: &Plan<'_>, env: &mut Env<'_>) -> Result<Linted, Error> {
    let cwd = env.cwd.clone();
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
    };
    // Built from every rule of the run's configs with `mask = true`, selected or not.
    let detector = crate::rules::secret_detector(
        plan.profiles
            .iter()
            .flat_map(|p| p.settings.rules.rules.iter()),
    );
    let collector = Collector::new(detector);
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
        let mut scratch = Scratch::default();
        named
            .iter()
            .for_each(|candidate| lint_named(&mut scratch, candidate));
    } else {
        plan.pool()?
            .install(|| named.par_iter().for_each_init(Scratch::default, lint_named));
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
    let scratch = Mutex::new(Scratch::default());
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
            let mut scratch = Scratch::default();
            while let Some(batch) = batches.pop() {
                lint_batch(linter, collector, &batch, &mut scratch);
            }
        });
        walker.join()
    })
    .map_err(|_| Error::usage("the directory walk failed unexpectedly (this is a bug)"))
}

impl<'s> LintRun<'_, 's> {
    /// Lints one file; a panic while linting it is a bug, reported for that file, and the
    /// others are still linted (the run exits 2).
    fn contained(&self, candidate: &Candidate, scratch: &mut Scratch) -> FileOutcome {
        let from = self.plan.profiles.shown_from();
        engine::contain(&candidate.path, from, || self.lint_file(candidate, scratch))
            .unwrap_or_else(|crashed| FileOutcome {
                findings: vec![crashed],
                tool_error: true,
                ..FileOutcome::default()
            })
    }

    fn lint_file(&self, candidate: &Candidate, scratch: &mut Scratch) -> FileOutcome {
        // A file whose config cannot be loaded is not linted: the run stops with its error.
        let profiles = &self.plan.profiles;
        let Some(profile) = profiles.for_file(&candidate.path, &mut scratch.walk.folders) else {
            return FileOutcome {
                tool_error: true,
                ..FileOutcome::default()
            };
        };
        match &candidate.kind {
            Kind::Spec => self.lint_spec(candidate, profile, scratch),
            Kind::ExperimentFile { root } => FileOutcome {
                findings: profile.experiments.lint_named_file(
                    &candidate.path,
                    root,
                    candidate.problem.clone(),
                    scratch,
                ),
                ..FileOutcome::default()
            },
        }
    }

    fn lint_spec(
        &self,
        candidate: &Candidate,
        profile: &Profile<'s>,
        scratch: &mut Scratch,
    ) -> FileOutcome {
        let from = self.plan.profiles.shown_from();
        let display = || -> Arc<str> { crate::paths::shown(&candidate.path, from) };
        let display = FileName::lazy(&display);
        let active = profile.rules_for(&candidate.path, self.cwd);
        let file_problem = |message: String| FileOutcome {
            findings: profile
                .invalid_json
                .filter(|_| active.iter().any(|a| a.rule.id == INVALID_JSON))
                .map(|r| vec![engine::file_finding(display.get(), r, message)])
                .unwrap_or_default(),
            tool_error: candidate.explicit,
            ..FileOutcome::default()
        };
        if let Some(problem) = &candidate.problem {
            return file_problem(problem.clone());
        }
        // `--fix`: what the path names, taken before the file is read, so that the fixed copy
        // replaces that file only, as it was read.
        let fixes = self.plan.options.fix.is_some_and(|m| m.write);
        let read_state = fixes.then(|| ReadState::of(&candidate.path).ok()).flatten();
        if let Some(state) = &read_state {
            let claimed = self
                .fixing
                .lock()
                .map_or(true, |mut fixing| fixing.insert(state.file_key()));
            if !claimed {
                // Reached by another path (a link and its target): linted and fixed once.
                return FileOutcome::default();
            }
        }
        let Scratch {
            lint,
            reader,
            dirs,
            walk,
            walk_lints,
            ..
        } = scratch;
        let lint = RefCell::new(lint);
        let linted = reader.with_file_bytes(&candidate.path, |read| {
            let bytes = read.map_err(|e| file_problem(format!("cannot read the file: {e}")))?;
            let project = self.project(&candidate.path, profile, dirs);
            let input = |lint_files: bool| profile.spec_input(&active, &project, lint_files);
            let lint_spec = |bytes: &[u8], lint_files: bool| {
                engine::lint_spec(bytes, &display, &input(lint_files), &mut lint.borrow_mut())
            };
            let linted = lint_spec(bytes, true);
            let target = (candidate.path.as_path(), read_state.as_ref());
            let outcome = self.fixed(target, &display, bytes, linted.findings, &|text| {
                lint_spec(text.as_bytes(), false).findings
            });
            let experiment = linted
                .experiment
                .filter(|e| self.takes(e, walk, walk_lints));
            // The spec as read, for the rules of its experiment's files that read it.
            let spec_text = experiment
                .as_ref()
                .filter(|_| profile.experiments.reads_spec)
                .and_then(|_| crate::json::text_of(bytes))
                .map(str::to_string);
            Ok((outcome, experiment, spec_text))
        });
        // The spec's check read its experiment's config in the experiment's folder, whose
        // files the worker reads next.
        let relative_to = candidate.path.is_relative().then_some(self.cwd);
        reader.adopt_folder(&mut lint.borrow_mut().config_files.folders, relative_to);
        let (mut outcome, experiment, spec_text) = match linted {
            Ok(linted) => linted,
            Err(problem) => return problem,
        };
        if let Some(experiment) = experiment {
            let spec = SpecOfExperiment {
                text: spec_text.as_deref(),
                profile,
            };
            outcome
                .findings
                .extend(self.lint_experiment(&spec, experiment, scratch));
        }
        outcome
    }

    /// Whether the run lints the files of `found`, the experiment a spec names, with the spec:
    /// not when the walk lints that experiment itself, nor when another spec claimed it first.
    fn takes(
        &self,
        found: &ExperimentToLint,
        memo: &mut WalkMemo,
        known: &mut Recent<(PathBuf, Option<PathBuf>), bool, 8>,
    ) -> bool {
        let (dir, root) = (&found.dir.dir, found.dir.starforge_root.as_deref());
        // Compared as bytes: both come from the spec's own lookup, and a miss only asks again.
        let same = |(d, r): &(PathBuf, Option<PathBuf>)| {
            d.as_os_str() == dir.as_os_str()
                && r.as_deref().map(Path::as_os_str) == root.map(Path::as_os_str)
        };
        let walked = known.get(same).unwrap_or_else(|| {
            let walked = self.walk_lints(dir, root, memo);
            known.put((dir.to_path_buf(), root.map(Path::to_path_buf)), walked);
            walked
        });
        !walked && self.claim(dir)
    }

    /// `--fix` and `--diff` on a spec whose findings are `findings`: its fixes applied, in
    /// passes that `relint` lints again, and written to `target`. The findings as they are
    /// without them.
    fn fixed(
        &self,
        target: FixTarget<'_>,
        display: &FileName<'_>,
        bytes: &[u8],
        findings: Vec<Finding>,
        relint: &dyn Fn(&str) -> Vec<Finding>,
    ) -> FileOutcome {
        let (Some(mode), Ok(text)) = (self.plan.options.fix, std::str::from_utf8(bytes)) else {
            return FileOutcome {
                findings,
                ..FileOutcome::default()
            };
        };
        let shown = display.get();
        let fixed = super::fixing::fix_spec(Some(target), shown, text, findings, mode, relint);
        FileOutcome {
            findings: fixed.findings,
            tool_error: fixed.tool_error,
            fixed: fixed.applied,
            diff: fixed.diff.map(|d| (shown.clone(), d)),
        }
    }

    /// The project a spec at `spec` belongs to (for `spec.source.exp`), with the worker's
    /// `memo` of its directories.
    fn project<'a>(
        &'a self,
        spec: &'a Path,
        profile: &'a Profile<'_>,
        memo: &'a RefCell<DirMemo>,
    ) -> RealProject<'a> {
        RealProject {
            spec,
            memo,
            config_root: profile.config_root.as_ref(),
            cwd: self.cwd,
            cwd_mentions_starforge: self.cwd_mentions_starforge,
            cache: &self.dir_cache,
        }
    }

    /// The files of the experiment a spec names, which the run has taken ([`Self::takes`]).
    fn lint_experiment(
        &self,
        spec: &SpecOfExperiment<'_, 's>,
        found: ExperimentToLint,
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        let dir = &found.dir.dir;
        let experiments = &spec.profile.experiments;
        // Read with the spec, or else by the experiment's linter when its rules read it.
        let config = found.config.filter(|_| experiments.reads_config);
        let config_docs = config.as_ref().and_then(|c| c.parse().map(|d| (c, d)));
        // Experiment rules with a `spec` condition read the spec that names the experiment.
        let spec_doc = spec.text.and_then(|text| crate::json::parse(text).ok());
        let options = walk_options(self.plan, self.cwd, 1);
        let mut memo = WalkMemo::default();
        // Left to others: a spec inside the experiment (the walk's, or its own candidate's), a
        // file named on the command line, and the files of an experiment the walk lints (an
        // experiment `.` holds the project's `experiments/*`).
        let mut skip = |path: &Path| {
            options.wanted(path, &mut memo)
                || (!self.named.is_empty()
                    && self
                        .named
                        .contains(&crate::paths::normalize(path, self.cwd)))
                || options
                    .experiment_of(path, &mut memo)
                    .is_some_and(|root| *root != **dir && self.walk_lints(&root, None, &mut memo))
        };
        experiments.lint_dir(
            dir,
            spec_doc.as_ref(),
            config_docs.as_ref().and_then(|(c, docs)| c.first(docs)),
            &mut skip,
            scratch,
        )
    }
}

/// The spec whose experiment's files are linted: its text, when their rules read it.
struct SpecOfExperiment<'a, 's> {
    text: Option<&'a str>,
    /// The profile of the spec: its experiment is linted with it.
    profile: &'a Profile<'s>,
}

/// The files named on the command line that are linted as experiment files.
fn named_experiment_files(plan: &Plan<'_>, cwd: &Path) -> HashSet<PathBuf> {
    let options = walk_options(plan, cwd, 1);
    plan.options
        .paths
        .iter()
        .filter(|p| cwd.join(p).is_file())
        .filter(|p| {
            let kind = options.explicit_kind(p, &mut WalkMemo::default());
            matches!(kind, Kind::ExperimentFile { .. })
        })
        .map(|p| crate::paths::normalize(p, cwd))
        .collect()
}

impl LintRun<'_, '_> {
    /// Does the walk lint the experiment directory `dir` itself (it matches
    /// `[files] experiments` under a walked folder, or a walked folder is inside it: a run
    /// from inside the experiment lints the part it was asked to)? `starforge_root` is the
    /// spec's project root when the spec is in its `.starforge` folder: known to hold one,
    /// not asked again.
    fn walk_lints(&self, dir: &Path, starforge_root: Option<&Path>, memo: &mut WalkMemo) -> bool {
        if !self.walked.overlap(dir) {
            return false;
        }
        let options = walk_options(self.plan, self.cwd, 1);
        if let Some(tail) = starforge_root.and_then(|r| dir.strip_prefix(r).ok()) {
            let settings = options.settings.settings_at(dir, &mut memo.folders);
            if settings.is_some_and(|s| s.files.experiments.is_match(tail)) {
                return true;
            }
        }
        options.is_experiment_dir(dir, memo)
    }

    /// Whether `path` is in this run's part (`--shard`); always without it.
    fn owns(&self, path: &Path) -> bool {
        self.plan.options.shard.is_none_or(|shard| shard.owns(path))
    }

    /// Claims `dir` for linting: true the first time only, and only in the run's part
    /// (`--shard`; by the folder's path from the current directory), so that an experiment
    /// named by specs in two parts is linted in one.
    fn claim(&self, dir: &Path) -> bool {
        let from_cwd = dir.strip_prefix(self.cwd).unwrap_or(dir);
        if !self.owns(from_cwd) {
            return false;
        }
        self.claimed
            .lock()
            .map(|mut c| c.insert(dir.to_path_buf()))
            .unwrap_or(false)
    }
}

/// Lints the spec on standard input, reported as `name`, with the config of the folder it
/// names.
fn lint_stdin(
    linter: &LintRun<'_, '_>,
    name: &Path,
    env: &mut Env<'_>,
    collector: &Collector,
) -> Result<Stdin, Error> {
    collector.files.fetch_add(1, Ordering::Relaxed);
    let mut scratch = Scratch::default();
    let profiles = &linter.plan.profiles;
    let Some(profile) = profiles.for_file(name, &mut scratch.walk.folders) else {
        return Err(profiles
            .configs()
            .take_errors()
            .into_iter()
            .next()
            .unwrap_or_else(|| {
                Error::usage("the configuration of standard input's spec cannot be loaded")
            }));
    };
    let mut bytes = Vec::new();
    let read = env.stdin.take(MAX_FILE_SIZE + 1).read_to_end(&mut bytes);
    if let Err(e) = read {
        collector.failed.store(true, Ordering::Relaxed);
        writeln!(env.stderr, "error: cannot read standard input: {e}").ok();
        return Ok(Stdin::default());
    }
    let display: Arc<str> = crate::paths::shown(name, profiles.shown_from());
    let options = walk_options(linter.plan, linter.cwd, 1);
    // Named as a file of an experiment: linted as that file would be.
    if let Kind::ExperimentFile { root } = options.explicit_kind(name, &mut scratch.walk) {
        let findings = profile
            .experiments
            .lint_given(name, &root, &bytes, &mut scratch);
        collector.keep_findings(findings);
        return Ok(Stdin {
            source: Some((display, Arc::from(String::from_utf8_lossy(&bytes).as_ref()))),
            fixed: None,
        });
    }
    let active = profile.rules_for(name, linter.cwd);
    let project = linter.project(name, profile, &scratch.dirs);
    // A spec on standard input is linted on its own: its experiment is not read.
    let input = SpecInput {
        lint: LintInput {
            rules: &active,
            table: &profile.table,
            platform: &profile.settings.platform,
            project: &project,
        },
        experiment: ExperimentLookup::None,
    };
    let lint_scratch = RefCell::new(LintScratch::default());
    let name = FileName::ready(display.clone());
    let lint = |bytes: &[u8]| {
        engine::lint_spec(bytes, &name, &input, &mut lint_scratch.borrow_mut()).findings
    };
    let findings = lint(&bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match (linter.plan.options.fix, std::str::from_utf8(&bytes)) {
        (Some(mode), Ok(original)) => {
            let relint = |text: &str| lint(text.as_bytes());
            let fixed = super::fixing::fix_spec(None, &display, original, findings, mode, &relint);
            collector.keep_findings(fixed.findings);
            if fixed.tool_error {
                collector.failed.store(true, Ordering::Relaxed);
            }
            collector.fixed.fetch_add(fixed.applied, Ordering::Relaxed);
            collector.keep_diff(fixed.diff.map(|diff| (display.clone(), diff)));
            // The report's code frames are drawn from the text its positions are in.
            let shown = fixed.text.unwrap_or(text);
            Ok(Stdin {
                source: Some((display, Arc::from(shown.as_str()))),
                fixed: Some(shown),
            })
        }
        _ => {
            collector.keep_findings(findings);
            Ok(Stdin {
                source: Some((display, Arc::from(text.as_str()))),
                fixed: None,
            })
        }
    }
}

/// What linting standard input leaves besides findings.
#[derive(Default)]
struct Stdin {
    /// The spec by its reported name, for code frames.
    source: Option<(Arc<str>, Arc<str>)>,
    /// `--fix`: the fixed spec.
    fixed: Option<String>,
}

/// The findings of every file, gathered from the worker threads.
struct Collector {
    files: AtomicUsize,
    failed: AtomicBool,
    findings: crate::collect::Spool,
    fixed: AtomicUsize,
    diffs: Mutex<Vec<(Arc<str>, String)>>,
    /// Masks the secrets in what findings quote of the files.
    detector: Detector,
}

impl Collector {
    fn new(detector: Detector) -> Collector {
        Collector {
            files: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            findings: crate::collect::Spool::new(),
            fixed: AtomicUsize::new(0),
            diffs: Mutex::new(Vec::new()),
            detector,
        }
    }

    /// Keeps findings, their messages, help and labels masked: every output (reports, the
    /// baseline) is written from what is kept here.
    fn keep_findings(&self, mut findings: Vec<Finding>) {
        self.detector.mask_findings(&mut findings);
        self.findings.keep(findings);
    }

    /// [`Collector::keep_findings`] for one file of a worker's batch: masked with what the
    /// worker found clean in its earlier files, and gathered with the batch's others.
    fn gather_findings(
        &self,
        gathered: &mut crate::collect::Gathered,
        mut findings: Vec<Finding>,
        clean: &mut crate::secrets::CleanTexts,
    ) {
        self.detector.mask_findings_with(&mut findings, clean);
        self.findings.gather(gathered, findings);
    }

    /// Keeps a file's `--diff`, to be printed in path order.
    fn keep_diff(&self, diff: Option<(Arc<str>, String)>) {
        if let (Some(diff), Ok(mut diffs)) = (diff, self.diffs.lock()) {
            diffs.push(diff);
        }
    }

    fn keep(&self, outcome: FileOutcome) {
        if outcome.tool_error {
            self.failed.store(true, Ordering::Relaxed);
        }
        if outcome.fixed > 0 {
            self.fixed.fetch_add(outcome.fixed, Ordering::Relaxed);
        }
        self.keep_diff(outcome.diff);
        self.keep_findings(outcome.findings);
    }

    fn finish(self, paths_missing: bool) -> Result<Linted, Error> {
        let findings = self.findings.finish().map_err(|source| Error::Write {
            path: "a temporary file of findings".into(),
            source,
        })?;
        Ok(Linted {
            findings,
            files: self.files.into_inner(),
            tool_error: paths_missing || self.failed.into_inner(),
            stdin_source: None,
            binary_files: 0,
            fixes_applied: self.fixed.into_inner(),
            diffs: self.diffs.into_inner().unwrap_or_else(|e| e.into_inner()),
            stdin_fixed: None,
            history: None,
            new_from_rev: None,
            detector: self.detector,
        })
    }
}
