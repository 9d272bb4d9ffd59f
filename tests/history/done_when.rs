//! The "done when": a history of 300 commits with a token committed at one commit and
//! deleted at a later one, a spec fault still at the tip, a fault that follows its file across
//! a rename; then one more commit with a fault, which `check --new-from-rev HEAD~1` reports
//! alone.

use super::common::{patch, sarif_validator, Tree, FORMATS};
use super::{
    build, commit_all, commits_of, config_with_token, delete, rename, spec, spec_with_lr, start,
    write, Op, CONFIG, TOKEN,
};

const SECRET_ADDED: usize = 100;
const SECRET_REMOVED: usize = 200;
const TIP_FAULT: usize = 150;
const OWNER_ADDED: usize = 50;
const RENAMED: usize = 120;
const OWNER_REMOVED: usize = 250;
const DOOMED_FAULT: usize = 260;
const DELETED: usize = 270;

/// 300 commits: each edits one of ten specs (a new learning rate, no fault), and the events
/// above happen at their commits.
fn history(tree: &Tree) -> Vec<String> {
    let mut commits = vec![start(10)];
    // What the events leave in specs 3 and 5 while the edits go on.
    let spec_text = |k: usize, i: usize, lr: &str| -> String {
        let mut text = spec_with_lr(lr);
        if k == 3 && i >= TIP_FAULT {
            text = patch(
                &text,
                "\"apiVersion\": \"forge/v2\"",
                "\"apiVersion\": \"forge/v1\"",
            );
        }
        if k == 5 && (OWNER_ADDED..OWNER_REMOVED).contains(&i) {
            text = patch(&text, "\"owner\": \"\"", "\"owner\": \"alice\"");
        }
        if k == 8 && i >= DOOMED_FAULT {
            text = patch(
                &text,
                "\"apiVersion\": \"forge/v2\"",
                "\"apiVersion\": \"forge/v3\"",
            );
        }
        text
    };
    let path_of = |k: usize, i: usize| -> String {
        if k == 5 && i >= RENAMED {
            "specs/archive/run-005.jobspec.json".to_string()
        } else {
            spec(k)
        }
    };
    for i in 1..300 {
        let mut ops: Vec<Op> = Vec::new();
        match i {
            SECRET_ADDED => ops.push(write(
                "experiments/my-grpo/config.yaml",
                config_with_token(),
            )),
            SECRET_REMOVED => ops.push(write("experiments/my-grpo/config.yaml", CONFIG)),
            RENAMED => ops.push(rename(&spec(5), &path_of(5, i))),
            DELETED => ops.push(delete(&spec(8))),
            _ => {}
        }
        // Every commit edits spec i % 10; the events' specs get their text at their commits.
        let mut edited = vec![i % 10];
        for (k, at) in [
            (3, TIP_FAULT),
            (5, OWNER_ADDED),
            (5, OWNER_REMOVED),
            (8, DOOMED_FAULT),
        ] {
            if i == at && !edited.contains(&k) {
                edited.push(k);
            }
        }
        // Spec 8 is gone from its deletion on.
        edited.retain(|&k| k != 8 || i < DELETED);
        for k in edited {
            let lr = format!("{}e-7", i % 9 + 1);
            ops.push(write(&path_of(k, i), spec_text(k, i, &lr)));
        }
        commits.push(ops);
    }
    build(tree, &commits)
}

