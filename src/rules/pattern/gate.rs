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

use super::analysis::gate::Literals;

/// What every match of a pattern holds ([`Literals`]), with a searcher for each literal.
#[derive(Debug)]
pub(super) struct Gate {
    literals: Literals,
    /// A searcher for each needle, made once: setting one up costs more than searching a
    /// short file with it.
    finders: Vec<memchr::memmem::Finder<'static>>,
}

impl Gate {
    /// The gate of `source`: `None` when a match may begin with anything and holds no long
    /// run, or `source` does not parse.
    pub(super) fn of(source: &str) -> Option<Gate> {
        let hir = regex_syntax::Parser::new().parse(source).ok()?;
        Literals::of(&hir).map(Gate::new)
    }

    pub(super) fn new(literals: Literals) -> Gate {
        let finders = literals
            .needles
            .iter()
            .flatten()
            .map(|n| memchr::memmem::Finder::new(n).into_owned())
            .collect();
        Gate { literals, finders }
    }

    /// Whether `text` may hold a match: false when it lacks one of the gate's parts.
    pub(super) fn may_match(&self, text: &[u8]) -> bool {
        self.literals.needles.as_ref().is_none_or(|needles| {
            needles
                .iter()
                .any(|needle| contains_ignoring_ascii_case(text, needle))
        }) && self.literals.run.as_ref().is_none_or(|run| run.is_in(text))
    }

    /// [`Gate::may_match`] for a text whose ASCII-lowercased copy, `lower`, is at hand (a
    /// file's checks share one): each needle is then one vectorised search, where ignoring
    /// case stops at every place of the needle's first letter (`h` for `hf_`). The run is
    /// looked for in the text as written: its class may hold one case only.
    pub(super) fn may_match_lowered(&self, text: &[u8], lower: &[u8]) -> bool {
        (self.literals.needles.is_none() || self.finders.iter().any(|f| f.find(lower).is_some()))
            && self.literals.run.as_ref().is_none_or(|run| run.is_in(text))
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
        assert!(base64.literals.needles.is_none());
        assert!(!base64.may_match(b"name: short\nlr: 0.0001\n"));
        assert!(base64.may_match(b"token: aGZfUXBaa1ZiWHdMbU5y\n"));
        // Short runs, runs inside an alternation, optional runs and non-ASCII classes: none.
        assert!(Gate::of("[a-z]{3}").is_none());
        assert!(Gate::of("x[0-9]{40}|y")
            .expect("a gate")
            .literals
            .run
            .is_none());
        assert!(Gate::of("[0-9]{0,40}").is_none());
        assert!(Gate::of("[a-zé]{40}").is_none());
        // A run in a group that must match, and a run of a repeated group.
        assert!(Gate::of("(?:[0-9]{12})+")
            .expect("a gate")
            .literals
            .run
            .is_some());
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
        assert_eq!(gate.literals.needles.as_ref().map(Vec::len), Some(2));
        for yes in ["..ABC", "aBc", "zzXyZ"] {
            assert!(gate.may_match(yes.as_bytes()), "{yes}");
        }
        for no in ["ab", "xy", "", "a b c"] {
            assert!(!gate.may_match(no.as_bytes()), "{no}");
        }
        // Case-insensitive letters are one byte each; `k` and `s` keep their other forms
        // (the Kelvin sign, the long s): 2 × 2 + 4 needles, not thousands.
        let gate = Gate::of("(?i)password|api_?key").expect("a gate");
        assert_eq!(
            gate.literals.needles.as_ref().map(Vec::len),
            Some(8),
            "{gate:?}"
        );
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
