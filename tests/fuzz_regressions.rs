//! Fuzz regressions: every input saved in `tests/data/fuzz-regressions/`, named
//! `<target>-<short-name>`, is replayed through the property checks of its fuzz target
//! (`fuzz/fuzz_targets/<target>.rs`). The checks live in `fuzz/src/lib.rs`, shared with the
//! targets, so a test here fails when the fuzz target would (the replay uses the strict checks,
//! without the rule_file target's allowance for known bugs).
//!
//! The input of a known, unfixed bug is listed in `KNOWN_BUGS`: the replay skips it and its own
//! ignored test (`cargo test --test tests fuzz_regressions -- --ignored`) shows the failure.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

#[path = "../fuzz/src/lib.rs"]
pub(crate) mod props;

/// A property check on an input's raw bytes.
type Check = fn(&[u8]);

/// The fuzz targets, each with its check as it calls it on the raw input bytes.
const TARGETS: [(&str, Check); 7] = [
    ("json_parse", props::check_json_parse),
    ("lint_spec", props::check_lint_spec),
    ("rule_file", |b| {
        props::fuzz_rule_file(&String::from_utf8_lossy(b))
    }),
    ("selector", |b| {
        props::check_selector(&String::from_utf8_lossy(b))
    }),
    ("pattern", props::check_pattern),
    ("pattern_shapes", props::check_pattern_shapes),
    ("experiment_file", props::check_experiment_file),
];

/// Inputs of bugs not fixed yet, skipped by the replay; each would have an ignored test below.
const KNOWN_BUGS: [&str; 0] = [];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-regressions")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `(name, bytes)` of every saved input of `target`, sorted by name.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir())
        .expect("tests/data/fuzz-regressions")
        .map(|e| e.expect("a directory entry").file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.strip_prefix(target).is_some_and(|r| r.starts_with('-')))
        .map(|n| {
            let bytes = read(&n);
            (n, bytes)
        })
        .collect();
    out.sort();
    out
}

/// Replays every input of `target` but the known bugs; fails naming every input that fails.
fn replay(target: &str) {
    let check = TARGETS
        .iter()
        .find(|(t, _)| *t == target)
        .map(|(_, check)| *check)
        .expect("a known target");
    let mut ran = 0;
    let mut failed = Vec::new();
    for (name, bytes) in inputs(target) {
        if KNOWN_BUGS.contains(&name.as_str()) {
            continue;
        }
        ran += 1;
        if catch_unwind(AssertUnwindSafe(|| check(&bytes))).is_err() {
            failed.push(name);
        }
    }
    assert!(
        ran > 0,
        "no input for {target} in tests/data/fuzz-regressions"
    );
    assert!(failed.is_empty(), "{target}: these inputs fail: {failed:?}");
}

#[test]
fn json_parse_inputs_hold() {
    replay("json_parse");
}

#[test]
fn lint_spec_inputs_hold() {
    replay("lint_spec");
}

#[test]
fn rule_file_inputs_hold() {
    replay("rule_file");
}

#[test]
fn selector_inputs_hold() {
    replay("selector");
}

#[test]
fn pattern_inputs_hold() {
    replay("pattern");
}

#[test]
fn pattern_shapes_inputs_hold() {
    replay("pattern_shapes");
}

#[test]
fn every_input_names_a_target() {
    let targets: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
    for entry in std::fs::read_dir(dir()).expect("tests/data/fuzz-regressions") {
        let name = entry.expect("a directory entry").file_name();
        let name = name.to_string_lossy();
        let target = name.split_once('-').map_or("", |(t, _)| t);
        assert!(
            targets.contains(&target),
            "{name}: not named <target>-<short-name> with a target among {targets:?}"
        );
    }
    for bug in KNOWN_BUGS {
        assert!(dir().join(bug).is_file(), "known bug {bug} has no input");
    }
}

/// Found by the lint_spec target at a2df953 (fixed since): the `invalid-json` finding of a
/// non-UTF-8 file had a span measured in its lossy text, 0..3 for the 1-byte file [0xE9].
#[test]
fn invalid_utf8_span_stays_inside_the_file() {
    let bytes = read("lint_spec-invalid-utf8-lone-byte");
    assert_eq!(bytes, b"\xE9");
    let findings = props::lint(&bytes);
    assert_eq!(findings.len(), 1);
    assert_eq!((findings[0].span.start, findings[0].span.end), (0, 1));
    props::check_findings(&bytes, &findings);
}

