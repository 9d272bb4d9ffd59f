//! Where a repository's files would be on disk, and how they are shown: git names a file by
//! its path from the repository's top; a finding names it from the current folder, as `check`
//! does, and a config applies to it by where it lies in the work tree.

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Place {
    pub cwd: PathBuf,
    /// The folder git paths are relative to: the work tree's top, or the current folder in a
    /// bare repository.
    base: PathBuf,
    /// The current folder's path below `base`, with a trailing `/` (`""` at the top).
    prefix: String,
    /// How many folders the current folder is below `base`.
    depth: usize,
}

impl Place {
    /// The place of a repository whose work tree's top is `top` (`None`: bare), seen from
    /// `cwd`.
    pub fn new(cwd: &Path, top: Option<&Path>) -> Place {
        let base = top.unwrap_or(cwd).to_path_buf();
        // git names the top by its real path; the current folder may be named through a link.
        let below = cwd
            .strip_prefix(&base)
            .ok()
            .map(Path::to_path_buf)
            .or_else(|| {
                let real = cwd.canonicalize().ok()?;
                Some(real.strip_prefix(&base).ok()?.to_path_buf())
            });
        let parts: Vec<String> = below
            .iter()
            .flat_map(|b| b.components())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Place {
            cwd: cwd.to_path_buf(),
            base,
            prefix: parts.iter().map(|p| format!("{p}/")).collect(),
            depth: parts.len(),
        }
    }

    /// Where the file at git path `path` is in the work tree.
    pub fn abs(&self, path: &str) -> PathBuf {
        self.base.join(path)
    }

    /// The git path of the absolute `path`, when it is under the repository's top.
    pub fn git_path(&self, path: &Path) -> Option<String> {
        let below = path.strip_prefix(&self.base).ok()?;
        let parts: Vec<String> = below
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// How a finding names the file at git path `path`: from the current folder.
    pub fn shown(&self, path: &str) -> Arc<str> {
        match path.strip_prefix(&self.prefix) {
            Some(below) => Arc::from(below),
            None => Arc::from(format!("{}{path}", "../".repeat(self.depth))),
        }
    }

    /// The git path of a file a finding names (`shown`'s inverse), lexically; `None` for one
    /// outside the repository.
    pub fn git_path_of_shown(&self, shown: &str) -> Option<String> {
        if Path::new(shown).is_absolute() {
            return self.git_path(&crate::paths::normalize(Path::new(shown), &self.cwd));
        }
        let joined = format!("{}{shown}", self.prefix);
        let parts = crate::project::components_within(&joined)?;
        Some(parts.join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_from_the_current_folder() {
        let top = Path::new("/repo");
        let at_top = Place::new(top, Some(top));
        assert_eq!(&*at_top.shown("specs/a.json"), "specs/a.json");
        assert_eq!(
            at_top.git_path_of_shown("specs/a.json").unwrap(),
            "specs/a.json"
        );
        let below = Place::new(Path::new("/repo/specs/lab"), Some(top));
        assert_eq!(&*below.shown("specs/lab/a.json"), "a.json");
        assert_eq!(
            &*below.shown("experiments/x/c.yaml"),
            "../../experiments/x/c.yaml"
        );
        for git in ["specs/lab/a.json", "experiments/x/c.yaml"] {
            let shown = below.shown(git);
            assert_eq!(below.git_path_of_shown(&shown).unwrap(), git);
        }
        assert_eq!(
            below.git_path(Path::new("/repo/experiments/x")).unwrap(),
            "experiments/x"
        );
        assert_eq!(below.git_path(Path::new("/elsewhere")), None);
        assert_eq!(
            below.git_path_of_shown("/repo/specs/b.json").unwrap(),
            "specs/b.json"
        );
        assert_eq!(
            below.git_path_of_shown("./a.json").unwrap(),
            "specs/lab/a.json"
        );
        assert_eq!(at_top.git_path_of_shown("../outside.json"), None);
        assert_eq!(below.abs("a/b"), Path::new("/repo/a/b"));
    }
}
