//! TOML and JSON: strings, comments (TOML), and code for the rest.
//!
//! Keys are code in both (a quoted key too, as in YAML): a string followed by `=` or `.` in
//! TOML (or inside a `[table]` header), by `:` in JSON. Single-line strings end with their line
//! when unterminated; TOML's multi-line strings with the file.

use super::{line_end, Regions};

/// A single-line string from its opening quote at `open`: (offset of the closing quote, offset
/// after it), or the end of the line twice. `escapes`: a backslash skips the next byte.
fn single_line(bytes: &[u8], open: usize, escapes: bool) -> (usize, usize) {
    let quote = bytes[open];
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if escapes => i += 2,
            b'\n' => break,
            b if b == quote => return (i, i + 1),
            _ => i += 1,
        }
    }
    let end = line_end(bytes, i.min(bytes.len()));
    (end, end)
}

/// A TOML multi-line string from its opening `"""` or `'''` at `open`: (content end, end). Up to
/// two quotes just before the closing three belong to the content.
fn multi_line(bytes: &[u8], open: usize) -> (usize, usize) {
    let n = bytes.len();
    let quote = bytes[open];
    let mut i = open + 3;
    while i < n {
        let b = bytes[i];
        if b == b'\\' && quote == b'"' {
            i += 2;
        } else if b == quote && bytes[i..].starts_with(&[quote; 3]) {
            let mut close = i;
            while close - i < 2 && bytes.get(close + 3) == Some(&quote) {
                close += 1;
            }
            return (close, close + 3);
        } else {
            i += 1;
        }
    }
    (n, n)
}

fn skip_blanks(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

pub(super) fn scan_toml(bytes: &[u8], out: &mut Regions) {
    let n = bytes.len();
    let mut i = 0;
    // Open `[` and `{` in values.
    let mut depth = 0usize;
    // Inside a `[table]` or `[[array]]` header.
    let mut header = false;
    while i < n {
        let b = bytes[i];
        match b {
            b'\n' => {
                i += 1;
                header = false;
            }
            b'#' => {
                let end = line_end(bytes, i);
                out.comment(i..end);
                i = end;
            }
            b'[' if depth == 0 && (header || was_line_blank(bytes, i)) => {
                header = true;
                i += 1;
            }
            b']' if header => {
                i += 1;
                if bytes.get(i) != Some(&b']') {
                    header = false;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'"' | b'\'' => {
                let triple = bytes[i..].starts_with(&[b; 3]);
                let (close, end) = if triple {
                    multi_line(bytes, i)
                } else {
                    single_line(bytes, i, b == b'"')
                };
                let after = skip_blanks(bytes, end);
                let key = !triple && (header || matches!(bytes.get(after), Some(b'=' | b'.')));
                if key {
                    out.code(end);
                } else {
                    let open = if triple { 3 } else { 1 };
                    out.string(i..end, i + open..close);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
}

/// Whether only blanks come before `at` on its line (looked at once per `[` at depth 0, and the
/// look stops at the first non-blank byte).
fn was_line_blank(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .find(|&&b| !matches!(b, b' ' | b'\t'))
        .is_none_or(|&b| b == b'\n')
}

pub(super) fn scan_json(bytes: &[u8], out: &mut Regions) {
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        if bytes[i] != b'"' {
            // Strings are the only thing to find.
            i = memchr::memchr(b'"', &bytes[i..]).map_or(n, |at| i + at);
            continue;
        }
        let (close, end) = single_line(bytes, i, true);
        let after = skip_blanks(bytes, end);
        if bytes.get(after) == Some(&b':') {
            out.code(end);
        } else {
            out.string(i..end, i + 1..close);
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use crate::text::{scan, Language, RegionKind};

    use RegionKind::{Code as K, Comment as C, String as S};

    fn parts(lang: Language, text: &str) -> Vec<(RegionKind, &str)> {
        scan(lang, text)
            .into_iter()
            .filter(|r| r.kind != K)
            .map(|r| (r.kind, &text[r.content]))
            .collect()
    }

    #[test]
    fn toml() {
        let text = "[tool.\"x.y\"]  # hdr\nname = \"run # 1\" # c\npath = '/mnt/a\\'\n\"q.k\".b = 1\nlist = [\n  [\"in\"],\n]\nm = \"\"\"\nline \\\"\"\" \"\"\"\"\nl = '''a'''''\n[[arr]]\nd = 1979-05-27\n";
        assert_eq!(
            parts(Language::Toml, text),
            vec![
                (C, "# hdr"),
                (S, "run # 1"),
                (C, "# c"),
                (S, "/mnt/a\\"),
                (S, "in"),
                (S, "\nline \\\"\"\" \""),
                (S, "a''"),
            ]
        );
        // Unterminated single-line strings end with their line.
        assert_eq!(
            parts(Language::Toml, "a = \"x\r\nb = 'y\n# c"),
            vec![(S, "x"), (S, "y"), (C, "# c")]
        );
    }

    #[test]
    fn json() {
        let text = "{\"path\": \"/mnt/a\", \"l\": [\"x\\\"y\", 1], \"k\" : \"#\"}";
        assert_eq!(
            parts(Language::Json, text),
            vec![(S, "/mnt/a"), (S, "x\\\"y"), (S, "#")]
        );
        assert_eq!(parts(Language::Json, "[\"abc\n1"), vec![(S, "abc")]);
    }
}
