//! A rule's fix made into edits for one finding, from the parsed spec.

use crate::catalog::Recipe;
use crate::json::{Document, NodeId, Span, Value};
use crate::platform::Platform;
use crate::rules::fix::{FixAction, FixSpec, Piece, FIX_PLACEHOLDERS};

use super::{Edit, Fix};

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
        let segment = raw.replace("~1", "/").replace("~0", "~");
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
