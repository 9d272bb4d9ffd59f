//! Compiled regular expressions for `matches` and `not-matches`.
//!
//! Most patterns in rule files are anchored runs of character classes (`^sha256:[0-9a-f]{64}$`,
//! `^[A-Za-z0-9][A-Za-z0-9._-]*/...`). A lazy DFA reads such a value at one dependent table
//! load per byte; [`Runs`] reads it as runs of bytes in a set, which is several times faster
//! on a 71-byte digest. It is used only where it gives exactly the regex's answer: for ASCII
//! text, and for pattern shapes where matching each run greedily cannot miss a match (see
//! [`Runs::from_hir`]). Everything else goes to the regex.

use std::sync::Arc;

use regex_syntax::hir::{Class, ClassUnicodeRange, Hir, HirKind, Look};

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
    /// The run matcher, if the pattern has that shape: made on first match (parsing the
    /// pattern for it was a twentieth of a one-file run, for patterns it may never ask).
    runs: std::sync::OnceLock<Option<Runs>>,
    /// A built-in text pattern's literals ([`Pattern::lazy`]): found on first use, searched
    /// before the regex is compiled or run. `None` inside: a match may begin anywhere.
    gate: Option<std::sync::OnceLock<Option<gate::Gate>>>,
}

mod gate;

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
            .get_or_init(|| gate::Gate::of(&self.0.source))
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
            .get_or_init(|| {
                regex_syntax::Parser::new()
                    .parse(&self.0.source)
                    .ok()
                    .and_then(|hir| Runs::from_hir(&hir))
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

/// Patterns of more runs than this are left to the regex.
const MAX_RUNS: usize = 256;

/// Patterns of more alternatives than this are left to the regex, whose time is linear in the
/// text whatever the pattern.
const MAX_BRANCHES: usize = 16;

/// A set of bytes, as a table: one load per test.
#[derive(Clone, PartialEq, Eq)]
struct ByteSet([bool; 256]);

impl ByteSet {
    const EMPTY: ByteSet = ByteSet([false; 256]);

    /// The ASCII bytes of a class. A run of it stops at a byte past 0x7F, so on other text it
    /// takes only what the class holds (and a miss there is left to the regex).
    fn ascii_of(class: &Class) -> ByteSet {
        let mut set = ByteSet::EMPTY;
        let mut add = |start: u32, end: u32| {
            for b in start..=end.min(0x7F) {
                set.0[b as usize] = true;
            }
        };
        match class {
            Class::Unicode(c) => c.iter().for_each(|r| add(r.start() as u32, r.end() as u32)),
            Class::Bytes(c) => c.iter().for_each(|r| add(r.start() as u32, r.end() as u32)),
        }
        set
    }

    fn byte(b: u8) -> ByteSet {
        let mut set = ByteSet::EMPTY;
        set.0[b as usize] = true;
        set
    }

    fn overlaps(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| *a && *b)
    }

    fn add(&mut self, other: &ByteSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }

    #[inline(always)]
    fn contains(&self, b: u8) -> bool {
        self.0[b as usize]
    }

    /// Whether a byte of `text` is in the set.
    #[inline(always)]
    fn any_in(&self, text: &[u8]) -> bool {
        // Eight table loads joined, one branch per eight bytes: the text is usually clean.
        let mut chunks = text.chunks_exact(8);
        chunks
            .by_ref()
            .any(|chunk| chunk.iter().fold(false, |any, &b| any | self.contains(b)))
            || chunks.remainder().iter().any(|&b| self.contains(b))
    }
}

impl std::fmt::Debug for ByteSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes: String = (0..0x80u8)
            .filter(|&b| self.contains(b))
            .flat_map(|b| std::ascii::escape_default(b).map(char::from))
            .collect();
        write!(f, "[{bytes}]")
    }
}

/// `min..=max` bytes of a set (`max` is `u32::MAX` for no bound).
#[derive(Debug, Clone)]
struct Run {
    set: ByteSet,
    min: u32,
    max: u32,
    /// The class holds every character, not only the ASCII ones of `set`: only such a run may
    /// be skipped over text the set says nothing about (a "contains" branch).
    every_char: bool,
}

impl Run {
    fn of_class(class: &Class, min: u32, max: Option<u32>) -> Run {
        Run {
            set: ByteSet::ascii_of(class),
            min,
            max: max.unwrap_or(u32::MAX),
            every_char: holds_every_char(class),
        }
    }

