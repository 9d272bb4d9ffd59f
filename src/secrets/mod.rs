//! The secret detector. Every excerpt of a linted file forgelint shows — a code frame (human,
//! HTML), a message or label quoting a value (every format, the language server's diagnostics
//! and hovers), a rule case (`explain`), an error quoting a file — passes through it, whatever
//! rules are selected, suppressed or baselined: what it masks is computed from the text alone,
//! not from the findings that were reported.
//!
//! It is made of the rules' own data: the compiled text patterns of every rule with
//! `mask = true` (the built-in `exp-secret`, and any a team adds), which the rule set hands over
//! as [`SecretPattern`]s (`rules::secret_detector`). A detector is a value: the run, the language
//! server and the docs each make theirs from their rules and pass it to what shows an excerpt,
//! so this module names nothing above the findings. A pattern's named group `secret` is the
//! span masked (a private key block, from its header to its END line); without one, its `at`
//! group, else the whole match. A secret is shown as its first [`SHOWN`] characters and `…`; its
//! line breaks are kept, so a frame keeps its lines.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use regex_syntax::hir::{Hir, HirKind};

use crate::diagnostic::Finding;

mod clean;

pub use clean::CleanTexts;

/// Characters of a secret shown before `…`.
pub const SHOWN: usize = 4;

/// A pattern that finds secrets: the text check of a rule with `mask = true`, compiled (or
/// compiled on first use) by the rule compiler.
pub trait SecretPattern: std::fmt::Debug + Send + Sync {
    /// The pattern's source (Rust regex syntax).
    fn source(&self) -> &str;
    /// The compiled regex.
    fn regex(&self) -> &regex::Regex;
    /// Adds to `out` the span of `text` each match makes secret, in order.
    fn secret_spans(&self, text: &str, out: &mut Vec<Range<usize>>);
    /// False when `text` cannot hold a match, told without compiling the regex.
    fn may_match(&self, _text: &str) -> bool {
        true
    }
    /// Whether another pattern of the same source finds the same secrets: not one that decodes
    /// what it matches, which its rule's other patterns then search.
    fn same_source_same_secrets(&self) -> bool {
        true
    }
}

/// The patterns that find secrets.
#[derive(Debug, Default)]
pub struct Detector {
    patterns: Vec<Arc<dyn SecretPattern>>,
    /// The size limit of one compiled pattern: the prefilter, every pattern in one, may take
    /// as much as all of them.
    size_limit: usize,
    /// Made once [`EAGER_TEXTS`] texts were read: compiling it (half a millisecond) would be
    /// most of what a one-file run spends on secrets, and pays only over many texts.
    prefilter: OnceLock<Prefilter>,
    /// Texts read so far.
    texts: AtomicUsize,
}

impl Clone for Detector {
    fn clone(&self) -> Detector {
        Detector {
            patterns: self.patterns.clone(),
            size_limit: self.size_limit,
            prefilter: self.prefilter.clone(),
            texts: AtomicUsize::new(self.texts.load(Ordering::Relaxed)),
        }
    }
}

/// Texts read by the patterns themselves before the prefilter is made.
const EAGER_TEXTS: usize = 256;

/// What tells most texts apart from those that may hold a secret, cheaply.
#[derive(Debug, Clone)]
struct Prefilter {
    /// Every pattern at once, as one alternation without groups: one pass tells a text that
    /// holds no secret (most). One regex, not a `RegexSet`: the regex engine finds a literal
    /// prefilter for it, and a message is told in about 30 ns instead of 130.
    any: Option<regex::Regex>,
    /// The fewest bytes a match of any pattern takes: a shorter text holds no secret.
    min_len: usize,
}

impl Detector {
    /// The detector of `patterns` (each source once), each compiled within `size_limit`.
    pub fn new(
        patterns: impl IntoIterator<Item = Arc<dyn SecretPattern>>,
        size_limit: usize,
    ) -> Detector {
        let mut unique: Vec<Arc<dyn SecretPattern>> = Vec::new();
        for pattern in patterns {
            let same = |p: &Arc<dyn SecretPattern>| {
                p.source() == pattern.source()
                    && p.same_source_same_secrets()
                    && pattern.same_source_same_secrets()
            };
            if !unique.iter().any(same) {
                unique.push(pattern);
            }
        }
        Detector {
            patterns: unique,
            size_limit,
            prefilter: OnceLock::new(),
            texts: AtomicUsize::new(0),
        }
    }

