//! Regexes of the rule file compiled on first use. `host-path`'s options are case-insensitive
//! and Unicode-aware (`(?i)…\w`), whose automata take most of a one-file run's start-up to
//! build (about half of the instructions of a run on one staged spec) while most runs never
//! reach a value they are asked about. The syntax is checked when the rule compiles, so a bad
//! pattern is still the rule file's error at once.

use std::fmt;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};

/// What a [`Lazy`] compiles to.
pub trait Compiled: Sized {
    fn compile(patterns: &[String]) -> Result<Self, regex::Error>;
    fn matches(&self, text: &str) -> bool;
}

impl Compiled for Regex {
    fn compile(patterns: &[String]) -> Result<Self, regex::Error> {
        Regex::new(patterns.first().map_or("", String::as_str))
    }

    fn matches(&self, text: &str) -> bool {
        self.is_match(text)
    }
}

impl Compiled for RegexSet {
    fn compile(patterns: &[String]) -> Result<Self, regex::Error> {
        RegexSet::new(patterns)
    }

    fn matches(&self, text: &str) -> bool {
        self.is_match(text)
    }
}

/// Whether a [`Lazy`]'s patterns are parsed when it is made (a rule file's: a mistake is its
/// error at once) or trusted (a built-in rule's, which a test parses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Check,
    Trusted,
}

/// A regex (or a set of them) compiled when first matched.
pub struct Lazy<T> {
    patterns: Vec<String>,
    compiled: OnceLock<Option<T>>,
}

impl<T: Compiled> Lazy<T> {
    /// `patterns`, their syntax checked now unless trusted: the error says which is bad.
    pub fn new(patterns: Vec<String>, syntax: Syntax) -> Result<Lazy<T>, String> {
        for pattern in patterns.iter().filter(|_| syntax == Syntax::Check) {
            regex_syntax::Parser::new()
                .parse(pattern)
                .map_err(|e| format!("{pattern:?}: {e}"))?;
        }
        Ok(Lazy {
            patterns,
            compiled: OnceLock::new(),
        })
    }

    /// Whether `text` matches; a pattern past the regex engine's size limit (which only
    /// compiling tells) matches nothing.
    pub fn is_match(&self, text: &str) -> bool {
        self.compiled
            .get_or_init(|| T::compile(&self.patterns).ok())
            .as_ref()
            .is_some_and(|c| c.matches(text))
    }
}

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lazy").field(&self.patterns).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_on_first_match_and_checks_syntax_at_once() {
        let set: Lazy<RegexSet> = Lazy::new(vec![r"(?i)\bsandbox_".into()], Syntax::Check).unwrap();
        assert!(set.compiled.get().is_none());
        assert!(set.is_match("SANDBOX_home"));
        assert!(!set.is_match("home"));
        assert!(set.compiled.get().is_some());
        let bad = Lazy::<Regex>::new(vec!["(unclosed".into()], Syntax::Check).unwrap_err();
        assert!(bad.contains("(unclosed"), "{bad}");
        // Trusted: parsed only when first matched, and then matches nothing.
        let trusted = Lazy::<Regex>::new(vec!["(unclosed".into()], Syntax::Trusted).unwrap();
        assert!(!trusted.is_match("(unclosed"));
    }
}
