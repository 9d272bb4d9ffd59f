//! Config discovery per file: each file is linted with the nearest `forgelint.toml` above it,
//! a config may `extend` another, and `--config` / `--no-config` override them all.

use super::*;

/// A rule file that refuses any `spec.hyperparams` key `key`, with the rule id `id`.
fn forbidding(id: &str, key: &str) -> String {
    format!(
        "id = \"{id}\"\nseverity = \"error\"\nsummary = \"no {key}\"\n\
         message = \"{{path}} is set\"\n\n[[check]]\nselect = 'spec.hyperparams.\"{key}\"'\n\
         absent = true\n\n[[valid]]\nname = \"unset\"\n\n[[invalid]]\nname = \"set\"\n\
         patch = '{{\"spec\": {{\"hyperparams\": {{\"{key}\": 1}}}}}}'\n\
         at = \"/spec/hyperparams/{key}\"\n"
    )
}

/// A spec with the owner set (`owner-ignored`, a warning by default, at 7:14) and the
/// hyperparameters `lr` and `debug` set.
fn lab_spec() -> String {
    let spec = patch(&reference(), r#""owner": """#, r#""owner": "bob""#);
    patch(
        &spec,
        r#""hyperparams": { "policy.optimizer.kwargs.lr": 1e-6 }"#,
        r#""hyperparams": { "policy.optimizer.kwargs.lr": 1e-6, "lr": 1, "debug": 1 }"#,
    )
}

/// A monorepo: a root config and two labs, each with a config of its own and the experiment
/// its specs name (resolved against its own config's folder).
fn monorepo() -> Tree {
    let tree = Tree::new();
    tree.write("forgelint.toml", "")
        .valid_project("specs/root.jobspec.json")
        .write(
            "labs/a/forgelint.toml",
            "[platform]\nkind = \"EvalJob\"\n\n[per-file-ignores]\n\"specs/old/**\" = [\"kind\"]\n",
        )
        .mkdir("labs/a/experiments/my-grpo")
        .write("labs/a/specs/run.jobspec.json", reference())
        .write("labs/a/specs/old/run.jobspec.json", reference())
        .write(
            "labs/b/forgelint.toml",
            "[severity]\nowner-ignored = \"error\"\n",
        )
        .mkdir("labs/b/experiments/my-grpo")
        .write(
            "labs/b/specs/run.jobspec.json",
            patch(&reference(), r#""owner": """#, r#""owner": "bob""#),
        );
    tree
}

/// `(path, position, severity, rule)` of each finding of a concise run.
fn seen(run: &Run) -> Vec<(String, String, String, String)> {
    run.findings()
        .into_iter()
        .map(|f| (f.path, f.position, f.severity, f.rule))
        .collect()
}

fn finding(path: &str, at: &str, severity: &str, rule: &str) -> (String, String, String, String) {
    (path.into(), at.into(), severity.into(), rule.into())
}

#[test]
fn each_file_is_linted_with_its_nearest_config() {
    let tree = monorepo();
    let expected = vec![
        finding("labs/a/specs/run.jobspec.json", "3:11", "error", "kind"),
        finding(
            "labs/b/specs/run.jobspec.json",
            "7:14",
            "error",
            "owner-ignored",
        ),
    ];
    // The whole tree in one run: lab a's kind, lab b's severity, lab a's per-file ignores
    // (relative to lab a's folder), and each lab's experiment found from its own root.
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(1);
    assert_eq!(seen(&run), expected, "{}", run.stderr);
    // The files of both labs named at once, as a pre-commit hook names them.
    let run = tree.run(&[
        "--format",
        "concise",
        "labs/b/specs/run.jobspec.json",
        "labs/a/specs/run.jobspec.json",
        "labs/a/specs/old/run.jobspec.json",
        "specs/root.jobspec.json",
    ]);
    assert_eq!(seen(&run), expected, "{}", run.stderr);
    // From inside a lab, and from a folder with no config between it and the lab's.
    let run = tree.run_in("labs/a", &["--format", "concise"]);
    assert_eq!(
        seen(&run),
        vec![finding("specs/run.jobspec.json", "3:11", "error", "kind")]
    );
    let run = tree.run_in("labs/a/specs", &["--format", "concise", "run.jobspec.json"]);
    assert_eq!(
        seen(&run),
        vec![finding("run.jobspec.json", "3:11", "error", "kind")]
    );
    // A spec on standard input: the config of the folder its name gives.
    let run = tree.run_stdin(
        &[
            "--format",
            "concise",
            "--stdin-filename",
            "labs/a/specs/new.jobspec.json",
            "-",
        ],
        &reference(),
    );
    assert_eq!(
        seen(&run),
        vec![finding(
            "labs/a/specs/new.jobspec.json",
            "3:11",
            "error",
            "kind"
        )]
    );
}

#[test]
fn config_and_no_config_override_every_nested_config() {
    let tree = monorepo();
    // The root config for every file: no lab's kind or severity, and the labs' experiments
    // are looked for under the root, where they are not.
    let run = tree.run(&["--format", "concise", "--config", "forgelint.toml"]);
    let rules: Vec<(String, String)> = run
        .findings()
        .into_iter()
        .map(|f| (f.path, f.rule))
        .collect();
    assert!(rules
        .iter()
        .all(|(_, rule)| rule == "source-exp-missing" || rule == "owner-ignored"));
    assert!(rules.contains(&(
        "labs/b/specs/run.jobspec.json".into(),
        "owner-ignored".into()
    )));
    assert!(run
        .findings()
        .iter()
        .all(|f| f.severity == "warning" || f.rule != "owner-ignored"));
    let run = tree.run(&["--format", "concise", "--no-config"]);
    assert!(
        run.findings().iter().all(|f| f.rule != "kind"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_demo_is_linted_with_its_own_config_from_the_repository_root() {
    let root = manifest_dir();
    let nearest = run_in(root, &["--format", "concise", "fixtures/demo"]);
    let given = run_in(
        root,
        &[
            "--format",
            "concise",
            "--config",
            "fixtures/demo/forgelint.toml",
            "fixtures/demo",
        ],
    );
    assert_eq!(nearest.stdout, given.stdout);
    assert_eq!(nearest.code, 1);
    assert!(
        !nearest.stdout.contains("source-exp-missing"),
        "{}",
        nearest.stdout
    );
    assert!(
        nearest.stdout.contains("error[gpu-quota]"),
        "the catalog and quota are read"
    );
}

#[test]
fn extend_layers_a_config_over_another() {
    let tree = Tree::new();
    tree.write(
        "forgelint.toml",
        "rules = [\"policies/\"]\n\n[platform]\nkind = \"EvalJob\"\n\n\
         [severity]\nowner-ignored = \"error\"\nkind = \"warning\"\n",
    )
    .write("policies/no-lr.toml", forbidding("no-lr", "lr"))
    .write(
        "labs/a/forgelint.toml",
        "extend = \"../../forgelint.toml\"\n\
         rules = [\"../../policies/no-lr.toml\", \"lab-policies/\"]\n\n\
         [severity]\nowner-ignored = \"off\"\n",
    )
    .write(
        "labs/a/lab-policies/no-debug.toml",
        forbidding("no-debug", "debug"),
    )
    .mkdir("labs/a/experiments/my-grpo")
    .write("labs/a/specs/run.jobspec.json", lab_spec());
    let run = tree.run(&["--format", "concise", "labs/a"]);
    // The base's kind and rule file, the base's severity for `kind`, the lab's own rule file
    // and its severity for `owner-ignored` (off); the base's rule file named again loads once.
    assert_eq!(
        seen(&run),
        vec![
            finding("labs/a/specs/run.jobspec.json", "3:11", "warning", "kind"),
            finding("labs/a/specs/run.jobspec.json", "33:64", "error", "no-lr"),
            finding(
                "labs/a/specs/run.jobspec.json",
                "33:76",
                "error",
                "no-debug"
            ),
        ],
        "{}",
        run.stderr
    );
    // `--config` with a config that extends another reads the chain too.
    let run = tree.run(&[
        "--format",
        "concise",
        "--config",
        "labs/a/forgelint.toml",
        "labs/a/specs/run.jobspec.json",
    ]);
    assert_eq!(run.findings().len(), 3, "{}{}", run.stdout, run.stderr);
}

#[test]
fn a_broken_extend_is_an_error_at_its_key() {
    let tree = Tree::new();
    tree.write("lab/forgelint.toml", "extend = \"../base.toml\"\n")
        .write("lab/specs/run.jobspec.json", reference());
    let run = tree.run(&["--format", "concise", "lab"]);
    run.expect_code(2);
    assert!(run.stderr.contains("`extend`"), "{}", run.stderr);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    assert!(
        run.stderr.contains("lab/forgelint.toml:1:10"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("All clear"), "{}", run.stderr);
    // A loop: each extends the other.
    tree.write("base.toml", "extend = \"lab/forgelint.toml\"\n");
    let run = tree.run(&["--format", "concise", "lab"]);
    run.expect_code(2);
    assert!(run.stderr.contains("cannot loop"), "{}", run.stderr);
    // Extending itself.
    tree.write("lab/forgelint.toml", "extend = \"forgelint.toml\"\n");
    let run = tree.run(&["--format", "concise", "lab"]);
    run.expect_code(2);
    assert!(run.stderr.contains("cannot loop"), "{}", run.stderr);
}

#[test]
fn a_bad_nested_config_stops_the_run_with_its_error() {
    let tree = Tree::new();
    tree.write("forgelint.toml", "")
        .write("ok/run.jobspec.json", reference())
        .write("lab/forgelint.toml", "[platfrom]\nkind = \"x\"\n")
        .write("lab/run.jobspec.json", reference());
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("unknown field `platfrom`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("lab/forgelint.toml:1:2"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    // The same from a single file under it.
    let run = tree.run(&["--format", "concise", "lab/run.jobspec.json"]);
    run.expect_code(2);
    assert!(run.stderr.contains("platfrom"), "{}", run.stderr);
    // Files elsewhere are not held up by it.
    tree.run(&["--format", "concise", "ok"]).expect_code(0);
}

#[test]
fn an_extended_config_outside_the_run_is_not_quoted() {
    let outside = Tree::new();
    outside.write("ci-secrets.toml", "token = ghp_notquotedsecret0123456789\n");
    let tree = Tree::new();
    let base = outside.path("ci-secrets.toml");
    tree.write(
        "forgelint.toml",
        format!("extend = \"{}\"\n", base.display()),
    )
    .write("run.jobspec.json", reference());
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(2);
    assert!(run.stderr.contains("ci-secrets.toml"), "{}", run.stderr);
    assert!(!run.stderr.contains("ghp_"), "{}", run.stderr);
    // Inside the run's folder, the same error is shown with its code frame.
    tree.write("base.toml", "token = ghp_notquotedsecret0123456789\n")
        .write("forgelint.toml", "extend = \"base.toml\"\n");
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(2);
    assert!(run.stderr.contains("ghp_"), "{}", run.stderr);
}
