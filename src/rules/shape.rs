//! The forge/v2 shape, read from the built-in rules that enforce it: `unknown-field` lists the
//! keys of each closed object and `wrong-type` the JSON type of each field. Reading them (rather
//! than keeping a copy here) means a field added to those rules is at once a valid selector.
//! Objects that `unknown-field` does not close (`metadata.labels`, `spec.hyperparams`) are free
//! maps: any key below them is allowed.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::JsonType;
use crate::select::{display_segments, Segment, Selector};

#[derive(Debug, Default)]
struct Node {
    /// `unknown-field` lists the keys: no other key can be there.
    closed: bool,
    children: BTreeMap<String, Node>,
    /// Array items or map values (`[*]`, `.*`).
    items: Option<Box<Node>>,
    /// From `wrong-type`; empty when unknown (then anything below is allowed).
    types: Vec<JsonType>,
}

/// A place nothing is known about: every selector below it may match.
static OPEN: Node = Node {
    closed: false,
    children: BTreeMap::new(),
    items: None,
    types: Vec::new(),
};

impl Node {
    fn at(&mut self, segments: &[Segment]) -> &mut Node {
        let mut node = self;
        for segment in segments {
            node = match segment {
                Segment::Key(k) => node.children.entry(k.clone()).or_default(),
                Segment::Index(_) | Segment::Wildcard => {
                    node.items.get_or_insert_with(Default::default)
                }
            };
        }
        node
    }

    fn can_be(&self, t: JsonType) -> bool {
        self.types.is_empty() || self.types.contains(&t)
    }

    fn can_be_object(&self) -> bool {
        self.closed || !self.children.is_empty() || self.can_be(JsonType::Object)
    }

    fn describe(&self) -> String {
        let names: Vec<&str> = self.types.iter().map(|t| t.as_str()).collect();
        match names.as_slice() {
            [] => "a value".into(),
            [one] if matches!(*one, "array" | "object" | "integer") => format!("an {one}"),
            [one] => format!("a {one}"),
            more => more.join(" or "),
        }
    }
}

/// The part of a rule file the shape is read from.
#[derive(Deserialize)]
struct ShapeRule {
    #[serde(default)]
    check: Vec<ShapeCheck>,
}

#[derive(Deserialize)]
struct ShapeCheck {
    select: Option<String>,
    keys: Option<Vec<String>>,
    #[serde(rename = "type")]
    type_: Option<toml::Value>,
}

fn builtin_text(name: &str) -> Option<&'static str> {
    super::BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}

fn checks(name: &str) -> Vec<(Selector, ShapeCheck)> {
    let Some(rule) = builtin_text(name).and_then(|t| toml::from_str::<ShapeRule>(t).ok()) else {
        return Vec::new();
    };
    rule.check
        .into_iter()
        .filter_map(|c| Some((Selector::parse(c.select.as_deref()?).ok()?, c)))
        .collect()
}

fn build() -> Option<Node> {
    let mut root = Node::default();
    let keyed = checks("unknown-field.toml");
    if keyed.is_empty() {
        return None;
    }
    for (sel, c) in keyed {
        if let Some(keys) = c.keys {
            let node = root.at(&sel.segments);
            node.closed = true;
            for k in keys {
                node.children.entry(k).or_default();
            }
        }
    }
    for (sel, c) in checks("wrong-type.toml") {
        let names: Vec<&str> = match &c.type_ {
            Some(toml::Value::String(s)) => vec![s.as_str()],
            Some(toml::Value::Array(a)) => a.iter().filter_map(|v| v.as_str()).collect(),
            _ => continue,
        };
        let node = root.at(&sel.segments);
        for t in names.into_iter().filter_map(JsonType::parse) {
            if !node.types.contains(&t) {
                node.types.push(t);
            }
        }
    }
    Some(root)
}

fn shape() -> Option<&'static Node> {
    static SHAPE: OnceLock<Option<Node>> = OnceLock::new();
    SHAPE.get_or_init(build).as_ref()
}

/// Why a selector cannot match a forge/v2 jobspec.
#[derive(Debug)]
pub struct NoMatch {
    /// The segment that cannot match.
    pub segment: usize,
    pub message: String,
    pub help: Option<String>,
}

