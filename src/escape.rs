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

/// Characters a reader cannot see, or cannot tell from a plain space: Unicode `White_Space`
/// other than U+0020, and the format characters (general category `Cf`: zero-width spaces and
/// joiners, soft hyphen, byte order mark, tags, …). Unicode 15.1; the controls and bidi
/// controls among them are [`is_dangerous`] as well.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        // White_Space other than U+0020 (TAB to CR and U+0085 are controls).
        '\u{09}'..='\u{0D}' | '\u{85}' | '\u{A0}' | '\u{1680}' | '\u{2000}'..='\u{200A}'
        | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
        // General category Cf.
        | '\u{AD}' | '\u{600}'..='\u{605}' | '\u{61C}' | '\u{6DD}' | '\u{70F}'
        | '\u{890}'..='\u{891}' | '\u{8E2}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}'
        | '\u{13430}'..='\u{1343F}' | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0001}' | '\u{E0020}'..='\u{E007F}')
}

/// Shown as a `\u{…}` escape in a message: [`is_dangerous`] or [`is_invisible`].
#[inline]
fn needs_escape(c: char) -> bool {
    is_dangerous(c) || is_invisible(c)
}

/// Writes `c` as a Rust-style escape, `\u{a0}`: unambiguous next to hex digits that follow.
fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// A byte of printable ASCII (space to `~`): of the ASCII characters, the others are the
/// controls, which [`is_dangerous`] refuses.
#[inline]
fn is_printable_ascii(b: u8) -> bool {
    (0x20..0x7F).contains(&b)
}

/// A value from a linted file, quoted and escaped for a message: `"a\u{1b}[2J"`,
/// `"grpo\u{a0}run"`. Long values are
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
            c if needs_escape(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text shown as is (a path, a message), with dangerous and invisible characters made visible
/// as `\u{…}`.
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().all(is_printable_ascii) || !s.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            push_escape(&mut out, c);
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
                    if needs_escape(c) {
                        format!("\\u{{{:x}}}", c as u32)
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
        for s in [
            "é",
            "a\u{202E}b",
            "日本語のテキスト",
            "x\u{85}",
            "grpo\u{a0}run",
            "a\u{200b}\u{feff}b\u{3000}",
        ] {
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
