//! `--format json`: one stable document (see the README for its schema), streamed finding by
//! finding from borrowed data.

use std::io::Write;

use serde::Serialize as DeriveSerialize;

use super::pretty::{write_array, ObjectWriter};
use super::{statistics, ReportInput};
use crate::diagnostic::Finding;
use crate::escape::write_json_at;
use crate::source::Position;

/// Version of the document's shape; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

#[derive(DeriveSerialize)]
struct Pos {
    line: u32,
    column: u32,
}

impl From<Position> for Pos {
    fn from(p: Position) -> Pos {
        Pos {
            line: p.line,
            column: p.column,
        }
    }
}

#[derive(DeriveSerialize)]
struct ByteSpan {
    start: u32,
    end: u32,
}

#[derive(DeriveSerialize)]
struct RelatedOut<'a> {
    message: &'a str,
    span: ByteSpan,
    start: Pos,
    end: Pos,
}

#[derive(DeriveSerialize)]
struct FindingOut<'a> {
    path: &'a str,
    rule: &'a str,
    severity: &'static str,
    message: &'a str,
    help: Option<&'a str>,
    pointer: &'a str,
    span: ByteSpan,
    start: Pos,
    end: Pos,
    related: Vec<RelatedOut<'a>>,
}

impl<'a> From<&'a Finding> for FindingOut<'a> {
    fn from(f: &'a Finding) -> FindingOut<'a> {
        FindingOut {
            path: &f.path,
            rule: &f.rule,
            severity: f.severity.as_str(),
            message: &f.message,
            help: f.help.as_deref(),
            pointer: &f.pointer,
            span: ByteSpan {
                start: f.span.start,
                end: f.span.end,
            },
            start: f.start.into(),
            end: f.end.into(),
            related: f
                .related
                .iter()
                .map(|r| RelatedOut {
                    message: &r.label,
                    span: ByteSpan {
                        start: r.span.start,
                        end: r.span.end,
                    },
                    start: r.start.into(),
                    end: r.end.into(),
                })
                .collect(),
        }
    }
}

#[derive(DeriveSerialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(DeriveSerialize)]
struct Baseline {
    hidden: usize,
    stale: usize,
}

#[derive(DeriveSerialize)]
struct SummaryOut {
    files: usize,
    files_with_findings: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<Baseline>,
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let s = input.summary;
    let summary = SummaryOut {
        files: s.files,
        files_with_findings: s.files_with_findings,
        errors: s.errors,
        warnings: s.warnings,
        notes: s.notes,
        baseline: s.baseline.map(|b| Baseline {
            hidden: b.hidden,
            stale: b.stale,
        }),
    };
    // serde_json writes a token at a time: a concrete buffer in front of the `dyn` writer keeps
    // those small writes out of virtual calls.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut doc = ObjectWriter::begin(&mut out, 0)?;
    doc.value("version", &FORMAT_VERSION)?;
    doc.value(
        "tool",
        &Tool {
            name: "forgelint",
            version: env!("CARGO_PKG_VERSION"),
        },
    )?;
    // The findings are the bulk of the document: rendered on the worker threads.
    let findings = input.findings;
    doc.field("findings", |out, level| {
        write_array(
            out,
            level,
            findings.len(),
            input.threads,
            |buf, i, level| write_json_at(buf, level, &FindingOut::from(&findings[i])),
        )
    })?;
    doc.value("summary", &summary)?;
    if input.statistics {
        doc.value("statistics", &statistics::json(findings))?;
    }
    doc.end()?;
    writeln!(out)?;
    out.flush()
}
