//! `--fix`, `--unsafe-fixes` and `--diff`: files fixed in place byte for byte, what remains
//! reported, nothing written when nothing may be, and the fixes in JSON and SARIF.

#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use super::*;

/// The reference spec with a safe fault (an owner, 7:14) and three unsafe ones: an old
/// apiVersion (2:17), a set entrypoint and a misspelt `gpu_per_node` the pool lacks.
pub(super) fn faulty_spec() -> String {
    let spec = patch(&reference(), r#""owner": """#, r#""owner": "bob""#);
    let spec = patch(
        &spec,
        r#""apiVersion": "forge/v2""#,
        r#""apiVersion": "forge/v1""#,
    );
    let spec = patch(
        &spec,
        r#""source": { "exp": "experiments/my-grpo" }"#,
        r#""source": { "exp": "experiments/my-grpo", "entrypoint": "python train.py" }"#,
    );
    patch(&spec, r#""gpus_per_node": 8"#, r#""gpu_per_node": 8"#)
}

/// `faulty_spec` with every fault fixed, as the fixes write it.
pub(super) fn fixed_spec() -> String {
    let spec = patch(
        &reference(),
        r#""owner": "",
    "#,
        "",
    );
    patch(&spec, r#""gpus_per_node": 8"#, r#""gpus_per_node": 8"#)
}

pub(super) fn project(spec: &str) -> Tree {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("run.jobspec.json", spec);
    tree
}

pub(super) fn read(tree: &Tree, rel: &str) -> String {
    std::fs::read_to_string(tree.path(rel)).unwrap()
}

#[test]
#[cfg(unix)]
fn fix_applies_the_safe_fixes_and_reports_what_remains() {
    let tree = project(&faulty_spec());
    let before = std::fs::metadata(tree.path("run.jobspec.json")).unwrap();
    std::fs::set_permissions(
        tree.path("run.jobspec.json"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let run = tree.run(&["--no-config", "--format", "concise", "--fix"]);
    run.expect_code(1);
    // Only the owner went; the unsafe faults remain, reported against the fixed file.
    let expected = patch(
        &faulty_spec(),
        r#""owner": "bob",
    "#,
        "",
    );
    assert_eq!(read(&tree, "run.jobspec.json"), expected);
    let mut rules = run.rules();
    rules.sort();
    assert_eq!(rules, ["api-version", "entrypoint-set", "unknown-field"]);
    assert!(run.findings().iter().all(|f| f.rule != "owner-ignored"));
    assert!(
        run.stderr
            .contains("Fixed 1 finding; 3 more findings fixable with --unsafe-fixes."),
        "{}",
        run.stderr
    );
    let after = std::fs::metadata(tree.path("run.jobspec.json")).unwrap();
    assert_eq!(
        after.permissions().mode() & 0o777,
        0o640,
        "the mode is kept"
    );
    assert_eq!(after.uid(), before.uid());
}

#[test]
fn unsafe_fixes_fix_everything_and_a_second_run_changes_nothing() {
    let tree = project(&faulty_spec());
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--fix",
        "--unsafe-fixes",
    ]);
    run.expect_code(0);
    assert_eq!(read(&tree, "run.jobspec.json"), fixed_spec());
    assert!(run.stderr.contains("Fixed 4 findings."), "{}", run.stderr);
    let again = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--fix",
        "--unsafe-fixes",
    ]);
    again.expect_code(0);
    assert_eq!(read(&tree, "run.jobspec.json"), fixed_spec());
    assert!(!again.stderr.contains("Fixed"), "{}", again.stderr);
}

#[test]
fn diff_shows_the_change_and_writes_nothing() {
    let tree = project(&faulty_spec());
    let run = tree.run(&["--no-config", "--diff"]);
    run.expect_code(1);
    assert_eq!(read(&tree, "run.jobspec.json"), faulty_spec(), "untouched");
    assert!(
        run.stdout
            .starts_with("--- a/run.jobspec.json\n+++ b/run.jobspec.json\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n-    \"owner\": \"bob\",\n"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("forge/v1"),
        "safe fixes only: {}",
        run.stdout
    );
    assert!(
        run.stderr.contains("Would fix 1 finding in 1 file."),
        "{}",
        run.stderr
    );
    let run = tree.run(&["--no-config", "--diff", "--unsafe-fixes"]);
    run.expect_code(1);
    assert!(
        run.stdout
            .contains("-  \"apiVersion\": \"forge/v1\",\n+  \"apiVersion\": \"forge/v2\",\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("Would fix 4 findings in 1 file."),
        "{}",
        run.stderr
    );
    // Nothing to fix: exit 0, no diff.
    let clean = project(&reference());
    let run = clean.run(&["--no-config", "--diff", "--unsafe-fixes"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("No fixes would apply."),
        "{}",
        run.stderr
    );
}

#[test]
fn fix_on_standard_input_writes_the_fixed_spec_to_standard_output() {
    let tree = project("");
    let run = tree.run_stdin(
        &[
            "--no-config",
            "--format",
            "concise",
            "--fix",
            "--unsafe-fixes",
            "-",
        ],
        &faulty_spec(),
    );
    run.expect_code(0);
    assert_eq!(run.stdout, fixed_spec());
    assert!(run.stderr.contains("Fixed 4 findings."), "{}", run.stderr);
}

#[test]
fn a_file_that_is_not_json_is_left_untouched() {
    let broken = "{\"apiVersion\": \"forge/v1\", \"metadata\": {\"owner\": \"bob\",}}\n";
    let tree = project(broken);
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--fix",
        "--unsafe-fixes",
    ]);
    run.expect_code(1);
    assert_eq!(run.rules(), ["invalid-json"]);
    assert_eq!(read(&tree, "run.jobspec.json"), broken);
}

#[test]
fn a_linked_spec_is_fixed_through_its_link() {
    let tree = project("");
    tree.write("real/spec.json", faulty_spec())
        .symlink("real/spec.json", "linked.jobspec.json");
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--fix",
        "linked.jobspec.json",
    ]);
    run.expect_code(1);
    let link = std::fs::symlink_metadata(tree.path("linked.jobspec.json")).unwrap();
    assert!(link.file_type().is_symlink(), "the link stays a link");
    assert!(!read(&tree, "real/spec.json").contains("\"bob\""));
}

