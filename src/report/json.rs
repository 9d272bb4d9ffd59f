//! `--format json`: one stable document (see the README for its schema), streamed finding by
//! finding from borrowed data.

use std::io::Write;
use std::sync::Arc;

use serde::Serialize as DeriveSerialize;

use super::chunked::write_findings_array;
use super::{statistics, ReportInput};
use crate::diagnostic::{Finding, Position, RuleId, Severity, Span};
use crate::json::writer::{write_number, write_string, JsonWriter, ObjectWriter, Skeleton};

/// Version of the document's shape; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

/// A finding's fixed text at one nesting level (or compact, for `jsonl`), up to its `related`
/// places (which come and go): made once for a chunk of findings.
pub(super) struct FindingShape {
    level: usize,
    compact: bool,
    skeleton: Skeleton,
    /// The last finding's file and its name as a JSON string: a file's findings come
    /// together and share one name, escaped once.
    path: Option<(Arc<str>, Vec<u8>)>,
    /// A rule and severity's text from the rule's value to the severity's, written once: a
    /// report's findings name a few dozen rules at most.
    labels: Vec<(RuleId, Severity, Vec<u8>)>,
}

impl FindingShape {
    fn new(level: usize) -> FindingShape {
        FindingShape {
            level,
            compact: false,
            skeleton: Skeleton::new(level, finding_skeleton),
            path: None,
            labels: Vec::new(),
        }
    }

    /// The shape of a finding on one line.
    pub(super) fn compact() -> FindingShape {
        FindingShape {
            level: 0,
            compact: true,
            skeleton: Skeleton::compact(finding_skeleton),
            path: None,
            labels: Vec::new(),
        }
    }
}

/// A finding's fixed text, with holes for its values.
fn finding_skeleton(w: &mut JsonWriter<'_>) {
    w.begin_object();
    for key in ["path", "rule", "severity", "message", "help", "pointer"] {
        w.key(key);
        w.hole();
    }
    w.key("span");
    w.begin_object();
    w.key("start");
    w.hole();
    w.key("end");
    w.hole();
    w.end_object();
    for key in ["start", "end"] {
        w.key(key);
        w.begin_object();
        w.key("line");
        w.hole();
        w.key("column");
        w.hole();
        w.end_object();
    }
    w.key("related");
    w.hole();
}

/// Writes one finding, as serde would write the document's shape of it (the test below holds
/// the two to the same bytes).
pub(super) fn write_finding(buf: &mut Vec<u8>, shape: &mut FindingShape, f: &Finding) {
    let path = path_json(&mut shape.path, &f.path);
    let mut parts = shape.skeleton.parts();
    parts.next_into(buf);
    buf.extend_from_slice(path);
    parts.next_into(buf);
    buf.extend_from_slice(labels_json(&mut shape.labels, &shape.skeleton, f));
    parts.skip(1);
    parts.next_into(buf);
    write_string(buf, &f.message);
    parts.next_into(buf);
    match &f.help {
        Some(help) => write_string(buf, help),
        None => buf.extend_from_slice(b"null"),
    }
    parts.next_into(buf);
    write_string(buf, &f.pointer);
    for value in [
        f.span.start,
        f.span.end,
        f.start.line,
        f.start.column,
        f.end.line,
        f.end.column,
    ] {
        parts.next_into(buf);
        write_number(buf, value.into());
    }
    parts.next_into(buf);
    parts.next_into(buf);
    debug_assert!(parts.is_done());
    // The value of `related`, inside the finding.
    let mut w = if shape.compact {
        JsonWriter::resume_compact(buf, false)
    } else {
        JsonWriter::resume(buf, shape.level + 1, false)
    };
    w.begin_array();
    for r in &f.related {
        w.item();
        w.begin_object();
        if let Some(path) = &r.path {
            w.key("path");
            w.string(path);
        }
        w.key("message");
        w.string(&r.label);
        write_place(&mut w, r.span, r.start, r.end);
        w.end_object();
    }
    w.end_array();
    if let Some(fix) = &f.fix {
        write_fix(&mut w, fix);
    }
    if let Some(history) = &f.history {
        super::history::write_members(&mut w, history);
    }
    w.end_object();
}

