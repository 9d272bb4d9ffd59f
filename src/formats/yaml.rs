//! YAML to [`Document`], one per document of the stream, from `saphyr-parser`'s events.
//!
//! The event parser keeps its own state stack (it does not recurse per level), and so does
//! this conversion. Scalars resolve by the YAML 1.2 core schema; aliases expand to copies of
//! their anchor's subtree (the copy's spans point at the anchored text), within a budget of
//! nodes so an alias bomb fails instead of filling memory; merge keys (`<<`) merge, explicit
//! keys winning. Spans: a scalar's token (quotes included, its anchor or tag not), a
//! collection's first token to its last value (a flow one to its closing bracket), a member's
//! key scalar.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::{error_at, json_number, radix_number};
use crate::diagnostic::Span;
use crate::json::{Builder, Document, Member, NodeId, ParseError, Value, MAX_DEPTH};

/// Nodes a stream may build (aliases expanded) are at most the larger of this and
/// [`NODES_PER_BYTE`] per byte of text: far past any real config, far below an alias bomb.
pub const MIN_NODE_BUDGET: usize = 1_000_000;
pub const NODES_PER_BYTE: usize = 10;

pub(super) fn parse(text: &str) -> Result<Vec<Document<'_>>, ParseError> {
    let mut conv = Converter {
        text,
        chars: char_starts(text),
        b: Builder::new(),
        frames: Vec::new(),
        anchors: HashMap::new(),
        budget: MIN_NODE_BUDGET.max(NODES_PER_BYTE.saturating_mul(text.len())),
        docs: Vec::new(),
        built: 0,
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| {
            let at = conv.byte(e.marker().index());
            error_at(text, at, e.info())
        })?;
        let (start, end) = (conv.byte(span.start.index()), conv.byte(span.end.index()));
        match event {
            Event::StreamEnd => break,
            Event::DocumentEnd => conv.end_document()?,
            Event::Scalar(value, style, anchor, tag) => {
                conv.scalar(value, style, anchor, tag.as_deref(), start, end)?
            }
            Event::SequenceStart(anchor, _) => conv.start(false, anchor, start, end)?,
            Event::MappingStart(anchor, _) => conv.start(true, anchor, start, end)?,
            Event::SequenceEnd | Event::MappingEnd => conv.end(start, end),
            Event::Alias(anchor) => conv.alias(anchor, start, end)?,
            Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => {}
        }
    }
    Ok(conv.docs)
}

/// The byte offset of each character, and the length at the end, when the text is not all
/// ASCII: the parser's marks count characters.
fn char_starts(text: &str) -> Option<Vec<u32>> {
    if text.is_ascii() {
        return None;
    }
    let starts = text.char_indices().map(|(at, _)| at as u32);
    Some(starts.chain([text.len() as u32]).collect())
}

struct Converter<'s> {
    text: &'s str,
    chars: Option<Vec<u32>>,
    b: Builder<'s>,
    /// The open collections, as in the builder.
    frames: Vec<Frame>,
    anchors: HashMap<usize, Anchored<'s>>,
    budget: usize,
    docs: Vec<Document<'s>>,
    /// Nodes of the documents already done.
    built: usize,
}

struct Frame {
    mapping: bool,
    start: usize,
    anchor: usize,
    /// A mapping's next event is a key.
    want_key: bool,
    /// The end of the last finished child.
    last_end: usize,
    /// Levels of nesting below this collection so far.
    height: usize,
    members: usize,
    /// Members whose key is a plain `<<`, and their values once finished.
    merges: Vec<(usize, Option<NodeId>)>,
}

/// What an anchor names: a finished node (and a scalar's text, for use as a key), or a key.
enum Anchored<'s> {
    Node {
        id: NodeId,
        height: usize,
        text: Option<Cow<'s, str>>,
    },
    Key {
        text: Cow<'s, str>,
        value: Value<'s>,
        span: Span,
    },
}

impl<'s> Converter<'s> {
    fn byte(&self, char_index: usize) -> usize {
        match &self.chars {
            None => char_index.min(self.text.len()),
            Some(starts) => starts
                .get(char_index)
                .map_or(self.text.len(), |&at| at as usize),
        }
    }

    fn fail<T>(&self, at: usize, message: impl std::fmt::Display) -> Result<T, ParseError> {
        Err(error_at(self.text, at, message))
    }

    /// Counts `nodes` more against the budget.
    fn spend(&self, nodes: usize, at: usize) -> Result<(), ParseError> {
        if self.built + self.b.len() + nodes > self.budget {
            return self.fail(
                at,
                format!(
                    "the YAML expands to more than {} nodes (aliases repeating anchors)",
                    self.budget
                ),
            );
        }
        Ok(())
    }

    fn wants_key(&self) -> bool {
        self.frames.last().is_some_and(|f| f.mapping && f.want_key)
    }

