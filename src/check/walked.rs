//! The folders a run walks, asked of every experiment directory a spec names: whether a walk
//! reaches it. Sorted, so that a run naming 20,000 folders (`forgelint check runs/*`) asks in
//! a few binary searches per directory, not one comparison per folder.

use std::path::{Path, PathBuf};

/// The walked folders, absolute and normalized, in `Path` order (component by component).
#[derive(Debug, Default)]
pub(super) struct WalkedFolders(Vec<PathBuf>);

impl WalkedFolders {
    pub(super) fn new(mut folders: Vec<PathBuf>) -> Self {
        folders.sort();
        folders.dedup();
        Self(folders)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `dir` is inside a walked folder (or is one), or a walked folder is inside it.
    pub(super) fn overlap(&self, dir: &Path) -> bool {
        self.holds_inside(dir)
            || dir
                .ancestors()
                .any(|a| self.0.binary_search_by(|f| f.as_path().cmp(a)).is_ok())
    }

    /// Whether a walked folder is `dir` or inside it. `Path` orders by components, so the
    /// folders that start with `dir` follow it without a gap: the first one not before `dir`
    /// is one of them if any is.
    fn holds_inside(&self, dir: &Path) -> bool {
        let first = self.0.partition_point(|f| f.as_path() < dir);
        self.0.get(first).is_some_and(|f| f.starts_with(dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(paths: &[&str]) -> WalkedFolders {
        WalkedFolders::new(paths.iter().map(PathBuf::from).collect())
    }

    /// The sorted search answers as comparing with every folder does.
    #[test]
    fn overlap_agrees_with_a_scan_of_every_folder() {
        let walked = [
            "/p/runs/run-1",
            "/p/runs/run-10",
            "/p/runs/run-2/exp",
            "/p/runs-old",
            "/q",
            "/p/a b",
        ];
        let set = folders(&walked);
        let dirs = [
            "/p",
            "/p/runs",
            "/p/runs/run-1",
            "/p/runs/run-1/experiments/x",
            "/p/runs/run-10/e",
            "/p/runs/run-100",
            "/p/runs/run-2",
            "/p/runs/run-2/exp/deep",
            "/p/runs/run-3",
            "/p/runs-old/x",
            "/p/runs-older",
            "/q",
            "/qq",
            "/",
            "/p/a",
            "/p/a b/c",
            "/r",
        ];
        for dir in dirs {
            let dir = Path::new(dir);
            let scan = walked
                .iter()
                .map(Path::new)
                .any(|root| dir.starts_with(root) || root.starts_with(dir));
            assert_eq!(set.overlap(dir), scan, "{}", dir.display());
        }
    }

    #[test]
    fn nothing_walked_reaches_nothing() {
        let none = folders(&[]);
        assert!(none.is_empty());
        assert!(!none.overlap(Path::new("/p")));
    }
}
