//! A running git: its output read as a stream, its stderr kept for the error message.

use std::io::{self, BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;

use super::{first_lines, GitError};

/// What stderr of a git process is kept for an error message.
const STDERR_KEPT: usize = 16 * 1024;

/// A running git whose stdout is read as a stream, with its stderr collected on a thread (git
/// may warn once a commit; a full pipe would stall it).
pub(super) struct Process {
    pub(super) child: Child,
    pub(super) stdout: BufReader<ChildStdout>,
    pub(super) stderr: Option<JoinHandle<Vec<u8>>>,
    pub(super) name: String,
}

impl Process {
    pub(super) fn spawn(mut command: Command, name: &str) -> Result<Process, GitError> {
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        Process::start(command, name)
    }

    pub(super) fn spawn_with_input(mut command: Command, name: &str) -> Result<Process, GitError> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Process::start(command, name)
    }

    fn start(mut command: Command, name: &str) -> Result<Process, GitError> {
        let mut child = command.spawn().map_err(GitError::NoGit)?;
        let stdout = child
            .stdout
            .take()
            .map(|s| BufReader::with_capacity(64 * 1024, s));
        let stderr = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let mut chunk = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    let room = STDERR_KEPT.saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..n.min(room)]);
                }
                kept
            })
        });
        let Some(stdout) = stdout else {
            return Err(GitError::Parse {
                command: name.into(),
                what: "no output stream".into(),
            });
        };
        Ok(Process {
            child,
            stdout,
            stderr,
            name: name.into(),
        })
    }

    pub(super) fn io(&self, source: io::Error) -> GitError {
        GitError::Io {
            command: self.name.clone(),
            source,
        }
    }

    pub(super) fn parse(&self, what: impl Into<String>) -> GitError {
        GitError::Parse {
            command: self.name.clone(),
            what: what.into(),
        }
    }

    /// Waits for the end: what git said on stderr, or an error with its words when it failed.
    pub(super) fn finish(&mut self) -> Result<String, GitError> {
        let status = self.child.wait().map_err(|e| self.io(e))?;
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if status.success() {
            Ok(String::from_utf8_lossy(&stderr).into_owned())
        } else {
            Err(GitError::Failed {
                command: self.name.clone(),
                message: first_lines(&stderr),
            })
        }
    }

    /// The next NUL-terminated token into `token` (without the NUL); false at the end.
    pub(super) fn token(&mut self, token: &mut Vec<u8>) -> Result<bool, GitError> {
        token.clear();
        let n = self.stdout.read_until(0, token).map_err(|e| GitError::Io {
            command: self.name.clone(),
            source: e,
        })?;
        if n == 0 {
            return Ok(false);
        }
        if token.last() == Some(&0) {
            token.pop();
        }
        Ok(true)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Stopped early (an error, or the caller had enough): do not leave git running.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
