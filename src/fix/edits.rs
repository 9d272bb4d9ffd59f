//! A rule's fix made into edits for one finding, from the parsed spec.

use crate::catalog::Recipe;
use crate::diagnostic::{Edit, Fix, Span};
use crate::json::{Document, NodeId, Value};
use crate::platform_facts::Platform;
use crate::rules::fix::{FixAction, FixSpec, Piece, FIX_PLACEHOLDERS};

/// The fix for a finding at `pointer` (the offending value) by `spec`, or `None` when it does
/// not apply there: nothing to remove, a fact the template names is unknown, the value is
/// already what the fix would write, lower-casing would not satisfy the check, no single
/// suggestion, or the suggested key exists already.
pub fn fix_for(
    spec: &FixSpec,
    doc: &Document<'_>,
    pointer: &str,
    suggestion: Option<&str>,
    platform: &Platform,
    recipe: Option<&Recipe>,
) -> Option<Fix> {
    // Most `unknown-field` findings have no one key to rename to: nothing to look up.
    if matches!(spec.action, FixAction::RenameToSuggestion) && suggestion.is_none() {
        return None;
    }
    let place = resolve(doc, pointer)?;
    let edits = match &spec.action {
        FixAction::Remove => vec![removal(doc, &place)?],
        FixAction::Set(pieces) => {
            let value = render(pieces, platform, recipe)?;
            if doc.as_str(place.node) == Some(value.as_str()) {
                return None;
            }
            vec![replace(doc.span(place.node), &value)]
        }
        FixAction::Lowercase { must_pass } => {
            let value = doc.as_str(place.node)?;
            let lower = value.to_lowercase();
            let fixes = must_pass
                .as_ref()
                .is_none_or(|p| crate::rules::string_passes(p, &lower));
            if lower == value || !fixes {
                return None;
            }
            vec![replace(doc.span(place.node), &lower)]
        }
        FixAction::RenameToSuggestion => {
            let (object, index) = place.parent?;
            let target = suggestion?;
            let members = doc.members(object);
            if members.iter().any(|m| m.key == target) {
                return None;
            }
            vec![replace(members.get(index)?.key_span, target)]
        }
    };
    Some(Fix {
        safety: spec.safety,
        edits,
    })
}

/// A value found by its JSON Pointer, with the object or array holding it and its index there.
struct Place {
    node: NodeId,
    parent: Option<(NodeId, usize)>,
}

/// Follows `pointer` from the root. A key that an object repeats is ambiguous: no place.
fn resolve(doc: &Document<'_>, pointer: &str) -> Option<Place> {
    let mut place = Place {
        node: doc.root(),
        parent: None,
    };
    if pointer.is_empty() {
        return Some(place);
    }
    for raw in pointer.strip_prefix('/')?.split('/') {
        let segment: std::borrow::Cow<'_, str> = if raw.contains('~') {
            raw.replace("~1", "/").replace("~0", "~").into()
        } else {
            raw.into()
        };
        let node = place.node;
        let (child, index) = match doc.value(node) {
            Value::Object { .. } => {
                let members = doc.members(node);
                let mut found = members.iter().enumerate().filter(|(_, m)| m.key == segment);
                let (index, member) = found.next()?;
                if found.next().is_some() {
                    return None;
                }
                (member.value, index)
            }
            Value::Array { .. } => {
                let index: usize = segment.parse().ok()?;
                (*doc.items(node).get(index)?, index)
            }
            _ => return None,
        };
        place = Place {
            node: child,
            parent: Some((node, index)),
        };
    }
    Some(place)
}

/// The edit that drops a member or an item with its comma: up to the next one's start, or
/// from the previous one's end when it is the last; an only member leaves `{}` (`[]`).
fn removal(doc: &Document<'_>, place: &Place) -> Option<Edit> {
    let (parent, index) = place.parent?;
    // (start, end) of each entry: key to value for a member, the item's span for an item.
    let entries: Vec<(u32, u32)> = match doc.value(parent) {
        Value::Object { .. } => doc
            .members(parent)
            .iter()
            .map(|m| (m.key_span.start, doc.span(m.value).end))
            .collect(),
        _ => doc
            .items(parent)
            .iter()
            .map(|&i| (doc.span(i).start, doc.span(i).end))
            .collect(),
    };
    let span = match (entries.len(), index) {
        (1, _) => {
            let outer = doc.span(parent);
            Span {
                start: outer.start + 1,
                end: outer.end.checked_sub(1)?,
            }
        }
        (n, i) if i + 1 < n => Span {
            start: entries[i].0,
            end: entries[i + 1].0,
        },
        (_, i) => Span {
            start: entries.get(i.checked_sub(1)?)?.1,
            end: entries.get(i)?.1,
        },
    };
    Some(Edit {
        span,
        replacement: String::new(),
    })
}

