//! The run matcher against the regex, and which patterns take it.

use super::*;

fn pattern(p: &str) -> Pattern {
    Pattern::new(regex::Regex::new(p).unwrap())
}

/// Every pattern of the built-in rules compiles (they are compiled on first use, where a
/// failure would be a crash), and each one takes the run matcher.
#[test]
fn builtin_patterns_compile() {
    fn patterns(value: &toml::Value, out: &mut Vec<String>) {
        match value {
            toml::Value::Table(table) => {
                for (key, v) in table {
                    match (key.as_str(), v) {
                        ("matches" | "not-matches", toml::Value::String(p)) => out.push(p.clone()),
                        _ => patterns(v, out),
                    }
                }
            }
            toml::Value::Array(items) => items.iter().for_each(|v| patterns(v, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (name, text) in crate::rules::BUILTIN {
        let value: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        patterns(&value, &mut found);
    }
    assert!(found.len() >= 7, "patterns found: {found:?}");
    for source in &found {
        let deferred = Pattern::deferred(source);
        assert!(deferred.has_fast_path(), "{source}");
        assert!(build_regex(source).is_ok(), "{source}");
        assert_eq!(deferred.regex().as_str(), source.as_str());
    }
}

/// A deferred pattern answers as a compiled one, on ASCII and non-ASCII text alike, and its
/// clones share the regex once it is built.
#[test]
fn deferred_patterns_match_like_compiled_ones() {
    for source in PATTERNS {
        let deferred = Pattern::deferred(source);
        let clone = deferred.clone();
        let compiled = pattern(source);
        for text in [
            "",
            "sha256:",
            "alice/handbook@v1",
            "run/a/b@step=3",
            "é/ü",
            "a b\u{7f}",
        ] {
            assert_eq!(
                deferred.is_match(text),
                compiled.is_match(text),
                "{source} on {text:?}"
            );
        }
        assert!(std::ptr::eq(deferred.regex(), clone.regex()));
    }
}

/// First the built-in rules' seven patterns and a digest's positive form (all eight take
/// the run matcher), then shapes around them.
const PATTERNS: &[&str] = &[
    "^sha256:",
    r"^sha256:(?:[0-9a-f]{0,63}|[0-9a-f]{65,}|(?s:.)*[^0-9a-f](?s:.)*)$",
    r"^sha256:[0-9a-f]{64}$",
    r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*(@[A-Za-z0-9][A-Za-z0-9._+-]*)?$",
    r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$",
    r"^run/[^/@\s\p{Cc}]+/[^/@\s\p{Cc}]+(@step=[0-9]+)?$",
    r"[/@\s\p{Cc}]",
    r"^(/|\\|\./|\.\\|\.\./|\.\.\\|\.\.?$|~|(?i:file:)|[A-Za-z]:[\\/])",
    r"^a{2,3}b?$",
    r"^a{2,3}$",
    r"^[ab]{1,3}c",
    r"^x(a|ab|)$",
    r"^(?:ab|a)b?$",
    r"^.*$",
    r"^[a-c]*[c-e]$",
    r"^(?i)ab$",
    r"^é",
    r"\bword\b",
    r"^(?m)a$",
    r"^(ab)+$",
    r"a",
    r"ab",
    r"a+",
    r"a*",
    r"",
    r"^",
    r"$",
    r"^$",
    r"^a|b",
    r"(?s)^.{2}$",
    r"^\.\.?$",
    // Classes that hold every ASCII byte, or more, but not every character, around one byte,
    // then true "any character" spellings; classes past 0x7F, case folding past ASCII, `\z`.
    r"^(?:none|[\x00-\x7F]*-[\x00-\x7F]*)$",
    r"^(?:x|(?-u:[\x00-\x7F])*-(?-u:[\x00-\x7F])*)",
    r"^(?:x|[\x00-\x{FFFF}]*-[\x00-\x{FFFF}]*)$",
    r"^(?:x|[^é]*-[^é]*)$",
    r"^(?:x|.*-.*)$",
    r"^(?:x|[\s\S]*-\p{Any}*)$",
    r"(?s)^(?:x|.*-.*)$",
    r"[\x00-\x7F]",
    r"[a-é]+",
    r"^[a-é]+$",
    r"(?i)^k+$",
    r"^a\z",
];

/// Small random texts over the characters the patterns care about (some not ASCII: the
/// runs are tried on any text), plus digests of every length around 64.
fn texts() -> Vec<String> {
    let alphabet: Vec<char> = "sha256:0f9aAbBcCeEx/@.\\-_~+ \n\t\x01\x7frunstep=FiLe"
        .chars()
        .chain(['é', '\u{85}', '\u{2028}', '\u{212A}', 'ſ', '\u{1F600}'])
        .collect();
    let mut texts = vec![String::new()];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 12) as usize;
        let mut s = String::new();
        let mut x = seed;
        for _ in 0..len {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push(alphabet[(x >> 33) as usize % alphabet.len()]);
        }
        texts.push(s.clone());
        texts.push(format!("sha256:{s}"));
        texts.push(format!("run/{s}"));
    }
    for n in 60..70 {
        let hex: String = "0123456789abcdef".chars().cycle().take(n).collect();
        texts.push(format!("sha256:{hex}"));
        texts.push(format!("sha256:{}X", &hex[..n - 1]));
        texts.push(format!("sha256:{}", hex.to_uppercase()));
    }
    // One byte out of the set at every place of a long run (in and after 8-byte chunks).
    let hex: String = "0123456789abcdef".chars().cycle().take(64).collect();
    for at in 0..64 {
        texts.push(format!("sha256:{}g{}", &hex[..at], &hex[at + 1..]));
        texts.push(format!("{}/x{}", &hex[..at], &hex[at..]));
    }
    texts.extend(
        [
            "alice/gsm8k-8@v2",
            "alice/gsm8k@",
            "a/b@c@d",
            "run/a/b@step=12",
            "run/a/b@step=",
            "run/a/b/c",
            "..",
            ".",
            "...",
            "file:x",
            "FILE:",
            "C:\\x",
            "C:/x",
            "xab",
            "xa",
            "x",
            "abb",
        ]
        .map(String::from),
    );
    texts
}

#[test]
fn the_fast_path_agrees_with_the_regex_on_every_text() {
    let texts = texts();
    for p in PATTERNS {
        let pattern = pattern(p);
        for text in &texts {
            assert_eq!(
                pattern.is_match(text),
                pattern.regex().is_match(text),
                "pattern {p:?} on {text:?} (fast path: {})",
                pattern.has_fast_path()
            );
        }
    }
}

#[test]
fn the_built_in_patterns_take_the_fast_path_and_unsafe_shapes_do_not() {
    for p in &PATTERNS[..8] {
        assert!(pattern(p).has_fast_path(), "{p}");
    }
    // Greedy runs could miss a match here, or the shape is not runs at all.
    let long_literal = format!("^{}$", "ab".repeat(200));
    // Alternatives with different first letters (no common prefix for the parser to lift).
    let branches = |n: u8| {
        let alternatives: Vec<String> = (b'a'..b'a' + n)
            .map(|c| format!("{}[0-9]*", c as char))
            .collect();
        format!("^x(?:{})$", alternatives.join("|"))
    };
    assert!(pattern(&branches(3)).has_fast_path());
    // Around one byte, only classes of every character are skipped over.
    for p in [r"^(?:x|[\s\S]*-\p{Any}*)$", r"(?s)^(?:x|.*-.*)$"] {
        assert!(pattern(p).has_fast_path(), "{p}");
    }
    let many_branches = branches(20);
    for p in [
        long_literal.as_str(),
        many_branches.as_str(),
        r"^[a-c]*[c-e]$",
        r"^(?:ab|a)b?$",
        r"\bword\b",
        r"^(?m)a$",
        r"^(ab)+$",
        r"ab",
        r"^é",
        r"^(?:none|[\x00-\x7F]*-[\x00-\x7F]*)$",
        r"^(?:x|[\x00-\x{FFFF}]*-[\x00-\x{FFFF}]*)$",
        r"^(?:x|.*-.*)$",
    ] {
        assert!(!pattern(p).has_fast_path(), "{p}");
    }
}

#[test]
fn non_ascii_text_goes_to_the_regex() {
    let p = pattern(r"^[^/@\s\p{Cc}]+$");
    assert!(p.has_fast_path());
    assert!(p.is_match("naïve"));
    assert!(!p.is_match("a\u{85}b"), "U+0085 is a control character");
    assert!(!p.is_match("a\u{2028}b"), "U+2028 is white space");
}

/// `[\x00-\x7F]*` holds every ASCII byte but no other character: it is not `(?s:.)*`, and the
/// run matcher must not read `^(?:…|[\x00-\x7F]*-[\x00-\x7F]*)$` as "has a `-`".
#[test]
fn an_ascii_star_is_not_any_character() {
    let p = pattern(r"^(?:none|[\x00-\x7F]*-[\x00-\x7F]*)$");
    assert!(!p.regex().is_match("héllo-world"));
    assert!(!p.is_match("héllo-world"));
    assert!(p.is_match("hello-world"));
    assert!(p.is_match("none"));
}

/// Every text check's `pattern` of the built-in rules compiles: they too are compiled on first
/// use (a run that reads no experiment file never compiles them).
#[test]
fn builtin_text_patterns_compile() {
    let mut found = 0;
    for (name, text) in crate::rules::BUILTIN {
        let value: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for check in value
            .get("check")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(source) = check.get("pattern").and_then(toml::Value::as_str) {
                assert!(build_regex(source).is_ok(), "{name}: {source}");
                assert_eq!(Pattern::lazy(source).regex().as_str(), source);
                found += 1;
            }
        }
    }
    assert!(found >= 7, "text patterns found: {found}");
}

/// The analyses `build.rs` made of the built-in rules' patterns are the ones a start would
/// make from their parse, written and read back whole; the table is sorted for its search.
#[test]
fn prebuilt_analyses_are_those_of_the_parse() {
    use analysis::gate::Literals;
    assert!(PREBUILT.len() >= 15, "{}", PREBUILT.len());
    assert!(PREBUILT.windows(2).all(|w| w[0].0 < w[1].0));
    for &(source, runs, literals) in PREBUILT {
        let hir = regex_syntax::Parser::new().parse(source).expect("parses");
        let read_runs = runs.map(|b| analysis::read_all(b, Runs::read).expect("runs read back"));
        assert_eq!(read_runs, Runs::from_hir(&hir), "{source}");
        let read_literals =
            literals.map(|b| analysis::read_all(b, Literals::read).expect("literals read back"));
        assert_eq!(read_literals, Literals::of(&hir), "{source}");
        // Cut short or lengthened, the bytes are refused, not misread.
        if let Some(bytes) = runs {
            assert!(analysis::read_all(&bytes[..bytes.len() - 1], Runs::read).is_none());
            assert!(analysis::read_all(&[bytes, &[0]].concat(), Runs::read).is_none());
        }
        if let Some(bytes) = literals {
            assert!(analysis::read_all(&bytes[..bytes.len() - 1], Literals::read).is_none());
            assert!(analysis::read_all(&[bytes, &[0]].concat(), Literals::read).is_none());
        }
    }
    // A pattern of no rule is analysed when first used, as before.
    assert!(!is_prebuilt("^x[0-9]{3}$"));
    assert!(pattern("^x[0-9]{3}$").is_match("x123"));
    assert!(is_prebuilt("^sha256:"));
}
