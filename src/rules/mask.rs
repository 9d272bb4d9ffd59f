//! The secret detector of a rule set ([`crate::secrets`]): the text patterns of its rules with
//! `mask = true`, and of the built-in ones whatever the set holds (a run that selects no
//! built-in rule, or a rule file's docs, still masks what `exp-secret` finds).

use std::sync::Arc;

use super::pattern::SIZE_LIMIT;
use super::{compile_rule, Assertion, Rule, TextPattern, BUILTIN};
use crate::secrets::{Detector, SecretPattern};

/// The detector of the rules with `mask = true` among `rules`, and of the built-in ones.
pub fn secret_detector<'r>(rules: impl IntoIterator<Item = &'r Rule>) -> Detector {
    let mut patterns: Vec<Arc<dyn SecretPattern>> = Vec::new();
    let mut has_builtin = false;
    for rule in rules.into_iter().filter(|r| r.mask) {
        // The built-in rules are loaded together: one of them stands for all.
        has_builtin |= rule.origin.builtin;
        patterns.extend(text_patterns(rule));
    }
    if !has_builtin {
        patterns.extend(builtin_patterns());
    }
    Detector::new(patterns, SIZE_LIMIT)
}

/// The text patterns of `rule`'s checks.
fn text_patterns(rule: &Rule) -> impl Iterator<Item = Arc<dyn SecretPattern>> + '_ {
    rule.checks
        .iter()
        .filter_map(|check| match &check.assertion {
            Assertion::Text { pattern, .. } => {
                Some(Arc::new(pattern.clone()) as Arc<dyn SecretPattern>)
            }
            _ => None,
        })
}

/// The text patterns of the built-in rules with `mask = true`, compiled from their files (their
/// patterns are compiled on first use).
fn builtin_patterns() -> Vec<Arc<dyn SecretPattern>> {
    let mut patterns = Vec::new();
    for (name, text) in BUILTIN {
        // Only a rule file that says `mask = true` is compiled here (the rest cannot add a
        // pattern); the rule itself decides.
        if !text.lines().any(|l| l.trim_start().starts_with("mask")) {
            continue;
        }
        // Every built-in rule compiles (the rule-case tests compile them all).
        let Ok(rule) = compile_rule(&format!("rules/{name}"), Arc::from(*text), true) else {
            continue;
        };
        if rule.mask {
            patterns.extend(text_patterns(&rule));
        }
    }
    patterns
}

/// The detector masks every match of a pattern, its keywords and filters aside (see
/// [`TextPattern::secrets`]).
impl SecretPattern for TextPattern {
    fn source(&self) -> &str {
        self.as_str()
    }

    fn regex(&self) -> &regex::Regex {
        self.pattern().regex()
    }

    fn secret_spans(&self, text: &str, out: &mut Vec<std::ops::Range<usize>>) {
        self.secrets(text, out);
    }

    fn same_source_same_secrets(&self) -> bool {
        !self.decodes()
    }

    fn may_match(&self, text: &str) -> bool {
        self.pattern().may_match(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_detector_is_the_mask_rules_patterns() {
        let set = crate::rules::RuleSet::builtin().unwrap();
        let mut expected: Vec<String> = set
            .rules
            .iter()
            .filter(|r| r.mask)
            .flat_map(text_patterns)
            .map(|p| p.source().to_string())
            .collect();
        let mut got: Vec<String> = builtin_patterns()
            .iter()
            .map(|p| p.source().to_string())
            .collect();
        expected.sort();
        got.sort();
        assert!(!got.is_empty());
        assert_eq!(got, expected);
        // The whole set's detector and the built-in one mask alike.
        let text = "t = \"ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123\"";
        assert_eq!(
            secret_detector(&set.rules).mask(text),
            secret_detector([]).mask(text)
        );
        assert_eq!(secret_detector([]).mask(text), "t = \"ghp_…\"");
    }

    /// A team's rule with `mask = true` adds its pattern to the built-in ones.
    #[test]
    fn a_teams_mask_rule_adds_its_pattern() {
        let text = r#"
id = "team-token"
severity = "error"
summary = "A team token"
message = "a team token"
target = "text"
mask = true
[[check]]
pattern = '\btt_[a-z]{12}\b'
"#;
        let rule = compile_rule("team.toml", Arc::from(text), false);
        let Ok(rule) = rule else {
            panic!("{:?}", rule.err())
        };
        let detector = secret_detector([&rule]);
        assert_eq!(
            detector.mask("a tt_abcdefghijkl and hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj"),
            "a tt_a… and hf_A…"
        );
    }
}
