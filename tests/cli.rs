//! End-to-end tests of the `forgelint` binary: exit codes, the human and concise formats,
//! bad configuration and rule files, discovery, the project root, positions, and hostile input.
//!
//! Every run uses `NO_COLOR=1`, `COLUMNS=80`, a fixed working directory and a timeout (a run that
//! hangs — on a FIFO, say — fails instead of blocking the suite). Trees are generated in temporary
//! directories; the demo repository under `fixtures/demo` is linted in place.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_forgelint");
/// Generous: a debug build under a loaded CI machine. A hang is caught all the same.
const TIMEOUT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn reader<R: Read + Send + 'static>(mut pipe: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

/// Runs forgelint in `cwd` with `args`, feeding `stdin` (or nothing: stdin is /dev/null).
fn run_full(cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        let bytes = bytes.to_vec();
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let out = reader(child.stdout.take().expect("stdout is piped"));
    let err = reader(child.stderr.take().expect("stderr is piped"));
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        match child.try_wait().expect("waiting for forgelint") {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "forgelint {args:?} in {} did not finish within {TIMEOUT:?}",
                    cwd.display()
                );
            }
            None => thread::sleep(Duration::from_millis(5)),
        }
    };
    if let Some(w) = writer {
        w.join().expect("stdin writer");
    }
    let stdout = String::from_utf8(out.join().expect("stdout reader")).expect("stdout is UTF-8");
    let stderr = String::from_utf8(err.join().expect("stderr reader")).expect("stderr is UTF-8");
    let code = status.code().unwrap_or_else(|| {
        panic!("forgelint {args:?} was killed by a signal: {status:?}\n{stderr}")
    });
    Run {
        code,
        stdout,
        stderr,
    }
}

fn run_in(cwd: &Path, args: &[&str]) -> Run {
    run_full(cwd, args, None)
}

impl Run {
    /// Asserts the exit code, showing the whole run when it differs.
    #[track_caller]
    fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "unexpected exit code\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// The findings of concise output.
    fn findings(&self) -> Vec<Finding> {
        self.stdout.lines().map(Finding::parse).collect()
    }

    /// The distinct paths of the findings of concise output, sorted.
    fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.findings().into_iter().map(|f| f.path).collect();
        paths.dedup();
        paths
    }

    fn rules(&self) -> Vec<String> {
        self.findings().into_iter().map(|f| f.rule).collect()
    }
}

/// One line of concise output: `path:line:col: severity[rule] message`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    path: String,
    /// `line:col`
    position: String,
    severity: String,
    rule: String,
    message: String,
}

impl Finding {
    fn parse(line: &str) -> Finding {
        let (location, rest) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("not a concise finding: {line:?}"));
        let mut parts = location.rsplitn(3, ':');
        let col = parts.next().expect("column");
        let row = parts.next().expect("line");
        let path = parts.next().expect("path");
        let (severity, rest) = rest.split_once('[').expect("severity[rule]");
        let (rule, message) = rest.split_once("] ").expect("severity[rule] message");
        Finding {
            path: path.to_string(),
            position: format!("{row}:{col}"),
            severity: severity.to_string(),
            rule: rule.to_string(),
            message: message.to_string(),
        }
    }
}

/// The run time in the summary line, the only thing that changes between runs.
fn scrub_time(text: &str) -> String {
    static TIME: OnceLock<regex::Regex> = OnceLock::new();
    TIME.get_or_init(|| regex::Regex::new(r"\(\d+(\.\d+)? (ms|s)\)").unwrap())
        .replace_all(text, "(TIME)")
        .into_owned()
}

fn transcript(run: &Run) -> String {
    format!(
        "exit code: {}\n--- stdout ---\n{}--- stderr ---\n{}",
        run.code, run.stdout, run.stderr
    )
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The reference spec every rule case patches: valid against every built-in rule when
/// `experiments/my-grpo` exists under the project root.
fn reference() -> String {
    std::fs::read_to_string(manifest_dir().join("rules/reference/jobspec.json"))
        .expect("rules/reference/jobspec.json")
}

/// `text` with the one occurrence of `from` replaced by `to`.
#[track_caller]
fn patch(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "expected {from:?} exactly once in the spec"
    );
    text.replacen(from, to, 1)
}

/// A spec whose only finding is the warning `owner-ignored` at 7:14.
fn warning_only_spec() -> String {
    patch(&reference(), r#""owner": """#, r#""owner": "bob""#)
}

/// A spec whose only finding is the error `api-version` at 2:17.
fn error_spec() -> String {
    patch(
        &reference(),
        r#""apiVersion": "forge/v2""#,
        r#""apiVersion": "forge/v1""#,
    )
}

/// `json` without whitespace outside strings: one line.
fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// 1-based UTF-16 column of byte offset `at` in its line of `text`.
fn utf16_column(text: &str, at: usize) -> usize {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].encode_utf16().count() + 1
}

