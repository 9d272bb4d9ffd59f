//! Compiled regular expressions for `matches` and `not-matches`.
//!
//! Most patterns in rule files are anchored runs of character classes (`^sha256:[0-9a-f]{64}$`,
//! `^[A-Za-z0-9][A-Za-z0-9._-]*/...`). A lazy DFA reads such a value at one dependent table
//! load per byte; [`Runs`] reads it as runs of bytes in a set, which is several times faster
//! on a 71-byte digest. It is used only where it gives exactly the regex's answer: for ASCII
//! text, and for pattern shapes where matching each run greedily cannot miss a match (see
//! [`Runs::from_hir`]). Everything else goes to the regex.

use std::sync::Arc;

use analysis::runs::{Branch, Run, Runs};

/// A compiled regular expression, with a copy per worker thread. A `regex::Regex` serves the
/// thread that used it first from a fast path and every other thread through a shared pool of
/// search caches; a copy per thread keeps each worker on the fast path. Copies are made on a
/// thread's first use, so a one-file run makes none.
///
/// A built-in rule's pattern is compiled on first use ([`Pattern::deferred`]): every one of them
/// has the run matcher, so on ASCII text the regex is never built, and building seven of them
/// was a third of a one-file run. A rule file's pattern is compiled when the file is loaded
/// ([`Pattern::new`]), so a pattern over the size limit is an error with the file's own span.
/// Clones share the compiled regex.
#[derive(Debug, Clone)]
pub struct Pattern(Arc<Compiled>);

#[derive(Debug)]
struct Compiled {
    source: Box<str>,
    regex: std::sync::OnceLock<regex::Regex>,
    copies: [std::sync::OnceLock<regex::Regex>; PATTERN_COPIES],
    /// The run matcher, if the pattern has that shape: made on first match, from the bytes
    /// `build.rs` wrote for a built-in rule's pattern, else from the pattern's parse (a
    /// twentieth of a one-file run, for patterns it may never ask).
    runs: std::sync::OnceLock<Option<Runs>>,
    /// A built-in text pattern's literals ([`Pattern::lazy`]): read on first use from the
    /// bytes `build.rs` wrote, searched before the regex is compiled or run. `None` inside: a
    /// match may begin anywhere.
    gate: Option<std::sync::OnceLock<Option<gate::Gate>>>,
}

pub mod analysis;
mod gate;

/// The built-in rules' patterns as `build.rs` analysed them ([`analysis::analysed_bytes`]):
/// each source, its run form and its literals, sorted by source.
type Prebuilt = (&'static str, Option<&'static [u8]>, Option<&'static [u8]>);
static PREBUILT: &[Prebuilt] = &include!(concat!(env!("OUT_DIR"), "/builtin_patterns.rs"));

/// Whether `source` was analysed at build time: every built-in rule's pattern is (the rule
/// compiler asserts it in debug builds, so a key `build.rs` does not read fails the tests).
pub fn is_prebuilt(source: &str) -> bool {
    prebuilt(source).is_some()
}

/// The analysis of `source` made at build time, if it is a built-in rule's pattern.
fn prebuilt(source: &str) -> Option<&'static Prebuilt> {
    let at = PREBUILT.binary_search_by(|p| p.0.cmp(source)).ok()?;
    PREBUILT.get(at)
}

/// Worker threads beyond this share the copies (still correct, just slower).
const PATTERN_COPIES: usize = 16;

/// The size limit of every compiled pattern (rule files are checked against it when loaded).
pub const SIZE_LIMIT: usize = 1 << 20;

/// Compiles `source` as every pattern is compiled.
pub fn build_regex(source: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(source)
        .size_limit(SIZE_LIMIT)
        .build()
}

impl Pattern {
    /// A pattern whose regex is already compiled.
    pub fn new(regex: regex::Regex) -> Pattern {
        let pattern = Pattern::deferred(regex.as_str());
        // A fresh lock: `set` cannot find it taken.
        let _ = pattern.0.regex.set(regex);
        pattern
    }

