//! The parser proper: iterative recursive descent with an explicit stack of open containers.
//!
//! The hot paths work on a local byte position and scan eight bytes at a time (strings up to
//! their closing quote, indentation after a newline); everything unusual (escapes, errors) goes
//! through slower, straightforward code that keeps the exact error offsets and messages.

use crate::diagnostic::Span;
use std::borrow::Cow;

use super::{Document, Member, Node, NodeId, ParseError, Value, MAX_DEPTH};

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
    parse_reusing(text, &mut Arena::default())
}

/// The buffers of a parse, kept between documents: a worker that parses thousands of files
/// then allocates its arena once instead of once per file. Give a document back with
/// [`Arena::recycle`] when done with it.
#[derive(Debug, Default)]
pub struct Arena {
    nodes: Vec<Node<'static>>,
    items: Vec<NodeId>,
    members: Vec<Member<'static>>,
    item_scratch: Vec<NodeId>,
    member_scratch: Vec<Member<'static>>,
    frames: Vec<Frame>,
}

/// Arenas that grew past this many nodes (a very large file) are not kept.
const KEPT_NODES: usize = 1 << 16;

impl Arena {
    /// Takes back the buffers of `doc`, emptied.
    pub fn recycle(&mut self, doc: Document<'_>) {
        if doc.nodes.capacity() > KEPT_NODES {
            return;
        }
        let (mut nodes, mut members) = (doc.nodes, doc.members);
        if !doc.owned_strings {
            // SAFETY: a length of 0 is always within capacity. The values are forgotten, not
            // dropped, which is only ever a leak, and there is nothing to leak: with no owned
            // string, every node and member is plain data and borrowed text.
            unsafe {
                nodes.set_len(0);
                members.set_len(0);
            }
        }
        self.nodes = emptied(nodes);
        self.items = emptied(doc.items);
        self.members = emptied(members);
    }
}

/// `v` emptied, as a vector of another lifetime of the same type. The empty vector is collected
/// in place, which keeps its allocation (the element types have the same layout).
fn emptied<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("the vector is empty"))
        .collect()
}

/// [`parse`], with the buffers of `arena` (which keeps its scratch buffers for the next parse).
pub fn parse_reusing<'s>(text: &'s str, arena: &mut Arena) -> Result<Document<'s>, ParseError> {
    // A pretty-printed spec has a node every ~14 bytes and a member for most nodes: sizing the
    // arena up front saves the chain of reallocations a growing vector makes.
    let nodes = text.len() / 14 + 8;
    let mut doc = Document {
        nodes: std::mem::take(&mut arena.nodes),
        items: std::mem::take(&mut arena.items),
        members: std::mem::take(&mut arena.members),
        duplicates: Vec::new(),
        owned_strings: false,
    };
    doc.nodes.reserve(nodes);
    doc.items.reserve(nodes / 4);
    doc.members.reserve(nodes);
    let mut item_scratch = std::mem::take(&mut arena.item_scratch);
    item_scratch.reserve(16);
    let mut member_scratch: Vec<Member<'s>> = std::mem::take(&mut arena.member_scratch);
    member_scratch.reserve(24);
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        doc,
        item_scratch,
        member_scratch,
        frames: std::mem::take(&mut arena.frames),
    };
    let parsed = parser.document();
    let Parser {
        doc,
        mut item_scratch,
        member_scratch,
        frames,
        ..
    } = parser;
    if item_scratch.capacity() <= KEPT_NODES {
        item_scratch.clear();
        arena.item_scratch = item_scratch;
        arena.member_scratch = emptied(member_scratch);
    }
    if frames.capacity() <= KEPT_FRAMES {
        arena.frames = frames;
    }
    match parsed {
        Ok(()) => Ok(doc),
        Err(e) => {
            arena.recycle(doc);
            Err(e)
        }
    }
}

/// Container stacks deeper than this (hostile nesting) are not kept.
const KEPT_FRAMES: usize = 256;

/// An open array or object.
#[derive(Debug)]
struct Frame {
    /// Offset of the opening bracket.
    start: usize,
    /// Where this container's children start in its scratch vector.
    scratch: usize,
    object: bool,
    /// Two keys of this object are equal: the duplicates are listed when it closes.
    maybe_duplicate: bool,
    /// One bit per key fingerprint seen in this object.
    seen: u64,
    /// Earlier keys compared exactly on fingerprint collisions, out of [`EXACT_SCAN_BUDGET`].
    scanned: u32,
}

