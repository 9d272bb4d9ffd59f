//! The parser proper: iterative recursive descent with an explicit stack of open containers.

use std::borrow::Cow;
use std::collections::HashMap;

use super::{
    Document, DuplicateKey, Member, Node, NodeId, ParseError, Span, Value, MAX_DEPTH, NO_PARENT,
};

/// Checks that `bytes` is UTF-8 and parses it.
pub fn parse_bytes(bytes: &[u8]) -> Result<Document<'_>, ParseError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => Err(ParseError {
            offset: e.valid_up_to(),
            message: format!(
                "the file is not valid UTF-8 (invalid byte 0x{:02X} at offset {})",
                bytes[e.valid_up_to()],
                e.valid_up_to()
            ),
        }),
    }
}

/// Parses a whole document whose top level must be an object.
pub fn parse(text: &str) -> Result<Document<'_>, ParseError> {
    // A pretty-printed spec has a node every ~14 bytes: sizing the arena up front saves the
    // chain of reallocations a growing vector makes.
    let nodes = text.len() / 14 + 8;
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        doc: Document {
            nodes: Vec::with_capacity(nodes),
            items: Vec::with_capacity(nodes / 4),
            members: Vec::with_capacity(nodes),
            parents: Vec::with_capacity(nodes),
            duplicates: Vec::new(),
        },
        item_scratch: Vec::new(),
        member_scratch: Vec::new(),
    };
    parser.document()?;
    Ok(parser.doc)
}

enum Frame<'s> {
    Array {
        start: usize,
        scratch: usize,
    },
    Object {
        start: usize,
        scratch: usize,
        key: Option<(Cow<'s, str>, Span)>,
    },
}

struct Parser<'s> {
    text: &'s str,
    bytes: &'s [u8],
    pos: usize,
    doc: Document<'s>,
    item_scratch: Vec<NodeId>,
    member_scratch: Vec<Member<'s>>,
}

fn describe_byte(text: &str, pos: usize) -> String {
    match text[pos..].chars().next() {
        Some(c) if c.is_control() => format!("control character U+{:04X}", c as u32),
        Some(c) => format!("`{c}`"),
        None => "end of input".to_string(),
    }
}

