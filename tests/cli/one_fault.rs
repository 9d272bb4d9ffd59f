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

/// Each spec has one fault, and gets one finding: the rule that owns the fault, at its value.
#[test]
fn a_value_of_the_wrong_type_is_one_finding() {
    const POOLS: &str =
        r#""pools": [{ "name": "train", "series": "h200", "nodes": 1, "gpus_per_node": 8 }],"#;
    let spec = reference();
    let cases = [
        (
            "pools-object.json",
            patch(
                &spec,
                POOLS,
                r#""pools": { "name": "train", "series": "h200", "nodes": 1, "gpus_per_node": 8 },"#,
            ),
            "wrong-type",
            "spec.resources.pools must be array, found an object with 4 keys",
        ),
        (
            "pools-absent.json",
            patch(&spec, POOLS, ""),
            "pools-empty",
            "spec.resources.pools is missing: a job needs at least one pool",
        ),
        (
            "pools-empty.json",
            patch(&spec, POOLS, r#""pools": [],"#),
            "pools-empty",
            "spec.resources.pools is an array of 0 items: a job needs at least one pool",
        ),
        (
            "entrypoint-array.json",
            patch(
                &spec,
                r#""exp": "experiments/my-grpo" }"#,
                r#""exp": "experiments/my-grpo", "entrypoint": ["python", "train.py"] }"#,
            ),
            "wrong-type",
            "spec.source.entrypoint must be string, found an array of 2 items",
        ),
    ];
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    for (name, text, rule, message) in cases {
        tree.write(name, &text);
        let run = tree.run(&["--no-config", "--format", "concise", name]);
        assert_eq!(
            rules_and_messages(&run),
            [(rule.to_string(), message.to_string())],
            "{name}:\n{}",
            run.stdout
        );
    }
}
