//! The audit formats: JSON Lines is the `json` document's findings and summary line by line;
//! JUnit XML is well-formed with the right totals; GitLab Code Quality reports pass GitLab's own
//! schema (tests/data/gitlab) and what its documentation asks beyond it. On the format fixtures,
//! the demo, and a file whose name and values are hostile.

use std::path::Path;

use super::common::{manifest_dir, run_in, Tree};
use super::{DIR, FIXTURES};

/// stdout of `forgelint check ARGS` run in `dir` (the exit code is the tests' elsewhere).
fn stdout(dir: &Path, args: &[&str]) -> String {
    run_in(dir, args).stdout
}

/// The format fixtures (with their config) and the demo, as arguments to `check`.
fn inputs() -> Vec<Vec<String>> {
    let config = format!("{DIR}/forgelint.toml");
    let mut inputs: Vec<Vec<String>> = FIXTURES
        .iter()
        .map(|f| {
            vec![
                "--config".into(),
                config.clone(),
                format!("{DIR}/{f}.jobspec.json"),
            ]
        })
        .collect();
    inputs.push(vec!["fixtures/demo".into()]);
    inputs
}

fn run_format(input: &[String], format: &str, extra: &[&str]) -> String {
    let mut args = vec!["check", "--format", format];
    args.extend_from_slice(extra);
    args.extend(input.iter().map(String::as_str));
    stdout(manifest_dir(), &args)
}

/// Every line parses; the findings' lines are json's findings, in order, and the last line is
/// json's summary (and statistics).
fn assert_jsonl_matches_json(jsonl: &str, json: &str) {
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    assert!(jsonl.ends_with('\n'));
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (last, findings) = lines.split_last().unwrap();
    assert_eq!(findings, doc["findings"].as_array().unwrap());
    assert_eq!(last["summary"], doc["summary"]);
    assert_eq!(last.get("statistics"), doc.get("statistics"));
}

#[test]
fn jsonl_lines_are_the_json_findings_and_summary() {
    for input in inputs() {
        for extra in [&[][..], &["--statistics"]] {
            let json = run_format(&input, "json", extra);
            let jsonl = run_format(&input, "jsonl", extra);
            assert_jsonl_matches_json(&jsonl, &json);
        }
    }
}

/// GitLab's schema for one issue, applied to every element of the report's array.
fn gitlab_validator() -> jsonschema::Validator {
    let path = manifest_dir().join("tests/data/gitlab/codeclimate.json");
    let issue: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let report = serde_json::json!({ "type": "array", "items": issue });
    jsonschema::validator_for(&report).expect("the GitLab schema compiles")
}

/// Valid by GitLab's schema, and what its documentation asks beyond it.
fn assert_gitlab_accepts(validator: &jsonschema::Validator, text: &str, findings: usize) {
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
    let issues = doc.as_array().unwrap();
    assert_eq!(issues.len(), findings);
    let mut fingerprints: Vec<&str> = Vec::new();
    for issue in issues {
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().unwrap()),
            "{issue}"
        );
        assert!(!issue["check_name"].as_str().unwrap().is_empty());
        let path = issue["location"]["path"].as_str().unwrap();
        assert!(!path.starts_with('/') && !path.starts_with("./"), "{path}");
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        fingerprints.push(issue["fingerprint"].as_str().unwrap());
    }
    let count = fingerprints.len();
    fingerprints.sort_unstable();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), count, "fingerprints are unique");
}

#[test]
fn gitlab_reports_pass_gitlabs_schema() {
    let validator = gitlab_validator();
    for input in inputs() {
        let json: serde_json::Value =
            serde_json::from_str(&run_format(&input, "json", &[])).unwrap();
        let findings = json["findings"].as_array().unwrap();
        let report = run_format(&input, "gitlab", &[]);
        assert_gitlab_accepts(&validator, &report, findings.len());
        // The same issues as json's findings, in order.
        let doc: serde_json::Value = serde_json::from_str(&report).unwrap();
        for (issue, f) in doc.as_array().unwrap().iter().zip(findings) {
            assert_eq!(issue["check_name"], f["rule"]);
            assert_eq!(issue["location"]["lines"]["begin"], f["start"]["line"]);
        }
    }
}

