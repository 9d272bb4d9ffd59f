//! A text check's pattern as a rule file writes it: the regex, and what decides which of its
//! matches a rule reports — gitleaks' per-rule allowlists (`allow`, `allow-line`), stop words
//! and entropy floor, its keyword pre-filter (`keywords`) — and whether a match is decoded and
//! searched again (`decode`).
//!
//! One pattern is read two ways, both here: [`TextPattern::reported`] gives a rule's findings
//! (keywords first, then each match through the filters), [`TextPattern::secrets`] what the
//! secret detector masks: every match of the regex, keywords and filters aside. The filters
//! are heuristics for a finding's precision; masking a look-alike costs a few characters of an
//! excerpt, while a real secret a heuristic dropped would be shown. An excerpt (a message, a
//! hover) does not hold the whole file the keywords are looked for in, either.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::{Pattern, TextMatch};

/// How a `decode` check reads its matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// Standard base64, padded or not (a Kubernetes Secret's `data:` values).
    Base64,
}

impl Codec {
    pub const NAMES: [&'static str; 1] = ["base64"];

    pub fn parse(name: &str) -> Option<Codec> {
        match name {
            "base64" => Some(Codec::Base64),
            _ => None,
        }
    }

    /// `encoded` decoded, when it is a whole encoding of UTF-8 text.
    pub fn decode(self, encoded: &str) -> Option<String> {
        match self {
            Codec::Base64 => {
                let bytes = encoded.as_bytes();
                let spec = if bytes.len() % 4 == 0 {
                    &data_encoding::BASE64
                } else {
                    &data_encoding::BASE64_NOPAD
                };
                String::from_utf8(spec.decode(bytes).ok()?).ok()
            }
        }
    }
}

/// What drops a match from a rule's findings (never from what is masked).
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Dropped when one matches the match's text.
    pub allow: Vec<Pattern>,
    /// Dropped when one matches the lines the match spans.
    pub allow_line: Vec<Pattern>,
    /// Dropped when the match's text holds one, in any ASCII case (kept lowercased).
    pub stop_words: Vec<String>,
    /// Dropped below this Shannon entropy, in bits a character.
    pub min_entropy: Option<f64>,
}

impl Filters {
    /// Whether `m`, a match in `text`, is kept: the cheap tests first. `lines` is the cursor of
    /// `text`'s matches so far (they come in order).
    fn keep(&self, text: &str, m: &TextMatch, lines: &mut LineCursor) -> bool {
        let found = &text[m.at.clone()];
        if self.min_entropy.is_some_and(|min| entropy(found) < min) {
            return false;
        }
        if !self.stop_words.is_empty() {
            let lower = found.to_ascii_lowercase();
            if self.stop_words.iter().any(|w| lower.contains(w.as_str())) {
                return false;
            }
        }
        if self.allow.iter().any(|p| p.is_match(found)) {
            return false;
        }
        if !self.allow_line.is_empty() {
            let allow_line = &self.allow_line;
            return !lines.excused(text, m.whole.clone(), |l| {
                allow_line.iter().any(|p| p.is_match(l))
            });
        }
        true
    }
}

/// The lines of a text's matches, read in order: each line break is looked for once, and the
/// lines' verdict is kept for the next match on the same lines, so `allow-line` stays linear in
/// the text however many matches share one long line.
#[derive(Default)]
struct LineCursor {
    /// Where the text has been searched backwards from, and the start of that point's line.
    searched_to: usize,
    line_start: usize,
    /// Where the last end was searched from, that end (a line break or the text's end), and
    /// the last lines with their verdict.
    end_from: usize,
    end: usize,
    last: Option<(Range<usize>, bool)>,
}

