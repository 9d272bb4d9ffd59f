//! The repository, read through the `git` program's plumbing: one `git log --raw -z` streams
//! the commits with the paths each changed (renames followed), one `git cat-file --batch` serves
//! every object asked for, `git ls-tree -r -z` lists a tip's files. Nothing here holds more than
//! one commit's changes and one object at a time.
//!
//! Why the program and not a library (gitoxide's `gix` 0.91, features trimmed to `sha1` and
//! `blob-diff`, which rename tracking needs), measured on the 10,000 commits and 5,000 specs of
//! `bench/history.py` on the 2-core machine, medians of 7 interleaved runs: walking the history
//! and reading every distinct version of the 10,862 takes 0.74 s (0.80 s of CPU) here against
//! 2.5 s (1.7 s of CPU) with `gix`; `gix` adds 74 crates to this crate's 95 (a cold release
//! build of the walk alone: 144 s of CPU, 6 min 45 s on the shared machine), 2.3 MB to the
//! binary, and needs Rust 1.95 where this crate needs 1.85. The program adds nothing, follows
//! the user's own git (its config, `.mailmap`, new repository formats) and is on every machine
//! that has a clone. What it costs: git must be on `PATH` (2.31 or newer), and its memory is
//! its own (45 MB on those 10,000 commits with the 16 MB delta cache set below, against 23 MB
//! for `gix`).
//!
//! Untrusted input: paths and names from the repository are data here, never arguments; a
//! revision is passed after `--end-of-options`, so one starting with `-` cannot be an option.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod log;
mod objects;
mod process;

pub use log::{Files, Log};
pub use objects::{is_lfs_pointer, EachObject, Kind, Object, Objects, TreeEntries};
use process::Process;

/// The oldest git whose plumbing does all this module asks (`--diff-merges=first-parent`).
pub const MIN_GIT: (u32, u32) = (2, 31);

/// Why the repository could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run `git` ({0}): forgelint reads history through the git program")]
    NoGit(io::Error),
    #[error("git {found} is too old: forgelint needs git {}.{} or newer", MIN_GIT.0, MIN_GIT.1)]
    TooOld { found: String },
    #[error("{dir} is not in a git repository: {message}")]
    NotARepository { dir: String, message: String },
    #[error("`git {command}` failed: {message}")]
    Failed { command: String, message: String },
    #[error("reading from `git {command}`: {source}")]
    Io {
        command: String,
        #[source]
        source: io::Error,
    },
    #[error("unexpected output from `git {command}`: {what}")]
    Parse { command: String, what: String },
}

/// An object id: 20 bytes (SHA-1) or 32 (SHA-256).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Oid {
    len: u8,
    bytes: [u8; 32],
}

impl Oid {
    /// Parses 40 or 64 hexadecimal digits.
    pub fn from_hex(hex: &[u8]) -> Option<Oid> {
        if hex.len() != 40 && hex.len() != 64 {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, pair) in hex.chunks_exact(2).enumerate() {
            let digit = |c: u8| (c as char).to_digit(16);
            bytes[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Some(Oid {
            len: (hex.len() / 2) as u8,
            bytes,
        })
    }

    /// From the raw bytes of a tree entry.
    pub fn from_bytes(raw: &[u8]) -> Option<Oid> {
        if raw.len() != 20 && raw.len() != 32 {
            return None;
        }
        let mut bytes = [0u8; 32];
        bytes[..raw.len()].copy_from_slice(raw);
        Some(Oid {
            len: raw.len() as u8,
            bytes,
        })
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The all-zero id that raw diffs print for "no object" (the old side of an addition).
    pub fn is_null(&self) -> bool {
        self.as_bytes().iter().all(|&b| b == 0)
    }

    /// The first `n` hexadecimal digits, as `git log --oneline` shows a commit.
    pub fn short(&self, n: usize) -> String {
        let mut s = self.to_string();
        s.truncate(n);
        s
    }
}

impl fmt::Display for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Oid({self})")
    }
}

/// What a tree entry is, from its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A regular file (`100644`, or `100755` when executable).
    File,
    /// A symbolic link (`120000`): its blob is the link's target, not a file's text.
    Link,
    /// A submodule (`160000`): a commit of another repository, whose history is not here.
    Submodule,
    Tree,
    /// Absent: the old side of an addition, the new side of a deletion.
    None,
    Other(u32),
}

