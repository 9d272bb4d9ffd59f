//! `--statistics`: counts per rule and per severity, most frequent first.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::diagnostic::Finding;
use crate::rules::Severity;

/// (rule, severity, count), by count descending, then rule id.
pub fn per_rule(findings: &[Finding]) -> Vec<(&str, Severity, usize)> {
    let mut counts: BTreeMap<(&str, Severity), usize> = BTreeMap::new();
    for f in findings {
        *counts.entry((&f.rule, f.severity)).or_default() += 1;
    }
    let mut rows: Vec<(&str, Severity, usize)> =
        counts.into_iter().map(|((r, s), n)| (r, s, n)).collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    rows
}

pub fn json(findings: &[Finding]) -> Value {
    let mut counts = Counts::default();
    counts.add(findings);
    counts.json()
}

/// Counts per rule and severity gathered batch by batch, for a report that reads its findings
/// in passes: one entry per rule and severity found, whatever the number of findings.
#[derive(Default)]
pub struct Counts(BTreeMap<(Arc<str>, Severity), usize>);

impl Counts {
    pub fn add(&mut self, findings: &[Finding]) {
        for f in findings {
            match self.0.get_mut(&(f.rule.clone(), f.severity)) {
                Some(n) => *n += 1,
                None => {
                    self.0.insert((f.rule.clone(), f.severity), 1);
                }
            }
        }
    }

    /// The `statistics` member of JSON reports.
    pub fn json(&self) -> Value {
        let mut severities = BTreeMap::new();
        for ((_, severity), n) in &self.0 {
            *severities.entry(severity.as_str()).or_insert(0usize) += n;
        }
        let mut rows: Vec<(&str, Severity, usize)> =
            self.0.iter().map(|((r, s), n)| (&**r, *s, *n)).collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
        json!({
            "rules": rows.iter().map(|(rule, severity, count)| json!({
                "rule": rule, "severity": severity.as_str(), "count": count,
            })).collect::<Vec<_>>(),
            "severities": severities,
        })
    }
}

pub fn write_table(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    let rows = per_rule(findings);
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    let count_width = rows
        .iter()
        .map(|r| r.2.to_string().len())
        .max()
        .unwrap_or(5)
        .max(5);
    writeln!(
        out,
        "{:>count_width$}  {:width$}  SEVERITY",
        "COUNT", "RULE"
    )?;
    for (rule, severity, count) in &rows {
        writeln!(out, "{count:>count_width$}  {rule:width$}  {severity}")?;
    }
    let by = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    writeln!(
        out,
        "{:>count_width$}  total ({} errors, {} warnings, {} notes)",
        findings.len(),
        by(Severity::Error),
        by(Severity::Warning),
        by(Severity::Note)
    )
}
