//! The lint run: the plan's paths walked, every file read, parsed once and linted on the
//! worker threads, and the findings collected. Files are linted as they are found and only
//! findings are kept, so memory does not grow with the number of clean files.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::plan::Plan;
use super::profiles::Profile;
use crate::diagnostic::Finding;
use std::collections::HashSet;
use std::path::PathBuf;

use crate::discover::{self, Candidate, Kind};
use crate::engine::{self, DirCache, FileName, OpenedExperiment, RealProject, SpecExperiment};
use crate::error::Error;
use crate::fix::write::{file_key, FileKey, ReadState};
use crate::json::Document;
use crate::process::Env;
use crate::rules::eval::ConfigDoc;
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
struct Linter<'p, 's> {
    plan: &'p Plan<'s>,
    cwd: &'p Path,
    dir_cache: DirCache,
    cwd_mentions_starforge: bool,
    /// The experiment directories linted so far with a spec that names them: each once.
    claimed: Mutex<HashSet<PathBuf>>,
    /// The folders walked, absolute: an experiment directory under one, matching
    /// `[files] experiments`, is linted by the walk.
    walked: Vec<PathBuf>,
    /// The experiment files named on the command line, absolute: linted as named, never again
    /// as part of an experiment a spec names.
    named: HashSet<PathBuf>,
    /// `--fix`: the files being fixed, each once whatever the paths that name it.
    fixing: Mutex<HashSet<FileKey>>,
}

/// Lints everything the plan names: the walked folders and named files in parallel, then the
/// spec on standard input.
pub fn run(plan: &Plan<'_>, env: &mut Env<'_>) -> Result<Linted, Error> {
    let cwd = env.cwd.clone();
    let linter = Linter {
        plan,
        cwd: &cwd,
        dir_cache: DirCache::default(),
        cwd_mentions_starforge: engine::mentions_starforge(&env.cwd),
        claimed: Mutex::new(HashSet::new()),
        walked: plan
            .paths
            .iter()
            .filter(|p| cwd.join(p).is_dir())
            .map(|p| crate::paths::normalize(p, &cwd))
            .collect(),
        named: named_experiment_files(plan, &cwd),
        fixing: Mutex::new(HashSet::new()),
    };
    // Built from every rule of the run's configs with `mask = true`, selected or not.
    let detector = Detector::of_rules(
        plan.profiles
            .iter()
            .flat_map(|p| p.settings.rules.rules.iter()),
    );
    let collector = Collector::new(detector);
    let discovery = walk_and_lint(&linter, &collector)?;
    // Files named on the command line (a pre-commit batch): in parallel too. A file named
    // twice (a link and its target) is fixed once, as the first name names it.
    let named = once_per_file(
        discovery
            .files
            .iter()
            .filter(|candidate| linter.owns(&candidate.path))
            .collect(),
        plan.fix_mode.is_some_and(|m| m.write),
    );
    plan.pool.install(|| {
        named.par_iter().for_each(|candidate| {
            collector.files.fetch_add(1, Ordering::Relaxed);
            collector.keep(linter.contained(candidate))
        })
    });
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
    let stdin = match &plan.stdin_name {
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
        no_ignore: plan.args.no_ignore,
        threads,
        cwd,
    }
}

/// The walker finds files on its own threads and passes them through a bounded queue to the
/// worker pool, which lints them as they come: walking and linting overlap, and memory does
/// not grow with the size of the tree. Returns what the walk found besides (named files,
/// warnings, missing paths).
fn walk_and_lint(
    linter: &Linter<'_, '_>,
    collector: &Collector,
) -> Result<discover::Discovery, Error> {
    let plan = linter.plan;
    let options = walk_options(plan, linter.cwd, plan.threads);
    let batches = handoff::Handoff::<Vec<Candidate>>::new(32);
    std::thread::scope(|scope| {
        let walker = scope.spawn(|| {
            let _closer = batches.closer();
            discover::discover_each(&plan.paths, &options, &|batch| {
                // Refused only once the workers are gone, and then nobody needs the batch.
                batches.push(batch);
            })
        });
        let _closer = batches.closer();
        // Every worker takes batches from the queue itself. Behind `par_bridge` they would
        // share one lock around the queue, and a worker whose take wakes the walker can be
        // switched out for the walker while it holds that lock, leaving the other idle.
        plan.pool.broadcast(|_| {
            while let Some(batch) = batches.pop() {
                // Counted and kept per batch: one shared counter bumped per file would bounce
                // between the workers, and one lock serves the batch's findings.
                let owned = batch.iter().filter(|c| linter.owns(&c.path)).count();
                collector.files.fetch_add(owned, Ordering::Relaxed);
                let mut outcome = FileOutcome::default();
                for candidate in batch.iter().filter(|c| linter.owns(&c.path)) {
                    let one = linter.contained(candidate);
                    outcome.tool_error |= one.tool_error;
                    outcome.findings.extend(one.findings);
                    outcome.fixed += one.fixed;
                    if one.diff.is_some() {
                        collector.keep_diff(one.diff);
                    }
                }
                collector.keep(outcome);
            }
        });
        walker.join()
    })
    .map_err(|_| Error::usage("the directory walk failed unexpectedly (this is a bug)"))
}

