//! The finish of a run: findings sorted, the baseline written or applied, the report written,
//! the summary printed, and the exit status decided.

use std::sync::Arc;
use std::time::Instant;

use super::lint::Linted;
use super::plan::Plan;
use crate::diagnostic::{sort_findings, Finding};
use crate::error::Error;
use crate::process::{Env, ExitStatus};
use crate::{atomic_write, baseline, escape, report, rules};

pub fn finish(
    mut plan: Plan<'_>,
    mut linted: Linted,
    started: Instant,
    env: &mut Env<'_>,
) -> Result<ExitStatus, Error> {
    // On the worker threads: an audit can hold hundreds of thousands.
    plan.pool.install(|| sort_findings(&mut linted.findings));
    if plan.args.diff {
        return finish_diff(&plan, linted, env);
    }
    if let Some(path) = &plan.args.write_baseline {
        write_baseline(&plan, &linted, path, env)?;
    }
    let applied = plan
        .baseline
        .take()
        .map(|b| b.apply(&mut linted.findings, &env.cwd));
    let mut summary = summarize(&linted, applied, started);
    summary.incomplete = linted.tool_error;
    summary.skipped = skipped(&plan);
    summary.fixes = fixes(&plan, &linted);
    let sources = FileSources {
        stdin: linted.stdin_source.take(),
    };
    // Writing a baseline reports what it wrote; a report goes only to the -o file asked for.
    let baseline_only = plan.args.write_baseline.is_some() && plan.args.output.is_none();
    // `--fix -`: the fixed spec is the output; the report goes to standard error.
    if let Some(fixed) = &linted.stdin_fixed {
        let written = env.stdout.write_all(fixed.as_bytes());
        if written.and_then(|_| env.stdout.flush()).is_err() {
            return Ok(ExitStatus::Success);
        }
        write_report(&plan, &linted, &summary, &sources, env, true)?;
    } else if !baseline_only
        && write_report(&plan, &linted, &summary, &sources, env, false)? == Written::PipeClosed
    {
        return Ok(ExitStatus::Success);
    }
    if !plan.args.quiet {
        for skipped in &summary.skipped {
            writeln!(env.stderr, "note: {}", skipped.text()).ok();
        }
    }
    if !plan.args.quiet && plan.args.write_baseline.is_none() {
        writeln!(env.stderr, "{}", summary.line()).ok();
        if let Some(line) = summary.fixes.line(plan.args.fix) {
            writeln!(env.stderr, "{line}").ok();
        }
    }
    let status = exit_status(&plan, &linted);
    drop_elsewhere(linted.findings);
    Ok(status)
}

fn write_baseline(
    plan: &Plan<'_>,
    linted: &Linted,
    path: &std::path::Path,
    env: &mut Env<'_>,
) -> Result<(), Error> {
    baseline::write(path, &linted.findings, &env.cwd).map_err(|source| Error::Write {
        path: path.display().to_string(),
        source,
    })?;
    let shown = escape::visible(&path.display().to_string()).into_owned();
    if !plan.args.quiet {
        let count = linted.findings.len();
        // Sorted by path: a file's findings are together.
        let mut paths: Vec<&str> = linted.findings.iter().map(|f| &*f.path).collect();
        paths.dedup();
        writeln!(
            env.stderr,
            "Wrote {count} finding{} in {} file{} to the baseline {shown}; a run with --baseline {shown} reports only findings not in it.",
            if count == 1 { "" } else { "s" },
            paths.len(),
            if paths.len() == 1 { "" } else { "s" },
        )
        .ok();
    }
    let left_out: usize = linted.not_held.counts.iter().sum();
    if left_out > 0 {
        // The baseline has no room to say so itself: a later run would report these as new.
        writeln!(
            env.stderr,
            "warning: the baseline {shown} lacks {left_out} finding{} beyond the limit of {}, which a run with it will count as new.",
            if left_out == 1 { "" } else { "s" },
            linted.held_limit,
        )
        .ok();
    }
    Ok(())
}

