//! What a rule file says about fixing its findings (`fix = …`, `fix-safety = …`), compiled.
//! The edits themselves are made per finding by the fixer (`fix::edits`).

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::Predicate;
use crate::diagnostic::Safety;

/// The facts a `set` template may name.
pub const FIX_PLACEHOLDERS: [&str; 5] = [
    "catalog.name",
    "catalog.version",
    "catalog.digest",
    "catalog.runtime_id",
    "platform.kind",
];

/// One piece of a `set` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    /// An index into [`FIX_PLACEHOLDERS`].
    Fact(usize),
}

#[derive(Debug, Clone)]
pub enum FixAction {
    /// Drop the member (or array item), with its comma.
    Remove,
    /// Replace the value with this string (templates over catalog facts and the config).
    Set(Vec<Piece>),
    /// Lower-case the string, when that alone satisfies `must_pass` (the check's predicate).
    Lowercase { must_pass: Option<Predicate> },
    /// Rename the key to the did-you-mean suggestion, when there is exactly one and the object
    /// has no such key yet.
    RenameToSuggestion,
}

#[derive(Debug, Clone)]
pub struct FixSpec {
    pub action: FixAction,
    pub safety: Safety,
}

/// `fix` as written: a name, or a table with `set`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RawFix {
    Named(String),
    Set { set: String },
}

/// The fix names, for errors and did-you-mean.
pub const FIX_NAMES: [&str; 3] = ["remove", "lowercase", "rename-to-suggestion"];

/// Parses a `set` template: `{catalog.version}` and the like, `{{` and `}}` for braces. The
/// error is the byte range (in the template) and the message.
pub fn parse_set(template: &str) -> Result<Vec<Piece>, (Range<usize>, String)> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = template.char_indices().peekable();
    while let Some((at, c)) = rest.next() {
        match c {
            '{' if rest.peek().is_some_and(|(_, n)| *n == '{') => {
                rest.next();
                text.push('{');
            }
            '}' if rest.peek().is_some_and(|(_, n)| *n == '}') => {
                rest.next();
                text.push('}');
            }
            '{' => {
                let close = template[at..]
                    .find('}')
                    .map(|i| at + i)
                    .ok_or((at..template.len(), "`{` is not closed".to_string()))?;
                let name = &template[at + 1..close];
                let index = FIX_PLACEHOLDERS.iter().position(|p| *p == name).ok_or((
                    at..close + 1,
                    format!(
                        "unknown fact `{name}` in a fix; known: {}",
                        FIX_PLACEHOLDERS.join(", ")
                    ),
                ))?;
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Fact(index));
                while rest.peek().is_some_and(|(i, _)| *i <= close) {
                    rest.next();
                }
            }
            '}' => return Err((at..at + 1, "a lone `}`: write `}}`".to_string())),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// `fix-safety` as written.
pub fn parse_safety(raw: &Spanned<String>) -> Option<Safety> {
    match raw.get_ref().as_str() {
        "safe" => Some(Safety::Safe),
        "unsafe" => Some(Safety::Unsafe),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_templates_name_known_facts() {
        assert_eq!(
            parse_set("forge/v2").unwrap(),
            vec![Piece::Text("forge/v2".into())]
        );
        assert_eq!(
            parse_set("v{catalog.version}-{{x}}").unwrap(),
            vec![
                Piece::Text("v".into()),
                Piece::Fact(1),
                Piece::Text("-{x}".into())
            ]
        );
        assert_eq!(parse_set("{platform.kind}").unwrap(), vec![Piece::Fact(4)]);
        assert!(parse_set("{catalog.versio}").is_err());
        assert!(parse_set("{catalog.version").is_err());
        assert!(parse_set("a}b").is_err());
        assert_eq!(parse_set("").unwrap(), vec![]);
    }
}