/// 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// A temporary directory tree, canonical (the binary sees the same path as its cwd).
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::Builder::new()
            .prefix("forgelint-cli-")
            .tempdir()
            .expect("temporary directory");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        // Config discovery and the project root look at parent directories: the tree must not sit
        // in a git work tree or below a forgelint.toml, or the tests would test the machine.
        for parent in root.ancestors().skip(1) {
            for name in [".git", "forgelint.toml", ".forgelint.toml"] {
                assert!(
                    !parent.join(name).exists(),
                    "{} exists above the temp dir {}: point TMPDIR elsewhere",
                    parent.join(name).display(),
                    root.display()
                );
            }
        }
        Tree { _dir: dir, root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Tree {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self
    }

    fn mkdir(&self, rel: &str) -> &Tree {
        std::fs::create_dir_all(self.path(rel)).unwrap();
        self
    }

    fn symlink(&self, target: &str, link: &str) -> &Tree {
        let path = self.path(link);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::os::unix::fs::symlink(target, &path).unwrap();
        self
    }

    fn mkfifo(&self, rel: &str) -> &Tree {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let status = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(status.success(), "mkfifo {}", path.display());
        self
    }

    /// A valid spec at `rel` with the experiment directory it names under the tree's root.
    fn valid_project(&self, rel: &str) -> &Tree {
        self.mkdir("experiments/my-grpo").write(rel, reference())
    }

    fn run(&self, args: &[&str]) -> Run {
        run_in(&self.root, args)
    }

    fn run_in(&self, sub: &str, args: &[&str]) -> Run {
        run_in(&self.path(sub), args)
    }

    fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
        run_full(&self.root, args, Some(stdin.as_bytes()))
    }

    /// Output with the temp dir's path and the timing replaced.
    fn scrub(&self, text: &str) -> String {
        scrub_time(&text.replace(self.root.to_str().expect("UTF-8 temp path"), "[TMP]"))
    }
}

// ---------------------------------------------------------------------------------------------
// Exit codes
// ---------------------------------------------------------------------------------------------

#[test]
fn a_clean_spec_exits_0_with_a_summary() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for format in ["human", "concise"] {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(0);
        assert_eq!(run.stdout, "", "{format}");
        assert_eq!(
            scrub_time(&run.stderr),
            "All clear: 1 file checked, no findings (TIME).\n"
        );
    }
    let quiet = tree.run(&["--no-config", "-q"]);
    quiet.expect_code(0);
    assert_eq!(quiet.stderr, "", "--quiet prints no summary");
}

#[test]
fn errors_exit_1() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", error_spec());
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(1);
    assert_eq!(run.rules(), ["api-version"]);
    assert_eq!(
        scrub_time(&run.stderr),
        "Found 1 error, 0 warnings in 1 of 1 file checked (TIME).\n"
    );
    // --fail-on never lowers the verdict for an error.
    for level in ["error", "warning", "note"] {
        tree.run(&["--no-config", "--fail-on", level])
            .expect_code(1);
    }
}

#[test]
fn fail_on_decides_whether_warnings_fail() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", warning_only_spec());
    let run = tree.run(&["--no-config", "--format", "concise"]);
    run.expect_code(0);
    assert_eq!(run.rules(), ["owner-ignored"], "a warning-only spec");
    assert_eq!(run.findings()[0].severity, "warning");
    tree.run(&["--no-config", "--fail-on", "error"])
        .expect_code(0);
    tree.run(&["--no-config", "--fail-on", "warning"])
        .expect_code(1);
    tree.run(&["--no-config", "--fail-on", "note"])
        .expect_code(1);
}

#[test]
fn fail_on_note_fails_on_notes_only() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", warning_only_spec())
        .write("forgelint.toml", "[severity]\nowner-ignored = \"note\"\n");
    let run = tree.run(&["--format", "concise"]);
    run.expect_code(0);
    assert_eq!(run.findings()[0].severity, "note");
    assert_eq!(run.rules(), ["owner-ignored"]);
    tree.run(&["--fail-on", "warning"]).expect_code(0);
    tree.run(&["--fail-on", "note"]).expect_code(1);
}

#[test]
fn bad_flags_exit_2() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for args in [
        &["--bogus"][..],
        &["--format", "xml"],
        &["--fail-on", "bogus"],
        &["--color", "sometimes"],
        &["-j", "many"],
        &["--config", "forgelint.toml", "--no-config"],
        &["--select", "owner-ignord"],
        &["--ignore", "no-such-rule"],
        &["--stdin-filename", "x.jobspec.json"],
        &["--rules", "no-such-folder/"],
        &["explain", "no-such-rule"],
        &["--config", "missing.toml"],
    ] {
        let run = tree.run(args);
        assert_eq!(run.code, 2, "{args:?}\n{}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}: nothing on stdout");
        assert!(!run.stderr.trim().is_empty(), "{args:?}: stderr says why");
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
    let run = tree.run(&["--select", "owner-ignord"]);
    assert!(
        run.stderr.contains("did you mean `owner-ignored`?"),
        "{}",
        run.stderr
    );
    tree.run(&["--help"]).expect_code(0);
    tree.run(&["--version"]).expect_code(0);
}

