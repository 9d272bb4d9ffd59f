//! The `path` placeholder: a JSON Pointer written as a dotted path
//! (`/spec/resources/pools/1/name` is `spec.resources.pools[1].name`), for every finding that
//! shows one.

use std::borrow::Cow;

/// A `path` placeholder from a JSON Pointer: `spec.resources.pools[1].name`. Written directly
/// from the pointer's segments (this runs for every finding).
pub fn pointer_path(pointer: &str) -> String {
    plain_pointer_path(pointer).unwrap_or_else(|| any_pointer_path(pointer))
}

/// [`pointer_path`] of a pointer whose segments are ASCII letters, digits, `_` and `-`, none
/// empty or all digits (nearly all): its segments joined by dots, in one pass.
fn plain_pointer_path(pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix('/')?;
    // Whether the segment so far holds a letter, `_` or `-`: an empty segment and one of
    // digits alone (an index) both lack one.
    let mut named = false;
    for &b in rest.as_bytes() {
        match POINTER_BYTE[usize::from(b)] {
            PointerByte::Name => named = true,
            PointerByte::Digit => {}
            PointerByte::Slash if named => named = false,
            PointerByte::Slash | PointerByte::Other => return None,
        }
    }
    if !named {
        return None;
    }
    // ASCII alone, checked above: a copy with each `/` turned into `.` in place.
    let mut dotted = rest.as_bytes().to_vec();
    for b in &mut dotted {
        if *b == b'/' {
            *b = b'.';
        }
    }
    // SAFETY: every byte was classed above as an ASCII letter, digit, `_`, `-` or `/`, and the
    // copy only turned `/` into `.`: ASCII is UTF-8.
    Some(unsafe { String::from_utf8_unchecked(dotted) })
}

/// The dotted path of the object at `pointer` when [`plain_pointer_path`] writes it (the
/// whole document's is empty), for [`member_path`].
pub(super) fn plain_object_path(pointer: &str) -> Option<String> {
    if pointer.is_empty() {
        return Some(String::new());
    }
    plain_pointer_path(pointer)
}

/// [`pointer_path`] of `pointer`, the place of member `key` of an object: its object's plain
/// path (see [`plain_object_path`]) and the key joined when both are plain, as
/// [`plain_pointer_path`] would join them, without reading the whole pointer again.
pub(super) fn member_path<'k>(
    object_path: Option<&str>,
    key: &'k str,
    pointer: &str,
) -> Cow<'k, str> {
    let plain_key = {
        let mut named = false;
        key.bytes().all(|b| match POINTER_BYTE[usize::from(b)] {
            PointerByte::Name => {
                named = true;
                true
            }
            PointerByte::Digit => true,
            PointerByte::Slash | PointerByte::Other => false,
        }) && named
    };
    match object_path {
        // A top-level key is its own path: no copy of it.
        Some("") if plain_key => Cow::Borrowed(key),
        Some(object) if plain_key => {
            let mut path = String::with_capacity(object.len() + 1 + key.len());
            path.push_str(object);
            path.push('.');
            path.push_str(key);
            Cow::Owned(path)
        }
        _ => Cow::Owned(pointer_path(pointer)),
    }
}

/// What a pointer's byte is to [`plain_pointer_path`].
#[derive(Clone, Copy)]
enum PointerByte {
    Name,
    Digit,
    Slash,
    Other,
}

/// [`PointerByte`] of every byte: one load a byte instead of a chain of range tests.
static POINTER_BYTE: [PointerByte; 256] = {
    let mut table = [PointerByte::Other; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = match byte {
            b'0'..=b'9' => PointerByte::Digit,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'-' => PointerByte::Name,
            b'/' => PointerByte::Slash,
            _ => PointerByte::Other,
        };
        b += 1;
    }
    table
};

/// [`pointer_path`] of any pointer.
fn any_pointer_path(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + 4);
    for raw in pointer.split('/').skip(1) {
        let segment: Cow<'_, str> = if raw.contains('~') {
            Cow::Owned(raw.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(raw)
        };
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            // An index (digits too large for one are shown like a key).
            if let Ok(i) = segment.parse::<usize>() {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
                continue;
            }
        }
        push_path_key(&mut out, &segment);
    }
    match crate::escape::visible(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(escaped) => escaped,
    }
}

