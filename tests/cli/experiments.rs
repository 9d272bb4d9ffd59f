//! Experiment directories: which folders are read, the five experiment rules at their exact
//! places, secrets masked in every output, suppressions, rules over text and config files, and
//! every output and feature (baselines, per-file ignores, --select, statistics) on them.

use super::*;

const TOKEN: &str = "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";
/// A stretch of the token past its first four characters: never in any output.
const TOKEN_TAIL: &str = "CVBrytNseAZv";

const TRAIN: &str = "import os\n\n# was /mnt/shared/old before DOCS_DIR\nCORPUS = \"/mnt/shared/handbook\"\nDOCS = os.environ[\"DOCS_DIR\"]\n";

fn config_yaml() -> String {
    format!(
        "# defaults\npolicy:\n  optimizer:\n    kwargs:\n      lr: 1.0e-5\nhub:\n  token: {TOKEN}\n"
    )
}

/// The reference spec (naming experiments/my-grpo) and a faulty experiment beside a clean one.
fn experiment_tree() -> Tree {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("experiments/my-grpo/train.py", TRAIN)
        .write("experiments/my-grpo/config.yaml", config_yaml())
        .write(
            "experiments/my-grpo/README.md",
            "Data was in /mnt/shared/old.\n",
        )
        .write(
            "experiments/my-grpo/ckpt/model.safetensors",
            b"\x00\x01weights",
        )
        .write(
            "experiments/clean/train.py",
            "import os\nCORPUS = os.environ[\"DOCS_DIR\"]\n",
        )
        .write(
            "experiments/clean/config.yaml",
            "trainer:\n  max_steps: 10\n",
        )
        .write(
            "experiments/clean/run.sh",
            "#!/bin/sh\npython train.py --data \"$DOCS_DIR\"\n",
        );
    tree
}

fn lines(run: &Run) -> Vec<String> {
    run.findings()
        .iter()
        .map(|f| format!("{}:{} {}", f.path, f.position, f.rule))
        .collect()
}

#[test]
fn each_experiment_rule_fires_at_its_place_and_clean_experiments_are_quiet() {
    let tree = experiment_tree();
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        [
            "experiments/my-grpo/ckpt/model.safetensors:1:1 exp-large-file",
            "experiments/my-grpo/config.yaml:7:10 exp-secret",
            "experiments/my-grpo/train.py:4:10 exp-host-path",
        ],
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("8 files checked"), "{}", run.stderr);
}

#[test]
fn a_hyperparameter_that_names_no_config_key_points_into_the_config() {
    let tree = experiment_tree();
    tree.write(
        "jobspec.json",
        patch(
            &reference(),
            r#""policy.optimizer.kwargs.lr": 1e-6"#,
            r#""policy.optimizer.kwargs.lrr": 1e-6"#,
        ),
    );
    let run = tree.run(&[
        "--no-config",
        "--format",
        "json",
        "--select",
        "hyperparam-unknown",
    ]);
    run.expect_code(0);
    let found = run.json_of("jobspec.json");
    assert_eq!(found.len(), 1, "{}", run.stdout);
    let f = &found[0];
    assert_eq!(f["rule"], "hyperparam-unknown");
    assert_eq!(
        f["pointer"],
        "/spec/hyperparams/policy.optimizer.kwargs.lrr"
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"policy.optimizer.kwargs.lr\"?"),
        "{f}"
    );
    let related = &f["related"][0];
    assert_eq!(related["path"], "experiments/my-grpo/config.yaml");
    assert_eq!(related["start"]["line"], 4, "{related}");
    // No config: nothing to compare with.
    std::fs::remove_file(tree.path("experiments/my-grpo/config.yaml")).unwrap();
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "hyperparam-unknown",
    ]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
}

#[test]
fn a_secret_appears_in_no_output_format() {
    let tree = experiment_tree();
    for format in common::FORMATS {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(1);
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert!(
                !text.contains(TOKEN_TAIL),
                "--format {format} {stream} shows the secret:\n{text}"
            );
        }
        assert!(
            run.stdout.contains("hf_Q…"),
            "--format {format}: {}",
            run.stdout
        );
    }
    for extra in [
        ["--statistics", "--format=json"],
        ["--statistics", "--format=human"],
    ] {
        let run = tree.run(&["--no-config", extra[0], extra[1]]);
        assert!(!run.stdout.contains(TOKEN_TAIL) && !run.stderr.contains(TOKEN_TAIL));
    }
    let baseline = tree.path("baseline.json");
    let run = tree.run(&[
        "--no-config",
        "--write-baseline",
        baseline.to_str().unwrap(),
    ]);
    assert!(!run.stdout.contains(TOKEN_TAIL) && !run.stderr.contains(TOKEN_TAIL));
    let written = std::fs::read_to_string(&baseline).unwrap();
    assert!(written.contains("exp-secret"), "{written}");
    assert!(!written.contains(TOKEN_TAIL), "{written}");
}