impl LineCursor {
    /// Whether the lines `span` lies on (whole, without their final line break) are excused by
    /// `test`. `span` starts at or after every span asked before.
    fn excused(&mut self, text: &str, span: Range<usize>, test: impl FnOnce(&str) -> bool) -> bool {
        let bytes = text.as_bytes();
        if span.start < self.searched_to {
            // Out of order (never, for a regex's matches): start again.
            *self = LineCursor::default();
        }
        if let Some(i) = memchr::memrchr(b'\n', &bytes[self.searched_to..span.start]) {
            self.line_start = self.searched_to + i + 1;
        }
        self.searched_to = span.start;
        // No line break lies between the last end searched from and that end.
        if self.last.is_none() || !(self.end_from <= span.end && span.end <= self.end) {
            self.end =
                memchr::memchr(b'\n', &bytes[span.end..]).map_or(text.len(), |i| span.end + i);
            self.end_from = span.end;
        }
        let lines = self.line_start..self.end;
        if let Some((last, verdict)) = &self.last {
            if *last == lines {
                return *verdict;
            }
        }
        let verdict = test(text[lines.clone()].trim_end_matches('\r'));
        self.last = Some((lines, verdict));
        verdict
    }
}

/// The Shannon entropy of `text`, in bits a character: 0 for one repeated character, about
/// 4.2 for random letters and digits.
pub fn entropy(text: &str) -> f64 {
    let mut ascii = [0u32; 128];
    let mut other: Vec<(char, u32)> = Vec::new();
    let mut total = 0u32;
    for c in text.chars() {
        total += 1;
        if c.is_ascii() {
            ascii[c as usize] += 1;
        } else if let Some(n) = other.iter_mut().find(|(o, _)| *o == c) {
            n.1 += 1;
        } else {
            other.push((c, 1));
        }
    }
    if total == 0 {
        return 0.0;
    }
    let total = f64::from(total);
    ascii
        .iter()
        .copied()
        .chain(other.iter().map(|(_, n)| *n))
        .filter(|&n| n > 0)
        .map(|n| {
            let p = f64::from(n) / total;
            -p * p.log2()
        })
        .sum()
}

/// The keywords of a rule's text checks, in any ASCII case: searched for once per file, in one
/// pass, whichever checks share them.
#[derive(Debug)]
pub struct Keywords {
    /// ASCII-lowercased: the search runs over a lowercased copy of the text.
    words: Vec<String>,
    /// Built on first use: a run that reads no experiment file builds none.
    searcher: OnceLock<Option<aho_corasick::AhoCorasick>>,
}

impl Keywords {
    fn new(words: Vec<String>) -> Keywords {
        Keywords {
            words: words.iter().map(|w| w.to_ascii_lowercase()).collect(),
            searcher: OnceLock::new(),
        }
    }

    /// The automaton; `None` when the keywords are too many to build one. Case-sensitive over
    /// lowercased text rather than `ascii_case_insensitive`: the folded patterns start with too
    /// many different bytes for any prefilter, and the automaton then steps through every byte
    /// (2.5-3 ns a byte for the built-in keywords), while the exact ones keep the vectorised
    /// prefilter (0.2 ns a byte, lowering the copy included).
    fn searcher(&self) -> Option<&aho_corasick::AhoCorasick> {
        self.searcher
            .get_or_init(|| {
                aho_corasick::AhoCorasick::builder()
                    .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                    .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                    .build(&self.words)
                    .ok()
            })
            .as_ref()
    }

    /// Where `word` is among the keywords, added if it is not.
    fn index_of(words: &mut Vec<String>, word: &str) -> usize {
        match words.iter().position(|w| w.eq_ignore_ascii_case(word)) {
            Some(i) => i,
            None => {
                words.push(word.to_string());
                words.len() - 1
            }
        }
    }

