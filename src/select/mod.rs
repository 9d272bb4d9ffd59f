//! Selectors: a small, strict subset of JSONPath evaluated on our own span-aware tree.
//!
//! ```text
//! spec.resources.pools[*].name           every pool's name
//! spec.resources.roles.*                 every value of a map
//! spec.hyperparams."policy.optimizer.kwargs.lr"   a key that contains dots
//! spec.hyperparams['policy.optimizer.kwargs.lr']  the same, JSONPath style
//! spec.plugins[0].id                     one array item
//! $                                      the whole document
//! ```
//! Results carry JSON Pointers (RFC 6901) for machine output.

mod table;

use crate::diagnostic::Span;
use crate::json::{push_pointer_segment, Document, NodeId, Value};
pub use table::{Resolutions, SelectorTable};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
    /// Every item of an array or every value of an object.
    Wildcard,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub segments: Vec<Segment>,
    text: String,
    /// Byte offset in `text` where each segment starts, for errors that point at one segment.
    offsets: Vec<usize>,
    /// Index shared by every selector of the rule set with the same text, so a document's
    /// resolution of it is computed once for all the checks that use it (`NO_ID`: not shared).
    pub id: usize,
}

/// The id of a selector that is not part of a rule set's shared table.
pub const NO_ID: usize = usize::MAX;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// Byte offset in the selector text.
    pub offset: usize,
    pub message: String,
}

/// One selected value. Its JSON Pointer is built only when a finding needs it.
#[derive(Debug, Clone, Copy)]
pub struct Match {
    pub node: NodeId,
    /// The span of the key that holds the value, when its parent is an object.
    pub key_span: Option<Span>,
}

impl Match {
    pub fn pointer(&self, doc: &Document<'_>) -> String {
        doc.pointer_of(self.node)
    }
}

/// An object (or `null`) on the selector's way that lacks the next key.
#[derive(Debug, Clone, Copy)]
pub struct Missing {
    pub parent: NodeId,
    pub parent_key_span: Option<Span>,
    /// Index of the first absent segment in the selector.
    pub depth: usize,
}

/// What a selector selected in one document, owned.
#[derive(Debug, Default)]
pub struct Resolution {
    pub found: Vec<Match>,
    pub missing: Vec<Missing>,
}

impl Resolution {
    pub fn view(&self) -> Resolved<'_> {
        Resolved {
            found: &self.found,
            missing: &self.missing,
        }
    }
}

/// What a selector selected in one document: the values found, in document order, and the
/// places where a key on its way is absent.
#[derive(Debug, Clone, Copy)]
pub struct Resolved<'r> {
    pub found: &'r [Match],
    pub missing: &'r [Missing],
}

pub(crate) fn is_plain_key_char(c: char) -> bool {
    !matches!(c, '.' | '[' | ']' | '"' | '\'' | '*' | '$') && !c.is_whitespace() && !c.is_control()
}