#[test]
fn paths_in_comments_and_prose_are_not_host_paths() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "experiments/my-grpo/run.sh",
            "#!/bin/bash\n# data used to be in /data/corpus\necho \"/scratch is gone\"\npython train.py --data /lustre/corpus  # /gpfs too\n",
        )
        .write(
            "experiments/my-grpo/config.yaml",
            "# moved from /datasets/x\ndata:\n  path: ~/corpus # was /mnt/x\n",
        )
        .write("experiments/my-grpo/NOTES.md", "/mnt/shared/handbook\n");
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "exp-host-path",
    ]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        [
            "experiments/my-grpo/config.yaml:3:9 exp-host-path",
            "experiments/my-grpo/run.sh:4:24 exp-host-path",
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn host_path_roots_replace_the_defaults() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "experiments/my-grpo/train.py",
            "A = \"/mnt/x\"\nB = \"/nfs/lab/corpus\"\n",
        )
        .write(
            "forgelint.toml",
            "[experiments]\nhost-path-roots = [\"/nfs/\"]\n",
        );
    let run = tree.run(&["--format", "concise", "--select", "exp-host-path"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/train.py:2:5 exp-host-path"]
    );
    tree.write(
        "forgelint.toml",
        "[experiments]\nhost-path-roots = [\"nfs\"]\n",
    );
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("is not a host path root"),
        "{}",
        run.stderr
    );
}

#[test]
fn suppressions_hide_findings_and_unused_ones_are_reported() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").write(
        "experiments/my-grpo/train.py",
        "# forgelint: ignore[exp-host-path] a read-only mirror\nA = \"/mnt/mirror\"\nB = \"/mnt/x\"  # forgelint: ignore[exp-host-path]\nC = 1  # forgelint: ignore[exp-secret] nothing here\nD = 2  # forgelint: ignore[exp-host-path\n",
    );
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(0);
    assert_eq!(
        lines(&run),
        [
            "experiments/my-grpo/train.py:3:17 suppression-without-reason",
            "experiments/my-grpo/train.py:4:28 unused-suppression",
            "experiments/my-grpo/train.py:5:10 unused-suppression",
        ],
        "{}",
        run.stdout
    );
    // A rule that does not run leaves its suppressions alone.
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "unused-suppression,exp-host-path",
    ]);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/train.py:5:10 unused-suppression"]
    );
}

/// As ruff's `# noqa`: a suppression after code covers its own line, never the next; one alone
/// on a line covers the next.
#[test]
fn a_trailing_suppression_covers_its_own_line_only() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").write(
        "experiments/my-grpo/train.py",
        "A = \"ok\"  # forgelint: ignore[exp-host-path] x\nB = \"/data/x\"\n# forgelint: ignore[exp-host-path] a mirror\nC = \"/data/y\"\n",
    );
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        [
            "experiments/my-grpo/train.py:1:31 unused-suppression",
            "experiments/my-grpo/train.py:2:5 exp-host-path",
        ],
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("hides no finding on its line"),
        "{}",
        run.stdout
    );
}

#[test]
fn experiment_globs_choose_the_folders_without_a_spec() {
    let tree = Tree::new();
    tree.write("experiments/a/train.py", "A = \"/mnt/a\"\n")
        .write("lab/b/train.py", "B = \"/mnt/b\"\n")
        .write("notes/train.py", "C = \"/mnt/c\"\n");
    let run = tree.run(&["--no-config", "--format", "concise"]);
    assert_eq!(run.paths(), ["experiments/a/train.py"]);
    tree.write("forgelint.toml", "[files]\nexperiments = [\"lab/*\"]\n");
    let run = tree.run(&["--format", "concise"]);
    assert_eq!(run.paths(), ["lab/b/train.py"]);
    tree.write("forgelint.toml", "[files]\nexperiments = []\n");
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(0);
}