impl<'s> Parser<'s> {
    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn unexpected<T>(&self, expected: &str) -> Result<T, ParseError> {
        let pos = self.pos;
        if pos >= self.bytes.len() {
            return self.error(
                pos,
                format!("unexpected end of input: expected {expected} (the file is truncated)"),
            );
        }
        match self.bytes[pos] {
            b'/' if matches!(self.bytes.get(pos + 1), Some(b'/' | b'*')) => {
                self.error(pos, "comments are not allowed in JSON")
            }
            _ => self.error(
                pos,
                format!(
                    "expected {expected}, found {}",
                    describe_byte(self.text, pos)
                ),
            ),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn document(&mut self) -> Result<(), ParseError> {
        if self.text.starts_with('\u{FEFF}') {
            return self.error(
                0,
                "the file starts with a UTF-8 byte-order mark (U+FEFF); the platform's JSON \
                 parsers refuse it: save the file as UTF-8 without a BOM",
            );
        }
        self.skip_ws();
        if self.pos >= self.bytes.len() {
            return self.error(
                self.pos,
                "the file is empty: expected a JSON object at the top level",
            );
        }
        if self.bytes[self.pos] != b'{' {
            let start = self.pos;
            // Parse it anyway so a broken non-object is reported as broken JSON first.
            self.value()?;
            self.skip_ws();
            if self.pos < self.bytes.len() {
                return self.unexpected("end of input after the top-level value");
            }
            let found = match self.doc.value(self.doc.root()) {
                Value::Array { .. } => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                Value::Null => "null",
                Value::Object { .. } => "an object",
            };
            return self.error(
                start,
                format!("the top level must be a JSON object, found {found}"),
            );
        }
        self.value()?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return self.unexpected("end of input after the top-level object");
        }
        Ok(())
    }

    fn push(&mut self, value: Value<'s>, start: usize) -> NodeId {
        self.doc.nodes.push(Node {
            value,
            span: Span::new(start, self.pos),
        });
        self.doc.parents.push((NO_PARENT, 0));
        (self.doc.nodes.len() - 1) as NodeId
    }

    /// Parses one value of any nesting with an explicit stack of open containers.
    fn value(&mut self) -> Result<NodeId, ParseError> {
        let mut stack: Vec<Frame<'s>> = Vec::new();
        loop {
            // Parse a value (or open a container).
            self.skip_ws();
            let start = self.pos;
            let mut done = match self.bytes.get(self.pos) {
                Some(b'{') | Some(b'[') => {
                    if stack.len() >= MAX_DEPTH {
                        return self.error(
                            start,
                            format!("nesting deeper than {MAX_DEPTH} levels is not supported"),
                        );
                    }
                    let is_object = self.bytes[self.pos] == b'{';
                    self.pos += 1;
                    self.skip_ws();
                    if is_object {
                        stack.push(Frame::Object {
                            start,
                            scratch: self.member_scratch.len(),
                            key: None,
                        });
                        if self.bytes.get(self.pos) == Some(&b'}') {
                            self.pos += 1;
                            Some(self.close(&mut stack))
                        } else {
                            self.key(&mut stack)?;
                            continue;
                        }
                    } else {
                        stack.push(Frame::Array {
                            start,
                            scratch: self.item_scratch.len(),
                        });
                        if self.bytes.get(self.pos) == Some(&b']') {
                            self.pos += 1;
                            Some(self.close(&mut stack))
                        } else {
                            continue;
                        }
                    }
                }
                Some(b'"') => {
                    let s = self.string()?;
                    Some(self.push(Value::String(s), start))
                }
                Some(b'-' | b'0'..=b'9') => {
                    let raw = self.number()?;
                    Some(self.push(Value::Number(raw), start))
                }
                Some(b't') => Some(self.literal("true", Value::Bool(true))?),
                Some(b'f') => Some(self.literal("false", Value::Bool(false))?),
                Some(b'n') => Some(self.literal("null", Value::Null)?),
                _ => return self.unexpected("a JSON value"),
            };
            // Attach the finished value to its container; close containers that end here.
            while let Some(id) = done.take() {
                let Some(frame) = stack.last_mut() else {
                    return Ok(id);
                };
                match frame {
                    Frame::Array { .. } => self.item_scratch.push(id),
                    Frame::Object { key, .. } => {
                        let (key, key_span) = key.take().expect("object frame holds its key");
                        self.member_scratch.push(Member {
                            key,
                            key_span,
                            value: id,
                        });
                    }
                }
                self.skip_ws();
                let is_object = matches!(stack.last(), Some(Frame::Object { .. }));
                let close = if is_object { b'}' } else { b']' };
                match self.bytes.get(self.pos) {
                    Some(b',') => {
                        let comma = self.pos;
                        self.pos += 1;
                        self.skip_ws();
                        if self.bytes.get(self.pos) == Some(&close) {
                            return self.error(comma, "trailing comma is not allowed in JSON");
                        }
                        if is_object {
                            self.key(&mut stack)?;
                        }
                    }
                    Some(&b) if b == close => {
                        self.pos += 1;
                        done = Some(self.close(&mut stack));
                    }
                    _ => {
                        return self.unexpected(if is_object {
                            "`,` or `}` after an object member"
                        } else {
                            "`,` or `]` after an array item"
                        })
                    }
                }
            }
        }
    }

    /// Parses `"key" :` into the innermost object frame.
    fn key(&mut self, stack: &mut [Frame<'s>]) -> Result<(), ParseError> {
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b'"') {
            return self.unexpected("a string key");
        }
        let start = self.pos;
        let key = self.string()?;
        let span = Span::new(start, self.pos);
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return self.unexpected("`:` after an object key");
        }
        self.pos += 1;
        if let Some(Frame::Object { key: slot, .. }) = stack.last_mut() {
            *slot = Some((key, span));
        }
        Ok(())
    }

