//! The lint run: the plan's paths walked, every file read, parsed once and linted on the
//! worker threads, and the findings collected. Files are linted as they are found and only
//! findings are kept, so memory does not grow with the number of clean files.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::plan::Plan;
use crate::diagnostic::Finding;
use crate::discover::{self, Candidate};
use crate::engine::{self, DirCache, FileName, RealProject};
use crate::error::Error;
use crate::process::Env;
use crate::{escape, handoff};

/// What the run's limit on held findings left out of the report.
#[derive(Default)]
pub struct NotHeld {
    /// Findings by severity (note, warning, error).
    pub counts: [usize; 3],
    /// Files with findings none of which is held.
    pub files: usize,
    /// The file the limit cut through (some findings held, the rest not), if any: it counts
    /// among the files with findings even when the baseline hides its held ones.
    pub cut: Option<Arc<str>>,
}

/// What the lint run found.
pub struct Linted {
    pub findings: Vec<Finding>,
    pub files: usize,
    /// A file named on the command line could not be read, or linting one crashed: exit 2.
    pub tool_error: bool,
    pub not_held: NotHeld,
    pub held_limit: usize,
    /// The spec read from standard input, by its reported name, for code frames.
    pub stdin_source: Option<(Arc<str>, Arc<str>)>,
}

struct FileOutcome {
    findings: Vec<Finding>,
    /// An explicitly named file that could not be read: exit 2.
    tool_error: bool,
}

/// What every file's lint shares.
struct Linter<'p, 's> {
    plan: &'p Plan<'s>,
    cwd: &'p Path,
    dir_cache: DirCache,
    cwd_mentions_starforge: bool,
    table: crate::select::SelectorTable,
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
        table: crate::rules::selector_table(plan.rules.iter().map(|a| a.rule)),
    };
    let collector = Collector::new();
    let discovery = walk_and_lint(&linter, &collector)?;
    // Files named on the command line (a pre-commit batch): in parallel too.
    plan.pool.install(|| {
        discovery.files.par_iter().for_each(|candidate| {
            collector.files.fetch_add(1, Ordering::Relaxed);
            collector.keep(linter.contained(candidate))
        })
    });
    for warning in &discovery.warnings {
        writeln!(env.stderr, "warning: {}", escape::visible(warning)).ok();
    }
    for (path, why) in &discovery.missing {
        let path = escape::visible(&path.display().to_string()).into_owned();
        writeln!(env.stderr, "error: {path}: {why}").ok();
    }
    let mut linted = collector.finish(!discovery.missing.is_empty());
    if let Some(name) = &plan.stdin_name {
        lint_stdin(&linter, name, env, &mut linted);
    }
    Ok(linted)
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
    let options = discover::Options {
        settings: plan.settings,
        no_ignore: plan.args.no_ignore,
        threads: plan.threads.div_ceil(2),
        cwd: linter.cwd,
    };
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
                collector.files.fetch_add(batch.len(), Ordering::Relaxed);
                let mut outcome = FileOutcome {
                    findings: Vec::new(),
                    tool_error: false,
                };
                for candidate in &batch {
                    let one = linter.contained(candidate);
                    outcome.tool_error |= one.tool_error;
                    outcome.findings.extend(one.findings);
                }
                collector.keep(outcome);
            }
        });
        walker.join()
    })
    .map_err(|_| Error::usage("the directory walk failed unexpectedly (this is a bug)"))
}

