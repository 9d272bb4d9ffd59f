//! Code frames: the second pass over the findings. The files of the framed findings are read
//! again one at a time, in path order, as the pass reaches them; every secret of a file (found
//! in its text by the secret detector, whatever the findings) is masked in its frames. In a
//! history audit a file's findings may be in several versions of it: each version is a text of
//! its own.

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use super::aggregate::RuleGroup;
use super::text::escape_into;
use crate::collect::Findings;
use crate::diagnostic::{Finding, LineIndex, Locator, Span};
use crate::escape::{is_invisible, picture};
use crate::report::{Source, Sources};
use crate::secrets::{Secrets, Shown};

/// Lines of context before and after the span.
const CONTEXT: usize = 2;
/// Lines of a long span shown from its start (its last line is shown too).
const SPAN_LINES: usize = 6;
/// Lines longer than this (in bytes) are shown as a window of about this size.
const LONG_LINE: usize = 160;
/// Bytes of context on each side of the span in a window on a long line.
const WINDOW_CONTEXT: usize = 50;

/// One row of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Row {
    /// Bytes `range` of 0-based `line`, cut from a longer line at either end when flagged.
    Line {
        line: usize,
        range: Range<usize>,
        cut_before: bool,
        cut_after: bool,
    },
    /// Lines of a long span left out.
    Gap,
}

/// A framed finding of the open file: where it is among the groups, and its rows.
struct Item {
    group: usize,
    index: usize,
    span: Span,
    rows: Vec<Row>,
}

/// Where a finding's text comes from, in the findings' order: its path, then (in a history)
/// whether it was removed and the version it is in.
type SourceKey = (Arc<str>, bool, Arc<str>);

fn source_key(f: &Finding) -> SourceKey {
    let (removed, version) = match &f.history {
        Some(h) => (h.removed.is_some(), h.version.clone()),
        None => (false, Arc::from("")),
    };
    (f.path.clone(), removed, version)
}

/// `key` against `f`'s source, in the findings' order (without allocating for `f`).
fn cmp_source(key: &SourceKey, f: &Finding) -> std::cmp::Ordering {
    let (path, removed, version, ..) = f.sort_key();
    (&*key.0, key.1, &*key.2).cmp(&(path, removed, version))
}

/// The file the pass is in, when some of its findings are framed.
struct Open {
    key: SourceKey,
    source: Option<(Source, LineIndex)>,
    items: Vec<Item>,
}

impl Open {
    /// Renders the frames of the file into their findings.
    fn close(self, groups: &mut [RuleGroup]) {
        let Some((source, _)) = &self.source else {
            return;
        };
        for item in &self.items {
            let html = render(&source.text, &item.rows, item.span, &source.secrets);
            if let Some(framed) = groups
                .get_mut(item.group)
                .and_then(|g| g.framed.get_mut(item.index))
            {
                framed.frame = Some(html);
            }
        }
    }
}

/// The second pass: fills in the frame of every framed finding whose file can be read.
pub fn fill<F: Findings + ?Sized>(
    findings: &F,
    groups: &mut [RuleGroup],
    sources: &dyn Sources,
) -> std::io::Result<()> {
    // The framed findings by source, in the pass's order (byte order of the paths).
    let mut wanted: Vec<(SourceKey, usize, usize)> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (i, framed) in group.framed.iter().enumerate() {
            wanted.push((source_key(&framed.finding), g, i));
        }
    }
    wanted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut next = 0;
    let mut open: Option<Open> = None;
    findings.each_batch(&mut |batch| {
        for f in batch {
            if open.as_ref().is_some_and(|o| cmp_source(&o.key, f).is_ne()) {
                if let Some(done) = open.take() {
                    done.close(groups);
                }
            }
            if open.is_none() {
                while next < wanted.len() && cmp_source(&wanted[next].0, f).is_lt() {
                    next += 1;
                }
                if wanted
                    .get(next)
                    .is_some_and(|w| cmp_source(&w.0, f).is_eq())
                {
                    let end =
                        next + wanted[next..].partition_point(|w| cmp_source(&w.0, f).is_eq());
                    open = Some(open_file(&wanted[next..end], groups, sources));
                    next = end;
                }
            }
        }
        Ok(())
    })?;
    if let Some(done) = open {
        done.close(groups);
    }
    Ok(())
}

