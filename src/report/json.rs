//! `--format json`: one stable document (see the README for its schema).

use std::io::Write;

use serde_json::{json, Value};

use super::{statistics, ReportInput};
use crate::diagnostic::Finding;
use crate::source::Position;

/// Version of the document's shape; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

fn position(p: Position) -> Value {
    json!({ "line": p.line, "column": p.column })
}

pub fn finding(f: &Finding) -> Value {
    json!({
        "path": &*f.path,
        "rule": &*f.rule,
        "severity": f.severity.as_str(),
        "message": f.message,
        "help": f.help,
        "pointer": f.pointer,
        "span": { "start": f.span.start, "end": f.span.end },
        "start": position(f.start),
        "end": position(f.end),
        "related": f.related.iter().map(|r| json!({
            "message": r.label,
            "span": { "start": r.span.start, "end": r.span.end },
            "start": position(r.start),
            "end": position(r.end),
        })).collect::<Vec<_>>(),
    })
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let s = input.summary;
    let mut doc = json!({
        "version": FORMAT_VERSION,
        "tool": { "name": "forgelint", "version": env!("CARGO_PKG_VERSION") },
        "findings": input.findings.iter().map(finding).collect::<Vec<_>>(),
        "summary": {
            "files": s.files,
            "files_with_findings": s.files_with_findings,
            "errors": s.errors,
            "warnings": s.warnings,
            "notes": s.notes,
        },
    });
    if let Some(b) = s.baseline {
        doc["summary"]["baseline"] = json!({ "hidden": b.hidden, "stale": b.stale });
    }
    if input.statistics {
        doc["statistics"] = statistics::json(input.findings);
    }
    crate::escape::write_json(out, &doc)?;
    writeln!(out)
}
