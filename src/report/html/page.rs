//! The page: totals, a chart of findings per rule, the breakdown by folder, the files with the
//! most findings, then each rule's findings in a collapsed group. Every value written here goes
//! through [`Esc`]; numbers and the page's own markup are the only things written raw.

use std::io::{self, Write};
use std::path::Path;

use super::aggregate::{total, Aggregate, Counts, Folder, Framed, RuleGroup};
use super::text::{count, thousands, Esc, EscCut};
use crate::diagnostic::Severity;
use crate::report::{ReportInput, Summary};
use crate::rules::Rule;

/// Characters of a rule id in the chart's labels.
const LABEL_CHARS: usize = 34;
/// Characters of a message shown with a frame.
const MESSAGE_CHARS: usize = 2000;

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Note];

/// The page; `links_from` is the folder it is written to, which its links to policy files are
/// relative to.
pub fn write(
    out: &mut dyn Write,
    input: &ReportInput<'_>,
    agg: &Aggregate,
    group_depth: usize,
    links_from: &Path,
) -> io::Result<()> {
    head(out)?;
    totals(out, input.summary)?;
    agg.timeline.write(out)?;
    if !agg.rules.is_empty() {
        chart(out, agg)?;
        folders(out, agg, group_depth)?;
        top_files(out, agg)?;
        groups(out, input, agg, links_from)?;
    }
    writeln!(
        out,
        "<footer>forgelint {} · <a href=\"{}\">{}</a></footer>\n</main>\n</body>\n</html>",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_REPOSITORY"),
    )
}

fn head(out: &mut dyn Write) -> io::Result<()> {
    // No script, no request: the page works from a file, and a value that slipped past the
    // escaping could still run nothing (the policy allows inline styles only).
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"forgelint {}\">\n\
         <title>forgelint audit report</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n\
         <h1>forgelint audit report</h1>\n",
        env!("CARGO_PKG_VERSION"),
    )
}

/// The class of a severity's badge: its name.
fn severity_class(s: Severity) -> &'static str {
    s.as_str()
}

