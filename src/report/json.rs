//! `--format json`: one stable document (see the README for its schema), streamed finding by
//! finding from borrowed data.

use std::io::Write;

use serde::ser::{Serialize, Serializer};
use serde::Serialize as DeriveSerialize;

use super::{statistics, ReportInput};
use crate::diagnostic::Finding;
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

/// The findings as a sequence, converted one at a time while they are written.
struct Findings<'a>(&'a [Finding]);

impl Serialize for Findings<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(FindingOut::from))
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

#[derive(DeriveSerialize)]
struct Document<'a> {
    version: u32,
    tool: Tool,
    findings: Findings<'a>,
    summary: SummaryOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    statistics: Option<serde_json::Value>,
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let s = input.summary;
    let doc = Document {
        version: FORMAT_VERSION,
        tool: Tool {
            name: "forgelint",
            version: env!("CARGO_PKG_VERSION"),
        },
        findings: Findings(input.findings),
        summary: SummaryOut {
            files: s.files,
            files_with_findings: s.files_with_findings,
            errors: s.errors,
            warnings: s.warnings,
            notes: s.notes,
            baseline: s.baseline.map(|b| Baseline {
                hidden: b.hidden,
                stale: b.stale,
            }),
        },
        statistics: input.statistics.then(|| statistics::json(input.findings)),
    };
    crate::escape::write_json(out, &doc)?;
    writeln!(out)
}