    /// Which keywords the text whose ASCII-lowercased bytes are `lower` holds (lowering keeps
    /// every byte in its place). Linear in the text: one leftmost search, which reports one
    /// keyword a place, resumed a byte after each place, where every keyword is tried.
    fn find(&self, lower: &[u8]) -> Box<[bool]> {
        let Some(searcher) = self.searcher() else {
            // Too many to build: as if every keyword were there (the patterns decide).
            return vec![true; self.words.len()].into_boxed_slice();
        };
        let mut found = vec![false; self.words.len()].into_boxed_slice();
        let bytes = lower;
        let mut missing = self.words.len();
        let mut at = 0;
        while missing > 0 && at < bytes.len() {
            let input = aho_corasick::Input::new(bytes).span(at..bytes.len());
            let Some(m) = searcher.find(input) else {
                break;
            };
            let here = &bytes[m.start()..];
            for (word, seen) in self.words.iter().zip(found.iter_mut()) {
                if !*seen && here.starts_with(word.as_bytes()) {
                    *seen = true;
                    missing -= 1;
                }
            }
            at = m.start() + 1;
        }
        found
    }
}

/// What the checks of one text share: its ASCII-lowercased copy, made once, in which keywords
/// and gates are searched, and the keywords found in it, by set (a set shared by several
/// checks is searched for once).
#[derive(Default)]
pub struct KeywordsFound {
    lower: Option<Box<[u8]>>,
    sets: Vec<(Arc<Keywords>, Box<[bool]>)>,
}

impl KeywordsFound {
    /// `text` lowercased; `text` must be the one text these checks read.
    fn lower(&mut self, text: &str) -> &[u8] {
        self.lower
            .get_or_insert_with(|| text.as_bytes().to_ascii_lowercase().into_boxed_slice())
    }

    fn of(&mut self, set: &Arc<Keywords>, text: &str) -> &[bool] {
        let i = match self.sets.iter().position(|(s, _)| Arc::ptr_eq(s, set)) {
            Some(i) => i,
            None => {
                let found = set.find(self.lower(text));
                self.sets.push((set.clone(), found));
                self.sets.len() - 1
            }
        };
        &self.sets[i].1
    }
}

/// A text check's pattern with its keywords, filters and decoding. Clones share it.
#[derive(Debug, Clone)]
pub struct TextPattern(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    pattern: Pattern,
    filters: Filters,
    /// The keywords as written.
    keywords: Vec<String>,
    /// The set they are looked for in (the rule's, once linked) and their places in it.
    keyword_set: Option<(Arc<Keywords>, Box<[usize]>)>,
    decode: Option<Codec>,
    /// What searches a decoded match: the rule's other pattern checks (once linked).
    decoded_by: Vec<TextPattern>,
}

impl TextPattern {
    /// The pattern of one check, on its own: its keywords are a set of their own, and a
    /// `decode` finds nothing until [`TextPattern::link`] gives it the rule's other checks.
    pub fn new(
        pattern: Pattern,
        filters: Filters,
        keywords: Vec<String>,
        decode: Option<Codec>,
    ) -> TextPattern {
        let mut words = Vec::new();
        let ids: Box<[usize]> = keywords
            .iter()
            .map(|k| Keywords::index_of(&mut words, k))
            .collect();
        let keyword_set = (!words.is_empty()).then(|| (Arc::new(Keywords::new(words)), ids));
        TextPattern(Arc::new(Inner {
            pattern,
            filters,
            keywords,
            keyword_set,
            decode,
            decoded_by: Vec::new(),
        }))
    }

    /// The patterns of one rule's checks, in order, made to work together: their keywords
    /// one set, searched for once per file; each `decode` check searched by the others.
    pub fn link(patterns: &[TextPattern]) -> Vec<TextPattern> {
        let mut words = Vec::new();
        let ids: Vec<Box<[usize]>> = patterns
            .iter()
            .map(|p| {
                p.0.keywords
                    .iter()
                    .map(|k| Keywords::index_of(&mut words, k))
                    .collect()
            })
            .collect();
        let set = Arc::new(Keywords::new(words));
        let linked = |p: &TextPattern, ids: &[usize], decoded_by: Vec<TextPattern>| {
            TextPattern(Arc::new(Inner {
                pattern: p.0.pattern.clone(),
                filters: p.0.filters.clone(),
                keywords: p.0.keywords.clone(),
                keyword_set: (!ids.is_empty()).then(|| (set.clone(), ids.into())),
                decode: p.0.decode,
                decoded_by,
            }))
        };
        let plain: Vec<TextPattern> = patterns
            .iter()
            .zip(&ids)
            .filter(|(p, _)| p.0.decode.is_none())
            .map(|(p, ids)| linked(p, ids, Vec::new()))
            .collect();
        let mut plain_iter = plain.iter();
        patterns
            .iter()
            .zip(&ids)
            .map(|(p, ids)| match p.0.decode {
                None => plain_iter.next().cloned().expect("one linked pattern each"),
                Some(_) => linked(p, ids, plain.clone()),
            })
            .collect()
    }