    /// The messages, help and labels of `findings` with their secrets masked: they quote
    /// values of the linted files.
    pub fn mask_findings(&self, findings: &mut [Finding]) {
        if findings.is_empty() {
            return;
        }
        self.mask_findings_with(findings, &mut CleanTexts::default());
    }

    /// [`Detector::mask_findings`], not reading again the texts `clean` holds, and keeping
    /// there those found clean.
    pub fn mask_findings_with(&self, findings: &mut [Finding], clean: &mut CleanTexts) {
        let mask = |text: &mut String| {
            if let Cow::Owned(masked) = self.mask(text) {
                *text = masked;
            }
        };
        // Messages and helps repeat (a rule's help finding after finding, while a file's rules
        // take turns): each is read unless it is one of the texts found clean.
        let mask_remembered = |text: &mut String, clean: &mut CleanTexts| {
            if clean.holds(text) {
                return;
            }
            match self.mask(text) {
                Cow::Owned(masked) => *text = masked,
                Cow::Borrowed(_) => clean.insert(text),
            }
        };
        for f in findings {
            mask_remembered(&mut f.message, clean);
            if let Some(help) = &mut f.help {
                mask_remembered(help, clean);
            }
            for related in &mut f.related {
                mask(&mut related.label);
            }
        }
    }

    fn prefilter(&self) -> &Prefilter {
        self.prefilter.get_or_init(|| {
            let parsed: Option<Vec<Hir>> = self
                .patterns
                .iter()
                .map(|p| regex_syntax::Parser::new().parse(p.source()).ok())
                .collect();
            let Some(parsed) = parsed else {
                return Prefilter {
                    any: None,
                    min_len: 0,
                };
            };
            let min_len = parsed
                .iter()
                .map(|hir| hir.properties().minimum_len().unwrap_or(0))
                .min()
                .unwrap_or(0);
            let any = Hir::alternation(parsed.into_iter().map(without_groups).collect());
            let any = regex::RegexBuilder::new(&any.to_string())
                .size_limit(self.size_limit.saturating_mul(self.patterns.len().max(1)))
                .build()
                .ok();
            Prefilter { any, min_len }
        })
    }

    /// The secrets in `text`. Linear in the text: each pattern that can match is run once over it.
    pub fn find(&self, text: &str) -> Secrets {
        if self.patterns.is_empty() {
            return Secrets::default();
        }
        let eager = self.prefilter.get().is_none()
            && self.texts.fetch_add(1, Ordering::Relaxed) < EAGER_TEXTS;
        if eager {
            // Few texts yet: the patterns themselves (compiled when their rule was loaded).
            if !self
                .patterns
                .iter()
                .any(|p| p.may_match(text) && p.regex().is_match(text))
            {
                return Secrets::default();
            }
        } else {
            let prefilter = self.prefilter();
            if text.len() < prefilter.min_len {
                return Secrets::default();
            }
            // Most texts: one pass, no allocation.
            if prefilter
                .any
                .as_ref()
                .is_some_and(|any| !any.is_match(text))
            {
                return Secrets::default();
            }
        }
        let mut spans = Vec::new();
        for pattern in &self.patterns {
            pattern.secret_spans(text, &mut spans);
        }
        Secrets::from_spans(spans)
    }

    /// `text` with its secrets masked: each shown as its first characters and `…`. Borrowed
    /// when it holds none (nearly always).
    pub fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let secrets = self.find(text);
        if secrets.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(secrets.masked(text))
    }
}

