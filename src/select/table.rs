//! Every selector of a rule set resolved in one pass over a document.
//!
//! The rule set's selectors share most of their prefixes (`spec`, `spec.resources`,
//! `spec.resources.pools[*]` …), so they are merged into a trie, built once per run. A document
//! is then walked once, trie node by trie node: each object on the way is looked up for all of
//! the keys the rules ask of it in a single scan of its members, instead of once per selector.
//! The buffers live in [`Resolutions`], which a worker thread reuses from one file to the next.

use super::{Match, Missing, Resolved, Segment, Selector, NO_ID};
use crate::json::{same_key, Document, Member, Value};

/// The trie of a rule set's shared selectors (those with an id).
#[derive(Debug, Default)]
pub struct SelectorTable {
    /// Parents come before their children; node 0 is the whole document (`$`).
    nodes: Vec<TrieNode>,
    /// Per selector id: the trie node where the selector ends, and the nodes whose absences it
    /// reports (its key segments after its last wildcard, see [`Selector::resolve`]).
    selectors: Vec<Option<Entry>>,
    /// The nodes with children, in order: the only ones a document walk visits.
    inner: Vec<u32>,
    /// Per selector id: its trie node (`NOT_IN_TABLE` when it has none).
    node_of: Vec<u32>,
    /// The selectors that gather missing places, with the nodes they gather them from.
    gathering: Vec<(u32, Vec<u32>)>,
    /// Per `keys` check number (as the rule plans number them): its trie node and its bit there.
    keys: Vec<Option<(u32, u32)>>,
}

#[derive(Debug, Default)]
struct TrieNode {
    /// The index of this node's segment in the selectors that pass through it.
    depth: usize,
    /// The keys asked of this node's objects, each with its child node (`NO_CHILD`: a key only
    /// `keys` checks ask about).
    keys: Vec<(Box<str>, u32)>,
    /// Per key: the bits of the `keys` checks that allow it.
    allowed_by: Vec<u64>,
    /// The bits of the `keys` checks that select this node's objects (at most 64).
    keys_bits: u64,
    indexes: Vec<(usize, u32)>,
    wildcard: Option<u32>,
}

#[derive(Debug)]
struct Entry {
    node: u32,
    missing_from: Vec<u32>,
}

const NOT_IN_TABLE: u32 = u32::MAX;
const NO_CHILD: u32 = u32::MAX;