struct Parser<'s> {
    text: &'s str,
    bytes: &'s [u8],
    /// The position for error reporting (`unexpected`) and the slow string path; the main loop
    /// keeps its own copy in a local.
    pos: usize,
    doc: Document<'s>,
    item_scratch: Vec<NodeId>,
    /// Members of the open objects; the last one of an object whose value is being parsed holds
    /// a placeholder value until that value is done.
    member_scratch: Vec<Member<'s>>,
    /// The stack of open containers, kept between parses.
    frames: Vec<Frame>,
}

fn describe_byte(text: &str, pos: usize) -> String {
    match text[pos..].chars().next() {
        Some(c) if c.is_control() => format!("control character U+{:04X}", c as u32),
        Some(c) => format!("`{c}`"),
        None => "end of input".to_string(),
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Eight bytes at `pos`, little-endian, if there are that many.
#[inline(always)]
fn word_at(bytes: &[u8], pos: usize) -> Option<u64> {
    let chunk: &[u8; 8] = bytes.get(pos..pos.wrapping_add(8))?.try_into().ok()?;
    Some(u64::from_le_bytes(*chunk))
}

/// A high bit set in each byte of `w` that is `"`, `\` or below 0x20. Only the lowest set bit is
/// exact (a borrow can flag a byte above a real hit), which is all the scan needs.
#[inline(always)]
fn special_bytes(w: u64) -> u64 {
    let quote = w ^ (ONES * b'"' as u64);
    let backslash = w ^ (ONES * b'\\' as u64);
    // `quote` and `backslash` have the high bits of `w`, so one `& !w` serves all three tests.
    (quote.wrapping_sub(ONES) | backslash.wrapping_sub(ONES) | w.wrapping_sub(ONES * 0x20))
        & !w
        & HIGHS
}

/// The first position at or after `pos` holding `"`, `\` or a control character, or the end.
#[inline(always)]
fn scan_string(bytes: &[u8], mut pos: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = bytes.get(pos..pos.wrapping_add(16)) {
        let special = special_bytes_16(chunk);
        if special != 0 {
            return pos + special.trailing_zeros() as usize;
        }
        pos += 16;
    }
    while let Some(w) = word_at(bytes, pos) {
        let special = special_bytes(w);
        if special != 0 {
            return pos + (special.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        pos += 1;
    }
    pos
}

/// One bit per byte of `chunk` (16 bytes) that is `"`, `\` or below 0x20.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_bytes_16(chunk: &[u8]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert_eq!(chunk.len(), 16);
    // SAFETY: `chunk` holds the 16 bytes the unaligned load reads; SSE2, the only feature
    // these intrinsics need, is part of every x86_64 target.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // Below 0x20, unsigned: the larger of the byte and 0x1F is 0x1F.
        let low = _mm_set1_epi8(0x1F);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

/// One bit per byte of `chunk` (16 bytes) that is a space.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn spaces_16(chunk: &[u8]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    assert_eq!(chunk.len(), 16);
    // SAFETY: as in `special_bytes_16`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u32
    }
}

const SPACES: u64 = ONES * b' ' as u64;

/// Skips JSON whitespace: inline for the common cases (none; one space before a token; a newline
/// and indentation before a token).
#[inline(always)]
fn skip_ws(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        Some(&b) if b > b' ' => pos,
        Some(b' ') if matches!(bytes.get(pos + 1), Some(&b) if b > b' ') => pos + 1,
        Some(b'\n') => {
            let mut at = pos + 1;
            // Most indentation fits in one 16-byte chunk.
            #[cfg(target_arch = "x86_64")]
            if let Some(chunk) = bytes.get(at..at.wrapping_add(16)) {
                let others = !spaces_16(chunk) & 0xFFFF;
                if others != 0 {
                    at += others.trailing_zeros() as usize;
                    if bytes.get(at).is_some_and(|&b| b > b' ') {
                        return at;
                    }
                    return skip_ws_run(bytes, at);
                }
                at += 16;
            }
            while let Some(w) = word_at(bytes, at) {
                let other = w ^ SPACES;
                if other != 0 {
                    let zeros = other.trailing_zeros();
                    at += (zeros / 8) as usize;
                    // The first byte that is not a space: done if it starts a token.
                    if (w >> (zeros & !7)) as u8 > b' ' {
                        return at;
                    }
                    break;
                }
                at += 8;
            }
            skip_ws_run(bytes, at)
        }
        _ => skip_ws_run(bytes, pos),
    }
}

/// Skips a run of whitespace. After a newline the indentation is skipped eight spaces at a time.
#[inline(never)]
fn skip_ws_run(bytes: &[u8], mut pos: usize) -> usize {
    loop {
        match bytes.get(pos) {
            Some(b'\n') => {
                pos += 1;
                while let Some(w) = word_at(bytes, pos) {
                    let other = w ^ SPACES;
                    if other != 0 {
                        pos += (other.trailing_zeros() / 8) as usize;
                        break;
                    }
                    pos += 8;
                }
            }
            Some(b' ' | b'\t' | b'\r') => pos += 1,
            _ => return pos,
        }
    }
}

/// Moves `from[start..]` to the end of `to` with one copy, as `Vec::append` does for a whole
/// vector (`to.extend(from.drain(start..))` moves the values one by one).
#[inline(always)]
fn move_tail<T>(from: &mut Vec<T>, start: usize, to: &mut Vec<T>) {
    assert!(start <= from.len());
    let n = from.len() - start;
    to.reserve(n);
    // SAFETY: `from[start..]` holds `n` initialized values and `to` has room for `n` more after
    // `reserve`; two vectors never overlap. `from` forgets the values as `to` adopts them, so
    // each is dropped exactly once, and nothing in between can panic.
    unsafe {
        from.set_len(start);
        std::ptr::copy_nonoverlapping(from.as_ptr().add(start), to.as_mut_ptr().add(to.len()), n);
        to.set_len(to.len() + n);
    }
}

/// One bit chosen by the decoded key: equal keys always get the same bit. Its length, first
/// and last two bytes: keys that differ only in a numbered suffix (`field_01`, `field_02`,
/// `field_11`) still get different bits.
#[inline(always)]
fn key_bit(key: &str) -> u64 {
    let k = key.as_bytes();
    let first = k.first().copied().unwrap_or(0) as usize;
    let (last, before_last) = match k {
        [.., b, l] => (*l as usize, *b as usize),
        [l] => (*l as usize, 0),
        [] => (0, 0),
    };
    1 << ((k.len() * 8 + first + last * 7 + before_last * 13) & 63)
}

/// Keys an object's fingerprint collisions may compare exactly, in all: past it the exact check
/// is left to `find_duplicates` when the object closes, so a wide object stays linear.
const EXACT_SCAN_BUDGET: u32 = 256;

impl<'s> Parser<'s> {
    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    #[cold]
    #[inline(never)]
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

    /// `unexpected` at `pos`.
    #[cold]
    #[inline(never)]
    fn unexpected_at<T>(&mut self, pos: usize, expected: &str) -> Result<T, ParseError> {
        self.pos = pos;
        self.unexpected(expected)
    }

    fn document(&mut self) -> Result<(), ParseError> {
        if self.text.starts_with('\u{FEFF}') {
            return self.error(
                0,
                "the file starts with a UTF-8 byte-order mark (U+FEFF); the platform's JSON \
                 parsers refuse it: save the file as UTF-8 without a BOM",
            );
        }
        self.pos = skip_ws(self.bytes, self.pos);
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
            self.pos = skip_ws(self.bytes, self.pos);
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
        self.pos = skip_ws(self.bytes, self.pos);
        if self.pos < self.bytes.len() {
            return self.unexpected("end of input after the top-level object");
        }
        Ok(())
    }

    #[inline(always)]
    fn push(&mut self, value: Value<'s>, start: usize, end: usize) -> NodeId {
        let id = self.doc.nodes.len() as NodeId;
        self.doc.nodes.push(Node {
            value,
            span: Span::new(start, end),
        });
        id
    }

    /// Parses one value of any nesting with an explicit stack of open containers, from
    /// `self.pos`; leaves `self.pos` just after it.
    fn value(&mut self) -> Result<NodeId, ParseError> {
        let mut stack = std::mem::take(&mut self.frames);
        stack.clear();
        let parsed = self.value_on(&mut stack);
        self.frames = stack;
        parsed
    }

    /// [`Parser::value`] with `stack` (empty) for the open containers.
    fn value_on(&mut self, stack: &mut Vec<Frame>) -> Result<NodeId, ParseError> {
        let bytes = self.bytes;
        let mut pos = self.pos;
        loop {
            // Parse a value (or open a container).
            pos = skip_ws(bytes, pos);
            let start = pos;
            let mut id = match bytes.get(pos) {
                Some(b'"') => {
                    let (s, end) = self.string(pos)?;
                    pos = end;
                    self.push(Value::String(s), start, end)
                }
                Some(&open @ (b'{' | b'[')) => {
                    if stack.len() >= MAX_DEPTH {
                        return self.error(
                            start,
                            format!("nesting deeper than {MAX_DEPTH} levels is not supported"),
                        );
                    }
                    pos = skip_ws(bytes, pos + 1);
                    let object = open == b'{';
                    stack.push(Frame {
                        start,
                        scratch: if object {
                            self.member_scratch.len()
                        } else {
                            self.item_scratch.len()
                        },
                        object,
                        maybe_duplicate: false,
                        seen: 0,
                        scanned: 0,
                    });
                    let close = if object { b'}' } else { b']' };
                    if bytes.get(pos) == Some(&close) {
                        pos += 1;
                        self.close(stack, pos)
                    } else {
                        if object {
                            pos = self.key(stack, pos)?;
                        }
                        continue;
                    }
                }
                Some(b'-' | b'0'..=b'9') => {
                    let end = self.number(pos)?;
                    pos = end;
                    self.push(
                        Value::Number(Cow::Borrowed(&self.text[start..end])),
                        start,
                        end,
                    )
                }
                Some(b't') => {
                    pos = self.literal(pos, b"true")?;
                    self.push(Value::Bool(true), start, pos)
                }
                Some(b'f') => {
                    pos = self.literal(pos, b"false")?;
                    self.push(Value::Bool(false), start, pos)
                }
                Some(b'n') => {
                    pos = self.literal(pos, b"null")?;
                    self.push(Value::Null, start, pos)
                }
                _ => return self.unexpected_at(pos, "a JSON value"),
            };
            // Attach the finished value to its container; close containers that end here.
            loop {
                let Some(frame) = stack.last() else {
                    self.pos = pos;
                    return Ok(id);
                };
                pos = skip_ws(bytes, pos);
                if frame.object {
                    if let Some(member) = self.member_scratch.last_mut() {
                        member.value = id;
                    }
                    match bytes.get(pos) {
                        Some(b',') => {
                            let comma = pos;
                            pos = skip_ws(bytes, pos + 1);
                            if bytes.get(pos) == Some(&b'}') {
                                return self.error(comma, "trailing comma is not allowed in JSON");
                            }
                            pos = self.key(stack, pos)?;
                            break;
                        }
                        Some(b'}') => {
                            pos += 1;
                            id = self.close(stack, pos);
                        }
                        _ => return self.unexpected_at(pos, "`,` or `}` after an object member"),
                    }
                } else {
                    self.item_scratch.push(id);
                    match bytes.get(pos) {
                        Some(b',') => {
                            let comma = pos;
                            pos = skip_ws(bytes, pos + 1);
                            if bytes.get(pos) == Some(&b']') {
                                return self.error(comma, "trailing comma is not allowed in JSON");
                            }
                            break;
                        }
                        Some(b']') => {
                            pos += 1;
                            id = self.close(stack, pos);
                        }
                        _ => return self.unexpected_at(pos, "`,` or `]` after an array item"),
                    }
                }
            }
        }
    }

    /// Parses `"key" :` at `pos` into a new member of the innermost object (whose value is set
    /// when it is done); returns the position after the colon.
    #[inline(always)]
    fn key(&mut self, stack: &mut [Frame], pos: usize) -> Result<usize, ParseError> {
        let bytes = self.bytes;
        if bytes.get(pos) != Some(&b'"') {
            return self.unexpected_at(pos, "a string key");
        }
        let (key, end) = self.string(pos)?;
        let key_span = Span::new(pos, end);
        let colon = if bytes.get(end) == Some(&b':') {
            end
        } else {
            let colon = skip_ws(bytes, end);
            if bytes.get(colon) != Some(&b':') {
                return self.unexpected_at(colon, "`:` after an object key");
            }
            colon
        };
        if let Some(frame) = stack.last_mut() {
            let bit = key_bit(&key);
            if frame.seen & bit != 0 && !frame.maybe_duplicate {
                // A fingerprint collision: is it a real duplicate? Within the object's budget
                // the earlier keys are compared; past it the exact check is left to
                // `find_duplicates` (one sorting pass when the object closes).
                let earlier = &self.member_scratch[frame.scratch..];
                let compared = u32::try_from(earlier.len()).unwrap_or(u32::MAX);
                frame.scanned = frame.scanned.saturating_add(compared);
                frame.maybe_duplicate =
                    frame.scanned > EXACT_SCAN_BUDGET || earlier.iter().any(|m| m.key == key);
            }
            frame.seen |= bit;
        }
        self.member_scratch.push(Member {
            key,
            key_span,
            value: 0,
        });
        Ok(colon + 1)
    }

    /// Pops the innermost container, which ends at `end`, moving its children from scratch
    /// into the arena.
    #[inline(always)]
    fn close(&mut self, stack: &mut Vec<Frame>, end: usize) -> NodeId {
        let Some(frame) = stack.pop() else {
            unreachable!("close with an open container")
        };
        if frame.object {
            let first = self.doc.members.len();
            move_tail(
                &mut self.member_scratch,
                frame.scratch,
                &mut self.doc.members,
            );
            let len = self.doc.members.len() - first;
            let id = self.push(
                Value::Object {
                    start: first as u32,
                    len: len as u32,
                },
                frame.start,
                end,
            );
            if frame.maybe_duplicate {
                self.find_duplicates(id, first, len);
            }
            id
        } else {
            let first = self.doc.items.len() as u32;
            self.doc
                .items
                .extend_from_slice(&self.item_scratch[frame.scratch..]);
            self.item_scratch.truncate(frame.scratch);
            let len = self.doc.items.len() as u32 - first;
            self.push(Value::Array { start: first, len }, frame.start, end)
        }
    }

    #[cold]
    #[inline(never)]
    fn find_duplicates(&mut self, object: NodeId, first: usize, len: usize) {
        self.doc.note_duplicates(object, first..first + len);
    }

    /// Checks for `word` at `pos`; returns the position after it.
    #[inline(always)]
    fn literal(&mut self, pos: usize, word: &[u8]) -> Result<usize, ParseError> {
        if self.bytes[pos..].starts_with(word) {
            Ok(pos + word.len())
        } else {
            self.unexpected_at(pos, "a JSON value")
        }
    }

    /// Parses a number starting at `start` (a `-` or a digit); returns the position after it.
    fn number(&mut self, start: usize) -> Result<usize, ParseError> {
        let bytes = self.bytes;
        let digits = |mut pos: usize| {
            while matches!(bytes.get(pos), Some(b'0'..=b'9')) {
                pos += 1;
            }
            pos
        };
        let mut pos = start;
        if bytes[pos] == b'-' {
            pos += 1;
        }
        match bytes.get(pos) {
            Some(b'0') => {
                pos += 1;
                if matches!(bytes.get(pos), Some(b'0'..=b'9')) {
                    return self.error(start, "numbers cannot have leading zeros in JSON");
                }
            }
            Some(b'1'..=b'9') => pos = digits(pos + 1),
            _ => return self.unexpected_at(pos, "a digit"),
        }
        if bytes.get(pos) == Some(&b'.') {
            let after = digits(pos + 1);
            if after == pos + 1 {
                return self.unexpected_at(after, "a digit after the decimal point");
            }
            pos = after;
        }
        if matches!(bytes.get(pos), Some(b'e' | b'E')) {
            pos += 1;
            if matches!(bytes.get(pos), Some(b'+' | b'-')) {
                pos += 1;
            }
            let after = digits(pos);
            if after == pos {
                return self.unexpected_at(after, "a digit in the exponent");
            }
            pos = after;
        }
        Ok(pos)
    }

    /// Parses a string whose opening quote is at `open`; returns it (borrowed unless it has
    /// escapes) and the position after its closing quote.
    #[inline(always)]
    fn string(&mut self, open: usize) -> Result<(Cow<'s, str>, usize), ParseError> {
        let start = open + 1;
        let end = scan_string(self.bytes, start);
        if self.bytes.get(end) == Some(&b'"') {
            debug_assert!(self.text.is_char_boundary(start) && self.text.is_char_boundary(end));
            // SAFETY: `start` follows the ASCII quote at `open` and `end` holds an ASCII quote
            // (so `start <= end < len`): both are in bounds and on char boundaries.
            let s = unsafe { self.text.get_unchecked(start..end) };
            return Ok((Cow::Borrowed(s), end + 1));
        }
        self.pos = end;
        let s = self.string_slow(open, start)?;
        Ok((s, self.pos))
    }

    /// The rest of a string from `self.pos`, the first byte that is not plain text: an escape,
    /// a control character or the end of input. Leaves `self.pos` after the closing quote.
    #[cold]
    #[inline(never)]
    fn string_slow(&mut self, open: usize, start: usize) -> Result<Cow<'s, str>, ParseError> {
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
                    self.doc.owned_strings = true;
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
                    self.pos = scan_string(self.bytes, run);
                    out.push_str(&self.text[run..self.pos]);
                }
            }
        }
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
mod tests;