/// Appends `.key` (or the first `key`) to a dotted path, quoted as JSON when it is not plain.
fn push_path_key(out: &mut String, key: &str) {
    if !out.is_empty() {
        out.push('.');
    }
    if crate::select::is_plain_key(key) {
        out.push_str(key);
    } else {
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key is written bare in a dotted path exactly when every character of it is plain:
    /// the ASCII shortcut agrees with `is_plain_key_char` on every ASCII character.
    /// The one-pass path of plain pointers is the general one's, on pointers of every ASCII
    /// character, escapes, indices, empty and all-digit segments.
    #[test]
    fn plain_pointers_take_the_short_path_to_the_same_path() {
        let segments = [
            "a",
            "spec",
            "pool_1",
            "x-y",
            "0",
            "007",
            "12",
            "",
            "a.b",
            "a~1b",
            "~0",
            "é",
            "a b",
            "99999999999999999999999",
            "1a",
            "_",
        ];
        let mut pointers = vec![String::new(), "/".to_string()];
        for a in segments {
            pointers.push(format!("/{a}"));
            for b in segments {
                pointers.push(format!("/{a}/{b}"));
                pointers.push(format!("/spec/{a}/{b}/z"));
            }
        }
        for b in 0..0x80u8 {
            pointers.push(format!("/k{}y/v", b as char));
        }
        let mut short = 0;
        for pointer in &pointers {
            let general = any_pointer_path(pointer);
            if let Some(path) = plain_pointer_path(pointer) {
                short += 1;
                assert_eq!(path, general, "{pointer:?}");
            }
            assert_eq!(pointer_path(pointer), general, "{pointer:?}");
        }
        assert!(
            short > 100,
            "{short} of {} took the short path",
            pointers.len()
        );
    }

    #[test]
    fn plain_keys_are_written_bare() {
        for b in 0..0x80u8 {
            let c = b as char;
            let key = format!("k{c}y");
            let mut out = String::new();
            push_path_key(&mut out, &key);
            let bare = "kxy"
                .chars()
                .chain([c])
                .all(crate::select::is_plain_key_char);
            assert_eq!(out == key, bare, "{key:?} written as {out:?}");
        }
        let mut out = String::new();
        push_path_key(&mut out, "clé");
        assert_eq!(out, "clé");
    }

    /// A member's path from its object's is the path of its whole pointer: objects plain or
    /// not (the document, escapes, indices, non-ASCII), keys plain or not (empty, digits
    /// alone, dots, slashes, tildes, spaces, controls, non-ASCII).
    #[test]
    fn member_paths_are_the_paths_of_their_pointers() {
        let objects = [
            "",
            "/spec",
            "/spec/resources",
            "/a-b/c_d",
            "/spec/pools/0",
            "/a~1b",
            "/x y",
            "/0",
            "/é",
            "/spec/007",
            "/",
        ];
        let keys = [
            "k",
            "legacy_field_03",
            "0",
            "007",
            "",
            "a.b",
            "a/b",
            "a~b",
            "é",
            "-",
            "_",
            "x y",
            "\u{1b}",
            "1a",
            "\u{202e}",
        ];
        let mut short = 0;
        for object in objects {
            let object_path = plain_object_path(object);
            short += usize::from(object_path.is_some());
            for key in keys {
                let mut pointer = object.to_string();
                crate::json::push_pointer_segment(&mut pointer, key);
                assert_eq!(
                    member_path(object_path.as_deref(), key, &pointer),
                    pointer_path(&pointer),
                    "{object:?} {key:?}"
                );
            }
        }
        assert_eq!(short, 4, "the objects with a plain path");
    }

    #[test]
    fn paths_from_pointers() {
        for (pointer, path) in [
            ("", ""),
            ("/metadata", "metadata"),
            (
                "/spec/resources/pools/1/name",
                "spec.resources.pools[1].name",
            ),
            ("/spec/plugins/0", "spec.plugins[0]"),
            ("/a~1b/c~0d", "a/b.c~d"),
            ("/spec/hyperparams/lr.max", "spec.hyperparams.\"lr.max\""),
            ("/m/", "m.\"\""),
            ("/0/x", "[0].x"),
            ("/h/99999999999999999999999", "h.99999999999999999999999"),
            ("/h/a b", "h.\"a b\""),
            ("/h/\u{1b}[2J", "h.\"\\u001b[2J\""),
        ] {
            assert_eq!(pointer_path(pointer), path, "{pointer:?}");
        }
    }
}