#[test]
fn a_spec_lints_the_experiment_it_names_once() {
    let tree = Tree::new();
    let named = patch(
        &reference(),
        r#""exp": "experiments/my-grpo""#,
        r#""exp": "src/exp1""#,
    );
    tree.write("a.jobspec.json", &named)
        .write("b.jobspec.json", &named)
        .write("src/exp1/train.py", "A = \"/mnt/a\"\n")
        .write("src/unnamed/train.py", "B = \"/mnt/b\"\n");
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "exp-host-path",
    ]);
    assert_eq!(
        lines(&run),
        ["src/exp1/train.py:1:5 exp-host-path"],
        "{}",
        run.stderr
    );
    run.expect_code(1);
    // Named on the command line, with the spec that names its experiment: still once.
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "exp-host-path",
        "a.jobspec.json",
        "src/exp1/train.py",
    ]);
    assert_eq!(lines(&run), ["src/exp1/train.py:1:5 exp-host-path"]);
}

#[test]
fn a_staged_experiment_file_is_linted_with_the_experiment_rules() {
    let tree = experiment_tree();
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "experiments/my-grpo/train.py",
    ]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/train.py:4:10 exp-host-path"]
    );
    // From inside the experiment: the project root is the folder of the config file found.
    tree.write("forgelint.toml", "");
    let run = tree.run_in("experiments/my-grpo", &["--format", "concise", "train.py"]);
    assert_eq!(
        lines(&run),
        ["train.py:4:10 exp-host-path"],
        "{}",
        run.stderr
    );
}

/// A binary file (a NUL in its first 8 KB, or not UTF-8) is read by the secret rules alone,
/// lossily: its secret is reported, its host paths are not; a suppression in it still hides.
#[test]
fn binary_ignored_and_large_files() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "experiments/my-grpo/blob.dat",
            b"/mnt/x\x00\x00 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",
        )
        .write(
            "experiments/my-grpo/latin1.py",
            b"# Entra\xeenement\nA = \"/mnt/\xe9\"\nK = \"AKIADFSWWU6ACHFJPAB5\"\nT = \"ghp_cBnj3wpX39WN7SuFMeVKt3GX1DRGr9VEoA3N\"  # forgelint: ignore[exp-secret] revoked\n",
        )
        .write("experiments/my-grpo/.gitignore", "scratch/\n")
        .write("experiments/my-grpo/scratch/tmp.py", "A = \"/mnt/tmp\"\n")
        .write("experiments/my-grpo/data.jsonl", "x".repeat(300))
        .write("forgelint.toml", "[experiments]\nmax-file-size = 200\n");
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        [
            "experiments/my-grpo/blob.dat:1:10 exp-secret",
            "experiments/my-grpo/data.jsonl:1:1 exp-large-file",
            // Line 1's invalid byte, read as one U+FFFD, moves nothing on line 3.
            "experiments/my-grpo/latin1.py:3:6 exp-secret",
        ]
    );
    assert!(!run.stdout.contains("DurCVB") && !run.stdout.contains("FSWWU6"));
    let json = tree.run(&["--format", "json"]);
    assert!(
        json.stdout.contains("\"binary_skipped\": 2"),
        "{}",
        json.stdout
    );
    // Without the secret rules, they are skipped as before.
    let run = tree.run(&["--format", "concise", "--ignore", "exp-secret"]);
    run.expect_code(0);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/data.jsonl:1:1 exp-large-file"]
    );
    assert!(
        run.findings()[0].message.contains("300 bytes"),
        "{}",
        run.stdout
    );
    let run = tree.run(&["--format", "concise", "--no-ignore"]);
    assert!(run
        .paths()
        .contains(&"experiments/my-grpo/scratch/tmp.py".to_string()));
}

#[test]
fn select_per_file_ignores_and_statistics_cover_experiment_files() {
    let tree = experiment_tree();
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "exp-secret",
    ]);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/config.yaml:7:10 exp-secret"]
    );
    tree.write(
        "forgelint.toml",
        "[per-file-ignores]\n\"experiments/**/*.py\" = [\"exp-host-path\"]\n",
    );
    let run = tree.run(&["--format", "concise"]);
    assert!(
        !run.rules().contains(&"exp-host-path".to_string()),
        "{}",
        run.stdout
    );
    let run = tree.run(&["--format", "json", "--statistics"]);
    let stats = run.json()["statistics"].clone();
    assert!(stats.to_string().contains("exp-secret"), "{stats}");
}

#[test]
fn a_baseline_keeps_hiding_a_finding_whose_line_moved() {
    let tree = experiment_tree();
    let baseline = tree.path("baseline.json");
    tree.run(&[
        "--no-config",
        "--write-baseline",
        baseline.to_str().unwrap(),
    ]);
    let moved = format!("\n\n{TRAIN}");
    tree.write("experiments/my-grpo/train.py", moved);
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--baseline",
        baseline.to_str().unwrap(),
    ]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
    // A new fault is not in the baseline.
    tree.write(
        "experiments/my-grpo/train.py",
        format!("{TRAIN}OTHER = \"/data/other\"\n"),
    );
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--baseline",
        baseline.to_str().unwrap(),
    ]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/train.py:6:9 exp-host-path"]
    );
}

