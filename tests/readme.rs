//! The README's rule table is the rule files' own ids, severities and summaries.

use forgelint::rules::RuleSet;

#[test]
fn readme_rule_table_matches_the_rule_files() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme.find("<!-- rules:start -->").expect("start marker");
    let end = readme.find("<!-- rules:end -->").expect("end marker");
    let rows: Vec<Vec<String>> = readme[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().replace("\\|", "|"))
                .collect()
        })
        .collect();
    let set = RuleSet::builtin().unwrap();
    let expected: Vec<Vec<String>> = set
        .rules
        .iter()
        .map(|r| {
            let needs = r.needs.names();
            vec![
                format!("`{}`", r.id),
                r.severity.to_string(),
                if needs.is_empty() {
                    "—".to_string()
                } else {
                    needs.join(", ")
                },
                r.summary.clone(),
            ]
        })
        .collect();
    assert_eq!(
        rows, expected,
        "regenerate the README table from `forgelint rules --format json`"
    );
}

#[test]
fn readme_starts_with_the_two_setup_commands() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let block: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("```sh"))
        .skip(1)
        .take(2)
        .collect();
    assert_eq!(
        block,
        ["cargo run --release -- fixtures/demo", "cargo test"]
    );
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs the README's test command"
    );
}

/// How a shell command of the README is proven to work.
#[derive(Debug, Clone, Copy)]
// The exit codes are read by the Unix-only test that runs the commands.
#[cfg_attr(not(unix), allow(dead_code))]
enum Proof {
    /// [`readme_commands_run`] runs it with `sh` in a copy of the demo lab (`forgelint` is the
    /// built binary, first on `PATH`), in the README's order, and it must exit with this code.
    Here(i32),
    /// `cargo run --release -- ARGS` at the repository's root: the test runs the built binary
    /// with ARGS there (the same program, without a release build), exit code as given.
    CargoRun(i32),
    /// The integration script runs it as written (it reads the README's block).
    Script(&'static str),
    /// Not run by a test, and why: a command that needs the network, a release or a cluster.
    Exception(&'static str),
}

/// Every shell command of the README (each line of its `sh` blocks, a `\` continuation joined,
/// a trailing `# comment` and full-line comments left out) and how it is proven. A command
/// added to the README without a line here fails [`every_readme_command_is_proven`].
const COMMANDS: &[(&str, Proof)] = &[
    (
        "cargo run --release -- fixtures/demo",
        Proof::CargoRun(1),
    ),
    (
        "cargo test",
        Proof::Exception("the test suite itself; .ci/run runs it (see readme_starts_with_the_two_setup_commands)"),
    ),
    (
        "cargo install --locked --path .",
        Proof::Script("tests/integration/wheel.sh"),
    ),
    ("python3 -m venv .venv", Proof::Script("tests/integration/wheel.sh")),
    (
        ".venv/bin/pip install maturin",
        Proof::Script("tests/integration/wheel.sh"),
    ),
    (
        ".venv/bin/maturin build --release --locked -o dist",
        Proof::Script("tests/integration/wheel.sh"),
    ),
    (
        ".venv/bin/pip install --no-index --find-links dist forgelint",
        Proof::Script("tests/integration/wheel.sh"),
    ),
    (
        ".venv/bin/forgelint --version",
        Proof::Script("tests/integration/wheel.sh"),
    ),
    (
        "pip install forgelint",
        Proof::Exception("needs the first release on PyPI (docs/releasing.md)"),
    ),
    (
        "cargo install --locked forgelint",
        Proof::Exception("needs the first release on crates.io (docs/releasing.md)"),
    ),
    (
        "forgelint check --format html -o audit.html archive/",
        Proof::Here(1),
    ),
    (
        "forgelint check --format html --group-depth 1 -o audit.html .",
        Proof::Here(1),
    ),
    ("mkdir -p schemas", Proof::Here(0)),
    (
        "forgelint schema jobspec > schemas/jobspec.schema.json",
        Proof::Here(0),
    ),
    (
        "forgelint schema config > schemas/forgelint.schema.json",
        Proof::Here(0),
    ),
    (
        "forgelint schema rule > schemas/rule.schema.json",
        Proof::Here(0),
    ),
    ("forgelint --diff", Proof::Here(1)),
    ("forgelint --fix", Proof::Here(1)),
    ("forgelint --diff --unsafe-fixes", Proof::Here(1)),
    ("forgelint --fix --unsafe-fixes", Proof::Here(1)),
    ("forgelint --fix - < spec.json > fixed.json", Proof::Here(1)),
    (
        "forgelint --write-baseline .forgelint-baseline.json",
        Proof::Here(0),
    ),
    (
        "forgelint --baseline .forgelint-baseline.json",
        Proof::Here(0),
    ),
    // The archive's one fault was fixed by `--fix --unsafe-fixes` above.
    (
        "forgelint --format sarif=forgelint.sarif --format json=audit.json --format github archive/",
        Proof::Here(0),
    ),
    (
        "forgelint merge shard-*.sarif -o forgelint.sarif",
        Proof::Here(0),
    ),
    (
        "forgelint --exit-zero -j \"$SLURM_CPUS_PER_TASK\" --shard \"$SLURM_ARRAY_TASK_ID/16\" --format json=\"audit/shard-$SLURM_ARRAY_TASK_ID.json\" /lab/archive",
        Proof::Exception("a task of a Slurm array job: the SLURM_* variables and /lab/archive are the cluster's"),
    ),
    (
        "forgelint merge audit/shard-*.json -o audit.json",
        Proof::Here(0),
    ),
    // The demo lab is no git repository: tests/history/ builds repositories and runs these.
    (
        "forgelint check --new-from-rev origin/main .",
        Proof::Exception("needs a git remote; tests/history/done_when.rs runs --new-from-rev against a revision of a built repository"),
    ),
    (
        "forgelint history",
        Proof::Exception("needs a git history; tests/history/done_when.rs runs it on a built repository of 300 commits"),
    ),
    (
        "forgelint history v1.0..HEAD -- specs/",
        Proof::Exception("needs a git history with a tag; tests/history/clones.rs (ranges_and_paths_limit_what_is_read) runs a range with a pathspec"),
    ),
    (
        "forgelint history --all --format html -o history.html",
        Proof::Exception("needs a git history; tests/history/clones.rs (all_reads_every_branch_and_head_only_its_own) runs --all and tests/history/formats.rs the html report"),
    ),
];

/// The shell commands of the README, in order: each line of its `sh` blocks, continuations
/// joined, comments left out.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if !in_block {
            in_block = line == "```sh";
            continue;
        }
        if line.starts_with("```") {
            in_block = false;
            continue;
        }
        // A comment after two blanks, as the README aligns them; a `#` inside a word stays.
        let code = line.split("  #").next().unwrap_or(line).trim();
        if code.is_empty() || code.starts_with('#') {
            continue;
        }
        match code.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head.trim_end());
                pending.push(' ');
            }
            None => {
                pending.push_str(code);
                commands.push(std::mem::take(&mut pending));
            }
        }
    }
    commands
}