impl<'s> Linter<'_, 's> {
    /// Lints one file; a panic while linting it is a bug, reported for that file, and the
    /// others are still linted (the run exits 2).
    fn contained(&self, candidate: &Candidate) -> FileOutcome {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine::panic_for_tests(&candidate.path);
            self.lint_file(candidate)
        }))
        .unwrap_or_else(|payload| {
            let display: Arc<str> = Arc::from(candidate.path.to_string_lossy().as_ref());
            FileOutcome {
                findings: vec![engine::internal_error(&display, payload.as_ref())],
                tool_error: true,
                ..FileOutcome::default()
            }
        })
    }

    fn lint_file(&self, candidate: &Candidate) -> FileOutcome {
        // A file whose config cannot be loaded is not linted: the run stops with its error.
        let Some(profile) = self.plan.profiles.for_file(&candidate.path) else {
            return FileOutcome {
                tool_error: true,
                ..FileOutcome::default()
            };
        };
        match &candidate.kind {
            Kind::Spec => self.lint_spec(candidate, profile),
            Kind::ExperimentFile { root } => FileOutcome {
                findings: profile.experiments.lint_named_file(
                    &candidate.path,
                    root,
                    candidate.problem.clone(),
                ),
                ..FileOutcome::default()
            },
        }
    }

    fn lint_spec(&self, candidate: &Candidate, profile: &Profile<'s>) -> FileOutcome {
        let display = || -> Arc<str> { Arc::from(candidate.path.to_string_lossy().as_ref()) };
        let display = FileName::lazy(&display);
        let active = profile.rules_for(&candidate.path, self.cwd);
        let file_problem = |message: String| FileOutcome {
            findings: profile
                .invalid_json
                .filter(|_| active.iter().any(|a| a.rule.id == engine::INVALID_JSON))
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
        let fixes = self.plan.fix_mode.is_some_and(|m| m.write);
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
        engine::with_file_bytes(&candidate.path, |read| match read {
            Ok(bytes) => {
                let lint = |bytes: &[u8], lint_files: bool| {
                    engine::lint_named(
                        bytes,
                        &display,
                        &active,
                        &profile.table,
                        &profile.settings.platform,
                        &self.project(&candidate.path, profile),
                        &SpecExperiments {
                            linter: self,
                            spec: &candidate.path,
                            profile,
                            lint_files,
                        },
                    )
                };
                let findings = lint(bytes, true);
                match (self.plan.fix_mode, std::str::from_utf8(bytes)) {
                    (Some(mode), Ok(text)) => {
                        let relint = |text: &str| lint(text.as_bytes(), false);
                        let shown = display.get();
                        let fixed = super::fixing::fix_spec(
                            Some((&candidate.path, read_state.as_ref())),
                            shown,
                            text,
                            findings,
                            mode,
                            &relint,
                        );
                        FileOutcome {
                            findings: fixed.findings,
                            tool_error: fixed.tool_error,
                            fixed: fixed.applied,
                            diff: fixed.diff.map(|d| (shown.clone(), d)),
                        }
                    }
                    _ => FileOutcome {
                        findings,
                        ..FileOutcome::default()
                    },
                }
            }
            Err(e) => file_problem(format!("cannot read the file: {e}")),
        })
    }

    /// The project a spec at `spec` belongs to (for `spec.source.exp`).
    fn project<'a>(&'a self, spec: &'a Path, profile: &'a Profile<'_>) -> RealProject<'a> {
        RealProject {
            spec,
            config_root: profile.config_root.as_ref(),
            cwd: self.cwd,
            cwd_mentions_starforge: self.cwd_mentions_starforge,
            cache: &self.dir_cache,
        }
    }
}

/// The experiment a linted spec names, read and linted with it.
struct SpecExperiments<'l, 'p, 's> {
    linter: &'l Linter<'p, 's>,
    spec: &'l Path,
    /// The profile of the spec: its experiment is linted with it.
    profile: &'l Profile<'s>,
    /// Whether the experiment's files are linted too (not when a fixed spec is linted again).
    lint_files: bool,
}