/// Opens the text of the framed findings `wanted` (of one source, at least one).
fn open_file(
    wanted: &[(SourceKey, usize, usize)],
    groups: &[RuleGroup],
    sources: &dyn Sources,
) -> Open {
    let first = wanted
        .first()
        .and_then(|&(_, g, i)| groups.get(g)?.framed.get(i))
        .map(|framed| &framed.finding);
    let source = first.and_then(|f| sources.source(f)).map(|s| {
        let index = LineIndex::new(&s.text);
        (s, index)
    });
    let mut items = Vec::new();
    if let Some((source, index)) = &source {
        let text = &source.text;
        for &(_, group, index_in_group) in wanted {
            let Some(framed) = groups.get(group).and_then(|g| g.framed.get(index_in_group)) else {
                continue;
            };
            let f: &Finding = &framed.finding;
            let span = Locator::new(text).clamp(f.span);
            items.push(Item {
                group,
                index: index_in_group,
                span,
                rows: rows(text, index, span),
            });
        }
    }
    Open {
        key: wanted[0].0.clone(),
        source,
        items,
    }
}

fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The rows that show `span` (clamped into `text`): its lines with context, a long span cut
/// in the middle, a long line cut to a window.
fn rows(text: &str, index: &LineIndex, span: Span) -> Vec<Row> {
    let (start, end) = (span.start as usize, span.end as usize);
    let first = index.line_of(start);
    let last = if end > start {
        index.line_of(end - 1)
    } else {
        first
    };
    // The empty "line" after a final newline is no context.
    let lines = index.line_count() - usize::from(text.ends_with('\n'));
    let mut shown: Vec<Option<usize>> = Vec::new();
    let head_end = last.min(first + SPAN_LINES - 1);
    shown.extend((first.saturating_sub(CONTEXT)..=head_end).map(Some));
    if head_end < last {
        shown.push(None);
        shown.push(Some(last));
    }
    shown.extend((last + 1..lines.min(last + 1 + CONTEXT)).map(Some));
    shown
        .into_iter()
        .map(|line| match line {
            None => Row::Gap,
            Some(line) => {
                let range = index.line_range(text, line);
                let (from, to) = if range.len() <= LONG_LINE {
                    (range.start, range.end)
                } else if line == first {
                    let anchor_end = end.min(range.end).min(start + 2 * WINDOW_CONTEXT);
                    (
                        floor_char(text, start.saturating_sub(WINDOW_CONTEXT).max(range.start)),
                        ceil_char(text, (anchor_end + WINDOW_CONTEXT).min(range.end)),
                    )
                } else {
                    (range.start, ceil_char(text, range.start + LONG_LINE))
                };
                Row::Line {
                    line,
                    range: from..to,
                    cut_before: from > range.start,
                    cut_after: to < range.end,
                }
            }
        })
        .collect()
}

/// The frame's HTML: a `<pre>` of numbered rows, the span in `<mark>`, secrets masked after
/// their first characters, controls as pictures and invisible characters as escapes.
fn render(text: &str, rows: &[Row], span: Span, secrets: &Secrets) -> String {
    // The rows go down the file: one reader of the secrets for them all.
    let mut masker = secrets.masker();
    let width = rows
        .iter()
        .filter_map(|r| match r {
            Row::Line { line, .. } => Some(line + 1),
            Row::Gap => None,
        })
        .max()
        .unwrap_or(1)
        .to_string()
        .len();
    let (start, end) = (span.start as usize, span.end as usize);
    let mut out = String::from("<pre class=\"frame\">");
    for row in rows {
        let Row::Line {
            line,
            range,
            cut_before,
            cut_after,
        } = row
        else {
            let _ = writeln!(out, "<span class=\"ln\">{:>width$}</span>", "⋮");
            continue;
        };
        let _ = write!(out, "<span class=\"ln\">{:>width$}</span>", line + 1);
        if *cut_before {
            out.push_str("<span class=\"cut\">…</span>");
        }
        let mut marking = false;
        for (i, c) in text[range.clone()].char_indices() {
            let at = range.start + i;
            if start == end && at == start {
                out.push_str("<mark class=\"point\"></mark>");
            }
            let inside = start <= at && at < end;
            if inside != marking {
                out.push_str(if inside { "<mark>" } else { "</mark>" });
                marking = inside;
            }
            match masker.at(text, at, c) {
                Shown::Char => push_char(&mut out, c),
                Shown::Ellipsis => out.push_str("<span class=\"secret\">…</span>"),
                Shown::Nothing => {}
            }
        }
        if start == end && start == range.end {
            out.push_str("<mark class=\"point\"></mark>");
        }
        if marking {
            out.push_str("</mark>");
        }
        if *cut_after {
            out.push_str("<span class=\"cut\">…</span>");
        }
        out.push('\n');
    }
    out.push_str("</pre>");
    out
}

