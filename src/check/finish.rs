//! The finish of a run: findings sorted, the baseline written or applied, the report written,
//! the summary printed, and the exit status decided.

use std::sync::Arc;
use std::time::Instant;

use super::lint::Linted;
use super::plan::Plan;
use crate::diagnostic::Severity;
use crate::env::{Env, ExitStatus};
use crate::error::Error;
use crate::{atomic_write, baseline, escape, report, rules};

pub fn finish(
    plan: Plan<'_>,
    linted: Linted,
    started: Instant,
    env: &mut Env<'_>,
) -> Result<ExitStatus, Error> {
    finish_from(plan, linted, started, None, env)
}

/// [`finish`], the code frames drawn from `sources` instead of the files (a history's
/// versions are read from git).
pub fn finish_from(
    mut plan: Plan<'_>,
    mut linted: Linted,
    started: Instant,
    sources: Option<&dyn report::Sources>,
    env: &mut Env<'_>,
) -> Result<ExitStatus, Error> {
    if plan.options.diff() {
        return finish_diff(&plan, linted, env);
    }
    if let Some(path) = &plan.options.write_baseline {
        write_baseline(&plan, &linted, path, env)?;
    }
    let applied = match plan.baseline.take() {
        Some(b) => Some(
            b.apply(&mut linted.findings, &env.cwd)
                .map_err(temporary_error)?,
        ),
        None => None,
    };
    let tally = Tally::of(&plan, &linted).map_err(temporary_error)?;
    let left_out = match plan.options.max_results {
        Some(n) => keep_most_severe(&mut linted.findings, n, &tally).map_err(temporary_error)?,
        None => None,
    };
    let mut summary = summarize(&linted, &tally, applied, started);
    summary.left_out = left_out;
    summary.incomplete = linted.tool_error;
    summary.skipped = skipped(&plan);
    summary.fixes = tally.fixes;
    summary.history = linted.history.take();
    summary.new_from_rev = linted.new_from_rev.take();
    let files = FileSources {
        stdin: linted.stdin_source.take(),
        detector: linted.detector.clone(),
    };
    let sources = sources.unwrap_or(&files);
    // `--fix -`: the fixed spec is the output; the report goes to standard error.
    // A reader that closed standard output early (`forgelint . | head`) ends the output quietly,
    // not the verdict: the exit code still says what was found (`set -o pipefail`).
    if let Some(fixed) = &linted.stdin_fixed {
        let written = env.stdout.write_all(fixed.as_bytes());
        if written.and_then(|_| env.stdout.flush()).is_err() {
            return Ok(exit_status(&plan, &linted, &tally));
        }
        write_report(&plan, &linted, &summary, sources, env, true)?;
    } else if write_report(&plan, &linted, &summary, sources, env, false)? == Written::PipeClosed {
        return Ok(exit_status(&plan, &linted, &tally));
    }
    let nothing = nothing_checked(&plan, &summary, &env.cwd);
    if !plan.options.quiet && nothing.is_none() {
        for skipped in &summary.skipped {
            writeln!(env.stderr, "note: {}", skipped.text()).ok();
        }
    }
    if !plan.options.quiet && plan.options.write_baseline.is_none() {
        let line = nothing.unwrap_or_else(|| summary.line());
        writeln!(env.stderr, "{line}").ok();
        if let Some(line) = summary.fixes.line(plan.options.fix.is_some()) {
            writeln!(env.stderr, "{line}").ok();
        }
    }
    Ok(exit_status(&plan, &linted, &tally))
}

