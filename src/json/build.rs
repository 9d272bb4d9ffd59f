//! Builds a [`Document`] from another format's events (YAML, TOML), with the parser's
//! invariants: nodes in post-order (a container after its children, siblings in order), each
//! container's items or members one range, duplicate keys listed, `owned_strings` set when a
//! node or key owns its text. The converter gives every span itself.

use crate::diagnostic::Span;
use std::borrow::Cow;

use super::{Document, Member, Node, NodeId, Value};

/// Builds one document: open containers with `start_array`/`start_object`, give each object
/// member's `key` before its value, close with `end`; values are `scalar`s, closed containers
/// and `copy`s of finished subtrees. The first value finished outside any container is the root.
#[derive(Debug, Default)]
pub struct Builder<'s> {
    doc: Document<'s>,
    /// Children of the open arrays, innermost last.
    items: Vec<NodeId>,
    /// Members of the open objects, innermost last.
    members: Vec<Member<'s>>,
    open: Vec<Open<'s>>,
    root: Option<NodeId>,
}

#[derive(Debug)]
struct Open<'s> {
    object: bool,
    /// Where this container's children start in `items` or `members`.
    scratch: usize,
    /// An object's key whose value is not finished yet.
    key: Option<(Cow<'s, str>, Span)>,
}

