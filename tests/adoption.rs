//! Adoption features: baselines, test-rules, init, select/ignore, severity overrides.

use crate::common;

use common::run_in;

fn spec() -> serde_json::Value {
    serde_json::from_str(forgelint::rules::REFERENCE_SPEC).unwrap()
}

/// An archive of old specs, each with faults of its own.
fn archive() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("experiments/my-grpo")).unwrap();
    std::fs::write(dir.path().join("forgelint.toml"), "").unwrap();
    for i in 0..6 {
        let mut s = spec();
        s["metadata"]["name"] = format!("old run {i}").into();
        s["metadata"]["owner"] = "alice".into();
        let sub = dir.path().join(format!("runs/{i}"));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join("jobspec.json"),
            serde_json::to_string_pretty(&s).unwrap(),
        )
        .unwrap();
    }
    dir
}

#[test]
fn a_baseline_hides_old_findings_and_reports_only_new_ones() {
    let dir = archive();
    let root = dir.path();
    let out = run_in(root, &["--write-baseline", "baseline.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let baseline = std::fs::read_to_string(root.join("baseline.json")).unwrap();
    assert!(baseline.contains("\"rule\": \"name-format\""), "{baseline}");
    assert!(
        !baseline.contains("\"line\""),
        "identities carry no line numbers"
    );

    // Unchanged: nothing new.
    let out = run_in(
        root,
        &["--baseline", "baseline.json", "--format", "concise"],
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("12 findings hidden by the baseline"),
        "{}",
        out.stderr
    );

    // Reformat one spec (minify it, move every line) and add a new fault to another.
    let p0 = root.join("runs/0/jobspec.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p0).unwrap()).unwrap();
    std::fs::write(&p0, format!("\n\n{}", serde_json::to_string(&v).unwrap())).unwrap();
    let p1 = root.join("runs/1/jobspec.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p1).unwrap()).unwrap();
    v["apiVersion"] = "forge/v1".into();
    std::fs::write(&p1, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    // And fix an old fault in a third: its entry goes stale.
    let p2 = root.join("runs/2/jobspec.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p2).unwrap()).unwrap();
    v["metadata"]["owner"] = "".into();
    std::fs::write(&p2, serde_json::to_string_pretty(&v).unwrap()).unwrap();

    let out = run_in(
        root,
        &["--baseline", "baseline.json", "--format", "concise"],
    );
    let stdout = out.stdout;
    assert_eq!(out.code, 1, "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("runs/1/jobspec.json:2:17: error[api-version]"),
        "{stdout}"
    );
    let stderr = out.stderr;
    assert!(
        stderr.contains("11 findings hidden by the baseline; 1 baseline entry is stale"),
        "{stderr}"
    );

    // The same baseline works from another directory: paths are relative to the baseline file.
    let out = run_in(
        &root.join("runs"),
        &["--baseline", "../baseline.json", "--format", "json", "."],
    );
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["findings"].as_array().unwrap().len(), 1);
    assert_eq!(doc["summary"]["baseline"]["hidden"], 11);
}

#[test]
fn a_bad_baseline_is_a_tool_error() {
    let dir = archive();
    std::fs::write(
        dir.path().join("b.json"),
        "{\"version\": 1, \"findings\": [{}]}",
    )
    .unwrap();
    let out = run_in(dir.path(), &["--baseline", "b.json"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("not a forgelint baseline"),
        "{}",
        out.stderr
    );
}

#[test]
fn test_rules_reports_a_case_that_does_not_hold_at_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("team.toml"),
        r#"id = "team-label"
severity = "error"
summary = "labels.team is required"
message = "{path} is missing"

[[check]]
select = "metadata.labels.team"
non-empty = true

[[valid]]
name = "has a team"

[[invalid]]
name = "claims to fail but passes"
patch = '{"metadata": {"labels": {"team": "x"}}}'
"#,
    )
    .unwrap();
    let out = run_in(dir.path(), &["test-rules", "team.toml"]);
    let stdout = out.stdout;
    assert_eq!(out.code, 1, "{stdout}");
    assert!(stdout.contains("team.toml:13:1"), "{stdout}");
    assert!(stdout.contains("claims to fail but passes"), "{stdout}");
    assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
    let builtin = run_in(dir.path(), &["test-rules"]);
    assert_eq!(builtin.code, 0);
    assert!(builtin.stdout.contains(" passed, 0 failed"));
}

#[test]
fn init_writes_a_starter_config_that_loads_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["init"]);
    assert_eq!(out.code, 0);
    let written = std::fs::read_to_string(dir.path().join("forgelint.toml")).unwrap();
    assert!(written.contains("[platform]"));
    let check = run_in(dir.path(), &["check", "."]);
    assert_eq!(check.code, 0, "the starter config loads: {}", check.stderr);
    let again = run_in(dir.path(), &["init"]);
    assert_eq!(again.code, 2);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("forgelint.toml")).unwrap(),
        written
    );
}

#[test]
fn select_ignore_and_severity_overrides() {
    let dir = archive();
    let root = dir.path();
    let concise = |args: &[&str]| {
        let mut all = vec!["--format", "concise"];
        all.extend_from_slice(args);
        let out = run_in(root, &all);
        (Some(out.code), out.stdout, out.stderr)
    };
    let (code, out, _) = concise(&["--select", "owner-ignored"]);
    assert_eq!(code, Some(0), "warnings only");
    assert_eq!(out.lines().count(), 6);
    let (code, out, _) = concise(&["--ignore", "name-format,owner-ignored"]);
    assert_eq!((code, out.as_str()), (Some(0), ""));
    let (code, _, err) = concise(&["--select", "owner-ignord"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean `owner-ignored`"), "{err}");
    std::fs::write(
        root.join("forgelint.toml"),
        "[severity]\nname-format = \"off\"\nowner-ignored = \"error\"\n",
    )
    .unwrap();
    let (code, out, _) = concise(&[]);
    assert_eq!(code, Some(1));
    assert!(
        out.lines().all(|l| l.contains("error[owner-ignored]")),
        "{out}"
    );
    std::fs::write(
        root.join("forgelint.toml"),
        "[per-file-ignores]\n\"runs/[0-4]/**\" = [\"owner-ignored\", \"name-format\"]\n",
    )
    .unwrap();
    let (_, out, _) = concise(&[]);
    assert!(out.lines().all(|l| l.starts_with("runs/5/")), "{out}");
}

#[test]
fn a_rule_files_own_globs_scope_it() {
    let dir = archive();
    let root = dir.path();
    std::fs::create_dir(root.join("policies")).unwrap();
    std::fs::write(
        root.join("policies/owner.toml"),
        r#"id = "no-owner-in-runs-0-to-2"
severity = "error"
summary = "metadata.owner stays empty in runs 0 to 2"
message = "owner is {value}"
files = ["runs/[0-2]/**"]
ignores = ["runs/1/**"]

[[check]]
select = "metadata.owner"
empty = true

[[invalid]]
patch = '{"metadata": {"owner": "x"}}'
"#,
    )
    .unwrap();
    let out = run_in(
        root,
        &[
            "--rules",
            "policies",
            "--select",
            "no-owner-in-runs-0-to-2",
            "--format",
            "concise",
        ],
    );
    let stdout = out.stdout;
    let files: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        files,
        ["runs/0/jobspec.json", "runs/2/jobspec.json"],
        "{stdout}{}",
        out.stderr
    );
}
