//! One fault, one finding: the values of a document that have the wrong type, found before the
//! rules run, so that a value of the wrong type is reported once, by the check that knows its
//! type, and stops every check on it or beneath it.
//!
//! The faults come from the `type` checks without conditions of the rules in play (the
//! `wrong-type` rule's, for the built-in ones): the shape of a spec the rules know. A clean
//! spec has none, and pays for this with one pass over those checks' quick plans (which the
//! rule loop then skips) and one `is_empty` per check.

use std::cell::OnceCell;

use crate::diagnostic::Span;
use crate::json::{Document, NodeId};
use crate::select::{Resolutions, Segment, Selector};

use super::plan::type_matches;
use super::{Assertion, Check, Predicate, Rule};

/// The outermost values of the wrong type in one document (a fault beneath another is part of
/// it): their spans, sorted and disjoint, so "is this value at or beneath a fault" is a binary
/// search.
#[derive(Debug, Default)]
pub struct Faults {
    faults: Vec<(Span, NodeId)>,
    /// Some type check could not be decided here (its selector is not shared), so the rule
    /// loop must run the type checks itself.
    undecided: bool,
    /// Each fault's path from the root, made for the first check that reads another place.
    paths: OnceCell<Vec<Vec<String>>>,
}

/// Is `check` one whose failures define the faults? A `type` check without conditions on a
/// shared selector: the plan decides those from the resolved values alone.
pub fn defines_faults(check: &Check) -> bool {
    matches!(check.assertion, Assertion::Predicate(Predicate::Type(_)))
        && check.when.is_empty()
        && check.select.id != crate::select::NO_ID
}

impl Faults {
    /// The faults of `doc` under `rules`' type checks.
    pub fn find<'r>(
        doc: &Document<'_>,
        rules: impl Iterator<Item = &'r Rule>,
        resolved: &Resolutions,
    ) -> Faults {
        let mut nodes: Vec<(Span, NodeId)> = Vec::new();
        let mut undecided = false;
        for rule in rules {
            for step in &rule.plan {
                let Some(mask) = step.type_mask() else {
                    continue;
                };
                // The values are tested here directly, not through `Step::passes`: a second
                // caller kept the compiler from inlining that into the rule loop.
                let Some(found) = step.selector_id().and_then(|id| resolved.found(id)) else {
                    undecided = true;
                    continue;
                };
                for m in found {
                    if !type_matches(mask, doc.value(m.node)) {
                        nodes.push((doc.span(m.node), m.node));
                    }
                }
            }
        }
        if nodes.is_empty() {
            return Faults {
                undecided,
                ..Faults::default()
            };
        }
        Faults {
            faults: outermost(nodes),
            undecided,
            paths: OnceCell::new(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }

    /// Did finding no fault also show that every type check passes?
    #[inline]
    pub fn types_pass(&self) -> bool {
        self.faults.is_empty() && !self.undecided
    }

    /// The fault whose span holds `span`, if any.
    fn holding(&self, span: Span) -> Option<Span> {
        let i = self.faults.partition_point(|(f, _)| f.start <= span.start);
        let (fault, _) = *self.faults.get(i.checked_sub(1)?)?;
        (span.end <= fault.end).then_some(fault)
    }

    /// Is the value `node` a fault or within one?
    pub fn covers(&self, doc: &Document<'_>, node: NodeId) -> bool {
        self.holding(doc.span(node)).is_some()
    }

    /// Is the value `node` within a fault, not one itself?
    pub fn beneath(&self, doc: &Document<'_>, node: NodeId) -> bool {
        let span = doc.span(node);
        self.holding(span).is_some_and(|fault| fault != span)
    }

    /// Does `check` read, besides the values it checks, a place at or beneath a fault (through
    /// a condition or an operand)? What it would find there is not what the rule expects, so
    /// the check says nothing: the fault is reported where it is.
    pub fn taint(&self, doc: &Document<'_>, check: &Check) -> bool {
        let paths = self.paths.get_or_init(|| {
            self.faults
                .iter()
                .map(|&(_, node)| pointer_segments(&doc.pointer_of(node)))
                .collect()
        });
        let mut tainted = false;
        check.visit_selectors(&mut |sel, _| {
            if !std::ptr::eq(sel, &check.select) && !tainted {
                tainted = paths.iter().any(|path| reaches(sel, path));
            }
        });
        tainted
    }
}

/// The values of `nodes` within none of the others, sorted by span. JSON values nest or are
/// disjoint, so after sorting by start (the outer value first at one start) a value is within
/// another exactly when it is within the last one kept.
fn outermost(mut nodes: Vec<(Span, NodeId)>) -> Vec<(Span, NodeId)> {
    nodes.sort_unstable_by(|(a, _), (b, _)| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut kept: Vec<(Span, NodeId)> = Vec::with_capacity(nodes.len());
    for (span, node) in nodes {
        match kept.last() {
            Some((last, _)) if span.end <= last.end => {}
            _ => kept.push((span, node)),
        }
    }
    kept
}

/// The unescaped segments of a JSON Pointer.
fn pointer_segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Does `sel` pass through (or end at) the value at `path`?
fn reaches(sel: &Selector, path: &[String]) -> bool {
    path.len() <= sel.segments.len()
        && sel.segments.iter().zip(path).all(|(seg, key)| match seg {
            Segment::Key(k) => k == key,
            Segment::Index(i) => key.parse::<usize>().is_ok_and(|k| k == *i),
            Segment::Wildcard => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_reach_the_faults_on_their_way() {
        let path = |p: &str| pointer_segments(p);
        let sel = |s: &str| Selector::parse(s).unwrap();
        let names = sel("spec.resources.pools[*].name");
        assert!(reaches(&names, &path("/spec/resources/pools")));
        assert!(reaches(&names, &path("/spec/resources/pools/3")));
        assert!(reaches(&names, &path("/spec/resources/pools/3/name")));
        assert!(!reaches(&names, &path("/spec/resources/pools/3/name/x")));
        assert!(!reaches(&names, &path("/spec/resources/roles")));
        assert!(!reaches(&sel("spec"), &path("/spec/source/entrypoint")));
        assert!(reaches(&sel("a[2]"), &path("/a/2")));
        assert!(!reaches(&sel("a[2]"), &path("/a/1")));
        assert!(reaches(&sel("h.\"a/b\""), &path("/h/a~1b")));
    }

    /// Nested faults keep only the outermost; a value is covered by the fault that holds it.
    #[test]
    fn the_outermost_faults_cover_what_is_within() {
        let doc = crate::json::parse(r#"{"p": {"a": [1], "b": 2}, "q": "x"}"#).unwrap();
        let p = doc.get(doc.root(), "p").unwrap();
        let a = doc.get(p, "a").unwrap();
        let one = doc.items(a)[0];
        let q = doc.get(doc.root(), "q").unwrap();
        let nodes = vec![(doc.span(one), one), (doc.span(p), p), (doc.span(a), a)];
        let faults = Faults {
            faults: outermost(nodes),
            ..Faults::default()
        };
        assert_eq!(faults.faults.len(), 1);
        assert!(faults.covers(&doc, p) && !faults.beneath(&doc, p));
        assert!(faults.covers(&doc, one) && faults.beneath(&doc, one));
        assert!(!faults.covers(&doc, q) && !faults.covers(&doc, doc.root()));
    }
}
