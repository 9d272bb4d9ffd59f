//! A fast answer to "does this YAML config have these dotted key paths?" for the common config:
//! block mappings of plain keys, one per line. A spec's hyperparameter overrides are checked
//! against the experiment's config on every spec, and the full YAML parser costs ~20 µs a
//! config; this line scan costs well under one. Anything outside that shape — flow
//! collections, quoted or complex keys, anchors, tags, block scalars, several documents, tabs
//! — gives `None`, and the caller parses the file: the answer is never a guess.

/// For each of `paths`, whether `text` has a key at that dotted path (each `.` one level down,
/// or part of a key that contains dots), or `None` when `text` is not simple enough to tell.
pub fn has_key_paths(text: &str, paths: &[&str]) -> Option<Vec<bool>> {
    let mut found = vec![false; paths.len()];
    // The open mappings: their key lines' indentation, the length of `path` up to them, and
    // the indentation of their keys once the first is seen.
    let mut open: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let mut root_keys: Option<usize> = None;
    // The indentation of the last key line with a value on it: nothing may nest under it.
    let mut last_valued: Option<usize> = None;
    let mut path = String::new();
    // A sequence's items, at or deeper than this indentation, are skipped: no dotted path
    // reaches inside an array.
    let mut in_sequence: Option<usize> = None;
    // The last key line had no value: a nested block (or a sequence) may follow.
    let mut last_empty: Option<usize> = None;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut started = false;
    // Lines found with the vectorised `memchr`: `str::split` sets up a search per line.
    let mut line_start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    for end in ends {
        let raw = &text[line_start..end];
        line_start = end + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let body = line.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        if memchr::memchr(b'\t', line.as_bytes()).is_some() {
            return None;
        }
        let indent = line.len() - body.len();
        // The document's start marker, before anything else.
        if !started && (body == "---" || body.starts_with("--- #")) {
            started = true;
            continue;
        }
        started = true;
        if body.starts_with("---") || body.starts_with("...") || body.starts_with('%') {
            return None;
        }
        if let Some(at) = in_sequence {
            if indent > at || (indent == at && is_item(body)) {
                continue;
            }
            in_sequence = None;
            last_valued = None;
        }
        if is_item(body) {
            // A sequence is the value of the key line just before it, at its indentation or
            // deeper.
            match last_empty {
                Some(key_indent) if indent >= key_indent => {
                    in_sequence = Some(indent);
                    last_empty = None;
                    continue;
                }
                _ => return None,
            }
        }
        let (key, value) = split_key(body)?;
        if last_valued.is_some_and(|at| indent > at) {
            return None;
        }
        while open.last().is_some_and(|&(at, _, _)| at >= indent) {
            open.pop();
        }
        // Sibling keys share one indentation.
        let keys_at = match open.last_mut() {
            Some((_, _, keys)) => keys,
            None => &mut root_keys,
        };
        if *keys_at.get_or_insert(indent) != indent {
            return None;
        }
        let parent_len = open.last().map_or(0, |&(_, len, _)| len);
        path.truncate(parent_len);
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        for (p, slot) in paths.iter().zip(found.iter_mut()) {
            if *p == path {
                *slot = true;
            }
        }
        if value.is_empty() {
            open.push((indent, path.len(), None));
            last_empty = Some(indent);
            last_valued = None;
        } else {
            if !simple_value(value) {
                return None;
            }
            last_empty = None;
            last_valued = Some(indent);
        }
    }
    Some(found)
}

/// `- item` or a lone `-`.
fn is_item(body: &str) -> bool {
    body == "-" || body.starts_with("- ")
}

/// `key: value` (or `key:`) with a plain key; the value without its comment, trimmed. One
/// pass over the line's bytes: this runs on every line of every config a spec names.
fn split_key(body: &str) -> Option<(&str, &str)> {
    let bytes = body.as_bytes();
    // The key's characters run up to the colon: anything else first is not a plain key.
    let colon = bytes.iter().position(|&b| !is_key_byte(b))?;
    if bytes[colon] != b':' || colon == 0 || matches!(bytes[0], b'-' | b'.') {
        return None;
    }
    let rest = &bytes[colon + 1..];
    if !(rest.is_empty() || rest[0] == b' ') {
        return None;
    }
    // A comment starts at ` #`.
    let end = (1..rest.len())
        .find(|&i| rest[i] == b'#' && rest[i - 1] == b' ')
        .map_or(rest.len(), |i| i - 1);
    Some((&body[..colon], body[colon + 1..colon + 1 + end].trim()))
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/')
}

