//! Text into HTML. Every value that reaches the page (a path, a message, a rule id or help from a
//! user's rule file, a line of a linted file) comes from outside: it is escaped for text and
//! attributes alike, and its invisible or dangerous characters are shown as `\u{…}` escapes, as
//! the other formats show them.

use std::fmt;

use crate::escape::visible;

/// Displays `0` as text safe both between tags and inside a double- or single-quoted attribute,
/// with invisible characters made visible.
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        escape_into(f, &visible(self.0))
    }
}

/// [`Esc`] of at most `max` characters, with `…` when cut: a value has no business making the
/// page large (messages quote values already cut, but a user's rule may not).
pub struct EscCut<'a>(pub &'a str, pub usize);

impl fmt::Display for EscCut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = visible(self.0);
        match shown.char_indices().nth(self.1) {
            Some((at, _)) => {
                escape_into(f, &shown[..at])?;
                f.write_str("…")
            }
            None => escape_into(f, &shown),
        }
    }
}

/// Writes `s` with the five characters that HTML gives a meaning escaped.
pub fn escape_into(out: &mut impl fmt::Write, s: &str) -> fmt::Result {
    let mut from = 0;
    for (at, b) in s.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.write_str(&s[from..at])?;
        out.write_str(entity)?;
        from = at + 1;
    }
    out.write_str(&s[from..])
}

/// `12345678` as `12,345,678`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n word`, with an `s` unless `n` is 1, the number with thousands separators.
pub fn count(n: usize, word: &str) -> String {
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_breaks_out_of_text_or_attributes() {
        let hostile = "</details><script>alert(\"x\")</script>' onload='x'&amp;";
        let shown = Esc(hostile).to_string();
        for raw in ['<', '>', '"', '\''] {
            assert!(!shown.contains(raw), "{shown}");
        }
        assert_eq!(
            shown,
            "&lt;/details&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x&#39;&amp;amp;"
        );
    }

    #[test]
    fn invisible_and_control_characters_are_shown_as_escapes() {
        assert_eq!(
            Esc("a\u{1b}[2J\u{202e}b\u{a0}").to_string(),
            "a\\u{1b}[2J\\u{202e}b\\u{a0}"
        );
    }

    #[test]
    fn cut_values_end_with_an_ellipsis_and_stay_escaped() {
        assert_eq!(EscCut("<<<<<", 3).to_string(), "&lt;&lt;&lt;…");
        assert_eq!(EscCut("é<", 5).to_string(), "é&lt;");
    }

    #[test]
    fn numbers_get_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
        assert_eq!(count(1, "file"), "1 file");
        assert_eq!(count(1500, "file"), "1,500 files");
    }
}
