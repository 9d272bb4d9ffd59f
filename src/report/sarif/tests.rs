use super::*;
use crate::diagnostic::{Position, Related, Span};
use std::sync::Arc;

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation<'a> {
    artifact_location: &'a ArtifactLocation,
    region: RegionOut,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LocationOut<'a> {
    physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelatedOut<'a> {
    id: usize,
    message: Text<'a>,
    physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "forgelint/v1")]
    v1: String,
}

#[derive(Serialize)]
struct HelpProperty<'a> {
    help: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultOut<'a> {
    rule_id: &'a str,
    level: &'static str,
    message: Text<'a>,
    locations: [LocationOut<'a>; 1],
    partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<RelatedOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fixes: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<HelpProperty<'a>>,
}

/// The serde shape of a result, built from the same parts as `write_result_json` gets.
fn result_via_serde(
    level: usize,
    f: &Finding,
    location: &ArtifactLocation,
    fingerprint: &str,
    rule_index: Option<usize>,
) -> String {
    let result = ResultOut {
        rule_id: &f.rule,
        level: level_of(f.severity),
        message: Text { text: &f.message },
        locations: [LocationOut {
            physical_location: PhysicalLocation {
                artifact_location: location,
                region: region_of(f.span, f.start, f.end),
            },
        }],
        partial_fingerprints: Fingerprints {
            v1: fingerprint.to_string(),
        },
        rule_index,
        related_locations: f
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| RelatedOut {
                id: i,
                message: Text { text: &r.label },
                physical_location: PhysicalLocation {
                    artifact_location: location,
                    region: region_of(r.span, r.start, r.end),
                },
            })
            .collect(),
        fixes: f.fix.as_ref().map(|fix| {
            json!([{
                "description": { "text": fix_description(fix) },
                "artifactChanges": [{
                    "artifactLocation": location,
                    "replacements": fix.edits.iter().map(|e| json!({
                        "deletedRegion": {
                            "byteOffset": e.span.start,
                            "byteLength": e.span.len(),
                        },
                        "insertedContent": { "text": e.replacement },
                    })).collect::<Vec<_>>(),
                }],
            }])
        }),
        properties: f.help.as_deref().map(|help| HelpProperty { help }),
    };
    let mut out = Vec::new();
    crate::json::writer::write_json_at(&mut out, level, &result).unwrap();
    String::from_utf8(out).unwrap()
}

/// The direct writer and serde write a result alike: with and without a rule index, help
/// and related places, relative and absolute artifacts, hostile text in every string.
/// The invocation as the log's serde shape had it: notifications for unreadable and
/// unparsable files and crashes, with the rule's index when the rule ran.
fn invocations_via_serde(level: usize, input: &ReportInput<'_>) -> String {
    let index_of = |id: &str| input.rules.iter().position(|r| r.id == id);
    let mut all = Vec::new();
    input
        .findings
        .each_batch(&mut |batch| {
            all.extend_from_slice(batch);
            Ok(())
        })
        .unwrap();
    let notifications: Vec<Value> = all
        .iter()
        .filter(|f| *f.rule == *INVALID_JSON || *f.rule == *INTERNAL_ERROR)
        .map(|f| {
            let mut n = json!({
                "level": "error",
                "message": { "text": format!("{}: {}", f.path, f.message) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": located(&f.path, input),
                        "region": serde_json::to_value(region_of(f.span, f.start, f.end)).unwrap(),
                    }
                }],
                "associatedRule": { "id": &*f.rule },
            });
            if let Some(i) = index_of(&f.rule) {
                n["associatedRule"]["index"] = json!(i);
            }
            n
        })
        .collect();
    let mut notifications = notifications;
    for skipped in &input.summary.skipped {
        notifications.push(json!({
            "level": "note",
            "message": { "text": format!("{}.", skipped.text()) },
        }));
    }
    let value = json!([{
        "executionSuccessful": !input.tool_error,
        "toolExecutionNotifications": notifications,
    }]);
    let mut out = Vec::new();
    crate::json::writer::write_json_at(&mut out, level, &value).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn invocations_match_the_serde_shape() {
    let set = crate::rules::RuleSet::builtin().unwrap();
    let rules: Vec<&Rule> = set.rules.iter().collect();
    let finding = |path: &str, rule: &str, message: &str| Finding {
        message: message.to_string(),
        span: Span::new(0, 3),
        end: Position { line: 1, column: 4 },
        ..Finding::for_tests(path, rule, 1)
    };
    let findings = [
        finding(
            "a/\u{202e}b.json",
            INVALID_JSON,
            "expected `,` \u{1b}[31m\r\n",
        ),
        finding("a/c.json", "wrong-type", "not a notification"),
        finding(
            "/elsewhere/d.json",
            INTERNAL_ERROR,
            "crashed: \"quoted\" \u{2028}",
        ),
        finding("../up/e.json", INVALID_JSON, "cannot read the file"),
    ];
    let complete = crate::report::Summary::default();
    // Rules that could not run: one note per reason.
    let skipping = crate::report::Summary {
        skipped: vec![
            crate::report::Skipped {
                reason: "no catalog".into(),
                setting: "[platform] catalog".into(),
                rules: vec!["recipe-unknown".into(), "recipe-handshake".into()],
            },
            crate::report::Skipped {
                reason: "no quota".into(),
                setting: "[platform] gpu-quota or [platform.project-quota]".into(),
                rules: vec!["gpu-quota".into()],
            },
        ],
        ..Default::default()
    };
    for (findings, tool_error, summary) in [
        (&findings[..], true, &complete),
        (&findings[1..2], false, &complete),
        (&[][..], false, &complete),
        (&findings[..], false, &skipping),
    ] {
        let findings = findings.to_vec();
        let input = ReportInput {
            findings: &findings,
            summary,
            rules: &rules,
            cwd: Path::new("/work/repo"),
            root: Path::new("/work/repo"),
            statistics: false,
            tool_error,
            threads: 1,
        };
        let mut rule_index = RuleIndex::default();
        for (i, r) in rules.iter().enumerate() {
            rule_index.entry(r.id.as_str()).or_insert(i);
        }
        for level in [0, 4] {
            let mut direct = Vec::new();
            write_invocations(&mut direct, level, &input, &rule_index).unwrap();
            assert_eq!(
                String::from_utf8(direct).unwrap(),
                invocations_via_serde(level, &input)
            );
        }
    }
}

