//! forgelint: a static policy linter for forge/v2 job specifications.
//!
//! The pipeline: config and rules compiled once ([`config`], [`rules`]) → files discovered
//! ([`discover`]) → each file read, parsed once and linted in parallel ([`engine`]) → findings
//! collected and sorted → one reporter writes them ([`report`]).

// Config and rule-file errors carry their file's text for the report; they happen once, before
// any spec is read, so their size does not matter.
#![allow(clippy::result_large_err)]
// Output goes through the `Env` streams (tests run in-process), never straight to the terminal.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod atomic_write;
pub mod baseline;
pub mod cases;
pub mod catalog;
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
pub mod platform;
pub mod project;
pub mod read;
pub mod report;
pub mod rules;
pub mod select;
pub mod source;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use cli::{CheckArgs, Cli, ColorChoice, Command, FailOn};
use config::Settings;
use diagnostic::Finding;
use engine::{lint_bytes, lint_named, Active, FileName, RealProject};
pub use error::Error;
use rules::Severity;

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
        None => check(cli.check, env),
    }
}

/// Loads the settings the flags ask for: `--config`, `--no-config`, or the nearest config file.
pub fn load_settings(
    config: Option<&Path>,
    no_config: bool,
    extra_rules: &[PathBuf],
    cwd: &Path,
) -> Result<Settings, Error> {
    let found = if no_config {
        None
    } else {
        config
            .map(Path::to_path_buf)
            .or_else(|| config::find_config(cwd))
    };
    match found {
        Some(path) => Settings::load(&path, extra_rules),
        None => {
            let mut settings = Settings::defaults(PathBuf::from("."))?;
            for p in extra_rules {
                settings.rules.load_path(p)?;
            }
            settings.rules.sort();
            Ok(settings)
        }
    }
}

fn unknown_rule_error(id: &str, settings: &Settings, flag: &str) -> Error {
    let help = error::suggest(id, settings.rules.rules.iter().map(|r| r.id.as_str()))
        .map(|s| format!("did you mean `{s}`?"))
        .or_else(|| Some("`forgelint rules` lists every rule".to_string()));
    Error::Usage {
        message: format!("{flag}: unknown rule `{id}`"),
        help,
    }
}

/// Whether some rule applies to some files only (per-file ignores, a rule's own `files` or
/// `ignores`): decided once per run, as most runs scope nothing.
fn scopes_rules(base: &[Active<'_>], settings: &Settings) -> bool {
    !settings.per_file_ignores.is_empty()
        || base
            .iter()
            .any(|a| a.rule.files.is_some() || a.rule.ignores.is_some())
}

/// The rules that apply to a file at `relative` (for per-file ignores); `scoped`: what
/// [`scopes_rules`] says of the run.
fn active_rules<'r, 'a, 'p>(
    base: &'r [Active<'a>],
    settings: &Settings,
    scoped: bool,
    relative: impl FnOnce() -> std::borrow::Cow<'p, Path>,
) -> std::borrow::Cow<'r, [Active<'a>]> {
    // Unscoped: no relative path and no copy of the rule list.
    if !scoped {
        return std::borrow::Cow::Borrowed(base);
    }
    let relative = relative();
    let ignored: Vec<&str> = settings
        .per_file_ignores
        .iter()
        .filter(|(glob, _)| glob.is_match(&*relative))
        .flat_map(|(_, ids)| ids.iter().map(String::as_str))
        .collect();
    std::borrow::Cow::Owned(
        base.iter()
            .filter(|a| !ignored.contains(&a.rule.id.as_str()) && a.rule.applies_to(&relative))
            .copied()
            .collect(),
    )
}

