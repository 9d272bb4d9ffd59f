//! A built-in text pattern's literal gate: the literals one of which begins every match, taken
//! from the parsed pattern, searched in a text before the pattern is compiled.
//!
//! Compiling `exp-secret`'s seven patterns took 4.7 M instructions, most of a pre-commit run
//! that lints one spec and its experiment, for texts that hold none of `hf_`, `AKIA`, `ghp_`,
//! `sk-`, `-----BEGIN ` (nearly all). A text without one of a pattern's literals cannot match
//! it, so the pattern is compiled only for a text that has one.

use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// The literals, one of which begins every match of a pattern (searched ignoring ASCII case,
/// which finds them all and a few more: a text with one still goes to the regex).
#[derive(Debug)]
pub(super) struct Gate {
    /// ASCII-lowercased, none the prefix of another.
    needles: Vec<Box<[u8]>>,
}

impl Gate {
    /// The gate of `source`: `None` when some match may begin with anything (a pattern that
    /// starts with a wide class, or matches the empty string).
    pub(super) fn of(source: &str) -> Option<Gate> {
        let hir = regex_syntax::Parser::new().parse(source).ok()?;
        // A finite sequence of prefixes: every match begins with one of them (exact or not);
        // the extractor's limits make it shorter or infinite, never wrong.
        let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
        let mut needles: Vec<Box<[u8]>> = seq
            .literals()?
            .iter()
            .map(|l| l.as_bytes().to_ascii_lowercase().into_boxed_slice())
            .collect();
        if needles.iter().any(|n| n.is_empty()) {
            return None;
        }
        needles.sort();
        // Sorted, a literal's extensions follow it: finding it finds them.
        needles.dedup_by(|later, kept| later.starts_with(kept));
        Some(Gate { needles })
    }

    /// Whether `text` holds one of the literals (ignoring ASCII case): if not, no match.
    pub(super) fn may_match(&self, text: &[u8]) -> bool {
        self.needles
            .iter()
            .any(|needle| contains_ignoring_ascii_case(text, needle))
    }
}

/// Whether `haystack` holds `needle` (lowercase), ignoring ASCII case. Each place its first
/// byte is found (by `memchr`) is compared: linear in the text for the few bytes of a literal.
fn contains_ignoring_ascii_case(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let upper = first.to_ascii_uppercase();
    let found = |at: usize| {
        haystack
            .get(at + 1..at + needle.len())
            .is_some_and(|after| after.eq_ignore_ascii_case(rest))
    };
    if upper == first {
        memchr::memchr_iter(first, haystack).any(found)
    } else {
        memchr::memchr2_iter(first, upper, haystack).any(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in text pattern has a gate, and the gate never says no to a text the
    /// pattern matches: the rules' own failing cases, and texts made of the literals.
    #[test]
    fn gates_keep_every_match() {
        let sources: Vec<String> = crate::rules::RuleSet::builtin()
            .expect("the built-in rules compile")
            .rules
            .iter()
            .flat_map(|rule| rule.checks.iter())
            .filter_map(|check| match &check.assertion {
                crate::rules::Assertion::Text { pattern, .. } => Some(pattern.as_str().into()),
                _ => None,
            })
            .collect();
        assert!(sources.len() >= 7, "{sources:?}");
        let texts = [
            "WANDB_API_KEY = \"0123456789abcdef0123456789abcdef01234567\"",
            "wandb.login(key='0123456789abcdef0123456789abcdef01234567')",
            "WandB.Login(Key = \"0123456789abcdef0123456789abcdef01234567\")",
            "token = hf_abcdefghijklmnopqrstuvwxyzabcdefgh",
            "hub:\n  token: hf_QpZkVbXwLmNrTsYuCdEfGhJaKoPiUyTrEwQl\n",
            "AKIAABCDEFGHIJKLMNOP A3TXABCDEFGHIJKLMNOP",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
            "sk-abcdefghijklmnopqrstuvwxyz0123456789",
            "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
        ];
        let gated: Vec<&String> = sources.iter().filter(|s| Gate::of(s).is_some()).collect();
        // exp-secret's token patterns at least (a pattern that may begin anywhere has none).
        assert!(gated.len() >= 5, "{gated:?}");
        for source in gated {
            let Some(gate) = Gate::of(source) else {
                continue;
            };
            let regex = regex::Regex::new(source).expect("compiles");
            for text in texts {
                if regex.is_match(text) {
                    assert!(gate.may_match(text.as_bytes()), "{source} on {text:?}");
                }
            }
            assert!(!gate.may_match(b"import os\nCORPUS = os.environ['DOCS_DIR']\n"));
        }
    }

    #[test]
    fn gates_of_odd_patterns() {
        // Matches anything, or the empty string: no gate.
        assert!(Gate::of(".").is_none());
        assert!(Gate::of("x*").is_none());
        assert!(Gate::of("[a-z]+").is_none());
        // Case-insensitive literals, alternations, a literal that extends another.
        let gate = Gate::of("(?i)abc|abcd|xyz").expect("a gate");
        assert_eq!(gate.needles.len(), 2);
        for yes in ["..ABC", "aBc", "zzXyZ"] {
            assert!(gate.may_match(yes.as_bytes()), "{yes}");
        }
        for no in ["ab", "xy", "", "a b c"] {
            assert!(!gate.may_match(no.as_bytes()), "{no}");
        }
        // Non-ASCII literals are searched byte for byte.
        let gate = Gate::of("é+x").expect("a gate");
        assert!(gate.may_match("aéx".as_bytes()));
        assert!(!gate.may_match("aÉx".as_bytes()));
    }
}