/// `f`'s rule and severity as JSON strings with the skeleton's text between them, made the
/// first time the pair is seen.
fn labels_json<'a>(
    labels: &'a mut Vec<(RuleId, Severity, Vec<u8>)>,
    skeleton: &Skeleton,
    f: &Finding,
) -> &'a [u8] {
    let at = match labels
        .iter()
        // Interned ids: one text for each, compared by address.
        .position(|(rule, severity, _)| {
            std::ptr::eq(rule.as_str(), f.rule.as_str()) && *severity == f.severity
        }) {
        Some(at) => at,
        None => {
            let mut json = Vec::new();
            write_string(&mut json, &f.rule);
            // The part between the rule and the severity: the skeleton's third.
            let mut parts = skeleton.parts();
            parts.skip(2);
            parts.next_into(&mut json);
            write_string(&mut json, f.severity.as_str());
            labels.push((f.rule, f.severity, json));
            labels.len() - 1
        }
    };
    &labels[at].2
}

/// `path` as a JSON string, escaped again only when it is not the last one's file.
fn path_json<'a>(last: &'a mut Option<(Arc<str>, Vec<u8>)>, path: &Arc<str>) -> &'a [u8] {
    let same = last
        .as_ref()
        .is_some_and(|(p, _)| Arc::ptr_eq(p, path) || **p == **path);
    if !same {
        // The old name's buffer is reused.
        let mut json = last.take().map(|(_, json)| json).unwrap_or_default();
        json.clear();
        write_string(&mut json, path);
        *last = Some((path.clone(), json));
    }
    last.as_ref().map_or(&[][..], |(_, json)| json)
}

