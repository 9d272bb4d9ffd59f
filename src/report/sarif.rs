//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning ingests it.
//!
//! Hand-written on serde_json (the SARIF crates do not build alone or add much): the driver lists
//! every rule that ran; each result has a region in 1-based UTF-16 columns (`columnKind`) plus the
//! exact byte range, an artifact URI relative to `%SRCROOT%` (the current directory), and a
//! `partialFingerprints` entry derived from path, rule and JSON Pointer, so it survives moved
//! lines. Files that could not be read or parsed are also tool execution notifications.

use std::io::Write;
use std::path::{Component, Path};

use serde_json::{json, Value};

use super::ReportInput;
use crate::diagnostic::{fnv1a, Finding};
use crate::engine::{INTERNAL_ERROR, INVALID_JSON};
use crate::rules::{Rule, Severity};

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const FINGERPRINT_KEY: &str = "forgelint/v1";

/// Percent-encodes a path for a URI, keeping `/` between segments (RFC 3986 unreserved kept).
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn file_uri(abs: &Path) -> String {
    let mut s = encode_path(&abs.to_string_lossy().replace('\\', "/"));
    if !s.starts_with('/') {
        s.insert(0, '/');
    }
    format!("file://{s}")
}

/// The artifact location of a finding's file: relative to `%SRCROOT%` when it is inside it.
fn artifact_location(path: &str, cwd: &Path) -> Value {
    let p = Path::new(path);
    let relative = if p.is_absolute() {
        p.strip_prefix(cwd).ok().map(Path::to_path_buf)
    } else {
        Some(p.to_path_buf())
    };
    match relative {
        Some(rel) if !rel.components().any(|c| matches!(c, Component::ParentDir)) => {
            let text: Vec<String> = rel
                .components()
                .filter_map(|c| match c {
                    Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            json!({ "uri": encode_path(&text.join("/")), "uriBaseId": "%SRCROOT%" })
        }
        _ => json!({ "uri": file_uri(&cwd.join(p)) }),
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn help_uri(rule: &Rule) -> String {
    if rule.origin.builtin {
        format!(
            "{}/blob/main/docs/rules/{}.md",
            env!("CARGO_PKG_REPOSITORY"),
            rule.id
        )
    } else {
        let path = Path::new(&rule.origin.name);
        let abs = std::env::current_dir()
            .map(|c| c.join(path))
            .unwrap_or_else(|_| path.to_path_buf());
        file_uri(&abs)
    }
}

fn rule_descriptor(rule: &Rule) -> Value {
    let help_text = match &rule.help {
        Some(h) => format!(
            "{}\n\nFix: {}",
            if rule.explanation.is_empty() {
                &rule.summary
            } else {
                &rule.explanation
            },
            h.render(|_| Some("…"))
        ),
        None if rule.explanation.is_empty() => rule.summary.clone(),
        None => rule.explanation.clone(),
    };
    json!({
        "id": rule.id,
        "name": rule.id,
        "shortDescription": { "text": rule.summary },
        "fullDescription": { "text": if rule.explanation.is_empty() { &rule.summary } else { &rule.explanation } },
        "help": { "text": help_text, "markdown": help_text },
        "helpUri": help_uri(rule),
        "defaultConfiguration": { "level": level(rule.severity) },
        "properties": { "tags": ["forge/v2", if rule.origin.builtin { "builtin" } else { "policy" }] },
    })
}

fn region(f: &Finding) -> Value {
    json!({
        "startLine": f.start.line,
        "startColumn": f.start.column,
        "endLine": f.end.line,
        "endColumn": f.end.column,
        "byteOffset": f.span.start,
        "byteLength": f.span.len(),
    })
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let rules: Vec<Value> = input.rules.iter().map(|r| rule_descriptor(r)).collect();
    let index_of = |id: &str| input.rules.iter().position(|r| r.id == id);
    let mut results = Vec::with_capacity(input.findings.len());
    let mut notifications = Vec::new();
    let mut previous: Option<(u64, usize)> = None;
    for f in input.findings {
        let location = json!({
            "physicalLocation": {
                "artifactLocation": artifact_location(&f.path, input.cwd),
                "region": region(f),
            }
        });
        let hash = fnv1a(&[&f.path, &f.rule, &f.pointer]);
        // Identical identities (two findings of one rule on one value) get an occurrence count.
        let occurrence = match previous {
            Some((h, n)) if h == hash => n + 1,
            _ => 1,
        };
        previous = Some((hash, occurrence));
        let mut result = json!({
            "ruleId": &*f.rule,
            "level": level(f.severity),
            "message": { "text": f.message },
            "locations": [location.clone()],
            "partialFingerprints": { FINGERPRINT_KEY: format!("{hash:016x}:{occurrence}") },
        });
        if let Some(i) = index_of(&f.rule) {
            result["ruleIndex"] = json!(i);
        }
        if !f.related.is_empty() {
            result["relatedLocations"] = Value::Array(
                f.related
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        json!({
                            "id": i,
                            "message": { "text": r.label },
                            "physicalLocation": {
                                "artifactLocation": artifact_location(&f.path, input.cwd),
                                "region": {
                                    "startLine": r.start.line,
                                    "startColumn": r.start.column,
                                    "endLine": r.end.line,
                                    "endColumn": r.end.column,
                                    "byteOffset": r.span.start,
                                    "byteLength": r.span.len(),
                                },
                            },
                        })
                    })
                    .collect(),
            );
        }
        if f.help.is_some() {
            result["properties"] = json!({ "help": f.help });
        }
        if *f.rule == *INVALID_JSON || *f.rule == *INTERNAL_ERROR {
            let mut n = json!({
                "level": "error",
                "message": { "text": format!("{}: {}", f.path, f.message) },
                "locations": [location],
                "associatedRule": { "id": &*f.rule },
            });
            if let Some(i) = index_of(&f.rule) {
                n["associatedRule"]["index"] = json!(i);
            }
            notifications.push(n);
        }
        results.push(result);
    }
    let doc = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "forgelint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": {
                "%SRCROOT%": { "uri": format!("{}/", file_uri(input.cwd).trim_end_matches('/')) }
            },
            "columnKind": "utf16CodeUnits",
            "invocations": [{
                "executionSuccessful": !input.tool_error,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    });
    crate::escape::write_json(out, &doc)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_percent_encoded() {
        let cwd = Path::new("/work/repo");
        assert_eq!(
            artifact_location("specs/my spec/jobspec.json", cwd),
            json!({"uri": "specs/my%20spec/jobspec.json", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("/work/repo/a/jobspec.json", cwd)["uri"],
            "a/jobspec.json"
        );
        assert_eq!(
            artifact_location("../x/jobspec.json", cwd)["uri"],
            "file:///work/repo/../x/jobspec.json"
        );
        assert_eq!(encode_path("a#b/%c/名"), "a%23b/%25c/%E5%90%8D");
    }

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(fnv1a(&["a", "b"]), fnv1a(&["a", "b"]));
        assert_ne!(fnv1a(&["ab", ""]), fnv1a(&["a", "b"]));
    }
}