impl<'s> Builder<'s> {
    pub fn new() -> Builder<'s> {
        Builder::default()
    }

    /// Nodes built so far (copies included): what a converter counts against its budget.
    pub fn len(&self) -> usize {
        self.doc.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc.nodes.is_empty()
    }

    /// Containers open now.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The document so far, to read finished nodes (an anchor's subtree, say).
    pub fn doc(&self) -> &Document<'s> {
        &self.doc
    }

    pub fn start_array(&mut self) {
        self.open.push(Open {
            object: false,
            scratch: self.items.len(),
            key: None,
        });
    }

    pub fn start_object(&mut self) {
        self.open.push(Open {
            object: true,
            scratch: self.members.len(),
            key: None,
        });
    }

    /// The key of the next value of the innermost open object (ignored outside one).
    pub fn key(&mut self, key: Cow<'s, str>, span: Span) {
        debug_assert!(self.open.last().is_some_and(|o| o.object));
        if let Some(open) = self.open.last_mut().filter(|o| o.object) {
            self.doc.owned_strings |= matches!(key, Cow::Owned(_));
            open.key = Some((key, span));
        }
    }

    /// A leaf value: null, a boolean, a number or a string.
    pub fn scalar(&mut self, value: Value<'s>, span: Span) -> NodeId {
        debug_assert!(!matches!(value, Value::Array { .. } | Value::Object { .. }));
        self.doc.owned_strings |= matches!(
            value,
            Value::String(Cow::Owned(_)) | Value::Number(Cow::Owned(_))
        );
        let id = self.push(value, span);
        self.attach(id);
        id
    }

    /// Closes the innermost open container, whose span is `span`.
    pub fn end(&mut self, span: Span) -> NodeId {
        self.end_with(span, |_, _| {})
    }

    /// [`Builder::end`], letting `edit` change a closing object's members first (a YAML merge
    /// key becomes the members it merges). The edited members' values must stay in ascending
    /// order and be nodes built since the object opened; a node no member refers to any more
    /// is left in the arena, never reached.
    pub fn end_with(
        &mut self,
        span: Span,
        edit: impl FnOnce(&Document<'s>, &mut Vec<Member<'s>>),
    ) -> NodeId {
        let Some(open) = self.open.pop() else {
            debug_assert!(false, "end without an open container");
            return self.push(Value::Null, span);
        };
        let value = if open.object {
            let start = self.doc.members.len();
            if open.scratch < self.members.len() {
                let mut own = self.members.split_off(open.scratch);
                edit(&self.doc, &mut own);
                self.doc.members.append(&mut own);
            }
            Value::Object {
                start: start as u32,
                len: (self.doc.members.len() - start) as u32,
            }
        } else {
            let start = self.doc.items.len();
            self.doc.items.extend(self.items.drain(open.scratch..));
            Value::Array {
                start: start as u32,
                len: (self.doc.items.len() - start) as u32,
            }
        };
        let id = self.push(value, span);
        if open.object {
            self.find_duplicates(id);
        }
        self.attach(id);
        id
    }

    /// How many nodes [`Builder::copy`] of `node` adds.
    pub fn subtree_len(&self, node: NodeId) -> usize {
        (node - self.first_of(node)) as usize + 1
    }

    /// Adds a copy of the finished subtree at `node` as the next value (a YAML alias). The
    /// copy keeps the original's spans; its objects' duplicate keys are not listed again (they
    /// are the same text).
    pub fn copy(&mut self, node: NodeId) -> NodeId {
        // Post-order numbering makes a subtree the id range from its first leaf to its root.
        let first = self.first_of(node);
        let shift = self.doc.nodes.len() as u32 - first;
        self.doc.nodes.reserve((node - first) as usize + 1);
        for id in first..=node {
            let mut copied = self.doc.nodes[id as usize].clone();
            match &mut copied.value {
                Value::Array { start, len } => {
                    let at = self.doc.items.len();
                    let from = *start as usize..(*start + *len) as usize;
                    self.doc.items.extend_from_within(from);
                    self.doc.items[at..].iter_mut().for_each(|c| *c += shift);
                    *start = at as u32;
                }
                Value::Object { start, len } => {
                    let at = self.doc.members.len();
                    let from = *start as usize..(*start + *len) as usize;
                    self.doc.members.extend_from_within(from);
                    self.doc.members[at..]
                        .iter_mut()
                        .for_each(|m| m.value += shift);
                    *start = at as u32;
                }
                _ => {}
            }
            self.doc.nodes.push(copied);
        }
        let id = node + shift;
        self.attach(id);
        id
    }

    /// The document, once its root is finished and no container is open.
    pub fn finish(self) -> Option<Document<'s>> {
        let root = self.root?;
        if !self.open.is_empty() || root as usize + 1 != self.doc.nodes.len() {
            return None;
        }
        Some(self.doc)
    }

    fn push(&mut self, value: Value<'s>, span: Span) -> NodeId {
        let id = self.doc.nodes.len() as NodeId;
        self.doc.nodes.push(Node { value, span });
        id
    }

    /// Gives the finished node `id` to the innermost open container, or makes it the root.
    fn attach(&mut self, id: NodeId) {
        match self.open.last_mut() {
            None => self.root = Some(id),
            Some(open) if open.object => {
                debug_assert!(open.key.is_some(), "an object member without a key");
                if let Some((key, key_span)) = open.key.take() {
                    self.members.push(Member {
                        key,
                        key_span,
                        value: id,
                    });
                }
            }
            Some(_) => self.items.push(id),
        }
    }

    /// The lowest id in the subtree at `node`: its first leaf.
    fn first_of(&self, mut node: NodeId) -> NodeId {
        loop {
            let first = match self.doc.value(node) {
                Value::Array { .. } => self.doc.items(node).first().copied(),
                Value::Object { .. } => self.doc.members(node).first().map(|m| m.value),
                _ => None,
            };
            match first {
                Some(child) => node = child,
                None => return node,
            }
        }
    }

    /// Lists the keys that `object` repeats, each against its first occurrence.
    fn find_duplicates(&mut self, object: NodeId) {
        if let Value::Object { start, len } = *self.doc.value(object) {
            let start = start as usize;
            self.doc
                .note_duplicates(object, start..start + len as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(start: usize, end: usize) -> Span {
        Span::new(start, end)
    }

    /// The builder numbers nodes as the parser does and its document reads alike.
    #[test]
    fn builds_what_the_parser_builds() {
        let text = r#"{"a": [1, {"b": null}], "c": "x", "a": true}"#;
        let parsed = super::super::parse(text).unwrap();
        let mut b = Builder::new();
        b.start_object();
        b.key("a".into(), s(1, 4));
        b.start_array();
        b.scalar(Value::Number("1".into()), s(7, 8));
        b.start_object();
        b.key("b".into(), s(11, 14));
        b.scalar(Value::Null, s(16, 20));
        b.end(s(10, 21));
        b.end(s(6, 22));
        b.key("c".into(), s(24, 27));
        b.scalar(Value::String("x".into()), s(29, 32));
        b.key("a".into(), s(34, 37));
        b.scalar(Value::Bool(true), s(39, 43));
        b.end(s(0, 44));
        let built = b.finish().unwrap();
        assert_eq!(format!("{:?}", built.nodes), format!("{:?}", parsed.nodes));
        assert_eq!(
            format!("{:?}", built.members),
            format!("{:?}", parsed.members)
        );
        assert_eq!(built.items, parsed.items);
        assert_eq!(
            format!("{:?}", built.duplicates),
            format!("{:?}", parsed.duplicates)
        );
        assert!(!built.owned_strings);
    }

    /// A copy is a whole subtree with the original's spans, reachable by pointer.
    #[test]
    fn copies_are_whole_subtrees() {
        let mut b = Builder::new();
        b.start_object();
        b.key("a".into(), s(0, 1));
        b.start_array();
        b.scalar(Value::Number("1".into()), s(3, 4));
        b.start_object();
        b.key(String::from("k").into(), s(5, 6));
        b.scalar(Value::Bool(false), s(7, 8));
        b.end(s(5, 8));
        let a = b.end(s(2, 9));
        b.key("b".into(), s(10, 11));
        assert_eq!(b.subtree_len(a), 4);
        let copy = b.copy(a);
        b.end(s(0, 12));
        let doc = b.finish().unwrap();
        assert!(doc.owned_strings);
        assert_eq!(doc.pointer_of(copy), "/b");
        let inner = doc.items(copy)[1];
        assert_eq!(doc.pointer_of(doc.get(inner, "k").unwrap()), "/b/1/k");
        assert_eq!(doc.span(inner), s(5, 8));
        assert_eq!(doc.items(doc.get(doc.root(), "a").unwrap()).len(), 2);
    }

    /// An edit at the close replaces members; nodes left unreferenced are never reached.
    #[test]
    fn end_with_edits_members() {
        let mut b = Builder::new();
        b.start_object();
        b.key("<<".into(), s(0, 2));
        b.start_object();
        b.key("x".into(), s(3, 4));
        b.scalar(Value::Number("1".into()), s(5, 6));
        b.end(s(3, 6));
        b.key("y".into(), s(7, 8));
        let y = b.scalar(Value::Null, s(9, 10));
        b.end_with(s(0, 10), |doc, members| {
            let merged = doc.members(members[0].value).to_vec();
            members.splice(0..1, merged);
        });
        let doc = b.finish().unwrap();
        let keys: Vec<&str> = doc.members(doc.root()).iter().map(|m| &*m.key).collect();
        assert_eq!(keys, ["x", "y"]);
        assert_eq!(doc.pointer_of(y), "/y");
        assert_eq!(doc.pointer_of(doc.get(doc.root(), "x").unwrap()), "/x");
    }

    #[test]
    fn unfinished_documents_are_none() {
        assert!(Builder::new().finish().is_none());
        let mut b = Builder::new();
        b.start_array();
        assert!(b.finish().is_none());
    }
}
