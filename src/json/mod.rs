//! JSON in and out: a strict, span-recording parser, and the one JSON writer of everything
//! forgelint prints or saves ([`writer`]).
//!
//! Every key and value keeps its byte range so a finding can point at the exact token. The
//! parser is iterative (an explicit stack), so hostile nesting can never overflow the call stack;
//! the tree is a flat arena, so dropping it cannot recurse either. It follows RFC 8259 exactly
//! (checked against JSONTestSuite), with two policy decisions of the platform: the top level must
//! be an object, and a leading byte-order mark is refused.

mod build;
mod parser;
pub mod writer;

use std::borrow::Cow;

use crate::diagnostic::Span;

pub use build::Builder;
pub use parser::{parse, parse_bytes, parse_reusing, Arena};

/// Deepest nesting of arrays and objects accepted; deeper input is `invalid-json`.
/// Go's encoding/json stops at the same depth.
pub const MAX_DEPTH: usize = 10_000;

pub type NodeId = u32;

/// An explicit tag byte (`repr(u8)`): telling the kinds apart is then one byte compare, not a
/// decoding of the niche in `Cow`'s capacity, which every type test and check pays for.
#[derive(Debug, Clone, PartialEq)]
#[repr(u8)]
pub enum Value<'s> {
    Null,
    Bool(bool),
    /// The number's text in JSON number syntax (any magnitude): borrowed from JSON exactly as
    /// written; a converter's normalised form of another syntax (`0x1F`, `1_000`) is owned.
    Number(Cow<'s, str>),
    String(Cow<'s, str>),
    /// `len` item ids starting at `start` in [`Document::items`].
    Array {
        start: u32,
        len: u32,
    },
    /// `len` members starting at `start` in [`Document::members`].
    Object {
        start: u32,
        len: u32,
    },
}

#[derive(Debug, Clone)]
pub struct Node<'s> {
    pub value: Value<'s>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Member<'s> {
    pub key: Cow<'s, str>,
    pub key_span: Span,
    pub value: NodeId,
}

/// An object that repeats a key: `first` and `second` are the two key spans.
#[derive(Debug, Clone)]
pub struct DuplicateKey {
    pub object: NodeId,
    pub key: String,
    pub first: Span,
    pub second: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// A parsed document: a flat arena of nodes, the root last.
#[derive(Debug, Default)]
pub struct Document<'s> {
    nodes: Vec<Node<'s>>,
    items: Vec<NodeId>,
    members: Vec<Member<'s>>,
    pub duplicates: Vec<DuplicateKey>,
    /// Some string (a key or a value) had escapes and owns its decoded text; without one,
    /// no node or member needs dropping.
    owned_strings: bool,
}

impl Document<'_> {
    /// Records the keys that the object `object`, whose members are `members`, repeats, each
    /// against its first occurrence: pairwise for a small object, by a hash map for a big one.
    pub(crate) fn note_duplicates(&mut self, object: NodeId, members: std::ops::Range<usize>) {
        let members = &self.members[members];
        let mut found = Vec::new();
        if members.len() <= 16 {
            for (i, m) in members.iter().enumerate() {
                if let Some(prev) = members[..i].iter().find(|p| p.key == m.key) {
                    found.push((prev.key_span, m.key_span, m.key.to_string()));
                }
            }
        } else {
            // Sorted by key, each key's members together in their order: a stable sort is
            // O(n log n) whatever the keys, and hashes nothing (SipHash was most of this).
            let mut order: Vec<usize> = (0..members.len()).collect();
            order.sort_by(|&a, &b| members[a].key.cmp(&members[b].key));
            let mut repeats: Vec<(usize, usize)> = Vec::new();
            for same in order.chunk_by(|&a, &b| members[a].key == members[b].key) {
                repeats.extend(same[1..].iter().map(|&later| (later, same[0])));
            }
            repeats.sort_unstable();
            for (later, first) in repeats {
                let m = &members[later];
                found.push((members[first].key_span, m.key_span, m.key.to_string()));
            }
        }
        for (first, second, key) in found {
            self.duplicates.push(DuplicateKey {
                object,
                key,
                first,
                second,
            });
        }
    }
}

impl Document<'static> {
    /// `{}`: the document of a check that reads none (a text rule's conditions).
    pub fn empty_object() -> Document<'static> {
        parse("{}").expect("`{}` is JSON")
    }
}

