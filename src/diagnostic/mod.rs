//! Findings and what they are made of: the one concrete finding type every output format reads,
//! its severity, span and positions, the fix that repairs it, and the stable hash of its
//! identity. A leaf, as `ruff_diagnostics` is: it names nothing else of the crate, so the rules,
//! the engine, fixes and reports all build on it and none of them on another for these types.

use std::sync::Arc;

mod fix;
mod hash;
mod history;
mod position;
mod rule_id;
mod severity;
mod sort;
mod span;

pub use fix::{Applicability, Edit, Fix, Safety};
pub use hash::{fnv1a, value_hash, Fnv};
pub use history::{Provenance, Stamp};
pub use position::{LineCount, LineIndex, Position};
pub use rule_id::RuleId;
pub use severity::Severity;
pub use sort::{path_order, sort_findings, sort_in_file};
pub use span::Span;

/// The id of the finding for a file that is not JSON (or cannot be read). Reports treat it
/// apart from rule findings, so it lives with the finding, not the engine that makes it.
pub const INVALID_JSON: &str = "invalid-json";
/// The id of the finding that reports a panic (a bug in forgelint) while linting a file.
pub const INTERNAL_ERROR: &str = "internal-error";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// The file, when it is not the finding's own (an experiment's config file).
    pub path: Option<Arc<str>>,
    pub span: Span,
    pub start: Position,
    pub end: Position,
    pub label: String,
}

/// A finding: a rule that fired on a file, at an exact span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file as the user named or discovered it.
    pub path: Arc<str>,
    pub rule: RuleId,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    /// JSON Pointer of the offending value ("" for the document, or a file-level problem).
    pub pointer: String,
    /// Byte range in the file.
    pub span: Span,
    /// 1-based line and UTF-16 column of the span's start and end (end is one past the last
    /// character).
    pub start: Position,
    pub end: Position,
    pub related: Vec<Related>,
    /// Hash of the offending value's text with JSON whitespace removed: part of the finding's
    /// identity for baselines and `--new-from-rev`, so it survives reformatting. 0 for
    /// file-level findings, and in what a run that compares with no other run collects (its
    /// collector drops it: see `check::lint`'s `keeps_hashes`).
    pub value_hash: u64,
    /// The span's text is a secret (`exp-secret`): every output masks it.
    pub secret: bool,
    /// The edits that fix it, when its rule can.
    pub fix: Option<Box<Fix>>,
    /// In a history audit: the commits that introduced and removed it.
    pub history: Option<Box<Provenance>>,
}

impl Finding {
    /// Sort key: path, then position, then rule id — the same whatever the thread count. In a
    /// history audit a file's findings still at the tip come first, then the removed ones, each
    /// version's together (their positions are in different texts).
    pub fn sort_key(&self) -> (&str, bool, &str, u32, u32, &str, &str) {
        let (removed, version, start, end, rule, message) = self.sort_key_in_file();
        (&self.path, removed, version, start, end, rule, message)
    }

    /// [`Finding::sort_key`] after the path: the order of one file's findings, without
    /// comparing its path again and again.
    pub fn sort_key_in_file(&self) -> (bool, &str, u32, u32, &str, &str) {
        let (removed, version) = match &self.history {
            Some(h) => (h.removed.is_some(), &*h.version),
            None => (false, ""),
        };
        (
            removed,
            version,
            self.span.start,
            self.span.end,
            &self.rule,
            &self.message,
        )
    }

    /// Orders two findings of one file as [`Finding::sort_key_in_file`] does, comparing text
    /// only where the numbers tie: most findings have no history and differ by position.
    pub fn cmp_in_file(&self, other: &Finding) -> std::cmp::Ordering {
        let by_version = match (&self.history, &other.history) {
            (None, None) => std::cmp::Ordering::Equal,
            _ => {
                let (removed, version, ..) = self.sort_key_in_file();
                let (other_removed, other_version, ..) = other.sort_key_in_file();
                (removed, version).cmp(&(other_removed, other_version))
            }
        };
        by_version
            .then(self.span.start.cmp(&other.span.start))
            .then(self.span.end.cmp(&other.span.end))
            .then_with(|| self.rule.cmp(&other.rule))
            .then_with(|| self.message.cmp(&other.message))
    }

    /// The text the finding's span is in: its file, and in a history audit that file's version.
    /// Findings with the same source share one code frame's text and one set of secrets.
    pub fn same_source(&self, other: &Finding) -> bool {
        self.path == other.path
            && self.history.as_ref().map(|h| &h.version)
                == other.history.as_ref().map(|h| &h.version)
    }
}

impl Finding {
    /// A note of `rule` on `path` with nothing else set: a slot that a decoder fills.
    pub(crate) fn blank(path: Arc<str>, rule: RuleId) -> Finding {
        Finding {
            path,
            rule,
            severity: Severity::Note,
            message: String::new(),
            help: None,
            pointer: String::new(),
            span: Span::default(),
            start: Position::default(),
            end: Position::default(),
            related: Vec::new(),
            value_hash: 0,
            secret: false,
            fix: None,
            history: None,
        }
    }
}

#[cfg(test)]
impl Finding {
    /// A finding for tests: an error of `rule` on `path`, message "m", over the first byte of
    /// line `line`; a test sets what else it needs with `..Finding::for_tests(…)`.
    pub(crate) fn for_tests(path: &str, rule: &str, line: u32) -> Finding {
        Finding {
            path: Arc::from(path),
            rule: RuleId::new(rule),
            severity: Severity::Error,
            message: "m".into(),
            help: None,
            pointer: String::new(),
            span: Span::new(0, 1),
            start: Position { line, column: 1 },
            end: Position { line, column: 2 },
            related: Vec::new(),
            value_hash: 0,
            secret: false,
            fix: None,
            history: None,
        }
    }
}

/// Computes positions lazily: most files have no finding, so most never build a line index,
/// and a file with a few has their positions counted ([`LineCount`]).
pub struct Locator<'a> {
    text: &'a str,
    index: Option<LineIndex>,
    counted: LineCount,
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Locator<'a> {
        Locator {
            text,
            index: None,
            counted: LineCount::default(),
        }
    }

    /// A locator for `spans` spans: with more than are counted, the index is built at once
    /// (counting some first would only add to it).
    pub fn for_spans(text: &'a str, spans: usize) -> Locator<'a> {
        let mut locator = Locator::new(text);
        if !locator.counted.takes(text, 2 * spans) {
            locator.index = Some(LineIndex::new(text));
        }
        locator
    }

    /// Whether positions are counted from the text (no index built yet): a count goes on
    /// from the last offset asked, so offsets asked in order cost one pass over the text.
    pub fn counts(&self) -> bool {
        self.index.is_none()
    }

    /// Clamps `span` into the text on char boundaries (a finding must always render).
    pub fn clamp(&self, span: Span) -> Span {
        let len = self.text.len();
        let mut start = (span.start as usize).min(len);
        let mut end = (span.end as usize).clamp(start, len);
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        Span::new(start, end)
    }

    pub fn positions(&mut self, span: Span) -> (Span, Position, Position) {
        let span = self.clamp(span);
        if self.index.is_none() && self.counted.takes(self.text, 2) {
            let start = self.counted.position(self.text, span.start as usize);
            let end = self.counted.position(self.text, span.end as usize);
            return (span, start, end);
        }
        let index = self.index.get_or_insert_with(|| LineIndex::new(self.text));
        let start = index.position(self.text, span.start as usize);
        let end = index.position_after(self.text, (span.start as usize, start), span.end as usize);
        (span, start, end)
    }
}
