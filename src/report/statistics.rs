//! `--statistics`: counts per rule and per severity, most frequent first.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Value};

use super::Findings;
use crate::diagnostic::{Finding, RuleId, Severity};

/// Counts per rule and severity gathered batch by batch, for a report that reads its findings
/// in passes: one entry per rule and severity found, whatever the number of findings.
#[derive(Default)]
pub struct Counts(BTreeMap<(RuleId, Severity), usize>);

impl Counts {
    /// The counts of every finding, in one pass.
    pub fn of(findings: &dyn Findings) -> std::io::Result<Counts> {
        let mut counts = Counts::default();
        findings.each_batch(&mut |batch| {
            counts.add(batch);
            Ok(())
        })?;
        Ok(counts)
    }

    pub fn add(&mut self, findings: &[Finding]) {
        for f in findings {
            // Rule ids are interned: a key is a copy, no text.
            *self.0.entry((f.rule, f.severity)).or_insert(0) += 1;
        }
    }

    /// (rule, severity, count), by count descending, then rule id.
    fn rows(&self) -> Vec<(&str, Severity, usize)> {
        let mut rows: Vec<(&str, Severity, usize)> =
            self.0.iter().map(|((r, s), n)| (&**r, *s, *n)).collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
        rows
    }

    fn severity(&self, severity: Severity) -> usize {
        self.0
            .iter()
            .filter(|((_, s), _)| *s == severity)
            .map(|(_, n)| n)
            .sum()
    }

    /// The `statistics` member of JSON reports.
    pub fn json(&self) -> Value {
        let mut severities = BTreeMap::new();
        for ((_, severity), n) in &self.0 {
            *severities.entry(severity.as_str()).or_insert(0usize) += n;
        }
        json!({
            "rules": self.rows().iter().map(|(rule, severity, count)| json!({
                "rule": rule, "severity": severity.as_str(), "count": count,
            })).collect::<Vec<_>>(),
            "severities": severities,
        })
    }
}

pub fn json(findings: &dyn Findings) -> std::io::Result<Value> {
    Ok(Counts::of(findings)?.json())
}

pub fn write_table(out: &mut dyn Write, findings: &dyn Findings) -> std::io::Result<()> {
    let counts = Counts::of(findings)?;
    let rows = counts.rows();
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
    let total: usize = rows.iter().map(|r| r.2).sum();
    writeln!(
        out,
        "{:>count_width$}  total ({} errors, {} warnings, {} notes)",
        total,
        counts.severity(Severity::Error),
        counts.severity(Severity::Warning),
        counts.severity(Severity::Note)
    )
}
