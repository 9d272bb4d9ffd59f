//! A built-in text pattern's gate: what every match holds, taken from the parsed pattern and
//! searched in a text before the pattern is compiled — the literals one of which begins every
//! match, and a run of bytes of one class the match cannot do without (`[0-9a-f]{40}`).
//!
//! Compiling `exp-secret`'s seven patterns took 4.7 M instructions, most of a pre-commit run
//! that lints one spec and its experiment, for texts that hold none of `hf_`, `AKIA`, `ghp_`,
//! `sk-`, `-----BEGIN ` (nearly all). A text without one of a pattern's literals cannot match
//! it, so the pattern is compiled only for a text that has one. The run matters where the
//! literal is common: a config that says `wandb_enabled: false` holds `wandb` but no run of 40
//! hex digits, and compiling the W&B pattern for it was 2.8 M instructions.

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, Hir, HirKind};

/// What every match of a pattern holds (each part searched ignoring ASCII case where it says
/// so, which finds them all and a few more: a text with them still goes to the regex).
#[derive(Debug)]
pub(super) struct Gate {
    /// ASCII-lowercased, none the prefix of another; `None` when a match may begin anywhere.
    needles: Option<Vec<Box<[u8]>>>,
    /// A searcher for each needle, made once: setting one up costs more than searching a
    /// short file with it.
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// A run every match holds; `None` when there is none worth a scan.
    run: Option<Run>,
}

/// At least `min` bytes in a row from `set` (ASCII only: a text's other bytes are parts of
/// characters no ASCII class holds).
#[derive(Debug)]
struct Run {
    set: [bool; 128],
    min: usize,
}

/// Shorter runs are too common to tell texts apart.
const MIN_RUN: usize = 8;

impl Gate {
    /// The gate of `source`: `None` when a match may begin with anything (a pattern that
    /// starts with a wide class, or matches the empty string) and holds no long run.
    pub(super) fn of(source: &str) -> Option<Gate> {
        let hir = regex_syntax::Parser::new().parse(source).ok()?;
        let needles = prefix_needles(&hir);
        let run = required_run(&hir).filter(|run| run.min >= MIN_RUN);
        let finders = needles
            .iter()
            .flatten()
            .map(|n| memchr::memmem::Finder::new(n).into_owned())
            .collect();
        (needles.is_some() || run.is_some()).then_some(Gate {
            needles,
            finders,
            run,
        })
    }

    /// Whether `text` may hold a match: false when it lacks one of the gate's parts.
    pub(super) fn may_match(&self, text: &[u8]) -> bool {
        self.needles.as_ref().is_none_or(|needles| {
            needles
                .iter()
                .any(|needle| contains_ignoring_ascii_case(text, needle))
        }) && self.run.as_ref().is_none_or(|run| run.is_in(text))
    }

    /// [`Gate::may_match`] for a text whose ASCII-lowercased copy, `lower`, is at hand (a
    /// file's checks share one): each needle is then one vectorised search, where ignoring
    /// case stops at every place of the needle's first letter (`h` for `hf_`). The run is
    /// looked for in the text as written: its class may hold one case only.
    pub(super) fn may_match_lowered(&self, text: &[u8], lower: &[u8]) -> bool {
        (self.needles.is_none() || self.finders.iter().any(|f| f.find(lower).is_some()))
            && self.run.as_ref().is_none_or(|run| run.is_in(text))
    }
}

/// The literals, one of which begins every match: a finite sequence of prefixes (exact or
/// not); the extractor's limits make it shorter or infinite, never wrong.
fn prefix_needles(hir: &Hir) -> Option<Vec<Box<[u8]>>> {
    let seq = Extractor::new()
        .kind(ExtractKind::Prefix)
        .extract(&fold_ascii_case(hir));
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
    Some(needles)
}

/// `hir` with each class of one ASCII letter in both cases (`(?i)w` is `[Ww]`) made that
/// letter: the needles are searched ignoring ASCII case anyway, and the extractor then makes
/// one literal of `(?i)password`, not 256 (crossing them was most of the gate's cost).
fn fold_ascii_case(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Class(class) => match ascii_letter(class) {
            Some(letter) => Hir::literal([letter]),
            None => hir.clone(),
        },
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(fold_ascii_case).collect()),
        HirKind::Alternation(parts) => {
            Hir::alternation(parts.iter().map(fold_ascii_case).collect())
        }
        HirKind::Capture(capture) => Hir::capture(regex_syntax::hir::Capture {
            index: capture.index,
            name: capture.name.clone(),
            sub: Box::new(fold_ascii_case(&capture.sub)),
        }),
        HirKind::Repetition(rep) => Hir::repetition(regex_syntax::hir::Repetition {
            min: rep.min,
            max: rep.max,
            greedy: rep.greedy,
            sub: Box::new(fold_ascii_case(&rep.sub)),
        }),
        _ => hir.clone(),
    }
}

/// The lowercase letter of a class that is exactly that letter in both cases.
fn ascii_letter(class: &Class) -> Option<u8> {
    let Class::Unicode(c) = class else {
        return None;
    };
    let chars: Vec<char> = c.iter().flat_map(|r| r.start()..=r.end()).take(3).collect();
    match chars[..] {
        [upper, lower] if upper.is_ascii_uppercase() && lower == upper.to_ascii_lowercase() => {
            u8::try_from(lower).ok()
        }
        _ => None,
    }
}