impl Linter<'_, '_> {
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
            }
        })
    }

    fn lint_file(&self, candidate: &Candidate) -> FileOutcome {
        let display = || -> Arc<str> { Arc::from(candidate.path.to_string_lossy().as_ref()) };
        let display = FileName::lazy(&display);
        let active = self.plan.rules_for(&candidate.path, self.cwd);
        let file_problem = |message: String| FileOutcome {
            findings: self
                .plan
                .invalid_json
                .filter(|_| active.iter().any(|a| a.rule.id == engine::INVALID_JSON))
                .map(|r| vec![engine::file_finding(display.get(), r, message)])
                .unwrap_or_default(),
            tool_error: candidate.explicit,
        };
        if let Some(problem) = &candidate.problem {
            return file_problem(problem.clone());
        }
        engine::with_file_bytes(&candidate.path, |read| match read {
            Ok(bytes) => FileOutcome {
                findings: engine::lint_named(
                    bytes,
                    &display,
                    &active,
                    &self.table,
                    &self.plan.settings.platform,
                    &self.project(&candidate.path),
                ),
                tool_error: false,
            },
            Err(e) => file_problem(format!("cannot read the file: {e}")),
        })
    }

    /// The project a spec at `spec` belongs to (for `spec.source.exp`).
    fn project<'a>(&'a self, spec: &'a Path) -> RealProject<'a> {
        RealProject {
            spec,
            settings: self.plan.settings,
            cwd: self.cwd,
            cwd_mentions_starforge: self.cwd_mentions_starforge,
            cache: &self.dir_cache,
        }
    }
}

/// Lints the spec on standard input, reported as `name`.
fn lint_stdin(linter: &Linter<'_, '_>, name: &Path, env: &mut Env<'_>, linted: &mut Linted) {
    linted.files += 1;
    let mut bytes = Vec::new();
    let read = env
        .stdin
        .take(engine::MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        linted.tool_error = true;
        writeln!(env.stderr, "error: cannot read standard input: {e}").ok();
        return;
    }
    let display: Arc<str> = Arc::from(name.to_string_lossy().as_ref());
    let active = linter.plan.rules_for(name, linter.cwd);
    let project = linter.project(name);
    linted.findings.extend(engine::lint_bytes(
        &bytes,
        &display,
        &active,
        &linter.table,
        &linter.plan.settings.platform,
        &project,
    ));
    linted.stdin_source = Some((display, Arc::from(String::from_utf8_lossy(&bytes).as_ref())));
}

/// The findings of every file, gathered from the worker threads; past the run's limit they
/// are counted but not kept.
struct Collector {
    files: AtomicUsize,
    failed: AtomicBool,
    findings: Mutex<Vec<Finding>>,
    not_held: Mutex<NotHeld>,
    held_limit: usize,
}

impl Collector {
    fn new() -> Collector {
        Collector {
            files: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            findings: Mutex::new(Vec::new()),
            not_held: Mutex::new(NotHeld::default()),
            held_limit: engine::max_findings_held(),
        }
    }

    fn keep(&self, outcome: FileOutcome) {
        if outcome.tool_error {
            self.failed.store(true, Ordering::Relaxed);
        }
        if outcome.findings.is_empty() {
            return;
        }
        let Ok(mut all) = self.findings.lock() else {
            return;
        };
        let room = self.held_limit.saturating_sub(all.len());
        let mut findings = outcome.findings;
        if findings.len() > room {
            self.count_not_held(&findings, room);
            findings.truncate(room);
        }
        all.extend(findings);
    }

    /// Counts `findings[room..]`, which the limit leaves out, by severity and by file.
    fn count_not_held(&self, findings: &[Finding], room: usize) {
        let Ok(mut not_held) = self.not_held.lock() else {
            return;
        };
        // A file's findings are contiguous: a file whose first finding is past the cut has
        // none held.
        let mut previous = room.checked_sub(1).map(|i| &findings[i].path);
        if previous == Some(&findings[room].path) {
            not_held.cut = previous.cloned();
        }
        for f in &findings[room..] {
            not_held.counts[f.severity as usize] += 1;
            if previous != Some(&f.path) {
                not_held.files += 1;
            }
            previous = Some(&f.path);
        }
    }

    fn finish(self, paths_missing: bool) -> Linted {
        Linted {
            findings: self
                .findings
                .into_inner()
                .unwrap_or_else(|e| e.into_inner()),
            files: self.files.into_inner(),
            tool_error: paths_missing || self.failed.into_inner(),
            not_held: self
                .not_held
                .into_inner()
                .unwrap_or_else(|e| e.into_inner()),
            held_limit: self.held_limit,
            stdin_source: None,
        }
    }
}
