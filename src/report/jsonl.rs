//! `--format jsonl`: JSON Lines, for jq or DuckDB. Each finding is the `json` format's finding
//! object on one line, in the same order; a last line holds `{"summary": …}` (and `statistics`
//! with `--statistics`), so a stream that stops early is told by its missing summary.

use std::io::Write;

use serde::Serialize;

use super::chunked::write_each_finding;
use super::json::{summary_out, write_finding, FindingShape, SummaryOut};
use super::statistics::Counts;
use super::{Findings, ReportInput};
use crate::diagnostic::Finding;
use crate::json::writer::write_json_compact;

/// The last line.
#[derive(Serialize)]
struct Last<'a> {
    summary: SummaryOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    statistics: Option<serde_json::Value>,
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    write_lines(out, input.findings, input)
}

/// The lines of `findings`, then the last line from `input`'s summary.
fn write_lines(
    out: &mut dyn Write,
    findings: &dyn Findings,
    input: &ReportInput<'_>,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    // Counts per rule (bounded by the rules), gathered in the same pass as the lines.
    let mut counts = input.statistics.then(Counts::default);
    let line = |shape: &mut Option<FindingShape>, buf: &mut Vec<u8>, batch: &[Finding], i, _| {
        let shape = shape.get_or_insert_with(FindingShape::compact);
        write_finding(buf, shape, &batch[i]);
        buf.push(b'\n');
        Ok(())
    };
    write_each_finding(&mut out, findings, input.threads, line, |batch| {
        if let Some(counts) = &mut counts {
            counts.add(batch);
        }
    })?;
    let last = Last {
        summary: summary_out(input.summary),
        statistics: counts.map(|c| c.json()),
    };
    write_json_compact(&mut out, &last)?;
    writeln!(out)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Finding, Position, Severity, Span};
    use crate::report::Format;

    fn finding(path: &str, rule: &str, message: &str, line: u32) -> Finding {
        Finding {
            severity: Severity::Warning,
            message: message.to_string(),
            help: Some("a \u{2028} help".into()),
            pointer: "/spec/x".into(),
            span: Span::new(3, 9),
            start: Position { line, column: 2 },
            end: Position { line, column: 8 },
            value_hash: 1,
            ..Finding::for_tests(path, rule, line)
        }
    }

    fn render(findings: &[Finding], format: Format, statistics: bool) -> String {
        render_in(findings, format, statistics, findings.len().max(1))
    }

    /// `findings` rendered as read in batches of `size`.
    fn render_in(findings: &[Finding], format: Format, statistics: bool, size: usize) -> String {
        let summary = crate::report::Summary {
            files: 3,
            warnings: findings.len(),
            ..Default::default()
        };
        let findings = findings.to_vec();
        let input = ReportInput {
            findings: &findings,
            summary: &summary,
            rules: &[],
            cwd: std::path::Path::new("/nowhere"),
            root: std::path::Path::new("/nowhere"),
            statistics,
            tool_error: false,
            threads: 3,
        };
        let mut out = Vec::new();
        match format {
            Format::Jsonl => write_lines(
                &mut out,
                &crate::report::BatchedForTests(&findings, size),
                &input,
            )
            .unwrap(),
            _ => super::super::json::write(&mut out, &input).unwrap(),
        }
        String::from_utf8(out).unwrap()
    }

    /// Each line is one of `json`'s findings, and the last its summary and statistics; hostile
    /// text stays on its line and inert; more findings than a chunk cross the threads in order.
    #[test]
    fn lines_are_the_json_documents_findings() {
        let hostile = "x\n\r\u{1b}[2J\u{202e}\u{2028}\"\\{}";
        let findings: Vec<Finding> = (0..700)
            .map(|i| finding(&format!("dir/{hostile}{i:04}"), hostile, hostile, i + 1))
            .collect();
        let doc: serde_json::Value =
            serde_json::from_str(&render(&findings, Format::Json, true)).unwrap();
        let text = render(&findings, Format::Jsonl, true);
        for bad in ['\u{1b}', '\u{202e}', '\u{2028}', '\r'] {
            assert!(!text.contains(bad), "{bad:?}");
        }
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), findings.len() + 1);
        assert_eq!(
            &lines[..findings.len()],
            doc["findings"].as_array().unwrap()
        );
        let last = lines.last().unwrap();
        assert_eq!(last["summary"], doc["summary"]);
        assert_eq!(last["statistics"], doc["statistics"]);
        assert_eq!(last.as_object().unwrap().len(), 2);
    }

    /// Batches of any size (a chunk of lines cut short by a batch's end) give the same lines.
    #[test]
    fn batches_change_nothing() {
        let findings: Vec<Finding> = (0..600)
            .map(|i| finding(&format!("f{}", i / 7), "r", "m", i + 1))
            .collect();
        let whole = render(&findings, Format::Jsonl, true);
        for size in [1, 5, 255, 256, 257, 599] {
            assert_eq!(
                render_in(&findings, Format::Jsonl, true, size),
                whole,
                "batches of {size}"
            );
        }
    }

    #[test]
    fn no_findings_is_the_summary_alone() {
        let text = render(&[], Format::Jsonl, false);
        assert_eq!(
            text,
            "{\"summary\":{\"files\":3,\"files_with_findings\":0,\"errors\":0,\"warnings\":0,\"notes\":0}}\n"
        );
    }
}
