//! Offsets in a rule file's TOML string literals: an error inside a decoded string points at the
//! right character of the literal as written.

/// Where byte `offset` of the decoded value of the TOML string literal `raw` lies in `raw`.
pub(super) fn source_offset(raw: &str, offset: usize) -> usize {
    let (delimiter, basic) = if raw.starts_with("\"\"\"") {
        (3, true)
    } else if raw.starts_with("'''") {
        (3, false)
    } else if raw.starts_with('"') {
        (1, true)
    } else if raw.starts_with('\'') {
        (1, false)
    } else {
        return offset.min(raw.len());
    };
    let multiline = delimiter == 3;
    let bytes = raw.as_bytes();
    let mut i = delimiter;
    // A newline right after the opening delimiter of a multi-line string is not part of it.
    if multiline {
        if raw[i..].starts_with("\r\n") {
            i += 2;
        } else if raw[i..].starts_with('\n') {
            i += 1;
        }
    }
    let body_end = raw.len().saturating_sub(delimiter).max(i);
    let mut decoded = 0;
    while decoded < offset && i < body_end {
        if basic && bytes[i] == b'\\' {
            let hex = |digits: usize| {
                raw.get(i + 2..i + 2 + digits)
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                    .map_or(1, char::len_utf8)
            };
            match bytes.get(i + 1) {
                Some(b'u') => {
                    decoded += hex(4);
                    i += 6;
                }
                Some(b'U') => {
                    decoded += hex(8);
                    i += 10;
                }
                Some(b'x') => {
                    decoded += hex(2);
                    i += 4;
                }
                // A line-ending backslash drops the line break and the indentation after it.
                Some(b' ' | b'\t' | b'\r' | b'\n') if multiline => {
                    i += 1;
                    while i < body_end && matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
                        i += 1;
                    }
                }
                Some(_) => {
                    decoded += 1;
                    i += 2;
                }
                None => break,
            }
        } else {
            let len = raw[i..].chars().next().map_or(1, char::len_utf8);
            decoded += len;
            i += len;
        }
    }
    i.min(raw.len())
}

#[cfg(test)]
mod tests {
    use super::source_offset;

    fn at(raw: &str, offset: usize) -> &str {
        let i = source_offset(raw, offset);
        &raw[i..i + 1]
    }

    #[test]
    fn decoded_offsets_map_back_to_the_literal() {
        // `{` is byte 7 of the decoded `ééé {x}` (é is two bytes).
        assert_eq!(at(r#""\u00e9\u00e9\u00e9 {x}""#, 7), "{");
        assert_eq!(at("'''\nab {x}'''", 3), "{");
        assert_eq!(at(r#""a\"b}""#, 3), "}");
        assert_eq!(at("'abc'", 1), "b");
    }
}