/// `hir` without its capture groups (their names would clash in an alternation of patterns).
fn without_groups(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Capture(capture) => without_groups(*capture.sub),
        HirKind::Repetition(mut repetition) => {
            repetition.sub = Box::new(without_groups(*repetition.sub));
            Hir::repetition(repetition)
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(without_groups).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(without_groups).collect())
        }
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(literal) => Hir::literal(literal.0),
        HirKind::Class(class) => Hir::class(class),
        HirKind::Look(look) => Hir::look(look),
    }
}

/// The secrets of one text: byte ranges, sorted, apart from each other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    spans: Vec<Range<usize>>,
}

impl Secrets {
    /// The secrets at `spans` (any order, overlapping or not).
    pub fn from_spans(mut spans: Vec<Range<usize>>) -> Secrets {
        spans.retain(|s| s.start < s.end);
        spans.sort_by_key(|s| (s.start, s.end));
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
                _ => merged.push(span),
            }
        }
        Secrets { spans: merged }
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn spans(&self) -> &[Range<usize>] {
        &self.spans
    }

    /// A reader of `text` (whose secrets these are) a character at a time.
    pub fn masker(&self) -> Masker<'_> {
        Masker {
            spans: &self.spans,
            next: 0,
            hidden_from: None,
            hidden_end: usize::MAX,
        }
    }

    /// `text` with these secrets masked.
    pub fn masked(&self, text: &str) -> String {
        self.copy(text, |out, c, shown| match shown {
            Shown::Char => out.push(c),
            Shown::Ellipsis => out.push('…'),
            Shown::Nothing => {}
        })
    }

    /// `text` with these secrets masked, every byte in place: each hidden character becomes
    /// as many `*`, so byte offsets into the text stay valid (for a frame whose spans were
    /// computed on the original).
    pub fn masked_in_place(&self, text: &str) -> String {
        self.copy(text, |out, c, shown| match shown {
            Shown::Char => out.push(c),
            Shown::Ellipsis | Shown::Nothing => out.extend(std::iter::repeat_n('*', c.len_utf8())),
        })
    }

    /// `text` copied a character at a time through `push`, told how each shows.
    fn copy(&self, text: &str, mut push: impl FnMut(&mut String, char, Shown)) -> String {
        let mut out = String::with_capacity(text.len());
        let mut masker = self.masker();
        for (at, c) in text.char_indices() {
            push(&mut out, c, masker.at(text, at, c));
        }
        out
    }
}

/// How one character of a text shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// As itself (or its picture).
    Char,
    /// The first hidden character of a run: shown as `…`.
    Ellipsis,
    /// A hidden character after the first of its run: not shown.
    Nothing,
}

/// Tells, character by character in increasing order of offset, how a text shows: a secret's
/// first [`SHOWN`] characters and its line breaks as themselves, each run of its other
/// characters on one line as one `…`. The same masking for every excerpt, in time linear in
/// what is read.
pub struct Masker<'s> {
    spans: &'s [Range<usize>],
    /// The secret the last character was in or before.
    next: usize,
    /// Where the hidden part of the secret `next` begins, once known.
    hidden_from: Option<usize>,
    /// Just past the last hidden character: the next one there continues its run.
    hidden_end: usize,
}

