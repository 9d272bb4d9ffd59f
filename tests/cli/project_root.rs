//! The project root, against which `spec.source.exp` is resolved.

use super::*;

/// Whether the run reported `source-exp-missing` (and nothing else).
#[track_caller]
fn exp_missing(run: &Run) -> bool {
    let rules = run.rules();
    assert!(
        rules.iter().all(|r| r == "source-exp-missing"),
        "unexpected findings:\n{}{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    !rules.is_empty()
}

#[test]
fn project_root_is_x_for_x_starforge_jobspec_json() {
    let tree = Tree::new();
    // The config's folder has the experiment, X does not: X wins.
    tree.write("forgelint.toml", "")
        .mkdir("experiments/my-grpo")
        .write("proj/.starforge/jobspec.json", reference());
    let args = ["--format", "concise", "proj/.starforge/jobspec.json"];
    assert!(exp_missing(&tree.run(&args)));
    assert!(
        exp_missing(&tree.run(&["--format", "concise"])),
        "walked too"
    );
    assert!(exp_missing(
        &tree.run_in("proj/.starforge", &["--format", "concise"])
    ));
    tree.mkdir("proj/experiments/my-grpo");
    assert!(!exp_missing(&tree.run(&args)));
    assert!(!exp_missing(&tree.run(&["--format", "concise"])));
    assert!(!exp_missing(
        &tree.run_in("proj/.starforge", &["--format", "concise"])
    ));
    // A spec read from stdin: by its --stdin-filename.
    let stdin = [
        "--format",
        "concise",
        "--stdin-filename",
        "proj/.starforge/jobspec.json",
        "-",
    ];
    assert!(!exp_missing(&tree.run_stdin(&stdin, &reference())));
    let stdin = [
        "--format",
        "concise",
        "--stdin-filename",
        "other/.starforge/jobspec.json",
        "-",
    ];
    assert!(exp_missing(&tree.run_stdin(&stdin, &reference())));
}

#[test]
fn project_root_is_the_config_folder() {
    let tree = Tree::new();
    // The git work tree's root is the tree's root, without the experiment; the config's
    // folder `lab` has it: the config wins.
    tree.mkdir(".git")
        .write("lab/forgelint.toml", "")
        .mkdir("lab/experiments/my-grpo")
        .write("lab/specs/run1/jobspec.json", reference());
    // Found in a parent of the current directory.
    assert!(!exp_missing(&tree.run_in(
        "lab/specs",
        &["--format", "concise", "run1/jobspec.json"]
    )));
    // Given.
    assert!(!exp_missing(&tree.run(&[
        "--config",
        "lab/forgelint.toml",
        "--format",
        "concise",
        "lab/specs/run1/jobspec.json"
    ])));
    assert!(!exp_missing(&tree.run_in(
        "lab/specs",
        &["--config", "../forgelint.toml", "--format", "concise", "."]
    )));
    // Without the config, the git root (no experiment there).
    assert!(exp_missing(
        &tree.run_in("lab/specs", &["--no-config", "--format", "concise"])
    ));

    // And the other way round: the git root has it, the config's folder does not.
    tree.mkdir("experiments/my-grpo")
        .write("lab2/forgelint.toml", "")
        .write("lab2/jobspec.json", reference());
    assert!(exp_missing(&tree.run_in("lab2", &["--format", "concise"])));
    assert!(!exp_missing(
        &tree.run_in("lab2", &["--no-config", "--format", "concise"])
    ));
}

#[test]
fn project_root_is_the_git_work_tree_root() {
    let tree = Tree::new();
    tree.mkdir("repo/.git")
        .mkdir("repo/experiments/my-grpo")
        .write("repo/a/b/jobspec.json", reference());
    // From a subfolder of the work tree without the experiment.
    assert!(!exp_missing(
        &tree.run_in("repo/a", &["--no-config", "--format", "concise"])
    ));
    assert!(!exp_missing(&tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "repo"
    ])));
    // `.git` as a file (a worktree or a submodule); the current directory has the experiment,
    // the work tree's root does not.
    tree.write("other/.git", "gitdir: /nowhere/.git/worktrees/other\n")
        .mkdir("other/a/experiments/my-grpo")
        .write("other/a/jobspec.json", reference());
    assert!(exp_missing(
        &tree.run_in("other/a", &["--no-config", "--format", "concise"])
    ));
}

#[test]
fn project_root_is_the_current_directory_otherwise() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("specs/jobspec.json", reference());
    assert!(!exp_missing(&tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "specs"
    ])));
    assert!(exp_missing(
        &tree.run_in("specs", &["--no-config", "--format", "concise"])
    ));
    // The experiment must be a directory.
    tree.write("specs/experiments/my-grpo", "not a directory");
    assert!(exp_missing(
        &tree.run_in("specs", &["--no-config", "--format", "concise"])
    ));
}

