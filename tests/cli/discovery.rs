//! Discovery: which files a run lints, which it skips, and what it says about those it cannot
//! read.

use super::*;

/// Not a JSON object: one `invalid-json` finding at 1:1 wherever it is linted, which makes the
/// list of findings the list of files linted.
const NOT_AN_OBJECT: &str = "[]\n";

fn discovery_tree() -> Tree {
    let tree = Tree::new();
    for rel in [
        "a/jobspec.json",
        "a/x.jobspec.json",
        ".starforge/jobspec.json",
        "deep/er/still/run.jobspec.json",
        "dir/jobspec.json/inner.jobspec.json",
        // Never walked into.
        ".git/jobspec.json",
        "target/jobspec.json",
        "node_modules/jobspec.json",
        "nested/target/jobspec.json",
        "nested/node_modules/pkg/jobspec.json",
        // Ignored by .gitignore files.
        "ignored/jobspec.json",
        "nested/local.jobspec.json",
        // Not jobspec names.
        "other/config.json",
        "other/jobspec.json.bak",
        "other/myjobspec.json",
        "other/jobspec.yaml",
    ] {
        tree.write(rel, NOT_AN_OBJECT);
    }
    tree.write(".gitignore", "ignored/\n")
        .write("nested/.gitignore", "local.jobspec.json\n");
    tree
}

#[test]
fn discovery_finds_jobspecs_and_skips_the_rest() {
    let tree = discovery_tree();
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(
        run.paths(),
        [
            ".starforge/jobspec.json",
            "a/jobspec.json",
            "a/x.jobspec.json",
            "deep/er/still/run.jobspec.json",
            "dir/jobspec.json/inner.jobspec.json",
        ]
    );
    assert!(
        run.stderr.contains("in 5 of 5 files checked"),
        "{}",
        run.stderr
    );
    // The same walk from the explicit `.` and from the absolute path.
    let dot = tree.run(&["--no-config", "--format", "concise", "."]);
    assert_eq!(dot.stdout, run.stdout);
    // The one walker thread of `-j1` and `-j2` walks sequentially; from `-j3`, walker threads
    // share the folders. Both find the same files.
    for jobs in ["1", "2", "3", "8"] {
        let other = tree.run(&["--no-config", "--format", "concise", "-j", jobs]);
        assert_eq!(other.stdout, run.stdout, "-j{jobs}");
    }
    let root = tree.root().to_str().unwrap();
    let abs = tree.run(&["--no-config", "--format", "concise", root]);
    let abs_paths: Vec<String> = abs
        .paths()
        .iter()
        .map(|p| p.strip_prefix(&format!("{root}/")).unwrap_or(p).to_string())
        .collect();
    assert_eq!(abs_paths, run.paths());
}

/// Every file of the tree named, as pre-commit names the staged files: with
/// `--discovered-only` exactly those the walk lints are linted, with and without
/// `--no-ignore`; without it, every file named is linted.
#[test]
fn discovered_only_lints_of_the_files_named_those_the_walk_finds() {
    let tree = discovery_tree();
    tree.mkdir(".git");
    let mut named: Vec<String> = Vec::new();
    let mut stack = vec![tree.root().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(tree.root()).unwrap();
                named.push(rel.to_str().unwrap().to_string());
            }
        }
    }
    named.sort();
    for extra in [&[][..], &["--no-ignore"]] {
        let mut walk_args = vec!["--no-config", "--format", "concise"];
        walk_args.extend(extra);
        let walk = tree.run(&walk_args);
        let mut args = walk_args.clone();
        args.push("--discovered-only");
        args.extend(named.iter().map(String::as_str));
        let given = tree.run(&args);
        given.expect_code(1);
        assert_eq!(given.paths(), walk.paths(), "{extra:?}");
    }
    let mut args = vec!["--no-config", "--format", "concise"];
    args.extend(named.iter().map(String::as_str));
    assert_eq!(tree.run(&args).paths().len(), named.len());
}

