//! `--statistics`: counts per rule and per severity, most frequent first.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Value};

use std::sync::Arc;

use super::Findings;
use crate::rules::Severity;

/// Counts per rule and severity, and per severity (note, warning, error), over one pass.
struct Counts {
    /// (rule, severity, count), by count descending, then rule id.
    rows: Vec<(Arc<str>, Severity, usize)>,
    severities: [usize; 3],
    total: usize,
}

fn count(findings: &dyn Findings) -> std::io::Result<Counts> {
    let mut counts: BTreeMap<(Arc<str>, Severity), usize> = BTreeMap::new();
    let mut severities = [0usize; 3];
    let mut total = 0;
    findings.each_batch(&mut |batch| {
        for f in batch {
            // Rule ids are shared: one lookup by the id's text, no allocation.
            match counts.get_mut(&(f.rule.clone(), f.severity)) {
                Some(n) => *n += 1,
                None => {
                    counts.insert((f.rule.clone(), f.severity), 1);
                }
            }
            severities[f.severity as usize] += 1;
            total += 1;
        }
        Ok(())
    })?;
    let mut rows: Vec<(Arc<str>, Severity, usize)> =
        counts.into_iter().map(|((r, s), n)| (r, s, n)).collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    Ok(Counts {
        rows,
        severities,
        total,
    })
}

pub fn json(findings: &dyn Findings) -> std::io::Result<Value> {
    let counts = count(findings)?;
    let mut severities = BTreeMap::new();
    for s in [Severity::Note, Severity::Warning, Severity::Error] {
        let n = counts.severities[s as usize];
        if n > 0 {
            severities.insert(s.as_str(), n);
        }
    }
    Ok(json!({
        "rules": counts.rows.iter().map(|(rule, severity, count)| json!({
            "rule": &**rule, "severity": severity.as_str(), "count": count,
        })).collect::<Vec<_>>(),
        "severities": severities,
    }))
}

pub fn write_table(out: &mut dyn Write, findings: &dyn Findings) -> std::io::Result<()> {
    let counts = count(findings)?;
    let rows = &counts.rows;
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
    for (rule, severity, count) in rows {
        let rule: &str = rule;
        writeln!(out, "{count:>count_width$}  {rule:width$}  {severity}")?;
    }
    let by = |s: Severity| counts.severities[s as usize];
    writeln!(
        out,
        "{:>count_width$}  total ({} errors, {} warnings, {} notes)",
        counts.total,
        by(Severity::Error),
        by(Severity::Warning),
        by(Severity::Note)
    )
}