impl<'s> Document<'s> {
    pub fn root(&self) -> NodeId {
        (self.nodes.len() - 1) as NodeId
    }
    pub fn node(&self, id: NodeId) -> &Node<'s> {
        &self.nodes[id as usize]
    }
    pub fn value(&self, id: NodeId) -> &Value<'s> {
        &self.nodes[id as usize].value
    }
    pub fn span(&self, id: NodeId) -> Span {
        self.nodes[id as usize].span
    }
    pub fn items(&self, id: NodeId) -> &[NodeId] {
        match self.value(id) {
            Value::Array { start, len } => &self.items[*start as usize..(*start + *len) as usize],
            _ => &[],
        }
    }
    pub fn members(&self, id: NodeId) -> &[Member<'s>] {
        match self.value(id) {
            Value::Object { start, len } => {
                &self.members[*start as usize..(*start + *len) as usize]
            }
            _ => &[],
        }
    }
    /// The member named `key`; with duplicates, the last one wins, as in most parsers.
    pub fn member(&self, object: NodeId, key: &str) -> Option<&Member<'s>> {
        let key = key.as_bytes();
        self.members(object)
            .iter()
            .rev()
            .find(|m| same_key(m.key.as_bytes(), key))
    }
    pub fn get(&self, object: NodeId, key: &str) -> Option<NodeId> {
        self.member(object, key).map(|m| m.value)
    }
    pub fn as_str(&self, id: NodeId) -> Option<&str> {
        match self.value(id) {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The array or object that holds `target` (`None` for the root), found from the root
    /// down as [`Document::pointer_of`] finds its path.
    pub fn parent_of(&self, target: NodeId) -> Option<NodeId> {
        let mut at = self.root();
        let mut parent = None;
        while at != target {
            let next = match self.value(at) {
                Value::Object { .. } => {
                    let members = self.members(at);
                    members
                        .get(members.partition_point(|m| m.value < target))?
                        .value
                }
                Value::Array { .. } => {
                    let items = self.items(at);
                    *items.get(items.partition_point(|&c| c < target))?
                }
                _ => return None,
            };
            parent = Some(at);
            at = next;
        }
        parent
    }

    /// The JSON Pointer (RFC 6901) of `target`, found from the root down. Nodes are numbered
    /// in post-order (a container after its children, siblings in order), so the child of a
    /// container whose subtree holds `target` is its first child numbered `target` or more: a
    /// binary search per level, with nothing built for the document.
    pub fn pointer_of(&self, target: NodeId) -> String {
        let mut out = String::with_capacity(32);
        let mut at = self.root();
        while at != target {
            match self.value(at) {
                Value::Object { .. } => {
                    let members = self.members(at);
                    let Some(m) = members.get(members.partition_point(|m| m.value < target)) else {
                        break;
                    };
                    push_pointer_segment(&mut out, &m.key);
                    at = m.value;
                }
                Value::Array { .. } => {
                    let items = self.items(at);
                    let i = items.partition_point(|&c| c < target);
                    let Some(&child) = items.get(i) else {
                        break;
                    };
                    out.push('/');
                    out.push_str(&i.to_string());
                    at = child;
                }
                _ => break,
            }
        }
        out
    }
}

/// Key equality for lookups: lengths first, then keys of up to 16 bytes as two overlapping
/// words each (no call to `memcmp`), longer ones as slices.
#[inline(always)]
pub fn same_key(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn word4(s: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or_default())
    }
    fn word8(s: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default())
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// Appends `/segment` to a JSON Pointer, escaping `~` and `/` as RFC 6901 requires.
pub fn push_pointer_segment(pointer: &mut String, segment: &str) {
    pointer.reserve(1 + segment.len());
    pointer.push('/');
    if !has_pointer_escape(segment.as_bytes()) {
        pointer.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Whether `bytes` hold a `~` or a `/`, eight bytes a step: a key is tested for every unknown
/// field's pointer, and a byte loop with two compares was most of the segment's cost.
fn has_pointer_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Some byte of `v` is zero (exact as a yes or no: a borrow starts at a zero byte).
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let mut words = bytes.chunks_exact(8);
    let found = words.by_ref().any(|word| {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        has_zero(w ^ (ONES * u64::from(b'~'))) || has_zero(w ^ (ONES * u64::from(b'/')))
    });
    found || words.remainder().iter().any(|&b| b == b'~' || b == b'/')
}

/// `bytes` as text when they are UTF-8. Specs are nearly always ASCII, which is tested 64 bytes
/// a step (four 16-byte loads); other text gets the full check.
pub fn text_of(bytes: &[u8]) -> Option<&str> {
    #[cfg(target_arch = "x86_64")]
    if is_ascii_sse2(bytes) {
        // SAFETY: ASCII bytes are UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).ok()
}

/// Whether every byte is ASCII, 64 bytes a step with SSE2.
#[cfg(target_arch = "x86_64")]
fn is_ascii_sse2(bytes: &[u8]) -> bool {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let mut chunks = bytes.chunks_exact(64);
    for chunk in &mut chunks {
        // SAFETY: each load reads 16 of the chunk's 64 bytes; SSE2 is part of every x86_64
        // target.
        let high = unsafe {
            let at = |i: usize| _mm_loadu_si128(chunk.as_ptr().add(i).cast::<__m128i>());
            let any = _mm_or_si128(_mm_or_si128(at(0), at(16)), _mm_or_si128(at(32), at(48)));
            _mm_movemask_epi8(any)
        };
        if high != 0 {
            return false;
        }
    }
    chunks.remainder().is_ascii()
}

/// Is `raw` (a JSON number literal) an integer literal: no fraction, no exponent?
pub fn is_integer_literal(raw: &str) -> bool {
    !raw.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node's pointer, found top-down by walking the whole tree.
    fn all_pointers(doc: &Document<'_>, at: NodeId, prefix: &str, out: &mut Vec<(NodeId, String)>) {
        out.push((at, prefix.to_string()));
        match doc.value(at) {
            Value::Object { .. } => {
                for m in doc.members(at) {
                    let mut p = prefix.to_string();
                    push_pointer_segment(&mut p, &m.key);
                    all_pointers(doc, m.value, &p, out);
                }
            }
            Value::Array { .. } => {
                for (i, &c) in doc.items(at).iter().enumerate() {
                    all_pointers(doc, c, &format!("{prefix}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    /// A `~` or `/` is found at every place of segments of every length around a word's, and
    /// bytes one off from them (`}`, `.`, `0`, `\x7f`, `\xfe`) are not taken for them.
    #[test]
    fn pointer_escapes_are_found_anywhere() {
        for len in 0..20 {
            let plain = "a".repeat(len);
            assert!(!has_pointer_escape(plain.as_bytes()));
            for at in 0..len {
                for (byte, escaped) in [
                    (b'~', true),
                    (b'/', true),
                    (b'}', false),
                    (b'.', false),
                    (b'0', false),
                    (0x7F, false),
                    (0xFE, false),
                ] {
                    let mut bytes = plain.clone().into_bytes();
                    bytes[at] = byte;
                    assert_eq!(has_pointer_escape(&bytes), escaped, "{bytes:?}");
                }
            }
        }
        let mut pointer = String::from("/spec");
        push_pointer_segment(&mut pointer, "legacy_field_07");
        push_pointer_segment(&mut pointer, "a/b~c.with.more.bytes");
        assert_eq!(pointer, "/spec/legacy_field_07/a~1b~0c.with.more.bytes");
    }

    /// Text is accepted exactly as `from_utf8` accepts it, with a byte out of ASCII anywhere.
    #[test]
    fn text_of_agrees_with_from_utf8() {
        for len in [0, 1, 15, 16, 63, 64, 65, 130] {
            let ascii = vec![b'a'; len];
            assert_eq!(text_of(&ascii), std::str::from_utf8(&ascii).ok());
            for at in 0..len {
                for odd in [&[0xC3, 0xA9][..], &[0xFF], &[0x80], &[0xE2, 0x80]] {
                    let mut bytes = ascii.clone();
                    bytes.splice(at..at, odd.iter().copied());
                    assert_eq!(
                        text_of(&bytes),
                        std::str::from_utf8(&bytes).ok(),
                        "{bytes:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_node_has_its_pointer() {
        for text in [
            r#"{}"#,
            r#"{"a": 1}"#,
            r#"{"a": {"b": [1, [2, {"c": []}], {}], "d": null}, "e": "x", "a": [[], [[3]]]}"#,
            r#"{"a/b": {"~0": [{"": 1}, {" ": {"k": [true, false]}}]}, "z": {"y": {"x": {}}}}"#,
        ] {
            let doc = parse(text).unwrap();
            let mut expected = Vec::new();
            all_pointers(&doc, doc.root(), "", &mut expected);
            assert_eq!(
                expected.len(),
                doc.nodes.len(),
                "{text}: every node is reached"
            );
            for (node, pointer) in expected {
                assert_eq!(doc.pointer_of(node), pointer, "{text}: node {node}");
            }
        }
    }
}