/// A monorepo: each lab's nested config decides what is its experiments' (a custom
/// `[files] experiments` glob included), whatever the file's depth from the root.
#[test]
fn discovered_only_follows_each_files_nearest_config() {
    let tree = Tree::new();
    tree.mkdir(".git")
        .write(".gitignore", "scratch/\n")
        .write("labs/vision/forgelint.toml", "")
        .write(
            "labs/vision/experiments/seg/config.yaml",
            "hub:\n  token: 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\n",
        )
        .write(
            "labs/nlp/forgelint.toml",
            "[files]\nexperiments = [\"runs/*\"]\n",
        )
        .write("labs/nlp/runs/a/train.py", "D = \"/mnt/data/x\"\n")
        .write("labs/nlp/experiments/b/train.py", "D = \"/mnt/data/y\"\n")
        .write("labs/vision/scratch/x.py", "D = \"/mnt/data/z\"\n")
        .write("docs/readme.md", "# notes\n");
    let files = [
        ".gitignore",
        "docs/readme.md",
        "labs/nlp/experiments/b/train.py",
        "labs/nlp/forgelint.toml",
        "labs/nlp/runs/a/train.py",
        "labs/vision/experiments/seg/config.yaml",
        "labs/vision/forgelint.toml",
        "labs/vision/scratch/x.py",
    ];
    let mut args = vec!["--format", "concise", "--discovered-only"];
    args.extend(files);
    let run = tree.run(&args);
    run.expect_code(1);
    assert_eq!(
        common_lines(&run),
        [
            "labs/nlp/runs/a/train.py exp-host-path",
            "labs/vision/experiments/seg/config.yaml exp-secret",
        ],
        "{}{}",
        run.stdout,
        run.stderr
    );
    // Nothing of the batch is a spec or an experiment's: nothing checked, exit 0.
    let run = tree.run(&[
        "--discovered-only",
        "docs/readme.md",
        "labs/vision/scratch/x.py",
    ]);
    run.expect_code(0);
    assert!(
        run.stderr.contains(
            "no job specs or experiment files among docs/readme.md or labs/vision/scratch/x.py"
        ),
        "{}",
        run.stderr
    );
}

/// `path rule` of each finding.
fn common_lines(run: &Run) -> Vec<String> {
    run.findings()
        .iter()
        .map(|f| format!("{} {}", f.path, f.rule))
        .collect()
}

#[test]
fn no_ignore_lints_gitignored_files_but_still_skips_vcs_and_build_dirs() {
    let tree = discovery_tree();
    let run = tree.run(&["--no-config", "--format", "concise", "--no-ignore"]);
    run.expect_code(1);
    assert_eq!(
        run.paths(),
        [
            ".starforge/jobspec.json",
            "a/jobspec.json",
            "a/x.jobspec.json",
            "deep/er/still/run.jobspec.json",
            "dir/jobspec.json/inner.jobspec.json",
            "ignored/jobspec.json",
            "nested/local.jobspec.json",
        ]
    );
    for jobs in ["1", "4"] {
        let other = tree.run(&[
            "--no-config",
            "--format",
            "concise",
            "--no-ignore",
            "-j",
            jobs,
        ]);
        assert_eq!(other.stdout, run.stdout, "-j{jobs}");
    }
}

