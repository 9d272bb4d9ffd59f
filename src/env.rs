//! What a run is given and what it ends with: the process's streams and surroundings, and the
//! exit status.

use std::io::{Read, Write};
use std::path::PathBuf;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// No finding at or above `--fail-on`.
    Success = 0,
    /// Findings at or above `--fail-on`.
    Failure = 1,
    /// The tool could not do its job.
    Error = 2,
}

/// The process's surroundings, injectable so tests run in-process.
pub struct Env<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    pub stdin: &'a mut dyn Read,
    pub stdout_is_terminal: bool,
    /// `NO_COLOR` is set (to anything non-empty).
    pub no_color: bool,
    pub cwd: PathBuf,
    /// Terminal width for code frames.
    pub width: usize,
}
