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
