//! Every output format × a few fixtures, snapshotted; SARIF validated against the official
//! schema and GitHub's ingestion rules; a hostile spec pushed through every format. The audit
//! formats (JSON Lines, JUnit, GitLab) are checked further in `audit`; the config file formats
//! (YAML, TOML, JSON converted to documents) are tested in `config`.

mod audit;
use crate::common;
mod config;

use std::path::Path;

use common::{manifest_dir, run_in, sarif_validator, FORMATS};

const DIR: &str = "tests/fixtures/formats";
const FIXTURES: [&str; 5] = ["clean", "violations", "invalid", "non-ascii", "multi-line"];

fn forgelint(args: &[&str]) -> (i32, String, String) {
    let run = run_in(manifest_dir(), args);
    (run.code, run.stdout, run.stderr)
}

fn lint(fixture: &str, format: &str) -> (i32, String) {
    let path = format!("{DIR}/{fixture}.jobspec.json");
    let config = format!("{DIR}/forgelint.toml");
    let (code, stdout, _) = forgelint(&["check", "--config", &config, "--format", format, &path]);
    (code, normalize(&stdout))
}

/// Machine-specific bits: the absolute %SRCROOT% and the version.
fn normalize(s: &str) -> String {
    let root = format!("file://{}", env!("CARGO_MANIFEST_DIR"));
    s.replace(&root, "file://[ROOT]")
        .replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
}

