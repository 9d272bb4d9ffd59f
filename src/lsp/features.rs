//! What the server answers about an open document: the quick fixes of its findings (code
//! actions) and the explanation of the rule of a finding under the cursor (hover).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Hover, HoverContents, MarkupContent,
    MarkupKind, Position, Range, WorkspaceEdit,
};

use super::convert;
use super::documents::OpenDocument;
use super::workspace::Workspace;
use crate::diagnostic::{Finding, LineIndex, Safety};
use crate::rules::Rule;

/// The protocol range of a finding.
fn range_of(finding: &Finding) -> Range {
    let at = |p: crate::diagnostic::Position| {
        Position::new(p.line.saturating_sub(1), p.column.saturating_sub(1))
    };
    Range::new(at(finding.start), at(finding.end))
}

/// A quick fix for every fixable finding of `doc` whose range meets `range`; safe fixes are
/// preferred, unsafe ones say that they may change what the job does.
pub fn code_actions(
    doc: &OpenDocument,
    range: &Range,
    workspace: &mut Workspace,
) -> Vec<CodeActionOrCommand> {
    let root = workspace.root.clone();
    let mut index = LineIndex::new(&doc.text);
    let mut actions = Vec::new();
    for finding in &doc.findings {
        let Some(fix) = &finding.fix else { continue };
        if !convert::overlaps(&range_of(finding), range) {
            continue;
        }
        let edits = convert::fix_edits(fix, &doc.text, &mut index);
        let safe = fix.safety == Safety::Safe;
        let title = if safe {
            format!("Fix {} (safe)", finding.rule)
        } else {
            format!(
                "Fix {} (unsafe: may change what the job does)",
                finding.rule
            )
        };
        let rule = doc
            .path
            .as_deref()
            .and_then(|p| workspace.rule(p, &finding.rule));
        let diagnostic = convert::diagnostic(finding, &doc.uri, &root, rule);
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(doc.uri.clone(), edits)])),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(safe),
            ..CodeAction::default()
        }));
    }
    actions
}

/// The explanation of the rules of the findings under `at`, with their messages.
pub fn hover(doc: &OpenDocument, at: Position, workspace: &mut Workspace) -> Option<Hover> {
    let under: Vec<&Finding> = doc
        .findings
        .iter()
        .filter(|f| convert::contains(&range_of(f), at))
        .collect();
    let first = under.first()?;
    let root = workspace.root.clone();
    let mut sections = Vec::new();
    let mut explained: Vec<&str> = Vec::new();
    for finding in &under {
        let rule = doc
            .path
            .as_deref()
            .and_then(|p| workspace.rule(p, &finding.rule));
        let mut section = format!(
            "**{}** ({}): {}",
            finding.rule,
            finding.severity,
            markdown_text(&finding.message)
        );
        if let Some(rule) = rule.filter(|_| !explained.contains(&&*finding.rule)) {
            section.push_str("\n\n");
            section.push_str(&explanation(rule, &root));
            explained.push(&finding.rule);
        }
        sections.push(section);
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range: Some(range_of(first)),
    })
}

/// A rule's summary, explanation, fix and documentation link, in Markdown.
fn explanation(rule: &Rule, root: &std::path::Path) -> String {
    let mut out = rule.summary.clone();
    if !rule.explanation.is_empty() {
        out.push_str("\n\n");
        out.push_str(&rule.explanation);
    }
    if let Some(help) = &rule.help {
        out.push_str("\n\n**Fix:** ");
        out.push_str(&help.render(|_| Some("…")));
    }
    match rule.fix_safety() {
        Some(Safety::Safe) => out.push_str("\n\nA quick fix applies it (a safe fix)."),
        Some(Safety::Unsafe) => out.push_str(
            "\n\nA quick fix applies it (an unsafe fix: it may change what the job does).",
        ),
        None => {}
    }
    if let Some(uri) = convert::docs_uri(rule, root) {
        out.push_str(&format!(
            "\n\n[{} documentation]({})",
            rule.id,
            uri.as_str()
        ));
    }
    out
}

/// `text` (a message quoting a file's values) with Markdown's special characters escaped, so
/// that a value cannot turn into a link or markup.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\`*_[]<>|~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
