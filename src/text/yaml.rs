//! YAML: comments, quoted and plain scalars, block scalars.
//!
//! Scalars are strings except mapping keys (a scalar followed by `: `), which are code like the
//! indicators (`-`, `?`, `:`, `,`, brackets), document markers, directives, anchors, aliases,
//! tags and block scalar headers. A block scalar's body (the lines after a `|` or `>` header
//! that are indented more than the header's line, with blank lines between them) is one String
//! region from the start of its first line to the end of its last non-blank line. Quoted
//! scalars may span lines, so an unterminated one runs to the end of the file.

use super::{line_end, Regions};

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

/// Spaces at the start of the line starting at `start`.
fn indent(bytes: &[u8], start: usize) -> usize {
    bytes[start..].iter().take_while(|&&b| b == b' ').count()
}

pub(super) fn scan(bytes: &[u8], out: &mut Regions) {
    let n = bytes.len();
    let mut i = 0;
    let mut line_start = 0;
    // Open `[` and `{`.
    let mut flow = 0usize;
    // A block scalar header was seen on this line: the indentation of the line.
    let mut block: Option<usize> = None;
    while i < n {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        // An indicator is one when followed by a blank (or the end).
        let ends = |at: usize| bytes.get(at).is_none_or(|&b| is_blank(b));
        match b {
            b'\n' => {
                i += 1;
                line_start = i;
                if let Some(parent) = block.take() {
                    i = block_body(bytes, i, parent, out);
                }
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' if i == line_start || matches!(bytes[i - 1], b' ' | b'\t') => {
                let end = line_end(bytes, i);
                out.comment(i..end);
                i = end;
            }
            b'%' if i == line_start => i = line_end(bytes, i),
            b'-' | b'.'
                if i == line_start
                    && (bytes[i..].starts_with(b"---") || bytes[i..].starts_with(b"..."))
                    && ends(i + 3) =>
            {
                i += 3
            }
            b'-' | b'?' | b':' if ends(i + 1) => i += 1,
            b':' if flow > 0 && next.is_some_and(is_flow_indicator) => i += 1,
            b'[' | b'{' => {
                flow += 1;
                i += 1;
            }
            b']' | b'}' => {
                flow = flow.saturating_sub(1);
                i += 1;
            }
            b',' if flow > 0 => i += 1,
            b'&' | b'*' | b'!' => {
                while i < n && !is_blank(bytes[i]) && !(flow > 0 && is_flow_indicator(bytes[i])) {
                    i += 1;
                }
            }
            b'|' | b'>'
                if flow == 0 && {
                    let mut at = i + 1;
                    while at < n && matches!(bytes[at], b'-' | b'+' | b'0'..=b'9') {
                        at += 1;
                    }
                    ends(at)
                } =>
            {
                i += 1;
                while i < n && matches!(bytes[i], b'-' | b'+' | b'0'..=b'9') {
                    i += 1;
                }
                block = Some(indent(bytes, line_start));
            }
            b'\'' | b'"' => {
                let (close, end) = quoted(bytes, i);
                if is_key(bytes, end, flow, true) {
                    out.code(end);
                } else {
                    out.string(i..end, i + 1..close);
                }
                i = end;
            }
            _ => {
                let end = plain(bytes, i, flow);
                if is_key(bytes, end, flow, false) {
                    out.code(end);
                } else {
                    out.string(i..end, i..end);
                }
                i = end.max(i + 1);
            }
        }
    }
}

/// A quoted scalar from its opening quote: (offset of the closing quote, offset after it), or
/// the end of the text twice.
fn quoted(bytes: &[u8], open: usize) -> (usize, usize) {
    let n = bytes.len();
    let quote = bytes[open];
    let mut i = open + 1;
    while i < n {
        let b = bytes[i];
        if quote == b'"' && b == b'\\' {
            i += 2;
        } else if b == quote {
            if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
            } else {
                return (i, i + 1);
            }
        } else {
            i += 1;
        }
    }
    (n, n)
}

/// The end of a plain scalar starting at `start` (trailing blanks left out).
fn plain(bytes: &[u8], start: usize, flow: usize) -> usize {
    let n = bytes.len();
    let mut end = start;
    let mut i = start;
    while i < n {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        let stop = match b {
            b'\n' => true,
            b':' => next.is_none_or(is_blank) || (flow > 0 && next.is_some_and(is_flow_indicator)),
            b'#' => i > start && matches!(bytes[i - 1], b' ' | b'\t'),
            b if flow > 0 && is_flow_indicator(b) => true,
            _ => false,
        };
        if stop {
            break;
        }
        if !matches!(b, b' ' | b'\t' | b'\r') {
            end = i + 1;
        }
        i += 1;
    }
    end
}