fn totals(out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
    writeln!(out, "<section id=\"totals\">\n<dl class=\"cards\">")?;
    let files = match summary.history {
        Some(_) => "file versions checked",
        None => "files checked",
    };
    let cards = [
        ("files", files, summary.files, "card"),
        (
            "files-with-findings",
            "files with findings",
            summary.files_with_findings,
            "card",
        ),
        ("errors", "errors", summary.errors, "card error"),
        ("warnings", "warnings", summary.warnings, "card warning"),
        ("notes", "notes", summary.notes, "card note"),
    ];
    for (id, label, n, class) in cards {
        writeln!(
            out,
            "<div class=\"{class}\"><dt>{label}</dt><dd id=\"total-{id}\" data-count=\"{n}\">{}</dd></div>",
            thousands(n)
        )?;
    }
    writeln!(out, "</dl>")?;
    let mut notes: Vec<String> = Vec::new();
    if summary.errors + summary.warnings + summary.notes == 0 {
        notes.push(format!(
            "No findings in {} checked.",
            count(summary.files, "file")
        ));
    }
    if let Some(h) = &summary.history {
        notes.extend(history_notes(h));
    }
    if let Some(since) = &summary.new_from_rev {
        notes.push(format!(
            "{} hidden: the files had them at {}.",
            count(since.hidden, "finding"),
            since.rev
        ));
    }
    if summary.binary > 0 {
        notes.push(format!(
            "{} skipped as binary.",
            count(summary.binary, "experiment file")
        ));
    }
    if summary.incomplete {
        notes.push("Not every path could be linted: see the run's errors.".into());
    }
    if let Some(b) = summary.baseline {
        let stale = match b.stale {
            1 => "1 baseline entry is stale".to_string(),
            n => format!("{} baseline entries are stale", thousands(n)),
        };
        notes.push(format!(
            "{} hidden by the baseline; {stale}.",
            count(b.hidden, "finding")
        ));
    }
    if let Some(left) = summary.left_out {
        notes.push(format!("{}.", left.text()));
    }
    for skipped in &summary.skipped {
        notes.push(format!("{}.", skipped.text()));
    }
    if let Some(line) = summary.fixes.line(false) {
        notes.push(line);
    }
    if !notes.is_empty() {
        writeln!(out, "<ul class=\"notes\">")?;
        for note in notes {
            writeln!(out, "<li>{}</li>", Esc(&note))?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(out, "</section>")
}

/// What a history audit read of git, and what it skipped.
fn history_notes(h: &crate::report::HistoryRead) -> Vec<String> {
    let mut notes = vec![format!(
        "Read {}: {} linted, each once.",
        count(h.commits, "commit"),
        count(h.versions, "distinct file version")
    )];
    if !h.shallow.is_empty() {
        let stops: Vec<&str> = h.shallow.iter().map(|c| c.get(..7).unwrap_or(c)).collect();
        notes.push(format!(
            "History stops at {} (a shallow clone): what is there is reported as introduced there or before.",
            stops.join(", ")
        ));
    }
    if !h.submodules.is_empty() {
        notes.push(format!(
            "Skipped {}, whose history is another repository's: {}.",
            count(h.submodules.len(), "submodule"),
            h.submodules.join(", ")
        ));
    }
    if !h.lfs.is_empty() {
        notes.push(format!(
            "Skipped {} stored as Git LFS pointers: {}.",
            count(h.lfs.len(), "file"),
            h.lfs.join(", ")
        ));
    }
    notes
}

/// Horizontal bars, one per rule, stacked by severity; each links to its rule's group.
fn chart(out: &mut dyn Write, agg: &Aggregate) -> io::Result<()> {
    const ROW: usize = 24;
    const LABEL: usize = 270;
    const BARS: usize = 600;
    let max = agg
        .rules
        .iter()
        .map(RuleGroup::total)
        .max()
        .unwrap_or(1)
        .max(1);
    let height = agg.rules.len() * ROW + 8;
    writeln!(
        out,
        "<section id=\"chart\">\n<h2>Findings per rule</h2>\n\
         <svg class=\"chart\" role=\"img\" aria-label=\"Findings per rule\" viewBox=\"0 0 1000 {height}\" width=\"1000\" height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\">"
    )?;
    for (n, group) in agg.rules.iter().enumerate() {
        let y = n * ROW + 4;
        writeln!(
            out,
            "<a href=\"#rule-{n}\"><title>{}: {}</title>\
             <text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"end\">{}</text>",
            Esc(&group.id),
            breakdown(&group.counts),
            LABEL - 8,
            y + 16,
            EscCut(&group.id, LABEL_CHARS),
        )?;
        let mut x = LABEL as f64;
        for s in SEVERITIES {
            let n = group.counts[s as usize];
            if n == 0 {
                continue;
            }
            // At least a sliver, so that a single note next to a million errors still shows.
            let w = (n as f64 / max as f64 * BARS as f64).max(1.0);
            writeln!(
                out,
                "<rect x=\"{x:.1}\" y=\"{}\" width=\"{w:.1}\" height=\"{}\" class=\"{}\"/>",
                y + 2,
                ROW - 6,
                severity_class(s)
            )?;
            x += w;
        }
        writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{}\" class=\"count\">{}</text></a>",
            x + 6.0,
            y + 16,
            thousands(group.total())
        )?;
    }
    writeln!(out, "</svg>\n</section>")
}

/// "3 errors, 1 warning": the non-zero counts, errors first.
fn breakdown(counts: &Counts) -> String {
    let parts: Vec<String> = SEVERITIES
        .iter()
        .filter(|&&s| counts[s as usize] > 0)
        .map(|&s| count(counts[s as usize], severity_class(s)))
        .collect();
    parts.join(", ")
}

fn count_cells(out: &mut dyn Write, counts: &Counts) -> io::Result<()> {
    for s in SEVERITIES {
        write!(
            out,
            "<td class=\"num\">{}</td>",
            thousands(counts[s as usize])
        )?;
    }
    write!(out, "<td class=\"num\">{}</td>", thousands(total(counts)))
}

fn folders(out: &mut dyn Write, agg: &Aggregate, depth: usize) -> io::Result<()> {
    let max = agg
        .folders
        .values()
        .map(|f| total(&f.counts))
        .max()
        .unwrap_or(1)
        .max(1);
    writeln!(
        out,
        "<section id=\"folders\">\n<h2>By folder</h2>\n\
         <p class=\"hint\">Each file is counted in the first {} of its path (<code>--group-depth {depth}</code>), folders in name order.</p>\n\
         <table>\n<thead><tr><th>Folder</th><th class=\"num\">Files</th><th class=\"num\">Errors</th><th class=\"num\">Warnings</th><th class=\"num\">Notes</th><th class=\"num\">Findings</th><th></th></tr></thead>\n<tbody>",
        count(depth, "folder")
    )?;
    let row = |out: &mut dyn Write, name: &str, folder: &Folder| -> io::Result<()> {
        write!(
            out,
            "<tr><td class=\"path\">{}</td><td class=\"num\">{}</td>",
            Esc(name),
            thousands(folder.files)
        )?;
        count_cells(out, &folder.counts)?;
        let share = total(&folder.counts) as f64 / max as f64 * 100.0;
        writeln!(
            out,
            "<td class=\"barcell\"><span class=\"bar\" style=\"width:{share:.1}%\"></span></td></tr>"
        )
    };
    for (name, folder) in &agg.folders {
        row(out, name, folder)?;
    }
    writeln!(out, "</tbody>\n</table>")?;
    let other = &agg.other_folders;
    if other.files > 0 {
        writeln!(
            out,
            "<p class=\"more\">and {} in {} in further folders (the table stops at {}).</p>",
            count(total(&other.counts), "finding"),
            count(other.files, "file"),
            count(agg.folders.len(), "folder"),
        )?;
    }
    writeln!(out, "</section>")
}

fn top_files(out: &mut dyn Write, agg: &Aggregate) -> io::Result<()> {
    let top = agg.top_files();
    writeln!(
        out,
        "<section id=\"files\">\n<h2>Files with the most findings</h2>\n\
         <table>\n<thead><tr><th class=\"num\">#</th><th>File</th><th class=\"num\">Errors</th><th class=\"num\">Warnings</th><th class=\"num\">Notes</th><th class=\"num\">Findings</th></tr></thead>\n<tbody>"
    )?;
    for (n, file) in top.iter().enumerate() {
        write!(
            out,
            "<tr><td class=\"num\">{}</td><td class=\"path\">{}</td>",
            n + 1,
            Esc(&file.path)
        )?;
        count_cells(out, &file.counts)?;
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody>\n</table>")?;
    if agg.files > top.len() {
        let more = agg.files - top.len();
        writeln!(
            out,
            "<p class=\"more\">and {} more {} with findings</p>",
            thousands(more),
            if more == 1 { "file" } else { "files" }
        )?;
    }
    writeln!(out, "</section>")
}

fn groups(
    out: &mut dyn Write,
    input: &ReportInput<'_>,
    agg: &Aggregate,
    links_from: &Path,
) -> io::Result<()> {
    writeln!(
        out,
        "<section id=\"findings\">\n<h2>Findings by rule</h2>\n\
         <p class=\"hint\">The first findings of each rule in path order, with their code; then one line each.</p>"
    )?;
    for (n, group) in agg.rules.iter().enumerate() {
        let rule = input.rules.iter().find(|r| *r.id == *group.id).copied();
        let docs = rule.map(|r| docs_link(r, links_from, input.cwd));
        group_section(out, n, group, rule, docs.as_deref())?;
    }
    writeln!(out, "</section>")
}

fn group_section(
    out: &mut dyn Write,
    n: usize,
    group: &RuleGroup,
    rule: Option<&Rule>,
    docs: Option<&str>,
) -> io::Result<()> {
    group_summary(out, n, group, rule)?;
    writeln!(out, "</summary>\n<div class=\"body\">")?;
    // A finding's help repeats its rule's most of the time: shown once, here.
    let rule_help = rule
        .and_then(|r| r.help.as_ref())
        .map(|h| h.render(|_| Some("…")));
    if let Some(help) = &rule_help {
        writeln!(out, "<p class=\"fix\">Fix: {}</p>", Esc(help))?;
    }
    group_docs(out, group, rule, docs)?;
    writeln!(out, "<ol class=\"framed\">")?;
    for framed in &group.framed {
        framed_finding(out, framed, rule_help.as_ref())?;
    }
    writeln!(out, "</ol>")?;
    listed_findings(out, group)?;
    if group.rest() > 0 {
        writeln!(
            out,
            "<p class=\"more\">and {} more</p>",
            thousands(group.rest())
        )?;
    }
    writeln!(out, "</div>\n</details>")
}

/// The line of a rule's group that shows while it is collapsed: its id, counts and summary.
fn group_summary(
    out: &mut dyn Write,
    n: usize,
    group: &RuleGroup,
    rule: Option<&Rule>,
) -> io::Result<()> {
    write!(
        out,
        "<details class=\"rule\" id=\"rule-{n}\">\n<summary><code class=\"id\">{}</code> \
         <span class=\"total\">{}</span>",
        Esc(&group.id),
        thousands(group.total())
    )?;
    for s in SEVERITIES {
        let k = group.counts[s as usize];
        if k > 0 {
            write!(
                out,
                " <span class=\"badge {}\">{}</span>",
                severity_class(s),
                count(k, severity_class(s))
            )?;
        }
    }
    if let Some(rule) = rule {
        write!(
            out,
            " <span class=\"summary\">{}</span>",
            Esc(&rule.summary)
        )?;
    }
    Ok(())
}

/// Where a rule's documentation is: a built-in rule's page, or a policy's own file, linked
/// relative to the page's folder `from` (a page and its repository move together; an
/// absolute `file:` link would name the machine that wrote it).
fn docs_link(rule: &Rule, from: &Path, cwd: &Path) -> String {
    if rule.origin.builtin {
        return crate::report::sarif::help_uri(rule);
    }
    let file = crate::paths::normalize(Path::new(&rule.origin.name), cwd);
    let from = crate::paths::normalize(from, cwd);
    crate::paths::relative_link(&from, &file).unwrap_or_else(|| crate::paths::file_uri(&file))
}

/// The link to the rule's documentation, and how many files its findings are in.
fn group_docs(
    out: &mut dyn Write,
    group: &RuleGroup,
    rule: Option<&Rule>,
    docs: Option<&str>,
) -> io::Result<()> {
    match (rule, docs) {
        (Some(rule), Some(docs)) => writeln!(
            out,
            "<p class=\"docs\"><a href=\"{}\">Documentation of {}</a> · in {}</p>",
            Esc(docs),
            Esc(&rule.id),
            count(group.files, "file")
        ),
        _ => writeln!(
            out,
            "<p class=\"docs\">In {}.</p>",
            count(group.files, "file")
        ),
    }
}

/// One of the first findings of a rule: where, the message, its code frame, its related
/// places, and its help when it is not the rule's.
fn framed_finding(
    out: &mut dyn Write,
    framed: &Framed,
    rule_help: Option<&String>,
) -> io::Result<()> {
    let f = &framed.finding;
    writeln!(
        out,
        "<li class=\"finding {}\"><div class=\"where\"><span class=\"sev\">{}</span> <code>{}:{}:{}</code></div>\n\
         <div class=\"msg\">{}</div>",
        severity_class(f.severity),
        f.severity,
        Esc(&f.path),
        f.start.line,
        f.start.column,
        EscCut(&f.message, MESSAGE_CHARS)
    )?;
    if let Some(history) = &f.history {
        writeln!(
            out,
            "<div class=\"commits\">{}</div>",
            Esc(&crate::report::history::sentence(history))
        )?;
    }
    match &framed.frame {
        Some(frame) => writeln!(out, "{frame}")?,
        None => writeln!(
            out,
            "<p class=\"hint\">(no code frame: the file is binary, or could not be read again)</p>"
        )?,
    }
    for related in &f.related {
        let place = match &related.path {
            Some(path) => format!("{}:{}:{}", path, related.start.line, related.start.column),
            None => format!(
                "line {}, column {}",
                related.start.line, related.start.column
            ),
        };
        writeln!(
            out,
            "<div class=\"related\">{} ({})</div>",
            EscCut(&related.label, MESSAGE_CHARS),
            Esc(&place)
        )?;
    }
    if let Some(help) = f.help.as_ref().filter(|h| Some(*h) != rule_help) {
        writeln!(
            out,
            "<div class=\"help\">help: {}</div>",
            EscCut(help, MESSAGE_CHARS)
        )?;
    }
    writeln!(out, "</li>")
}

/// The next findings of a rule, one line each.
fn listed_findings(out: &mut dyn Write, group: &RuleGroup) -> io::Result<()> {
    if group.listed.is_empty() {
        return Ok(());
    }
    writeln!(out, "<ul class=\"lines\">")?;
    for line in &group.listed {
        let commits = line.commits.as_deref().unwrap_or_default();
        writeln!(
            out,
            "<li class=\"{}\"><span class=\"sev\">{}</span> <code>{}:{}:{}</code> {}{}{}</li>",
            severity_class(line.severity),
            line.severity,
            Esc(&line.path),
            line.start.line,
            line.start.column,
            Esc(&line.message),
            if commits.is_empty() { "" } else { " " },
            Esc(commits)
        )?;
    }
    writeln!(out, "</ul>")
}

const CSS: &str = "
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;--error:#cf222e;--warning:#bf8700;--note:#0969da;--mark:#fff1a8;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;--error:#f85149;--warning:#d29922;--note:#4493f8;--mark:#5a4a00;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 16px}
h2{font-size:18px;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
a{color:var(--link)}
code,pre,.path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:0}
.card{flex:1 1 150px;background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px 14px;border-top:4px solid var(--line)}
.card dt{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card dd{margin:0;font-size:26px;font-weight:600}
.card.error{border-top-color:var(--error)}.card.warning{border-top-color:var(--warning)}.card.note{border-top-color:var(--note)}
.notes{color:var(--muted);padding-left:20px}
.hint,.more{color:var(--muted)}
svg.chart{max-width:100%;height:auto;display:block}
svg .label,svg .count{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;fill:var(--fg)}
svg .error{fill:var(--error)}svg .warning{fill:var(--warning)}svg .note{fill:var(--note)}
svg a:hover text{text-decoration:underline}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:12px}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.path{word-break:break-all}
.barcell{width:22%}
.bar{display:block;height:10px;margin-top:5px;background:var(--note);border-radius:2px;min-width:1px}
details.rule{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:var(--bg)}
details.rule>summary{cursor:pointer;padding:8px 12px;background:var(--panel);border-radius:6px}
details.rule[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}
.id{font-weight:600}.total{font-weight:600;margin-left:6px}
.summary{color:var(--muted);margin-left:6px}
.badge{display:inline-block;font-size:11px;border-radius:10px;padding:0 7px;color:#fff;margin-left:4px}
.badge.error{background:var(--error)}.badge.warning{background:var(--warning)}.badge.note{background:var(--note)}
.body{padding:4px 16px 12px}
ol.framed{list-style:none;padding:0}
.finding{margin:12px 0;border-left:3px solid var(--line);padding-left:10px}
.finding.error{border-left-color:var(--error)}.finding.warning{border-left-color:var(--warning)}.finding.note{border-left-color:var(--note)}
.sev{font-size:11px;font-weight:600;text-transform:uppercase}
.error>.where .sev,li.error>.sev{color:var(--error)}.warning>.where .sev,li.warning>.sev{color:var(--warning)}.note>.where .sev,li.note>.sev{color:var(--note)}
.msg{margin:2px 0 6px;overflow-wrap:anywhere}
pre.frame{background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:8px 0;margin:0;overflow-x:auto;tab-size:4}
.ln{display:inline-block;color:var(--muted);padding:0 12px 0 10px;margin-right:8px;border-right:1px solid var(--line);user-select:none;text-align:right}
mark{background:var(--mark);color:inherit;outline:1px solid var(--warning);border-radius:2px}
mark.point{display:inline-block;width:2px;height:1.2em;vertical-align:text-bottom;background:var(--error);outline:none}
.ctl,.secret,.cut{color:var(--muted);background:var(--bg);border-radius:2px}
.related,.help,.commits{color:var(--muted);margin-top:4px;overflow-wrap:anywhere}
ul.lines{padding-left:18px;overflow-wrap:anywhere}
ul.lines li{margin:2px 0}
footer{margin-top:40px;color:var(--muted);font-size:12px}
";
