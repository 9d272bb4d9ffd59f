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

/// A pretty JSON formatter (two-space indent, byte-identical to serde_json's
/// `PrettyFormatter`) that also writes every [`is_dangerous`] character as a `\uXXXX` escape
/// (serde_json escapes only C0 controls), so JSON and SARIF output are inert on a terminal
/// whatever a linted file held. It can start at any nesting level, so a part of a document
/// rendered on its own (see [`write_json_at`]) matches the same part rendered in place.
#[derive(Default)]
pub struct SafeJsonFormatter {
    /// Nesting level of the line being written.
    level: usize,
    /// The container being closed had a value (serde_json's `has_value`).
    has_value: bool,
}

impl SafeJsonFormatter {
    /// A formatter for a value that sits at nesting `level` of a document.
    pub fn at_level(level: usize) -> SafeJsonFormatter {
        SafeJsonFormatter {
            level,
            has_value: false,
        }
    }
}

/// A line break and the indentation of nesting `level`, in one write.
pub fn write_newline_indent<W: ?Sized + std::io::Write>(
    writer: &mut W,
    level: usize,
) -> std::io::Result<()> {
    const SPACES: &[u8; 129] = &{
        let mut line = [b' '; 129];
        line[0] = b'\n';
        line
    };
    let width = 2 * level;
    if width < SPACES.len() {
        return writer.write_all(&SPACES[..width + 1]);
    }
    writer.write_all(b"\n")?;
    for _ in 0..level {
        writer.write_all(b"  ")?;
    }
    Ok(())
}

impl SafeJsonFormatter {
    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            write_newline_indent(w, self.level)?;
        }
        w.write_all(bracket)
    }

    /// Before an array item or an object key: a comma after the first, then a new line.
    fn next_line<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        write_newline_indent(w, self.level)
    }
}

impl serde_json::ser::Formatter for SafeJsonFormatter {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next_line(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next_line(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // Printable ASCII, the usual case, needs no look at characters.
        if fragment.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_dangerous(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// Writes `value` as pretty JSON with [`SafeJsonFormatter`], streaming.
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn std::io::Write,
    value: &T,
) -> std::io::Result<()> {
    // serde_json writes a token at a time: a concrete buffer in front of the `dyn` writer keeps
    // those small writes out of virtual calls.
    let mut buffered = std::io::BufWriter::with_capacity(64 * 1024, out);
    write_json_at(&mut buffered, 0, value)?;
    std::io::Write::flush(&mut buffered)
}

/// Writes `value` as [`write_json`] would where it sits at nesting `level` of a document.
pub fn write_json_at<W: std::io::Write, T: serde::Serialize + ?Sized>(
    out: &mut W,
    level: usize,
    value: &T,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, SafeJsonFormatter::at_level(level));
    value.serialize(&mut ser).map_err(std::io::Error::other)
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