/// `path` made absolute against `cwd` with `.` and `..` resolved lexically (no file system
/// access, so it is cheap enough for every file).
pub fn normalize(path: &Path, cwd: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(path).components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base` (the config's folder), for glob matching; as given when outside it.
pub fn relative_to<'p>(path: &'p Path, base: &Path, cwd: &Path) -> std::borrow::Cow<'p, Path> {
    use std::os::unix::ffi::OsStrExt;
    // Runs for every file: bytes first, components only when they may differ.
    let clean = without_leading_dot(path);
    let simple = !clean.as_os_str().as_bytes().windows(2).any(|w| w == b"..")
        || !clean
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    let base_is_cwd = matches!(base.as_os_str().as_bytes(), b"." | b"./")
        || base.as_os_str() == cwd.as_os_str()
        || base == Path::new(".")
        || base == cwd;
    if base_is_cwd && simple && clean.is_relative() {
        return clean.into();
    }
    let abs = normalize(clean, cwd);
    match abs.strip_prefix(normalize(base, cwd)) {
        Ok(rel) => rel.to_path_buf().into(),
        Err(_) => abs.into(),
    }
}

/// `path.strip_prefix(".")` (or `path` when that fails), from the bytes when they tell.
fn without_leading_dot(path: &Path) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    match bytes {
        [b'.'] => Path::new(""),
        [b'.', b'/', rest @ ..] => {
            let rest = &rest[rest.iter().take_while(|&&b| b == b'/').count()..];
            if rest.starts_with(b"./") || rest == b"." {
                // `././x`: components drop every `.`; leave that to them.
                path.strip_prefix(".").unwrap_or(path)
            } else {
                Path::new(std::ffi::OsStr::from_bytes(rest))
            }
        }
        _ => path,
    }
}

/// What the run's limit on held findings left out of the report.
#[derive(Default)]
struct NotHeld {
    /// Findings by severity (note, warning, error).
    counts: [usize; 3],
    /// Files with findings none of which is held.
    files: usize,
    /// The file the limit cut through (some findings held, the rest not), if any: it counts
    /// among the files with findings even when the baseline hides its held ones.
    cut: Option<Arc<str>>,
}

struct FileOutcome {
    findings: Vec<Finding>,
    /// An explicitly named file that could not be read: exit 2.
    tool_error: bool,
}

/// Re-reads files for code frames; the spec read from stdin is kept in memory.
struct FileSources {
    stdin: Option<(Arc<str>, Arc<str>)>,
}

impl report::Sources for FileSources {
    fn text(&self, path: &str) -> Option<Arc<str>> {
        if let Some((name, text)) = &self.stdin {
            if **name == *path {
                return Some(text.clone());
            }
        }
        let bytes = engine::read_bounded(Path::new(path)).ok()?;
        String::from_utf8(bytes).ok().map(Arc::from)
    }
}

/// Sorts findings by [`Finding::sort_key`], stably.
///
/// A file's findings arrive together and share one path, so the runs of one path are sorted by
/// path, and then each path's findings by the rest of the key. Paths are compared by the 16
/// bytes after the prefix all of them share (a number, no memory to fetch), and in full only
/// when those are equal. The findings are moved once each at the end.
fn sort_findings(findings: &mut [Finding]) {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if Arc::ptr_eq(&findings[run.start].path, &f.path) => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    let path_of = |run: &std::ops::Range<usize>| -> &str { &findings[run.start].path };
    let skip = runs.split_first().map_or(0, |(first, rest)| {
        let first = path_of(first).as_bytes();
        rest.iter().fold(first.len(), |len, run| {
            common_prefix_len(&first[..len], path_of(run).as_bytes())
        })
    });
    let mut keyed: Vec<(u128, &str, std::ops::Range<usize>)> = runs
        .into_iter()
        .map(|run| {
            let path = path_of(&run);
            (path_key(&path.as_bytes()[skip..]), path, run)
        })
        .collect();
    // The run's start breaks ties: runs of one path in two `Arc`s keep their order, and so do
    // their findings below.
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.cmp(b.1))
            .then(a.2.start.cmp(&b.2.start))
    });
    let mut order: Vec<usize> = Vec::with_capacity(findings.len());
    let mut keyed = keyed.into_iter().peekable();
    while let Some((_, path, run)) = keyed.next() {
        let from = order.len();
        order.extend(run);
        while let Some((_, _, next)) = keyed.next_if(|(_, p, _)| *p == path) {
            order.extend(next);
        }
        order[from..].sort_by(|&a, &b| findings[a].sort_key().cmp(&findings[b].sort_key()));
    }
    permute(findings, order);
}

/// Rearranges `items` in place so that position `i` holds what was at `order[i]` (`order` is a
/// permutation of the positions). Each cycle of the permutation is followed once, so every item
/// moves once; two fresh vectors as large as the findings would cost their page faults too.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    assert_eq!(items.len(), order.len());
    for start in 0..order.len() {
        let mut at = start;
        // Each swap puts what belongs at `at` there; the cycle closes where `start`'s item,
        // carried along, belongs.
        while order[at] != DONE {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// The length of the longest common prefix of `a` and `b`.
fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The first 16 bytes of `bytes` as a big-endian number, zero-padded: numbers order as the
/// byte strings do, except that strings equal over their first 16 bytes tie.
fn path_key(bytes: &[u8]) -> u128 {
    let mut key = [0u8; 16];
    let len = bytes.len().min(16);
    key[..len].copy_from_slice(&bytes[..len]);
    u128::from_be_bytes(key)
}

fn check(args: CheckArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let started = Instant::now();
    let settings = load_settings(
        args.config.as_deref(),
        args.no_config,
        &args.rules,
        &env.cwd,
    )?;

    for id in args.select.iter().chain(&args.ignore) {
        if settings.rules.get(id).is_none() {
            let flag = if args.select.contains(id) {
                "--select"
            } else {
                "--ignore"
            };
            return Err(unknown_rule_error(id, &settings, flag));
        }
    }
    let base_rules: Vec<Active<'_>> = settings
        .rules
        .rules
        .iter()
        .filter(|r| args.select.is_empty() || args.select.contains(&r.id))
        .filter(|r| !args.ignore.contains(&r.id))
        .filter_map(|r| {
            let severity = match settings.severity.get(&r.id) {
                Some(None) => return None,
                Some(Some(s)) => *s,
                None => r.severity,
            };
            Some(Active { rule: r, severity })
        })
        .collect();

    // Read before any spec: a bad baseline stops the run before the work is done.
    let baseline = match &args.baseline {
        Some(path) => Some(baseline::Baseline::load(path)?),
        None => None,
    };

    let threads = args
        .jobs
        .filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::usage(format!("cannot start worker threads: {e}")))?;

    let mut paths = args.paths.clone();
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    let stdin_requested = paths.iter().any(|p| p == Path::new("-"));
    paths.retain(|p| p != Path::new("-"));
    if args.stdin_filename.is_some() && !stdin_requested {
        return Err(Error::usage(
            "--stdin-filename goes with `-` (read the spec from standard input)",
        ));
    }

    let dir_cache = engine::DirCache::default();
    let cwd_mentions_starforge = engine::mentions_starforge(&env.cwd);
    let table = rules::selector_table(base_rules.iter().map(|a| a.rule));
    let lint = |bytes: &[u8], display: &Arc<str>, active: &[Active<'_>], project: &RealProject| {
        lint_bytes(bytes, display, active, &table, &settings.platform, project)
    };
    let invalid_json = base_rules
        .iter()
        .find(|a| a.rule.id == engine::INVALID_JSON)
        .copied();
    let scoped = scopes_rules(&base_rules, &settings);
    let lint_one = |candidate: &discover::Candidate| -> FileOutcome {
        let display = || -> Arc<str> { Arc::from(candidate.path.to_string_lossy().as_ref()) };
        let display = FileName::lazy(&display);
        let active = active_rules(&base_rules, &settings, scoped, || {
            relative_to(&candidate.path, &settings.base_dir, &env.cwd)
        });
        let file_problem = |message: String| FileOutcome {
            findings: invalid_json
                .filter(|_| active.iter().any(|a| a.rule.id == engine::INVALID_JSON))
                .map(|r| vec![engine::file_finding(display.get(), r, message)])
                .unwrap_or_default(),
            tool_error: candidate.explicit,
        };
        if let Some(problem) = &candidate.problem {
            return file_problem(problem.clone());
        }
        engine::with_file_bytes(&candidate.path, |read| match read {
            Ok(bytes) => {
                let project = RealProject {
                    spec: &candidate.path,
                    settings: &settings,
                    cwd: &env.cwd,
                    cwd_mentions_starforge,
                    cache: &dir_cache,
                };
                FileOutcome {
                    findings: lint_named(
                        bytes,
                        &display,
                        &active,
                        &table,
                        &settings.platform,
                        &project,
                    ),
                    tool_error: false,
                }
            }
            Err(e) => file_problem(format!("cannot read the file: {e}")),
        })
    };
    // A panic while linting one file is a bug, reported for that file; the others are still
    // linted and the run exits 2.
    let contained = |candidate: &discover::Candidate| -> FileOutcome {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine::panic_for_tests(&candidate.path);
            lint_one(candidate)
        }))
        .unwrap_or_else(|payload| {
            let display: Arc<str> = Arc::from(candidate.path.to_string_lossy().as_ref());
            FileOutcome {
                findings: vec![engine::internal_error(&display, payload.as_ref())],
                tool_error: true,
            }
        })
    };
    // Files are linted as they are found; only findings are kept, so memory does not grow
    // with the number of clean files.
    let files_seen = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let collected: std::sync::Mutex<Vec<Finding>> = std::sync::Mutex::new(Vec::new());
    let not_held = std::sync::Mutex::new(NotHeld::default());
    let held_limit = engine::max_findings_held();
    let keep = |outcome: FileOutcome| {
        if outcome.tool_error {
            failed.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if !outcome.findings.is_empty() {
            if let Ok(mut all) = collected.lock() {
                // Past the limit, findings are counted (by severity) but not kept.
                let room = held_limit.saturating_sub(all.len());
                let mut findings = outcome.findings;
                if findings.len() > room {
                    if let Ok(mut not_held) = not_held.lock() {
                        // A file's findings are contiguous: a file whose first finding is past
                        // the cut has none held.
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
                    findings.truncate(room);
                }
                all.extend(findings);
            }
        }
    };
    // The walker finds files on its own threads and passes them through a bounded queue to
    // the worker pool, which lints them as they come: walking and linting overlap, and memory
    // does not grow with the size of the tree.
    let options = discover::Options {
        settings: &settings,
        no_ignore: args.no_ignore,
        threads: threads.div_ceil(2),
        cwd: &env.cwd,
    };
    let batches = handoff::Handoff::<Vec<discover::Candidate>>::new(32);
    let discovery = std::thread::scope(|scope| {
        let walker = scope.spawn(|| {
            let _closer = batches.closer();
            discover::discover_each(&paths, &options, &|batch| {
                // Refused only once the workers are gone, and then nobody needs the batch.
                batches.push(batch);
            })
        });
        let _closer = batches.closer();
        // Every worker takes batches from the queue itself. Behind `par_bridge` they would
        // share one lock around the queue, and a worker whose take wakes the walker can be
        // switched out for the walker while it holds that lock, leaving the other idle.
        pool.broadcast(|_| {
            while let Some(batch) = batches.pop() {
                // Counted per batch: one shared counter bumped per file would bounce between
                // the workers.
                files_seen.fetch_add(batch.len(), std::sync::atomic::Ordering::Relaxed);
                // Kept per batch too: one lock for the batch's findings.
                let mut outcome = FileOutcome {
                    findings: Vec::new(),
                    tool_error: false,
                };
                for candidate in &batch {
                    let one = contained(candidate);
                    outcome.tool_error |= one.tool_error;
                    outcome.findings.extend(one.findings);
                }
                keep(outcome);
            }
        });
        walker.join()
    })
    .map_err(|_| Error::usage("the directory walk failed unexpectedly (this is a bug)"))?;
    // Files named on the command line (a pre-commit batch): in parallel too.
    pool.install(|| {
        discovery.files.par_iter().for_each(|candidate| {
            files_seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            keep(contained(candidate))
        })
    });
    for warning in &discovery.warnings {
        writeln!(env.stderr, "warning: {}", escape::visible(warning)).ok();
    }
    for (path, why) in &discovery.missing {
        writeln!(
            env.stderr,
            "error: {}: {why}",
            escape::visible(&path.display().to_string())
        )
        .ok();
    }

    let mut files = files_seen.into_inner();
    let mut tool_error = !discovery.missing.is_empty() || failed.into_inner();
    let mut findings: Vec<Finding> = collected.into_inner().unwrap_or_else(|e| e.into_inner());

    let mut stdin_source = None;
    if stdin_requested {
        files += 1;
        let mut bytes = Vec::new();
        let read = env
            .stdin
            .take(engine::MAX_FILE_SIZE + 1)
            .read_to_end(&mut bytes);
        let name = args
            .stdin_filename
            .clone()
            .unwrap_or_else(|| PathBuf::from("-"));
        let display: Arc<str> = Arc::from(name.to_string_lossy().as_ref());
        let active = active_rules(&base_rules, &settings, scoped, || {
            relative_to(&name, &settings.base_dir, &env.cwd)
        });
        match read {
            Err(e) => {
                tool_error = true;
                writeln!(env.stderr, "error: cannot read standard input: {e}").ok();
            }
            Ok(_) => {
                let project = RealProject {
                    spec: &name,
                    settings: &settings,
                    cwd: &env.cwd,
                    cwd_mentions_starforge,
                    cache: &dir_cache,
                };
                findings.extend(lint(&bytes, &display, &active, &project));
                stdin_source = Some((display, Arc::from(String::from_utf8_lossy(&bytes).as_ref())));
            }
        }
    }

    // On the worker threads: an audit can hold hundreds of thousands.
    pool.install(|| sort_findings(&mut findings));
    let not_held = not_held.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(path) = &args.write_baseline {
        baseline::write(path, &findings, &env.cwd).map_err(|source| Error::Write {
            path: path.display().to_string(),
            source,
        })?;
        if !args.quiet {
            writeln!(
                env.stderr,
                "Wrote {} findings to the baseline {}.",
                findings.len(),
                escape::visible(&path.display().to_string())
            )
            .ok();
        }
        let left_out: usize = not_held.counts.iter().sum();
        if left_out > 0 {
            // The baseline has no room to say so itself: a later run would report these as new.
            writeln!(
                env.stderr,
                "warning: the baseline {} lacks {left_out} finding{} beyond the limit of {held_limit}, which a run with it will count as new.",
                escape::visible(&path.display().to_string()),
                if left_out == 1 { "" } else { "s" }
            )
            .ok();
        }
    }
    let applied = baseline.map(|b| b.apply(&mut findings, &env.cwd));

    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => env.stdout_is_terminal && !env.no_color,
    };
    let sources = FileSources {
        stdin: stdin_source,
    };
    let mut summary = report::Summary {
        files,
        elapsed: started.elapsed(),
        baseline: applied,
        held_limit,
        ..Default::default()
    };
    summary.count(&findings);
    let cut_shown = not_held
        .cut
        .as_ref()
        .is_some_and(|cut| findings.iter().any(|f| f.path == *cut));
    summary.not_held(
        not_held.counts,
        not_held.files + usize::from(not_held.cut.is_some() && !cut_shown),
    );
    let ran: Vec<&rules::Rule> = base_rules.iter().map(|a| a.rule).collect();
    let input = report::ReportInput {
        findings: &findings,
        summary: &summary,
        rules: &ran,
        cwd: &env.cwd,
        statistics: args.statistics,
        tool_error,
        threads,
    };
    let mut opts = report::ReportOptions {
        format: args.format,
        color,
        width: env.width,
    };
    match &args.output {
        Some(path) => {
            opts.color = false;
            atomic_write::write_atomically(path, |w| report::write(w, &input, &sources, &opts))
                .map_err(|source| Error::Write {
                    path: path.display().to_string(),
                    source,
                })?;
        }
        None => {
            let written =
                report::write(env.stdout, &input, &sources, &opts).and_then(|_| env.stdout.flush());
            match written {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    return Ok(ExitStatus::Success)
                }
                Err(e) => {
                    return Err(Error::Write {
                        path: "standard output".into(),
                        source: e,
                    })
                }
                Ok(()) => {}
            }
        }
    }

    if !args.quiet {
        writeln!(env.stderr, "{}", summary.line()).ok();
    }

    let threshold = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Note => Severity::Note,
    };
    let status = if tool_error {
        ExitStatus::Error
    } else if args.write_baseline.is_some() {
        ExitStatus::Success
    } else if findings.iter().any(|f| f.severity >= threshold)
        || (threshold as usize..3).any(|s| not_held.counts[s] > 0)
    {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    };
    drop_elsewhere(findings);
    Ok(status)
}

/// Frees `findings` on a thread of their own: an audit's tens of thousands of findings take
/// milliseconds to free, and the process that is about to exit need not wait for that.
fn drop_elsewhere(findings: Vec<Finding>) {
    if findings.len() < 1024 {
        return;
    }
    // A thread that cannot be started hands the closure back dropped: freed here, as before.
    let _ = std::thread::Builder::new().spawn(move || drop(findings));
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn leading_dots_are_dropped_like_strip_prefix() {
        for raw in [
            "./a/b.json",
            ".//a",
            "./",
            ".",
            "./.",
            "././x",
            "./a/./b",
            "a/./b",
            "../a",
            "/x",
            "./.hidden",
            ".hidden",
            "",
        ] {
            let path = Path::new(raw);
            assert_eq!(
                super::without_leading_dot(path),
                path.strip_prefix(".").unwrap_or(path),
                "{raw}"
            );
        }
    }

    #[test]
    fn relative_paths_against_the_current_folder() {
        let cwd = Path::new("/w/repo");
        for (path, base, expected) in [
            ("./a/b.json", ".", "a/b.json"),
            ("a/b.json", "/w/repo", "a/b.json"),
            ("a/../b.json", ".", "b.json"),
            ("/w/repo/x/j.json", ".", "x/j.json"),
            ("x/j.json", "x", "j.json"),
            ("x/j.json", "y", "/w/repo/x/j.json"),
        ] {
            assert_eq!(
                super::relative_to(Path::new(path), Path::new(base), cwd),
                Path::new(expected),
                "{path} against {base}"
            );
        }
    }

    /// Permuting in place gives what collecting by the order gives, for every permutation of a
    /// few items and for long cycles.
    #[test]
    fn permute_follows_the_order() {
        fn all_orders(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![Vec::new()];
            }
            let mut out = Vec::new();
            for smaller in all_orders(n - 1) {
                for at in 0..n {
                    let mut order = smaller.clone();
                    order.insert(at, n - 1);
                    out.push(order);
                }
            }
            out
        }
        for n in 0..6 {
            for order in all_orders(n) {
                let items: Vec<String> = (0..n).map(|i| format!("item {i}")).collect();
                let expected: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
                let mut permuted = items.clone();
                super::permute(&mut permuted, order.clone());
                assert_eq!(permuted, expected, "{order:?}");
            }
        }
        let n = 1000;
        let order: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % n).collect();
        let mut permuted: Vec<usize> = (0..n).collect();
        super::permute(&mut permuted, order.clone());
        assert_eq!(permuted, order);
    }

    /// Sorting by indices orders findings as a stable sort of the findings does: equal keys
    /// keep their order.
    #[test]
    fn findings_sort_stably_by_key() {
        use crate::diagnostic::Finding;
        use crate::json::Span;
        use crate::source::Position;
        use std::sync::Arc;
        let finding = |path: &str, start: usize, rule: &str, pointer: &str| Finding {
            path: Arc::from(path),
            rule: Arc::from(rule),
            severity: crate::rules::Severity::Error,
            message: "m".into(),
            help: None,
            pointer: pointer.into(),
            span: Span::new(start, start + 1),
            start: Position { line: 1, column: 1 },
            end: Position { line: 1, column: 2 },
            related: Vec::new(),
            value_hash: 0,
        };
        let mut findings = Vec::new();
        for i in 0..300usize {
            let path = ["b.json", "a.json", "a/b.json", "c.json"][i * 7 % 4];
            let rule = ["x", "y"][i % 2];
            // The pointer is not in the key: it tells equal keys apart.
            findings.push(finding(path, i * 13 % 5, rule, &i.to_string()));
        }
        // As files report them: runs sharing one path, and a path in two runs of their own.
        let paths: Vec<Arc<str>> = ["b.json", "a.json", "b.json", "c.json", "a.json", "a/b.json"]
            .iter()
            .map(|&p| Arc::from(p))
            .collect();
        for i in 0..300usize {
            let mut f = finding("", i * 11 % 7, ["x", "y", "z"][i % 3], &format!("r{i}"));
            f.path = paths[i / 13 % paths.len()].clone();
            findings.push(f);
        }
        let mut expected = findings.clone();
        expected.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        super::sort_findings(&mut findings);
        assert_eq!(findings, expected);

        // Long paths with a shared prefix: equal over the 16 bytes after it and different
        // later, one a prefix of another, and non-ASCII text where the shared prefix ends.
        let long = [
            "archive/000/run-000006.jobspec.json",
            "archive/000/run-000006.jobspec.json.bak",
            "archive/000/run-000006.jobspec",
            "archive/000/run-000006.jobspec.jso",
            "archive/000/run-000006.jobspec.json/x",
            "archive/000/run-000005.jobspec.json",
            "archive/001/run-000006.jobspec.json",
            "archive/00é/run.json",
            "archive/00è/run.json",
            "archive/00",
            "archive/",
        ];
        let mut findings = Vec::new();
        for i in 0..200usize {
            findings.push(finding(
                long[i * 7 % long.len()],
                i % 3,
                "x",
                &i.to_string(),
            ));
        }
        let mut expected = findings.clone();
        expected.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        super::sort_findings(&mut findings);
        assert_eq!(findings, expected);
        let mut none: Vec<Finding> = Vec::new();
        super::sort_findings(&mut none);
        assert!(none.is_empty());
        let mut none = Vec::new();
        super::sort_findings(&mut none);
        assert!(none.is_empty());
    }
}