impl Mode {
    fn parse(octal: &[u8]) -> Option<Mode> {
        let text = std::str::from_utf8(octal).ok()?;
        Some(match u32::from_str_radix(text, 8).ok()? {
            0 => Mode::None,
            0o100644 | 0o100755 | 0o100664 => Mode::File,
            0o120000 => Mode::Link,
            0o160000 => Mode::Submodule,
            0o040000 => Mode::Tree,
            other => Mode::Other(other),
        })
    }
}

/// One side of a changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The path from the repository's top, `/`-separated. A path that is not UTF-8 is shown
    /// with replacement characters (objects are read by id, never by this path).
    pub path: String,
    pub mode: Mode,
    pub id: Oid,
}

/// What a commit did to one path, against its first parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added(Side),
    Deleted(Side),
    /// The content or the mode changed (a file that became a link is `Modified` too).
    Modified {
        old: Side,
        new: Side,
    },
    /// Moved, with `similarity` percent of the content kept (100: moved unchanged).
    Renamed {
        old: Side,
        new: Side,
        similarity: u8,
    },
}

impl Change {
    /// The side before the commit, if the path existed.
    pub fn before(&self) -> Option<&Side> {
        match self {
            Change::Added(_) => None,
            Change::Deleted(old) | Change::Modified { old, .. } | Change::Renamed { old, .. } => {
                Some(old)
            }
        }
    }

    /// The side after the commit, if the path still exists.
    pub fn after(&self) -> Option<&Side> {
        match self {
            Change::Deleted(_) => None,
            Change::Added(new) | Change::Modified { new, .. } | Change::Renamed { new, .. } => {
                Some(new)
            }
        }
    }
}

/// A commit as the history audit needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub id: Oid,
    /// Its root tree.
    pub tree: Oid,
    pub parents: Vec<Oid>,
    /// The author date: seconds since the epoch, and strict ISO 8601 with the author's offset.
    pub time: i64,
    pub date: String,
    /// The author's name and e-mail address, after the repository's `.mailmap`.
    pub author: String,
    pub email: String,
    /// The paths changed against the first parent (against nothing for a root commit).
    pub changes: Vec<Change>,
}

/// The commits to read: revisions as `git log` takes them (`main`, `v1..HEAD`, `^old`,
/// `a...b`), or every ref.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Range {
    pub revs: Vec<String>,
    /// Every branch, tag and remote-tracking branch (`--all`).
    pub all: bool,
}

impl Range {
    /// `HEAD`'s history, the default.
    pub fn head() -> Range {
        Range {
            revs: vec!["HEAD".to_string()],
            all: false,
        }
    }

    fn args(&self) -> Vec<&str> {
        let mut args = Vec::new();
        if self.all {
            args.push("--all");
        }
        args.push("--end-of-options");
        args.extend(self.revs.iter().map(String::as_str));
        if self.revs.is_empty() && !self.all {
            args.push("HEAD");
        }
        args
    }
}

/// An opened repository: where it is and what kind.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The folder git runs in (a work tree, or the repository itself when bare).
    dir: PathBuf,
    pub git_dir: PathBuf,
    pub bare: bool,
    /// The commits where a shallow clone's history stops: their parents are not in the clone.
    pub shallow: Vec<Oid>,
}