/// The `fix` member: its safety, and its edits as byte ranges of the file and the text that
/// replaces each.
fn write_fix(w: &mut JsonWriter<'_>, fix: &crate::diagnostic::Fix) {
    w.key("fix");
    w.begin_object();
    w.key("safety");
    w.string(fix.safety.as_str());
    w.key("edits");
    w.begin_array();
    for edit in &fix.edits {
        w.item();
        w.begin_object();
        w.key("start");
        w.number(edit.span.start.into());
        w.key("end");
        w.number(edit.span.end.into());
        w.key("replacement");
        w.string(&edit.replacement);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

/// The `span`, `start` and `end` members.
fn write_place(w: &mut JsonWriter<'_>, span: Span, start: Position, end: Position) {
    w.key("span");
    w.begin_object();
    w.key("start");
    w.number(span.start.into());
    w.key("end");
    w.number(span.end.into());
    w.end_object();
    for (key, at) in [("start", start), ("end", end)] {
        w.key(key);
        w.begin_object();
        w.key("line");
        w.number(at.line.into());
        w.key("column");
        w.number(at.column.into());
        w.end_object();
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

/// The document's `summary`.
#[derive(DeriveSerialize)]
pub(super) struct SummaryOut<'a> {
    files: usize,
    files_with_findings: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    /// Experiment files skipped as binary (among `files`): only when some were.
    #[serde(skip_serializing_if = "is_zero")]
    binary_skipped: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<Baseline>,
    /// Rules that could not run for want of context: only when some could not.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    skipped: &'a [super::Skipped],
    /// Fixes applied, and those available: only when there are any.
    #[serde(skip_serializing_if = "super::Fixes::is_none")]
    fixes: super::Fixes,
    /// `--max-results`: what it left out of `findings`, when it left anything out.
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out: Option<super::LeftOut>,
    /// A history audit: the commits and versions read, and what was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<&'a super::HistoryRead>,
    /// `--new-from-rev`: the revision, and the findings hidden.
    #[serde(skip_serializing_if = "Option::is_none")]
    new_from_rev: Option<&'a super::SinceRev>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The document's `summary` member, from the run's summary.
pub(super) fn summary_out(s: &super::Summary) -> SummaryOut<'_> {
    SummaryOut {
        files: s.files,
        files_with_findings: s.files_with_findings,
        errors: s.errors,
        warnings: s.warnings,
        notes: s.notes,
        binary_skipped: s.binary,
        baseline: s.baseline.map(|b| Baseline {
            hidden: b.hidden,
            stale: b.stale,
        }),
        skipped: &s.skipped,
        fixes: s.fixes,
        left_out: s.left_out,
        history: s.history.as_ref(),
        new_from_rev: s.new_from_rev.as_ref(),
    }
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let summary = summary_out(input.summary);
    // serde_json writes a token at a time: a concrete buffer in front of the `dyn` writer keeps
    // those small writes out of virtual calls.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut doc = ObjectWriter::begin(&mut out, 0)?;
    doc.value("version", &FORMAT_VERSION)?;
    doc.value(
        "tool",
        &Tool {
            name: "forgelint",
            version: env!("CARGO_PKG_VERSION"),
        },
    )?;
    // The findings are the bulk of the document: rendered on the worker threads.
    doc.field("findings", |out, level| {
        write_findings_array(
            out,
            level,
            input.findings,
            input.threads,
            |shape: &mut Option<FindingShape>, buf, batch, i, level| {
                if shape.as_ref().is_none_or(|s| s.level != level) {
                    *shape = Some(FindingShape::new(level));
                }
                if let Some(shape) = shape.as_mut() {
                    write_finding(buf, shape, &batch[i]);
                }
                Ok(())
            },
        )
    })?;
    doc.value("summary", &summary)?;
    if input.statistics {
        doc.value("statistics", &statistics::json(input.findings)?)?;
    }
    doc.end()?;
    writeln!(out)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Related, Severity};
    use std::sync::Arc;

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
        #[serde(skip_serializing_if = "Option::is_none")]
        fix: Option<FixOut<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        introduced: Option<Option<StampOut<'a>>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        removed: Option<Option<StampOut<'a>>>,
    }

    #[derive(DeriveSerialize)]
    struct StampOut<'a> {
        commit: &'a str,
        date: &'a str,
        author: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        boundary: bool,
    }

    fn stamp_out(s: &Option<crate::diagnostic::Stamp>) -> Option<StampOut<'_>> {
        s.as_ref().map(|s| StampOut {
            commit: &s.commit,
            date: &s.date,
            author: &s.author,
            boundary: s.boundary,
        })
    }

    #[derive(DeriveSerialize)]
    struct FixOut<'a> {
        safety: &'static str,
        edits: Vec<EditOut<'a>>,
    }

    #[derive(DeriveSerialize)]
    struct EditOut<'a> {
        start: u32,
        end: u32,
        replacement: &'a str,
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
                fix: f.fix.as_ref().map(|fix| FixOut {
                    safety: fix.safety.as_str(),
                    edits: fix
                        .edits
                        .iter()
                        .map(|e| EditOut {
                            start: e.span.start,
                            end: e.span.end,
                            replacement: &e.replacement,
                        })
                        .collect(),
                }),
                introduced: f.history.as_ref().map(|h| stamp_out(&h.introduced)),
                removed: f.history.as_ref().map(|h| stamp_out(&h.removed)),
            }
        }
    }

    /// The direct writer and serde write a finding alike: with and without help and related
    /// places, hostile text in every string, positions at their limits.
    #[test]
    fn findings_match_the_serde_shape() {
        let related = super::super::related_for_tests;
        let finding = |help: Option<&str>, related: Vec<Related>| Finding {
            path: Arc::from("dir/\u{202e}spec\"quoted\".json"),
            rule: "unknown-field".into(),
            severity: Severity::Warning,
            message: "unknown key \"\u{1b}[2J\" in `spec`\n\u{2028}".to_string(),
            help: help.map(String::from),
            pointer: "/spec/a~1b/\u{7f}".to_string(),
            span: Span::new(0, u32::MAX as usize),
            start: Position { line: 1, column: 1 },
            end: Position {
                line: 40,
                column: 12,
            },
            related,
            value_hash: 7,
            secret: false,
            fix: None,
            history: None,
        };
        for f in [
            finding(None, Vec::new()),
            finding(
                Some("did you mean `\u{61c}x`?"),
                vec![related("first \t here")],
            ),
            finding(Some(""), vec![related(""), related("\u{feff}")]),
            Finding {
                fix: Some(Box::new(crate::diagnostic::Fix {
                    safety: crate::diagnostic::Safety::Unsafe,
                    edits: vec![
                        crate::diagnostic::Edit {
                            span: Span::new(3, 9),
                            replacement: "\"forge/v2\u{1b}\"".into(),
                        },
                        crate::diagnostic::Edit {
                            span: Span::new(12, 12),
                            replacement: String::new(),
                        },
                    ],
                })),
                ..finding(None, vec![related("x")])
            },
            Finding {
                history: Some(Box::new(crate::diagnostic::Provenance {
                    version: Arc::from("0123"),
                    introduced: Some(crate::diagnostic::Stamp {
                        commit: "a".repeat(40),
                        date: "2024-03-02T10:04:00+01:00".into(),
                        author: "Ada \u{1b}[2J <ada@lab.example>".into(),
                        boundary: true,
                    }),
                    removed: None,
                })),
                ..finding(None, Vec::new())
            },
        ] {
            for level in [0, 2] {
                let mut direct = Vec::new();
                write_finding(&mut direct, &mut FindingShape::new(level), &f);
                let mut serde = Vec::new();
                crate::json::writer::write_json_at(&mut serde, level, &FindingOut::from(&f))
                    .unwrap();
                assert_eq!(
                    String::from_utf8(direct).unwrap(),
                    String::from_utf8(serde).unwrap()
                );
            }
            // Compact, for `jsonl`: the same value on one line.
            let mut direct = Vec::new();
            write_finding(&mut direct, &mut FindingShape::compact(), &f);
            let mut serde = Vec::new();
            crate::json::writer::write_json_compact(&mut serde, &FindingOut::from(&f)).unwrap();
            assert_eq!(
                String::from_utf8(direct).unwrap(),
                String::from_utf8(serde).unwrap()
            );
        }
    }

    /// One shape writing findings file after file (its file's name escaped once) writes each
    /// as a new shape would: the same file, another file, an equal name in another `Arc`.
    #[test]
    fn a_shape_kept_across_files_writes_each_name() {
        let base = Finding {
            path: Arc::from("a.json"),
            rule: "unknown-field".into(),
            severity: Severity::Warning,
            message: "m".into(),
            help: None,
            pointer: "/x".into(),
            span: Span::new(1, 2),
            start: Position { line: 1, column: 2 },
            end: Position { line: 1, column: 3 },
            related: Vec::new(),
            value_hash: 0,
            secret: false,
            fix: None,
            history: None,
        };
        let a: Arc<str> = Arc::from("dir/\u{1b}a\"q\".json");
        let b: Arc<str> = Arc::from("b.json");
        let paths = [a.clone(), a.clone(), b, Arc::from(&*a), Arc::from(""), a];
        for compact in [true, false] {
            let fresh = || {
                if compact {
                    FindingShape::compact()
                } else {
                    FindingShape::new(1)
                }
            };
            let mut kept = fresh();
            for path in &paths {
                let f = Finding {
                    path: path.clone(),
                    ..base.clone()
                };
                let (mut once, mut again) = (Vec::new(), Vec::new());
                write_finding(&mut once, &mut fresh(), &f);
                write_finding(&mut again, &mut kept, &f);
                assert_eq!(once, again, "{path}");
            }
        }
    }
}