#[test]
fn json_and_sarif_carry_the_fixes() {
    let tree = project(&faulty_spec());
    let run = tree.run(&["--no-config", "--format", "json"]);
    let json = run.json();
    let owner = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "owner-ignored")
        .unwrap();
    assert_eq!(owner["fix"]["safety"], "safe");
    let edit = &owner["fix"]["edits"][0];
    let text = faulty_spec();
    let (start, end) = (
        edit["start"].as_u64().unwrap() as usize,
        edit["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&text[start..end], "\"owner\": \"bob\",\n    ");
    assert_eq!(edit["replacement"], "");
    let run = tree.run(&["--no-config", "--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let validator = common::sarif_validator();
    assert!(validator.is_valid(&sarif), "the log validates with fixes");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let fixed: Vec<&serde_json::Value> = results
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .collect();
    assert_eq!(fixed.len(), 4, "one per fixable finding");
    let replacement = &fixed[0]["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert!(replacement["deletedRegion"]["byteOffset"].is_u64());
}

#[test]
fn a_rule_file_declares_its_fix_and_test_rules_checks_the_fixed_text() {
    let tree = Tree::new();
    let rule = |fixed: &str| {
        format!(
            "id = \"base-model-pinned\"\nseverity = \"warning\"\nsummary = \"s\"\n\
             message = \"{{path}} is {{value}}\"\n\n[[check]]\nselect = \"spec.model.base\"\n\
             equals = \"Qwen/Qwen2.5-7B-Instruct\"\nfix = {{ set = \"Qwen/Qwen2.5-7B-Instruct\" }}\n\
             fix-safety = \"unsafe\"\n\n[[invalid]]\nname = \"the base model\"\n\
             patch = '{{\"spec\": {{\"model\": {{\"base\": \"Qwen/Qwen2.5-7B\"}}}}}}'\n\
             at = \"/spec/model/base\"\nfixed-patch = '{{\"spec\": {{\"model\": {{\"base\": \"{fixed}\"}}}}}}'\n"
        )
    };
    tree.write("policies/base.toml", rule("Qwen/Qwen2.5-7B-Instruct"));
    let run = tree.run(&["test-rules", "policies/base.toml"]);
    run.expect_code(0);
    tree.write("policies/base.toml", rule("Qwen/Other"));
    let run = tree.run(&["test-rules", "policies/base.toml"]);
    run.expect_code(1);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("at line 42: expected"), "{said}");
    // The fix applies in a run with the rule file.
    tree.mkdir("experiments/my-grpo")
        .write("run.jobspec.json", reference());
    let run = tree.run(&[
        "--no-config",
        "--rules",
        "policies/base.toml",
        "--select",
        "base-model-pinned",
        "--fix",
        "--unsafe-fixes",
        "--format",
        "concise",
    ]);
    run.expect_code(0);
    assert!(read(&tree, "run.jobspec.json").contains("\"base\": \"Qwen/Qwen2.5-7B-Instruct\""));
}

#[test]
fn bad_fixes_in_rule_files_are_errors_at_their_span() {
    let tree = Tree::new();
    let base = "id = \"x\"\nseverity = \"warning\"\nsummary = \"s\"\nmessage = \"m\"\n\n[[check]]\nselect = \"metadata.name\"\nnon-empty = true\n";
    for (extra, says, line) in [
        ("fix = \"remov\"\n", "did you mean `remove`?", 9),
        (
            "fix = { set = \"{catalog.versio}\" }\n",
            "unknown fact `catalog.versio`",
            9,
        ),
        ("fix-safety = \"safe\"\n", "`fix-safety` goes with `fix`", 9),
        (
            "fix = \"remove\"\nfix-safety = \"sure\"\n",
            "unknown fix-safety `sure`",
            10,
        ),
        (
            "fix = \"rename-to-suggestion\"\n",
            "goes with a `keys` check",
            9,
        ),
    ] {
        tree.write("policies/x.toml", format!("{base}{extra}"));
        let run = tree.run(&["--no-config", "--rules", "policies/x.toml"]);
        run.expect_code(2);
        assert!(run.stderr.contains(says), "{extra}: {}", run.stderr);
        let at = format!("policies/x.toml:{line}:");
        assert!(run.stderr.contains(&at), "{extra}: {}", run.stderr);
    }
    tree.write(
        "policies/x.toml",
        "id = \"x\"\nseverity = \"warning\"\nsummary = \"s\"\nmessage = \"m\"\ntarget = \"text\"\n\n[[check]]\npattern = 'x'\nfix = \"remove\"\n",
    );
    let run = tree.run(&["--no-config", "--rules", "policies/x.toml"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("fixes are for jobspec rules"),
        "{}",
        run.stderr
    );
}