    /// Pops the innermost container, moving its children from scratch into the arena.
    fn close(&mut self, stack: &mut Vec<Frame<'s>>) -> NodeId {
        match stack.pop().expect("close with an open container") {
            Frame::Array { start, scratch } => {
                let first = self.doc.items.len() as u32;
                self.doc.items.extend(self.item_scratch.drain(scratch..));
                let len = self.doc.items.len() as u32 - first;
                let id = self.push(Value::Array { start: first, len }, start);
                for i in 0..len {
                    let child = self.doc.items[(first + i) as usize];
                    self.doc.parents[child as usize] = (id, i);
                }
                id
            }
            Frame::Object { start, scratch, .. } => {
                let first = self.doc.members.len();
                self.doc
                    .members
                    .extend(self.member_scratch.drain(scratch..));
                let len = self.doc.members.len() - first;
                let id = self.push(
                    Value::Object {
                        start: first as u32,
                        len: len as u32,
                    },
                    start,
                );
                for i in 0..len {
                    let child = self.doc.members[first + i].value;
                    self.doc.parents[child as usize] = (id, i as u32);
                }
                self.find_duplicates(id, first, len);
                id
            }
        }
    }

    fn find_duplicates(&mut self, object: NodeId, first: usize, len: usize) {
        let members = &self.doc.members[first..first + len];
        let mut found = Vec::new();
        if len <= 16 {
            for (i, m) in members.iter().enumerate() {
                if let Some(prev) = members[..i].iter().find(|p| p.key == m.key) {
                    found.push((prev.key_span, m.key_span, m.key.to_string()));
                }
            }
        } else {
            let mut seen: HashMap<&str, Span> = HashMap::with_capacity(len);
            for m in members {
                if let Some(prev) = seen.get(m.key.as_ref()) {
                    found.push((*prev, m.key_span, m.key.to_string()));
                } else {
                    seen.insert(&m.key, m.key_span);
                }
            }
        }
        for (first, second, key) in found {
            self.doc.duplicates.push(DuplicateKey {
                object,
                key,
                first,
                second,
            });
        }
    }

    fn literal(&mut self, word: &str, value: Value<'s>) -> Result<NodeId, ParseError> {
        let start = self.pos;
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(self.push(value, start))
        } else {
            self.unexpected("a JSON value")
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<&'s str, ParseError> {
        let start = self.pos;
        if self.bytes[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => {
                self.pos += 1;
                if matches!(self.bytes.get(self.pos), Some(b'0'..=b'9')) {
                    return self.error(start, "numbers cannot have leading zeros in JSON");
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.unexpected("a digit"),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return self.unexpected("a digit after the decimal point");
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return self.unexpected("a digit in the exponent");
            }
        }
        Ok(&self.text[start..self.pos])
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let at = self.pos;
        let Some(digits) = self.bytes.get(self.pos..self.pos + 4) else {
            self.pos = self.bytes.len();
            return self.unexpected("four hex digits after `\\u`");
        };
        let mut value = 0u32;
        for (i, &b) in digits.iter().enumerate() {
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => {
                    self.pos = at + i;
                    return self.unexpected("a hex digit in a `\\u` escape");
                }
            };
            value = value * 16 + digit as u32;
        }
        self.pos += 4;
        Ok(value)
    }