    fn end_document(&mut self) -> Result<(), ParseError> {
        let b = std::mem::take(&mut self.b);
        self.anchors.clear();
        let Some(doc) = b.finish() else {
            return self.fail(self.text.len(), "the YAML document is incomplete");
        };
        self.built += doc.root() as usize + 1;
        self.docs.push(doc);
        Ok(())
    }

    fn scalar(
        &mut self,
        text: Cow<'s, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        start: usize,
        end: usize,
    ) -> Result<(), ParseError> {
        let start = skip_properties(self.text, start, end);
        let end = match style {
            // A block scalar's span runs to the next line: it ends at its last character.
            ScalarStyle::Literal | ScalarStyle::Folded => {
                start + self.text[start..end].trim_end().len()
            }
            // A quoted one's span may run on over the spaces after it: it ends at its quote.
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                quoted_end(self.text, start, end)
            }
            _ => end,
        };
        let span = Span::new(start, end);
        let merge = style == ScalarStyle::Plain && tag.is_none() && text == "<<";
        let value = resolve(&text, style, tag);
        if self.wants_key() {
            if anchor != 0 {
                let (text, value) = (text.clone(), value.clone());
                self.anchors
                    .insert(anchor, Anchored::Key { text, value, span });
            }
            self.key(text, span, merge);
            return Ok(());
        }
        self.spend(1, start)?;
        let id = self.b.scalar(value, span);
        let text = (anchor != 0).then_some(text);
        self.finished(id, end, 0, anchor, text);
        Ok(())
    }

    fn key(&mut self, text: Cow<'s, str>, span: Span, merge: bool) {
        if let Some(frame) = self.frames.last_mut() {
            frame.want_key = false;
            if merge {
                frame.merges.push((frame.members, None));
            }
        }
        self.b.key(text, span);
    }

    fn start(
        &mut self,
        mapping: bool,
        anchor: usize,
        start: usize,
        end: usize,
    ) -> Result<(), ParseError> {
        let mut start = skip_properties(self.text, start, end);
        if self.wants_key() {
            return self.fail(
                start,
                "a sequence or mapping as a mapping key is not supported",
            );
        }
        if self.frames.len() >= MAX_DEPTH {
            return self.fail(start, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        self.spend(1, start)?;
        let bytes = self.text.as_bytes();
        if !mapping && !matches!(bytes.get(start), Some(b'[' | b'-')) {
            // A sequence not indented under its key starts at its item: take its `-` too.
            let before = self.text[..start].trim_end_matches([' ', '\t']).len();
            if before > 0 && bytes[before - 1] == b'-' {
                start = before - 1;
            }
        }
        self.frames.push(Frame {
            mapping,
            start,
            anchor,
            want_key: true,
            last_end: start,
            height: 0,
            members: 0,
            merges: Vec::new(),
        });
        if mapping {
            self.b.start_object();
        } else {
            self.b.start_array();
        }
        Ok(())
    }

    /// Closes a collection: a flow one's end event starts at its bracket (and may run on over
    /// the spaces and comment after it), a block one's is empty.
    fn end(&mut self, start: usize, end: usize) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let end = if end > start {
            start + 1
        } else {
            frame.last_end
        };
        let span = Span::new(frame.start, end.max(frame.start));
        let merges: Vec<NodeId> = frame.merges.iter().filter_map(|m| m.1).collect();
        let id = if merges.is_empty() {
            self.b.end(span)
        } else {
            let at: HashSet<usize> = frame.merges.iter().map(|m| m.0).collect();
            self.b
                .end_with(span, |doc, members| merge(doc, members, &at))
        };
        self.finished(id, end, frame.height + 1, frame.anchor, None);
    }

    fn alias(&mut self, anchor: usize, start: usize, end: usize) -> Result<(), ParseError> {
        let Some(anchored) = self.anchors.get(&anchor) else {
            return self.fail(start, "the alias names no anchor before it");
        };
        if self.wants_key() {
            let (text, span) = match anchored {
                Anchored::Key { text, span, .. } => (text.clone(), *span),
                Anchored::Node {
                    text: Some(text),
                    id,
                    ..
                } => (text.clone(), self.b.doc().span(*id)),
                Anchored::Node { .. } => {
                    return self.fail(
                        start,
                        "a sequence or mapping as a mapping key is not supported",
                    )
                }
            };
            self.key(text, span, false);
            return Ok(());
        }
        let (id, height) = match anchored {
            Anchored::Key { value, span, .. } => {
                let (value, span) = (value.clone(), *span);
                self.spend(1, start)?;
                (self.b.scalar(value, span), 0)
            }
            &Anchored::Node { id, height, .. } => {
                if self.frames.len() + height > MAX_DEPTH {
                    return self.fail(start, format!("nesting deeper than {MAX_DEPTH} levels"));
                }
                self.spend(self.b.subtree_len(id), start)?;
                (self.b.copy(id), height)
            }
        };
        self.finished(id, end, height, 0, None);
        Ok(())
    }

    /// Records a finished value: its anchor, and its place in the open collection.
    fn finished(
        &mut self,
        id: NodeId,
        end: usize,
        height: usize,
        anchor: usize,
        text: Option<Cow<'s, str>>,
    ) {
        if anchor != 0 {
            self.anchors
                .insert(anchor, Anchored::Node { id, height, text });
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.last_end = end;
            frame.height = frame.height.max(height);
            if frame.mapping {
                if let Some(last) = frame.merges.last_mut() {
                    if last.0 == frame.members {
                        last.1 = Some(id);
                    }
                }
                frame.members += 1;
                frame.want_key = true;
            }
        }
    }
}