    fn of_byte(b: u8, min: u32, max: Option<u32>) -> Run {
        Run {
            set: ByteSet::byte(b),
            min,
            max: max.unwrap_or(u32::MAX),
            every_char: false,
        }
    }
}

/// `(?s:.)`, `[\s\S]`, `\p{Any}`: a set of all 128 ASCII bytes is not enough (`[\x00-\x7F]`).
fn holds_every_char(class: &Class) -> bool {
    match class {
        // Ranges are kept sorted and merged: every character is one range.
        Class::Unicode(c) => c.ranges() == [ClassUnicodeRange::new('\0', char::MAX)],
        // A byte class of a UTF-8 pattern holds ASCII bytes only.
        Class::Bytes(_) => false,
    }
}

/// One alternative for the text after the head.
#[derive(Debug)]
enum Branch {
    /// These runs, each as long as it can be; `end`: they must reach the end of the text.
    Runs {
        runs: Vec<Run>,
        end: bool,
        /// Lengths the branch can match, to skip it at once on a text that cannot fit.
        min_len: usize,
        max_len: usize,
    },
    /// A byte of the set somewhere in the rest (`(?s:.)*[set](?s:.)*`).
    Contains(Box<ByteSet>),
}

/// A pattern that is runs of byte sets: `^head(branch|branch|...)`, or an unanchored single
/// class (the text contains a byte of it).
#[derive(Debug)]
pub struct Runs {
    anchored: bool,
    /// The head's leading single bytes, compared at once (`sha256:`).
    prefix: Box<[u8]>,
    head: Vec<Run>,
    branches: Vec<Branch>,
}

/// The pattern flattened: runs, anchors, and at most one alternation.
#[derive(Debug, Clone)]
enum Part {
    Run(Box<Run>),
    Start,
    End,
    Either(Vec<Vec<Part>>),
}

fn run_part(run: Run) -> Part {
    Part::Run(Box::new(run))
}

/// Flattens `hir` into parts, or `None` for anything else (word boundaries, line anchors,
/// repeated groups, non-ASCII literals).
fn flatten(hir: &Hir, out: &mut Vec<Part>) -> Option<()> {
    match hir.kind() {
        HirKind::Empty => {}
        HirKind::Literal(lit) => {
            for &b in lit.0.iter() {
                if !b.is_ascii() {
                    return None;
                }
                out.push(run_part(Run::of_byte(b, 1, Some(1))));
            }
        }
        HirKind::Class(class) => out.push(run_part(Run::of_class(class, 1, Some(1)))),
        HirKind::Look(Look::Start) => out.push(Part::Start),
        HirKind::Look(Look::End) => out.push(Part::End),
        HirKind::Look(_) => return None,
        HirKind::Repetition(rep) => match rep.sub.kind() {
            HirKind::Class(class) => out.push(run_part(Run::of_class(class, rep.min, rep.max))),
            HirKind::Literal(lit) if lit.0.len() == 1 && lit.0[0].is_ascii() => {
                out.push(run_part(Run::of_byte(lit.0[0], rep.min, rep.max)))
            }
            // `(group)?`: the group or nothing.
            _ if rep.min == 0 && rep.max == Some(1) => {
                let mut inner = Vec::new();
                flatten(&rep.sub, &mut inner)?;
                out.push(Part::Either(vec![inner, Vec::new()]));
            }
            _ => return None,
        },
        HirKind::Capture(capture) => flatten(&capture.sub, out)?,
        HirKind::Concat(hirs) => {
            for h in hirs {
                flatten(h, out)?;
            }
        }
        HirKind::Alternation(hirs) => {
            let mut branches = Vec::with_capacity(hirs.len());
            for h in hirs {
                let mut branch = Vec::new();
                flatten(h, &mut branch)?;
                branches.push(branch);
            }
            out.push(Part::Either(branches));
        }
    }
    Some(())
}

/// Only runs, then optionally the end anchor: the runs and whether the end is required.
fn runs_then_end(parts: &[Part]) -> Option<(Vec<Run>, bool)> {
    let (parts, end) = match parts.split_last() {
        Some((Part::End, rest)) => (rest, true),
        _ => (parts, false),
    };
    let runs = parts
        .iter()
        .map(|p| match p {
            Part::Run(run) => Some(Run::clone(run)),
            _ => None,
        })
        .collect::<Option<Vec<Run>>>()?;
    Some((runs, end))
}

