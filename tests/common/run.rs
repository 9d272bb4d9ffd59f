//! Running the built binary: one runner with a watchdog, and what a run left.
//!
//! Every run uses `NO_COLOR=1`, `COLUMNS=80` and a fixed working directory, runs in its own
//! process group under a watchdog (a hang — on a FIFO, say — fails the test instead of blocking
//! the suite), and must leave UTF-8 output free of a panic message and of raw control, escape
//! and bidi characters.

use std::ffi::OsString;
use std::io::{Read, Write};
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_forgelint");
/// Generous: a debug build on a loaded machine. A hang is caught all the same.
pub const TIMEOUT: Duration = Duration::from_secs(90);

/// What the binary reads as standard input.
#[derive(Default, Clone)]
pub enum Input {
    /// /dev/null.
    #[default]
    Null,
    /// These bytes, through a pipe.
    Bytes(Vec<u8>),
    /// This file.
    File(PathBuf),
}

/// How to run the binary, beyond its arguments and working directory.
#[derive(Default, Clone)]
pub struct Extra {
    pub env: Vec<(String, String)>,
    pub stdin: Input,
    /// A command the binary is run under (its last argument is followed by the binary's path).
    pub wrapper: Vec<String>,
    /// Measure the peak resident set size.
    pub measure: bool,
    /// A panic is expected to be caught (FORGELINT_PANIC_ON): its hook message may appear.
    pub contained_panic: bool,
    /// Instead of [`TIMEOUT`].
    pub timeout: Option<Duration>,
}

/// What a run of the binary left.
#[derive(Debug)]
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// Peak RSS in KiB, when measured.
    pub peak_rss_kb: Option<u64>,
}

fn reader<R: Read + Send + 'static>(mut pipe: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

/// Characters no output may carry raw: C0 controls but tab and newline, DEL, C1 controls, bidi
/// controls, and the Unicode line and paragraph separators.
pub fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
            | '\u{2028}' | '\u{2029}')
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs forgelint in `cwd`; fails the test on a hang, a signal, a panic message, output that is
/// not UTF-8 or output that carries a raw control character.
pub fn forgelint(cwd: &Path, args: &[&str], extra: &Extra) -> Run {
    let time = Path::new("/usr/bin/time");
    let time_file =
        (extra.measure && time.exists()).then(|| tempfile::NamedTempFile::new().unwrap());
    let mut argv: Vec<OsString> = extra.wrapper.iter().map(OsString::from).collect();
    if let Some(f) = &time_file {
        argv.extend([time.into(), "-v".into(), "-o".into(), f.path().into()]);
    }
    argv.push(BIN.into());
    argv.extend(args.iter().map(OsString::from));
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .env_remove("FORGELINT_PANIC_ON")
        .env_remove("RUST_BACKTRACE")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        // On a GitHub runner it is the suite's own checkout: GitHub and SARIF paths would be
        // named from it. A test that wants it sets it.
        .env_remove("GITHUB_WORKSPACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so the watchdog kills a wrapper and the binary alike.
    #[cfg(unix)]
    cmd.process_group(0);
    for (k, v) in &extra.env {
        cmd.env(k, v);
    }
    cmd.stdin(match &extra.stdin {
        Input::Null => Stdio::null(),
        Input::Bytes(_) => Stdio::piped(),
        Input::File(p) => {
            Stdio::from(std::fs::File::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        }
    });
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {argv:?}: {e}"));
    let pid = child.id();
    let writer = match &extra.stdin {
        Input::Bytes(bytes) => {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            let bytes = bytes.clone();
            Some(thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            }))
        }
        _ => None,
    };
    let out = reader(child.stdout.take().expect("stdout is piped"));
    let err = reader(child.stderr.take().expect("stderr is piped"));
    let mut polled_hwm = None;
    let timeout = extra.timeout.unwrap_or(TIMEOUT);
    let status = loop {
        if extra.measure && time_file.is_none() {
            polled_hwm = vm_hwm_kb(pid).or(polled_hwm);
        }
        match child.try_wait().expect("waiting for forgelint") {
            Some(status) => break status,
            None if started.elapsed() >= timeout => {
                #[cfg(unix)]
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{pid}")])
                    .status();
                #[cfg(not(unix))]
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "forgelint {args:?} in {} did not finish within {timeout:?}",
                    cwd.display()
                );
            }
            None => thread::sleep(Duration::from_millis(5)),
        }
    };
    let elapsed = started.elapsed();
    if let Some(w) = writer {
        w.join().expect("stdin writer");
    }
    let stdout = String::from_utf8(out.join().expect("stdout reader"))
        .unwrap_or_else(|e| panic!("forgelint {args:?}: stdout is not UTF-8: {e}"));
    let stderr = String::from_utf8(err.join().expect("stderr reader"))
        .unwrap_or_else(|e| panic!("forgelint {args:?}: stderr is not UTF-8: {e}"));
    let mut peak_rss_kb = polled_hwm;
    if let Some(f) = &time_file {
        let report = std::fs::read_to_string(f.path()).unwrap();
        assert!(
            !report.contains("terminated by signal"),
            "forgelint {args:?} was killed: {report}\n{stderr}"
        );
        peak_rss_kb = report
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|n| n.trim().parse().ok());
    }
    let code = status.code().unwrap_or_else(|| {
        panic!("forgelint {args:?} was killed by a signal: {status:?}\n{stderr}")
    });
    if extra.contained_panic {
        assert_eq!(
            stderr.matches("internal error").count(),
            stderr.matches("FORGELINT_PANIC_ON matched").count(),
            "forgelint {args:?}: a panic other than the test's:\n{stderr}"
        );
    } else {
        assert!(
            !stderr.contains("panicked") && !stderr.contains("internal error"),
            "forgelint {args:?} panicked:\n{stderr}"
        );
    }
    for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        if let Some((at, c)) = text.char_indices().find(|&(_, c)| forbidden(c)) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(60)
                .map_or(0, |(i, _)| i);
            panic!(
                "forgelint {args:?}: raw U+{:04X} on {stream} near {:?}",
                c as u32,
                &text[from..(at + 8).min(text.len())]
            );
        }
    }
    Run {
        args: args.iter().map(|s| s.to_string()).collect(),
        code,
        stdout,
        stderr,
        elapsed,
        peak_rss_kb,
    }
}