/// What a run that linted no file says instead of "All clear": that nothing was found to
/// lint. The exit status is 0, as ruff's for "No Python files found under the given path(s)":
/// a tree with no spec yet, or a pre-commit batch without one, is nothing wrong; a path that
/// does not exist has already made the run exit 2.
fn nothing_checked(
    plan: &Plan<'_>,
    summary: &report::Summary,
    cwd: &std::path::Path,
) -> Option<String> {
    if summary.files > 0 || summary.incomplete {
        return None;
    }
    const NAMED: usize = 3;
    let paths = &plan.options.paths;
    let mut names: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|p| escape::visible(&p.display().to_string()).into_owned())
        .collect();
    if paths.len() > NAMED {
        names.push(format!("{} more paths", paths.len() - NAMED));
    }
    let listed = match names.split_last() {
        Some((last, first)) if !first.is_empty() => format!("{} or {last}", first.join(", ")),
        _ => names.concat(),
    };
    // Files named (a pre-commit batch, with --discovered-only) are among, folders under.
    let files_only = !paths.is_empty() && paths.iter().all(|p| !cwd.join(p).is_dir());
    let place = if files_only { "among" } else { "under" };
    Some(format!(
        "warning: no job specs or experiment files {place} {listed}; nothing was checked"
    ))
}

/// A failure to read back the findings spilled to a temporary file.
fn temporary_error(source: std::io::Error) -> Error {
    Error::Write {
        path: "a temporary file of findings".into(),
        source,
    }
}

fn write_baseline(
    plan: &Plan<'_>,
    linted: &Linted,
    path: &std::path::Path,
    env: &mut Env<'_>,
) -> Result<(), Error> {
    let written =
        baseline::write(path, &linted.findings, &env.cwd).map_err(|source| Error::Write {
            path: path.display().to_string(),
            source,
        })?;
    let shown = escape::visible(&path.display().to_string()).into_owned();
    if !plan.options.quiet {
        let (count, files) = (written.findings, written.files);
        writeln!(
            env.stderr,
            "Wrote {count} finding{} in {files} file{} to the baseline {shown}; a run with --baseline {shown} reports only findings not in it.",
            if count == 1 { "" } else { "s" },
            if files == 1 { "" } else { "s" },
        )
        .ok();
    }
    Ok(())
}

/// `--max-results n`: hides all but the `n` most severe findings — every error before any
/// warning, every warning before any note, and within the severity that does not fit whole,
/// its first ones in the report's order (path, position, rule). Deterministic whatever the
/// thread count, and in bounded memory: the findings are read in order, spilled or not, and
/// only counts are kept. The tally of all of them (`tally`) stays the summary's and the exit
/// status's.
fn keep_most_severe(
    findings: &mut crate::collect::Collected,
    n: usize,
    tally: &Tally,
) -> std::io::Result<Option<report::LeftOut>> {
    let total: usize = tally.severities.iter().sum();
    if total <= n {
        return Ok(None);
    }
    // Severities above the cut are kept whole; `room` findings of the cut's own.
    let mut room = n;
    let mut cut = Severity::Error;
    for severity in [Severity::Error, Severity::Warning, Severity::Note] {
        let count = tally.severities[severity as usize];
        cut = severity;
        if count > room {
            break;
        }
        room -= count;
    }
    let hide = move || -> crate::collect::Filter<'static> {
        let mut seen = 0;
        Box::new(move |f: &crate::diagnostic::Finding| {
            if f.severity != cut {
                return f.severity < cut;
            }
            seen += 1;
            seen > room
        })
    };
    let mut first = hide();
    findings.hide(&mut *first, Box::new(hide))?;
    Ok(Some(report::LeftOut {
        max_results: n,
        findings: total - n,
    }))
}

/// What one pass over the findings counts: by severity, files, fixes offered, and whether any
/// is at or above `--fail-on`.
#[derive(Default)]
struct Tally {
    /// By severity: note, warning, error.
    severities: [usize; 3],
    files: usize,
    fixes: report::Fixes,
    failing: bool,
}

impl Tally {
    fn of(plan: &Plan<'_>, linted: &Linted) -> std::io::Result<Tally> {
        let counts = linted.findings.counts()?;
        let threshold = plan.options.threshold as usize;
        // A fix `--fix` applies is not offered.
        let offered = |safety: crate::diagnostic::Safety| {
            let applied = plan
                .options
                .fix
                .is_some_and(|m| m.applicability.takes(safety));
            if applied {
                0
            } else {
                counts.fixes[safety as usize]
            }
        };
        Ok(Tally {
            severities: counts.severities,
            files: counts.files,
            fixes: report::Fixes {
                applied: linted.fixes_applied,
                safe_available: offered(crate::diagnostic::Safety::Safe),
                unsafe_available: offered(crate::diagnostic::Safety::Unsafe),
            },
            failing: counts.severities[threshold..].iter().any(|&n| n > 0),
        })
    }
}