impl Masker<'_> {
    /// How the character `c` at byte `at` of `text` shows; `at` never decreases from one call
    /// to the next.
    pub fn at(&mut self, text: &str, at: usize, c: char) -> Shown {
        while self.spans.get(self.next).is_some_and(|s| s.end <= at) {
            self.next += 1;
            self.hidden_from = None;
        }
        let Some(span) = self.spans.get(self.next) else {
            return Shown::Char;
        };
        if at < span.start {
            return Shown::Char;
        }
        let hidden_from = *self.hidden_from.get_or_insert_with(|| {
            text.get(span.start..)
                .and_then(|rest| rest.char_indices().nth(SHOWN))
                .map_or(span.end, |(i, _)| span.start + i)
                .min(span.end)
        });
        let line_break = c == '\n' || (c == '\r' && text.as_bytes().get(at + 1) == Some(&b'\n'));
        if at < hidden_from || line_break {
            return Shown::Char;
        }
        let continues = at == self.hidden_end;
        self.hidden_end = at + c.len_utf8();
        if continues {
            Shown::Nothing
        } else {
            Shown::Ellipsis
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\nAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBodW50ZXIyaHVudGVyMmh1\n-----END OPENSSH PRIVATE KEY-----";

    /// The detector of the built-in rules.
    fn builtin() -> Detector {
        crate::rules::secret_detector([])
    }

    #[test]
    fn a_private_key_is_masked_from_its_header_to_its_end_line() {
        let text = format!("before\n{KEY}\nafter\n");
        let masked = builtin().mask(&text);
        assert_eq!(masked, "before\n----…\n…\n…\n…\nafter\n");
        // Without an END line, to its last line of key.
        let open = "x = 1\n-----BEGIN RSA PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\nAAAAMwAAAAtzc2gt\n";
        assert_eq!(builtin().mask(open), "x = 1\n----…\n…\n…\n");
        // A header with no key under it is no secret.
        for header in [
            "PEM = \"-----BEGIN PRIVATE KEY-----\"",
            "-----BEGIN PRIVATE KEY-----\nfixture\n-----END PRIVATE KEY-----",
        ] {
            assert_eq!(builtin().mask(header), header);
        }
    }

    #[test]
    fn secrets_show_four_characters_and_an_ellipsis() {
        let text = "token: hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj and AKIAIOSFODNN7EXAMPLE.";
        assert_eq!(builtin().mask(text), "token: hf_A… and AKIA….");
        assert_eq!(builtin().mask("nothing here"), "nothing here");
        assert!(matches!(builtin().mask("short"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_masker_read_from_inside_a_secret_hides_it_and_keeps_offsets_in_place() {
        let text = format!("a\n{KEY}\n");
        let secrets = builtin().find(&text);
        assert_eq!(secrets.spans().to_vec(), vec![2..2 + KEY.len()]);
        // A frame that starts on the key's body line: no character of it shows.
        let body = text.find("b3Bl").unwrap();
        let mut masker = secrets.masker();
        let shown: String = text[body..]
            .char_indices()
            .filter_map(|(i, c)| match masker.at(&text, body + i, c) {
                Shown::Char => Some(c),
                Shown::Ellipsis => Some('…'),
                Shown::Nothing => None,
            })
            .collect();
        assert_eq!(shown, "…\n…\n…\n");
        let in_place = secrets.masked_in_place(&text);
        assert_eq!(in_place.len(), text.len());
        assert!(!in_place.contains("b3Bl"), "{in_place}");
        assert!(in_place.starts_with("a\n----*"), "{in_place}");
    }

    /// The first texts are read by the patterns alone, the rest through the prefilter: the
    /// same secrets either way.
    #[test]
    fn eager_and_prefiltered_reads_agree() {
        let detector = builtin();
        let text = format!("x = 1\nt = \"ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123\"\n{KEY}\n");
        let first = detector.find(&text);
        assert_eq!(first.spans().len(), 2);
        for _ in 0..EAGER_TEXTS + 8 {
            assert!(detector
                .find("nothing to see here, at all, nothing")
                .is_empty());
        }
        assert!(detector.prefilter.get().is_some());
        assert_eq!(detector.find(&text), first);
    }

    /// The one-pass prefilter says yes wherever a pattern matches (and no elsewhere).
    #[test]
    fn the_prefilter_agrees_with_the_patterns() {
        let detector = &builtin();
        let any = detector
            .prefilter()
            .any
            .as_ref()
            .expect("the prefilter compiles");
        assert!(detector.prefilter().min_len >= 16);
        for text in [
            "metadata.owner is \"alice\", but the server ignores it",
            "token: hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj",
            "WANDB_API_KEY = \"0123456789abcdef0123456789abcdef01234567\"",
            "wandb.login(key='0123456789abcdef0123456789abcdef01234567')",
            "x AKIAIOSFODNN7EXAMPLE y",
            "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123",
            "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd",
            KEY,
            "hf_short and sk-learn-baseline and github_pat_x",
        ] {
            let one = detector.patterns.iter().any(|p| p.regex().is_match(text));
            assert_eq!(any.is_match(text), one, "{text}");
        }
    }

    #[test]
    fn findings_are_masked_in_message_help_and_labels() {
        let token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj";
        let finding = |help: &str| {
            let mut f = Finding::for_tests("a.py", "x", 1);
            f.message = format!("value {token}");
            f.help = Some(help.to_string());
            f.related = vec![crate::diagnostic::Related {
                path: None,
                span: crate::diagnostic::Span::new(0, 0),
                start: Default::default(),
                end: Default::default(),
                label: format!("first {token}"),
            }];
            f
        };
        let mut findings = vec![
            finding("the same help"),
            finding("the same help"),
            finding(&format!("help {token}")),
            finding(&format!("help {token}")),
        ];
        builtin().mask_findings(&mut findings);
        for f in &findings {
            assert_eq!(f.message, "value hf_A…");
            assert_eq!(f.related[0].label, "first hf_A…");
        }
        assert_eq!(findings[1].help.as_deref(), Some("the same help"));
        assert_eq!(findings[3].help.as_deref(), Some("help hf_A…"));
    }

    /// A message found clean is not read again, but one that only shares its slots is: the
    /// secret in it is masked, and every message comes out as masking each alone gives.
    #[test]
    fn repeated_messages_are_masked_as_each_alone() {
        let token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj";
        let secret = format!("unknown field {token} in this object");
        // A clean message of the secret one's set (one in 128 is).
        let clean = (0..100_000)
            .map(|i| format!("unknown field x{i} in this object"))
            .find(|m| CleanTexts::set(m) == CleanTexts::set(&secret))
            .expect("a message of the same set");
        let messages = [&clean, &clean, &secret, &clean, &secret, &secret];
        let mut findings: Vec<Finding> = messages
            .iter()
            .map(|m| {
                let mut f = Finding::for_tests("a.json", "unknown-field", 1);
                f.message = m.to_string();
                f
            })
            .collect();
        let detector = builtin();
        let alone: Vec<String> = messages
            .iter()
            .map(|m| detector.mask(m).into_owned())
            .collect();
        detector.mask_findings(&mut findings);
        let got: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(got, alone);
        assert_eq!(got[2], "unknown field hf_A… in this object");
        assert_eq!(got[3], clean);
    }

    /// Texts found clean in one file are trusted in the next, whole texts only: a message
    /// sharing a clean one's slot is still masked, a help text after another is read again.
    #[test]
    fn clean_texts_carry_from_file_to_file() {
        let token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj";
        let clean = format!("unknown field {} in this object", "x".repeat(token.len()));
        let secret = format!("unknown field {token} in this object");
        let with = |message: &str, help: &str| {
            let mut f = Finding::for_tests("a.json", "unknown-field", 1);
            f.message = message.to_string();
            f.help = Some(help.to_string());
            f
        };
        let detector = builtin();
        let mut memo = CleanTexts::default();
        let mut first = vec![with(&clean, "plain help")];
        detector.mask_findings_with(&mut first, &mut memo);
        assert!(memo.holds(&clean) && memo.holds("plain help"));
        let mut second = vec![
            with(&clean, "plain help"),
            with(&secret, &format!("help {token}")),
            with(&clean, "plain help"),
            with(&clean, &format!("help {token}")),
        ];
        detector.mask_findings_with(&mut second, &mut memo);
        let got: Vec<(&str, Option<&str>)> = second
            .iter()
            .map(|f| (f.message.as_str(), f.help.as_deref()))
            .collect();
        let masked = "unknown field hf_A… in this object";
        assert_eq!(
            got,
            [
                (clean.as_str(), Some("plain help")),
                (masked, Some("help hf_A…")),
                (clean.as_str(), Some("plain help")),
                (clean.as_str(), Some("help hf_A…")),
            ]
        );
        // What held a secret is never taken for clean text.
        assert!(!memo.holds(&secret) && !memo.holds(&format!("help {token}")));
    }

    #[test]
    fn overlapping_spans_merge() {
        let s = Secrets::from_spans(vec![5..9, 0..3, 2..4, 9..9, 8..12]);
        assert_eq!(s.spans(), &[0..4, 5..12]);
    }
}
