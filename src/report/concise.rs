//! `path:line:col: severity[rule-id] message`, one finding per line.

use std::io::Write;

use crate::diagnostic::Finding;
use crate::escape::visible;

pub fn write(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    for f in findings {
        writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            visible(&f.path),
            f.start.line,
            f.start.column,
            f.severity,
            f.rule,
            visible(&f.message)
        )?;
    }
    Ok(())
}
