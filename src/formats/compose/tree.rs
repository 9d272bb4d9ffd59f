//! The keys of a config, owned and merged: what a composed config has, where each key was
//! written, and nothing of the values but their shape (a key either exists or it does not).
//!
//! A tree is a flat arena (no recursion: every walk keeps its own stack). Merging follows
//! OmegaConf's `merge`, which Hydra and NeMo-RL compose with: a mapping merges into a mapping key
//! by key, anything else replaces what was there (a list replaces a list whole), except that a
//! `null` never erases a mapping's keys — a config that switches a section off is still
//! overridden key by key — and a mapping marked `_override_: true` (NeMo-RL) replaces the one
//! beneath it.

use std::collections::HashMap;
use std::sync::Arc;

use crate::diagnostic::Span;
use crate::json::{Document, NodeId, Value};

pub type Key = Arc<str>;

/// Where a key was written: the file (an index the composition gives it) and the key's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub file: u32,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum Shape {
    Map(Members),
    List(Vec<u32>),
    Null,
    Leaf,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub shape: Shape,
    pub origin: Origin,
}

/// A mapping's keys in the order written, indexed once it has many.
#[derive(Debug, Clone, Default)]
pub struct Members {
    pub list: Vec<(Key, u32)>,
    index: Option<HashMap<Key, usize>>,
    /// `_override_: true`: replaces the mapping it is merged onto (NeMo-RL).
    pub replaces: bool,
}

/// Past this many keys a mapping is looked up through a hash map.
const INDEXED: usize = 32;

impl Members {
    pub fn get(&self, key: &str) -> Option<u32> {
        match &self.index {
            Some(index) => index.get(key).map(|&at| self.list[at].1),
            None => self.list.iter().find(|(k, _)| &**k == key).map(|m| m.1),
        }
    }

    fn set(&mut self, key: Key, node: u32) {
        if let Some(at) = self.position(&key) {
            self.list[at].1 = node;
            return;
        }
        self.list.push((key.clone(), node));
        if let Some(index) = &mut self.index {
            index.insert(key, self.list.len() - 1);
        } else if self.list.len() > INDEXED {
            let index = self
                .list
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i));
            self.index = Some(index.collect());
        }
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.list.iter().position(|(k, _)| &**k == key),
        }
    }
}

/// The keys of a config. Node 0 is the root mapping.
#[derive(Debug, Clone)]
pub struct KeyTree {
    nodes: Vec<Node>,
}

impl Default for KeyTree {
    fn default() -> Self {
        KeyTree::new(Origin {
            file: 0,
            span: Span::default(),
        })
    }
}

/// What a key path names in a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    pub found: bool,
    /// The deepest node the path reaches, and how many bytes of the path lead to it (0: the
    /// root).
    pub deepest: u32,
    pub matched: usize,
}

/// At most this many (node, rest-of-path) states are tried for one dotted path: a key that
/// itself contains dots can be read two ways, and a hostile config must not make it blow up.
const MAX_STEPS: usize = 10_000;

