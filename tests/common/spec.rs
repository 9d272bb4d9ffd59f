//! The reference spec, patches of it, and the schemas outputs are checked against.

use std::path::Path;

/// Every output format.
pub const FORMATS: [&str; 9] = [
    "human", "concise", "json", "sarif", "github", "html", "jsonl", "junit", "gitlab",
];

/// The crate's root, where `rules/`, `tests/` and `fixtures/` live.
pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The reference spec every rule case patches: valid against every built-in rule when
/// `experiments/my-grpo` exists under the project root.
pub fn reference() -> String {
    forgelint::rules::REFERENCE_SPEC.to_string()
}

/// `text` with the one occurrence of `from` replaced by `to`.
#[track_caller]
pub fn patch(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "expected {from:?} exactly once in the spec"
    );
    text.replacen(from, to, 1)
}

/// A validator for SARIF 2.1.0, from the official schema in `tests/data/sarif`.
pub fn sarif_validator() -> jsonschema::Validator {
    let path = manifest_dir().join("tests/data/sarif/sarif-2.1.0.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

/// `text` with the first occurrence of `from` replaced by `to`, where `from` may occur more
/// than once (the document's opening brace, say).
#[track_caller]
pub fn patch_first(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is not in the spec");
    text.replacen(from, to, 1)
}