#[test]
fn history_reports_each_finding_with_the_commits_that_brought_and_took_it() {
    let tree = Tree::new();
    let ids = history(&tree);
    assert_eq!(ids.len(), 300);
    let run = tree.run(&["history", "--format", "json"]);
    run.expect_code(1);
    let id = |i: usize| Some(ids[i].clone());
    assert_eq!(
        commits_of(&run),
        [
            (
                "experiments/my-grpo/config.yaml".to_string(),
                "exp-secret".to_string(),
                id(SECRET_ADDED),
                id(SECRET_REMOVED)
            ),
            (spec(3), "api-version".to_string(), id(TIP_FAULT), None),
            // Introduced before the rename, removed after it: one finding, named where it
            // was when it came in.
            (
                spec(5),
                "owner-ignored".to_string(),
                id(OWNER_ADDED),
                id(OWNER_REMOVED)
            ),
            // Deleted with its fault: removed by the deletion.
            (
                spec(8),
                "api-version".to_string(),
                id(DOOMED_FAULT),
                id(DELETED)
            ),
        ]
    );
    let doc = run.json();
    let secret = &doc["findings"][0];
    assert_eq!(
        secret["introduced"]["author"],
        "Alan Turing <alan@lab.example>"
    );
    assert_eq!(secret["introduced"]["date"], "2024-02-07T12:00:00Z");
    assert!(
        secret["help"]
            .as_str()
            .unwrap()
            .starts_with("revoke it: it stays in every clone"),
        "{secret}"
    );
    let summary = &doc["summary"]["history"];
    assert_eq!(summary["commits"], 300);
    // The ten specs and two experiment files at the start, then each edit a new version.
    assert!(summary["versions"].as_u64().unwrap() > 12, "{summary}");
}

#[test]
fn a_secret_of_history_is_masked_in_every_format() {
    let tree = Tree::new();
    history(&tree);
    let validator = sarif_validator();
    for format in FORMATS {
        let run = tree.run(&["history", "--format", format]);
        run.expect_code(1);
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            // Shown as its first four characters and `…`, never whole, nor its tail.
            assert!(
                !text.contains(TOKEN),
                "{format}: the token on {stream}:\n{text}"
            );
            assert!(
                !text.contains(&TOKEN[4..]),
                "{format}: the token's tail on {stream}"
            );
        }
        assert!(
            run.stdout.contains("exp-secret"),
            "{format}:\n{}",
            run.stdout
        );
        if format == "sarif" {
            let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            assert!(validator.is_valid(&doc), "the SARIF log is valid");
            let result = doc["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["ruleId"] == "exp-secret")
                .unwrap();
            assert!(result["properties"]["introduced"]["commit"].is_string());
            assert!(result["properties"]["removed"]["commit"].is_string());
        }
    }
}

#[test]
fn new_from_rev_reports_only_what_the_last_commit_brought() {
    let tree = Tree::new();
    history(&tree);
    // The fault still at the tip is reported by a plain check.
    let all = tree.run(&["check", "--format", "json"]);
    all.expect_code(1);
    assert_eq!(all.json()["findings"].as_array().unwrap().len(), 1);
    // One more commit: a fault in another spec.
    let text = std::fs::read_to_string(tree.path(spec(7))).unwrap();
    tree.write(spec(7), patch(&text, "\"nodes\": 1", "\"nodes\": 0"));
    commit_all(&tree, "Scale run 7 down");
    let new = tree.run(&["check", "--new-from-rev", "HEAD~1", "--format", "json"]);
    new.expect_code(1);
    let doc = new.json();
    let findings: Vec<(&str, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(findings.len(), 1, "{}", new.stdout);
    assert_eq!(findings[0].0, spec(7));
    assert_eq!(doc["summary"]["new_from_rev"]["hidden"], 1);
    assert_eq!(doc["summary"]["new_from_rev"]["rev"], "HEAD~1");
    // Against the commit that brought the tip's fault, that fault is not new either; against
    // the one before it, it is.
    let since = |rev: &str| -> usize {
        let run = tree.run(&["check", "--new-from-rev", rev, "--format", "json"]);
        run.json()["findings"].as_array().unwrap().len()
    };
    assert_eq!(since(&format!("HEAD~{}", 300 - TIP_FAULT)), 1);
    assert_eq!(since(&format!("HEAD~{}", 301 - TIP_FAULT)), 2);
    // The concise summary says what was hidden, and where from.
    let concise = tree.run(&["check", "--new-from-rev", "HEAD~1", "--format", "concise"]);
    assert!(
        concise
            .stderr
            .contains("1 finding hidden: the files had it at HEAD~1."),
        "{}",
        concise.stderr
    );
}
