//! `forgelint rules`: every built-in rule with its severity.

use super::*;

/// The built-in rules of the product contract, with their default severity.
const BUILTIN_RULES: [(&str, &str); 39] = [
    ("exp-host-path", "error"),
    ("config-invalid", "error"),
    ("exp-secret", "error"),
    ("hyperparam-unknown", "warning"),
    ("exp-large-file", "warning"),
    ("unused-suppression", "warning"),
    ("invalid-json", "error"),
    ("duplicate-key", "error"),
    ("wrong-type", "error"),
    ("unknown-field", "warning"),
    ("missing-field", "error"),
    ("api-version", "error"),
    ("kind", "error"),
    ("owner-ignored", "warning"),
    ("entrypoint-set", "error"),
    ("image-required", "error"),
    ("image-registry", "error"),
    ("observability-url-required", "error"),
    ("observability-url-forbidden", "error"),
    ("init-from-format", "error"),
    ("corpus-host-path", "error"),
    ("corpus-format", "error"),
    ("pools-empty", "error"),
    ("gpu-quota", "error"),
    ("plugin-id-format", "error"),
    ("digest-format", "error"),
    ("digest-hex", "warning"),
    ("plugin-leaf-collision", "error"),
    ("recipe-unknown", "error"),
    ("recipe-handshake", "error"),
    ("core-version", "error"),
    ("role-pool", "error"),
    ("pool-name-duplicate", "error"),
    ("name-format", "error"),
    ("source-exp-escape", "error"),
    ("source-exp-missing", "warning"),
    ("git-dirty", "warning"),
    ("dataset-format", "warning"),
    ("suppression-without-reason", "warning"),
];

#[test]
fn rules_lists_every_builtin_rule_with_its_severity() {
    let tree = Tree::new();
    let run = tree.run(&["rules", "--no-config"]);
    run.expect_code(0);
    let mut lines = run.stdout.lines();
    let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
    assert_eq!(&header[..2], ["ID", "SEVERITY"]);
    let listed: Vec<(String, String)> = lines
        .map(|l| {
            let mut cols = l.split_whitespace();
            (
                cols.next().unwrap().to_string(),
                cols.next().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let mut expected: Vec<(String, String)> = BUILTIN_RULES
        .iter()
        .map(|(id, sev)| (id.to_string(), sev.to_string()))
        .collect();
    expected.sort();
    assert_eq!(listed, expected, "sorted by id, 38 rules");

    // What each context-dependent rule needs.
    for (id, needs) in [
        ("gpu-quota", "quota"),
        ("image-registry", "registries"),
        ("recipe-unknown", "catalog"),
        ("recipe-handshake", "catalog"),
        ("observability-url-required", "catalog"),
        ("observability-url-forbidden", "catalog"),
    ] {
        let line = run
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap();
        assert_eq!(line.split_whitespace().nth(2), Some(needs), "{line}");
    }

    // A config's own rules are listed beside them.
    let demo = run_in(
        manifest_dir(),
        &["rules", "--config", "fixtures/demo/forgelint.toml"],
    );
    demo.expect_code(0);
    assert!(demo.stdout.lines().count() > 1 + 32, "{}", demo.stdout);
}

/// `explain` is the rule's page rendered for a terminal: no code fences, no link targets, no
/// merge patch against a spec the reader does not have; the failing example with its finding.
#[test]
fn explain_reads_well_in_a_terminal() {
    let tree = Tree::new();
    for id in [
        "gpu-quota",
        "exp-secret",
        "hyperparam-unknown",
        "corpus-host-path",
    ] {
        let run = tree.run(&["explain", id, "--no-config"]);
        run.expect_code(0);
        let out = &run.stdout;
        assert!(
            out.starts_with(&format!("{id}\n{}\n", "=".repeat(id.len()))),
            "{out}"
        );
        for raw in ["```", "](", "**", "merge patch", "reference spec"] {
            assert!(!out.contains(raw), "{id}: {raw:?} in\n{out}");
        }
        assert!(out.contains("forgelint reports:\n\n    "), "{id}:\n{out}");
        assert!(
            out.contains(&format!("[{id}] ")),
            "{id}: the finding is shown\n{out}"
        );
    }
}
