//! Small repositories made with the `git` program in a temporary folder, for the tests of this
//! module: fixed authors and dates, no user or system configuration.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::git::Oid;

pub struct TestRepo {
    pub dir: tempfile::TempDir,
    /// Seconds after 2024-01-01 of the next commit: a day apart.
    clock: u64,
}

/// `git` with the test's identity, dates and no configuration but the repository's own.
pub fn git_in(dir: &Path, args: &[&str], clock: u64) -> String {
    let date = format!("{} +0000", 1_704_067_200 + clock);
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env(
            "GIT_CONFIG_GLOBAL",
            if cfg!(windows) { "NUL" } else { "/dev/null" },
        )
        .env("GIT_AUTHOR_NAME", "Ada Lovelace")
        .env("GIT_AUTHOR_EMAIL", "ada@lab.example")
        .env("GIT_COMMITTER_NAME", "Ada Lovelace")
        .env("GIT_COMMITTER_EMAIL", "ada@lab.example")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .output()
        .expect("the tests of history need the git program");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl TestRepo {
    pub fn new() -> TestRepo {
        let dir = tempfile::tempdir().expect("a temporary folder");
        git_in(dir.path(), &["init", "-q", "-b", "main"], 0);
        TestRepo { dir, clock: 0 }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_in(self.path(), args, self.clock)
    }

    pub fn write(&self, path: &str, text: &str) {
        let file: PathBuf = self.path().join(path);
        std::fs::create_dir_all(file.parent().expect("a file in a folder")).expect("mkdir");
        std::fs::write(file, text).expect("write");
    }

    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.path().join(path)).expect("remove");
    }

    /// Commits everything in the work tree; the new commit's id.
    pub fn commit(&mut self, message: &str) -> Oid {
        self.clock += 86_400;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.head()
    }

    pub fn head(&self) -> Oid {
        let out = self.git(&["rev-parse", "HEAD"]);
        Oid::from_hex(out.trim().as_bytes()).expect("an id")
    }

    /// Stages a submodule at `path`: a commit id in the tree (a gitlink), whose repository
    /// need not be here. (`commit` would drop it: it has no folder.)
    pub fn stage_submodule(&self, path: &str, commit: Oid) {
        let info = format!("160000,{commit},{path}");
        self.git(&["update-index", "--add", "--cacheinfo", &info]);
    }

    /// A clone of this repository made with `git clone ARGS... URL TARGET`, in a temporary
    /// folder of its own (kept alive by the first value).
    pub fn clone_with(&self, args: &[&str]) -> (tempfile::TempDir, PathBuf) {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let target = folder.path().join("clone");
        let url = file_url(self.path());
        let target_text = target.to_string_lossy().into_owned();
        let mut all = vec!["clone", "-q"];
        all.extend_from_slice(args);
        all.extend([url.as_str(), target_text.as_str()]);
        git_in(folder.path(), &all, 0);
        (folder, target)
    }

    /// Merges `branch` into the current branch with a merge commit.
    pub fn merge(&mut self, branch: &str) -> Oid {
        self.clock += 86_400;
        self.git(&[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            &format!("Merge {branch}"),
            branch,
        ]);
        self.head()
    }
}

/// A `file://` URL for a local folder, as git wants it on every system.
pub fn file_url(path: &Path) -> String {
    let path = path.to_string_lossy().replace('\\', "/");
    if path.starts_with('/') {
        format!("file://{path}")
    } else {
        format!("file:///{path}")
    }
}