#[test]
fn a_config_with_an_unknown_key_exits_2_with_did_you_mean_and_its_position() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").write(
        "forgelint.toml",
        "# lab settings\n[platform]\ncatalg = \"catalog.toml\"\n",
    );
    // Given with --config (shown as given) and found in the current directory (shown in full).
    let given = tree.run(&["--config", "forgelint.toml"]);
    given.expect_code(2);
    assert_eq!(given.stdout, "");
    assert!(
        given.stderr.contains("did you mean `catalog`?"),
        "{}",
        given.stderr
    );
    assert!(
        given.stderr.contains("forgelint.toml:3:1"),
        "{}",
        given.stderr
    );
    insta::assert_snapshot!("config_unknown_key", tree.scrub(&given.stderr));

    let found = tree.run(&[]);
    found.expect_code(2);
    assert!(
        found.stderr.contains("did you mean `catalog`?"),
        "{}",
        found.stderr
    );
    assert!(
        found.stderr.contains("forgelint.toml:3:1"),
        "{}",
        found.stderr
    );
}

#[test]
fn other_bad_configs_exit_2_with_their_position() {
    let cases: &[(&str, &str, &str)] = &[
        ("not TOML", "[platform\nkind = 1\n", "forgelint.toml:1:10"),
        (
            "unknown rule in [severity]",
            "[severity]\nowner-ignord = \"off\"\n",
            "forgelint.toml:2:1",
        ),
        (
            "unknown severity",
            "[severity]\nowner-ignored = \"loud\"\n",
            "forgelint.toml:2:17",
        ),
        (
            "unknown rule in [per-file-ignores]",
            "[per-file-ignores]\n\"a/**\" = [\"git-dirt\"]\n",
            "forgelint.toml:2:11",
        ),
        (
            "missing catalog",
            "[platform]\ncatalog = \"nope.toml\"\n",
            "forgelint.toml:2:11",
        ),
        (
            "missing rule folder",
            "rules = [\"policies/\"]\n",
            "forgelint.toml:1:10",
        ),
        (
            "bad glob",
            "[files]\nexclude = [\"a/[b\"]\n",
            "forgelint.toml:2:12",
        ),
    ];
    for (what, config, position) in cases {
        let tree = Tree::new();
        tree.valid_project("jobspec.json")
            .write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        assert_eq!(run.code, 2, "{what}\n{}", run.stderr);
        assert!(
            run.stderr.contains(position),
            "{what}: expected {position} in\n{}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
    }
}

#[test]
fn a_missing_explicit_path_exits_2_but_the_other_files_are_linted() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", warning_only_spec());
    let run = tree.run(&[
        "--no-config",
        "--format",
        "concise",
        "nope.json",
        "jobspec.json",
    ]);
    run.expect_code(2);
    assert_eq!(run.rules(), ["owner-ignored"]);
    assert!(
        run.stderr.contains("nope.json: no such file or directory"),
        "{}",
        run.stderr
    );
    tree.run(&["--no-config", "nope/"]).expect_code(2);
}

// ---------------------------------------------------------------------------------------------
// The demo repository
// ---------------------------------------------------------------------------------------------

fn demo(format: &str, jobs: Option<&str>) -> Run {
    let mut args = vec![
        "--config",
        "fixtures/demo/forgelint.toml",
        "--format",
        format,
    ];
    if let Some(j) = jobs {
        args.extend(["-j", j]);
    }
    args.push("fixtures/demo");
    run_in(manifest_dir(), &args)
}

fn demo_is_deterministic(format: &str) -> Run {
    let one = demo(format, Some("1"));
    one.expect_code(1);
    for jobs in [Some("2"), Some("8"), None] {
        let other = demo(format, jobs);
        other.expect_code(1);
        assert_eq!(
            one.stdout, other.stdout,
            "--format {format}: -j 1 and -j {jobs:?} differ"
        );
        assert_eq!(scrub_time(&one.stderr), scrub_time(&other.stderr));
    }
    one
}

