//! Shared by the test binaries: running the built binary under a watchdog.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_forgelint");

/// What a run of the binary left.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs forgelint with `args` in `cwd`, stdin empty; panics, after killing it, if it runs
/// longer than `watchdog` (a hang or a superlinear check, not a timing: the bound is generous).
pub fn run_within(cwd: &Path, args: &[&str], watchdog: Duration) -> Run {
    let out = tempfile::tempdir().expect("a temporary folder");
    let (stdout_path, stderr_path) = (out.path().join("stdout"), out.path().join("stderr"));
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("start forgelint");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for forgelint") {
            break status;
        }
        if started.elapsed() > watchdog {
            child.kill().ok();
            child.wait().ok();
            panic!("forgelint {args:?} did not finish within {watchdog:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |path: &Path| {
        String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
    };
    Run {
        code: status.code().expect("forgelint ended by a signal"),
        stdout: read(&stdout_path),
        stderr: read(&stderr_path),
    }
}
