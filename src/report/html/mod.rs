//! `--format html`: one self-contained audit page (inline CSS and SVG, no script, no request)
//! for people to read: totals, findings per rule, per folder and per file, and each rule's
//! findings with code frames; for a history audit, each finding's commits and a timeline of
//! findings per month.
//!
//! The findings are read in two passes ([`Findings::each_batch`]): the first counts them and keeps
//! the first few of each rule, the second reads the files of those few again for their frames.
//! What is kept is bounded by [`Limits`], so the page and the memory stay bounded whatever the
//! number of findings.

mod aggregate;
mod frame;
mod page;
mod text;
mod timeline;

use std::io::Write;

use aggregate::Aggregate;
pub use aggregate::Limits;

use super::{Findings, ReportInput, Sources};

/// Writes the page for `input`; files are counted by their first `group_depth` folders.
/// The page, written to the folder `links_from` (its links to policy files are relative).
pub fn write(
    out: &mut dyn Write,
    input: &ReportInput<'_>,
    sources: &dyn Sources,
    group_depth: usize,
    links_from: &std::path::Path,
) -> std::io::Result<()> {
    let page = Page {
        group_depth,
        links_from,
        limits: Limits::default(),
    };
    write_with(out, input, input.findings, sources, page)
}

/// How the page is laid out: its folder breakdown, the folder it is written to, its bounds.
struct Page<'a> {
    group_depth: usize,
    links_from: &'a std::path::Path,
    limits: Limits,
}

fn write_with<F: Findings + ?Sized>(
    out: &mut dyn Write,
    input: &ReportInput<'_>,
    findings: &F,
    sources: &dyn Sources,
    page: Page<'_>,
) -> std::io::Result<()> {
    let mut agg = Aggregate::collect(findings, page.limits, page.group_depth)?;
    frame::fill(findings, &mut agg.rules, sources)?;
    page::write(out, input, &agg, page.group_depth, page.links_from)
}

#[cfg(test)]
mod tests;