/// `--diff`: the diffs, in path order, on standard output (each line made visible: a linted
/// file's bytes must not reach the terminal raw); on standard error what would be fixed.
/// Exit 1 when something would change.
fn finish_diff(
    plan: &Plan<'_>,
    mut linted: Linted,
    env: &mut Env<'_>,
) -> Result<ExitStatus, Error> {
    linted.diffs.sort_by(|a, b| a.0.cmp(&b.0));
    let status = if linted.tool_error {
        ExitStatus::Error
    } else if linted.diffs.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    };
    for (_, diff) in &linted.diffs {
        // Its context lines are an excerpt of the file: its secrets are masked.
        let diff = linted.detector.mask(diff);
        for line in diff.split_inclusive('\n') {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, "\n"),
            };
            if write!(env.stdout, "{}{end}", escape::visible(body)).is_err() {
                // Standard output closed early: quiet, with the verdict.
                return Ok(status);
            }
        }
    }
    env.stdout.flush().ok();
    if !plan.options.quiet {
        let files = linted.diffs.len();
        let line = match linted.fixes_applied {
            0 => "No fixes would apply.".to_string(),
            n => format!(
                "Would fix {} in {}.",
                report::plural(n, "finding"),
                report::plural(files, "file")
            ),
        };
        writeln!(env.stderr, "{line}").ok();
    }
    Ok(status)
}

/// The rules that could not run under the configs files were linted with, merged by what is
/// missing.
fn skipped(plan: &Plan<'_>) -> Vec<report::Skipped> {
    let mut merged: Vec<report::Skipped> = Vec::new();
    for profile in plan.profiles.used() {
        for group in super::skipped::skipped(&profile.rules, &profile.settings.platform) {
            match merged.iter_mut().find(|g| g.reason == group.reason) {
                Some(known) => {
                    known.rules.extend(group.rules);
                    known.rules.sort();
                    known.rules.dedup();
                }
                None => merged.push(group),
            }
        }
    }
    merged
}

/// Every rule that ran under some config, by id; each id once (the first config's rule when
/// two configs define it).
fn rules_run<'p>(plan: &'p Plan<'_>) -> Vec<&'p rules::Rule> {
    let mut ran: Vec<&rules::Rule> = Vec::new();
    for profile in plan.profiles.used() {
        ran.extend(profile.rules.iter().map(|a| a.rule));
    }
    ran.sort_by(|a, b| a.id.cmp(&b.id));
    ran.dedup_by(|a, b| a.id == b.id);
    ran
}

fn summarize(
    linted: &Linted,
    tally: &Tally,
    baseline: Option<baseline::Applied>,
    started: Instant,
) -> report::Summary {
    report::Summary {
        files: linted.files,
        binary: linted.binary_files,
        elapsed: started.elapsed(),
        baseline,
        files_with_findings: tally.files,
        notes: tally.severities[Severity::Note as usize],
        warnings: tally.severities[Severity::Warning as usize],
        errors: tally.severities[Severity::Error as usize],
        ..Default::default()
    }
}

#[derive(PartialEq)]
enum Written {
    Whole,
    /// Standard output was closed by its reader (`forgelint | head`): nothing more is said,
    /// and the exit code is the findings'.
    PipeClosed,
}

