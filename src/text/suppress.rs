//! Inline suppressions: `# forgelint: ignore[rule-a, rule-b] reason` in a comment.
//!
//! A directive is `forgelint:` right after a comment's `#` (and optional blanks), then blanks,
//! then `ignore[`, rule ids separated by commas (blanks allowed around them), `]`, and an
//! optional reason (the rest of the comment, trimmed). Any `#` inside a comment region may start
//! one (`x = 1  # noqa # forgelint: ignore[a]`). A rule id is ASCII letters, digits and
//! `-`, `_`, `.`, `/`, `:`. Anything else after `forgelint:` is a malformed directive, reported
//! with its span rather than ignored (a misspelt directive would otherwise silently suppress
//! nothing).
//!
//! Where it applies, as ruff's `# noqa` and ESLint's `disable-next-line` comments: a directive
//! in a comment after code covers that line only; a comment alone on its line covers the next
//! line (and its own, which holds nothing but the comment).

use std::ops::Range;

use super::{line_of, line_starts, Region, RegionKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// 0-based line of the comment.
    pub line: u32,
    /// The comment is alone on its line (only blanks before it): it covers the next line.
    /// After code, it covers its own line only.
    pub alone: bool,
    /// The rule ids named, each with its byte span in the text (to report an unused one exactly).
    pub rules: Vec<(String, Range<usize>)>,
    /// The whole `forgelint: ignore[...]` directive span.
    pub span: Range<usize>,
    pub reason: Option<String>,
}

impl Suppression {
    /// A trailing suppression on line L covers findings that start on line L; one alone on
    /// line L covers L and L+1.
    pub fn covers_line(&self, line: u32) -> bool {
        line == self.line || (self.alone && Some(line) == self.line.checked_add(1))
    }

    /// Whether it names `rule` and covers a finding starting on `line`.
    pub fn covers(&self, rule: &str, line: u32) -> bool {
        self.covers_line(line) && self.rules.iter().any(|(id, _)| id == rule)
    }
}

const MARKER: &str = "forgelint:";

fn is_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':')
}

/// Every directive in the comment regions, and every malformed one (its span and what is
/// wrong with it).
pub fn suppressions(
    text: &str,
    regions: &[Region],
) -> (Vec<Suppression>, Vec<(Range<usize>, String)>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut starts: Option<Vec<usize>> = None;
    for region in regions.iter().filter(|r| r.kind == RegionKind::Comment) {
        let Some(comment) = text.get(region.span.clone()) else {
            continue;
        };
        let line_start = text[..region.span.start].rfind('\n').map_or(0, |i| i + 1);
        let alone = text[line_start..region.span.start]
            .bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\x0c'));
        for (hash, _) in comment.match_indices('#') {
            let after = &comment[hash + 1..];
            let blanks = after.len() - after.trim_start_matches([' ', '\t']).len();
            if !after[blanks..].starts_with(MARKER) {
                continue;
            }
            let start = region.span.start + hash + 1 + blanks;
            let end = region.span.end;
            match directive(text, start, end) {
                Ok((rules, directive_end, reason)) => {
                    let starts = starts.get_or_insert_with(|| line_starts(text));
                    found.push(Suppression {
                        line: line_of(starts, start),
                        alone,
                        rules,
                        span: start..directive_end,
                        reason,
                    });
                }
                Err(problem) => problems.push(problem),
            }
        }
    }
    (found, problems)
}

type Parsed = (Vec<(String, Range<usize>)>, usize, Option<String>);