/// Checks that `sel` can select something in a forge/v2 jobspec.
pub fn check(sel: &Selector) -> Result<(), NoMatch> {
    let Some(root) = shape() else { return Ok(()) };
    let mut here: Vec<&Node> = vec![root];
    for (i, segment) in sel.segments.iter().enumerate() {
        let mut next: Vec<&Node> = Vec::new();
        for node in &here {
            match segment {
                Segment::Key(k) if node.can_be_object() => match node.children.get(k) {
                    Some(child) => next.push(child),
                    None if node.closed => {}
                    None => next.push(node.items.as_deref().unwrap_or(&OPEN)),
                },
                Segment::Index(_) if node.can_be(JsonType::Array) && !node.closed => {
                    next.push(node.items.as_deref().unwrap_or(&OPEN))
                }
                Segment::Wildcard => {
                    if node.can_be_object() {
                        next.extend(node.children.values());
                    }
                    if !node.closed {
                        if let Some(items) = node.items.as_deref() {
                            next.push(items);
                        } else if node.can_be(JsonType::Array) || node.can_be(JsonType::Object) {
                            next.push(&OPEN);
                        }
                    }
                }
                _ => {}
            }
        }
        if next.is_empty() {
            return Err(no_match(sel, i, &here));
        }
        here = next;
    }
    Ok(())
}

fn no_match(sel: &Selector, i: usize, here: &[&Node]) -> NoMatch {
    let at = match display_segments(&sel.segments[..i]) {
        s if s.is_empty() => "the document root".to_string(),
        s => format!("`{s}`"),
    };
    let segment = &sel.segments[i];
    let shown = display_segments(std::slice::from_ref(segment));
    let keys: Vec<&str> = here
        .iter()
        .flat_map(|n| n.children.keys().map(String::as_str))
        .collect();
    let objects = here.iter().any(|n| n.can_be_object());
    let arrays = here.iter().any(|n| n.can_be(JsonType::Array) && !n.closed);
    let (message, help) = match segment {
        Segment::Key(k) if objects => (
            format!(
                "{at} has no field `{shown}` in the forge/v2 shape: this selector never matches"
            ),
            Some(match crate::error::suggest(k, keys.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("known fields: {}", keys.join(", ")),
            }),
        ),
        Segment::Key(_) if arrays => (
            format!("{at} is an array in the forge/v2 shape: `{shown}` never matches"),
            Some("select its items with `[*]` or an index such as `[0]`".into()),
        ),
        Segment::Index(_) | Segment::Wildcard if objects => (
            format!(
                "{at} is an object in the forge/v2 shape, not an array: `{shown}` never matches"
            ),
            Some("select a field by name".into()),
        ),
        _ => (
            format!(
                "{at} is {} in the forge/v2 shape: nothing below it can match",
                here.first()
                    .map_or_else(|| "a value".into(), |n| n.describe())
            ),
            None,
        ),
    };
    NoMatch {
        segment: i,
        message,
        help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> bool {
        check(&Selector::parse(s).expect("a selector")).is_ok()
    }

    #[test]
    fn the_shape_comes_from_the_builtin_rules() {
        for good in [
            "$",
            "spec.resources.pools[*].series",
            "spec.resources.pools[0].name",
            "spec.resources.pools.*.nodes",
            "spec.resources.roles.trainer",
            "spec.resources.roles.*",
            "spec.hyperparams.\"a.b\".c[3]",
            "metadata.labels.*",
            "spec.*.name",
            "spec.lifecycle.on_success[*]",
            "$.provenance.git_dirty",
        ] {
            assert!(ok(good), "{good}");
        }
        for bad in [
            "spec.resource.pools[*].series",
            "spec.resources.pools.name",
            "spec[0]",
            "metadata.name.first",
            "spec.recipe.*.x",
            "spec.resources.roles.trainer.x",
            "provenance.git_dirty[0]",
        ] {
            assert!(!ok(bad), "{bad}");
        }
        let e = check(&Selector::parse("spec.resource.pools").expect("a selector")).unwrap_err();
        assert_eq!(e.segment, 1);
        assert_eq!(e.help.as_deref(), Some("did you mean `resources`?"));
    }
}
