//! Whether a walk would skip a file for `.gitignore`: what `--discovered-only` asks of each
//! file it is given (pre-commit passes every staged file, and a file the walk of the project
//! would skip is not linted). The walk's rules, as the `ignore` crate applies them: the
//! `.gitignore` files of the folders from the file's own up to its git work tree's root (of
//! every folder above it outside a work tree), the deepest one with a match deciding and a
//! `!pattern` re-including; then `.git/info/exclude` and git's global excludes file. A folder
//! that is ignored is never entered, so nothing under it is found.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The ignore files read so far, by folder: a pre-commit batch shares a few folders.
#[derive(Default)]
pub struct Ignores {
    gitignores: HashMap<PathBuf, Option<Gitignore>>,
    /// Per folder: the root of the git work tree it is in.
    work_trees: HashMap<PathBuf, Option<PathBuf>>,
    excludes: HashMap<PathBuf, Option<Gitignore>>,
    global: Option<Option<Gitignore>>,
}

/// What one ignore file says of a path.
enum Verdict {
    Ignored,
    Kept,
    Silent,
}

fn verdict(gitignore: Option<&Gitignore>, path: &Path, is_dir: bool) -> Verdict {
    match gitignore.map(|g| g.matched(path, is_dir)) {
        Some(ignore::Match::Ignore(_)) => Verdict::Ignored,
        Some(ignore::Match::Whitelist(_)) => Verdict::Kept,
        _ => Verdict::Silent,
    }
}

impl Ignores {
    /// Does a walk skip the file `file` (absolute, `.` and `..` resolved): is it, or a folder
    /// it is in, ignored?
    pub fn ignored(&mut self, file: &Path) -> bool {
        let Some(parent) = file.parent() else {
            return false;
        };
        let top = self.work_tree(parent);
        // The folders whose `.gitignore` count, deepest first.
        let scope: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|d| top.as_deref().is_none_or(|t| d.starts_with(t)))
            .map(Path::to_path_buf)
            .collect();
        let Some(highest) = scope.last().cloned() else {
            return false;
        };
        // The folders below the highest, then the file: top down, as the walk meets them.
        let mut below: Vec<&Path> = file.ancestors().take_while(|p| *p != highest).collect();
        below.reverse();
        let last = below.len().saturating_sub(1);
        below
            .iter()
            .enumerate()
            .any(|(k, path)| self.ignores(path, k < last, &scope, top.as_deref()))
    }

    /// Whether the ignore files of `scope` (deepest first), of the work tree `top` and git's
    /// global one ignore `path`.
    fn ignores(
        &mut self,
        path: &Path,
        is_dir: bool,
        scope: &[PathBuf],
        top: Option<&Path>,
    ) -> bool {
        for folder in scope
            .iter()
            .filter(|d| path.starts_with(d) && path != d.as_path())
        {
            match verdict(self.gitignore(folder), path, is_dir) {
                Verdict::Ignored => return true,
                Verdict::Kept => return false,
                Verdict::Silent => {}
            }
        }
        if let Some(top) = top {
            match verdict(self.exclude(top), path, is_dir) {
                Verdict::Ignored => return true,
                Verdict::Kept => return false,
                Verdict::Silent => {}
            }
        }
        let global = self.global.get_or_insert_with(|| {
            let (global, _) = Gitignore::global();
            (!global.is_empty()).then_some(global)
        });
        matches!(verdict(global.as_ref(), path, is_dir), Verdict::Ignored)
    }

    /// The `.gitignore` of `folder`, read once.
    fn gitignore(&mut self, folder: &Path) -> Option<&Gitignore> {
        self.gitignores
            .entry(folder.to_path_buf())
            .or_insert_with(|| {
                let file = folder.join(".gitignore");
                file.is_file()
                    .then(|| Gitignore::new(&file).0)
                    .filter(|g| !g.is_empty())
            })
            .as_ref()
    }

    /// `.git/info/exclude` of the work tree `top`, its patterns relative to `top`.
    fn exclude(&mut self, top: &Path) -> Option<&Gitignore> {
        self.excludes
            .entry(top.to_path_buf())
            .or_insert_with(|| {
                let file = top.join(".git").join("info").join("exclude");
                if !file.is_file() {
                    return None;
                }
                let mut builder = GitignoreBuilder::new(top);
                builder.add(&file);
                builder.build().ok().filter(|g| !g.is_empty())
            })
            .as_ref()
    }

    /// The root of the git work tree `folder` is in: the nearest folder holding `.git`.
    fn work_tree(&mut self, folder: &Path) -> Option<PathBuf> {
        if let Some(known) = self.work_trees.get(folder) {
            return known.clone();
        }
        let found = folder
            .ancestors()
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf);
        self.work_trees.insert(folder.to_path_buf(), found.clone());
        found
    }
}

#[cfg(test)]
mod tests {
    use super::Ignores;

    /// As `git check-ignore` decides: the deepest file with a match wins, `!` re-includes, an
    /// ignored folder hides what is under it, `.git/info/exclude` counts.
    #[test]
    fn gitignore_rules_as_the_walk_applies_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        write(".gitignore", "*.log\nbuild/\nsecret.yaml\n");
        write("labs/.gitignore", "!keep.log\ngenerated/\n");
        write(".git/info/exclude", "local.txt\n");
        let mut ignores = Ignores::default();
        for (rel, ignored) in [
            ("a.log", true),
            ("labs/x/a.log", true),
            ("labs/keep.log", false),
            ("labs/x/keep.log", false),
            ("build/jobspec.json", true),
            ("labs/build/x/jobspec.json", true),
            ("labs/generated/config.yaml", true),
            ("generated/config.yaml", false),
            ("experiments/x/secret.yaml", true),
            ("local.txt", true),
            ("labs/local.txt", true),
            ("experiments/x/train.py", false),
        ] {
            assert_eq!(ignores.ignored(&root.join(rel)), ignored, "{rel}");
        }
    }
}