impl SpecExperiment for SpecExperiments<'_, '_, '_> {
    fn open(&self, doc: &Document<'_>) -> Option<OpenedExperiment> {
        let linter = self.linter;
        let lints = |dir: &Path, starforge_root: Option<&Path>| {
            !linter.walk_lints(dir, starforge_root) && linter.claim(dir)
        };
        let wants_files = self.lint_files && !self.profile.experiment_rules.is_empty();
        super::in_memory::open_experiment(
            doc,
            self.spec,
            self.profile,
            linter.cwd,
            &linter.dir_cache,
            wants_files.then_some(&lints as &dyn Fn(&Path, Option<&Path>) -> bool),
        )
    }

    fn lint_files(
        &self,
        opened: &OpenedExperiment,
        spec: &Document<'_>,
        config: Option<ConfigDoc<'_>>,
    ) -> Vec<Finding> {
        let linter = self.linter;
        let options = walk_options(linter.plan, linter.cwd, 1);
        // Left to others: a spec inside the experiment (the walk's, or its own candidate's), a
        // file named on the command line, and the files of an experiment the walk lints (an
        // experiment `.` holds the project's `experiments/*`).
        self.profile
            .experiments
            .lint_dir(&opened.dir, Some(spec), config, &mut |path| {
                options.wanted(path)
                    || (!linter.named.is_empty()
                        && linter
                            .named
                            .contains(&crate::paths::normalize(path, linter.cwd)))
                    || options
                        .experiment_of(path)
                        .is_some_and(|root| *root != *opened.dir && linter.walk_lints(&root, None))
            })
    }
}

/// The files named on the command line that are linted as experiment files.
fn named_experiment_files(plan: &Plan<'_>, cwd: &Path) -> HashSet<PathBuf> {
    let options = walk_options(plan, cwd, 1);
    plan.paths
        .iter()
        .filter(|p| cwd.join(p).is_file())
        .filter(|p| matches!(options.explicit_kind(p), Kind::ExperimentFile { .. }))
        .map(|p| crate::paths::normalize(p, cwd))
        .collect()
}

impl Linter<'_, '_> {
    /// Does the walk lint the experiment directory `dir` itself (it matches
    /// `[files] experiments` under a walked folder)? `starforge_root` is the spec's project
    /// root when the spec is in its `.starforge` folder: known to hold one, not asked again.
    fn walk_lints(&self, dir: &Path, starforge_root: Option<&Path>) -> bool {
        if !self.walked.iter().any(|root| dir.starts_with(root)) {
            return false;
        }
        let options = walk_options(self.plan, self.cwd, 1);
        if let Some(tail) = starforge_root.and_then(|r| dir.strip_prefix(r).ok()) {
            let settings = options.settings.settings_at(dir);
            if settings.is_some_and(|s| s.files.experiments.is_match(tail)) {
                return true;
            }
        }
        options.is_experiment_dir(dir)
    }

    /// Whether `path` is in this run's part (`--shard`); always without it.
    fn owns(&self, path: &Path) -> bool {
        self.plan.args.shard.is_none_or(|shard| shard.owns(path))
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
    linter: &Linter<'_, '_>,
    name: &Path,
    env: &mut Env<'_>,
    collector: &Collector,
) -> Result<Stdin, Error> {
    collector.files.fetch_add(1, Ordering::Relaxed);
    let profiles = &linter.plan.profiles;
    let Some(profile) = profiles.for_file(name) else {
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
    let read = env
        .stdin
        .take(engine::MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        collector.failed.store(true, Ordering::Relaxed);
        writeln!(env.stderr, "error: cannot read standard input: {e}").ok();
        return Ok(Stdin::default());
    }
    let display: Arc<str> = Arc::from(name.to_string_lossy().as_ref());
    let options = walk_options(linter.plan, linter.cwd, 1);
    // Named as a file of an experiment: linted as that file would be.
    if let Kind::ExperimentFile { root } = options.explicit_kind(name) {
        collector.keep_findings(profile.experiments.lint_given(name, &root, &bytes));
        return Ok(Stdin {
            source: Some((display, Arc::from(String::from_utf8_lossy(&bytes).as_ref()))),
            fixed: None,
        });
    }
    let active = profile.rules_for(name, linter.cwd);
    let project = linter.project(name, profile);
    let lint = |bytes: &[u8]| {
        engine::lint_bytes(
            bytes,
            &display,
            &active,
            &profile.table,
            &profile.settings.platform,
            &project,
        )
    };
    let findings = lint(&bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match (linter.plan.fix_mode, std::str::from_utf8(&bytes)) {
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
            detector: self.detector,
        })
    }
}
