//! Python: `#` comments and string literals with their prefixes.
//!
//! An f-string is one String region, braces included, ended by its own closing quote (the
//! pre-3.12 reading: a replacement field reusing the f-string's own quote ends it early).
//! A backslash always skips the byte after it, in raw strings too (CPython's tokenizer keeps
//! `r"\""` going), so a backslash-newline continues a single-quoted string.

use super::{line_end, Regions};

/// Prefixes a string literal may carry (any case): `r`, `u`, `b`, `f`, `t` and pairs.
fn is_prefix(word: &[u8]) -> bool {
    if word.len() > 2 {
        return false;
    }
    let lower: Vec<u8> = word.iter().map(u8::to_ascii_lowercase).collect();
    matches!(
        lower.as_slice(),
        b"r" | b"u" | b"b" | b"f" | b"t" | b"rb" | b"br" | b"fr" | b"rf" | b"tr" | b"rt"
    )
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

pub(super) fn scan(bytes: &[u8], out: &mut Regions) {
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        match bytes[i] {
            b'#' => {
                let end = line_end(bytes, i);
                out.comment(i..end);
                i = end;
            }
            b'\\' => i += 2,
            b'\'' | b'"' => i = string(bytes, i, i, out),
            b if is_ident(b) => {
                let start = i;
                while i < n && is_ident(bytes[i]) {
                    i += 1;
                }
                if i < n && matches!(bytes[i], b'\'' | b'"') && is_prefix(&bytes[start..i]) {
                    i = string(bytes, start, i, out);
                }
            }
            _ => i += 1,
        }
    }
}

/// The literal whose prefix starts at `start` and whose opening quote is at `quote_at`; returns
/// the offset after it.
fn string(bytes: &[u8], start: usize, quote_at: usize, out: &mut Regions) -> usize {
    let n = bytes.len();
    let quote = bytes[quote_at];
    let triple = bytes.get(quote_at + 1) == Some(&quote) && bytes.get(quote_at + 2) == Some(&quote);
    let open = if triple { 3 } else { 1 };
    let content_start = quote_at + open;
    let mut i = content_start;
    while i < n {
        let b = bytes[i];
        if b == b'\\' {
            i += 2;
        } else if b == quote {
            if !triple {
                out.string(start..i + 1, content_start..i);
                return i + 1;
            }
            if bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) {
                out.string(start..i + 3, content_start..i);
                return i + 3;
            }
            i += 1;
        } else if b == b'\n' && !triple {
            // Unterminated: the literal ends with its line.
            let end = line_end(bytes, i);
            out.string(start..end, content_start..end);
            return end;
        } else {
            i += 1;
        }
    }
    out.string(start..n, content_start..n);
    n
}

#[cfg(test)]
mod tests {
    use crate::text::{scan, Language, RegionKind};

    /// (kind, content) of every region that is not code.
    pub(crate) fn parts(text: &str) -> Vec<(RegionKind, &str)> {
        scan(Language::Python, text)
            .into_iter()
            .filter(|r| r.kind != RegionKind::Code)
            .map(|r| (r.kind, &text[r.content]))
            .collect()
    }

    use RegionKind::{Comment as C, String as S};

    #[test]
    fn strings_and_comments() {
        let text = "x = '/mnt/a'  # read '/mnt/b'\ny = \"q\\\"x\" + r'\\d' + B\"b\"\n";
        assert_eq!(
            parts(text),
            vec![
                (S, "/mnt/a"),
                (C, "# read '/mnt/b'"),
                (S, "q\\\"x"),
                (S, "\\d"),
                (S, "b")
            ]
        );
    }

    #[test]
    fn prefixes_and_triples() {
        let text = "a = Rb'x' + f\"{d['k']:>4} {{}}\" + rf'''\n/mnt/z\n'''  # t\nverb\"s\"";
        let regions = scan(Language::Python, text);
        let p = parts(text);
        assert_eq!(p[0], (S, "x"));
        assert_eq!(p[1], (S, "{d['k']:>4} {{}}"));
        assert_eq!(p[2], (S, "\n/mnt/z\n"));
        assert_eq!(p[3], (C, "# t"));
        // `verb` is no prefix: the literal starts at its quote.
        assert_eq!(p[4], (S, "s"));
        let last = regions.iter().rfind(|r| r.kind == S).unwrap();
        assert_eq!(&text[last.span.clone()], "\"s\"");
        // The prefix belongs to the span.
        let first = regions.iter().find(|r| r.kind == S).unwrap();
        assert_eq!(&text[first.span.clone()], "Rb'x'");
    }

    #[test]
    fn docstrings_hold_hashes_and_quotes() {
        let text = "def f():\n    \"\"\"Use '/mnt/x' # not a comment \"\"\"\n    return 1 # c\n";
        assert_eq!(
            parts(text),
            vec![(S, "Use '/mnt/x' # not a comment "), (C, "# c")]
        );
    }

    #[test]
    fn unterminated_and_continuations() {
        // A single-quoted literal ends with its line; a triple one with the file.
        assert_eq!(parts("x = 'abc\ny = 1 # c"), vec![(S, "abc"), (C, "# c")]);
        assert_eq!(parts("x = 'abc\r\ny"), vec![(S, "abc")]);
        assert_eq!(parts("x = '''abc\n# no"), vec![(S, "abc\n# no")]);
        assert_eq!(parts("x = 'a\\\nb' # c"), vec![(S, "a\\\nb"), (C, "# c")]);
        assert_eq!(parts("x = 1 + \\\n  2 # c"), vec![(C, "# c")]);
        assert_eq!(parts("'\\"), vec![(S, "\\")]);
        assert_eq!(parts("r'\\'"), vec![(S, "\\'")]);
        assert_eq!(parts("''"), vec![(S, "")]);
        assert_eq!(parts("'''''"), vec![(S, "''")]);
    }
}