impl SelectorTable {
    /// A table of `selectors`, each with whether its missing places are read (they are
    /// gathered only then); selectors without a shared id are left out (they resolve on their
    /// own).
    pub fn new<'s>(selectors: impl IntoIterator<Item = (&'s Selector, bool)>) -> SelectorTable {
        SelectorTable::with_keys(selectors, [])
    }

    /// A table of `selectors` (as in [`SelectorTable::new`]) that also settles `keys` checks,
    /// each given as its number, its selector's id and its allowed keys. The objects a `keys`
    /// check selects are scanned for the keys other selectors ask of them anyway; the allowed
    /// keys join that scan, so a clean object costs the check nothing more.
    pub fn with_keys<'s, 'k>(
        selectors: impl IntoIterator<Item = (&'s Selector, bool)>,
        keys: impl IntoIterator<Item = (usize, usize, &'k [String])>,
    ) -> SelectorTable {
        let mut table = SelectorTable {
            nodes: vec![TrieNode::default()],
            ..SelectorTable::default()
        };
        let mut wants_missing = Vec::new();
        for (selector, missing) in selectors {
            if selector.id == NO_ID {
                continue;
            }
            if table.selectors.len() <= selector.id {
                table.selectors.resize_with(selector.id + 1, || None);
                wants_missing.resize(selector.id + 1, false);
            }
            wants_missing[selector.id] |= missing;
            if table.selectors[selector.id].is_none() {
                table.selectors[selector.id] = Some(table.insert(&selector.segments));
            }
        }
        for (entry, wanted) in table.selectors.iter_mut().zip(wants_missing) {
            if let Some(entry) = entry.as_mut().filter(|_| !wanted) {
                entry.missing_from.clear();
            }
        }
        for (number, selector, allowed) in keys {
            table.add_keys(number, selector, allowed);
        }
        table.inner = (0..table.nodes.len() as u32)
            .filter(|&n| {
                let node = &table.nodes[n as usize];
                !(node.keys.is_empty()
                    && node.keys_bits == 0
                    && node.indexes.is_empty()
                    && node.wildcard.is_none())
            })
            .collect();
        table.node_of = table
            .selectors
            .iter()
            .map(|e| e.as_ref().map_or(NOT_IN_TABLE, |e| e.node))
            .collect();
        table.gathering = table
            .selectors
            .iter()
            .enumerate()
            .filter_map(|(id, e)| {
                let e = e.as_ref().filter(|e| !e.missing_from.is_empty())?;
                Some((id as u32, e.missing_from.clone()))
            })
            .collect();
        table
    }

    /// Registers `keys` check `number`, whose selector has id `selector`. A check whose selector
    /// is not in the table, or past the 64th on one node, is left to the check itself.
    fn add_keys(&mut self, number: usize, selector: usize, allowed: &[String]) {
        let Some(Some(entry)) = self.selectors.get(selector) else {
            return;
        };
        let node = &mut self.nodes[entry.node as usize];
        let bit = node.keys_bits.count_ones();
        if bit == u64::BITS {
            return;
        }
        node.keys_bits |= 1 << bit;
        node.allowed_by.resize(node.keys.len(), 0);
        for key in allowed {
            let at = match node.keys.iter().position(|(k, _)| **k == **key) {
                Some(at) => at,
                None => {
                    node.keys.push((key.as_str().into(), NO_CHILD));
                    node.allowed_by.push(0);
                    node.keys.len() - 1
                }
            };
            node.allowed_by[at] |= 1 << bit;
        }
        if self.keys.len() <= number {
            self.keys.resize(number + 1, None);
        }
        self.keys[number] = Some((entry.node, bit));
    }

    fn insert(&mut self, segments: &[Segment]) -> Entry {
        let mut at = 0u32;
        let mut path = Vec::with_capacity(segments.len());
        for (depth, segment) in segments.iter().enumerate() {
            let next = self.nodes.len() as u32;
            let node = &mut self.nodes[at as usize];
            let existing = match segment {
                Segment::Key(k) => node.keys.iter().find(|(key, _)| **key == **k).map(|c| c.1),
                Segment::Index(i) => node.indexes.iter().find(|(j, _)| j == i).map(|c| c.1),
                Segment::Wildcard => node.wildcard,
            };
            at = match existing {
                Some(child) => child,
                None => {
                    match segment {
                        Segment::Key(k) => {
                            node.keys.push((k.as_str().into(), next));
                            node.allowed_by.push(0);
                        }
                        Segment::Index(i) => node.indexes.push((*i, next)),
                        Segment::Wildcard => node.wildcard = Some(next),
                    }
                    self.nodes.push(TrieNode {
                        depth,
                        ..TrieNode::default()
                    });
                    next
                }
            };
            path.push(at);
        }
        // Absent keys count as missing only where no wildcard follows.
        let after_wildcard = segments
            .iter()
            .rposition(|s| *s == Segment::Wildcard)
            .map_or(0, |i| i + 1);
        let missing_from = (after_wildcard..segments.len())
            .filter(|&d| matches!(segments[d], Segment::Key(_)))
            .map(|d| path[d])
            .collect();
        Entry {
            node: at,
            missing_from,
        }
    }
}

/// A document's resolutions of every selector of a [`SelectorTable`]; reusable buffers.
#[derive(Debug, Default)]
pub struct Resolutions {
    /// Per trie node: the values at that path, in document order.
    found: Vec<Vec<Match>>,
    /// Per trie node: the objects (or nulls) on the way that lack that node's key.
    absent: Vec<Vec<Missing>>,
    /// Per selector id: its trie node (`NOT_IN_TABLE` when it has none).
    nodes: Vec<u32>,
    /// Per selector id: its missing values, gathered from `absent`.
    missing: Vec<Vec<Missing>>,
    /// The selector ids whose `missing` lists were filled for the last document.
    gathered: Vec<u32>,
    /// Scratch: the member that holds each key a trie node asks for.
    slots: Vec<Option<u32>>,
    /// Per trie node: the bits of its `keys` checks that found a key they do not allow.
    keys_dirty: Vec<u64>,
    /// Per `keys` check number: whether every object it selected has only allowed keys
    /// (`None`: the table does not settle it).
    keys_clean: Vec<Option<bool>>,
}

impl Resolutions {
    /// Resolves every selector of `table` against `doc`, replacing what was there.
    pub fn resolve(&mut self, table: &SelectorTable, doc: &Document<'_>) {
        let count = table.nodes.len();
        reset(&mut self.found, count);
        reset(&mut self.absent, count);
        self.keys_dirty.clear();
        self.keys_dirty.resize(count, 0);
        self.found[0].push(Match {
            node: doc.root(),
            key_span: None,
        });
        for &n in &table.inner {
            let n = n as usize;
            let node = &table.nodes[n];
            let (before, after) = self.found.split_at_mut(n + 1);
            let parents = &before[n];
            if parents.is_empty() {
                continue;
            }
            // Children have higher numbers than their parent: they live in `after`.
            let child = |id: u32| id as usize - n - 1;
            for m in parents {
                match doc.value(m.node) {
                    Value::Object { .. } => {
                        let members = doc.members(m.node);
                        if !node.keys.is_empty() || node.keys_bits != 0 {
                            let allowed = key_lookup(node, members, &mut self.slots);
                            self.keys_dirty[n] |= node.keys_bits & !allowed;
                            for (&(_, id), slot) in node.keys.iter().zip(&self.slots) {
                                if id == NO_CHILD {
                                    continue;
                                }
                                match slot {
                                    Some(i) => {
                                        let member = &members[*i as usize];
                                        after[child(id)].push(Match {
                                            node: member.value,
                                            key_span: Some(member.key_span),
                                        });
                                    }
                                    None => self.absent[id as usize].push(Missing {
                                        parent: m.node,
                                        parent_key_span: m.key_span,
                                        depth: table.nodes[id as usize].depth,
                                    }),
                                }
                            }
                        }
                        if let Some(id) = node.wildcard {
                            after[child(id)].extend(members.iter().map(|member| Match {
                                node: member.value,
                                key_span: Some(member.key_span),
                            }));
                        }
                    }
                    // null stands for "not set": the keys below it are missing.
                    Value::Null => {
                        for &(_, id) in node.keys.iter().filter(|(_, id)| *id != NO_CHILD) {
                            self.absent[id as usize].push(Missing {
                                parent: m.node,
                                parent_key_span: m.key_span,
                                depth: table.nodes[id as usize].depth,
                            });
                        }
                    }
                    Value::Array { .. } => {
                        let items = doc.items(m.node);
                        for &(i, id) in &node.indexes {
                            if let Some(&item) = items.get(i) {
                                after[child(id)].push(Match {
                                    node: item,
                                    key_span: None,
                                });
                            }
                        }
                        if let Some(id) = node.wildcard {
                            after[child(id)].extend(items.iter().map(|&item| Match {
                                node: item,
                                key_span: None,
                            }));
                        }
                    }
                    // A scalar on the way: nothing below it, and nothing missing either.
                    _ => {}
                }
            }
        }
        self.settle(table);
    }

    /// After the walk: each selector's node, whether each `keys` check found only allowed
    /// keys, and each selector's missing keys gathered from the nodes it goes through.
    fn settle(&mut self, table: &SelectorTable) {
        if self.nodes != table.node_of {
            self.nodes.clone_from(&table.node_of);
        }
        self.keys_clean.clear();
        self.keys_clean.extend(
            table
                .keys
                .iter()
                .map(|k| k.map(|(node, bit)| self.keys_dirty[node as usize] & (1 << bit) == 0)),
        );
        // Only the gathering selectors' lists are filled (a few among a hundred or more
        // selectors): those filled last time are cleared, whatever table filled them.
        for id in self.gathered.drain(..) {
            if let Some(missing) = self.missing.get_mut(id as usize) {
                missing.clear();
            }
        }
        if self.missing.len() != table.selectors.len() {
            self.missing.resize_with(table.selectors.len(), Vec::new);
        }
        for (id, from) in &table.gathering {
            let missing = &mut self.missing[*id as usize];
            for &n in from {
                missing.extend_from_slice(&self.absent[n as usize]);
            }
            self.gathered.push(*id);
        }
    }

    /// Whether every object `keys` check `number` selected has only allowed keys; `None` when
    /// the table does not settle that check.
    #[inline]
    pub fn keys_clean(&self, number: usize) -> Option<bool> {
        self.keys_clean.get(number).copied().flatten()
    }

    /// The values found for the selector numbered `id`, when the table has it: the part of
    /// [`Resolutions::get`] a type check reads.
    #[inline]
    pub fn found(&self, id: usize) -> Option<&[Match]> {
        let node = *self.nodes.get(id)?;
        self.found.get(node as usize).map(Vec::as_slice)
    }

    /// The resolution of the selector numbered `id`, when the table has it.
    pub fn get(&self, id: usize) -> Option<Resolved<'_>> {
        let node = *self.nodes.get(id)?;
        if node == NOT_IN_TABLE {
            return None;
        }
        Some(Resolved {
            found: &self.found[node as usize],
            missing: &self.missing[id],
        })
    }
}

