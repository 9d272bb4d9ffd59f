//! `forgelint history` and `check --new-from-rev` on repositories written here with
//! `git fast-import` (fixed authors and dates, so the same commits every run): the commits
//! that introduced and removed each finding, secrets masked in every format, renames
//! followed, each format's output, and the clones that are not plain (bare, shallow, with
//! submodules or LFS pointers).

use crate::common;

mod clones;
mod done_when;
mod formats;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{reference, Run, Tree};

/// What one commit does.
pub enum Op {
    /// Writes a file (a regular file, `100644`).
    Write(String, String),
    /// Points a path at a commit of another repository (a submodule, `160000`).
    Submodule(String, String),
    Delete(String),
    Rename(String, String),
}

pub fn write(path: &str, text: impl Into<String>) -> Op {
    Op::Write(path.into(), text.into())
}

pub fn delete(path: &str) -> Op {
    Op::Delete(path.into())
}

pub fn rename(from: &str, to: &str) -> Op {
    Op::Rename(from.into(), to.into())
}

const AUTHORS: [(&str, &str); 3] = [
    ("Ada Lovelace", "ada@lab.example"),
    ("Alan Turing", "alan@lab.example"),
    ("Grace Hopper", "grace@lab.example"),
];

/// 2024-01-01T00:00:00Z; commits are nine hours apart, so a few hundred span months.
const START: u64 = 1_704_067_200;

/// `git` with no user or system config, so the machine's settings play no part.
pub fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0");
    command
}

#[track_caller]
pub fn run_git(dir: &Path, args: &[&str]) -> String {
    let out = git(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `commits` to a new repository in `tree` (one line of history on `main`, checked
/// out) and returns each commit's id, in order.
pub fn build(tree: &Tree, commits: &[Vec<Op>]) -> Vec<String> {
    let root = tree.root();
    run_git(root, &["init", "-q", "-b", "main"]);
    let mut stream = Vec::new();
    for (i, ops) in commits.iter().enumerate() {
        let (name, email) = AUTHORS[i % AUTHORS.len()];
        let when = START + i as u64 * 9 * 3600;
        let message = format!("Commit {i}\n");
        write!(
            stream,
            "commit refs/heads/main\nmark :{}\nauthor {name} <{email}> {when} +0000\ncommitter {name} <{email}> {when} +0000\ndata {}\n{message}",
            i + 1,
            message.len()
        )
        .unwrap();
        if i > 0 {
            writeln!(stream, "from :{i}").unwrap();
        }
        for op in ops {
            match op {
                Op::Write(path, text) => write!(
                    stream,
                    "M 100644 inline {path}\ndata {}\n{text}\n",
                    text.len()
                )
                .unwrap(),
                Op::Submodule(path, commit) => {
                    writeln!(stream, "M 160000 {commit} {path}").unwrap()
                }
                Op::Delete(path) => writeln!(stream, "D {path}").unwrap(),
                Op::Rename(from, to) => writeln!(stream, "R {from} {to}").unwrap(),
            }
        }
        writeln!(stream).unwrap();
    }
    let marks = root.join(".git/test-marks");
    let mut child = git(root)
        .args(["fast-import", "--quiet"])
        .arg(format!("--export-marks={}", marks.display()))
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import runs");
    child.stdin.take().unwrap().write_all(&stream).unwrap();
    assert!(child.wait().unwrap().success(), "git fast-import failed");
    run_git(root, &["checkout", "-q", "-f", "main"]);
    let listed = std::fs::read_to_string(&marks).unwrap();
    std::fs::remove_file(&marks).unwrap();
    let mut ids: Vec<(usize, String)> = listed
        .lines()
        .map(|l| {
            let (mark, id) = l.split_once(' ').unwrap();
            (mark[1..].parse().unwrap(), id.to_string())
        })
        .collect();
    ids.sort();
    ids.into_iter().map(|(_, id)| id).collect()
}

/// Commits one more change to the work tree of `tree`, as `git commit -a` would.
pub fn commit_all(tree: &Tree, message: &str) -> String {
    run_git(tree.root(), &["add", "-A"]);
    run_git(
        tree.root(),
        &[
            "-c",
            "user.name=Edsger Dijkstra",
            "-c",
            "user.email=edsger@lab.example",
            "commit",
            "-q",
            "-m",
            message,
        ],
    );
    run_git(tree.root(), &["rev-parse", "HEAD"])
        .trim()
        .to_string()
}

/// The experiment every spec names, with the hyperparameter the reference spec sets.
pub const CONFIG: &str = "policy:\n  optimizer:\n    kwargs:\n      lr: 1.0e-6\nlogger:\n  project: my-lab\ncheckpointing:\n  keep_top_k: 3\n";

pub const TRAIN_PY: &str = "import os\n\n\ndef main():\n    print(os.environ.get(\"RUN_ID\"))\n";

/// A Hugging Face token, as the secret rule knows them: `hf_` and 34 letters.
pub const TOKEN: &str = "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";

/// The config with the token in it.
pub fn config_with_token() -> String {
    CONFIG.replace(
        "checkpointing:",
        &format!("hub_token: {TOKEN}\ncheckpointing:"),
    )
}

/// The reference spec with its learning rate set to `lr` (an edit that is no fault).
pub fn spec_with_lr(lr: &str) -> String {
    common::patch(
        &reference(),
        "\"policy.optimizer.kwargs.lr\": 1e-6",
        &format!("\"policy.optimizer.kwargs.lr\": {lr}"),
    )
}

/// The first commit of every history here: the experiment and `n` valid specs.
pub fn start(n: usize) -> Vec<Op> {
    let mut ops = vec![
        write("experiments/my-grpo/config.yaml", CONFIG),
        write("experiments/my-grpo/train.py", TRAIN_PY),
    ];
    for k in 0..n {
        ops.push(write(&spec(k), reference()));
    }
    ops
}

/// The path of spec `k`.
pub fn spec(k: usize) -> String {
    format!("specs/run-{k:03}.jobspec.json")
}

/// The JSON findings of a run, with `introduced` and `removed` as commit ids.
pub fn commits_of(run: &Run) -> Vec<(String, String, Option<String>, Option<String>)> {
    let doc = run.json();
    let commit = |v: &serde_json::Value| v["commit"].as_str().map(String::from);
    let mut found: Vec<_> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
                commit(&f["introduced"]),
                commit(&f["removed"]),
            )
        })
        .collect();
    found.sort();
    found
}
