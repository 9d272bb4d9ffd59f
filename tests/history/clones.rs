//! Repositories that are not one plain clone — bare, shallow, with a submodule or LFS pointers
//! — and the flags `history` shares with `check`, refuses, or adds (a range, pathspecs).

use super::common::{patch, reference, Tree};
use super::{build, commits_of, run_git, spec, spec_with_lr, start, write, Op};

/// Four commits: a fault brought in at 1 and fixed at 2, another brought in at 3 and kept.
fn small(tree: &Tree) -> Vec<String> {
    let v1 = |lr: &str| {
        patch(
            &spec_with_lr(lr),
            "\"apiVersion\": \"forge/v2\"",
            "\"apiVersion\": \"forge/v1\"",
        )
    };
    let owner = patch(&reference(), "\"owner\": \"\"", "\"owner\": \"alice\"");
    build(
        tree,
        &[
            start(2),
            vec![write(&spec(0), v1("2e-6"))],
            vec![write(&spec(0), spec_with_lr("3e-6"))],
            vec![write(&spec(1), owner)],
        ],
    )
}

fn rules(found: &[(String, String, Option<String>, Option<String>)]) -> Vec<&str> {
    found.iter().map(|f| f.1.as_str()).collect()
}

#[test]
fn a_bare_repository_is_read_as_its_clone() {
    let tree = Tree::new();
    let ids = small(&tree);
    let bare = Tree::new();
    run_git(
        bare.root(),
        &[
            "clone",
            "-q",
            "--bare",
            tree.root().to_str().unwrap(),
            "repo.git",
        ],
    );
    let run = bare.run_in("repo.git", &["history", "--format", "json"]);
    run.expect_code(1);
    let work = tree.run(&["history", "--format", "json"]);
    assert_eq!(commits_of(&run), commits_of(&work));
    assert_eq!(
        commits_of(&run),
        [
            (
                spec(0),
                "api-version".into(),
                Some(ids[1].clone()),
                Some(ids[2].clone())
            ),
            (spec(1), "owner-ignored".into(), Some(ids[3].clone()), None),
        ]
    );
}