/// The parser agrees with serde_json on the documents the properties single out.
#[test]
fn the_serde_json_exceptions_are_real() {
    // serde_json's depth limit, as the json_parse property assumes it.
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let at_limit = format!("{{\"a\":{}}}", nested(props::SERDE_JSON_MAX_DEPTH - 1));
    assert!(serde_json::from_str::<serde_json::Value>(&at_limit).is_ok());
    let past = format!("{{\"a\":{}}}", nested(props::SERDE_JSON_MAX_DEPTH + 1));
    assert!(serde_json::from_str::<serde_json::Value>(&past).is_err());
    assert!(forgelint::json::parse(&past).is_ok());
    // Lone surrogates: we decode them to U+FFFD, serde_json refuses them.
    for text in [
        r#"{"a": "\ud800"}"#,
        r#"{"a": "\udc00x"}"#,
        r#"{"a": "\ud800\u0041"}"#,
    ] {
        assert!(props::has_lone_surrogate_escape(text), "{text}");
        assert!(
            serde_json::from_str::<serde_json::Value>(text).is_err(),
            "{text}"
        );
        assert!(forgelint::json::parse(text).is_ok(), "{text}");
    }
    for text in [r#"{"a": "\ud83d\ude00"}"#, r#"{"\\ud800": "\\udc00"}"#] {
        assert!(!props::has_lone_surrogate_escape(text), "{text}");
    }
}

#[test]
fn bug_template_error_span_inside_escape() {
    let text = String::from_utf8(read("rule_file-template-error-span-inside-escape")).unwrap();
    assert!(text.contains(r#"message = "\u00e9\u00e9\u00e9 {nope}""#));
    props::check_rule_file(&text);
}

#[test]
fn bug_template_error_span_multiline_string() {
    let text = String::from_utf8(read("rule_file-template-error-span-multiline-string")).unwrap();
    assert!(text.contains("message = '''\nab {nope}'''"));
    props::check_rule_file(&text);
}

#[test]
fn bug_selector_error_span_inside_escape() {
    let text = String::from_utf8(read("rule_file-selector-error-span-inside-escape")).unwrap();
    assert!(text.contains(r#"select = "\u00e9\u00e9\u00e9\u00e9 a""#));
    props::check_rule_file(&text);
    let err = forgelint::rules::compile_rule("t.toml", text.as_str().into(), false).unwrap_err();
    let span = err.span.clone().expect("a span");
    assert_eq!(&text[span], " ", "{}", err.message);
}

#[test]
fn bug_template_error_span_after_escape_fuzzed() {
    let bytes = read("rule_file-template-error-span-after-escape-fuzzed");
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains(r#"message = "erved for project \"rlhfempty i"#));
    props::check_rule_file(&text);
}

/// Found by the property test `tests/pattern_shapes.rs` (fixed since): the run matcher read a
/// "contains" branch around a class that holds every ASCII byte, or more, as "any character",
/// and said yes where the regex says no. Each input pins the decoding of its pattern and text.
#[test]
fn bug_star_of_ascii_class_taken_for_any_character() {
    for (name, class, text) in [
        ("ascii-star-is-not-any", r"[\x00-\x7F]", "é-"),
        ("byte-class-star-is-not-any", r"(?-u:[\x00-\x7F])", "é-"),
        ("bmp-star-is-not-any", r"[\x00-\x{FFFF}]", "😀-"),
        ("negated-class-star-is-not-any", "[^é]", "é-"),
    ] {
        let bytes = read(&format!("pattern_shapes-{name}"));
        let pattern = format!("^(?:a|{class}*-{class}*)$");
        assert_eq!(
            props::decode_pattern_shape(&bytes),
            (pattern.clone(), text.to_string())
        );
        assert!(!regex::Regex::new(&pattern).unwrap().is_match(text));
        props::check_pattern_shapes(&bytes);
    }
}
