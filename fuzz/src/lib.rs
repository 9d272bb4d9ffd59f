//! The property checks of the fuzz targets, shared with the regression test.
//!
//! Each `check_*` function takes one input exactly as its fuzz target receives it and panics with
//! a description when a property fails (a panic inside forgelint fails it too). The targets in
//! `fuzz_targets/` call them; `tests/fuzz_regressions.rs` in the main crate includes this file
//! with `#[path]` and replays every saved input through them. It needs only `forgelint`,
//! `regex`, `serde_json` and `std`, so it compiles in both places.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use forgelint::catalog::Catalog;
use forgelint::diagnostic::{Finding, LineIndex, Span};
use forgelint::engine::{lint_bytes, Active};
use forgelint::json::{self, Document, NodeId, Value};
use forgelint::platform_facts::Platform;
use forgelint::project::VirtualProject;
use forgelint::rules::{compile_rule, Pattern, Rule, RuleSet, REFERENCE_CATALOG};
use forgelint::select::{Selector, SelectorTable};

/// serde_json refuses nesting deeper than this (its recursion limit); ours goes to
/// [`json::MAX_DEPTH`].
pub const SERDE_JSON_MAX_DEPTH: usize = 127;

// ---------------------------------------------------------------------------------------------
// json_parse

/// `parse_bytes` never panics; an error's offset is inside the input; every span of an accepted
/// document covers its token; and the parser agrees with serde_json:
///
/// - serde_json accepts an object (no BOM) ⇒ we accept it, and — without duplicate keys or lone
///   surrogate escapes — every value is the same (strings exactly, numbers as integers or by f64);
/// - we accept ⇒ serde_json accepts, unless the input nests deeper than serde_json's limit, has a
///   lone surrogate escape (we decode it to U+FFFD) or a number too large for an f64 (serde_json
///   refuses those as "number out of range").
pub fn check_json_parse(bytes: &[u8]) {
    let ours = json::parse_bytes(bytes);
    if let Err(e) = &ours {
        assert!(
            e.offset <= bytes.len(),
            "error offset {} is past the end of the {}-byte input: {}",
            e.offset,
            bytes.len(),
            e.message
        );
    }
    let theirs = serde_json::from_slice::<serde_json::Value>(bytes);
    let has_bom = bytes.starts_with(b"\xEF\xBB\xBF");
    if let Ok(value) = &theirs {
        if value.is_object() && !has_bom {
            if let Err(e) = &ours {
                panic!(
                    "serde_json accepts this object but we refuse it at offset {}: {}",
                    e.offset, e.message
                );
            }
        }
    }
    let Ok(doc) = &ours else { return };
    let text = std::str::from_utf8(bytes).expect("an accepted document is UTF-8");
    assert!(!has_bom, "we accepted a document that starts with a BOM");
    check_document_spans(doc, text);
    let lone_surrogate = has_lone_surrogate_escape(text);
    match &theirs {
        Err(e) => {
            let depth = max_depth(doc);
            let huge_number = has_non_finite_number(doc);
            assert!(
                depth > SERDE_JSON_MAX_DEPTH || lone_surrogate || huge_number,
                "we accept this document (depth {depth}) but serde_json refuses it: {e}"
            );
        }
        Ok(value) => {
            assert!(value.is_object(), "we accepted a non-object top level");
            if doc.duplicates.is_empty() && !lone_surrogate {
                compare_values(doc, doc.root(), value, &mut String::new());
            }
        }
    }
}

/// Every node's span lies inside `text` on char boundaries and covers its own token.
fn check_document_spans(doc: &Document<'_>, text: &str) {
    let mut stack = vec![doc.root()];
    while let Some(id) = stack.pop() {
        let span = doc.span(id);
        let token = span_text(text, span, "a value");
        let first = token.as_bytes().first().copied();
        let last = token.as_bytes().last().copied();
        match doc.value(id) {
            Value::Null => assert_eq!(token, "null"),
            Value::Bool(b) => assert_eq!(token, if *b { "true" } else { "false" }),
            Value::Number(raw) => assert_eq!(token, raw.as_ref(), "a number's span is its literal"),
            Value::String(_) => {
                assert!(token.len() >= 2 && first == Some(b'"') && last == Some(b'"'))
            }
            Value::Array { .. } => {
                assert!(
                    first == Some(b'[') && last == Some(b']'),
                    "array span {token:?}"
                );
                stack.extend_from_slice(doc.items(id));
            }
            Value::Object { .. } => {
                assert!(
                    first == Some(b'{') && last == Some(b'}'),
                    "object span {token:?}"
                );
                for m in doc.members(id) {
                    let key = span_text(text, m.key_span, "a key");
                    assert!(
                        key.len() >= 2 && key.starts_with('"') && key.ends_with('"'),
                        "key span {key:?}"
                    );
                    assert!(m.key_span.end <= doc.span(m.value).start);
                    stack.push(m.value);
                }
            }
        }
    }
    for dup in &doc.duplicates {
        span_text(text, dup.first, "a duplicate key");
        span_text(text, dup.second, "a duplicate key");
        assert!(
            dup.first.end <= dup.second.start,
            "duplicate spans out of order"
        );
    }
}