    /// A pattern whose regex is compiled on first use. Only for patterns known to compile
    /// (the built-in rules' own, which a test compiles): a failure then is a bug, reported as
    /// the crash of the file being linted.
    pub fn deferred(source: &str) -> Pattern {
        Pattern(Arc::new(Compiled {
            source: source.into(),
            regex: std::sync::OnceLock::new(),
            copies: std::array::from_fn(|_| std::sync::OnceLock::new()),
            runs: std::sync::OnceLock::new(),
            gate: None,
        }))
    }

    /// A pattern compiled on first use, without the run matcher: for a built-in text check,
    /// which searches with the regex itself, and only in a text that holds one of the
    /// literals that begin its matches. Only for patterns known to compile.
    pub fn lazy(source: &str) -> Pattern {
        Pattern(Arc::new(Compiled {
            source: source.into(),
            regex: std::sync::OnceLock::new(),
            copies: std::array::from_fn(|_| std::sync::OnceLock::new()),
            runs: std::sync::OnceLock::from(None),
            gate: Some(std::sync::OnceLock::new()),
        }))
    }

    /// Whether `text` may hold a match: false only when it holds none of the literals every
    /// match begins with (a lazy pattern's gate), without compiling the regex.
    pub fn may_match(&self, text: &str) -> bool {
        self.gate().is_none_or(|g| g.may_match(text.as_bytes()))
    }

    /// [`Pattern::may_match`], given `text` ASCII-lowercased as well.
    pub fn may_match_lowered(&self, text: &str, lower: &[u8]) -> bool {
        self.gate()
            .is_none_or(|g| g.may_match_lowered(text.as_bytes(), lower))
    }

    fn gate(&self) -> Option<&gate::Gate> {
        self.0
            .gate
            .as_ref()?
            .get_or_init(|| match prebuilt(&self.0.source) {
                Some((_, _, literals)) => literals
                    .and_then(|bytes| analysis::read_all(bytes, analysis::gate::Literals::read))
                    .map(gate::Gate::new),
                None => gate::Gate::of(&self.0.source),
            })
            .as_ref()
    }

    pub fn is_match(&self, text: &str) -> bool {
        if let Some(runs) = self.runs() {
            // A match the runs find is the regex's too: each byte a run takes is ASCII and in
            // its class, and a "contains" branch skips only runs whose class holds every
            // character. A miss is final only for ASCII text, which is tested after the runs,
            // as most texts match.
            if runs.is_match(text.as_bytes()) {
                return true;
            }
            if text.is_ascii() {
                return false;
            }
        }
        self.regex_is_match(text)
    }

    fn regex_is_match(&self, text: &str) -> bool {
        match rayon::current_thread_index() {
            Some(i) if i % PATTERN_COPIES != 0 => self.0.copies[i % PATTERN_COPIES]
                .get_or_init(|| self.regex().clone())
                .is_match(text),
            _ => self.regex().is_match(text),
        }
    }

    /// The compiled regex, compiled now if it was deferred.
    pub fn regex(&self) -> &regex::Regex {
        self.0
            .regex
            .get_or_init(|| match build_regex(&self.0.source) {
                Ok(regex) => regex,
                Err(e) => panic!("a built-in pattern does not compile: {e}"),
            })
    }

    pub fn as_str(&self) -> &str {
        &self.0.source
    }

    /// Every match of a text check's pattern in `text`, in order: the span it reports (the
    /// named group `at`, else the whole match) and the span that is secret when its rule masks
    /// (the named group `secret`, else the reported span). The one reading of a text pattern:
    /// the rule's findings and the secret detector both come from it.
    pub fn text_matches<'p, 't>(&'p self, text: &'t str) -> Box<dyn Iterator<Item = TextMatch> + 'p>
    where
        't: 'p,
    {
        if !self.may_match(text) {
            return Box::new(std::iter::empty());
        }
        self.ungated_text_matches(text)
    }

