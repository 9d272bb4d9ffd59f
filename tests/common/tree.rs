//! A temporary project tree the binary is run in.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::run::{forgelint, run_full, run_in, scrub_time, Extra, Run};
use super::spec::reference;

/// A temporary directory tree, canonical (the binary sees the same path as its cwd).
pub struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    pub fn new() -> Tree {
        let dir = tempfile::Builder::new()
            .prefix("forgelint-test-")
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

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> &Tree {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self
    }

    pub fn mkdir(&self, rel: impl AsRef<Path>) -> &Tree {
        std::fs::create_dir_all(self.path(rel)).unwrap();
        self
    }

    /// A symbolic link at `link` (its parents created) pointing at `target`.
    pub fn symlink(&self, target: impl AsRef<Path>, link: impl AsRef<Path>) -> &Tree {
        let path = self.path(link);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &path).unwrap();
        #[cfg(windows)]
        {
            let target = target.as_ref();
            let resolved = path.parent().unwrap_or(Path::new("")).join(target);
            if resolved.is_dir() {
                std::os::windows::fs::symlink_dir(target, &path).unwrap();
            } else {
                std::os::windows::fs::symlink_file(target, &path).unwrap();
            }
        }
        self
    }

    pub fn mkfifo(&self, rel: impl AsRef<Path>) -> &Tree {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let status = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(status.success(), "mkfifo {}", path.display());
        self
    }

    /// A valid spec at `rel` with the experiment directory it names under the tree's root.
    pub fn valid_project(&self, rel: impl AsRef<Path>) -> &Tree {
        self.mkdir("experiments/my-grpo").write(rel, reference())
    }

    pub fn run(&self, args: &[&str]) -> Run {
        run_in(&self.root, args)
    }

    pub fn run_with(&self, args: &[&str], extra: &Extra) -> Run {
        forgelint(&self.root, args, extra)
    }

    /// Runs in the folder `sub` of the tree.
    pub fn run_in(&self, sub: impl AsRef<Path>, args: &[&str]) -> Run {
        run_in(&self.path(sub), args)
    }

    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
        run_full(&self.root, args, Some(stdin.as_bytes()))
    }

    /// Output with the temp dir's path and the timing replaced.
    pub fn scrub(&self, text: &str) -> String {
        scrub_time(&text.replace(self.root.to_str().expect("UTF-8 temp path"), "[TMP]"))
    }
}

impl Default for Tree {
    fn default() -> Tree {
        Tree::new()
    }
}