/// The global gitignore (git's `core.excludesFile`) is obeyed, and not with `--no-ignore`.
#[test]
fn the_global_gitignore_is_obeyed() {
    let tree = discovery_tree();
    let home = tree.path("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("excludes"), "a/x.jobspec.json\ndeep/\n").unwrap();
    std::fs::write(
        home.join("gitconfig"),
        format!(
            "[user]\n\tname = A\n[core]\n\tExcludesFile = \"{}\"\n",
            home.join("excludes").display()
        ),
    )
    .unwrap();
    let extra = common::Extra {
        env: vec![(
            "GIT_CONFIG_GLOBAL".into(),
            home.join("gitconfig").display().to_string(),
        )],
        ..common::Extra::default()
    };
    let run = tree.run_with(&["--no-config", "--format", "concise"], &extra);
    assert_eq!(
        run.paths(),
        [
            ".starforge/jobspec.json",
            "a/jobspec.json",
            "dir/jobspec.json/inner.jobspec.json",
        ]
    );
    let all = tree.run_with(
        &["--no-config", "--format", "concise", "--no-ignore"],
        &extra,
    );
    assert_eq!(all.paths().len(), 7, "{}", all.stdout);
}

#[test]
fn a_directory_named_jobspec_json_is_walked_not_read() {
    let tree = Tree::new();
    tree.write("dir/jobspec.json/inner.jobspec.json", NOT_AN_OBJECT)
        .mkdir("empty/jobspec.json");
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "dir/jobspec.json",
        "empty",
    ]);
    run.expect_code(1);
    assert_eq!(run.paths(), ["dir/jobspec.json/inner.jobspec.json"]);
    let run = tree.run(&["--no-config", "--format", "concise", "empty/jobspec.json"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
}

#[test]
fn an_explicitly_named_file_is_always_linted() {
    let tree = discovery_tree();
    tree.write("vendor/jobspec.json", NOT_AN_OBJECT)
        .write("forgelint.toml", "[files]\nexclude = [\"vendor/**\"]\n");
    let named = [
        "ignored/jobspec.json",
        "nested/local.jobspec.json",
        "other/config.json",
        "other/jobspec.json.bak",
        "target/jobspec.json",
        "node_modules/jobspec.json",
        ".git/jobspec.json",
        "vendor/jobspec.json",
    ];
    let mut args = vec!["--format", "concise"];
    args.extend(named);
    let run = tree.run(&args);
    run.expect_code(1);
    let mut expected: Vec<&str> = named.to_vec();
    expected.sort();
    assert_eq!(run.paths(), expected);
    // Pre-commit style: only the staged file, even in a walked-past directory.
    let run = tree.run(&["--format", "concise", "vendor/jobspec.json"]);
    assert_eq!(run.paths(), ["vendor/jobspec.json"]);
}

#[test]
fn a_file_named_twice_is_linted_once() {
    let tree = Tree::new();
    tree.write("jobspec.json", NOT_AN_OBJECT);
    for args in [
        &["jobspec.json", "./jobspec.json"][..],
        &[".", "./jobspec.json"],
    ] {
        let mut all = vec!["--no-config", "--format", "concise"];
        all.extend(args);
        let run = tree.run(&all);
        run.expect_code(1);
        assert_eq!(run.findings().len(), 1, "{args:?}:\n{}", run.stdout);
    }
}

#[test]
fn stdin_is_linted_under_the_stdin_filename() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    let spec = warning_only_spec();
    let run = tree.run_stdin(
        &[
            "--no-config",
            "--format",
            "concise",
            "--stdin-filename",
            "specs/run.jobspec.json",
            "-",
        ],
        &spec,
    );
    run.expect_code(0);
    let findings = run.findings();
    assert_eq!(findings.len(), 1, "{}", run.stdout);
    let f = &findings[0];
    assert_eq!(
        (
            f.path.as_str(),
            f.position.as_str(),
            f.severity.as_str(),
            f.rule.as_str()
        ),
        ("specs/run.jobspec.json", "7:14", "warning", "owner-ignored")
    );
    assert!(f.message.contains("\"bob\""), "{}", f.message);
    assert!(run.stderr.contains("1 of 1 file checked"), "{}", run.stderr);

    // Human output frames the piped text (there is no file to read it from).
    let run = tree.run_stdin(
        &[
            "--no-config",
            "--stdin-filename",
            "specs/run.jobspec.json",
            "-",
        ],
        &spec,
    );
    run.expect_code(0);
    assert!(
        run.stdout.contains("specs/run.jobspec.json:7:14"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("7 │     \"owner\": \"bob\","),
        "{}",
        run.stdout
    );

    // Without a name, `-`; with other paths, all of them.
    tree.write("jobspec.json", error_spec());
    let run = tree.run_stdin(
        &["--no-config", "--format", "concise", "-", "jobspec.json"],
        &spec,
    );
    run.expect_code(1);
    assert_eq!(run.paths(), ["-", "jobspec.json"]);

    // Broken input on stdin is a finding, not a crash.
    let run = tree.run_stdin(
        &["--no-config", "--format", "concise", "-"],
        "{\"apiVersion\": ",
    );
    run.expect_code(1);
    assert_eq!(run.rules(), ["invalid-json"]);
}

#[test]
fn a_fifo_named_jobspec_json_is_reported_never_opened() {
    let tree = Tree::new();
    tree.mkfifo("pipe/jobspec.json")
        .symlink("../pipe/jobspec.json", "via-link/jobspec.json")
        .valid_project("ok/jobspec.json");
    // Walked: a finding; the run finishes (opening a FIFO with no writer would block forever).
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    let findings = run.findings();
    assert_eq!(run.paths(), ["pipe/jobspec.json", "via-link/jobspec.json"]);
    for f in &findings {
        assert_eq!(
            (f.rule.as_str(), f.position.as_str()),
            ("invalid-json", "1:1")
        );
        assert!(f.message.contains("FIFO"), "{}", f.message);
    }
    // Named: reported, and the tool could not do its job.
    let run = tree.run(&["--no-config", "--format", "concise", "pipe/jobspec.json"]);
    run.expect_code(2);
    assert_eq!(run.paths(), ["pipe/jobspec.json"]);
    assert!(run.findings()[0].message.contains("FIFO"));
}

#[test]
#[cfg(unix)]
fn a_socket_named_jobspec_json_is_reported_never_opened() {
    let tree = Tree::new();
    tree.mkdir("sock");
    let _listener = std::os::unix::net::UnixListener::bind(tree.path("sock/jobspec.json"))
        .expect("bind a unix socket");
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(run.paths(), ["sock/jobspec.json"]);
    assert!(
        run.findings()[0].message.contains("socket"),
        "{}",
        run.stdout
    );
}

#[test]
fn symlink_loops_are_survived() {
    let tree = Tree::new();
    tree.valid_project("b/x.jobspec.json")
        .symlink("../b", "b/loop")
        .symlink("..", "b/up")
        .symlink("../a", "a/self")
        .symlink("jobspec.json", "c/jobspec.json")
        .symlink("../b/x.jobspec.json", "a/link.jobspec.json");
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    // Each file once: links to directories are not followed; a link to a spec is linted.
    assert_eq!(run.paths(), ["c/jobspec.json"], "{}", run.stdout);
    assert!(
        run.stderr.contains("in 1 of 3 files checked"),
        "{}",
        run.stderr
    );
    // Named, the self-link cannot be read: exit 2.
    let run = tree.run(&["--no-config", "--format", "concise", "c/jobspec.json"]);
    run.expect_code(2);
    assert_eq!(run.rules(), ["invalid-json"]);
}

#[test]
fn a_symlink_loop_is_not_called_dangling() {
    let tree = Tree::new();
    tree.symlink("jobspec.json", "c/jobspec.json");
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    let message = &run.findings()[0].message;
    assert!(!message.contains("dangling"), "{message}");
}

#[test]
fn a_dangling_symlink_named_jobspec_json_is_reported() {
    let tree = Tree::new();
    tree.symlink("nowhere/jobspec.json", "gone/jobspec.json")
        .symlink("nowhere", "gone/old.jobspec.json")
        .symlink("nowhere", "gone/notes.txt");
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(run.paths(), ["gone/jobspec.json", "gone/old.jobspec.json"]);
    for f in run.findings() {
        assert_eq!(f.rule, "invalid-json");
        assert!(f.message.contains("dangling"), "{}", f.message);
    }
    let run = tree.run(&["--no-config", "--format", "concise", "gone/jobspec.json"]);
    run.expect_code(2);
    assert_eq!(run.paths(), ["gone/jobspec.json"]);
}

#[test]
#[cfg(unix)]
fn an_unreadable_file_or_directory_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let tree = Tree::new();
    tree.write("locked/jobspec.json", reference())
        .write("closed/inner/jobspec.json", reference())
        .valid_project("ok/jobspec.json");
    let mode = |rel: &str, m: u32| {
        std::fs::set_permissions(tree.path(rel), std::fs::Permissions::from_mode(m)).unwrap()
    };
    mode("locked/jobspec.json", 0o000);
    mode("closed", 0o000);
    if std::fs::read(tree.path("locked/jobspec.json")).is_ok() {
        // Root reads whatever the mode says: nothing to test.
        mode("closed", 0o755);
        eprintln!("skipped: permissions do not stop this user (root?)");
        return;
    }
    let walked = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "locked",
        "closed",
        "ok",
    ]);
    let named = tree.run(&["--no-config", "--format", "concise", "locked/jobspec.json"]);
    mode("closed", 0o755);
    mode("locked/jobspec.json", 0o644);

    walked.expect_code(1);
    assert_eq!(walked.paths(), ["locked/jobspec.json"]);
    assert_eq!(walked.rules(), ["invalid-json"]);
    assert!(
        walked.stderr.contains("closed"),
        "the unreadable folder is mentioned: {}",
        walked.stderr
    );
    named.expect_code(2);
    assert_eq!(named.rules(), ["invalid-json"]);
}