    pub fn pattern(&self) -> &Pattern {
        &self.0.pattern
    }

    pub fn as_str(&self) -> &str {
        self.0.pattern.as_str()
    }

    /// Whether its matches are decoded and searched by the rule's other checks.
    pub fn decodes(&self) -> bool {
        self.0.decode.is_some()
    }

    /// The matches a rule reports in `text`: none unless the text holds one of the keywords;
    /// then each match the filters keep (and, with `decode`, whose decoded value holds a match
    /// of the rule's other checks). `found` remembers the keywords of `text` across checks.
    pub fn reported(&self, text: &str, found: &mut KeywordsFound) -> Vec<TextMatch> {
        if let Some((set, ids)) = &self.0.keyword_set {
            let here = found.of(set, text);
            if !ids.iter().any(|&i| here[i]) {
                return Vec::new();
            }
        }
        if !self.0.pattern.may_match_lowered(text, found.lower(text)) {
            return Vec::new();
        }
        let mut lines = LineCursor::default();
        self.0
            .pattern
            .ungated_text_matches(text)
            .filter(|m| self.0.filters.keep(text, m, &mut lines))
            .filter(|m| match self.0.decode {
                None => true,
                Some(codec) => self.decoded_holds(text, m, codec, Reading::Reported),
            })
            .collect()
    }

    /// Adds to `out` the span each match makes secret, in order: every match of the regex
    /// (with `decode`, every one whose decoded value holds a match of the other checks'
    /// regexes), whatever the keywords and filters say.
    pub fn secrets(&self, text: &str, out: &mut Vec<Range<usize>>) {
        for m in self.0.pattern.text_matches(text) {
            let holds = match self.0.decode {
                None => true,
                Some(codec) => self.decoded_holds(text, &m, codec, Reading::Secrets),
            };
            if holds {
                out.push(m.secret);
            }
        }
    }

    /// Whether `m`'s `at` group, decoded, holds a match of the rule's other checks: they
    /// search the match as written with that group decoded in place, so what comes before the
    /// value (`WANDB_API_KEY: `) is their context, as gitleaks decodes in place. One level:
    /// what they find is not decoded again.
    fn decoded_holds(&self, text: &str, m: &TextMatch, codec: Codec, reading: Reading) -> bool {
        let Some(decoded) = codec.decode(&text[m.at.clone()]) else {
            return false;
        };
        let mut searched = String::with_capacity(m.whole.len() + decoded.len());
        searched.push_str(&text[m.whole.start..m.at.start]);
        let start = searched.len();
        searched.push_str(&decoded);
        let end = searched.len();
        searched.push_str(&text[m.at.end..m.whole.end]);
        let in_decoded = |span: &Range<usize>| span.start < end && span.end > start;
        match reading {
            Reading::Reported => {
                let mut found = KeywordsFound::default();
                self.0.decoded_by.iter().any(|p| {
                    p.reported(&searched, &mut found)
                        .iter()
                        .any(|x| in_decoded(&x.at))
                })
            }
            Reading::Secrets => {
                let mut spans = Vec::new();
                self.0.decoded_by.iter().any(|p| {
                    spans.clear();
                    p.secrets(&searched, &mut spans);
                    spans.iter().any(in_decoded)
                })
            }
        }
    }
}

/// Which reading of a pattern a decoded match is searched with.
#[derive(Clone, Copy)]
enum Reading {
    Reported,
    Secrets,
}

#[cfg(test)]
mod tests;