/// The longest run of one ASCII class that every match of `hir` holds: a repetition of a
/// class at least `min` times, in the pattern's top-level sequence (through groups and
/// repetitions that happen at least once; not inside an alternation, whose other branch may
/// do without it).
fn required_run(hir: &Hir) -> Option<Run> {
    match hir.kind() {
        HirKind::Capture(capture) => required_run(&capture.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .filter_map(required_run)
            .max_by_key(|run| run.min),
        HirKind::Repetition(rep) if rep.min >= 1 => match rep.sub.kind() {
            HirKind::Class(class) => Some(Run {
                set: ascii_set(class)?,
                min: usize::try_from(rep.min).ok()?,
            }),
            _ => required_run(&rep.sub),
        },
        _ => None,
    }
}

/// The class as a table of ASCII bytes; `None` when it holds anything else.
fn ascii_set(class: &Class) -> Option<[bool; 128]> {
    let mut set = [false; 128];
    let mut mark = |start: u32, end: u32| -> Option<()> {
        for c in start..=end {
            *set.get_mut(usize::try_from(c).ok()?)? = true;
        }
        Some(())
    };
    match class {
        Class::Unicode(c) => c
            .iter()
            .try_for_each(|r| mark(u32::from(r.start()), u32::from(r.end())))?,
        Class::Bytes(c) => c
            .iter()
            .try_for_each(|r| mark(u32::from(r.start()), u32::from(r.end())))?,
    }
    Some(set)
}

impl Run {
    /// Whether `text` holds `min` bytes of the set in a row. Linear in the text.
    fn is_in(&self, text: &[u8]) -> bool {
        let mut length = 0;
        for &b in text {
            if self.set.get(usize::from(b)).copied().unwrap_or(false) {
                length += 1;
                if length >= self.min {
                    return true;
                }
            } else {
                length = 0;
            }
        }
        false
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
            "kind: Secret\ndata:\n  token: aGZfUXBaa1ZiWHdMbU5yVHNZdUNk\n",
            "wandb:\n  api_key: 0123456789abcdef0123456789abcdef01234567\n",
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
                    let lower = text.to_ascii_lowercase();
                    assert!(
                        gate.may_match_lowered(text.as_bytes(), lower.as_bytes()),
                        "{source} on {text:?}, lowered"
                    );
                }
            }
            assert!(!gate.may_match(b"import os\nCORPUS = os.environ['DOCS_DIR']\n"));
        }
    }

    #[test]
    fn runs_every_match_holds() {
        // The W&B pattern's literal is common; its 40 hex digits are not.
        let wandb = Gate::of(
            r"(?i)(?:wandb[a-z0-9_]*?key|(?-u:\b)api_?key)[^a-z0-9_]{0,8}?(?P<at>[0-9a-f]{40})",
        )
        .expect("a gate");
        assert!(!wandb.may_match(b"logger:\n  wandb_enabled: false\n"));
        assert!(!wandb.may_match(b"wandb_key: 0123456789abcdef0123456789abcdef0123456"));
        assert!(wandb.may_match(b"WANDB_KEY=0123456789ABCDEF0123456789abcdef01234567"));
        // No literal begins a match, but every match holds 16 base64 characters.
        let base64 =
            Gate::of(r"(?m)^[ \t]*[A-Za-z0-9_.-]+:[ \t]*(?P<at>[A-Za-z0-9+/]{16,}={0,2})$")
                .expect("a gate");
        assert!(base64.needles.is_none());
        assert!(!base64.may_match(b"name: short\nlr: 0.0001\n"));
        assert!(base64.may_match(b"token: aGZfUXBaa1ZiWHdMbU5y\n"));
        // Short runs, runs inside an alternation, optional runs and non-ASCII classes: none.
        assert!(Gate::of("[a-z]{3}").is_none());
        assert!(Gate::of("x[0-9]{40}|y").expect("a gate").run.is_none());
        assert!(Gate::of("[0-9]{0,40}").is_none());
        assert!(Gate::of("[a-zé]{40}").is_none());
        // A run in a group that must match, and a run of a repeated group.
        assert!(Gate::of("(?:[0-9]{12})+").expect("a gate").run.is_some());
        let nested = Gate::of("(a(?P<x>[0-9]{12}))").expect("a gate");
        assert!(!nested.may_match(b"a01234567890"));
        assert!(nested.may_match(b"a012345678901"));
    }

    #[test]
    fn gates_of_odd_patterns() {
        // Matches anything, or the empty string: no gate.
        assert!(Gate::of(".").is_none());
        assert!(Gate::of("x*").is_none());
        assert!(Gate::of("[a-z]+").is_none());
        // Case-insensitive literals, alternations, a literal that extends another.
        let gate = Gate::of("(?i)abc|abcd|xyz").expect("a gate");
        assert_eq!(gate.needles.as_ref().map(Vec::len), Some(2));
        for yes in ["..ABC", "aBc", "zzXyZ"] {
            assert!(gate.may_match(yes.as_bytes()), "{yes}");
        }
        for no in ["ab", "xy", "", "a b c"] {
            assert!(!gate.may_match(no.as_bytes()), "{no}");
        }
        // Case-insensitive letters are one byte each; `k` and `s` keep their other forms
        // (the Kelvin sign, the long s): 2 × 2 + 4 needles, not thousands.
        let gate = Gate::of("(?i)password|api_?key").expect("a gate");
        assert_eq!(gate.needles.as_ref().map(Vec::len), Some(8), "{gate:?}");
        assert!(gate.may_match(b"PassWord = x"));
        assert!(gate.may_match(b"x.API_KEY"));
        let kelvin = Gate::of("(?i)key").expect("a gate");
        assert!(kelvin.may_match("\u{212A}ey".as_bytes()));
        assert!(!kelvin.may_match(b"ley"));
        // Non-ASCII literals are searched byte for byte.
        let gate = Gate::of("é+x").expect("a gate");
        assert!(gate.may_match("aéx".as_bytes()));
        assert!(!gate.may_match("aÉx".as_bytes()));
    }
}
