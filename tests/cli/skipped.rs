//! Rules that cannot run for want of context (a catalog, registries, a quota): the run says
//! once which did not run and what would make them, on stderr, in JSON and in SARIF.

use super::*;

const CATALOG: &str = "note: 4 rules skipped: no catalog — set [platform] catalog (observability-url-forbidden, observability-url-required, recipe-handshake, recipe-unknown)";
const REGISTRIES: &str =
    "note: 1 rule skipped: no registries — set [platform] registries (image-registry)";
const QUOTA: &str = "note: 1 rule skipped: no quota — set [platform] gpu-quota or [platform.project-quota] (gpu-quota)";

#[test]
fn a_run_without_context_says_which_rules_did_not_run_before_the_summary() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for format in ["human", "concise", "github"] {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(0);
        assert_eq!(
            scrub_time(&run.stderr),
            format!(
                "{CATALOG}\n{REGISTRIES}\n{QUOTA}\nAll clear: 1 file checked, no findings (TIME).\n"
            ),
            "--format {format}"
        );
    }
    let quiet = tree.run(&["--no-config", "-q"]);
    quiet.expect_code(0);
    assert_eq!(quiet.stderr, "", "--quiet says nothing");
}

#[test]
fn a_run_with_every_context_skips_nothing() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "catalog.toml",
            std::fs::read(manifest_dir().join("rules/reference/catalog.toml")).unwrap(),
        )
        .write(
            "forgelint.toml",
            "[platform]\ncatalog = \"catalog.toml\"\nregistries = [\"nvcr.io\"]\n\
             [platform.project-quota]\nmy-lab = 64\n",
        );
    let run = tree.run(&[]);
    run.expect_code(0);
    assert!(!run.stderr.contains("skipped"), "{}", run.stderr);
    let json = tree.run(&["--format", "json"]);
    assert!(json.json()["summary"].get("skipped").is_none());
    // Only the catalog given: the others are still named.
    tree.write("forgelint.toml", "[platform]\ncatalog = \"catalog.toml\"\n");
    let run = tree.run(&[]);
    assert_eq!(
        scrub_time(&run.stderr),
        format!("{REGISTRIES}\n{QUOTA}\nAll clear: 1 file checked, no findings (TIME).\n")
    );
}

#[test]
fn selecting_a_rule_that_cannot_run_says_so() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    let run = tree.run(&["--no-config", "--select", "recipe-unknown,api-version"]);
    run.expect_code(0);
    assert_eq!(
        scrub_time(&run.stderr),
        "note: 1 rule skipped: no catalog — set [platform] catalog (recipe-unknown)\n\
         All clear: 1 file checked, no findings (TIME).\n"
    );
    // A rule whose checks run without the catalog is not skipped.
    let run = tree.run(&["--no-config", "--select", "core-version"]);
    assert!(!run.stderr.contains("skipped"), "{}", run.stderr);
}

#[test]
fn json_and_sarif_name_the_skipped_rules() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    let json = tree.run(&["--no-config", "--format", "json"]).json();
    assert_eq!(
        json["summary"]["skipped"],
        serde_json::json!([
            {
                "reason": "no catalog",
                "setting": "[platform] catalog",
                "rules": [
                    "observability-url-forbidden",
                    "observability-url-required",
                    "recipe-handshake",
                    "recipe-unknown"
                ]
            },
            { "reason": "no registries", "setting": "[platform] registries", "rules": ["image-registry"] },
            {
                "reason": "no quota",
                "setting": "[platform] gpu-quota or [platform.project-quota]",
                "rules": ["gpu-quota"]
            }
        ])
    );
    let sarif = tree.run(&["--no-config", "--format", "sarif"]).json();
    let errors: Vec<String> = common::sarif_validator()
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    let texts: Vec<(&str, &str)> = notes
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            (
                n["level"].as_str().unwrap_or_default(),
                n["message"]["text"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let expected: Vec<String> = [CATALOG, REGISTRIES, QUOTA]
        .iter()
        .map(|line| format!("{}.", line.trim_start_matches("note: ")))
        .collect();
    assert_eq!(
        texts,
        expected
            .iter()
            .map(|t| ("note", t.as_str()))
            .collect::<Vec<_>>()
    );
}
