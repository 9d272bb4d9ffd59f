//! One small untrusted file must not cost minutes: every check is linear (or n log n) in what
//! it reads. Each spec here is a few MB, minified to one line (the worst case for columns),
//! with one part repeated until a check fails on every item. The linter must finish well
//! within the watchdog (a debug build takes seconds; the quadratic checks these replace took
//! minutes to hours at these sizes), report the first findings of the file with true
//! positions and counts, and keep every message short.
//!
//! Speed itself is measured by `bench/hostile.sh`, on specs at the 32 MiB limit.

use crate::common;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

/// A hang or a quadratic check, not a timing: the debug build takes a few seconds.
const WATCHDOG: Duration = Duration::from_secs(120);

/// Findings reported per file (the rest are counted in the last one's message).
const PER_FILE: usize = 1000;

/// The reference spec with `change` applied, minified.
fn spec_with(change: impl FnOnce(&mut Value)) -> String {
    let mut spec: Value = serde_json::from_str(forgelint::rules::REFERENCE_SPEC).unwrap();
    change(&mut spec);
    serde_json::to_string(&spec).unwrap()
}

fn pool(name: &str) -> Value {
    json!({"name": name, "series": "h200", "nodes": 1, "gpus_per_node": 8})
}

/// Lints `text` as a spec (and `rules`, a rule file, when given); the JSON report's findings.
fn findings_of(text: &str, rules: Option<&str>) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("experiments/my-grpo")).unwrap();
    std::fs::write(dir.path().join("big.jobspec.json"), text).unwrap();
    let mut args = vec!["--no-config", "--format", "json", "--fail-on", "warning"];
    if let Some(rules) = rules {
        std::fs::write(dir.path().join("rule.toml"), rules).unwrap();
        args.extend(["--rules", "rule.toml"]);
    }
    args.push("big.jobspec.json");
    let run = common::run_within(dir.path(), &args, WATCHDOG);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap().clone();
    // Positions are true on the one long line: ASCII, so the column is the byte offset + 1.
    for f in &findings {
        assert_eq!(f["start"]["line"], 1);
        assert_eq!(
            f["start"]["column"],
            f["span"]["start"].as_u64().unwrap() + 1
        );
        assert_eq!(f["end"]["column"], f["span"]["end"].as_u64().unwrap() + 1);
    }
    findings
}

/// All findings are of `rule`; there are `PER_FILE` of them, the last saying how many more.
fn assert_capped(findings: &[Value], rule: &str, total: usize) {
    assert_eq!(findings.len(), PER_FILE);
    assert!(
        findings.iter().all(|f| f["rule"] == rule),
        "{:?}",
        findings[0]
    );
    let last = findings.last().unwrap()["message"].as_str().unwrap();
    let more = format!(
        "({} more findings in this file not shown)",
        total - PER_FILE
    );
    assert!(last.ends_with(&more), "{last}");
    // In file order: the first findings are the ones reported.
    let starts: Vec<u64> = findings
        .iter()
        .map(|f| f["span"]["start"].as_u64().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn pools_that_share_one_name() {
    let n = 100_000;
    let text = spec_with(|s| s["spec"]["resources"]["pools"] = vec![pool("train"); n].into());
    let findings = findings_of(&text, None);
    assert_capped(&findings, "pool-name-duplicate", n - 1);
    // Each points at the first pool's name.
    let first = &findings[0]["related"][0]["span"]["start"];
    assert!(findings
        .iter()
        .all(|f| &f["related"][0]["span"]["start"] == first));
}

#[test]
fn many_distinct_pools_and_one_missing_role() {
    let n = 100_000;
    let text = spec_with(|s| {
        let pools: Vec<Value> = (0..n).map(|i| pool(&format!("pool-{i}"))).collect();
        s["spec"]["resources"]["pools"] = pools.into();
        s["spec"]["resources"]["roles"] = json!({"trainer": "missing"});
    });
    let findings = findings_of(&text, None);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["rule"], "role-pool");
    let message = findings[0]["message"].as_str().unwrap();
    assert!(message.len() < 400, "{message}");
    assert!(message.contains("\"pool-0\", \"pool-1\","), "{message}");
    assert!(
        message.contains(&format!("and {} more", n - 10)),
        "{message}"
    );
}

#[test]
fn many_roles_naming_missing_pools() {
    let n = 100_000;
    let text = spec_with(|s| {
        let pools: Vec<Value> = (0..1000).map(|i| pool(&format!("pool-{i}"))).collect();
        s["spec"]["resources"]["pools"] = pools.into();
        let roles: serde_json::Map<String, Value> = (0..n)
            .map(|i| (format!("role-{i}"), json!("missing")))
            .collect();
        s["spec"]["resources"]["roles"] = roles.into();
    });
    let findings = findings_of(&text, None);
    assert_capped(&findings, "role-pool", n);
    assert!(findings
        .iter()
        .all(|f| f["message"].as_str().unwrap().len() < 400));
}

#[test]
fn plugins_that_unpack_to_one_leaf() {
    let n = 50_000;
    let text = spec_with(|s| {
        let digest = format!("sha256:{}", "0".repeat(64));
        let plugins: Vec<Value> = (0..n)
            .map(|i| json!({"id": format!("owner-{i}/leaf"), "version": "1.0.0", "digest": digest}))
            .collect();
        s["spec"]["plugins"] = plugins.into();
    });
    assert_capped(&findings_of(&text, None), "plugin-leaf-collision", n - 1);
}

#[test]
fn unique_over_a_wide_map() {
    let rule = r#"
id = "hyperparams-unique"
severity = "warning"
summary = "Every hyperparameter value is used once"
message = "{value} is used twice"

[[check]]
select = "spec.hyperparams.*"
unique = true
"#;
    let n = 100_000;
    let text = spec_with(|s| {
        // Each value twice: k0 and k1 share 0, k2 and k3 share 1, ...
        let map: serde_json::Map<String, Value> =
            (0..n).map(|i| (format!("k{i}"), json!(i / 2))).collect();
        s["spec"]["hyperparams"] = map.into();
    });
    assert_capped(&findings_of(&text, Some(rule)), "hyperparams-unique", n / 2);

    // Distinct values: nothing to report, and no time spent finding that out.
    let text = spec_with(|s| {
        let map: serde_json::Map<String, Value> =
            (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
        s["spec"]["hyperparams"] = map.into();
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("experiments/my-grpo")).unwrap();
    std::fs::write(dir.path().join("big.jobspec.json"), &text).unwrap();
    std::fs::write(dir.path().join("rule.toml"), rule).unwrap();
    let args = [
        "--no-config",
        "--fail-on",
        "warning",
        "--rules",
        "rule.toml",
        "big.jobspec.json",
    ];
    let run = common::run_within(Path::new(dir.path()), &args, WATCHDOG);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
