//! One fault, one finding: each missing field is a finding of its own, and a value of the wrong
//! type is reported once, by `wrong-type`, with nothing beneath it or about it reported too; a
//! missing value names what is expected.

use super::*;

/// The `(rule, message)` pairs of concise output.
fn rules_and_messages(run: &Run) -> Vec<(String, String)> {
    run.findings()
        .into_iter()
        .map(|f| (f.rule, f.message))
        .collect()
}

/// An empty object names every required field, each in its own finding, in a stable order.
#[test]
fn every_missing_field_of_an_empty_object_is_named() {
    let tree = Tree::new();
    let run = tree.run_stdin(&["--no-config", "--format", "concise", "-"], "{}");
    run.expect_code(1);
    let missing: Vec<String> = rules_and_messages(&run)
        .into_iter()
        .filter(|(rule, _)| rule == "missing-field")
        .map(|(_, message)| message)
        .collect();
    assert_eq!(
        missing,
        [
            "metadata.name is missing or empty",
            "metadata.project is missing or empty",
            "provenance.core_version is missing or empty",
            "spec.framework.runtime_id is missing or empty",
            "spec.recipe.digest is missing or empty",
            "spec.recipe.name is missing or empty",
            "spec.recipe.version is missing or empty",
            "spec.source.exp is missing or empty",
        ],
        "{}",
        run.stdout
    );
    // The same run again: the same findings in the same order.
    let again = tree.run_stdin(&["--no-config", "--format", "concise", "-"], "{}");
    assert_eq!(again.stdout, run.stdout);
}

/// Two fields missing from one object are two findings, each with its own pointer.
#[test]
fn two_missing_fields_of_one_object_are_two_findings() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    let spec = patch(
        &patch(&reference(), r#""name": "grpo-gsm8k-0412","#, ""),
        r#""project": "my-lab","#,
        "",
    );
    tree.write("jobspec.json", &spec);
    let run = tree.run(&["--no-config", "--format", "json", "jobspec.json"]);
    run.expect_code(1);
    let found: Vec<(String, String)> = run
        .json_of("jobspec.json")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["pointer"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("missing-field".to_string(), "/metadata/name".to_string()),
            ("missing-field".to_string(), "/metadata/project".to_string()),
        ],
        "{}",
        run.stdout
    );
}

/// A missing `kind` names the kind expected, the configured one when there is a configuration.
#[test]
fn a_missing_kind_names_the_kind() {
    let tree = Tree::new();
    let kind_message = |run: &Run| {
        rules_and_messages(run)
            .into_iter()
            .find(|(rule, _)| rule == "kind")
            .map(|(_, message)| message)
    };
    let run = tree.run_stdin(&["--no-config", "--format", "concise", "-"], "{}");
    assert_eq!(
        kind_message(&run).as_deref(),
        Some("kind is missing; it must be \"TrainingJob\""),
        "{}",
        run.stdout
    );
    tree.write("forgelint.toml", "[platform]\nkind = \"TrainingJobV2\"\n");
    let run = tree.run_stdin(&["--format", "concise", "-"], "{}");
    assert_eq!(
        kind_message(&run).as_deref(),
        Some("kind is missing; it must be \"TrainingJobV2\""),
        "{}",
        run.stdout
    );
}