/// A value that ends on its own line and opens nothing: a plain scalar, or a quoted one closed
/// on the line without anything that could continue it.
fn simple_value(value: &str) -> bool {
    let first = value.as_bytes()[0];
    match first {
        // A flow sequence of plain items closed on its line: a leaf (no path reaches into it).
        b'[' => {
            let mut depth = 0i32;
            for b in value.bytes() {
                match b {
                    b'[' => depth += 1,
                    b']' => depth -= 1,
                    b'{' | b'"' | b'\'' | b'&' | b'*' | b'!' | b'#' => return false,
                    _ => {}
                }
                if depth < 0 {
                    return false;
                }
            }
            depth == 0 && value.ends_with(']')
        }
        b'|' | b'>' | b'&' | b'*' | b'!' | b'{' | b'?' | b'@' | b'`' | b'%' => false,
        b'"' => {
            value.len() >= 2
                && value.ends_with('"')
                && !value[1..value.len() - 1].contains(['"', '\\'])
        }
        b'\'' => {
            value.len() >= 2 && value.ends_with('\'') && !value[1..value.len() - 1].contains('\'')
        }
        _ => {
            let bytes = value.as_bytes();
            !bytes.windows(2).any(|w| w == b": ") && !value.ends_with(':')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{parse_config, ConfigFormat};

    /// The full parser's answer, as `config-key` would look it up.
    fn full(text: &str, path: &str) -> bool {
        let docs = parse_config(ConfigFormat::Yaml, text).unwrap();
        let doc = &docs[0];
        let mut stack = vec![(doc.root(), 0usize)];
        while let Some((node, from)) = stack.pop() {
            let rest = &path[from..];
            for m in doc.members(node) {
                let k: &str = &m.key;
                if rest == k {
                    return true;
                }
                if rest.len() > k.len() && rest.starts_with(k) && rest.as_bytes()[k.len()] == b'.' {
                    stack.push((m.value, from + k.len() + 1));
                }
            }
        }
        false
    }

    #[test]
    fn agrees_with_the_full_parser_where_it_answers() {
        let configs = [
            "policy:\n  optimizer:\n    kwargs:\n      lr: 1.0e-5\n      betas: [0.9, 0.99]\ntrainer:\n  max_steps: 10 # steps\n",
            "# c\n---\na:\n  b: 1\n  c:\n  d: x\ne:\n- 1\n- 2\nf:\n  - g: 1\n    h: 2\ni: 3\n",
            "a.b:\n  c: 1\nx: \"quoted\"\ny: 'single'\nz: plain text here\n",
            "a:\r\n  b: 1\r\n",
            "a: x #c\nx: 'q' # c\nz: v#not-a-comment\ne: # a comment\n  f: 1\n",
        ];
        let paths = [
            "policy.optimizer.kwargs.lr",
            "policy.optimizer.kwargs",
            "policy.lr",
            "trainer.max_steps",
            "a.b",
            "a.c",
            "a.d",
            "e",
            "e.f",
            "f",
            "f.g",
            "i",
            "a.b.c",
            "x",
            "z",
            "zz",
        ];
        for text in configs {
            let fast = has_key_paths(text, &paths).unwrap_or_else(|| panic!("no answer: {text:?}"));
            for (p, got) in paths.iter().zip(fast) {
                assert_eq!(got, full(text, p), "{p} in {text:?}");
            }
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_full_parser() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: |\n  text\n  b: 1\n",
            "a: {b: 1}\n",
            "a: [1, {b: 2}]\n",
            "a: [1,\n  2]\n",
            "\"a\": 1\n",
            "a: 1\n---\nb: 2\n",
            "a:\n\tb: 1\n",
            "a: \"multi\n  line\"\n",
            "a: plain\n  continued: here\n",
            "? complex\n: key\n",
            "- 1\n- 2\n",
            "x:\n  a: 1\n    b: 2\n",
            "x:\n    b: 1\n  c: 2\n",
            "a: b: c\n",
            "a:b\n",
            "-a: 1\n",
        ] {
            assert_eq!(has_key_paths(text, &["a"]), None, "{text:?}");
        }
    }
}
