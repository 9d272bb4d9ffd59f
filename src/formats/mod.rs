//! Experiment config files in YAML, TOML or JSON, converted to the same [`Document`] the JSON
//! parser builds, so the rule engine lints them alike: every key and value keeps the byte span
//! of its text in the file.

pub mod compose;
mod toml;
mod yaml;
mod yaml_keys;

pub use yaml_keys::has_key_paths;

use std::borrow::Cow;
use std::path::Path;

use crate::json::{Document, ParseError};

pub use yaml::{MIN_NODE_BUDGET, NODES_PER_BYTE};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    Yaml,
    Toml,
    Json,
}

impl ConfigFormat {
    /// The format named by the file's extension (`.yaml`/`.yml`, `.toml`, `.json`, any case).
    pub fn of_path(path: &Path) -> Option<ConfigFormat> {
        let ext = path.extension()?.to_str()?;
        if ext.eq_ignore_ascii_case("yaml") || ext.eq_ignore_ascii_case("yml") {
            Some(ConfigFormat::Yaml)
        } else if ext.eq_ignore_ascii_case("toml") {
            Some(ConfigFormat::Toml)
        } else if ext.eq_ignore_ascii_case("json") {
            Some(ConfigFormat::Json)
        } else {
            None
        }
    }
}

/// One Document per YAML document (a multi-document file gives several, an empty one none);
/// TOML and JSON give one. The first error ends the parse.
pub fn parse_config<'s>(
    format: ConfigFormat,
    text: &'s str,
) -> Result<Vec<Document<'s>>, ParseError> {
    match format {
        ConfigFormat::Json => crate::json::parse(text).map(|doc| vec![doc]),
        ConfigFormat::Yaml => yaml::parse(text),
        ConfigFormat::Toml => toml::parse(text).map(|doc| vec![doc]),
    }
}

/// An error at byte `offset`, its message led by the line and column (1-based, in characters).
fn error_at(text: &str, offset: usize, message: impl std::fmt::Display) -> ParseError {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = 1 + before.bytes().filter(|&b| b == b'\n').count();
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = 1 + before[line_start..].chars().count();
    ParseError {
        offset,
        message: format!("line {line}, column {column}: {message}"),
    }
}

/// `s`, a decimal number with an optional sign, fraction and exponent (`+1`, `007`, `.5`, `1.`,
/// `1E3`), in JSON number syntax; borrowed when it already is. `None` when it is no number.
fn json_number(s: &str) -> Option<Cow<'_, str>> {
    let b = s.as_bytes();
    let mut at = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        at = 1;
    }
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_end = digits(at);
    let (int, mut frac) = (&s[at..int_end], None);
    let mut pos = int_end;
    if b.get(pos) == Some(&b'.') {
        let end = digits(pos + 1);
        frac = Some(&s[pos + 1..end]);
        pos = end;
    }
    if int.is_empty() && frac.is_none_or(str::is_empty) {
        return None;
    }
    let mut exp = "";
    if matches!(b.get(pos), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(pos + 1), Some(b'-' | b'+')));
        let end = digits(pos + 1 + sign);
        if end == pos + 1 + sign {
            return None;
        }
        exp = &s[pos..end];
        pos = end;
    }
    if pos != b.len() {
        return None;
    }
    let int = match int.trim_start_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    let mut out = String::with_capacity(s.len() + 2);
    if negative {
        out.push('-');
    }
    out.push_str(int);
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(if frac.is_empty() { "0" } else { frac });
    }
    out.push_str(exp);
    Some(if out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out)
    })
}

/// The decimal text of `digits` in `radix` (hex, octal, binary), if it fits 128 bits.
fn radix_number(digits: &str, radix: u32) -> Option<String> {
    let digits = digits.replace('_', "");
    u128::from_str_radix(&digits, radix)
        .ok()
        .map(|n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_become_json_syntax() {
        for (text, json) in [
            ("0", Some("0")),
            ("-12", Some("-12")),
            ("+1", Some("1")),
            ("007", Some("7")),
            ("-00", Some("-0")),
            (".5", Some("0.5")),
            ("1.", Some("1.0")),
            ("-1.5e+3", Some("-1.5e+3")),
            ("1E3", Some("1E3")),
            ("+.5e-2", Some("0.5e-2")),
            ("", None),
            ("+", None),
            (".", None),
            ("1e", None),
            ("1.2.3", None),
            ("0x1F", None),
            ("1 ", None),
            ("e3", None),
        ] {
            assert_eq!(json_number(text).as_deref(), json, "{text:?}");
            if let Some(json) = json {
                assert!(
                    crate::json::parse(&format!("{{\"n\": {json}}}")).is_ok(),
                    "{json}"
                );
            }
        }
        assert!(matches!(json_number("12.5"), Some(Cow::Borrowed(_))));
        assert_eq!(radix_number("1F", 16).as_deref(), Some("31"));
        assert_eq!(radix_number("1_0", 2).as_deref(), Some("2"));
        assert_eq!(radix_number(&"F".repeat(40), 16), None);
    }

    #[test]
    fn formats_by_extension() {
        for (path, format) in [
            ("a/b.yaml", Some(ConfigFormat::Yaml)),
            ("b.YML", Some(ConfigFormat::Yaml)),
            ("c.toml", Some(ConfigFormat::Toml)),
            ("d.json", Some(ConfigFormat::Json)),
            ("e.txt", None),
            ("yaml", None),
        ] {
            assert_eq!(ConfigFormat::of_path(Path::new(path)), format, "{path}");
        }
    }

    #[test]
    fn errors_name_their_line() {
        let err = error_at("a\nb\néc", 6, "bad");
        assert_eq!(
            (err.offset, err.message.as_str()),
            (6, "line 3, column 2: bad")
        );
    }
}