/// Whether the scalar ending at `end` is a mapping key: blanks on its line, then `:` and a blank
/// (a quoted key in a flow collection may be followed by `:` directly).
fn is_key(bytes: &[u8], end: usize, flow: usize, quoted: bool) -> bool {
    let mut i = end;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    if bytes.get(i) != Some(&b':') {
        return false;
    }
    match bytes.get(i + 1) {
        None => true,
        Some(&b) => is_blank(b) || (flow > 0 && (quoted || is_flow_indicator(b))),
    }
}

/// The body of a block scalar from `start` (the line after its header): the lines indented more
/// than `parent`, and blank lines between them. Returns the end of its last non-blank line (or
/// `start` when it has none).
fn block_body(bytes: &[u8], start: usize, parent: usize, out: &mut Regions) -> usize {
    let n = bytes.len();
    let mut i = start;
    let mut last = None;
    while i < n {
        let end = line_end(bytes, i);
        let line = &bytes[i..end];
        let newline = memchr::memchr(b'\n', &bytes[end..]).map_or(n, |at| end + at + 1);
        if !line.iter().all(|&b| b == b' ' || b == b'\t') {
            if indent(bytes, i) <= parent {
                break;
            }
            last = Some(end);
        }
        i = newline;
    }
    match last {
        Some(end) => {
            out.string(start..end, start..end);
            end
        }
        None => start,
    }
}

#[cfg(test)]
mod tests {
    use crate::text::{scan, Language, RegionKind};

    use RegionKind::{Code as K, Comment as C, String as S};

    fn parts(text: &str) -> Vec<(RegionKind, &str)> {
        scan(Language::Yaml, text)
            .into_iter()
            .filter(|r| r.kind != K)
            .map(|r| (r.kind, &text[r.content]))
            .collect()
    }

    #[test]
    fn keys_are_code_values_are_strings() {
        let text = "model:\n  name: llama-3  # the base\n  path: /mnt/models/x\n  \"quoted key\": 'it''s'\n  url: http://x:80/a#b\n  lr: 1e-4\n";
        assert_eq!(
            parts(text),
            vec![
                (S, "llama-3"),
                (C, "# the base"),
                (S, "/mnt/models/x"),
                (S, "it''s"),
                (S, "http://x:80/a#b"),
                (S, "1e-4")
            ]
        );
    }

    #[test]
    fn sequences_flow_and_properties() {
        let text = "---\ndata: &d [/mnt/a, \"b\", {k: v, 'q': w}]\nlist:\n  - /mnt/c\n  - -1\n  - key: !!str *d\n...\n%YAML 1.2\n";
        assert_eq!(
            parts(text),
            vec![
                (S, "/mnt/a"),
                (S, "b"),
                (S, "v"),
                (S, "w"),
                (S, "/mnt/c"),
                (S, "-1")
            ]
        );
    }

    #[test]
    fn block_scalars() {
        let text = "run: |\n  python train.py \\\n    --data /mnt/d  # kept\n\n  echo \"x\"\n\nnext: >-2 # header comment\n    folded\nlast:\n  - |+\n    item\n  - plain\n";
        assert_eq!(
            parts(text),
            vec![
                (
                    S,
                    "  python train.py \\\n    --data /mnt/d  # kept\n\n  echo \"x\""
                ),
                (C, "# header comment"),
                (S, "    folded"),
                (S, "    item"),
                (S, "plain")
            ]
        );
        // Not a header: `>=` starts a plain scalar.
        assert_eq!(parts("v: >=1.0"), vec![(S, ">=1.0")]);
    }

    #[test]
    fn quoted_scalars_span_lines() {
        let text = "a: \"x\n  # y \\\" z\"\nb: 'unterminated\n# c";
        assert_eq!(
            parts(text),
            vec![(S, "x\n  # y \\\" z"), (S, "unterminated\n# c")]
        );
        assert_eq!(
            parts("a: b # c\r\nd: e\r\n"),
            vec![(S, "b"), (C, "# c"), (S, "e")]
        );
        assert_eq!(parts("k: a#b"), vec![(S, "a#b")]);
    }
}
