//! `--fix` and `--diff` on one spec: its fixes applied in passes ([`crate::fix::apply`]), then
//! the result written in place ([`crate::fix::write`]: atomically, only over the file as it was
//! read, with its mode and owner) or shown as a diff. A fix that would lose data leaves the
//! file as it was and is reported as a bug; a file that changed during the run, or cannot be
//! written as it was, is left alone and reported.

use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{Applicability, Finding, Severity, INTERNAL_ERROR};
use crate::fix::apply::fix_text;
use crate::fix::write::{write_fixed, ReadState};

/// What `--fix`, `--unsafe-fixes` and `--diff` ask of every spec.
#[derive(Debug, Clone, Copy)]
pub struct FixMode {
    pub applicability: Applicability,
    /// `--fix`: write the fixed file; `--diff`: only show what would change.
    pub write: bool,
}

/// A spec after fixing: the findings to report, how many fixes applied (or would), the diff
/// (`--diff`), and whether something went wrong (exit 2).
#[derive(Default)]
pub struct FixOutcome {
    pub findings: Vec<Finding>,
    pub applied: usize,
    pub diff: Option<String>,
    /// The fixed text, when a fix applied (for a spec read from standard input).
    pub text: Option<String>,
    pub tool_error: bool,
}

/// The file a fixed spec is written to, and what its path named when it was read (`None` when
/// that could not be told: the file is then not written).
pub type FixTarget<'a> = (&'a Path, Option<&'a ReadState>);

/// Fixes the spec at `target` (shown as `shown`; `None` for standard input), whose text is
/// `text` and whose findings are `findings` (those of its experiment's files among them);
/// `relint` lints a fixed text.
pub fn fix_spec(
    target: Option<FixTarget<'_>>,
    shown: &Arc<str>,
    text: &str,
    findings: Vec<Finding>,
    mode: FixMode,
    relint: &dyn Fn(&str) -> Vec<Finding>,
) -> FixOutcome {
    let takes = |f: &Finding| {
        f.fix
            .as_ref()
            .is_some_and(|fix| mode.applicability.takes(fix.safety))
    };
    if !findings.iter().any(|f| f.path == *shown && takes(f)) {
        return FixOutcome {
            findings,
            ..FixOutcome::default()
        };
    }
    let (own, others): (Vec<Finding>, Vec<Finding>) =
        findings.iter().cloned().partition(|f| f.path == *shown);
    let fixed = match fix_text(text, own, mode.applicability, relint) {
        Ok(fixed) if fixed.applied > 0 => fixed,
        Ok(_) => {
            return FixOutcome {
                findings,
                ..FixOutcome::default()
            }
        }
        Err(bug) => {
            let message = format!(
                "fixing `{}` would lose data: {}; the file was left as it was (a bug in forgelint: please report it)",
                bug.rule, bug.message
            );
            return failed(findings, shown, message);
        }
    };
    if !mode.write {
        return FixOutcome {
            diff: Some(crate::fix::diff::unified(shown, text, &fixed.text)),
            applied: fixed.applied,
            findings,
            ..FixOutcome::default()
        };
    }
    if let Some((path, read)) = target {
        let written = match read {
            Some(read) => write_fixed(path, read, text.as_bytes(), fixed.text.as_bytes())
                .map_err(|e| e.to_string()),
            None => Err("cannot tell whether it changed since it was read; not fixed".into()),
        };
        if let Err(message) = written {
            return failed(findings, shown, message);
        }
    }
    let mut all = fixed.findings;
    all.extend(others);
    FixOutcome {
        findings: all,
        applied: fixed.applied,
        text: Some(fixed.text),
        ..FixOutcome::default()
    }
}

/// The spec's findings as they were, and one more at its start saying why it was not fixed.
fn failed(mut findings: Vec<Finding>, shown: &Arc<str>, message: String) -> FixOutcome {
    findings.push(crate::engine::at_file_start(
        shown,
        INTERNAL_ERROR,
        Severity::Error,
        message,
    ));
    FixOutcome {
        findings,
        tool_error: true,
        ..FixOutcome::default()
    }
}