/// Runs forgelint in `cwd` with `args`, stdin empty.
pub fn run_in(cwd: &Path, args: &[&str]) -> Run {
    forgelint(cwd, args, &Extra::default())
}

/// Runs forgelint in `cwd` with `args`, feeding `stdin` (or nothing: stdin is /dev/null).
pub fn run_full(cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let extra = Extra {
        stdin: stdin.map_or(Input::Null, |b| Input::Bytes(b.to_vec())),
        ..Extra::default()
    };
    forgelint(cwd, args, &extra)
}

/// Runs forgelint with `args` in `cwd`, stdin empty, under a watchdog of its own (a hang or a
/// superlinear check, not a timing: the bound is generous).
pub fn run_within(cwd: &Path, args: &[&str], watchdog: Duration) -> Run {
    let extra = Extra {
        timeout: Some(watchdog),
        ..Extra::default()
    };
    forgelint(cwd, args, &extra)
}

/// One line of concise output: `path:line:col: severity[rule] message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub path: String,
    /// `line:col`
    pub position: String,
    pub severity: String,
    pub rule: String,
    pub message: String,
}

impl Finding {
    pub fn parse(line: &str) -> Finding {
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

impl Run {
    /// Asserts the exit code, showing the whole run when it differs.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "forgelint {:?}: unexpected exit code\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.args, self.stdout, self.stderr
        );
        self
    }

    /// The findings of concise output.
    pub fn findings(&self) -> Vec<Finding> {
        self.stdout.lines().map(Finding::parse).collect()
    }

    /// The concise findings of one file.
    pub fn findings_of(&self, path: &str) -> Vec<Finding> {
        self.findings()
            .into_iter()
            .filter(|f| f.path == path)
            .collect()
    }

    /// The distinct paths of the findings of concise output, sorted.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.findings().into_iter().map(|f| f.path).collect();
        paths.dedup();
        paths
    }

    /// The rules of the findings of concise output, in order.
    pub fn rules(&self) -> Vec<String> {
        self.findings().into_iter().map(|f| f.rule).collect()
    }

    /// stdout as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("forgelint {:?}: not JSON: {e}\n{}", self.args, self.stdout))
    }

    /// The JSON findings of one file.
    pub fn json_of(&self, path: &str) -> Vec<Value> {
        self.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["path"] == path)
            .cloned()
            .collect()
    }

    /// The longest line of stdout, in characters.
    pub fn longest_line(&self) -> usize {
        self.stdout
            .lines()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    }
}

/// `stderr` without the notes on rules skipped for want of context (`--no-config` gives none):
/// for tests about the lines that follow them.
pub fn without_skip_notes(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !(l.starts_with("note: ") && l.contains(" skipped: ")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The run time in the summary line, the only thing that changes between runs.
pub fn scrub_time(text: &str) -> String {
    static TIME: OnceLock<regex::Regex> = OnceLock::new();
    TIME.get_or_init(|| regex::Regex::new(r"\(\d+(\.\d+)? (ms|s)\)").unwrap())
        .replace_all(text, "(TIME)")
        .into_owned()
}
