//! Making text from a linted file safe to print. A value can hold terminal escapes, bidi
//! overrides or line breaks; every one is shown as a visible escape, never passed through.

/// Characters that must never reach a terminal or a log raw: C0/C1 controls, DEL, bidi controls,
/// and the Unicode line/paragraph separators.
pub fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
            | '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// A byte of printable ASCII (space to `~`): of the ASCII characters, the others are the
/// controls, which [`is_dangerous`] refuses.
#[inline]
fn is_printable_ascii(b: u8) -> bool {
    (0x20..0x7F).contains(&b)
}

/// A value from a linted file, quoted and escaped for a message: `"a\u001b[2J"`. Long values are
/// cut to `max_chars` characters with `…`.
pub fn quote(s: &str, max_chars: usize) -> String {
    // Printable ASCII without quotes or backslashes, short enough: as it is (most values).
    if s.len() <= max_chars
        && s.bytes()
            .all(|b| is_printable_ascii(b) && b != b'"' && b != b'\\')
    {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return out;
    }
    quote_by_chars(s, max_chars)
}

/// [`quote`], a character at a time.
fn quote_by_chars(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars * 2) + 2);
    out.push('"');
    for (n, c) in s.chars().enumerate() {
        if n == max_chars {
            out.push('…');
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_dangerous(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text shown as is (a path, a message), with dangerous characters made visible as `\u{…}`.
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().all(is_printable_ascii) || !s.chars().any(is_dangerous) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_dangerous(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// For a code frame: one visible character per dangerous one, so the frame keeps its shape.
/// C0 controls become their Unicode "control picture" (ESC → ␛); others become `�`.
pub fn picture(c: char) -> Option<char> {
    match c {
        '\t' | '\n' => None,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('␡'),
        c if is_dangerous(c) => Some('�'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The printable-ASCII shortcuts of `quote` and `visible` give what the escaping loops
    /// give: every ASCII byte, alone and in the middle of text, at lengths around the cut.
    #[test]
    fn ascii_shortcuts_agree_with_the_escaping_loops() {
        fn visible_by_chars(s: &str) -> String {
            s.chars()
                .map(|c| {
                    if is_dangerous(c) {
                        format!("\\u{:04x}", c as u32)
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        }
        for b in 0..0x80u8 {
            let c = b as char;
            for s in [
                c.to_string(),
                format!("ab{c}cd"),
                format!("{c}{c}{c}{c}{c}"),
            ] {
                for max in [1, 3, 5, 6, 80] {
                    assert_eq!(
                        quote(&s, max),
                        quote_by_chars(&s, max),
                        "{s:?} cut at {max}"
                    );
                }
                assert_eq!(visible(&s), visible_by_chars(&s), "{s:?}");
            }
        }
        for s in ["é", "a\u{202E}b", "日本語のテキスト", "x\u{85}"] {
            assert_eq!(quote(s, 3), quote_by_chars(s, 3), "{s:?}");
            assert_eq!(visible(s), visible_by_chars(s), "{s:?}");
        }
    }

    #[test]
    fn nothing_dangerous_survives() {
        let hostile = "a\u{1b}]8;;x\u{7}\n::error::x\u{202e}b";
        for out in [quote(hostile, 100), visible(hostile).into_owned()] {
            assert!(!out.chars().any(is_dangerous), "{out:?}");
            assert!(
                out.contains("::error::x"),
                "the value stays recognisable: {out}"
            );
        }
        assert_eq!(quote("abcdef", 3), "\"abc…\"");
        assert_eq!(picture('\u{1b}'), Some('␛'));
    }
}