/// `count` empty lists, keeping the buffers of those there were.
fn reset<T>(lists: &mut Vec<Vec<T>>, count: usize) {
    lists.truncate(count);
    lists.iter_mut().for_each(Vec::clear);
    lists.resize_with(count, Vec::new);
}

/// For each key `node` asks for, the index of the member that holds it (the last one, when a
/// key is repeated, as in [`Document::member`]). One scan of the members serves every key.
/// Returns the bits of the node's `keys` checks that allow every member.
fn key_lookup(node: &TrieNode, members: &[Member<'_>], slots: &mut Vec<Option<u32>>) -> u64 {
    slots.clear();
    slots.resize(node.keys.len(), None);
    let mut allowed = u64::MAX;
    for (i, member) in members.iter().enumerate() {
        let key = member.key.as_bytes();
        match node
            .keys
            .iter()
            .position(|(want, _)| same_key(want.as_bytes(), key))
        {
            Some(k) => {
                slots[k] = Some(i as u32);
                allowed &= node.allowed_by[k];
            }
            None => allowed = 0,
        }
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    /// Selectors parsed from `texts`, each shared under its index as id.
    fn numbered(texts: &[&str]) -> Vec<Selector> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut s = Selector::parse(t).unwrap();
                s.id = i;
                s
            })
            .collect()
    }

    /// The table agrees with resolving each selector on its own.
    #[test]
    fn agrees_with_single_selectors() {
        let texts = [
            "$", "a", "a.b", "a.b.c", "a.x.y", "p[*].n", "p[*]", "p[0].n", "p[1]", "h.*", "h.*.k",
            "n.k", "n.k.j", "s.k", "d", "$.a.b",
        ];
        let mut selectors = numbered(&texts);
        // An unshared selector is not in the table.
        selectors.push(Selector::parse("a.b").unwrap());
        let table = SelectorTable::new(selectors.iter().map(|s| (s, true)));
        let doc = parse(
            r#"{"a": {"b": {"c": 1}, "b": {"z": 2}}, "p": [{"n": "x"}, {"m": 1}, 5, {"n": "y"}],
                "h": {"u": {"k": 1}, "v": 2, "w": null}, "n": null, "s": "text", "d": []}"#,
        )
        .unwrap();
        let mut all = Resolutions::default();
        all.resolve(&table, &doc);
        let summary = |found: &[Match], missing: &[Missing]| {
            let mut found: Vec<_> = found.iter().map(|m| (m.node, m.key_span)).collect();
            let mut missing: Vec<_> = missing
                .iter()
                .map(|m| (m.parent, m.parent_key_span, m.depth))
                .collect();
            missing.sort();
            (std::mem::take(&mut found), missing)
        };
        for selector in &selectors[..texts.len()] {
            let alone = selector.resolve(&doc);
            let shared = all.get(selector.id).unwrap();
            assert_eq!(
                summary(shared.found, shared.missing),
                summary(&alone.found, &alone.missing),
                "{selector}"
            );
        }
        assert!(all.get(texts.len()).is_none());
        // Reused for another document: nothing of the first is left.
        let other = parse(r#"{"a": {"b": {"c": 3}}}"#).unwrap();
        all.resolve(&table, &other);
        assert_eq!(all.get(5).unwrap().found.len(), 0);
        assert_eq!(all.get(3).unwrap().found.len(), 1);
    }

    /// Buffers reused with another table keep no missing values of the first: a selector that
    /// gathers them in one table and not in the other reports none there.
    #[test]
    fn missing_values_do_not_outlive_their_table() {
        let selectors = numbered(&["a.b", "c"]);
        let gathering = SelectorTable::new(selectors.iter().map(|s| (s, true)));
        let not_gathering = SelectorTable::new(selectors.iter().map(|s| (s, false)));
        let doc = parse(r#"{"a": {}}"#).unwrap();
        let mut all = Resolutions::default();
        all.resolve(&gathering, &doc);
        assert_eq!(all.get(0).unwrap().missing.len(), 1);
        assert_eq!(all.get(1).unwrap().missing.len(), 1);
        all.resolve(&not_gathering, &doc);
        assert!(all.get(0).unwrap().missing.is_empty());
        assert!(all.get(1).unwrap().missing.is_empty());
        all.resolve(&gathering, &parse(r#"{"a": {"b": 1}, "c": 2}"#).unwrap());
        assert!(all.get(0).unwrap().missing.is_empty());
        assert_eq!(all.found(1).map(<[Match]>::len), Some(1));
    }

    /// `keys_clean` agrees with checking each selected object's members against the allowed
    /// keys, for objects with unknown, repeated and escaped keys, nulls, arrays and scalars,
    /// an empty allowed list, two checks on one selector, and keys other selectors also ask.
    #[test]
    fn keys_clean_agrees_with_scanning_members() {
        let mut selectors = numbered(&["$", "a", "a.b", "p[*]", "p[*].n", "h.*", "e"]);
        let unshared = Selector::parse("a").unwrap();
        selectors.push(unshared);
        let list = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        // (number, selector index, allowed)
        let checks = [
            (0, 0, list(&["a", "p", "h", "e", "s"])),
            (1, 1, list(&["b", "c"])),
            (2, 1, list(&["b"])),
            (3, 3, list(&["n", "m"])),
            (4, 5, list(&["k"])),
            (5, 6, list(&[])),
            (6, 2, list(&["c", "x/y", "é"])),
            (8, 7, list(&["b"])),
        ];
        let table = SelectorTable::with_keys(
            selectors.iter().map(|s| (s, true)),
            checks
                .iter()
                .map(|(n, s, allowed)| (*n, selectors[*s].id, allowed.as_slice())),
        );
        let docs = [
            r#"{"a": {"b": {"c": 1}, "c": 2}, "p": [{"n": 1}, {"n": 2, "m": 3}], "h": {"u": {"k": 1}, "v": null, "w": [1]}, "e": {}}"#,
            r#"{"a": {"b": {"c": 1, "x/y": 2, "\u00e9": 3}, "b": 1}, "p": [{"n": 1, "z": 0}, 5, null], "h": {"u": {"k": 1, "j": 2}}, "e": {"any": 1}}"#,
            r#"{"a": null, "p": {"n": 1}, "h": [], "e": [], "s": 1}"#,
            r#"{"a": {"c": 1, "d": 2}, "zz": 1}"#,
            r#"{"a": {"b": {"c": 1, "d": 1}}, "e": "text"}"#,
            r#"{}"#,
        ];
        let mut all = Resolutions::default();
        for text in docs {
            let doc = parse(text).unwrap();
            all.resolve(&table, &doc);
            for (number, selector, allowed) in &checks {
                let selector = &selectors[*selector];
                let clean = selector.resolve(&doc).found.iter().all(|m| {
                    doc.members(m.node).iter().all(|member| {
                        allowed
                            .iter()
                            .any(|a| same_key(a.as_bytes(), member.key.as_bytes()))
                    })
                });
                let settled = all.keys_clean(*number);
                if selector.id == NO_ID {
                    assert_eq!(settled, None, "an unshared selector is not settled");
                } else {
                    assert_eq!(settled, Some(clean), "check {number} on {text}");
                }
            }
            assert_eq!(all.keys_clean(7), None, "an unused number");
        }
    }

    /// A node takes 64 `keys` checks; the 65th is left to the check itself.
    #[test]
    fn keys_checks_past_the_64th_on_a_node_are_not_settled() {
        let mut selector = Selector::parse("a").unwrap();
        selector.id = 0;
        let allowed = vec!["b".to_string()];
        let table = SelectorTable::with_keys(
            [(&selector, false)],
            (0..65).map(|n| (n, 0, allowed.as_slice())),
        );
        let mut all = Resolutions::default();
        all.resolve(&table, &parse(r#"{"a": {"b": 1}}"#).unwrap());
        assert_eq!(all.keys_clean(63), Some(true));
        assert_eq!(all.keys_clean(64), None);
        all.resolve(&table, &parse(r#"{"a": {"c": 1}}"#).unwrap());
        assert_eq!(all.keys_clean(0), Some(false));
    }
}