    /// [`Pattern::text_matches`] once the gate has been passed.
    pub fn ungated_text_matches<'p, 't>(
        &'p self,
        text: &'t str,
    ) -> Box<dyn Iterator<Item = TextMatch> + 'p>
    where
        't: 'p,
    {
        let regex = self.regex();
        let group = |name: &str| regex.capture_names().position(|n| n == Some(name));
        let (at, secret) = (group("at"), group("secret"));
        if at.is_none() && secret.is_none() {
            // No group to read: the faster search for the match alone.
            return Box::new(regex.find_iter(text).map(|m| TextMatch {
                whole: m.range(),
                at: m.range(),
                secret: m.range(),
            }));
        }
        Box::new(regex.captures_iter(text).filter_map(move |caps| {
            let whole = caps.get(0)?.range();
            let at = at
                .and_then(|g| caps.get(g))
                .map_or(whole.clone(), |m| m.range());
            let secret = secret
                .and_then(|g| caps.get(g))
                .map_or_else(|| at.clone(), |m| m.range());
            Some(TextMatch { whole, at, secret })
        }))
    }

    /// Whether ASCII text is matched without the regex engine.
    pub fn has_fast_path(&self) -> bool {
        self.runs().is_some()
    }

    fn runs(&self) -> Option<&Runs> {
        self.0
            .runs
            .get_or_init(|| match prebuilt(&self.0.source) {
                Some((_, runs, _)) => runs.and_then(|bytes| analysis::read_all(bytes, Runs::read)),
                None => regex_syntax::Parser::new()
                    .parse(&self.0.source)
                    .ok()
                    .and_then(|hir| Runs::from_hir(&hir)),
            })
            .as_ref()
    }
}

/// One match of a text check's pattern (see [`Pattern::text_matches`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMatch {
    /// The whole match.
    pub whole: std::ops::Range<usize>,
    /// The span a finding points at.
    pub at: std::ops::Range<usize>,
    /// The span a rule with `mask = true` hides.
    pub secret: std::ops::Range<usize>,
}

impl Runs {
    /// The regex's answer on ASCII `text`; on other text a match is the regex's too, a miss
    /// may not be.
    pub fn is_match(&self, text: &[u8]) -> bool {
        let at = if self.anchored {
            // `same_key` compares a short prefix without a call to `memcmp`.
            let prefix = &self.prefix;
            if !text
                .get(..prefix.len())
                .is_some_and(|start| crate::json::same_key(start, prefix))
            {
                return false;
            }
            match take_runs(&self.head, text, self.prefix.len()) {
                Some(at) => at,
                None => return false,
            }
        } else {
            0
        };
        let rest = text.len() - at;
        self.branches.iter().any(|branch| match branch {
            Branch::Runs {
                runs,
                end,
                min_len,
                max_len,
            } => {
                rest >= *min_len
                    && (!*end || rest <= *max_len)
                    && take_runs(runs, text, at).is_some_and(|stop| !*end || stop == text.len())
            }
            Branch::Contains(set) => set.any_in(&text[at..]),
        })
    }
}

/// Takes each run as long as it can from `at`; where they stop, if each got its minimum.
#[inline]
fn take_runs(runs: &[Run], text: &[u8], mut at: usize) -> Option<usize> {
    for run in runs {
        let start = at;
        let limit = if run.max == u32::MAX {
            text.len()
        } else {
            text.len().min(at.saturating_add(run.max as usize))
        };
        at += text[at..limit]
            .iter()
            .position(|&b| !run.set.contains(b))
            .unwrap_or(limit - at);
        if at - start < run.min as usize {
            return None;
        }
    }
    Some(at)
}

mod text;

pub use text::{entropy, Codec, Filters, KeywordsFound, TextPattern};

#[cfg(test)]
mod tests;
