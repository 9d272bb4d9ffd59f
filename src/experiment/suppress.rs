//! Inline suppressions in text files: `# forgelint: ignore[rule-id] reason` after the code of a
//! finding's line, or alone on the line above it, hides it; one that hides nothing is itself a
//! finding (`unused-suppression`), as is a malformed one, and one that gives no reason
//! (`suppression-without-reason`).

use super::{SUPPRESSION_WITHOUT_REASON, UNUSED_SUPPRESSION};
use crate::diagnostic::{Finding, Locator, Span};
use crate::engine::{Active, FileName};
use crate::rules::ReportedBy;
use crate::text::Region;

/// Drops the findings a suppression covers, and reports the suppressions (and the rule ids in
/// them) that covered none. A known rule that is not active for this file is not reported as
/// unused: `--select` or the config turned it off, not the code. An id of no rule is (a typo
/// would otherwise hide nothing, silently).
pub fn apply(
    text: &str,
    regions: &[Region],
    rules: &[Active<'_>],
    known: &[String],
    name: &FileName<'_>,
    findings: &mut Vec<Finding>,
) {
    let (suppressions, malformed) = crate::text::suppress::suppressions(text, regions);
    if suppressions.is_empty() && malformed.is_empty() {
        return;
    }
    let mut used: Vec<Vec<bool>> = suppressions
        .iter()
        .map(|s| vec![false; s.rules.len()])
        .collect();
    findings.retain(|f| {
        // Findings are 1-based; a suppression's line is 0-based.
        let line = f.start.line.saturating_sub(1);
        let mut hidden = false;
        for (s, flags) in suppressions.iter().zip(used.iter_mut()) {
            if !s.covers_line(line) {
                continue;
            }
            for ((id, _), flag) in s.rules.iter().zip(flags.iter_mut()) {
                if **id == *f.rule {
                    *flag = true;
                    hidden = true;
                }
            }
        }
        !hidden
    });
    let reporter = |id: &str| {
        rules
            .iter()
            .find(|a| a.rule.reported_by == ReportedBy::Suppressions && a.rule.id == id)
    };
    let (unused, no_reason) = (
        reporter(UNUSED_SUPPRESSION),
        reporter(SUPPRESSION_WITHOUT_REASON),
    );
    if unused.is_none() && no_reason.is_none() {
        return;
    }
    let active = |id: &str| rules.iter().any(|a| a.rule.id == id);
    let mut locator = Locator::new(text);
    let mut report = |by: &Active<'_>, range: std::ops::Range<usize>, message: String| {
        let (span, start, end) = locator.positions(Span::new(range.start, range.end));
        let help = if by.rule.id == UNUSED_SUPPRESSION {
            "remove the suppression, or name the rule it is for"
        } else {
            "say after the `]` why the finding is acceptable: `# forgelint: ignore[rule-id] a read-only mirror, approved`"
        };
        findings.push(Finding {
            path: name.get().clone(),
            rule: by.rule.rule_id,
            severity: by.severity,
            message,
            help: Some(help.into()),
            pointer: String::new(),
            span,
            start,
            end,
            related: Vec::new(),
            value_hash: crate::diagnostic::value_hash(
                &text[span.start as usize..span.end as usize],
            ),
            secret: false,
            fix: None,
            history: None,
        });
    };
    for (s, flags) in suppressions.iter().zip(&used) {
        let mut faulty = false;
        for ((id, range), used) in s.rules.iter().zip(flags) {
            let problem = if !known.iter().any(|k| k == id) {
                let hint = crate::error::suggest(id, known.iter().map(String::as_str))
                    .map(|k| format!("; did you mean {}?", crate::escape::quote(k, 64)))
                    .unwrap_or_default();
                format!(
                    "this suppression names {}, which is no rule{hint}",
                    crate::escape::quote(id, 64)
                )
            } else if !used && active(id) {
                let place = if s.alone {
                    "on its line or the next"
                } else {
                    "on its line"
                };
                format!(
                    "this suppression of {} hides no finding {place}",
                    crate::escape::quote(id, 64)
                )
            } else {
                continue;
            };
            faulty = true;
            if let Some(by) = unused {
                report(by, range.clone(), problem);
            }
        }
        // One fault, one finding: a suppression to remove needs no reason.
        if let (Some(by), None, false) = (no_reason, &s.reason, faulty) {
            let ids: Vec<String> = s
                .rules
                .iter()
                .map(|(id, _)| crate::escape::quote(id, 64))
                .collect();
            report(
                by,
                s.span.clone(),
                format!(
                    "this suppression of {} gives no reason; say why after the `]`",
                    ids.join(", ")
                ),
            );
        }
    }
    if let Some(by) = unused {
        for (range, why) in malformed {
            report(
                by,
                range,
                format!("malformed suppression: {}", crate::escape::visible(&why)),
            );
        }
    }
}