/// Writes every report of the run: those with a file, and the one for standard output (on
/// standard error instead with `to_stderr`: `--fix -`, whose output is the fixed spec).
fn write_report(
    plan: &Plan<'_>,
    linted: &Linted,
    summary: &report::Summary,
    sources: &dyn report::Sources,
    env: &mut Env<'_>,
    to_stderr: bool,
) -> Result<Written, Error> {
    let ran = rules_run(plan);
    let cwd = env.cwd.clone();
    let root = report_root(&cwd, plan.options.workspace.as_deref());
    let input = report::ReportInput {
        findings: &linted.findings,
        summary,
        rules: &ran,
        cwd: &cwd,
        root: &root,
        statistics: plan.options.statistics,
        tool_error: linted.tool_error,
        threads: plan.options.threads,
    };
    let mut written = Written::Whole;
    for target in &plan.options.reports {
        let opts = report::ReportOptions {
            format: target.format,
            color: plan.options.color,
            width: env.width,
            group_depth: plan.options.group_depth,
            dir: target
                .file
                .as_deref()
                .and_then(std::path::Path::parent)
                .map(|folder| crate::paths::normalize(folder, &cwd)),
        };
        match &target.file {
            Some(path) => write_report_file(path, &input, sources, opts)?,
            None => written = write_report_out(&input, sources, opts, env, to_stderr)?,
        }
    }
    Ok(written)
}

/// The folder GitHub annotations and SARIF name files from: `workspace` (`GITHUB_WORKSPACE`)
/// when `cwd` is in it, else the git work tree `cwd` is in, else `cwd`.
fn report_root(cwd: &std::path::Path, workspace: Option<&std::path::Path>) -> std::path::PathBuf {
    if let Some(workspace) = workspace.filter(|w| w.is_absolute() && cwd.starts_with(w)) {
        return workspace.to_path_buf();
    }
    cwd.ancestors()
        .find(|folder| folder.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// A report written atomically to `path`, without colour.
fn write_report_file(
    path: &std::path::Path,
    input: &report::ReportInput<'_>,
    sources: &dyn report::Sources,
    mut opts: report::ReportOptions,
) -> Result<(), Error> {
    opts.color = false;
    let error = |source| Error::Write {
        path: path.display().to_string(),
        source,
    };
    // `--format sarif=reports/forgelint.sarif` in a fresh checkout: the folder is made. When
    // it cannot be, that is the error (the write would only say "No such file or directory").
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if std::fs::symlink_metadata(folder).is_err() {
            std::fs::create_dir_all(folder).map_err(|e| {
                error(std::io::Error::new(
                    e.kind(),
                    format!(
                        "cannot make the folder {}: {e}",
                        escape::visible(&folder.display().to_string())
                    ),
                ))
            })?;
        }
    }
    atomic_write::write_atomically(path, |w| report::write(w, input, sources, &opts)).map_err(error)
}

/// A report on standard output, or on standard error (`--fix -`, whose output is the spec).
fn write_report_out(
    input: &report::ReportInput<'_>,
    sources: &dyn report::Sources,
    mut opts: report::ReportOptions,
    env: &mut Env<'_>,
    to_stderr: bool,
) -> Result<Written, Error> {
    let out: &mut dyn std::io::Write = if to_stderr {
        opts.color = false;
        &mut *env.stderr
    } else {
        &mut *env.stdout
    };
    let written = report::write(out, input, sources, &opts).and_then(|_| out.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Written::PipeClosed),
        Err(e) => Err(Error::Write {
            path: "standard output".into(),
            source: e,
        }),
        Ok(()) => Ok(Written::Whole),
    }
}

fn exit_status(plan: &Plan<'_>, linted: &Linted, tally: &Tally) -> ExitStatus {
    if linted.tool_error {
        ExitStatus::Error
    } else if plan.options.write_baseline.is_some() || plan.options.exit_zero {
        ExitStatus::Success
    } else if tally.failing {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// Re-reads files for code frames; the spec read from stdin is kept in memory. Every text is
/// read with its secrets, which the frames mask.
struct FileSources {
    stdin: Option<(Arc<str>, Arc<str>)>,
    detector: crate::secrets::Detector,
}

impl report::Sources for FileSources {
    fn source(&self, finding: &crate::diagnostic::Finding) -> Option<report::Source> {
        let path = &*finding.path;
        if let Some((name, text)) = &self.stdin {
            if **name == *path {
                return Some(report::Source::new(text.clone(), &self.detector));
            }
        }
        let bytes = crate::read::read_bounded(std::path::Path::new(path)).ok()?;
        let text = String::from_utf8(bytes).ok().map(Arc::from)?;
        Some(report::Source::new(text, &self.detector))
    }
}