/// A git command in `dir`: no pager, no prompt, no optional locks (we only read), and a delta
/// cache of 16 MB instead of 96 (`git log` then peaks at 45 MB instead of 143 on the 10,000
/// commits of `bench/history.py`, no slower).
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .args(["--no-pager", "-c", "core.deltaBaseCacheLimit=16m", "-C"])
        .arg(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null());
    command
}

/// Runs a short git command to its end; its stdout, or its stderr as the error.
fn output(dir: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let out = git(dir).args(args).output().map_err(GitError::NoGit)?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(GitError::Failed {
            command: args.first().copied().unwrap_or_default().to_string(),
            message: first_lines(&out.stderr),
        })
    }
}

/// A git process's stderr, shortened for a message.
fn first_lines(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    if lines.is_empty() {
        lines.push("no message");
    }
    lines.join("; ")
}

/// A path git printed: its bytes as they are on Unix, UTF-8 elsewhere (git for Windows
/// prints paths in UTF-8).
#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// `git --version`'s numbers, `(2, 47)` for "git version 2.47.3".
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let numbers = text.trim().strip_prefix("git version ")?;
    let mut parts = numbers.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

impl Repo {
    /// Opens the repository holding `dir` (a work tree, a folder in one, or a bare repository).
    pub fn open(dir: &Path) -> Result<Repo, GitError> {
        let version = git(dir)
            .arg("--version")
            .output()
            .map_err(GitError::NoGit)?;
        let version = String::from_utf8_lossy(&version.stdout).into_owned();
        if parse_version(&version).is_none_or(|v| v < MIN_GIT) {
            return Err(GitError::TooOld {
                found: version
                    .trim()
                    .trim_start_matches("git version ")
                    .to_string(),
            });
        }
        let out = git(dir)
            .args([
                "rev-parse",
                "--is-bare-repository",
                "--is-shallow-repository",
                "--absolute-git-dir",
                "--git-path",
                "shallow",
            ])
            .output()
            .map_err(GitError::NoGit)?;
        if !out.status.success() {
            return Err(GitError::NotARepository {
                dir: dir.display().to_string(),
                message: first_lines(&out.stderr),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let [bare, shallow, git_dir, shallow_file] = lines[..] else {
            return Err(GitError::Parse {
                command: "rev-parse".into(),
                what: format!("{} lines instead of 4", lines.len()),
            });
        };
        let git_dir = PathBuf::from(git_dir);
        let mut repo = Repo {
            dir: dir.to_path_buf(),
            git_dir,
            bare: bare == "true",
            shallow: Vec::new(),
        };
        if shallow == "true" {
            // `--git-path` is relative to where git ran, unless absolute.
            let file = dir.join(shallow_file);
            let listed = std::fs::read(&file).map_err(|source| GitError::Io {
                command: "rev-parse --git-path shallow".into(),
                source,
            })?;
            repo.shallow = listed
                .split(|&b| b == b'\n')
                .filter_map(|line| Oid::from_hex(line.trim_ascii()))
                .collect();
            repo.shallow.sort_unstable();
        }
        Ok(repo)
    }

    /// Whether history stops at `commit` (a shallow clone's boundary).
    pub fn is_boundary(&self, commit: &Oid) -> bool {
        self.shallow.binary_search(commit).is_ok()
    }

    /// The commit `rev` names.
    pub fn resolve(&self, rev: &str) -> Result<Oid, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let out = output(
            &self.dir,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ],
        )
        .map_err(|_| GitError::Failed {
            command: "rev-parse".into(),
            message: format!("{rev:?} names no commit of this repository"),
        })?;
        Oid::from_hex(out.trim_ascii()).ok_or_else(|| GitError::Parse {
            command: "rev-parse".into(),
            what: "not an object id".into(),
        })
    }

    /// The commits the range starts from: what is still there "at the tip".
    pub fn tips(&self, range: &Range) -> Result<Vec<Oid>, GitError> {
        // Not `--revs-only`, which drops what is not a revision without a word; `--` makes
        // each argument a revision, so a misspelt one is an error.
        let mut args = vec!["rev-parse"];
        args.extend(range.args());
        args.push("--");
        let out = output(&self.dir, &args)?;
        let mut tips: Vec<Oid> = out
            .split(|&b| b == b'\n')
            .filter(|line| !line.starts_with(b"^"))
            .filter_map(|line| Oid::from_hex(line.trim_ascii()))
            .collect();
        tips.sort_unstable();
        tips.dedup();
        Ok(tips)
    }

    /// The range's commits, oldest first (parents before children), each with its changes
    /// against its first parent, renames followed. `paths` limits the changes (and the commits)
    /// to those pathspecs; empty: every path.
    ///
    /// Streams: git lists the commits it will show before it shows the first, oldest first
    /// (about 100 bytes a commit, in git's memory), and nothing here holds more than one.
    pub fn log(&self, range: &Range, paths: &[String]) -> Result<Log, GitError> {
        let mut command = git(&self.dir);
        command.args([
            "log",
            "-z",
            "--raw",
            "--no-abbrev",
            "--root",
            "-M",
            "--diff-merges=first-parent",
            "--topo-order",
            "--reverse",
            "--no-color",
            "--no-show-signature",
            "--format=%x01%H %T %P%x00%at %aI%x00%aN%x00%aE%x00",
        ]);
        command.args(range.args());
        command.arg("--");
        command.args(paths);
        let process = Process::spawn(command, "log")?;
        Ok(Log::new(process))
    }

    /// The work tree's top folder; `None` in a bare repository.
    pub fn top_level(&self) -> Result<Option<PathBuf>, GitError> {
        if self.bare {
            return Ok(None);
        }
        let out = output(&self.dir, &["rev-parse", "--show-toplevel"])?;
        let line = out.strip_suffix(b"\n").unwrap_or(&out);
        Ok(Some(path_from_bytes(line)))
    }

    /// How the tracked files of the work tree differ from `commit`'s tree (renames followed):
    /// each change's old side is the file at `commit`. Files the diff does not name are as
    /// they were at `commit`, or not tracked.
    pub fn changes_since(&self, commit: &Oid) -> Result<Vec<Change>, GitError> {
        let mut command = git(&self.dir);
        command.args([
            "diff",
            "--raw",
            "-z",
            "--no-abbrev",
            "-M",
            "--no-relative",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "--ignore-submodules=all",
        ]);
        command.arg(commit.to_string()).arg("--");
        let mut process = Process::spawn(command, "diff")?;
        let mut changes = Vec::new();
        let (mut token, mut meta) = (Vec::new(), Vec::new());
        while process.token(&mut token)? {
            if token.is_empty() {
                continue;
            }
            if token.first() != Some(&b':') {
                return Err(process.parse("a change line that does not start with ':'"));
            }
            meta.clone_from(&token);
            changes.extend(log::parse_change(&mut process, &mut token, &meta)?);
        }
        process.finish()?;
        Ok(changes)
    }

    /// A reader of objects by id or by `rev:path`.
    pub fn objects(&self) -> Result<Objects, GitError> {
        let mut command = git(&self.dir);
        command.args(["cat-file", "--batch"]);
        Ok(Objects::new(Process::spawn_with_input(
            command, "cat-file",
        )?))
    }

    /// The files of `commit`'s tree, recursively (submodules and links included, with their
    /// modes). No pathspecs: `ls-tree` reads an option among the paths after the tree, so a
    /// path could be one.
    pub fn files(&self, commit: &Oid) -> Result<Files, GitError> {
        let mut command = git(&self.dir);
        command.args(["ls-tree", "-r", "-z", "--full-tree"]);
        command.arg(commit.to_string());
        let process = Process::spawn(command, "ls-tree")?;
        Ok(Files::new(process))
    }
}

#[cfg(test)]
mod tests;