/// One character of a line of the file, safe and visible.
fn push_char(out: &mut String, c: char) {
    if let Some(p) = picture(c) {
        let _ = write!(out, "<span class=\"ctl\">{p}</span>");
    } else if c != '\t' && is_invisible(c) {
        let _ = write!(out, "<span class=\"ctl\">\\u{{{:x}}}</span>", c as u32);
    } else {
        let mut buf = [0u8; 4];
        let _ = escape_into(out, c.encode_utf8(&mut buf));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str, span: Span, masks: &[Span]) -> String {
        let index = LineIndex::new(text);
        let secrets = Secrets::from_spans(
            masks
                .iter()
                .map(|m| m.start as usize..m.end as usize)
                .collect(),
        );
        render(text, &rows(text, &index, span), span, &secrets)
    }

    #[test]
    fn marks_the_span_with_context_lines() {
        let text = "a\nb\nc\n  \"k\": \"v\"\nd\ne\nf\n";
        let at = text.find("\"v\"").unwrap();
        let html = frame(text, Span::new(at, at + 3), &[]);
        assert_eq!(
            html,
            "<pre class=\"frame\"><span class=\"ln\">2</span>b\n<span class=\"ln\">3</span>c\n\
             <span class=\"ln\">4</span>  &quot;k&quot;: <mark>&quot;v&quot;</mark>\n\
             <span class=\"ln\">5</span>d\n<span class=\"ln\">6</span>e\n</pre>"
        );
    }

    #[test]
    fn hostile_text_is_escaped_and_controls_are_pictures() {
        let text = "{\"x\": \"</pre><script>alert(1)</script>\u{1b}[2J\u{200b}\"}";
        let html = frame(text, Span::new(6, text.len() - 1), &[]);
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;/pre&gt;&lt;script&gt;"), "{html}");
        assert!(html.contains("<span class=\"ctl\">␛</span>"), "{html}");
        assert!(html.contains("\\u{200b}"), "{html}");
    }

    #[test]
    fn a_secret_shows_its_first_characters_only() {
        let text = "token = \"ghp_0123456789abcdefghij\"\n";
        let at = text.find("ghp").unwrap();
        let secret = Span::new(at, at + 24);
        let html = frame(text, secret, &[secret]);
        assert!(
            html.contains("<mark>ghp_<span class=\"secret\">…</span></mark>"),
            "{html}"
        );
        assert!(!html.contains("0123"), "{html}");
    }

    #[test]
    fn a_long_line_is_a_window_and_a_long_span_is_cut() {
        let long = format!("{{\"a\": \"{}\", \"b\": 1}}", "x".repeat(10_000));
        let at = long.find("\"b\"").unwrap();
        let html = frame(&long, Span::new(at, at + 3), &[]);
        assert!(html.len() < 600, "{}", html.len());
        assert!(html.contains("<span class=\"cut\">…</span>"));
        let text: String = (0..40).map(|n| format!("{n}\n")).collect();
        let index = LineIndex::new(&text);
        let rows = rows(&text, &index, Span::new(0, text.len() - 1));
        // The head of the span, the gap, its last line; no context after the last line.
        assert_eq!(rows.len(), SPAN_LINES + 2);
        assert_eq!(rows[SPAN_LINES], Row::Gap);
    }

    #[test]
    fn an_empty_span_is_a_point() {
        let html = frame("{}", Span::new(2, 2), &[]);
        assert!(html.contains("{}<mark class=\"point\"></mark>"), "{html}");
    }
}