/// A key written bare in a dotted path: not empty, every character plain. ASCII keys (nearly
/// all) are tested a byte at a time: printable, not a space, not a selector's own character.
pub(crate) fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && if key.is_ascii() {
            key.bytes()
                .all(|b| (0x21..0x7F).contains(&b) && !b".[]\"'*$".contains(&b))
        } else {
            key.chars().all(is_plain_key_char)
        }
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        let err = |offset: usize, message: &str| SelectorError {
            offset,
            message: message.to_string(),
        };
        let bytes = text.as_bytes();
        let mut segments = Vec::new();
        let mut pos = 0;
        if text.starts_with('$') {
            pos = 1;
            if pos == text.len() {
                return Ok(Selector {
                    segments,
                    text: text.to_string(),
                    offsets: Vec::new(),
                    id: NO_ID,
                });
            }
            if bytes[pos] != b'.' && bytes[pos] != b'[' {
                return Err(err(pos, "expected `.` or `[` after `$`"));
            }
        }
        if text.is_empty() {
            return Err(err(0, "empty selector (use `$` for the whole document)"));
        }
        let mut first = pos == 0;
        let mut offsets = Vec::new();
        while pos < text.len() {
            offsets.push(if bytes[pos] == b'.' { pos + 1 } else { pos });
            match bytes[pos] {
                b'[' => {
                    pos += 1;
                    let close = text[pos..]
                        .find(']')
                        .map(|i| pos + i)
                        .ok_or_else(|| err(pos - 1, "unclosed `[`"))?;
                    let inner = text[pos..close].trim();
                    if inner == "*" {
                        segments.push(Segment::Wildcard);
                    } else if inner.starts_with('\'') || inner.starts_with('"') {
                        let (key, used) = parse_quoted(inner).map_err(|(o, m)| err(pos + o, m))?;
                        if used != inner.len() {
                            return Err(err(pos + used, "unexpected text after a quoted key"));
                        }
                        segments.push(Segment::Key(key));
                    } else if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
                        let index = inner
                            .parse()
                            .map_err(|_| err(pos, "array index is too large"))?;
                        segments.push(Segment::Index(index));
                    } else {
                        return Err(err(
                            pos,
                            "expected `*`, an index or a quoted key inside `[...]`",
                        ));
                    }
                    pos = close + 1;
                }
                b'.' if !first => {
                    pos += 1;
                    pos = parse_dotted(text, pos, &mut segments)?;
                }
                _ if first => {
                    pos = parse_dotted(text, pos, &mut segments)?;
                }
                _ => return Err(err(pos, "expected `.` or `[` between selector segments")),
            }
            first = false;
        }
        Ok(Selector {
            segments,
            text: text.to_string(),
            offsets,
            id: NO_ID,
        })
    }

    /// Byte offset in the selector text where segment `i` starts.
    pub fn segment_offset(&self, i: usize) -> usize {
        self.offsets.get(i).copied().unwrap_or(0)
    }

    /// Byte range in the selector text of segment `i` (without the `.` before the next one).
    pub fn segment_range(&self, i: usize) -> std::ops::Range<usize> {
        let start = self.segment_offset(i);
        let end = match self.offsets.get(i + 1) {
            Some(&next) if self.text[..next].ends_with('.') => next - 1,
            Some(&next) => next,
            None => self.text.len(),
        };
        start..end.max(start)
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// An item-relative selector, `@` (the item itself), `@.series` or `@['a.b'][0]`: its
    /// segments are taken from the item, not the document's root.
    pub fn parse_item(text: &str) -> Result<Selector, SelectorError> {
        let Some(rest) = text.strip_prefix('@') else {
            return Err(SelectorError {
                offset: 0,
                message: "an item selector starts with `@`".into(),
            });
        };
        let mut sel = Selector::parse(&format!("${rest}")).map_err(|e| SelectorError {
            offset: e.offset,
            message: e.message.replace('$', "@"),
        })?;
        sel.text = text.to_string();
        Ok(sel)
    }

    /// What the selector selects below `base` (for an item selector, the item).
    pub fn resolve_from(&self, doc: &Document<'_>, base: NodeId) -> Resolution {
        let mut out = Resolution::default();
        let start = Match {
            node: base,
            key_span: None,
        };
        self.walk(doc, start, 0, &mut out);
        out
    }

    pub fn resolve(&self, doc: &Document<'_>) -> Resolution {
        let mut out = Resolution::default();
        self.resolve_into(doc, &mut out);
        out
    }

    /// Resolves into `out` (cleared first), reusing its buffers.
    pub fn resolve_into(&self, doc: &Document<'_>, out: &mut Resolution) {
        out.found.clear();
        out.missing.clear();
        let start = Match {
            node: doc.root(),
            key_span: None,
        };
        self.walk(doc, start, 0, out);
    }

    /// The first absent key of `miss`.
    pub fn missing_key(&self, miss: &Missing) -> &str {
        match self.segments.get(miss.depth) {
            Some(Segment::Key(k)) => k,
            _ => "",
        }
    }

    /// The absent path from its first absent key, dotted.
    pub fn missing_rest(&self, miss: &Missing) -> String {
        display_segments(&self.segments[miss.depth.min(self.segments.len())..])
    }

    /// The JSON Pointer of the absent value itself.
    pub fn missing_pointer(&self, doc: &Document<'_>, miss: &Missing) -> String {
        let mut pointer = doc.pointer_of(miss.parent);
        for segment in &self.segments[miss.depth.min(self.segments.len())..] {
            match segment {
                Segment::Key(k) => push_pointer_segment(&mut pointer, k),
                Segment::Index(i) => pointer.push_str(&format!("/{i}")),
                Segment::Wildcard => {}
            }
        }
        pointer
    }

    /// Records that the value at `segments[depth..]` below `at` is absent. Under a wildcard
    /// nothing is missing: there is simply nothing to select.
    fn missing(&self, at: Match, depth: usize, out: &mut Resolution) {
        let rest = &self.segments[depth..];
        if rest.contains(&Segment::Wildcard) || !matches!(rest.first(), Some(Segment::Key(_))) {
            return;
        }
        out.missing.push(Missing {
            parent: at.node,
            parent_key_span: at.key_span,
            depth,
        });
    }

    fn walk(&self, doc: &Document<'_>, at: Match, depth: usize, out: &mut Resolution) {
        let Some(segment) = self.segments.get(depth) else {
            out.found.push(at);
            return;
        };
        match (segment, doc.value(at.node)) {
            (Segment::Key(key), Value::Object { .. }) => match doc.member(at.node, key) {
                Some(member) => {
                    let next = Match {
                        node: member.value,
                        key_span: Some(member.key_span),
                    };
                    self.walk(doc, next, depth + 1, out);
                }
                None => self.missing(at, depth, out),
            },
            // null stands for "not set": what lies below it is missing, not mistyped.
            (Segment::Key(_), Value::Null) => self.missing(at, depth, out),
            (Segment::Index(i), Value::Array { .. }) => {
                if let Some(&item) = doc.items(at.node).get(*i) {
                    let next = Match {
                        node: item,
                        key_span: None,
                    };
                    self.walk(doc, next, depth + 1, out);
                }
            }
            (Segment::Wildcard, Value::Array { .. }) => {
                for &item in doc.items(at.node) {
                    let next = Match {
                        node: item,
                        key_span: None,
                    };
                    self.walk(doc, next, depth + 1, out);
                }
            }
            (Segment::Wildcard, Value::Object { .. }) => {
                for member in doc.members(at.node) {
                    let next = Match {
                        node: member.value,
                        key_span: Some(member.key_span),
                    };
                    self.walk(doc, next, depth + 1, out);
                }
            }
            // A value of the wrong type on the way: nothing selected, and nothing "missing"
            // either (wrong-type reports the real fault).
            _ => {}
        }
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Renders segments as a dotted path (for messages such as "metadata.name is missing").
pub fn display_segments(segments: &[Segment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Key(k) if is_plain_key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
            Segment::Wildcard => out.push_str("[*]"),
        }
    }
    out
}

fn parse_dotted(
    text: &str,
    pos: usize,
    segments: &mut Vec<Segment>,
) -> Result<usize, SelectorError> {
    let rest = &text[pos..];
    if rest.starts_with('"') || rest.starts_with('\'') {
        let (key, used) = parse_quoted(rest).map_err(|(o, m)| SelectorError {
            offset: pos + o,
            message: m.to_string(),
        })?;
        segments.push(Segment::Key(key));
        return Ok(pos + used);
    }
    if rest.starts_with('*') {
        segments.push(Segment::Wildcard);
        return Ok(pos + 1);
    }
    let len = rest
        .char_indices()
        .find(|(_, c)| !is_plain_key_char(*c))
        .map(|(i, _)| i)
        .unwrap_or(rest.len());
    if len == 0 {
        return Err(SelectorError {
            offset: pos,
            message: "expected a key name".to_string(),
        });
    }
    segments.push(Segment::Key(rest[..len].to_string()));
    Ok(pos + len)
}

/// Parses `"..."` (JSON escapes) or `'...'` (no escapes but `\'` and `\\`); returns the key and
/// the bytes used.
fn parse_quoted(text: &str) -> Result<(String, usize), (usize, &'static str)> {
    let quote = text.as_bytes()[0];
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            c if c as u32 == quote as u32 => {
                if quote == b'"' {
                    let key: String = serde_json::from_str(&text[..=i])
                        .map_err(|_| (0, "invalid escape in a quoted key"))?;
                    return Ok((key, i + 1));
                }
                return Ok((out, i + 1));
            }
            '\\' if quote == b'\'' => match chars.next() {
                Some((_, c @ ('\'' | '\\'))) => out.push(c),
                _ => return Err((i, "only `\\'` and `\\\\` escapes are allowed in '...' keys")),
            },
            '\\' => {
                chars.next();
            }
            c => out.push(c),
        }
    }
    Err((0, "unclosed quoted key"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn parses_the_documented_forms() {
        let s = Selector::parse(r#"spec.hyperparams."policy.optimizer.kwargs.lr""#).unwrap();
        assert_eq!(
            s.segments,
            vec![
                Segment::Key("spec".into()),
                Segment::Key("hyperparams".into()),
                Segment::Key("policy.optimizer.kwargs.lr".into())
            ]
        );
        let t = Selector::parse("$.spec.hyperparams['policy.optimizer.kwargs.lr']").unwrap();
        assert_eq!(s.segments, t.segments);
        let w = Selector::parse("spec.resources.pools[*].name").unwrap();
        assert_eq!(w.segments[3], Segment::Wildcard);
        assert_eq!(
            Selector::parse("a.*.b").unwrap().segments[1],
            Segment::Wildcard
        );
        assert_eq!(
            Selector::parse("a[3]").unwrap().segments[1],
            Segment::Index(3)
        );
        assert!(Selector::parse("$").unwrap().segments.is_empty());
        for bad in ["", "a..b", "a[", "a[x]", "a b", "a.'x", "$x"] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolves_with_pointers_and_reports_missing_keys() {
        let doc = parse(r#"{"p": [{"n": "a"}, {"m": 1}, 5], "h": {"x.y/z": 1}}"#).unwrap();
        let r = Selector::parse("p[*].n").unwrap().resolve(&doc);
        assert_eq!(r.found.len(), 1);
        let sel = Selector::parse("p[*].n").unwrap();
        assert_eq!(r.found[0].pointer(&doc), "/p/0/n");
        assert_eq!(r.missing.len(), 1);
        assert_eq!(sel.missing_pointer(&doc, &r.missing[0]), "/p/1/n");
        let r = Selector::parse("h.\"x.y/z\"").unwrap().resolve(&doc);
        assert_eq!(r.found[0].pointer(&doc), "/h/x.y~1z");
    }
}
