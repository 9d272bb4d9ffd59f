//! miette graphical reports: a code frame with a label on the exact span.
//!
//! The frame is never the raw file: it is an excerpt in which every control, escape or bidi
//! character is replaced by a visible picture (so a hostile value cannot steer the terminal),
//! every secret of the file is masked, and on a very long line (a minified spec) only a window
//! around the span is shown.

use std::fmt;
use std::io::Write;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use crate::diagnostic::{Finding, LineIndex, Related, Severity, Span};
use crate::escape::{picture, visible};
use crate::report::Source;
use crate::secrets::{Secrets, Shown};

/// Lines longer than this (in bytes) are shown as a window around the span.
const LONG_LINE: usize = 160;
/// Characters of context on each side of the span in a window.
const WINDOW_CONTEXT: usize = 50;

pub struct HumanOptions {
    pub color: bool,
    pub width: usize,
}

/// A sanitized excerpt of the file that stands in for it as miette's source.
struct Excerpt {
    text: String,
    /// 0-based line number of the excerpt's first line in the file.
    first_line: usize,
    /// The file, shown in each frame's header with the position of the label the frame shows.
    path: String,
    /// Excerpt offset of each label's start, and its `line:column` in the file.
    heads: Vec<(usize, String)>,
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        let range = inner.span().offset()..inner.span().offset() + inner.span().len();
        let head = self
            .heads
            .iter()
            .find(|(at, _)| *at == span.offset())
            .or_else(|| self.heads.iter().find(|(at, _)| range.contains(at)));
        let name = match head {
            Some((_, location)) => format!("{}:{location}", self.path),
            None => self.path.clone(),
        };
        Ok(Box::new(MietteSpanContents::new_named(
            name,
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            inner.column(),
            inner.line_count(),
        )))
    }
}

