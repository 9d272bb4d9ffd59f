//! `--format github`: GitHub Actions workflow commands, one annotation per finding.
//!
//! Escaping follows what the Actions runner decodes: in the message `%`, CR and LF; in
//! properties also `:` and `,`. GitHub shows only about ten annotations of each severity per
//! step, so after ten of a severity the rest are printed as plain log lines (prefixed so the
//! runner can never read them as commands) and one notice says how many and how to see them all.

use std::io::Write;

use super::ReportInput;
use crate::diagnostic::{Finding, Severity};
use crate::escape::visible;

/// Annotations of one severity GitHub shows per step.
pub const ANNOTATIONS_PER_SEVERITY: usize = 10;

pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    }
}

/// The annotation of `f`, whose file GitHub knows by `path`: relative to the repository.
fn annotation(f: &Finding, path: &str) -> String {
    let path = visible(path);
    // In a history audit a removed finding's lines are gone from the files: it is annotated
    // without a place, its commits in the message.
    let removed = f.history.as_ref().is_some_and(|h| h.removed.is_some());
    let mut props = if removed {
        String::new()
    } else {
        format!(
            "file={},line={},endLine={},",
            escape_property(&path),
            f.start.line,
            f.end.line
        )
    };
    if f.start.line == f.end.line && !removed {
        // GitHub refuses an empty column range; a zero-width span marks one column.
        let end = f.end.column.max(f.start.column + 1);
        props.push_str(&format!("col={},endColumn={end},", f.start.column));
    }
    props.push_str(&format!("title={}", escape_property(&f.rule)));
    let mut message = format!(
        "{path}:{}:{}: {}",
        f.start.line,
        f.start.column,
        visible(&f.message)
    );
    if let Some(history) = &f.history {
        message.push_str(&format!("\n{}", super::history::sentence(history)));
    }
    if let Some(help) = &f.help {
        message.push_str(&format!("\nhelp: {}", visible(help)));
    }
    format!(
        "::{} {props}::{}",
        command(f.severity),
        escape_data(&message)
    )
}

/// Annotations for the first findings of each severity; the rest as plain log lines after
/// them (a second pass), then a notice of how many.
pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    write_findings(out, input)?;
    match input.summary.left_out {
        Some(left) => writeln!(
            out,
            "::warning title=forgelint::{}",
            escape_data(&format!("{}.", left.text()))
        ),
        None => Ok(()),
    }
}

fn write_findings(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let mut shown = [0usize; 3];
    let mut overflow = 0;
    input.findings.each_batch(&mut |batch| {
        for f in batch {
            let slot = &mut shown[f.severity as usize];
            if *slot < ANNOTATIONS_PER_SEVERITY {
                *slot += 1;
                writeln!(out, "{}", annotation(f, &input.path_from_root(&f.path)))?;
            } else {
                overflow += 1;
            }
        }
        Ok(())
    })?;
    if overflow == 0 {
        return Ok(());
    }
    let mut shown = [0usize; 3];
    input.findings.each_batch(&mut |batch| {
        for f in batch {
            let slot = &mut shown[f.severity as usize];
            if *slot < ANNOTATIONS_PER_SEVERITY {
                *slot += 1;
                continue;
            }
            // The runner trims leading spaces before looking for `::`; a word first keeps
            // these lines plain text whatever the path holds.
            writeln!(out, "forgelint: {}", escape_data(&super::concise::line(f)))?;
        }
        Ok(())
    })?;
    writeln!(
        out,
        "::notice title=forgelint::{}",
        escape_data(&format!(
            "{overflow} more findings are not shown as annotations (GitHub shows about {ANNOTATIONS_PER_SEVERITY} per severity); they are listed in this step's log above. Upload SARIF (--format sarif) to code scanning, or run forgelint --format concise, to see them all."
        ))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_runner_decodes() {
        assert_eq!(escape_data("a%b\r\nc"), "a%25b%0D%0Ac");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