/// Long reports are rendered on several threads in chunks: the document is the same for every
/// `-j`, across chunk boundaries.
#[test]
fn long_reports_are_the_same_for_every_thread_count() {
    let tree = Tree::new();
    // At least two findings per spec (owner-ignored and api-version), 700 specs: several
    // chunks.
    let spec = patch(&error_spec(), r#""owner": """#, r#""owner": "bob""#);
    for i in 0..700 {
        tree.write(&format!("specs/{:03}/s{i}.jobspec.json", i % 37), &spec);
    }
    for format in ["json", "sarif", "concise", "human"] {
        let one = tree.run(&["--no-config", "--format", format, "-j", "1", "."]);
        one.expect_code(1);
        let count = match format {
            "json" | "sarif" => {
                let value: serde_json::Value =
                    serde_json::from_str(&one.stdout).expect("valid JSON");
                match format {
                    "json" => value["findings"].as_array().map(Vec::len),
                    _ => value["runs"][0]["results"].as_array().map(Vec::len),
                }
            }
            _ => Some(
                one.stdout
                    .lines()
                    .filter(|l| l.contains(".jobspec.json:"))
                    .count(),
            ),
        };
        assert!(count.unwrap_or(0) >= 1400, "--format {format}: {count:?}");
        for jobs in ["2", "3"] {
            let other = tree.run(&["--no-config", "--format", format, "-j", jobs, "."]);
            assert!(
                one.stdout == other.stdout,
                "--format {format}: -j 1 and -j {jobs} differ"
            );
        }
    }
}

#[test]
fn demo_human() {
    let run = demo_is_deterministic("human");
    insta::assert_snapshot!("demo_human", scrub_time(&transcript(&run)));
}

#[test]
fn demo_concise() {
    let run = demo_is_deterministic("concise");
    // Sorted by path, then position, then rule id.
    let findings = run.findings();
    let key = |f: &Finding| {
        let (line, col) = f.position.split_once(':').unwrap();
        (
            f.path.clone(),
            line.parse::<u32>().unwrap(),
            col.parse::<u32>().unwrap(),
            f.rule.clone(),
        )
    };
    let mut sorted = findings.clone();
    sorted.sort_by_key(key);
    assert_eq!(findings, sorted, "concise output is sorted");
    insta::assert_snapshot!("demo_concise", scrub_time(&transcript(&run)));
}

// ---------------------------------------------------------------------------------------------
// Bad rule files
// ---------------------------------------------------------------------------------------------

/// Lints a valid spec with `--rules policies/` holding `files`; the run must exit 2 and stderr
/// must name `culprit` at `position`.
fn bad_rules(files: &[(&str, &str)], culprit: &str, position: &str) -> String {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for (name, text) in files {
        tree.write(&format!("policies/{name}"), text);
    }
    let target = if files.len() == 1 {
        format!("policies/{}", files[0].0)
    } else {
        "policies".to_string()
    };
    let run = tree.run(&["--no-config", "--rules", &target, "jobspec.json"]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    let location = format!("{culprit}:{position}");
    assert!(
        run.stderr.contains(&location),
        "expected {location} in\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    tree.scrub(&run.stderr)
}

const RULE_HEAD: &str = "id = \"team-label\"\nseverity = \"error\"\nsummary = \"metadata.labels.team is required\"\nmessage = \"{path} is missing\"\n";

#[test]
fn a_rule_file_that_is_not_toml() {
    let text = "id = \"team-label\"\nseverity = \"error\nsummary = \"x\"\n";
    let err = bad_rules(&[("team.toml", text)], "policies/team.toml", "2:18");
    insta::assert_snapshot!("rule_file_not_toml", err);
}

#[test]
fn a_rule_file_with_an_unknown_key() {
    let text =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nnon-empy = true\n");
    let err = bad_rules(&[("team.toml", &text)], "policies/team.toml", "8:1");
    assert!(err.contains("did you mean `non-empty`?"), "{err}");
    insta::assert_snapshot!("rule_file_unknown_key", err);
}

#[test]
fn a_rule_file_with_an_unknown_function() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"spec.resources.pools\"\nfunction = \"gpu-qota\"\n"
    );
    let err = bad_rules(&[("quota.toml", &text)], "policies/quota.toml", "8:12");
    assert!(err.contains("gpu-qota"), "{err}");
    insta::assert_snapshot!("rule_file_unknown_function", err);
}

#[test]
fn a_rule_file_with_a_bad_regex() {
    let text =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nmatches = '^[a-z+$'\n");
    let err = bad_rules(&[("team.toml", &text)], "policies/team.toml", "8:11");
    insta::assert_snapshot!("rule_file_bad_regex", err);
}

/// A pattern that parses but compiles past the size limit is refused when the rule file is
/// loaded, not on the first value it meets.
#[test]
fn a_rule_file_with_a_regex_over_the_size_limit() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nmatches = '^\\w{{5000}}$'\n"
    );
    let err = bad_rules(&[("team.toml", &text)], "policies/team.toml", "8:11");
    assert!(
        err.contains("bad regex") && err.contains("size limit"),
        "{err}"
    );
}

#[test]
fn a_rule_file_with_a_bad_selector() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"spec.resources.pools[*.name\"\npresent = true\n"
    );
    let err = bad_rules(&[("pools.toml", &text)], "policies/pools.toml", "7:");
    insta::assert_snapshot!("rule_file_bad_selector", err);
}

#[test]
fn two_rule_files_with_the_same_id() {
    let a =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nnon-empty = true\n");
    let b = format!("# a copy\n{a}");
    let err = bad_rules(&[("a.toml", &a), ("b.toml", &b)], "policies/b.toml", "2:6");
    assert!(
        err.contains("policies/a.toml"),
        "names the first definition: {err}"
    );
    insta::assert_snapshot!("rule_files_duplicate_id", err);
}

#[test]
fn a_rule_file_reusing_a_builtin_id() {
    let text = "id = \"owner-ignored\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n\n[[check]]\nselect = \"metadata.owner\"\nabsent = true\n";
    let err = bad_rules(&[("owner.toml", text)], "policies/owner.toml", "1:6");
    assert!(err.contains("owner-ignored"), "{err}");
}