/// The fixes the run applied, and those its findings offer that it did not apply.
fn fixes(plan: &Plan<'_>, linted: &Linted) -> report::Fixes {
    let applicability = plan.fix_mode.map(|m| m.applicability);
    let mut fixes = report::Fixes {
        applied: linted.fixes_applied,
        ..report::Fixes::default()
    };
    for fix in linted.findings.iter().filter_map(|f| f.fix.as_deref()) {
        if applicability.is_some_and(|a| a.takes(fix.safety)) {
            continue;
        }
        match fix.safety {
            crate::fix::Safety::Safe => fixes.safe_available += 1,
            crate::fix::Safety::Unsafe => fixes.unsafe_available += 1,
        }
    }
    fixes
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
    for (_, diff) in &linted.diffs {
        for line in diff.split_inclusive('\n') {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, "\n"),
            };
            if write!(env.stdout, "{}{end}", escape::visible(body)).is_err() {
                return Ok(ExitStatus::Success);
            }
        }
    }
    env.stdout.flush().ok();
    if !plan.args.quiet {
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
    Ok(if linted.tool_error {
        ExitStatus::Error
    } else if linted.diffs.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
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
    baseline: Option<baseline::Applied>,
    started: Instant,
) -> report::Summary {
    let mut summary = report::Summary {
        files: linted.files,
        binary: linted.binary_files,
        elapsed: started.elapsed(),
        baseline,
        held_limit: linted.held_limit,
        ..Default::default()
    };
    summary.count(&linted.findings);
    let not_held = &linted.not_held;
    let cut_shown = not_held
        .cut
        .as_ref()
        .is_some_and(|cut| linted.findings.iter().any(|f| f.path == *cut));
    summary.not_held(
        not_held.counts,
        not_held.files + usize::from(not_held.cut.is_some() && !cut_shown),
    );
    summary
}

#[derive(PartialEq)]
enum Written {
    Whole,
    /// Standard output was closed by its reader (`forgelint | head`): a quiet success.
    PipeClosed,
}

fn write_report(
    plan: &Plan<'_>,
    linted: &Linted,
    summary: &report::Summary,
    sources: &FileSources,
    env: &mut Env<'_>,
    to_stderr: bool,
) -> Result<Written, Error> {
    let ran = rules_run(plan);
    let input = report::ReportInput {
        findings: &linted.findings,
        summary,
        rules: &ran,
        cwd: &env.cwd,
        statistics: plan.args.statistics,
        tool_error: linted.tool_error,
        threads: plan.threads,
    };
    let mut opts = report::ReportOptions {
        format: plan.args.format,
        color: plan.color,
        width: env.width,
        group_depth: plan.args.group_depth as usize,
    };
    if let Some(path) = &plan.args.output {
        opts.color = false;
        atomic_write::write_atomically(path, |w| report::write(w, &input, sources, &opts))
            .map_err(|source| Error::Write {
                path: path.display().to_string(),
                source,
            })?;
        return Ok(Written::Whole);
    }
    let out: &mut dyn std::io::Write = if to_stderr {
        opts.color = false;
        &mut *env.stderr
    } else {
        &mut *env.stdout
    };
    let written = report::write(out, &input, sources, &opts).and_then(|_| out.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Written::PipeClosed),
        Err(e) => Err(Error::Write {
            path: "standard output".into(),
            source: e,
        }),
        Ok(()) => Ok(Written::Whole),
    }
}

fn exit_status(plan: &Plan<'_>, linted: &Linted) -> ExitStatus {
    let threshold = plan.threshold;
    if linted.tool_error {
        ExitStatus::Error
    } else if plan.args.write_baseline.is_some() || plan.args.exit_zero {
        ExitStatus::Success
    } else if linted.findings.iter().any(|f| f.severity >= threshold)
        || (threshold as usize..3).any(|s| linted.not_held.counts[s] > 0)
    {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
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
        let bytes = crate::engine::read_bounded(std::path::Path::new(path)).ok()?;
        String::from_utf8(bytes).ok().map(Arc::from)
    }
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
