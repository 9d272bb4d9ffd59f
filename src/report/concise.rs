//! `path:line:col: severity[rule-id] message`, one finding per line (in a history audit, the
//! commits that introduced and removed it after the message).

use std::io::Write;

use super::Findings;
use crate::diagnostic::Finding;
use crate::escape::visible;

/// One finding's line, without the line break.
pub fn line(f: &Finding) -> String {
    let mut line = format!(
        "{}:{}:{}: {}[{}] {}",
        visible(&f.path),
        f.start.line,
        f.start.column,
        f.severity,
        f.rule,
        visible(&f.message)
    );
    if let Some(history) = &f.history {
        line.push(' ');
        line.push_str(&super::history::brief(history));
    }
    line
}

/// `findings` one per line; a long list is rendered on `threads` threads.
pub fn write_slice(
    out: &mut dyn Write,
    findings: &[Finding],
    threads: usize,
) -> std::io::Result<()> {
    super::chunked::write_in_chunks(out, findings.len(), threads, |_: &mut (), buf, i| {
        writeln!(buf, "{}", line(&findings[i]))
    })
}

/// Every finding one per line, rendered on several threads.
pub fn write(out: &mut dyn Write, findings: &dyn Findings, threads: usize) -> std::io::Result<()> {
    let line = |_: &mut (), buf: &mut Vec<u8>, batch: &[Finding], i: usize, _| {
        writeln!(buf, "{}", line(&batch[i]))
    };
    super::chunked::write_each_finding(out, findings, threads, line, |_| {})
}