#[test]
fn a_bad_rule_file_listed_by_the_config() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("forgelint.toml", "rules = [\"policies/\"]\n")
        .write(
            "policies/team.toml",
            format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nmatches = '('\n"),
        );
    let run = tree.run(&["--config", "forgelint.toml"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("policies/team.toml:8:11"),
        "{}",
        run.stderr
    );
}

/// A catalog or rule path in the config that is not a file to read says what it is, at once
/// (reading a device or a FIFO would never end or never start).
#[test]
fn a_config_path_that_is_not_a_regular_file_says_what_it_is() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .mkdir("folder")
        .mkfifo("pipe")
        .symlink("missing.toml", "dangling.toml");
    let _socket = std::os::unix::net::UnixListener::bind(tree.path("socket")).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("catalog", "folder", "catalog `./folder` is a directory"),
        (
            "catalog",
            "pipe",
            "catalog `./pipe` is a FIFO, not a regular file",
        ),
        (
            "catalog",
            "socket",
            "catalog `./socket` is a socket, not a regular file",
        ),
        (
            "catalog",
            "/dev/zero",
            "catalog `/dev/zero` is a character device, not a regular file",
        ),
        (
            "catalog",
            "/dev/urandom",
            "catalog `/dev/urandom` is a character device, not a regular file",
        ),
        (
            "catalog",
            "dangling.toml",
            "catalog `./dangling.toml` is a symbolic link to nothing",
        ),
        (
            "catalog",
            "nope.toml",
            "catalog `./nope.toml` does not exist",
        ),
        (
            "rules",
            "pipe",
            "rule path `./pipe` is a FIFO, not a regular file or folder",
        ),
        (
            "rules",
            "/dev/zero",
            "rule path `/dev/zero` is a character device, not a regular file or folder",
        ),
    ];
    for (key, value, message) in cases {
        let (config, position) = match *key {
            "catalog" => (
                format!("[platform]\ncatalog = \"{value}\"\n"),
                "forgelint.toml:2:11",
            ),
            _ => (format!("rules = [\"{value}\"]\n"), "forgelint.toml:1:10"),
        };
        tree.write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        run.expect_code(2);
        assert!(
            run.stderr.contains(message) && run.stderr.contains(position),
            "{key} = {value}: expected {message:?} at {position} in\n{}",
            run.stderr
        );
    }
}

/// A file that the config names outside its project (its folder) is never quoted: a config from
/// a pull request must not copy a file of the CI runner into a public log. Its error gives the
/// path and the position only; a file inside the project still gets its code frame.
#[test]
fn a_bad_file_named_by_the_config_outside_the_project_is_not_quoted() {
    let outside = Tree::new();
    outside
        // Not TOML: the frame would show the line.
        .write("first-line.toml", "SECRET: hunter2\n")
        // TOML, but not a catalog: the parser's message would quote the key or the value.
        .write("key.toml", "\n\nSECRET_hunter2 = 1\n")
        .write("value.json", "{\"recipe\": \"SECRET hunter2\"}\n")
        .write("rules/SECRET.toml", "hunter2 = 1\n");
    let far = |rel: &str| outside.path(rel).display().to_string();
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .symlink(&far("first-line.toml"), "linked.toml");
    let relative = format!(
        "../{}/key.toml",
        outside.root.file_name().unwrap().to_str().unwrap()
    );
    let cases = [
        (
            format!("[platform]\ncatalog = \"{}\"\n", far("first-line.toml")),
            format!("{}:1:", far("first-line.toml")),
        ),
        (
            format!("[platform]\ncatalog = \"{relative}\"\n"),
            format!("{relative}:3:1"),
        ),
        (
            format!("[platform]\ncatalog = \"{}\"\n", far("value.json")),
            format!("{}:1:", far("value.json")),
        ),
        (
            "[platform]\ncatalog = \"linked.toml\"\n".to_string(),
            "linked.toml:1:".to_string(),
        ),
        (
            format!("rules = [\"{}\"]\n", far("rules")),
            format!("{}:1:1", far("rules/SECRET.toml")),
        ),
    ];
    for (config, position) in &cases {
        tree.write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        run.expect_code(2);
        let stderr = run.stderr.replace(&far("rules/SECRET.toml"), "[RULE FILE]");
        assert!(
            !stderr.contains("hunter2") && !stderr.contains("SECRET"),
            "{config}: the file's text is shown:\n{stderr}"
        );
        assert!(
            run.stderr.contains(position.as_str()) && run.stderr.contains("outside the project"),
            "{config}: expected {position} in\n{}",
            run.stderr
        );
    }
    // Inside the project: the frame, as for the config itself.
    tree.write("catalog.toml", "SECRET: hunter2\n")
        .write("forgelint.toml", "[platform]\ncatalog = \"catalog.toml\"\n");
    let run = tree.run(&["--config", "forgelint.toml"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("SECRET: hunter2") && run.stderr.contains("catalog.toml:1:"),
        "{}",
        run.stderr
    );
}

/// Errors in the config and the files it names reach the terminal without a raw escape or
/// bidi control, in the message, the help, the label or the code frame.
#[test]
fn config_errors_carry_no_raw_control_characters() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "catalog.toml",
            "[[recipe]]\nname = \"x\"\nrequires = { core = \"\\u001b[2J\" }\n",
        )
        .write("policies/bad.toml", "\"\\u202e\\u009b31m\" = 1\n");
    let raw = |text: &str| {
        text.chars().find(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
    };
    for config in [
        // Raw in a comment: TOML refuses it, with a frame of that line.
        "# \u{1b}[2J\u{202e} comment\n[platform]\n",
        "[severity]\n\"\\u001b[2J\" = \"off\"\n",
        "[platform]\ncatalog = \"\\u001b[2Jnope\"\n",
        "[platform]\ncatalog = \"catalog.toml\"\n",
        "rules = [\"policies\"]\n",
    ] {
        tree.write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        run.expect_code(2);
        assert_eq!(raw(&run.stderr), None, "{config:?}:\n{}", run.stderr);
    }
}