impl KeyTree {
    pub fn new(origin: Origin) -> KeyTree {
        KeyTree {
            nodes: vec![Node {
                shape: Shape::Map(Members::default()),
                origin,
            }],
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1 && self.members(0).is_none_or(|m| m.list.is_empty())
    }

    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn members(&self, id: u32) -> Option<&Members> {
        match &self.nodes[id as usize].shape {
            Shape::Map(m) => Some(m),
            _ => None,
        }
    }

    fn push(&mut self, shape: Shape, origin: Origin) -> u32 {
        self.nodes.push(Node { shape, origin });
        (self.nodes.len() - 1) as u32
    }

    /// The keys of the document `doc` (its root must be a mapping; anything else gives an
    /// empty tree), all from file `file`; the root's keys in `skip` are left out.
    pub fn of_document(doc: &Document<'_>, file: u32, skip: &[&str]) -> KeyTree {
        let origin = Origin {
            file,
            span: Span::default(),
        };
        let mut tree = KeyTree::new(origin);
        let mut stack: Vec<(NodeId, u32)> = vec![(doc.root(), 0)];
        while let Some((from, to)) = stack.pop() {
            match doc.value(from) {
                Value::Object { .. } => {
                    let top = to == 0;
                    for member in doc.members(from) {
                        if top && skip.contains(&member.key.as_ref()) {
                            continue;
                        }
                        let origin = Origin {
                            file,
                            span: member.key_span,
                        };
                        if member.key == "_override_" {
                            if matches!(doc.value(member.value), Value::Bool(true)) {
                                tree.map_mut(to).replaces = true;
                            }
                            continue;
                        }
                        let child = tree.push(empty_shape(doc.value(member.value)), origin);
                        tree.map_mut(to).set(Key::from(member.key.as_ref()), child);
                        stack.push((member.value, child));
                    }
                }
                Value::Array { .. } => {
                    let mut items = Vec::new();
                    for &item in doc.items(from) {
                        let origin = Origin {
                            file,
                            span: doc.span(item),
                        };
                        let child = tree.push(empty_shape(doc.value(item)), origin);
                        items.push(child);
                        stack.push((item, child));
                    }
                    tree.nodes[to as usize].shape = Shape::List(items);
                }
                _ => {}
            }
        }
        tree
    }

    fn map_mut(&mut self, id: u32) -> &mut Members {
        match &mut self.nodes[id as usize].shape {
            Shape::Map(m) => m,
            shape => {
                *shape = Shape::Map(Members::default());
                match shape {
                    Shape::Map(m) => m,
                    _ => unreachable!("just made a mapping"),
                }
            }
        }
    }

    /// The mapping at the dotted `package` (`""`: the root), made (or made a mapping) where
    /// it is missing; made keys take `origin`.
    pub fn package(&mut self, package: &str, origin: Origin) -> u32 {
        let mut at = 0;
        for key in package.split('.').filter(|k| !k.is_empty()) {
            let existing = self.members(at).and_then(|m| m.get(key));
            at = match existing {
                Some(child) => {
                    if self.members(child).is_none() {
                        self.nodes[child as usize].shape = Shape::Map(Members::default());
                    }
                    child
                }
                None => {
                    let child = self.push(Shape::Map(Members::default()), origin);
                    self.map_mut(at).set(Key::from(key), child);
                    child
                }
            };
        }
        at
    }

    /// Merges the subtree `from` of `src` (a mapping) into the mapping `into` of this tree, as
    /// OmegaConf merges; copied nodes take file `file`. Returns the nodes made.
    pub fn merge(&mut self, into: u32, src: &KeyTree, from: u32, file: u32) {
        let mut stack = vec![(into, from)];
        while let Some((into, from)) = stack.pop() {
            let Some(members) = src.members(from) else {
                continue;
            };
            if members.replaces {
                self.nodes[into as usize].shape = Shape::Map(Members::default());
            }
            for (key, value) in &members.list {
                let existing = self.members(into).and_then(|m| m.get(key));
                let incoming = &src.nodes[*value as usize].shape;
                match existing {
                    Some(have) => match (&self.nodes[have as usize].shape, incoming) {
                        (Shape::Map(_), Shape::Map(m)) if !m.replaces => stack.push((have, *value)),
                        (Shape::Map(_), Shape::Null) => {}
                        _ => {
                            let copy = self.copy(src, *value, file);
                            self.map_mut(into).set(key.clone(), copy);
                        }
                    },
                    None => {
                        let copy = self.copy(src, *value, file);
                        self.map_mut(into).set(key.clone(), copy);
                    }
                }
            }
        }
    }

    /// A copy of the subtree `from` of `src` in this tree, its nodes from file `file`.
    fn copy(&mut self, src: &KeyTree, from: u32, file: u32) -> u32 {
        let origin = |n: &Node| Origin {
            file,
            span: n.origin.span,
        };
        let root = self.push(Shape::Leaf, origin(src.node(from)));
        let mut stack = vec![(from, root)];
        while let Some((from, to)) = stack.pop() {
            let shape = match &src.node(from).shape {
                Shape::Map(m) => {
                    let mut members = Members::default();
                    for (key, child) in &m.list {
                        let copy = self.push(Shape::Leaf, origin(src.node(*child)));
                        members.set(key.clone(), copy);
                        stack.push((*child, copy));
                    }
                    Shape::Map(members)
                }
                Shape::List(items) => {
                    let mut copies = Vec::with_capacity(items.len());
                    for child in items {
                        let copy = self.push(Shape::Leaf, origin(src.node(*child)));
                        copies.push(copy);
                        stack.push((*child, copy));
                    }
                    Shape::List(copies)
                }
                Shape::Null => Shape::Null,
                Shape::Leaf => Shape::Leaf,
            };
            self.nodes[to as usize].shape = shape;
        }
        root
    }

    /// Does the dotted `path` name a node (each `.` one level down, into a mapping by key or a
    /// list by index; or part of a key that contains dots)? Else the deepest node on its way.
    pub fn lookup(&self, path: &str) -> Lookup {
        let mut best = Lookup {
            found: false,
            deepest: 0,
            matched: 0,
        };
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        let mut steps = 0;
        while let Some((node, from)) = stack.pop() {
            steps += 1;
            if steps > MAX_STEPS {
                break;
            }
            let rest = &path[from..];
            let mut step = |child: u32, len: usize, stack: &mut Vec<(u32, usize)>| {
                if rest.len() == len {
                    return true;
                }
                let next = from + len + 1;
                if next > best.matched {
                    best.deepest = child;
                    best.matched = next;
                }
                stack.push((child, next));
                false
            };
            match &self.nodes[node as usize].shape {
                Shape::Map(members) => {
                    // The whole rest as one key, then each prefix up to a dot.
                    if let Some(child) = members.get(rest) {
                        return Lookup {
                            found: true,
                            deepest: child,
                            matched: path.len(),
                        };
                    }
                    for (dot, _) in rest.match_indices('.') {
                        if let Some(child) = members.get(&rest[..dot]) {
                            step(child, dot, &mut stack);
                        }
                    }
                }
                Shape::List(items) => {
                    let len = rest.find('.').unwrap_or(rest.len());
                    let index = rest[..len].parse::<usize>().ok();
                    if let Some(&child) = index.and_then(|i| items.get(i)) {
                        if step(child, len, &mut stack) {
                            return Lookup {
                                found: true,
                                deepest: child,
                                matched: path.len(),
                            };
                        }
                    }
                }
                Shape::Null | Shape::Leaf => {}
            }
        }
        best
    }
}

/// The shape a value starts with before its children are added.
fn empty_shape(value: &Value<'_>) -> Shape {
    match value {
        Value::Object { .. } => Shape::Map(Members::default()),
        Value::Array { .. } => Shape::List(Vec::new()),
        Value::Null => Shape::Null,
        _ => Shape::Leaf,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str, file: u32) -> KeyTree {
        let doc = crate::json::parse(text).unwrap();
        KeyTree::of_document(&doc, file, &["defaults"])
    }

    #[test]
    fn lookups_go_down_maps_lists_and_dotted_keys() {
        let t = tree(
            r#"{"policy": {"optimizer": {"kwargs": {"lr": 1, "betas": [0.9, 0.99]}}}, "a.b": {"c": 1}, "data": {"splits": [{"name": "x"}]}, "defaults": 1}"#,
            0,
        );
        for yes in [
            "policy.optimizer.kwargs.lr",
            "policy.optimizer",
            "a.b.c",
            "a.b",
            "policy.optimizer.kwargs.betas.1",
            "data.splits.0.name",
        ] {
            assert!(t.lookup(yes).found, "{yes}");
        }
        for no in [
            "policy.optimizer.kwargs.lrr",
            "policy.optimizer.kwargs.betas.2",
            "data.splits.x",
            "defaults",
            "a",
            "z",
        ] {
            assert!(!t.lookup(no).found, "{no}");
        }
        let miss = t.lookup("policy.optimizer.kwargs.lrr");
        assert_eq!(miss.matched, "policy.optimizer.kwargs.".len());
        let names: Vec<&str> = t
            .members(miss.deepest)
            .unwrap()
            .list
            .iter()
            .map(|(k, _)| &**k)
            .collect();
        assert_eq!(names, ["lr", "betas"]);
        assert_eq!(t.lookup("z").matched, 0);
    }

    #[test]
    fn merging_follows_omegaconf() {
        let mut base = tree(
            r#"{"a": {"x": 1, "y": {"z": 1}}, "l": [1, 2, 3], "s": {"k": 1}, "n": {"k": 1}, "o": {"k": 1}}"#,
            0,
        );
        let top = tree(
            r#"{"a": {"w": 2, "y": 3}, "l": [1], "s": 5, "n": null, "o": {"_override_": true, "j": 2}, "new": {"q": 1}}"#,
            1,
        );
        base.merge(0, &top, 0, 1);
        for yes in ["a.x", "a.w", "a.y", "l.0", "s", "n.k", "o.j", "new.q"] {
            assert!(base.lookup(yes).found, "{yes}");
        }
        for no in ["a.y.z", "l.1", "s.k", "o.k"] {
            assert!(!base.lookup(no).found, "{no}");
        }
        let new_q = base.lookup("new.q").deepest;
        assert_eq!(base.node(new_q).origin.file, 1);
        let at = base.package(
            "p.q",
            Origin {
                file: 2,
                span: Span::default(),
            },
        );
        base.merge(at, &tree(r#"{"r": 1}"#, 0), 0, 2);
        assert!(base.lookup("p.q.r").found);
        // A scalar in the way of a package becomes a mapping.
        let at = base.package(
            "s.t",
            Origin {
                file: 2,
                span: Span::default(),
            },
        );
        base.merge(at, &tree(r#"{"u": 1}"#, 0), 0, 2);
        assert!(base.lookup("s.t.u").found);
    }

    #[test]
    fn big_mappings_are_indexed() {
        let keys: Vec<String> = (0..100).map(|i| format!("\"k{i}\": {i}")).collect();
        let t = tree(&format!("{{{}}}", keys.join(", ")), 0);
        assert!(t.lookup("k99").found && t.lookup("k0").found && !t.lookup("k100").found);
        let mut t2 = t.clone();
        t2.merge(0, &tree(r#"{"k5": {"x": 1}, "k200": 1}"#, 0), 0, 1);
        assert!(t2.lookup("k5.x").found && t2.lookup("k200").found);
        assert_eq!(t2.members(0).unwrap().list.len(), 101);
    }
}