/// The edit that writes `value` as a JSON string over `span`.
fn replace(span: Span, value: &str) -> Edit {
    Edit {
        span,
        replacement: serde_json::to_string(value).unwrap_or_else(|_| "\"\"".into()),
    }
}

/// A `set` template's text, or `None` when a fact it names is not known.
fn render(pieces: &[Piece], platform: &Platform, recipe: Option<&Recipe>) -> Option<String> {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Fact(index) => out.push_str(match FIX_PLACEHOLDERS[*index] {
                "catalog.name" => &recipe?.name,
                "catalog.version" => recipe?.version.as_deref()?,
                "catalog.digest" => recipe?.digest.as_deref()?,
                "catalog.runtime_id" => recipe?.runtime_id.as_deref()?,
                _ => &platform.kind,
            }),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Safety;
    use crate::rules::fix::{FixAction, FixSpec};

    fn apply(text: &str, fix: &Fix) -> String {
        let mut out = text.to_string();
        for edit in fix.edits.iter().rev() {
            out.replace_range(
                edit.span.start as usize..edit.span.end as usize,
                &edit.replacement,
            );
        }
        out
    }

    fn fixed(
        text: &str,
        action: FixAction,
        pointer: &str,
        suggestion: Option<&str>,
    ) -> Option<String> {
        let doc = crate::json::parse(text).unwrap();
        let spec = FixSpec {
            action,
            safety: Safety::Unsafe,
        };
        let fix = fix_for(&spec, &doc, pointer, suggestion, &Platform::default(), None)?;
        Some(apply(text, &fix))
    }

    #[test]
    fn removal_takes_the_right_comma() {
        let remove = |text: &str, pointer: &str| fixed(text, FixAction::Remove, pointer, None);
        assert_eq!(
            remove(r#"{"a": [1, 2, 3]}"#, "/a/0").unwrap(),
            r#"{"a": [2, 3]}"#
        );
        assert_eq!(
            remove(r#"{"a": [1, 2, 3]}"#, "/a/1").unwrap(),
            r#"{"a": [1, 3]}"#
        );
        assert_eq!(
            remove(r#"{"a": [1, 2, 3]}"#, "/a/2").unwrap(),
            r#"{"a": [1, 2]}"#
        );
        assert_eq!(remove(r#"{"a": [ 1 ]}"#, "/a/0").unwrap(), r#"{"a": []}"#);
        assert_eq!(
            remove("{\n  \"a\": 1,\n  \"b\": 2\n}", "/b").unwrap(),
            "{\n  \"a\": 1\n}"
        );
        // Nothing to remove: the root, a missing key, a repeated key.
        assert_eq!(remove(r#"{"a": 1}"#, ""), None);
        assert_eq!(remove(r#"{"a": 1}"#, "/b"), None);
        assert_eq!(remove(r#"{"a": 1, "a": 2}"#, "/a"), None);
    }

    #[test]
    fn set_and_lowercase_write_json_strings() {
        let set = |value: &str| FixAction::Set(vec![crate::rules::fix::Piece::Text(value.into())]);
        assert_eq!(
            fixed(r#"{"k": 5}"#, set("a\"b\u{1}"), "/k", None).unwrap(),
            r#"{"k": "a\"b\u0001"}"#
        );
        // Already the value: no fix.
        assert_eq!(fixed(r#"{"k": "v"}"#, set("v"), "/k", None), None);
        let lower = || FixAction::Lowercase { must_pass: None };
        assert_eq!(
            fixed(r#"{"d": "AB"}"#, lower(), "/d", None).unwrap(),
            r#"{"d": "ab"}"#
        );
        assert_eq!(fixed(r#"{"d": "ab"}"#, lower(), "/d", None), None);
        assert_eq!(fixed(r#"{"d": 1}"#, lower(), "/d", None), None);
    }

    #[test]
    fn rename_needs_one_suggestion_and_no_such_key() {
        let rename = |text: &str, suggestion| {
            fixed(
                text,
                FixAction::RenameToSuggestion,
                "/gpu_per_node",
                suggestion,
            )
        };
        assert_eq!(
            rename(r#"{"gpu_per_node": 8}"#, Some("gpus_per_node")).unwrap(),
            r#"{"gpus_per_node": 8}"#
        );
        assert_eq!(
            rename(
                r#"{"gpu_per_node": 8, "gpus_per_node": 8}"#,
                Some("gpus_per_node")
            ),
            None
        );
        assert_eq!(rename(r#"{"gpu_per_node": 8}"#, None), None);
    }
}