/// Well-formed XML whose totals are the number of test cases and of json's findings.
fn assert_junit_well_formed(xml: &str, findings: usize) {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let number = |node: roxmltree::Node<'_, '_>, name: &str| -> usize {
        node.attribute(name).unwrap().parse().unwrap()
    };
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    let cases: usize = suites
        .iter()
        .map(|s| s.children().filter(|n| n.has_tag_name("testcase")).count())
        .sum();
    assert_eq!(number(root, "tests"), cases);
    assert_eq!(number(root, "failures"), findings);
    for suite in suites {
        assert_eq!(suite.tag_name().name(), "testsuite");
        let failures = suite
            .descendants()
            .filter(|n| n.has_tag_name("failure"))
            .inspect(|f| {
                assert!(["error", "warning", "note"].contains(&f.attribute("type").unwrap()));
                assert!(f.attribute("message").is_some() && f.text().is_some());
            })
            .count();
        assert_eq!(number(suite, "failures"), failures);
        let cases = suite.children().filter(|n| n.is_element()).count();
        assert_eq!(number(suite, "tests"), cases);
    }
}

#[test]
fn junit_reports_are_well_formed_with_their_totals() {
    for input in inputs() {
        let json: serde_json::Value =
            serde_json::from_str(&run_format(&input, "json", &[])).unwrap();
        let findings = json["findings"].as_array().unwrap().len();
        assert_junit_well_formed(&run_format(&input, "junit", &[]), findings);
    }
}

/// A file name and values with markup, quotes, controls, bidi and invisible characters, and
/// characters XML forbids: every format stays parseable and inert, and says what it found.
#[test]
fn hostile_names_and_values_stay_inert() {
    let name = "a<b>&\"c'\u{1b}[2J\u{202e}\u{7}\u{fffe} x.jobspec.json";
    let value = "v<&>\"'\u{1b}]8;;x\u{7}\u{202e}\u{2028}\u{200b}\u{ffff}";
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    let mut spec: serde_json::Value =
        serde_json::from_str(forgelint::rules::REFERENCE_SPEC).unwrap();
    spec["metadata"]["name"] = value.into();
    spec["metadata"]["owner"] = value.into();
    tree.write(name, serde_json::to_string_pretty(&spec).unwrap());
    let run = |format: &str| {
        let run = tree.run(&["--no-config", "--format", format, "."]);
        run.expect_code(1);
        for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\u{2028}'] {
            assert!(!run.stdout.contains(bad), "{format} lets {bad:?} through");
        }
        // Valid JSON, but not XML.
        if format == "junit" {
            assert!(
                !run.stdout.contains(['\u{fffe}', '\u{ffff}']),
                "{}",
                run.stdout
            );
        }
        run.stdout
    };
    let json = run("json");
    let findings = serde_json::from_str::<serde_json::Value>(&json).unwrap()["findings"]
        .as_array()
        .unwrap()
        .len();
    assert!(findings >= 2, "{json}");
    assert_jsonl_matches_json(&run("jsonl"), &json);
    let xml = run("junit");
    assert_junit_well_formed(&xml, findings);
    // Shown escaped, and found again as text by an XML reader.
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(
        suite.attribute("name"),
        Some("a<b>&\"c'\\u{1b}[2J\\u{202e}\\u{7}\\u{fffe} x.jobspec.json")
    );
    let gitlab = run("gitlab");
    assert_gitlab_accepts(&gitlab_validator(), &gitlab, findings);
    // The path as it is, so GitLab finds the file; JSON escapes keep it inert.
    let doc: serde_json::Value = serde_json::from_str(&gitlab).unwrap();
    assert!(doc
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["location"]["path"] == name));
}

/// Identical findings get fingerprints of their own, and a moved line keeps them.
#[test]
fn gitlab_fingerprints_survive_moved_lines() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        std::fs::read_to_string(manifest_dir().join(DIR).join("violations.jobspec.json")).unwrap();
    let spec = dir.path().join("a.jobspec.json");
    let fingerprints = |text: &str| {
        std::fs::write(&spec, text).unwrap();
        let out = stdout(dir.path(), &["--no-config", "--format", "gitlab", "."]);
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        doc.as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["fingerprint"].clone(),
                    i["location"]["lines"]["begin"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let before = fingerprints(&base);
    let after = fingerprints(&format!("\n\n{base}"));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.0, a.0);
        assert_ne!(b.1, a.1, "the lines did move");
    }
}

/// Duplicate keys of one name, each also an unknown field: the same identities repeat with
/// other findings between them, and each issue still has a fingerprint of its own.
#[test]
fn gitlab_fingerprints_of_repeated_findings_are_unique() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("jobspec.json"),
        r#"{"apiVersion": "forge/v2", "zz": 1, "zz": {"q": 1}, "zz": 3, "zz": 4}"#,
    )
    .unwrap();
    let out = stdout(dir.path(), &["--no-config", "--format", "gitlab", "."]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let duplicates = doc
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["check_name"] == "duplicate-key")
        .count();
    assert_eq!(duplicates, 3, "{out}");
    assert_gitlab_accepts(&gitlab_validator(), &out, doc.as_array().unwrap().len());
}