struct Report<'a> {
    finding: &'a Finding,
    excerpt: Option<Excerpt>,
    labels: Vec<LabeledSpan>,
    notes: Vec<String>,
    message: String,
    help: Option<String>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let mut parts: Vec<&str> = Vec::new();
        if let Some(h) = &self.help {
            parts.push(h);
        }
        parts.extend(self.notes.iter().map(String::as_str));
        if parts.is_empty() {
            None
        } else {
            Some(Box::new(parts.join("\n")))
        }
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.excerpt.as_ref().map(|e| e as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.excerpt.as_ref()?;
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// Copies `text[range]` into a printable string; returns it with the new offsets of `marks`
/// (byte offsets into `text`, each inside `range`). Every secret of the text is masked: its
/// first characters and `…` (see [`crate::secrets`]).
fn sanitize(
    text: &str,
    range: std::ops::Range<usize>,
    marks: &[usize],
    secrets: &Secrets,
) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(range.len() + 16);
    let mut mapped = vec![usize::MAX; marks.len()];
    let segment = &text[range.clone()];
    let mut chars = segment.char_indices().peekable();
    let mut masker = secrets.masker();
    while let Some((i, c)) = chars.next() {
        let at = range.start + i;
        for (m, slot) in marks.iter().zip(mapped.iter_mut()) {
            if *m == at {
                *slot = out.len();
            }
        }
        match masker.at(text, at, c) {
            Shown::Char => {}
            Shown::Ellipsis => {
                out.push('…');
                continue;
            }
            Shown::Nothing => continue,
        }
        match c {
            '\r' if chars.peek().map(|p| p.1) == Some('\n') => out.push('\r'),
            c => match picture(c) {
                Some(p) => out.push(p),
                None => out.push(c),
            },
        }
    }
    for slot in mapped.iter_mut().filter(|s| **s == usize::MAX) {
        *slot = out.len();
    }
    (out, mapped)
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn location(p: crate::diagnostic::Position) -> String {
    format!("{}:{}", p.line, p.column)
}

/// What a finding's code frame shows: the excerpt, its labels, and notes for the places the
/// excerpt cannot show.
type Frame = (Excerpt, Vec<LabeledSpan>, Vec<String>);

/// Builds the excerpt and the labels for one finding.
fn excerpt(finding: &Finding, text: &str, index: &LineIndex, secrets: &Secrets) -> Option<Frame> {
    let valid = |s: Span| {
        (s.end as usize) <= text.len()
            && text.is_char_boundary(s.start as usize)
            && text.is_char_boundary(s.end as usize)
    };
    // Places in another file (an experiment's config) are notes with their location.
    let (here, elsewhere): (Vec<&Related>, Vec<_>) =
        finding.related.iter().partition(|r| r.path.is_none());
    if !valid(finding.span) || here.iter().any(|r| !valid(r.span)) {
        return None;
    }
    let notes: Vec<String> = elsewhere
        .iter()
        .map(|r| {
            format!(
                "{} ({}:{}:{})",
                visible(&r.label),
                visible(r.path.as_deref().unwrap_or_default()),
                r.start.line,
                r.start.column
            )
        })
        .collect();
    let line = index.line_of(finding.span.start as usize);
    let line_range = index.line_range(text, line);
    if line_range.len() > LONG_LINE {
        let on_line = OnLine {
            line,
            range: line_range,
        };
        return Some(window_excerpt(
            finding, text, on_line, &here, secrets, notes,
        ));
    }
    Some(lines_excerpt(finding, text, index, &here, secrets, notes))
}

/// The line a finding starts on: its index and its byte range.
struct OnLine {
    line: usize,
    range: std::ops::Range<usize>,
}

/// A window on one long line around the primary span; related places outside it are notes.
fn window_excerpt(
    finding: &Finding,
    text: &str,
    on: OnLine,
    here: &[&Related],
    secrets: &Secrets,
    mut notes: Vec<String>,
) -> Frame {
    let line_range = on.range;
    let start = finding.span.start as usize;
    let end = (finding.span.end as usize)
        .min(line_range.end)
        .min(start + 2 * WINDOW_CONTEXT);
    let from = floor_char(
        text,
        start.saturating_sub(WINDOW_CONTEXT).max(line_range.start),
    );
    let to = ceil_char(text, (end + WINDOW_CONTEXT).min(line_range.end));
    let mut marks = vec![start, ceil_char(text, end)];
    let mut related = Vec::new();
    for r in here.iter().copied() {
        let (s, e) = (r.span.start as usize, r.span.end as usize);
        if s >= from && e <= to {
            marks.extend([s, e]);
            related.push(r);
        } else {
            notes.push(format!(
                "{} at {}:{}",
                r.label, r.start.line, r.start.column
            ));
        }
    }
    let (body, mapped) = sanitize(text, from..to, &marks, secrets);
    let prefix = if from > line_range.start { "…" } else { "" };
    let suffix = if to < line_range.end { "…" } else { "" };
    let (labels, heads) = labels_and_heads(finding, &related, &mapped, prefix.len());
    let excerpt = Excerpt {
        text: format!("{prefix}{body}{suffix}"),
        first_line: on.line,
        path: String::new(),
        heads,
    };
    (excerpt, labels, notes)
}

/// Whole lines from the first to the last label, so miette can pick its own context.
fn lines_excerpt(
    finding: &Finding,
    text: &str,
    index: &LineIndex,
    here: &[&Related],
    secrets: &Secrets,
    notes: Vec<String>,
) -> Frame {
    let mut spans = vec![finding.span];
    spans.extend(here.iter().map(|r| r.span));
    let first = spans.iter().map(|s| s.start).min().unwrap_or(0) as usize;
    let last = spans.iter().map(|s| s.end).max().unwrap_or(0) as usize;
    let first_line = index.line_of(first).saturating_sub(1);
    let last_line = (index.line_of(last) + 1).min(index.line_count() - 1);
    let from = index.line_start(first_line);
    let to = index.line_range(text, last_line).end;
    let marks: Vec<usize> = spans
        .iter()
        .flat_map(|s| [s.start as usize, s.end as usize])
        .collect();
    let (body, mapped) = sanitize(text, from..to.max(from), &marks, secrets);
    let (labels, heads) = labels_and_heads(finding, here, &mapped, 0);
    let excerpt = Excerpt {
        text: body,
        first_line,
        path: String::new(),
        heads,
    };
    (excerpt, labels, notes)
}

/// The labels of the primary span and of each related place, and the locations at their
/// heads, from `mapped` (each span's start and end in the excerpt, in order), moved right by
/// `shift` bytes.
fn labels_and_heads(
    finding: &Finding,
    related: &[&Related],
    mapped: &[usize],
    shift: usize,
) -> (Vec<LabeledSpan>, Vec<(usize, String)>) {
    let at = |i: usize| (mapped[2 * i] + shift)..(mapped[2 * i + 1] + shift);
    let mut labels = vec![LabeledSpan::new_primary_with_span(None, at(0))];
    let mut heads = vec![(at(0).start, location(finding.start))];
    for (i, r) in related.iter().enumerate() {
        labels.push(LabeledSpan::new_with_span(
            Some(visible(&r.label).into_owned()),
            at(i + 1),
        ));
        heads.push((at(i + 1).start, location(r.start)));
    }
    (labels, heads)
}

pub struct HumanRenderer {
    handler: GraphicalReportHandler,
}

impl HumanRenderer {
    pub fn new(opts: &HumanOptions) -> HumanRenderer {
        let theme = if opts.color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(opts.width)
            .with_links(opts.color)
            .with_word_separator(textwrap::WordSeparator::AsciiSpace)
            .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
            .with_break_words(false)
            .without_primary_span_start()
            .with_context_lines(1);
        HumanRenderer { handler }
    }

    /// Renders one finding; `source` is the file's text (with its secrets, which the frame
    /// masks) and line index, when it could be read again.
    pub fn render(
        &self,
        out: &mut dyn Write,
        finding: &Finding,
        source: Option<(&Source, &LineIndex)>,
    ) -> std::io::Result<()> {
        let location = format!(
            "{}:{}:{}",
            visible(&finding.path),
            finding.start.line,
            finding.start.column
        );
        let parts = source.and_then(|(s, index)| excerpt(finding, &s.text, index, &s.secrets));
        // The rule id leads the message, as in the concise format: `error[rule-id]: …`.
        let message = format!(
            "{}[{}]: {}",
            finding.severity,
            finding.rule,
            visible(&finding.message)
        );
        // In a history audit: the commits that introduced and removed it.
        let history = finding
            .history
            .as_ref()
            .map(|h| super::history::sentence(h));
        let report = match parts {
            Some((mut excerpt, labels, mut notes)) => {
                notes.extend(history);
                excerpt.path = visible(&finding.path).into_owned();
                Report {
                    finding,
                    excerpt: Some(excerpt),
                    labels,
                    notes,
                    message,
                    help: finding.help.as_ref().map(|h| visible(h).into_owned()),
                }
            }
            // No frame to show (the file could not be read, or changed since): the message
            // carries the location.
            None => Report {
                finding,
                excerpt: None,
                labels: Vec::new(),
                notes: history.into_iter().collect(),
                message: format!("{location}: {message}"),
                help: finding.help.as_ref().map(|h| visible(h).into_owned()),
            },
        };
        let mut rendered = String::new();
        if self.handler.render_report(&mut rendered, &report).is_err() {
            rendered = format!("{}\n", report.message);
        }
        out.write_all(rendered.as_bytes())
    }
}