fn branch_of(parts: &[Part], end_after: bool) -> Option<Branch> {
    let (runs, end) = runs_then_end(parts)?;
    // `(?s:.)*[set](?s:.)*`, with or without the end anchor.
    if let [any_before, one, any_after] = runs.as_slice() {
        let is_any_star = |r: &Run| r.min == 0 && r.max == u32::MAX && r.every_char;
        if is_any_star(any_before) && is_any_star(any_after) && one.min == 1 && one.max == 1 {
            return Some(Branch::Contains(Box::new(one.set.clone())));
        }
    }
    let min_len = runs.iter().map(|r| r.min as usize).sum();
    let max_len = runs
        .iter()
        .try_fold(0usize, |sum, r| sum.checked_add(r.max as usize))
        .unwrap_or(usize::MAX);
    Some(Branch::Runs {
        runs,
        end: end || end_after,
        min_len,
        max_len,
    })
}

/// The bytes that can start what follows `runs[i]` (up to the first run that must match at
/// least once; then the branches' first bytes).
fn first_after(runs: &[Run], i: usize, tail: &ByteSet) -> ByteSet {
    let mut first = ByteSet::EMPTY;
    for run in &runs[i + 1..] {
        first.add(&run.set);
        if run.min > 0 {
            return first;
        }
    }
    first.add(tail);
    first
}

/// Matching each run greedily gives the regex's answer when no run of variable length can
/// stop early to let what follows start with a byte it would have taken: its set must not
/// overlap the bytes that can come next.
fn greedy_is_exact(runs: &[Run], tail: &ByteSet) -> bool {
    (0..runs.len())
        .all(|i| runs[i].min == runs[i].max || !runs[i].set.overlaps(&first_after(runs, i, tail)))
}

impl Runs {
    /// The run form of `hir`, when there is one that gives exactly the regex's answers on
    /// ASCII text, and only matches of the regex on other text.
    pub fn from_hir(hir: &Hir) -> Option<Runs> {
        let mut parts = Vec::new();
        flatten(hir, &mut parts)?;
        if parts.first().is_some_and(|p| matches!(p, Part::Start)) {
            parts.remove(0);
        } else {
            // Unanchored: only a single class (or a run of one, at least once) is taken.
            return match parts.as_slice() {
                [Part::Run(run)] if run.min == 1 => Some(Runs {
                    anchored: false,
                    prefix: Box::default(),
                    head: Vec::new(),
                    branches: vec![Branch::Contains(Box::new(run.set.clone()))],
                }),
                _ => None,
            };
        }
        let end_after = parts.last().is_some_and(|p| matches!(p, Part::End));
        if end_after {
            parts.pop();
        }
        let (head_parts, branch_parts) = match parts.split_last() {
            Some((Part::Either(branches), head)) => (head, branches.clone()),
            _ => (parts.as_slice(), vec![Vec::new()]),
        };
        let (mut head, head_end) = runs_then_end(head_parts)?;
        if head_end {
            return None;
        }
        let branches = branch_parts
            .iter()
            .map(|b| branch_of(b, end_after))
            .collect::<Option<Vec<Branch>>>()?;
        let mut tail = ByteSet::EMPTY;
        for branch in &branches {
            match branch {
                Branch::Runs { runs, .. } => {
                    if !greedy_is_exact(runs, &ByteSet::EMPTY) {
                        return None;
                    }
                    let mut first = ByteSet::EMPTY;
                    for run in runs {
                        first.add(&run.set);
                        if run.min > 0 {
                            break;
                        }
                    }
                    tail.add(&first);
                }
                Branch::Contains(_) => tail = ByteSet([true; 256]),
            }
        }
        // A table per run: a long literal is left to the regex rather than kept as tables.
        let runs = head.len()
            + branches
                .iter()
                .map(|b| match b {
                    Branch::Runs { runs, .. } => runs.len(),
                    Branch::Contains(_) => 1,
                })
                .sum::<usize>();
        // Each branch may read the rest of the text: their number bounds the work per byte.
        if runs > MAX_RUNS || branches.len() > MAX_BRANCHES || !greedy_is_exact(&head, &tail) {
            return None;
        }
        let single_byte = |run: &Run| {
            let mut bytes = (0..=0x7Fu8).filter(|&b| run.set.contains(b));
            match (run.min, run.max, bytes.next(), bytes.next()) {
                (1, 1, Some(b), None) => Some(b),
                _ => None,
            }
        };
        let prefix: Box<[u8]> = head.iter().map_while(single_byte).collect();
        head.drain(..prefix.len());
        Some(Runs {
            anchored: true,
            prefix,
            head,
            branches,
        })
    }

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