#[test]
fn a_shallow_clone_says_where_history_stops() {
    let tree = Tree::new();
    let ids = small(&tree);
    let shallow = Tree::new();
    let url = format!("file://{}", tree.root().display());
    run_git(
        shallow.root(),
        &["clone", "-q", "--depth", "2", &url, "clone"],
    );
    let run = shallow.run_in("clone", &["history", "--format", "json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(
        doc["summary"]["history"]["shallow"],
        serde_json::json!([ids[2]])
    );
    assert_eq!(doc["summary"]["history"]["commits"], 2);
    // The fault of commit 3 is there; the one fixed at 2 was never seen (its commits are not
    // in the clone), and what commit 2 holds is marked as introduced there or before.
    // The fault of commit 3 is there; the one fixed at 2 was never seen (its commits are not
    // in the clone).
    let found = commits_of(&run);
    assert_eq!(
        found,
        [(spec(1), "owner-ignored".into(), Some(ids[3].clone()), None)]
    );
    assert!(
        run.stderr
            .contains(&format!("history stops at {}", &ids[2][..7])),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("fetch-depth: 0"), "{}", run.stderr);
    // The spec of commit 2 as it was there: a finding in it is introduced "there or before".
    let tree2 = Tree::new();
    let owner = patch(&reference(), "\"owner\": \"\"", "\"owner\": \"alice\"");
    let ids2 = build(
        &tree2,
        &[
            start(1),
            vec![write(&spec(0), owner)],
            vec![write(&spec(1), reference())],
        ],
    );
    let url2 = format!("file://{}", tree2.root().display());
    run_git(
        shallow.root(),
        &["clone", "-q", "--depth", "1", &url2, "clone2"],
    );
    let at_boundary = shallow.run_in("clone2", &["history", "--format", "json"]);
    let doc = at_boundary.json();
    let finding = &doc["findings"][0];
    assert_eq!(finding["introduced"]["commit"], ids2[2].as_str());
    assert_eq!(finding["introduced"]["boundary"], true);
    assert!(finding["removed"].is_null());
    // `--new-from-rev` with a revision the shallow clone does not have: exit 2, and why.
    let missing = shallow.run_in("clone2", &["check", "--new-from-rev", &ids2[0]]);
    missing.expect_code(2);
    assert!(
        missing.stderr.contains("names no commit"),
        "{}",
        missing.stderr
    );
    assert!(
        missing.stderr.contains("(this clone is shallow)"),
        "{}",
        missing.stderr
    );
    assert!(
        missing.stderr.contains("fetch-depth: 0"),
        "{}",
        missing.stderr
    );
}

#[test]
fn submodules_and_lfs_pointers_are_skipped_and_said() {
    let tree = Tree::new();
    let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
    build(
        &tree,
        &[
            start(1),
            vec![
                Op::Submodule(
                    "vendor/lib".into(),
                    "0123456789abcdef0123456789abcdef01234567".into(),
                ),
                write("specs/big.jobspec.json", pointer),
                write("experiments/my-grpo/weights.yaml", pointer),
            ],
        ],
    );
    let run = tree.run(&["history", "--format", "json"]);
    run.expect_code(0);
    let doc = run.json();
    let history = &doc["summary"]["history"];
    assert_eq!(history["submodules"], serde_json::json!(["vendor/lib"]));
    assert_eq!(
        history["lfs"],
        serde_json::json!(["experiments/my-grpo/weights.yaml", "specs/big.jobspec.json"])
    );
    assert!(
        doc["findings"].as_array().unwrap().is_empty(),
        "a pointer is not a spec to lint"
    );
    assert!(
        run.stderr
            .contains("note: skipped 1 submodule: a submodule's history is another repository's"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("note: skipped 2 files stored as Git LFS pointers"),
        "{}",
        run.stderr
    );
    // --quiet: the findings only.
    let quiet = tree.run(&["history", "--quiet"]);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn ranges_and_paths_limit_what_is_read() {
    let tree = Tree::new();
    let ids = small(&tree);
    let all = ["--format", "json"];
    // Since commit 1: its fault was there before the range, so it has no introduction.
    let range = format!("{}..HEAD", ids[1]);
    let run = tree.run(&[&["history", &range][..], &all[..]].concat());
    assert_eq!(
        commits_of(&run),
        [
            (spec(0), "api-version".into(), None, Some(ids[2].clone())),
            (spec(1), "owner-ignored".into(), Some(ids[3].clone()), None),
        ]
    );
    // Only spec 1's history.
    let run = tree.run(
        &[
            &["history"][..],
            &all[..],
            &["--", "specs/run-001.jobspec.json"][..],
        ]
        .concat(),
    );
    assert_eq!(rules(&commits_of(&run)), ["owner-ignored"]);
    // From a folder: paths from there, as `check` shows them; pathspecs from there, as git
    // reads them.
    let run = tree.run_in(
        "specs",
        &[
            &["history"][..],
            &all[..],
            &["--", "run-000.jobspec.json"][..],
        ]
        .concat(),
    );
    assert_eq!(rules(&commits_of(&run)), ["api-version"]);
    assert_eq!(commits_of(&run)[0].0, "run-000.jobspec.json");
    let run = tree.run_in("experiments", &[&["history"][..], &all[..]].concat());
    assert_eq!(commits_of(&run)[0].0, "../specs/run-000.jobspec.json");
}

#[test]
fn all_reads_every_branch_and_head_only_its_own() {
    let tree = Tree::new();
    small(&tree);
    // A branch off HEAD with a fault of its own, then back on main.
    run_git(tree.root(), &["checkout", "-q", "-b", "side"]);
    let owner = patch(&reference(), "\"owner\": \"\"", "\"owner\": \"grace\"");
    std::fs::write(tree.root().join("specs/side.jobspec.json"), owner).unwrap();
    super::commit_all(&tree, "a side branch's spec");
    run_git(tree.root(), &["checkout", "-q", "main"]);
    let json = ["--format", "json"];
    let head = tree.run(&[&["history"][..], &json[..]].concat());
    assert!(!commits_of(&head)
        .iter()
        .any(|f| f.0 == "specs/side.jobspec.json"));
    let all = tree.run(&[&["history", "--all"][..], &json[..]].concat());
    let side: Vec<_> = commits_of(&all)
        .into_iter()
        .filter(|f| f.0 == "specs/side.jobspec.json")
        .collect();
    assert_eq!(side.len(), 1, "{side:?}");
    assert_eq!(side[0].1, "owner-ignored");
}

#[test]
fn check_flags_apply_and_the_others_are_refused() {
    let tree = Tree::new();
    small(&tree);
    let count = |args: &[&str]| -> (i32, usize) {
        let run = tree.run(&[&["history", "--format", "json"][..], args].concat());
        (run.code, run.json()["findings"].as_array().unwrap().len())
    };
    // An error removed and a warning still there.
    assert_eq!(count(&[]), (1, 2));
    assert_eq!(count(&["--exit-zero"]), (0, 2));
    assert_eq!(count(&["--select", "owner-ignored"]), (0, 1));
    assert_eq!(
        count(&["--ignore", "api-version", "--fail-on", "warning"]),
        (1, 1)
    );
    // A baseline of today's findings hides the one still at the tip.
    tree.run(&["check", "--write-baseline", "baseline.json"])
        .expect_code(0);
    let run = tree.run(&[
        "history",
        "--format",
        "json",
        "--fail-on",
        "warning",
        "--baseline",
        "baseline.json",
    ]);
    assert_eq!(rules(&commits_of(&run)), ["api-version"]);
    assert_eq!(run.json()["summary"]["baseline"]["hidden"], 1);
    for (flag, why) in [
        (&["--fix"][..], "history is read, never written"),
        (&["--diff"][..], "history is read, never written"),
        (
            &["--write-baseline", "b.json"][..],
            "a baseline records the files as they are",
        ),
        (
            &["--new-from-rev", "HEAD~1"][..],
            "reads only the commits since REV",
        ),
        (&["--shard", "1/2"][..], "read in one pass"),
        (&["--no-ignore"][..], ".gitignore plays no part"),
    ] {
        let run = tree.run(&[&["history"][..], flag].concat());
        run.expect_code(2);
        assert!(
            run.stderr.contains("does not go with `forgelint history`"),
            "{flag:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains(why), "{flag:?}: {}", run.stderr);
    }
    let run = tree.run(&[
        "check",
        "--new-from-rev",
        "HEAD~1",
        "--write-baseline",
        "b.json",
    ]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--new-from-rev does not go with --write-baseline"),
        "{}",
        run.stderr
    );
}

#[test]
fn what_is_not_a_history_exits_2_with_why() {
    let tree = Tree::new();
    tree.write(spec(0), reference());
    let run = tree.run(&["history"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("not in a git repository"),
        "{}",
        run.stderr
    );
    let run = tree.run(&["check", "--new-from-rev", "main"]);
    run.expect_code(2);
    small(&tree);
    // A revision that looks like an option is a revision, and there is none by that name.
    let run = tree.run(&["history", "--", "--output=x"]);
    run.expect_code(0);
    let run = tree.run(&["history", "--end-of-options"]);
    run.expect_code(2);
    assert!(!tree.path("x").exists());
}

#[test]
fn a_versions_config_composes_with_bases_of_its_own_commit() {
    let tree = Tree::new();
    // The experiment's config keeps only what it changes; the rest is in a base beside it
    // (NeMo-RL's `defaults: base.yaml`). The spec overrides an inherited key.
    let base = super::CONFIG;
    let config = "defaults: base.yaml\nlogger:\n  project: my-lab\n";
    let typo =
        spec_with_lr("2e-6").replace("policy.optimizer.kwargs.lr", "policy.optimizer.kwargs.lrr");
    build(
        &tree,
        &[
            vec![
                write("experiments/my-grpo/base.yaml", base),
                write("experiments/my-grpo/config.yaml", config),
                write("experiments/my-grpo/train.py", super::TRAIN_PY),
                write(&spec(0), spec_with_lr("2e-6")),
            ],
            vec![write(&spec(1), typo)],
        ],
    );
    let run = tree.run(&["history", "--format", "json"]);
    let found = commits_of(&run);
    let unknown: Vec<_> = found
        .iter()
        .filter(|f| f.1 == "hyperparam-unknown")
        .map(|f| f.0.as_str())
        .collect();
    // The inherited key is found in the base; the typo is not.
    assert_eq!(unknown, [spec(1).as_str()], "{found:?}");
}