#[test]
fn files_include_and_exclude_from_the_config() {
    let tree = Tree::new();
    for rel in [
        "jobspec.json",
        "specs/a.jobspec.json",
        "specs/b.spec.json",
        "vendor/x/jobspec.json",
        "sub/jobspec.json",
    ] {
        tree.write(rel, NOT_AN_OBJECT);
    }
    // `exclude` extends the defaults.
    tree.write("forgelint.toml", "[files]\nexclude = [\"vendor/**\"]\n");
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(1);
    assert_eq!(
        run.paths(),
        ["jobspec.json", "specs/a.jobspec.json", "sub/jobspec.json"]
    );
    // Found from a subfolder, the globs stay relative to the config's folder.
    let run = tree.run_in("sub", &["--format", "concise", "."]);
    assert_eq!(run.paths(), ["jobspec.json"]);
    // `include` replaces the defaults.
    tree.write(
        "forgelint.toml",
        "[files]\ninclude = [\"**/*.spec.json\"]\n",
    );
    let run = tree.run(&["--format", "concise"]);
    assert_eq!(run.paths(), ["specs/b.spec.json"]);
    // From another folder, with the config given.
    let name = tree.root().file_name().unwrap().to_str().unwrap();
    let config = format!("{name}/forgelint.toml");
    let outside = tree.root().parent().unwrap();
    let run = run_in(outside, &["--config", &config, "--format", "concise", name]);
    assert_eq!(run.paths(), [format!("{name}/specs/b.spec.json")]);
}