    /// Parses a string starting at the opening quote. Borrowed unless it has escapes.
    fn string(&mut self) -> Result<Cow<'s, str>, ParseError> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes.
        loop {
            match self.bytes.get(self.pos) {
                None => {
                    return self.error(
                        open,
                        "unterminated string: the file ends before its closing quote",
                    )
                }
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => return self.control_in_string(b),
                Some(_) => self.pos += 1,
            }
        }
        let mut out = String::with_capacity(self.pos - start + 16);
        out.push_str(&self.text[start..self.pos]);
        loop {
            match self.bytes.get(self.pos) {
                None => {
                    return self.error(
                        open,
                        "unterminated string: the file ends before its closing quote",
                    )
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    let escape_at = self.pos;
                    self.pos += 1;
                    let Some(&e) = self.bytes.get(self.pos) else {
                        return self.unexpected("an escape character after `\\`");
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            out.push(self.unicode_escape(unit)?);
                        }
                        _ => {
                            self.pos = escape_at;
                            return self.error(
                                escape_at,
                                format!(
                                    "invalid escape `\\{}` in string",
                                    describe_byte(self.text, escape_at + 1).trim_matches('`')
                                ),
                            );
                        }
                    }
                }
                Some(&b) if b < 0x20 => return self.control_in_string(b),
                Some(_) => {
                    // Copy a run of plain characters at once.
                    let run = self.pos;
                    while let Some(&b) = self.bytes.get(self.pos) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        self.pos += 1;
                    }
                    out.push_str(&self.text[run..self.pos]);
                }
            }
        }
    }

    /// Decodes `\uXXXX`, joining surrogate pairs. A lone surrogate becomes U+FFFD: the platform's
    /// parsers accept it, and every value we print must stay valid UTF-8.
    fn unicode_escape(&mut self, unit: u32) -> Result<char, ParseError> {
        if (0xD800..0xDC00).contains(&unit) {
            if self.bytes[self.pos..].starts_with(b"\\u") {
                let save = self.pos;
                self.pos += 2;
                let low = self.hex4()?;
                if (0xDC00..0xE000).contains(&low) {
                    let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    return Ok(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                self.pos = save;
            }
            return Ok('\u{FFFD}');
        }
        Ok(char::from_u32(unit).unwrap_or('\u{FFFD}'))
    }

    fn control_in_string<T>(&self, b: u8) -> Result<T, ParseError> {
        self.error(
            self.pos,
            format!("control character U+{b:04X} must be escaped inside a string"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = r#"{"a": [1, "x\n"], "b": {"c": null}}"#;
        let doc = parse(text).unwrap();
        let root = doc.root();
        let a = doc.member(root, "a").unwrap();
        assert_eq!(
            &text[a.key_span.start as usize..a.key_span.end as usize],
            "\"a\""
        );
        let items = doc.items(a.value);
        assert_eq!(items.len(), 2);
        assert_eq!(doc.as_str(items[1]), Some("x\n"));
        let b = doc.get(root, "b").unwrap();
        let c = doc.get(b, "c").unwrap();
        assert_eq!(doc.value(c), &Value::Null);
        assert_eq!(doc.pointer_of(c), "/b/c");
    }

    #[test]
    fn duplicate_keys_are_recorded() {
        let doc = parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(doc.duplicates.len(), 1);
        assert_eq!(doc.duplicates[0].key, "a");
        assert_eq!(doc.duplicates[0].first, Span::new(1, 4));
        // Last wins on lookup.
        assert_eq!(
            doc.value(doc.get(doc.root(), "a").unwrap()),
            &Value::Number("3")
        );
    }

    #[test]
    fn refuses_what_the_platform_refuses() {
        for (text, offset) in [
            ("", 0),
            ("   ", 3),
            ("\u{FEFF}{}", 0),
            ("[]", 0),
            ("{\"a\":1,}", 6),
            ("{\"a\":1 // c\n}", 7),
            ("{\"a\":", 5),
            ("{\"a\":01}", 5),
            ("{\"a\":\"\t\"}", 6),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.offset, offset, "{text:?}: {err}");
        }
    }

    #[test]
    fn lone_surrogate_becomes_replacement_character() {
        let doc = parse(r#"{"a": "\ud800x", "b": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(
            doc.as_str(doc.get(doc.root(), "a").unwrap()),
            Some("\u{FFFD}x")
        );
        assert_eq!(doc.as_str(doc.get(doc.root(), "b").unwrap()), Some("😀"));
    }

    #[test]
    fn deep_nesting_is_bounded_not_a_crash() {
        let ok = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse(&ok).is_ok());
        let deep = format!("{{\"a\":{}", "[".repeat(200_000));
        let err = parse(&deep).unwrap_err();
        assert!(err.message.contains("nesting"), "{err}");
    }
}
