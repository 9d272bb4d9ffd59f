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

/// The findings one per line; a long list is rendered on `threads` threads.
pub fn write(out: &mut dyn Write, findings: &[Finding], threads: usize) -> std::io::Result<()> {
    super::chunked::write_in_chunks(out, findings.len(), threads, |_: &mut (), buf, i| {
        writeln!(buf, "{}", line(&findings[i]))
    })
}
