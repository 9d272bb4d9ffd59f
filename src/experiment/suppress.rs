//! Inline suppressions in text files: `# forgelint: ignore[rule-id] reason` on a finding's
//! line or the line above hides it; one that hides nothing is itself a finding
//! (`unused-suppression`), as is a malformed one.

use super::UNUSED_SUPPRESSION;
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
        // Findings are 1-based; a suppression's line is 0-based: it covers its own line and
        // the next.
        let line = f.start.line.saturating_sub(1);
        let mut hidden = false;
        for (s, flags) in suppressions.iter().zip(used.iter_mut()) {
            if line != s.line && line != s.line + 1 {
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
    let Some(unused) = rules
        .iter()
        .find(|a| a.rule.reported_by == ReportedBy::Suppressions)
    else {
        return;
    };
    let active = |id: &str| rules.iter().any(|a| a.rule.id == id);
    let mut locator = Locator::new(text);
    let mut report = |range: std::ops::Range<usize>, message: String| {
        let (span, start, end) = locator.positions(Span::new(range.start, range.end));
        findings.push(Finding {
            path: name.get().clone(),
            rule: crate::diagnostic::RuleId::new(UNUSED_SUPPRESSION),
            severity: unused.severity,
            message,
            help: Some("remove the suppression, or name the rule it is for".into()),
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
        });
    };
    for (s, flags) in suppressions.iter().zip(&used) {
        for ((id, range), used) in s.rules.iter().zip(flags) {
            if !known.iter().any(|k| k == id) {
                let hint = crate::error::suggest(id, known.iter().map(String::as_str))
                    .map(|k| format!("; did you mean {}?", crate::escape::quote(k, 64)))
                    .unwrap_or_default();
                report(
                    range.clone(),
                    format!(
                        "this suppression names {}, which is no rule{hint}",
                        crate::escape::quote(id, 64)
                    ),
                );
            } else if !used && active(id) {
                report(
                    range.clone(),
                    format!(
                        "this suppression of {} hides no finding on its line or the next",
                        crate::escape::quote(id, 64)
                    ),
                );
            }
        }
    }
    for (range, why) in malformed {
        report(
            range,
            format!("malformed suppression: {}", crate::escape::visible(&why)),
        );
    }
}