#[test]
fn sarif_names_the_language_of_each_file() {
    let tree = experiment_tree();
    let run = tree.run(&["--no-config", "--format", "sarif"]);
    let doc = run.json();
    let artifacts = doc["runs"][0]["artifacts"].as_array().unwrap();
    let language = |uri: &str| {
        artifacts
            .iter()
            .find(|a| a["location"]["uri"] == uri)
            .map(|a| a["sourceLanguage"].clone())
    };
    assert_eq!(
        language("experiments/my-grpo/train.py"),
        Some("python".into())
    );
    assert_eq!(
        language("experiments/my-grpo/config.yaml"),
        Some("yaml".into())
    );
    let errors: Vec<String> = common::sarif_validator()
        .iter_errors(&doc)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn rule_files_can_target_text_and_config_files() {
    let tree = experiment_tree();
    tree.write(
        "policies/precision.toml",
        r#"id = "precision-bf16"
severity = "error"
target = "yaml"
files = ["config.yaml"]
summary = "Training runs in bf16"
message = "trainer.precision is {value}, expected one of {expected}"

[[check]]
select = "trainer.precision"
one-of = ["bf16", "bf16-mixed"]
when = [{ spec = "metadata.project", equals = "my-lab" }]
"#,
    )
    .write(
        "policies/todo.toml",
        r#"id = "no-todo"
severity = "warning"
target = "text"
files = ["**/*.py"]
summary = "No TODO left in comments"
message = "a TODO is left: {match}"

[[check]]
pattern = 'TODO(?P<at>\([a-z]+\))?'
in = "comment"
"#,
    )
    .write("forgelint.toml", "rules = [\"policies/\"]\n")
    .write(
        "experiments/clean/config.yaml",
        "trainer:\n  max_steps: 10\n  precision: fp16\n",
    )
    .write(
        "experiments/clean/train.py",
        "# TODO(ana) drop this\nX = \"TODO(not-a-comment)\"\n",
    );
    let run = tree.run(&["--format", "concise", "--select", "precision-bf16,no-todo"]);
    assert_eq!(
        lines(&run),
        ["experiments/clean/train.py:1:7 no-todo"],
        "no spec names experiments/clean: its `spec` condition does not hold\n{}",
        run.stdout
    );
    // The spec names my-grpo: there the condition holds, and not for another project.
    tree.write(
        "experiments/my-grpo/config.yaml",
        "trainer:\n  precision: fp32\n",
    );
    let run = tree.run(&["--format", "concise", "--select", "precision-bf16"]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        ["experiments/my-grpo/config.yaml:2:14 precision-bf16"],
        "{}",
        run.stdout
    );
    tree.write(
        "jobspec.json",
        patch(
            &reference(),
            r#""project": "my-lab""#,
            r#""project": "other-lab""#,
        ),
    );
    let run = tree.run(&["--format", "concise", "--select", "precision-bf16"]);
    run.expect_code(0);
}

#[test]
fn bad_experiment_rule_files_point_at_their_own_text() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for (body, says) in [
        (
            "target = \"txt\"\n[[check]]\npattern = 'x'",
            "did you mean `text`?",
        ),
        (
            "target = \"text\"\n[[check]]\nselect = \"a\"",
            "`select` is not allowed in a text check",
        ),
        (
            "[[check]]\nselect = \"metadata.name\"\npattern = 'x'",
            "`pattern` is not allowed",
        ),
        (
            "target = \"text\"\n[[check]]\npattern = '(unclosed'",
            "bad regex",
        ),
        (
            "target = \"text\"\n[[check]]\npattern = 'x'\nin = \"strings\"",
            "did you mean `string`?",
        ),
        (
            "mask = true\n[[check]]\nselect = \"metadata.name\"\npresent = true",
            "`mask` goes with",
        ),
        (
            "target = \"text\"\n[[check]]\nfunction = \"gpu-quota\"",
            "reads jobspecs, not text",
        ),
    ] {
        tree.write(
            "rules/bad.toml",
            format!(
                "id = \"bad\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n{body}\n"
            ),
        );
        let run = tree.run(&["--no-config", "--rules", "rules/bad.toml"]);
        run.expect_code(2);
        assert!(run.stderr.contains(says), "{body}: {}", run.stderr);
        assert!(
            run.stderr.contains("rules/bad.toml:"),
            "{body}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_yaml_alias_bomb_in_an_experiment_config_stays_bounded() {
    let mut bomb = String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
    for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
        let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
        bomb.push_str(&format!(
            "{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
    }
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("experiments/my-grpo/config.yaml", &bomb)
        .write(
            "rules/depth.toml",
            "id = \"x-depth\"\nseverity = \"error\"\ntarget = \"yaml\"\nsummary = \"s\"\nmessage = \"m\"\n[[check]]\nselect = \"i[*][*][*]\"\nmax-length = 1\n",
        );
    let run = tree.run(&[
        "--no-config",
        "--rules",
        "rules/depth.toml",
        "--format",
        "concise",
    ]);
    // The config does not load (too many nodes): it is reported once, at the parser's place,
    // and the rules that read it see no config.
    run.expect_code(1);
    assert_eq!(
        run.stdout.matches("error[config-invalid]").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.starts_with("experiments/my-grpo/config.yaml:"),
        "{}",
        run.stdout
    );
}

#[test]
fn hostile_experiment_files_reach_no_output_raw() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "experiments/my-grpo/evil\u{1b}[31m::x%0A.py",
            "A = \"/mnt/\u{1b}]8;;http://x\u{7}\u{202e}here\"\nB = \"/data/::error file=x::pwned\"\n# forgelint: ignore[exp-\u{1b}[2J]\n",
        )
        .write(
            "experiments/my-grpo/config.yaml",
            format!("k\u{202e}: /scratch/\u{9b}x\ntoken: {TOKEN}\u{1b}[0m\n"),
        );
    for format in common::FORMATS {
        // The harness fails the run on any raw control or bidi character in its output.
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(1);
        assert!(!run.stdout.contains(TOKEN_TAIL), "--format {format}");
        if format == "github" {
            assert!(
                run.stdout
                    .lines()
                    .all(|l| l.starts_with("::error ") || l.starts_with("::warning ")),
                "{}",
                run.stdout
            );
            // The value is inside a message, never a command of its own.
            assert!(!run.stdout.contains("\n::error file=x"), "{}", run.stdout);
        }
    }
}

#[test]
fn standard_input_named_as_an_experiment_file_is_linted_as_one() {
    let tree = experiment_tree();
    let text = format!("CORPUS = \"/data/x\"\nTOKEN = \"{TOKEN}\"\n");
    for format in ["concise", "human"] {
        let run = tree.run_stdin(
            &[
                "--no-config",
                "--format",
                format,
                "--stdin-filename",
                "experiments/my-grpo/new.py",
                "-",
            ],
            &text,
        );
        run.expect_code(1);
        assert!(!run.stdout.contains(TOKEN_TAIL), "{}", run.stdout);
        if format == "concise" {
            assert_eq!(
                lines(&run),
                [
                    "experiments/my-grpo/new.py:1:10 exp-host-path",
                    "experiments/my-grpo/new.py:2:10 exp-secret",
                ]
            );
        } else {
            assert!(run.stdout.contains("TOKEN = \"hf_Q…"), "{}", run.stdout);
        }
    }
}

#[test]
fn experiment_files_that_cannot_be_read_are_said_never_opened() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .mkfifo("experiments/my-grpo/pipe.py")
        .symlink("nowhere.py", "experiments/my-grpo/dangling.py");
    // Through the walk (the glob), and through the spec that names the experiment.
    for args in [
        &["--no-config", "--format", "concise"][..],
        &["--no-config", "--format", "concise", "jobspec.json"][..],
    ] {
        let run = tree.run(args);
        run.expect_code(1);
        assert_eq!(
            lines(&run),
            [
                "experiments/my-grpo/dangling.py:1:1 invalid-json",
                "experiments/my-grpo/pipe.py:1:1 invalid-json",
            ],
            "{args:?}"
        );
        assert!(
            run.stdout.contains("(a FIFO); it was not opened"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn a_spec_naming_its_whole_project_lints_each_file_once() {
    let tree = Tree::new();
    tree.write(
        ".starforge/jobspec.json",
        patch(
            &reference(),
            r#""exp": "experiments/my-grpo""#,
            r#""exp": ".""#,
        ),
    )
    .write("run.py", "A = \"/mnt/a\"\n")
    .write("experiments/b/train.py", "B = \"/mnt/b\"\n")
    .write("specs/x.jobspec.json", reference());
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "--select",
        "exp-host-path",
    ]);
    run.expect_code(1);
    assert_eq!(
        lines(&run),
        [
            "experiments/b/train.py:1:5 exp-host-path",
            "run.py:1:5 exp-host-path",
        ],
        "{}",
        run.stdout
    );
}
