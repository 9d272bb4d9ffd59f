//! Every format's report of a short history, snapshotted: a secret added and removed (masked,
//! with "revoke it"), a fault fixed after its file was renamed, a fault still at the tip.

use super::common::{Tree, FORMATS};
use super::{build, config_with_token, rename, spec, spec_with_lr, start, write, CONFIG};

/// Six commits; returns the tree.
fn short_history() -> Tree {
    let tree = Tree::new();
    let owner = |lr: &str| {
        super::common::patch(&spec_with_lr(lr), "\"owner\": \"\"", "\"owner\": \"alice\"")
    };
    let v1 = |lr: &str| {
        super::common::patch(
            &spec_with_lr(lr),
            "\"apiVersion\": \"forge/v2\"",
            "\"apiVersion\": \"forge/v1\"",
        )
    };
    build(
        &tree,
        &[
            start(2),
            vec![
                write("experiments/my-grpo/config.yaml", config_with_token()),
                write(&spec(0), owner("2e-6")),
            ],
            vec![write(&spec(1), v1("2e-6"))],
            vec![rename(&spec(0), "specs/archive/run-000.jobspec.json")],
            vec![
                write("experiments/my-grpo/config.yaml", CONFIG),
                write("specs/archive/run-000.jobspec.json", spec_with_lr("3e-6")),
            ],
            vec![write(&spec(1), v1("4e-6"))],
        ],
    );
    tree
}

/// The run's output without what differs between machines and versions.
fn scrubbed(tree: &Tree, text: &str) -> String {
    tree.scrub(text)
        .replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
}

#[test]
fn every_format_reports_a_history() {
    let tree = short_history();
    for format in FORMATS {
        let run = tree.run(&["history", "--format", format]);
        run.expect_code(1);
        assert_named_snapshot!(format, scrubbed(&tree, &run.stdout));
    }
    let human = tree.run(&["history"]);
    assert_named_snapshot!("human_stderr", scrubbed(&tree, &human.stderr));
}

#[test]
fn several_reports_from_one_read() {
    let tree = short_history();
    let run = tree.run(&[
        "history",
        "--format",
        "json=reports/history.json",
        "--format",
        "html=reports/history.html",
        "--format",
        "concise",
    ]);
    run.expect_code(1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tree.path("reports/history.json")).unwrap())
            .unwrap();
    assert_eq!(json["findings"].as_array().unwrap().len(), 3);
    let html = std::fs::read_to_string(tree.path("reports/history.html")).unwrap();
    assert!(html.contains("id=\"timeline\""));
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
}
