//! Regexes and globs of the rule file compiled on first use. `host-path`'s options are
//! case-insensitive and Unicode-aware (`(?i)…\w`), whose automata take most of a one-file run's
//! start-up to build (about half of the instructions of a run on one staged spec), and its
//! `ignore` globs are a regex set too, while most runs never reach a value they are asked
//! about. The syntax is checked when the rule compiles, so a bad pattern is still the rule
//! file's error at once.

use std::fmt;
use std::sync::OnceLock;

use globset::GlobSet;
use regex::{Regex, RegexSet};

/// What a [`Lazy`] compiles to.
pub trait Compiled: Sized {
    /// Whether `pattern` is well formed, without compiling it.
    fn check(pattern: &str) -> Result<(), String>;
    /// The patterns compiled; an error when one is past the engine's size limit.
    fn compile(patterns: &[String]) -> Option<Self>;
    fn matches(&self, text: &str) -> bool;
}

fn check_regex(pattern: &str) -> Result<(), String> {
    regex_syntax::Parser::new()
        .parse(pattern)
        .map(drop)
        .map_err(|e| e.to_string())
}

impl Compiled for Regex {
    fn check(pattern: &str) -> Result<(), String> {
        check_regex(pattern)
    }

    fn compile(patterns: &[String]) -> Option<Self> {
        Regex::new(patterns.first().map_or("", String::as_str)).ok()
    }

    fn matches(&self, text: &str) -> bool {
        self.is_match(text)
    }
}

impl Compiled for RegexSet {
    fn check(pattern: &str) -> Result<(), String> {
        check_regex(pattern)
    }

    fn compile(patterns: &[String]) -> Option<Self> {
        RegexSet::new(patterns).ok()
    }

    fn matches(&self, text: &str) -> bool {
        self.is_match(text)
    }
}

/// Globs whose `*` stops at `/`.
fn glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
}

impl Compiled for GlobSet {
    fn check(pattern: &str) -> Result<(), String> {
        glob(pattern).map(drop).map_err(|e| e.to_string())
    }

    fn compile(patterns: &[String]) -> Option<Self> {
        let mut set = globset::GlobSetBuilder::new();
        for pattern in patterns {
            set.add(glob(pattern).ok()?);
        }
        set.build().ok()
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

/// A regex, a set of them or a set of globs, compiled when first matched.
pub struct Lazy<T> {
    patterns: Vec<String>,
    compiled: OnceLock<Option<T>>,
}

impl<T: Compiled> Lazy<T> {
    /// `patterns`, their syntax checked now unless trusted: the error says which is bad.
    pub fn new(patterns: Vec<String>, syntax: Syntax) -> Result<Lazy<T>, String> {
        for pattern in patterns.iter().filter(|_| syntax == Syntax::Check) {
            T::check(pattern).map_err(|e| format!("{pattern:?}: {e}"))?;
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
            .get_or_init(|| T::compile(&self.patterns))
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