#[test]
fn files_globs_hold_for_paths_with_dot_dot() {
    let tree = Tree::new();
    for rel in [
        "jobspec.json",
        "specs/a.jobspec.json",
        "vendor/x/jobspec.json",
        "sub/jobspec.json",
    ] {
        tree.write(rel, NOT_AN_OBJECT);
    }
    tree.write(
        "forgelint.toml",
        "[files]\nexclude = [\"vendor/**\", \"sub/**\"]\n",
    );
    // Linting the parent folder from a subfolder: the config is found above; vendor/ and sub/
    // are excluded, the rest is linted.
    let run = tree.run_in("sub", &["--format", "concise", ".."]);
    assert_eq!(run.paths(), ["../jobspec.json", "../specs/a.jobspec.json"]);
    // The config named with `..`: sub/ is excluded.
    let run = tree.run_in(
        "sub",
        &["--config", "../forgelint.toml", "--format", "concise", "."],
    );
    assert_eq!(run.paths(), Vec::<String>::new());
}

#[test]
fn per_file_ignores_apply_to_walked_files() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("archive/old.jobspec.json", warning_only_spec())
        .write("new/jobspec.json", warning_only_spec())
        .write(
            "forgelint.toml",
            "[per-file-ignores]\n\"archive/**\" = [\"owner-ignored\"]\n",
        );
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(0);
    assert_eq!(run.paths(), ["new/jobspec.json"]);
}