/// What GitHub code scanning needs beyond the schema.
fn assert_github_accepts(doc: &serde_json::Value) {
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"].as_str().unwrap().contains("sarif"));
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for rule in rules {
        for key in ["shortDescription", "fullDescription"] {
            assert!(
                rule[key]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "{key} of {rule}"
            );
        }
        assert!(rule["help"]["text"].is_string() && rule["help"]["markdown"].is_string());
        assert!(rule["helpUri"].as_str().unwrap().contains("://"));
        assert!(["error", "warning", "note"]
            .contains(&rule["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    let results = run["results"].as_array().unwrap();
    if !results.is_empty() {
        assert_eq!(run["columnKind"], "utf16CodeUnits");
    }
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let region = &loc["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[key].as_u64().unwrap() >= 1, "{key} in {region}");
        }
        assert!(!r["partialFingerprints"].as_object().unwrap().is_empty());
    }
}

#[test]
fn format_matrix() {
    let validator = sarif_validator();
    for fixture in FIXTURES {
        for format in FORMATS {
            let (code, out) = lint(fixture, format);
            // non-ascii holds only a warning.
            if fixture == "clean" || fixture == "non-ascii" {
                assert_eq!(code, 0, "{fixture} {format}: {out}");
            } else {
                assert_eq!(code, 1, "{fixture} {format}: {out}");
            }
            if format == "sarif" {
                let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
                let errors: Vec<String> =
                    validator.iter_errors(&doc).map(|e| e.to_string()).collect();
                assert!(
                    errors.is_empty(),
                    "{fixture}: SARIF is not schema-valid: {errors:?}"
                );
                assert_github_accepts(&doc);
            }
            if format == "json" {
                let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert_eq!(doc["version"], 1);
                // The spec, and the one file of the experiment it names (when it parses).
                let files = if fixture == "invalid" { 1 } else { 2 };
                assert_eq!(doc["summary"]["files"].as_u64(), Some(files), "{fixture}");
            }
            assert_named_snapshot!(format!("{fixture}__{format}"), out);
        }
    }
}

/// The audit page of the demo (`docs/audit-report.png` is its picture): every part of the page,
/// code frames with a masked secret, a binary file without a frame, a user's rule with its file
/// as documentation.
#[test]
fn html_audit_page_of_the_demo() {
    let run = run_in(
        &manifest_dir().join("fixtures/demo"),
        &["check", "--format", "html", "."],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let page = normalize(&run.stdout);
    assert!(!page.contains("pZkVbXwLm"), "the demo's secret is masked");
    assert_named_snapshot!("demo__html", page);
}

/// A policy's documentation is its rule file, linked relative to the folder the page is
/// written to: the page and the repository move together.
#[test]
fn html_links_to_policy_files_are_relative_to_the_page() {
    let tree = common::Tree::new();
    let demo = manifest_dir().join("fixtures/demo");
    for name in [
        "forgelint.toml",
        "catalog.toml",
        "policies/labels-team-required.toml",
    ] {
        tree.write(name, std::fs::read(demo.join(name)).unwrap());
    }
    tree.write(
        "specs/reward-model.jobspec.json",
        std::fs::read(demo.join("specs/reward-model.jobspec.json")).unwrap(),
    );
    let run = tree.run(&[
        "--format",
        "html=reports/audit.html",
        "--format",
        "concise",
        ".",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let page = std::fs::read_to_string(tree.path("reports/audit.html")).unwrap();
    assert!(
        page.contains(r#"<a href="../policies/labels-team-required.toml">"#),
        "{page}"
    );
    assert!(!page.contains("file://"), "no absolute link");
}

/// `--group-depth N`: the page's breakdown counts each file in the first N folders of its path.
#[test]
fn group_depth_sets_the_folders_of_the_html_breakdown() {
    let config = format!("{DIR}/forgelint.toml");
    let path = format!("{DIR}/violations.jobspec.json");
    for (depth, folder) in [("1", "tests"), ("3", "tests/fixtures/formats")] {
        let (code, out, _) = forgelint(&[
            "check",
            "--config",
            &config,
            "--format",
            "html",
            "--group-depth",
            depth,
            &path,
        ]);
        assert_eq!(code, 1);
        assert!(
            out.contains(&format!("<tr><td class=\"path\">{folder}</td>")),
            "--group-depth {depth}: no row for {folder}"
        );
        assert!(out.contains(&format!("<code>--group-depth {depth}</code>")));
    }
    let (code, _, stderr) = forgelint(&["check", "--format", "html", "--group-depth", "0", &path]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn columns_are_utf16_code_units_on_a_cjk_and_emoji_line() {
    let text = std::fs::read_to_string(format!("{DIR}/non-ascii.jobspec.json")).unwrap();
    let line = text.lines().position(|l| l.contains("\"owner\"")).unwrap() + 1;
    let (_, out) = lint("non-ascii", "json");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &doc["findings"][0];
    assert_eq!(f["rule"], "owner-ignored");
    assert_eq!(f["start"]["line"], line);
    // `    "owner": ` is 13 units; the value "数据🚀" is 1 + 2 + 2 (the emoji is a surrogate pair) + 1.
    assert_eq!(f["start"]["column"], 14);
    assert_eq!(f["end"]["column"], 14 + 6);
    let (_, sarif) = lint("non-ascii", "sarif");
    let doc: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let region = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startColumn"].as_u64(), region["endColumn"].as_u64()),
        (Some(14), Some(20))
    );
    // Byte offsets are exact too: 数 and 据 are 3 bytes each, 🚀 four.
    assert_eq!(region["byteLength"], 2 + 3 + 3 + 4);
}

#[test]
fn github_annotations_leave_out_columns_on_multi_line_spans() {
    let (_, out) = lint("multi-line", "github");
    let line = out
        .lines()
        .find(|l| l.contains("title=wrong-type"))
        .unwrap();
    assert!(
        line.contains("endLine=") && !line.contains(",col="),
        "{line}"
    );
    let (_, out) = lint("violations", "github");
    assert!(out.lines().all(|l| l.starts_with("::")));
    assert!(out.contains(",col="));
}

#[test]
fn fingerprints_do_not_change_when_lines_move() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(format!("{DIR}/violations.jobspec.json")).unwrap();
    let a = dir.path().join("a.jobspec.json");
    std::fs::write(&a, &base).unwrap();
    let fingerprints = |path: &Path| {
        let path = path.to_str().expect("UTF-8 temp path");
        let out = run_in(dir.path(), &["--no-config", "--format", "sarif", path]);
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["ruleId"].clone(),
                    r["partialFingerprints"].clone(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let before = fingerprints(&a);
    std::fs::write(&a, format!("\n\n\n{base}")).unwrap();
    let after = fingerprints(&a);
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!((&b.0, &b.1), (&a.0, &a.1));
        assert_ne!(b.2, a.2, "the lines did move");
    }
}

#[test]
fn a_path_with_a_space_is_percent_encoded_and_still_valid() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("my specs");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("jobspec.json"), "{\"apiVersion\": 1}").unwrap();
    let out = run_in(dir.path(), &["--no-config", "--format", "sarif", "."]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let uri = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"];
    assert_eq!(uri, "my%20specs/jobspec.json");
    assert!(sarif_validator().is_valid(&doc));
}

#[test]
fn unreadable_and_unparseable_files_are_tool_notifications_too() {
    let (_, out) = lint("invalid", "sarif");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    // The file, then the note that the catalog rules did not run (the config gives none).
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert_eq!(notes[0]["associatedRule"]["id"], "invalid-json");
    assert_eq!(notes[1]["level"], "note");
}

#[test]
fn statistics_count_per_rule() {
    let config = format!("{DIR}/forgelint.toml");
    let (_, out, _) = forgelint(&["--config", &config, "--statistics", "--format", "json", DIR]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = doc["statistics"]["rules"].as_array().unwrap();
    let counts: Vec<u64> = rules.iter().map(|r| r["count"].as_u64().unwrap()).collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "sorted by count: {counts:?}"
    );
    assert_eq!(
        counts.iter().sum::<u64>(),
        doc["findings"].as_array().unwrap().len() as u64
    );
    let (_, table, _) = forgelint(&["--config", &config, "--statistics", DIR]);
    assert!(table.starts_with("COUNT  RULE"), "{table}");
}

#[test]
fn output_goes_to_a_file_and_the_summary_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("report.sarif");
    let config = format!("{DIR}/forgelint.toml");
    let (code, stdout, stderr) = forgelint(&[
        "--config",
        &config,
        "--format",
        "sarif",
        "--output",
        target.to_str().unwrap(),
        DIR,
    ]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("Found"), "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert!(sarif_validator().is_valid(&doc));
}

/// A value that tries every trick: a workflow command after a newline, percent-encoded
/// newlines, CR, terminal escapes (OSC 8 hyperlink, clear screen), bidi overrides, C1 CSI.
const HOSTILE: &str = "x\n::error::injected%0A::warning::also\r\u{1b}]8;;https://evil\u{7}link\u{1b}]8;;\u{7}\u{1b}[2J\u{202e}gnp.exe\u{9b}31m";

#[test]
fn no_format_lets_a_hostile_value_through() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec: serde_json::Value =
        serde_json::from_str(forgelint::rules::REFERENCE_SPEC).unwrap();
    spec["metadata"]["name"] = HOSTILE.into();
    spec["metadata"]["owner"] = HOSTILE.into();
    spec["spec"]["data"]["corpus"] = HOSTILE.into();
    spec["spec"]["resources"]["roles"] = serde_json::json!({ HOSTILE: "train" });
    spec[HOSTILE] = 1.into();
    let text = serde_json::to_string_pretty(&spec).unwrap();
    // Also raw (unescaped) bidi and C1 characters in the file text itself, for the code frame.
    let text = text.replacen("\"labels\"", "\"labels\u{202e}\u{9b}\"", 1);
    std::fs::write(dir.path().join("jobspec.json"), &text).unwrap();
    for format in FORMATS {
        let out = run_in(
            dir.path(),
            &["--no-config", "--color", "never", "--format", format, "."],
        );
        assert_eq!(out.code, 1, "{format}");
        for (stream, s) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\r'] {
                assert!(
                    !s.contains(bad),
                    "{format} {stream} lets {bad:?} through:\n{s}"
                );
            }
            if format == "github" && stream == "stdout" {
                for line in s.lines() {
                    let t = line.trim_start();
                    let ours = t.starts_with("::error file=")
                        || t.starts_with("::warning file=")
                        || t.starts_with("::notice file=")
                        || t.starts_with("::notice title=forgelint::");
                    assert!(ours || !t.starts_with("::"), "injected command: {line}");
                }
            }
        }
        let stdout = out.stdout;
        // Still recognisable: the escaped value appears.
        assert!(stdout.contains("injected"), "{format} dropped the value");
    }
}