/// The directive from `start` (its `forgelint:`) to the comment's `end`.
fn directive(text: &str, start: usize, end: usize) -> Result<Parsed, (Range<usize>, String)> {
    let bytes = text.as_bytes();
    let malformed = |message: &str| Err((start..end, message.to_string()));
    let mut i = start + MARKER.len();
    while i < end && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    if !bytes[i..end].starts_with(b"ignore[") {
        return malformed("expected `forgelint: ignore[rule-id] reason`");
    }
    i += "ignore[".len();
    let mut rules = Vec::new();
    loop {
        while i < end && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let id_start = i;
        while i < end && is_id_byte(bytes[i]) {
            i += 1;
        }
        let id = &text[id_start..i];
        while i < end && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        match bytes.get(i).filter(|_| i < end) {
            Some(b',' | b']') if id.is_empty() => {
                return malformed("empty rule id in `forgelint: ignore[...]`");
            }
            Some(b',') => {
                rules.push((id.to_string(), id_start..id_start + id.len()));
                i += 1;
            }
            Some(b']') => {
                rules.push((id.to_string(), id_start..id_start + id.len()));
                i += 1;
                break;
            }
            Some(_) => {
                return malformed(
                    "a rule id is letters, digits, `-`, `_`, `.`, `/` or `:`, separated by commas",
                );
            }
            None => return malformed("unclosed `forgelint: ignore[` (expected `]`)"),
        }
    }
    let reason = text[i..end].trim();
    let reason = (!reason.is_empty()).then(|| reason.to_string());
    Ok((rules, i, reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{scan, Language};

    fn run(lang: Language, text: &str) -> (Vec<Suppression>, Vec<(Range<usize>, String)>) {
        suppressions(text, &scan(lang, text))
    }

    #[test]
    fn directives() {
        let text = "x = 1\n# forgelint: ignore[host-path, b_2]  because  \ny = '/mnt/a'  #forgelint:ignore[c] # forgelint: ignore[d]\n";
        let (found, problems) = run(Language::Python, text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].line, 1);
        let ids: Vec<&str> = found[0].rules.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["host-path", "b_2"]);
        assert_eq!(&text[found[0].rules[1].1.clone()], "b_2");
        assert_eq!(
            &text[found[0].span.clone()],
            "forgelint: ignore[host-path, b_2]"
        );
        assert_eq!(found[0].reason.as_deref(), Some("because"));
        assert_eq!(found[1].line, 2);
        assert_eq!(found[1].reason.as_deref(), Some("# forgelint: ignore[d]"));
        assert_eq!(found[2].rules[0].0, "d");
        assert_eq!(found[2].reason, None);
        // Alone on line 1: lines 1 and 2. After code on line 2: line 2 only.
        assert!(found[0].alone && !found[1].alone && !found[2].alone);
        assert!(found[0].covers("b_2", 1) && found[0].covers("b_2", 2));
        assert!(!found[0].covers("b_2", 3) && !found[0].covers("c", 2));
        assert!(!found[0].covers("b_2", 0));
        assert!(found[1].covers("c", 2) && !found[1].covers("c", 3));
    }

    /// A trailing directive never reaches the next line, in any language with `#` comments;
    /// one alone on its line (indented or not) does.
    #[test]
    fn trailing_covers_its_line_alone_covers_the_next() {
        for (lang, text) in [
            (
                Language::Python,
                "A = 'ok'  # forgelint: ignore[r] x\nB = '/data/x'\n",
            ),
            (
                Language::Shell,
                "a=ok # forgelint: ignore[r] x\nb=/data/x\n",
            ),
            (
                Language::Yaml,
                "a: ok  # forgelint: ignore[r] x\nb: /data/x\n",
            ),
            (
                Language::Toml,
                "a = 'ok'  # forgelint: ignore[r] x\r\nb = '/data/x'\r\n",
            ),
        ] {
            let (found, _) = run(lang, text);
            assert_eq!(found.len(), 1, "{text}");
            assert!(!found[0].alone, "{text}");
            assert!(
                found[0].covers("r", 0) && !found[0].covers("r", 1),
                "{text}"
            );
        }
        for text in [
            "# forgelint: ignore[r] x\nB = '/data/x'\n",
            "def f():\n    # forgelint: ignore[r] x\n    return '/data/x'\n",
            "x = 1\n\t# noqa # forgelint: ignore[r] x\ny = 2\n",
        ] {
            let (found, _) = run(Language::Python, text);
            let line = found[0].line;
            assert!(found[0].alone, "{text}");
            assert!(found[0].covers("r", line + 1) && !found[0].covers("r", line + 2));
        }
    }

    #[test]
    fn only_in_comments() {
        let text = "s = '# forgelint: ignore[a]'\n";
        assert_eq!(run(Language::Python, text), (vec![], vec![]));
        assert_eq!(
            run(Language::Json, "{\"# forgelint: ignore[a]\": 1}"),
            (vec![], vec![])
        );
        let (found, _) = run(
            Language::Shell,
            "echo x # forgelint: ignore[a]\necho a#forgelint:ignore[b]",
        );
        assert_eq!(found.len(), 1);
        let (found, _) = run(Language::Yaml, "k: v # forgelint: ignore[a] why\r\n");
        assert_eq!(found[0].reason.as_deref(), Some("why"));
    }

    #[test]
    fn malformed() {
        for (text, message) in [
            ("# forgelint: ignore[a", "unclosed"),
            ("# forgelint: ignore[]", "empty"),
            ("# forgelint: ignore[a,]", "empty"),
            ("# forgelint: ignore[a b]", "separated"),
            ("# forgelint: ignroe[a]", "expected"),
            ("# forgelint:", "expected"),
        ] {
            let (found, problems) = run(Language::Toml, text);
            assert!(found.is_empty(), "{text}");
            assert_eq!(problems.len(), 1, "{text}");
            assert!(problems[0].1.contains(message), "{text}: {}", problems[0].1);
            assert_eq!(&text[problems[0].0.clone()], &text[2..]);
        }
    }
}
