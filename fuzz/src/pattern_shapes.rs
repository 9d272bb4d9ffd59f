//! Patterns of the shapes the run matcher of `forgelint::rules::Pattern` takes, and texts for
//! them, decoded from bytes: shared by the `pattern_shapes` fuzz target, the property test
//! `tests/pattern_shapes.rs` and the regression replay (`tests/fuzz_regressions.rs`).
//!
//! Arbitrary regular expressions rarely take the run matcher (the `pattern` target found about
//! one in nine in its corpus), and random texts rarely hold the characters where it can go
//! wrong; here every input is a candidate shape over a small alphabet that mixes ASCII with the
//! characters classes disagree on past 0x7F. Any byte string decodes (missing bytes read as 0),
//! and 0 picks the simplest choice, so a shrunk input gives a short pattern.
//!
//! The saved inputs `tests/data/fuzz-regressions/pattern_shapes-*` mean what this decoding makes
//! of them: a change to it changes them (`tests/fuzz_regressions.rs` checks what four decode to).

use forgelint::rules::Pattern;

/// Single items, each repeatable as a whole: literals and classes, some crossing 0x7F, some
/// case-insensitive or byte classes, that hold few of the text's characters...
const NARROW: &[&str] = &[
    "a",
    "-",
    "b",
    "[a-c]",
    "é",
    "[a-é]",
    "[\\x70-\\x{100}]",
    "[é-]",
    "\\d",
    "\\s",
    "\\w",
    "(?i:k)",
    "(?i:s)",
    "(?i:[a-k])",
    "(?-u:[a-c])",
    "(?-u:\\w)",
    "\\x00",
    "\\n",
    "\\p{Cc}",
    "[^\\x00-\\x{10FFFF}]",
    "(?:ab)",
    "(?:a|b)",
];

/// ... and the dots and negated classes, which hold most of them. A variable run of one of these
/// followed by anything is rarely a shape the run matcher takes (greedy could take too much), so
/// they are a quarter of the picks.
const BROAD: &[&str] = &[
    ".",
    "(?s:.)",
    "[^a]",
    "[\\x00-\\x7F]",
    "[^-/]",
    "\\D",
    "\\S",
    "[\\x00-\\x{FFFF}]",
    "[\\s\\S]",
    "\\p{Any}",
    "[^\\n]",
    "[[:^alpha:]]",
    "[^é]",
];

/// Repetitions; the empty one (a single item) comes first and twice, as the most common.
const REPEATS: &[&str] = &[
    "", "", "*", "+", "?", "{2}", "{0,2}", "{1,3}", "{2,}", "*?", "{0}",
];

/// The repeated item around the one character of a "contains" branch (`(?s:.)*-(?s:.)*`): the
/// true "any character" spellings and classes that hold every ASCII byte but not every character.
const ANY: &[&str] = &[
    "(?s:.)",
    "[\\x00-\\x7F]",
    ".",
    "[\\s\\S]",
    "\\p{Any}",
    "[\\x00-\\x{FFFF}]",
    "[^\\n]",
    "(?-u:[\\x00-\\x7F])",
    "[\\x00-\\x{10FFFF}]",
    "[^é]",
];

/// The characters of the texts: what the atoms name, then characters past 0x7F that some of the
/// classes hold (é, U+0100, Kelvin K, long s, an Arabic-Indic digit, NEL, U+2028, an emoji, the
/// last code point) and NUL, newline, DEL.
const ALPHABET: &[char] = &[
    'a',
    '-',
    'b',
    'c',
    'é',
    'k',
    's',
    'K',
    'S',
    '/',
    '0',
    ' ',
    '\n',
    '\0',
    '\x7f',
    'x',
    '_',
    '\u{100}',
    '\u{212A}',
    'ſ',
    '٣',
    '\u{85}',
    '\u{2028}',
    '😀',
    '\u{10FFFF}',
    '\u{FFFF}',
];

/// The longest text decoded.
const MAX_TEXT: usize = 24;