#[test]
fn results_match_the_serde_shape() {
    let related = super::super::related_for_tests;
    let finding = |help: Option<&str>, related: Vec<Related>| Finding {
        path: Arc::from("a/\u{202e}b.json"),
        rule: "wrong-type".into(),
        severity: Severity::Note,
        message: "`spec.x` is \"\u{1b}]8;;\u{7}\" — not a number\r\n".to_string(),
        help: help.map(String::from),
        pointer: "/spec/x".to_string(),
        span: Span::new(17, 40),
        start: Position { line: 3, column: 9 },
        end: Position {
            line: 3,
            column: 32,
        },
        related,
        value_hash: 1,
        secret: false,
        fix: None,
        history: None,
    };
    let cwd = Path::new("/work/repo");
    for f in [
        finding(None, Vec::new()),
        finding(Some("use `\u{2066}1`"), vec![related("here")]),
        finding(Some(""), vec![related("\u{2028}"), related("second")]),
        Finding {
            fix: Some(Box::new(crate::diagnostic::Fix {
                safety: crate::diagnostic::Safety::Safe,
                edits: vec![
                    crate::diagnostic::Edit {
                        span: Span::new(17, 40),
                        replacement: "\"a\u{1b}[2J\"".into(),
                    },
                    crate::diagnostic::Edit {
                        span: Span::new(50, 60),
                        replacement: String::new(),
                    },
                ],
            })),
            ..finding(Some("h"), vec![related("x")])
        },
    ] {
        for location in [
            artifact_location("specs/my spec/jobspec.json", cwd),
            artifact_location("../x/jobspec.json", cwd),
        ] {
            for (level, index) in [(0, None), (4, Some(0)), (4, Some(31))] {
                let mut direct = Vec::new();
                let shapes = ResultShapes::new(level);
                let locate = |p: &str| artifact_location(p, cwd);
                write_result_json(
                    &mut direct,
                    &shapes,
                    &f,
                    &location,
                    "00ff:2",
                    index,
                    &locate,
                );
                assert_eq!(
                    String::from_utf8(direct).unwrap(),
                    result_via_serde(level, &f, &location, "00ff:2", index)
                );
            }
        }
    }
}

/// The shortcut for plain relative paths gives what the walk over the components gives.
#[test]
fn plain_paths_are_their_own_uris() {
    let cwd = Path::new("/work/repo");
    for path in [
        "a/jobspec.json",
        "jobspec.json",
        "archive/009/run-009830.jobspec.json",
        "a~b/_x-y.z",
        ".hidden/spec.json",
        "a/.../b",
        "./a/b",
        "a/./b",
        "a//b",
        "a/b/",
        "/work/repo/a",
        "../a",
        "a/../b",
        "a/..",
        ".",
        "",
        "my spec/j.json",
        "é/j.json",
        "a%2Fb",
    ] {
        assert_eq!(
            artifact_location(path, cwd),
            artifact_location_by_components(path, cwd),
            "{path:?}"
        );
    }
    assert!(is_plain_relative("archive/009/run-009830.jobspec.json"));
    assert!(!is_plain_relative("a//b"));
}

#[test]
#[cfg(unix)] // Unix absolute paths: on Windows they name no drive.
fn uris_are_relative_and_percent_encoded() {
    let cwd = Path::new("/work/repo");
    assert_eq!(
        serde_json::to_value(artifact_location("specs/my spec/jobspec.json", cwd)).unwrap(),
        json!({"uri": "specs/my%20spec/jobspec.json", "uriBaseId": "%SRCROOT%"})
    );
    assert_eq!(
        artifact_location("/work/repo/a/jobspec.json", cwd).uri,
        "a/jobspec.json"
    );
    assert_eq!(
        serde_json::to_value(artifact_location("../x/jobspec.json", cwd)).unwrap(),
        json!({"uri": "file:///work/repo/../x/jobspec.json"})
    );
    let mut encoded = String::new();
    push_encoded(&mut encoded, "a#b/%c/名");
    assert_eq!(encoded, "a%23b/%25c/%E5%90%8D");
}

#[test]
fn fingerprints_are_stable() {
    assert_eq!(fnv1a(&["a", "b"]), fnv1a(&["a", "b"]));
    assert_ne!(fnv1a(&["ab", ""]), fnv1a(&["a", "b"]));
}
