//! One concrete finding type that every output format reads.

use std::sync::Arc;

use crate::json::Span;
use crate::rules::Severity;
use crate::source::{LineIndex, Position};

/// The id of the finding for a file that is not JSON (or cannot be read). Reports treat it
/// apart from rule findings, so it lives with the finding, not the engine that makes it.
pub const INVALID_JSON: &str = "invalid-json";
/// The id of the finding that reports a panic (a bug in forgelint) while linting a file.
pub const INTERNAL_ERROR: &str = "internal-error";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
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
    pub rule: Arc<str>,
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
    /// identity for baselines, so it survives reformatting. 0 for file-level findings.
    pub value_hash: u64,
}

impl Finding {
    /// Sort key: path, then position, then rule id — the same whatever the thread count.
    pub fn sort_key(&self) -> (&str, u32, u32, &str, &str) {
        (
            &self.path,
            self.span.start,
            self.span.end,
            &self.rule,
            &self.message,
        )
    }
}

/// Computes positions lazily: most files have no finding, so most never build a line index.
pub struct Locator<'a> {
    text: &'a str,
    index: Option<LineIndex>,
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Locator<'a> {
        Locator { text, index: None }
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
        let index = self.index.get_or_insert_with(|| LineIndex::new(self.text));
        let start = index.position(self.text, span.start as usize);
        let end = index.position(self.text, span.end as usize);
        (span, start, end)
    }
}

/// FNV-1a, 64 bits: stable across versions and platforms, unlike std's hasher, so it can be
/// stored in baselines and SARIF fingerprints; and cheap on short keys, so it also hashes maps
/// keyed by our own short strings (as a [`std::hash::Hasher`]).
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }
}

impl std::hash::Hasher for Fnv {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// [`Fnv`] over `parts`, each followed by a NUL.
pub fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash = Fnv::default();
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            hash.byte(b);
        }
    }
    hash.0
}

/// Hash of a JSON value's text without the whitespace between tokens: [`fnv1a`] of the minified
/// text, computed as it is read (no copy).
pub fn value_hash(json_text: &str) -> u64 {
    let mut hash = Fnv::default();
    let mut add = |b: u8| hash.byte(b);
    let (mut in_string, mut escaped) = (false, false);
    for b in json_text.bytes() {
        if in_string {
            add(b);
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            in_string = b == b'"';
            add(b);
        }
    }
    add(0);
    hash.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_hash_ignores_formatting_only() {
        assert_eq!(value_hash("[1, 2,\n  3]"), value_hash("[1,2,3]"));
        assert_ne!(value_hash("\"a b\""), value_hash("\"ab\""));
        assert_ne!(value_hash("[1,2]"), value_hash("[1,3]"));
        // The same hash as of the minified text, so stored baselines stay valid.
        assert_eq!(
            value_hash("{ \"a\\\" b\": [1, \"é\"] }"),
            fnv1a(&["{\"a\\\" b\":[1,\"é\"]}"])
        );
    }
}