/// Reads the input one byte at a time; past its end every byte is 0.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn pick<T: Copy>(&mut self, menu: &[T]) -> T {
        menu[usize::from(self.byte()) % menu.len()]
    }

    fn below(&mut self, n: u8) -> u8 {
        self.byte() % n
    }

    fn atom(&mut self) -> &'static str {
        let b = usize::from(self.byte());
        if b < 192 {
            NARROW[b % NARROW.len()]
        } else {
            BROAD[b % BROAD.len()]
        }
    }

    /// `count` items, each an atom and a repetition.
    fn items(&mut self, count: u8, out: &mut String) {
        for _ in 0..count {
            out.push_str(self.atom());
            out.push_str(self.pick(REPEATS));
        }
    }
}

/// The pattern and the text that `bytes` stand for.
///
/// The first byte is a set of flags. Bits 0-1: 3 leaves the pattern unanchored, and then it has
/// no tail and most often a single item (the one unanchored shape the run matcher takes). Bit 2
/// ends it with `$`. Bits 3-4 choose the tail: none, an optional group, an alternation, or an
/// alternation with a "contains" branch. Bit 5 sets `(?s)`. Bits 6-7: 1 sets `(?U)` (lazy
/// repetitions), 2 ends with `\z` instead of `$`, 3 sets `(?m)`. Then come the number of head
/// items and the items, the tail, and the text: each remaining byte is a character of
/// [`ALPHABET`].
///
/// No `(?i)` for the whole pattern: case folding `\p{Any}` takes some 35 ms in a debug build,
/// and the atoms have case-insensitive items of their own.
pub fn decode(bytes: &[u8]) -> (String, String) {
    let mut r = Reader { bytes, at: 0 };
    let flags = r.byte();
    let anchored = flags & 3 != 3;
    let mode = flags >> 6;
    let mut pattern = String::new();
    for (on, flag) in [
        (flags & (1 << 5) != 0, "(?s)"),
        (mode == 1, "(?U)"),
        (mode == 3, "(?m)"),
    ] {
        if on {
            pattern.push_str(flag);
        }
    }
    let tail = if anchored { (flags >> 3) & 3 } else { 0 };
    let head = if anchored {
        pattern.push('^');
        // Before a "contains" branch only a head of fixed length is taken: a shorter one.
        r.below(if tail == 3 { 2 } else { 4 })
    } else {
        1 + u8::from(r.below(4) == 3)
    };
    r.items(head, &mut pattern);
    match tail {
        0 => {}
        1 => {
            pattern.push_str("(?:");
            let n = 1 + r.below(3);
            r.items(n, &mut pattern);
            pattern.push_str(")?");
        }
        tail => {
            pattern.push_str("(?:");
            let branches = 2 + r.below(3);
            for i in 0..branches {
                if i > 0 {
                    pattern.push('|');
                }
                if tail == 3 && i + 1 == branches {
                    // `ANY*` one item `ANY*`, the two ANY alike or not.
                    let before = r.pick(ANY);
                    let after = if r.below(2) == 0 { before } else { r.pick(ANY) };
                    pattern.push_str(before);
                    pattern.push('*');
                    pattern.push_str(r.atom());
                    pattern.push_str(after);
                    pattern.push('*');
                } else {
                    let n = r.below(4);
                    r.items(n, &mut pattern);
                    if r.below(4) == 3 {
                        pattern.push('$');
                    }
                }
            }
            pattern.push(')');
        }
    }
    if flags & (1 << 2) != 0 {
        pattern.push_str(if mode == 2 { "\\z" } else { "$" });
    }
    let text = bytes
        .get(r.at..)
        .unwrap_or_default()
        .iter()
        .take(MAX_TEXT)
        .map(|&b| ALPHABET[usize::from(b) % ALPHABET.len()])
        .collect();
    (pattern, text)
}

/// The pattern decoded from `bytes`, if the regex crate compiles it (a few shapes do not: a
/// byte class under `(?i)` that could match a non-ASCII byte, say), answers `is_match` as the
/// regex does on the decoded text and on each of its prefixes.
pub fn check_pattern_shapes(bytes: &[u8]) {
    let (source, text) = decode(bytes);
    let Ok(regex) = regex::Regex::new(&source) else {
        return;
    };
    let pattern = Pattern::new(regex.clone());
    let ends = text.char_indices().map(|(i, _)| i).chain([text.len()]);
    for end in ends {
        let text = &text[..end];
        assert_eq!(
            pattern.is_match(text),
            regex.is_match(text),
            "pattern {source:?} on {text:?} (fast path: {})",
            pattern.has_fast_path()
        );
    }
}