/// The text of `span`, asserting that it is a valid range of `text`.
fn span_text<'t>(text: &'t str, span: Span, what: &str) -> &'t str {
    let (start, end) = (span.start as usize, span.end as usize);
    assert!(
        start <= end && end <= text.len(),
        "span {start}..{end} of {what} is outside the {}-byte text",
        text.len()
    );
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "span {start}..{end} of {what} splits a character"
    );
    &text[start..end]
}

/// Nesting depth of arrays and objects (the top-level object is 1). Iterative: ours allows
/// 10,000 levels.
fn max_depth(doc: &Document<'_>) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(doc.root(), 1)];
    while let Some((id, depth)) = stack.pop() {
        match doc.value(id) {
            Value::Array { .. } => {
                deepest = deepest.max(depth);
                stack.extend(doc.items(id).iter().map(|&c| (c, depth + 1)));
            }
            Value::Object { .. } => {
                deepest = deepest.max(depth);
                stack.extend(doc.members(id).iter().map(|m| (m.value, depth + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// Does any number of the document overflow an f64 (serde_json refuses it)?
fn has_non_finite_number(doc: &Document<'_>) -> bool {
    let mut stack = vec![doc.root()];
    while let Some(id) = stack.pop() {
        match doc.value(id) {
            Value::Number(raw) if !raw.parse::<f64>().is_ok_and(f64::is_finite) => return true,
            Value::Array { .. } => stack.extend_from_slice(doc.items(id)),
            Value::Object { .. } => stack.extend(doc.members(id).iter().map(|m| m.value)),
            _ => {}
        }
    }
    false
}

/// Does a string of `text` (valid JSON) have a `\uXXXX` escape of a surrogate that is not half of
/// a high-low pair?
pub fn has_lone_surrogate_escape(text: &str) -> bool {
    fn hex4(b: &[u8], at: usize) -> Option<u32> {
        let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    }
    let b = text.as_bytes();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        match b[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => {
                if b.get(i + 1) != Some(&b'u') {
                    i += 2;
                    continue;
                }
                match hex4(b, i + 2) {
                    Some(0xD800..=0xDBFF) => {
                        let low = b.get(i + 6..i + 8) == Some(b"\\u".as_slice())
                            && matches!(hex4(b, i + 8), Some(0xDC00..=0xDFFF));
                        if !low {
                            return true;
                        }
                        i += 12;
                    }
                    Some(0xDC00..=0xDFFF) => return true,
                    _ => i += 6,
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// Our value at `id` equals serde_json's `value`; `path` says where for the failure message.
fn compare_values(doc: &Document<'_>, id: NodeId, value: &serde_json::Value, path: &mut String) {
    use serde_json::Value as J;
    match (doc.value(id), value) {
        (Value::Null, J::Null) => {}
        (Value::Bool(a), J::Bool(b)) => assert_eq!(a, b, "at {path:?}"),
        (Value::Number(raw), J::Number(n)) => {
            assert!(
                numbers_agree(raw, n),
                "at {path:?}: we read {raw}, serde_json {n}"
            )
        }
        (Value::String(a), J::String(b)) => assert_eq!(a.as_ref(), b.as_str(), "at {path:?}"),
        (Value::Array { .. }, J::Array(items)) => {
            let ours = doc.items(id);
            assert_eq!(ours.len(), items.len(), "array length at {path:?}");
            for (i, (&child, theirs)) in ours.iter().zip(items).enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                compare_values(doc, child, theirs, path);
                path.truncate(len);
            }
        }
        (Value::Object { .. }, J::Object(map)) => {
            let ours = doc.members(id);
            assert_eq!(ours.len(), map.len(), "object size at {path:?}");
            for m in ours {
                let theirs = map
                    .get(m.key.as_ref())
                    .unwrap_or_else(|| panic!("key {:?} at {path:?}: serde_json lacks it", m.key));
                let len = path.len();
                json::push_pointer_segment(path, &m.key);
                compare_values(doc, m.value, theirs, path);
                path.truncate(len);
            }
        }
        (ours, theirs) => panic!("at {path:?}: we read {ours:?}, serde_json {theirs}"),
    }
}

/// A number literal and serde_json's reading of it: integers exactly; otherwise the same f64 up to
/// one unit in the last place (serde_json without its `float_roundtrip` feature may round the
/// last bit differently; Rust's `str::parse` is correctly rounded).
fn numbers_agree(raw: &str, n: &serde_json::Number) -> bool {
    if json::is_integer_literal(raw) {
        if let Some(u) = n.as_u64() {
            return raw.parse::<u64>().ok() == Some(u);
        }
        if let Some(i) = n.as_i64() {
            return raw.parse::<i64>().ok() == Some(i);
        }
    }
    let (Ok(ours), Some(theirs)) = (raw.parse::<f64>(), n.as_f64()) else {
        return false;
    };
    ours == theirs
        || (ours.is_finite()
            && theirs.is_finite()
            && ours.is_sign_positive() == theirs.is_sign_positive()
            && ours.to_bits().abs_diff(theirs.to_bits()) <= 1)
}

// ---------------------------------------------------------------------------------------------
// Positions of findings, shared by lint_spec and rule_file

/// Every finding (and related location) of a file whose bytes are `bytes` has a span inside the
/// file, on char boundaries, start ≤ end, and line/column positions that agree with [`LineIndex`]
/// for those offsets. At most 1,000 findings.
///
/// A file that is not UTF-8 gets one `invalid-json` finding; its positions are those of the
/// valid prefix (the part of the file that is text), and its end is not before its start.
pub fn check_findings(bytes: &[u8], findings: &[Finding]) {
    assert!(
        findings.len() <= forgelint::engine::MAX_FINDINGS_PER_FILE,
        "{} findings in one file",
        findings.len()
    );
    let (prefix, utf8) = match std::str::from_utf8(bytes) {
        Ok(text) => (text, true),
        Err(e) => (
            std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("the valid prefix"),
            false,
        ),
    };
    let mut index = LineIndex::new(prefix);
    for f in findings {
        let what = format!("{} finding {:?}", f.rule, f.message);
        check_location(bytes, prefix, &mut index, f.span, f.start, f.end, &what);
        for r in &f.related {
            let what = format!("related location {:?} of {what}", r.label);
            check_location(bytes, prefix, &mut index, r.span, r.start, r.end, &what);
        }
        if !utf8 {
            assert_eq!(&*f.rule, "invalid-json", "a rule ran on a non-UTF-8 file");
        }
        assert!(
            f.pointer.is_empty() || f.pointer.starts_with('/'),
            "{what}: {:?} is not a JSON Pointer",
            f.pointer
        );
    }
}

/// `text` is the file, or the valid prefix of a file that is not UTF-8.
fn check_location(
    bytes: &[u8],
    text: &str,
    index: &mut LineIndex,
    span: Span,
    start: forgelint::diagnostic::Position,
    end: forgelint::diagnostic::Position,
    what: &str,
) {
    let (s, e) = (span.start as usize, span.end as usize);
    assert!(
        s <= e && e <= bytes.len(),
        "{what}: span {s}..{e} is outside the {}-byte input",
        bytes.len()
    );
    assert!(
        s <= text.len() && text.is_char_boundary(s),
        "{what}: span {s}..{e} starts inside a character or past the text"
    );
    assert_eq!(start, index.position(text, s), "{what}: start of {s}..{e}");
    if e <= text.len() {
        assert!(
            text.is_char_boundary(e),
            "{what}: span {s}..{e} splits a character"
        );
        assert_eq!(end, index.position(text, e), "{what}: end of {s}..{e}");
    } else {
        assert!(end >= start, "{what}: end {end:?} before start {start:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// lint_spec

/// Every built-in rule, in a platform with every context: the reference catalog, registries, a
/// GPU quota (and a project quota), and a project root holding `experiments/my-grpo`.
pub struct LintSetup {
    pub rules: RuleSet,
    pub table: SelectorTable,
    pub platform: Platform,
    pub project: VirtualProject,
}

pub fn lint_setup() -> &'static LintSetup {
    static SETUP: OnceLock<LintSetup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let rules = RuleSet::builtin().expect("the built-in rules compile");
        LintSetup {
            table: forgelint::rules::selector_table(&rules.rules),
            rules,
            platform: reference_platform(),
            project: VirtualProject {
                dirs: forgelint::case_runner::REFERENCE_DIRS
                    .map(String::from)
                    .to_vec(),
            },
        }
    })
}

fn reference_platform() -> Platform {
    let text: Arc<str> = Arc::from(REFERENCE_CATALOG);
    let catalog = Catalog::parse("rules/reference/catalog.toml", &text, false)
        .expect("the reference catalog parses");
    Platform {
        catalog: Some(Arc::new(catalog)),
        registries: Some(
            forgelint::case_runner::REFERENCE_REGISTRIES
                .map(String::from)
                .to_vec(),
        ),
        gpu_quota: Some(forgelint::case_runner::REFERENCE_GPU_QUOTA),
        project_quota: BTreeMap::from([("big-lab".to_string(), 256)]),
        ..Platform::default()
    }
}

/// `lint_bytes` with every built-in rule and every context, on `bytes`.
pub fn lint(bytes: &[u8]) -> Vec<Finding> {
    let setup = lint_setup();
    let active: Vec<Active<'_>> = setup
        .rules
        .rules
        .iter()
        .map(|rule| Active {
            rule,
            severity: rule.severity,
        })
        .collect();
    let path: Arc<str> = Arc::from("fuzz.jobspec.json");
    lint_bytes(
        bytes,
        &path,
        &active,
        &setup.table,
        &setup.platform,
        &setup.project,
    )
}

/// `lint_bytes` with every built-in rule never panics, and its findings' positions hold. Then
/// every fix (safe and unsafe) is applied as `--fix --unsafe-fixes` applies it: the fixer never
/// panics, its edits lie inside the file on char boundaries, and what it returns parses as JSON
/// again, with no finding it fixed left (or it refuses, which the CLI reports as a bug: the
/// fuzzer stops on that too).
pub fn check_lint_spec(bytes: &[u8]) {
    let findings = lint(bytes);
    check_findings(bytes, &findings);
    check_fixes(bytes, findings);
}

/// The fixer on `findings` of the file `bytes` (see [`check_lint_spec`]).
fn check_fixes(bytes: &[u8], findings: Vec<Finding>) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    for fix in findings.iter().filter_map(|f| f.fix.as_deref()) {
        for edit in &fix.edits {
            let (start, end) = (edit.span.start as usize, edit.span.end as usize);
            assert!(
                start <= end && end <= text.len(),
                "an edit outside the file"
            );
            assert!(
                text.is_char_boundary(start) && text.is_char_boundary(end),
                "an edit inside a character"
            );
        }
    }
    if findings.iter().all(|f| f.fix.is_none()) {
        return;
    }
    let relint = |t: &str| lint(t.as_bytes());
    match forgelint::fix::apply::fix_text(
        text,
        findings,
        forgelint::diagnostic::Applicability::All,
        &relint,
    ) {
        Ok(fixed) => {
            if fixed.applied > 0 {
                forgelint::json::parse(&fixed.text).expect("the fixed text parses");
            }
        }
        Err(bug) => panic!("a fix of {} would lose data: {}", bug.rule, bug.message),
    }
}

// ---------------------------------------------------------------------------------------------
// rule_file

/// `compile_rule` never panics and its errors point inside the rule file, on char boundaries; the
/// error of a message template (unknown placeholder, unclosed `{`, unmatched `}`) points at its
/// brace; a rule that compiles runs on the reference spec and on its own cases without panicking,
/// with valid findings.
pub fn check_rule_file(text: &str) {
    rule_file(text, false)
}

/// [`check_rule_file`] as the rule_file target runs it: the brace check is skipped where a known
/// bug ([`rule_file_known_bug`]) misplaces the span, unless `FORGELINT_FUZZ_STRICT` is set.
pub fn fuzz_rule_file(text: &str) {
    static STRICT: OnceLock<bool> = OnceLock::new();
    let strict = *STRICT.get_or_init(|| std::env::var_os("FORGELINT_FUZZ_STRICT").is_some());
    rule_file(text, !strict)
}

/// A known bug of forgelint that `text` may run into, if any. The targets step around known bugs
/// so that fuzzing goes on finding new ones; each known bug has inputs in
/// `tests/data/fuzz-regressions/` replayed by ignored tests. Remove the entry once it is fixed.
pub fn rule_file_known_bug(_text: &str) -> Option<&'static str> {
    // None open. (Template and selector error spans that ignored escapes and multi-line strings
    // were fixed; their inputs are `rule_file-*-error-span-*` in the regression folder.)
    None
}

fn rule_file(text: &str, tolerate_known_bugs: bool) {
    let shared: Arc<str> = Arc::from(text);
    let builtin = text.contains("reported-by");
    let e = match compile_rule("fuzz.toml", shared, builtin) {
        Ok(rule) => return run_compiled_rule(&rule),
        Err(e) => e,
    };
    let Some(span) = &e.span else { return };
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "error span {span:?} outside the {}-byte rule file: {}",
        text.len(),
        e.message
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "error span {span:?} splits a character: {}",
        e.message
    );
    let brace =
        if e.message.starts_with("unknown placeholder") || e.message.starts_with("unclosed `{`") {
            '{'
        } else if e.message.starts_with("unmatched `}`") {
            '}'
        } else {
            return;
        };
    if tolerate_known_bugs && rule_file_known_bug(text).is_some() {
        return;
    }
    let at = &text[span.start..];
    let escaped = format!("\\u{:04x}", brace as u32);
    assert!(
        at.starts_with(brace) || at.to_ascii_lowercase().starts_with(&escaped),
        "the error {:?} points at {:?}, not at its `{brace}`",
        e.message,
        at.chars().take(12).collect::<String>()
    );
}

fn run_compiled_rule(rule: &Rule) {
    let setup = lint_setup();
    let active = [Active {
        rule,
        severity: rule.severity,
    }];
    let path: Arc<str> = Arc::from("reference.jobspec.json");
    let spec = forgelint::rules::REFERENCE_SPEC.as_bytes();
    let table = forgelint::rules::selector_table([rule]);
    let findings = lint_bytes(
        spec,
        &path,
        &active,
        &table,
        &setup.platform,
        &setup.project,
    );
    check_findings(spec, &findings);
    for case in rule.cases() {
        // A case whose patch or edits do not apply is an error `test-rules` reports.
        let (Ok(document), Ok(findings)) = (
            case.document(),
            forgelint::case_runner::run_case(case, &[rule]),
        ) else {
            continue;
        };
        check_findings(document.as_bytes(), &findings);
    }
}

// ---------------------------------------------------------------------------------------------
// selector

/// The document selectors are resolved on: nested maps and arrays, null, keys with dots, slashes,
/// tildes, brackets, quotes, an empty key and non-ASCII keys.
pub const SELECTOR_DOCUMENT: &str = r#"{
  "metadata": {"name": "x", "project": null, "labels": {"team": "a", "a.b": 1, "c/d~e": [1, 2]}},
  "spec": {
    "resources": {"pools": [{"name": "a", "nodes": 2}, {"name": "b", "n": null}, 3, [], {}],
                  "roles": {"trainer": "a", "rollout": "b"}},
    "hyperparams": {"policy.optimizer.kwargs.lr": 1e-3, "": {"": 0}, "it's": "\"q\""},
    "plugins": [{"id": "x/y"}, {"id": "z/y"}]
  },
  "": "empty key", "$": true, "*": {"[0]": "brackets"}, "0": [[[0]]], "名前": {"ключ": "😀"}
}"#;

/// `Selector::parse` never panics; an error's offset is inside the text; a selector keeps its
/// text and resolves on [`SELECTOR_DOCUMENT`] without panicking, to values whose JSON Pointers
/// name them, and to missing keys whose pointers name nothing.
pub fn check_selector(text: &str) {
    let selector = match Selector::parse(text) {
        Ok(s) => s,
        Err(e) => {
            assert!(
                e.offset <= text.len(),
                "error offset {} past the end of {text:?}: {}",
                e.offset,
                e.message
            );
            return;
        }
    };
    assert_eq!(selector.as_str(), text);
    let doc = json::parse(SELECTOR_DOCUMENT).expect("the selector document parses");
    let theirs: serde_json::Value =
        serde_json::from_str(SELECTOR_DOCUMENT).expect("serde_json reads it too");
    let resolution = selector.resolve(&doc);
    for m in &resolution.found {
        let pointer = m.pointer(&doc);
        let target = theirs
            .pointer(&pointer)
            .unwrap_or_else(|| panic!("{text:?} found {pointer:?}, which names nothing"));
        compare_values(&doc, m.node, target, &mut String::new());
        if let Some(key) = m.key_span {
            let key = span_text(SELECTOR_DOCUMENT, key, "a key");
            assert!(key.starts_with('"'), "{text:?}: key span {key:?}");
        }
    }
    for miss in &resolution.missing {
        let parent = doc.pointer_of(miss.parent);
        assert!(
            theirs.pointer(&parent).is_some(),
            "{text:?}: the parent {parent:?} of a missing value names nothing"
        );
        let pointer = selector.missing_pointer(&doc, miss);
        assert!(
            theirs.pointer(&pointer).is_none(),
            "{text:?}: {pointer:?} is called missing but exists"
        );
        selector.missing_key(miss);
        selector.missing_rest(miss);
    }
}

// ---------------------------------------------------------------------------------------------
// pattern

/// A rule's regular expression on its first line, a text after it: [`Pattern`], which matches
/// simple patterns on ASCII text without the regex engine, answers exactly as the regex does.
pub fn check_pattern(bytes: &[u8]) {
    let input = String::from_utf8_lossy(bytes);
    let (source, text) = input.split_once('\n').unwrap_or((&input, ""));
    let Ok(regex) = regex::RegexBuilder::new(source).size_limit(1 << 20).build() else {
        return;
    };
    let expected = regex.is_match(text);
    let pattern = Pattern::new(regex);
    assert_eq!(
        pattern.is_match(text),
        expected,
        "pattern {source:?} on {text:?} (fast path: {})",
        pattern.has_fast_path()
    );
}

// ---------------------------------------------------------------------------------------------
// pattern_shapes

// Its own file: the property test `tests/pattern_shapes.rs` includes it alone.
#[path = "pattern_shapes.rs"]
mod pattern_shapes;
pub use pattern_shapes::{check_pattern_shapes, decode as decode_pattern_shape};

// ---------------------------------------------------------------------------------------------
// experiment_file

/// The file names an experiment file is linted under: one per language the text scanners know,
/// and one they do not.
const EXPERIMENT_FILES: [&str; 7] = [
    "train.py",
    "run.sh",
    "config.yaml",
    "config.toml",
    "config.json",
    "README.md",
    "model.safetensors",
];

/// A rule of each config target, so the YAML, TOML and JSON converters run on every input.
const CONFIG_RULES: [&str; 3] = [
    "id = \"fuzz-yaml\"\nseverity = \"error\"\ntarget = \"yaml\"\nsummary = \"s\"\nmessage = \"{value}\"\n[[check]]\nselect = \"*.*\"\nmax-length = 3\n",
    "id = \"fuzz-toml\"\nseverity = \"error\"\ntarget = \"toml\"\nsummary = \"s\"\nmessage = \"{value}\"\n[[check]]\nselect = \"*\"\ntype = \"string\"\n",
    "id = \"fuzz-json\"\nseverity = \"error\"\ntarget = \"json\"\nsummary = \"s\"\nmessage = \"{value}\"\n[[check]]\nselect = \"*\"\nnot-matches = 'x'\n",
];

fn experiment_rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut rules = RuleSet::builtin().expect("the built-in rules compile");
        for (i, text) in CONFIG_RULES.iter().enumerate() {
            let rule = compile_rule(&format!("fuzz-{i}.toml"), Arc::from(*text), false)
                .expect("the fuzz target's config rules compile");
            rules.add(rule).expect("distinct ids");
        }
        rules.sort();
        rules
    })
}

/// The first byte picks the file's name, the rest is its text: linting it with every
/// experiment rule (and a rule of each config target) never panics; every finding lies inside
/// the text at positions that agree with the line index; a secret's text is in no message.
pub fn check_experiment_file(bytes: &[u8]) {
    let Some((&pick, rest)) = bytes.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let name = EXPERIMENT_FILES[pick as usize % EXPERIMENT_FILES.len()];
    let rules = experiment_rules();
    let active: Vec<Active<'_>> = rules
        .rules
        .iter()
        .map(|rule| Active {
            rule,
            severity: rule.severity,
        })
        .collect();
    let spec =
        forgelint::json::parse(forgelint::rules::REFERENCE_SPEC).expect("the reference spec");
    let others = forgelint::rules::eval::Others {
        spec: Some(&spec),
        config: None,
        composed: None,
    };
    let findings = forgelint::experiment::lint_in_memory(
        std::path::Path::new(name),
        text,
        &active,
        &reference_platform(),
        &others,
    );
    check_findings(rest, &findings);
    for f in findings.iter().filter(|f| f.secret) {
        let secret = &text[f.span.start as usize..f.span.end as usize];
        if secret.chars().count() > 5 {
            assert!(
                !f.message.contains(secret),
                "a secret in a message: {:?}",
                f.message
            );
        }
    }
}