/// A lab with a config at its root, a spec in `specs/` naming an experiment with a secret.
fn lab_with_a_secret() -> Tree {
    let tree = Tree::new();
    let spec = patch(
        &reference(),
        r#""exp": "experiments/my-grpo""#,
        r#""exp": "experiments/dpo-sweep""#,
    );
    tree.write("forgelint.toml", "")
        .write("specs/dpo.jobspec.json", spec)
        .write(
            "experiments/dpo-sweep/config.yaml",
            "policy:\n  optimizer:\n    kwargs:\n      lr: 1.0e-6\nhub:\n  token: hf_QpZkVbXwLmNrTsYuCdEfGhJaKoPiUyTrEwQl\n",
        )
        .write("experiments/dpo-sweep/train.py", "CORPUS = \"/mnt/shared/handbook\"\n");
    tree
}

/// From a subfolder, a file of the project outside it is named with `..`, never by its
/// absolute path: concise and json from the working folder, github annotations and SARIF from
/// the repository's root (`GITHUB_WORKSPACE` when set).
#[test]
fn files_outside_the_working_folder_are_named_from_it() {
    let tree = lab_with_a_secret();
    let root = tree.root().to_str().unwrap().to_string();
    let run = tree.run_in("specs", &["--format", "concise", "."]);
    run.expect_code(1);
    assert_eq!(
        run.paths(),
        [
            "../experiments/dpo-sweep/config.yaml",
            "../experiments/dpo-sweep/train.py"
        ],
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains(&root), "{}", run.stdout);
    let extra = common::Extra {
        env: vec![("GITHUB_WORKSPACE".into(), root.clone())],
        ..Default::default()
    };
    let github = common::forgelint(&tree.path("specs"), &["--format", "github", "."], &extra);
    assert!(
        github
            .stdout
            .contains("::error file=experiments/dpo-sweep/config.yaml,line=6,"),
        "{}",
        github.stdout
    );
    assert!(!github.stdout.contains(&root), "{}", github.stdout);
    let sarif = common::forgelint(&tree.path("specs"), &["--format", "sarif", "."], &extra);
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let uris: Vec<(&str, &str)> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let location = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            (
                location["uri"].as_str().unwrap(),
                location["uriBaseId"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        uris,
        [
            ("experiments/dpo-sweep/config.yaml", "%SRCROOT%"),
            ("experiments/dpo-sweep/train.py", "%SRCROOT%")
        ]
    );
    let base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
    // Without GITHUB_WORKSPACE: the git work tree's root.
    tree.mkdir(".git");
    let github = tree.run_in("specs", &["--format", "github", "."]);
    assert!(
        github
            .stdout
            .contains("::error file=experiments/dpo-sweep/train.py,"),
        "{}",
        github.stdout
    );
}

/// Run from inside an experiment folder, its files are linted as an experiment's: the
/// project root is found upward (a config's folder, or without one a folder holding `.git`
/// or `.starforge`).
#[test]
fn an_experiment_linted_from_inside_is_linted_as_one() {
    let tree = lab_with_a_secret();
    for marker in ["forgelint.toml", ".git", ".starforge"] {
        std::fs::remove_file(tree.path("forgelint.toml")).ok();
        if marker == "forgelint.toml" {
            tree.write("forgelint.toml", "");
        } else {
            tree.mkdir(marker);
        }
        let run = tree.run_in("experiments/dpo-sweep", &["--format", "concise"]);
        run.expect_code(1);
        assert_eq!(
            run.rules(),
            ["exp-secret", "exp-host-path"],
            "{marker}: {}{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(run.paths(), ["config.yaml", "train.py"], "{marker}");
        assert!(!run.stderr.contains("All clear"), "{}", run.stderr);
        // And from a folder below it.
        tree.write("experiments/dpo-sweep/conf/extra.yaml", "data: /mnt/x\n");
        let run = tree.run_in("experiments/dpo-sweep/conf", &["--format", "concise"]);
        assert_eq!(run.paths(), ["extra.yaml"], "{marker}");
        std::fs::remove_file(tree.path("experiments/dpo-sweep/conf/extra.yaml")).unwrap();
    }
}

/// A folder with nothing to lint is not "All clear": the run says nothing was found, and
/// exits 0 as ruff does for "No Python files found".
#[test]
fn nothing_to_lint_is_said_not_all_clear() {
    let tree = Tree::new();
    tree.write("notes/readme.md", "hello\n");
    let run = tree.run(&["--no-config"]);
    run.expect_code(0);
    assert_eq!(
        run.stderr,
        "warning: no job specs or experiment files under .; nothing was checked\n"
    );
    let run = tree.run(&["--no-config", "notes", "."]);
    assert!(
        run.stderr
            .contains("no job specs or experiment files under notes or ."),
        "{}",
        run.stderr
    );
    tree.run(&["--no-config", "-q"]).expect_code(0);
    assert_eq!(tree.run(&["--no-config", "-q"]).stderr, "");
}