/// A run killed while it wrote `-o` or `--write-baseline` leaves its temporary file; the next
/// write to that folder removes the temporaries of processes that are gone, and only those.
#[test]
fn temporary_files_of_dead_runs_are_removed_by_the_next_write() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").mkdir("out");
    let dead = {
        let mut child = Command::new("true").spawn().expect("true");
        let pid = child.id();
        child.wait().expect("true");
        pid
    };
    let live = std::process::id();
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let temp = |rel: &str, old: bool| {
        tree.write(rel, "partial");
        if old {
            std::fs::File::options()
                .write(true)
                .open(tree.path(rel))
                .and_then(|f| f.set_modified(an_hour_ago))
                .unwrap();
        }
    };
    temp(&format!("out/.report.json.{dead}.forgelint-tmp"), true);
    temp(&format!("out/.other.sarif.{dead}.forgelint-tmp"), true);
    // Kept: a live process's, one just written (it may belong to a run in another PID
    // namespace), names that are not ours, and a folder.
    temp(&format!("out/.report.json.{live}.forgelint-tmp"), true);
    temp(&format!("out/.fresh.json.{dead}.forgelint-tmp"), false);
    temp(&format!("out/.report.json.x{dead}.forgelint-tmp"), true);
    temp(&format!("out/.report.json.{dead}.forgelint-tmp.bak"), true);
    temp("out/.report.json.0.forgelint-tmp", true);
    tree.mkdir(&format!("out/.folder.{dead}.forgelint-tmp"));
    let entries = |dir: &str| {
        let mut names: Vec<String> = std::fs::read_dir(tree.path(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    tree.run(&["--no-config", "--format", "json", "-o", "out/report.json"])
        .expect_code(0);
    let mut expected = vec![
        format!(".fresh.json.{dead}.forgelint-tmp"),
        format!(".folder.{dead}.forgelint-tmp"),
        ".report.json.0.forgelint-tmp".to_string(),
        format!(".report.json.{dead}.forgelint-tmp.bak"),
        format!(".report.json.{live}.forgelint-tmp"),
        format!(".report.json.x{dead}.forgelint-tmp"),
        "report.json".to_string(),
    ];
    expected.sort();
    assert_eq!(entries("out"), expected);

    // The baseline goes through the same writer.
    temp(&format!("base/.baseline.json.{dead}.forgelint-tmp"), true);
    tree.run(&["--no-config", "--write-baseline", "base/baseline.json"])
        .expect_code(0);
    assert_eq!(entries("base"), ["baseline.json"]);
}

// ---------------------------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------------------------

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
    let root = tree.root.to_str().unwrap();
    let abs = tree.run(&["--no-config", "--format", "concise", root]);
    let abs_paths: Vec<String> = abs
        .paths()
        .iter()
        .map(|p| p.strip_prefix(&format!("{root}/")).unwrap_or(p).to_string())
        .collect();
    assert_eq!(abs_paths, run.paths());
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
    let name = tree.root.file_name().unwrap().to_str().unwrap();
    let config = format!("{name}/forgelint.toml");
    let outside = tree.root.parent().unwrap();
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

// ---------------------------------------------------------------------------------------------
// The project root (spec.source.exp)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Valid specs in unusual shapes
// ---------------------------------------------------------------------------------------------

#[test]
fn valid_specs_in_unusual_shapes_have_no_finding() {
    let spec = reference();
    let nested = format!("{}1{}", "{\"k\": ".repeat(1000), "}".repeat(1000));
    let variants: Vec<(&str, String)> = vec![
        ("reference.jobspec.json", spec.clone()),
        (
            "deep.jobspec.json",
            patch(
                &spec,
                "\"hyperparams\": {",
                &format!("\"hyperparams\": {{\"deep\": {nested}, "),
            ),
        ),
        (
            "deep-array.jobspec.json",
            patch(
                &spec,
                "\"hyperparams\": {",
                &format!(
                    "\"hyperparams\": {{\"grid\": {}{}, ",
                    "[".repeat(1000),
                    "]".repeat(1000)
                ),
            ),
        ),
        ("crlf.jobspec.json", spec.replace('\n', "\r\n")),
        ("minified.jobspec.json", minify(&spec)),
        (
            "minified-crlf-end.jobspec.json",
            format!("{}\r\n", minify(&spec)),
        ),
        (
            "non-ascii.jobspec.json",
            patch(
                &patch(
                    &spec,
                    r#""labels": { "team": "reasoning" }"#,
                    r#""labels": { "team": "推論", "チーム": "数学 🚀", "équipe": "raisonnement", "emoji": "👩‍👩‍👧", "κλειδί\u00e9": "ü" }"#,
                ),
                r#""name": "grpo-gsm8k-0412""#,
                r#""name": "grpo-数学-0412""#,
            ),
        ),
    ];
    assert_eq!(minify(&spec).lines().count(), 1);
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    for (name, text) in &variants {
        tree.write(name, text);
        for format in ["concise", "human"] {
            let run = tree.run(&["--no-config", "--format", format, name]);
            assert_eq!(
                (run.code, run.stdout.as_str()),
                (0, ""),
                "{name} (--format {format}) has findings:\n{}",
                run.stderr
            );
            assert_eq!(
                scrub_time(&run.stderr),
                "All clear: 1 file checked, no findings (TIME).\n"
            );
        }
    }
    // All at once, in parallel.
    let run = tree.run(&["--no-config", "-j", "4"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains(&format!("{} files checked", variants.len())),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------------

#[test]
fn positions_are_those_of_the_offending_key_or_value_in_utf16_columns() {
    // Line 7 holds CJK (1 UTF-16 unit, 3 bytes each) and emoji (2 units, 4 bytes each) before
    // the offending value and key: bytes, chars and UTF-16 units all differ.
    let spec = patch(
        &reference(),
        "\"owner\": \"\",\n    \"labels\": { \"team\": \"reasoning\" }",
        r#""labels": { "チーム": "推論🚀", "emoji": "👩‍👩‍👧" }, "owner": "bob", "colour": 1"#,
    );
    let owner = spec.find(r#""bob""#).unwrap();
    let colour = spec.find(r#""colour""#).unwrap();
    assert_eq!((line_of(&spec, owner), utf16_column(&spec, owner)), (7, 64));
    assert_eq!(
        (line_of(&spec, colour), utf16_column(&spec, colour)),
        (7, 71)
    );

    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("lf.jobspec.json", &spec)
        .write("crlf.jobspec.json", spec.replace('\n', "\r\n"));
    for name in ["lf.jobspec.json", "crlf.jobspec.json"] {
        let run = tree.run(&["--no-config", "--format", "concise", name]);
        run.expect_code(0);
        let got: Vec<(String, String)> = run
            .findings()
            .into_iter()
            .map(|f| (f.position, f.rule))
            .collect();
        assert_eq!(
            got,
            [
                ("7:64".to_string(), "owner-ignored".to_string()),
                ("7:71".to_string(), "unknown-field".to_string()),
            ],
            "{name}"
        );
        let human = tree.run(&["--no-config", name]);
        assert!(
            human.stdout.contains(&format!("{name}:7:64]")),
            "{}",
            human.stdout
        );
    }

    // One line: columns count UTF-16 units from the start of the file.
    let minified = minify(&patch(
        &spec,
        r#""git_dirty": false"#,
        r#""git_dirty": true"#,
    ));
    let dirty = minified.find("true").unwrap();
    tree.write("min.jobspec.json", &minified);
    let run = tree.run(&["--no-config", "--format", "concise", "min.jobspec.json"]);
    let got: Vec<(String, String)> = run
        .findings()
        .into_iter()
        .map(|f| (f.position, f.rule))
        .collect();
    let at = |offset: usize| format!("1:{}", utf16_column(&minified, offset));
    assert_eq!(
        got,
        [
            (
                at(minified.find(r#""bob""#).unwrap()),
                "owner-ignored".to_string()
            ),
            (
                at(minified.find(r#""colour""#).unwrap()),
                "unknown-field".to_string()
            ),
            (at(dirty), "git-dirty".to_string()),
        ]
    );

    // A duplicate key: the second one, after a line of emoji.
    let dup = patch(
        &reference(),
        r#""project": "my-lab","#,
        "\"project\": \"my-lab\",\n    \"note\": \"🚀🚀🚀\", \"project\": \"big-lab\",",
    );
    tree.write("dup.jobspec.json", &dup);
    let run = tree.run(&["--no-config", "--format", "concise", "dup.jobspec.json"]);
    run.expect_code(1);
    let second = dup.rfind(r#""project""#).unwrap();
    let findings = run.findings();
    let duplicate = findings
        .iter()
        .find(|f| f.rule == "duplicate-key")
        .unwrap_or_else(|| panic!("no duplicate-key in\n{}", run.stdout));
    assert_eq!(
        duplicate.position,
        format!("{}:{}", line_of(&dup, second), utf16_column(&dup, second))
    );
    assert_eq!(duplicate.position, "7:23");
}

// ---------------------------------------------------------------------------------------------
// Hostile and awkward content
// ---------------------------------------------------------------------------------------------

#[test]
fn human_output_of_a_minified_spec_shows_a_window() {
    let spec = minify(&patch(
        &patch(
            &patch(&reference(), r#""owner": """#, r#""owner": "alice""#),
            r#""git_dirty": false"#,
            r#""git_dirty": true"#,
        ),
        "\"hyperparams\": {",
        &format!("\"hyperparams\": {{\"blob\": \"{}\", ", "z".repeat(5000)),
    ));
    // A long value on a pretty-printed line is windowed too.
    let long = patch(
        &reference(),
        r#""owner": """#,
        &format!("\"owner\": \"{}\"", "é".repeat(5000)),
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("min.jobspec.json", &spec)
        .write("long.jobspec.json", &long);
    let run = tree.run(&["--no-config"]);
    run.expect_code(0);
    assert!(run.stdout.contains("min.jobspec.json:1:"), "{}", run.stdout);
    assert!(
        run.stdout.contains("1 │ …"),
        "the window starts with an ellipsis:\n{}",
        run.stdout
    );
    for line in run.stdout.lines() {
        assert!(
            line.chars().count() <= 200,
            "a {}-character line:\n{line}",
            line.chars().count()
        );
    }
    let frames = run.stdout.matches("╭─[").count();
    assert_eq!(frames, 3, "owner-ignored ×2, git-dirty:\n{}", run.stdout);
}

#[test]
fn hostile_values_never_reach_the_terminal_raw() {
    let spec = patch(
        &patch(
            &patch(
                &reference(),
                r#""name": "grpo-gsm8k-0412""#,
                r#""name": "grpo\u001b[2J""#,
            ),
            r#""owner": """#,
            "\"owner\": \"\\u001b]8;;x\\u0007click\\u001b]8;;\\u0007\", \"\u{202e}evil\": 1",
        ),
        r#""corpus": "alice/handbook@v1""#,
        "\"corpus\": \"/mnt/\u{202e}raw/\\u202eescaped\"",
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("hostile.jobspec.json", &spec)
        // Raw control characters: invalid JSON, but the code frame shows the line.
        .write(
            "raw.jobspec.json",
            "{\n  \"apiVersion\": \"forge/v2\u{1b}[2J\u{7}\",\n  \"kind\": 1\n}\n",
        )
        // A hostile file name.
        .write("evil\u{1b}[2J\u{202e}.jobspec.json", warning_only_spec());
    let forbidden = ['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}'];
    for format in ["human", "concise"] {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(1);
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            for c in forbidden {
                assert!(
                    !text.contains(c),
                    "--format {format}: raw U+{:04X} on {stream}:\n{text}",
                    c as u32
                );
            }
        }
        let out = &run.stdout;
        // The values are still there, escaped.
        for shown in [
            r#""grpo\u001b[2J""#,
            r#"\u001b]8;;x\u0007click\u001b]8;;\u0007"#,
            r#"/mnt/\u202eraw/\u202eescaped"#,
            "evil\\u001b[2J\\u202e.jobspec.json",
        ] {
            assert!(
                out.contains(shown),
                "--format {format}: {shown} not shown in\n{out}"
            );
        }
        assert!(out.contains("evil"), "the bidi key is named: {out}");
        let rules = [
            "name-format",
            "owner-ignored",
            "unknown-field",
            "corpus-host-path",
            "invalid-json",
        ];
        for rule in rules {
            assert!(
                out.contains(&format!("[{rule}]")),
                "--format {format}: no {rule} in\n{out}"
            );
        }
        if format == "human" {
            assert!(
                out.contains("forge/v2␛[2J␇"),
                "the frame shows pictures:\n{out}"
            );
        }
    }
}

#[test]
fn each_code_frame_is_headed_by_a_position_it_shows() {
    let second = r#"{
        "id": "bob/opsd-patch",
        "version": "0.9.0",
        "digest": "sha256:1a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
      }
    ]"#;
    let spec = patch(
        &reference(),
        "\n      }\n    ]",
        &format!("\n      }},\n      {second}"),
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", &spec);
    let run = tree.run(&["--no-config"]);
    run.expect_code(1);
    assert!(
        run.stdout.contains("[plugin-leaf-collision]"),
        "{}",
        run.stdout
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    let mut frames = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(header) = line.split("╭─[").nth(1) else {
            continue;
        };
        frames += 1;
        let mut parts = header.trim_end_matches(']').rsplitn(3, ':');
        let _col = parts.next();
        let row: u32 = parts.next().unwrap().parse().unwrap();
        let shown: Vec<u32> = lines[i + 1..]
            .iter()
            .take_while(|l| !l.contains('╰'))
            .filter_map(|l| l.split('│').next()?.trim().parse().ok())
            .collect();
        assert!(
            shown.contains(&row),
            "the frame headed {line:?} shows lines {shown:?}:\n{}",
            run.stdout
        );
    }
    assert_eq!(
        frames, 2,
        "the collision and the other plugin:\n{}",
        run.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// forgelint rules
// ---------------------------------------------------------------------------------------------

/// The built-in rules of the product contract, with their default severity.
const BUILTIN_RULES: [(&str, &str); 32] = [
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
    assert_eq!(listed, expected, "sorted by id, 32 rules");

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