/// Every command of the README has its proof in [`COMMANDS`], and every entry there is still a
/// command of the README; a script named as a proof reads the README's blocks.
#[test]
fn every_readme_command_is_proven() {
    let commands = readme_commands();
    assert!(commands.len() >= 20, "{commands:?}");
    for command in &commands {
        assert!(
            COMMANDS.iter().any(|(c, _)| c == command),
            "the README's command `{command}` is run by no test: add it to COMMANDS in \
             tests/readme.rs, with how it is proven (or why it cannot be)"
        );
    }
    for (command, proof) in COMMANDS {
        assert!(
            commands.iter().any(|c| c == command),
            "`{command}` is no longer in the README: remove it from COMMANDS"
        );
        if let Proof::Exception(why) = proof {
            assert!(why.len() > 20, "`{command}`: say why no test runs it");
        }
        if let Proof::Script(script) = proof {
            let text = std::fs::read_to_string(script).unwrap();
            assert!(
                text.contains("README.md") && text.contains("## Install"),
                "{script} does not read the README's install blocks"
            );
        }
    }
}

/// The commands this module proves, run in README order in one copy of the demo lab.
#[test]
#[cfg(unix)]
fn readme_commands_run() {
    use std::path::Path;
    use std::process::Command;
    let demo = Path::new("fixtures/demo");
    let lab = tempfile::tempdir().unwrap();
    let lab = lab.path();
    copy_tree(demo, lab);
    // What the commands read: a spec for `--fix -`, and the parts `merge` joins.
    std::fs::copy(
        demo.join("specs/grpo-70b.jobspec.json"),
        lab.join("spec.json"),
    )
    .unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_forgelint"));
    for k in 1..=2 {
        let shard = format!("{k}/2");
        for (format, file) in [
            ("sarif", format!("shard-{k}.sarif")),
            ("json", format!("audit/shard-{k}.json")),
        ] {
            let status = Command::new(bin)
                .current_dir(lab)
                .args(["--exit-zero", "-q", "--shard", &shard, "--format"])
                .arg(format!("{format}={file}"))
                .arg("archive/")
                .status()
                .unwrap();
            assert!(status.success(), "shard {shard} {format}");
        }
    }
    // `forgelint` on PATH is the built binary.
    let path_dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(bin, path_dir.path().join("forgelint")).unwrap();
    let path = format!(
        "{}:{}",
        path_dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for command in readme_commands() {
        let Some((_, proof)) = COMMANDS.iter().find(|(c, _)| *c == command) else {
            continue;
        };
        let (cwd, line, expected) = match *proof {
            Proof::Here(code) => (lab.to_path_buf(), command.clone(), code),
            Proof::CargoRun(code) => {
                let args = command.strip_prefix("cargo run --release -- ").unwrap();
                let root = std::env::current_dir().unwrap();
                (root, format!("forgelint {args}"), code)
            }
            _ => continue,
        };
        let out = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(&cwd)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_WORKSPACE")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(expected),
            "`{command}` in {}:\n{stderr}",
            cwd.display()
        );
        assert!(!stderr.contains("panicked"), "`{command}`: {stderr}");
        ran += 1;
    }
    assert!(ran >= 15, "{ran} commands run");
    // What they were to make.
    for made in [
        "audit.html",
        "schemas/rule.schema.json",
        "fixed.json",
        ".forgelint-baseline.json",
        "forgelint.sarif",
        "audit.json",
    ] {
        assert!(lab.join(made).is_file(), "{made}");
    }
}

#[cfg(unix)]
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The LICENSE the manifests name: MIT, the same text where the VS Code extension is packed.
#[test]
fn the_license_is_the_mit_license_of_the_manifests() {
    let license = std::fs::read_to_string("LICENSE").unwrap();
    assert!(license.starts_with("MIT License\n\nCopyright (c) "));
    assert!(license.contains("The forgelint authors"));
    let cargo = std::fs::read_to_string("Cargo.toml").unwrap();
    assert!(cargo.contains("\nlicense = \"MIT\"\n"));
    assert_eq!(
        std::fs::read_to_string("editors/vscode/LICENSE").unwrap(),
        license
    );
}
