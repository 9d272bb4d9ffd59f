//! `path:line:col: severity[rule-id] message`, one finding per line.

use std::io::Write;

use crate::diagnostic::Finding;
use crate::escape::visible;

/// One finding's line, without the line break.
pub fn line(f: &Finding) -> String {
    format!(
        "{}:{}:{}: {}[{}] {}",
        visible(&f.path),
        f.start.line,
        f.start.column,
        f.severity,
        f.rule,
        visible(&f.message)
    )
}

pub fn write(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    for f in findings {
        writeln!(out, "{}", line(f))?;
    }
    Ok(())
}