/// Replaces each merge member (at the indexes `at`) with the members of the mapping it names,
/// or of each mapping of the sequence it names, earlier ones first; a key already present
/// (explicit anywhere in the mapping, or merged before) is not merged again. Any other value
/// of a merge key is dropped.
fn merge<'s>(doc: &Document<'s>, members: &mut Vec<Member<'s>>, at: &HashSet<usize>) {
    let mut seen: HashSet<Cow<'s, str>> = members
        .iter()
        .enumerate()
        .filter(|(i, _)| !at.contains(i))
        .map(|(_, m)| m.key.clone())
        .collect();
    let mut out = Vec::with_capacity(members.len());
    for (i, m) in members.drain(..).enumerate() {
        if !at.contains(&i) {
            out.push(m);
            continue;
        }
        let sources = match doc.value(m.value) {
            Value::Object { .. } => std::slice::from_ref(&m.value),
            _ => doc.items(m.value),
        };
        for &source in sources {
            for merged in doc.members(source) {
                if seen.insert(merged.key.clone()) {
                    out.push(merged.clone());
                }
            }
        }
    }
    *members = out;
}

/// The end of the quoted scalar whose opening quote is at `start` (`''` and `\"` are escapes);
/// `end` if it is not found before.
fn quoted_end(text: &str, start: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    let Some(&quote) = bytes.get(start).filter(|&&b| b == b'"' || b == b'\'') else {
        return end;
    };
    let mut at = start + 1;
    while at < end {
        match bytes[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\'' if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') => at += 2,
            b if b == quote => return at + 1,
            _ => at += 1,
        }
    }
    end
}

/// Where a node's own token starts, after its anchor (`&a`) and tag (`!!str`) if any.
fn skip_properties(text: &str, mut at: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    while at < end && matches!(bytes.get(at), Some(b'&' | b'!')) {
        while at < end && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        loop {
            while at < end && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            if at < end && bytes[at] == b'#' {
                while at < end && bytes[at] != b'\n' {
                    at += 1;
                }
                continue;
            }
            break;
        }
    }
    at
}

/// A scalar's value by the YAML 1.2 core schema: quoted and block scalars, and those tagged
/// `!!str` or `!`, are strings; plain ones may be null, a boolean or a number.
fn resolve<'s>(text: &Cow<'s, str>, style: ScalarStyle, tag: Option<&Tag>) -> Value<'s> {
    let string_tag = tag.is_some_and(|t| {
        (t.is_yaml_core_schema() && t.suffix == "str") || (t.handle.is_empty() && t.suffix == "!")
    });
    if style != ScalarStyle::Plain || string_tag {
        return Value::String(text.clone());
    }
    match text.as_ref() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let number = match text {
        Cow::Borrowed(s) => number(s),
        Cow::Owned(s) => number(s).map(|n| Cow::Owned(n.into_owned())),
    };
    number.map_or_else(|| Value::String(text.clone()), Value::Number)
}

/// A core-schema int (`-12`, `0o17`, `0x1F`) or float (`1.5`, `.5`, `-1e3`) in JSON syntax;
/// `.inf` and `.nan` have none and stay strings.
fn number(s: &str) -> Option<Cow<'_, str>> {
    let radix = |prefix: &str, radix: u32, ok: fn(&u8) -> bool| {
        let digits = s.strip_prefix(prefix)?;
        let all = !digits.is_empty() && digits.as_bytes().iter().all(ok);
        all.then(|| radix_number(digits, radix)).flatten()
    };
    if let Some(n) = radix("0x", 16, u8::is_ascii_hexdigit) {
        return Some(Cow::Owned(n));
    }
    if let Some(n) = radix("0o", 8, |b| (b'0'..=b'7').contains(b)) {
        return Some(Cow::Owned(n));
    }
    // The core schema's numbers are digits, a dot and an exponent; `json_number` takes no more.
    if !s.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    json_number(s)
}

#[cfg(test)]
mod tests;
