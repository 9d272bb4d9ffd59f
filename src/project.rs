//! The project a spec belongs to: its root folder and the directories under it, asked once per
//! run and answered from per-worker memory after that.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::rules::eval::ProjectFs;

/// File-system facts asked once per run: thousands of specs name the same few directories and
/// live in the same few git work trees. Each worker answers repeated questions from a map of its
/// own (no lock, no cache line shared with the other workers); the shared maps make sure each
/// folder is looked at once.
pub struct DirCache {
    /// Tells this cache's entries in a worker's map from those of an earlier run's cache.
    id: u64,
    /// Per project root: whether each relative path asked about is a directory.
    known: RwLock<HashMap<PathBuf, HashMap<String, bool>>>,
    git_roots: RwLock<HashMap<PathBuf, Option<Arc<Path>>>>,
}

impl Default for DirCache {
    fn default() -> DirCache {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        DirCache {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            known: RwLock::default(),
            git_roots: RwLock::default(),
        }
    }
}

/// A worker's own copy of the answers it got from a [`DirCache`] (the one with the id). Roots
/// are keyed by their bytes: hashing a `Path` walks its components.
#[derive(Default)]
struct LocalDirs {
    id: u64,
    known: HashMap<std::ffi::OsString, HashMap<String, bool>>,
    /// The latest answers, most recent first: specs name the same few experiments, and comparing
    /// a few short byte strings costs less than hashing two (SipHash stays for the map, whose
    /// keys come from the files).
    recent: Vec<RecentDir>,
}

struct RecentDir {
    root: std::ffi::OsString,
    relative: String,
    is_dir: bool,
}

/// How many answers [`LocalDirs::recent`] keeps.
const RECENT_DIRS: usize = 16;

thread_local! {
    static LOCAL_DIRS: std::cell::RefCell<LocalDirs> = std::cell::RefCell::default();
}

impl LocalDirs {
    fn recent(&mut self, root: &[u8], relative: &str) -> Option<bool> {
        let at = self.recent.iter().position(|r| {
            crate::json::same_key(r.relative.as_bytes(), relative.as_bytes())
                && crate::json::same_key(r.root.as_encoded_bytes(), root)
        })?;
        let is_dir = self.recent[at].is_dir;
        // Move to front, so the commonest answers are found first.
        self.recent[..=at].rotate_right(1);
        Some(is_dir)
    }

    fn remember(&mut self, root: &std::ffi::OsStr, relative: &str, is_dir: bool) {
        if self.recent.len() == RECENT_DIRS {
            self.recent.pop();
        }
        self.recent.insert(
            0,
            RecentDir {
                root: root.to_os_string(),
                relative: relative.to_string(),
                is_dir,
            },
        );
    }
}

impl DirCache {
    /// Is `relative` (below `root`) a directory?
    pub fn is_dir(&self, root: &Path, relative: &str) -> bool {
        LOCAL_DIRS.with(|cell| {
            let Ok(mut local) = cell.try_borrow_mut() else {
                return self.shared_is_dir(root, relative);
            };
            if local.id != self.id {
                *local = LocalDirs {
                    id: self.id,
                    ..LocalDirs::default()
                };
            }
            if let Some(known) = local.recent(root.as_os_str().as_encoded_bytes(), relative) {
                return known;
            }
            let known = match local
                .known
                .get(root.as_os_str())
                .and_then(|r| r.get(relative))
            {
                Some(&known) => known,
                None => {
                    let known = self.shared_is_dir(root, relative);
                    bound(&mut local.known);
                    local
                        .known
                        .entry(root.as_os_str().to_os_string())
                        .or_default()
                        .insert(relative.to_string(), known);
                    known
                }
            };
            local.remember(root.as_os_str(), relative, known);
            known
        })
    }

    fn shared_is_dir(&self, root: &Path, relative: &str) -> bool {
        if let Some(known) = self
            .known
            .read()
            .ok()
            .and_then(|k| k.get(root).and_then(|r| r.get(relative)).copied())
        {
            return known;
        }
        let exists = root.join(relative).is_dir();
        if let Ok(mut known) = self.known.write() {
            bound(&mut known);
            known
                .entry(root.to_path_buf())
                .or_default()
                .insert(relative.to_string(), exists);
        }
        exists
    }

    /// The nearest folder at or above `dir` that holds `.git`.
    pub fn git_root(&self, dir: &Path) -> Option<Arc<Path>> {
        if let Some(known) = self.git_roots.read().ok().and_then(|k| k.get(dir).cloned()) {
            return known;
        }
        let root = dir
            .ancestors()
            .find(|a| a.join(".git").exists())
            .map(Arc::from);
        if let Ok(mut known) = self.git_roots.write() {
            bound(&mut known);
            known.insert(dir.to_path_buf(), root.clone());
        }
        root
    }
}

/// The project root of one spec as a real directory, found only if a rule asks about it.
/// Folders remembered by a cache before it starts over: an archive of a million runs has a
/// million project roots, and memory must not grow with them. A spec tree names a few
/// experiment folders many times; far fewer than this.
const MAX_REMEMBERED: usize = 4096;

/// Empties `map` when it is full, so it never holds more than [`MAX_REMEMBERED`] entries.
fn bound<K, V>(map: &mut HashMap<K, V>) {
    if map.len() >= MAX_REMEMBERED {
        map.clear();
    }
}

pub struct RealProject<'a> {
    pub spec: &'a Path,
    /// The folder of the spec's config file, absolute, if it has one.
    pub config_root: Option<&'a Arc<Path>>,
    pub cwd: &'a Path,
    /// [`mentions_starforge`] of `cwd`, found once per run.
    pub cwd_mentions_starforge: bool,
    pub cache: &'a DirCache,
}

impl ProjectFs for RealProject<'_> {
    fn dir_exists(&self, relative: &str) -> bool {
        // The configuration's folder, the usual root, is borrowed: cloning its shared `Arc`
        // for every file would bounce one counter between the workers.
        if let Some(root) = self.config_root {
            let outside = !self.cwd_mentions_starforge && !mentions_starforge(self.spec);
            if outside || !in_starforge(self.spec, self.cwd) {
                return self.cache.is_dir(root, relative);
            }
        }
        let root = project_root(self.spec, self.config_root, self.cwd, self.cache);
        self.cache.is_dir(&root, relative)
    }
}

/// A set of directories, for rule-file cases.
pub struct VirtualProject {
    pub dirs: Vec<String>,
}

impl ProjectFs for VirtualProject {
    fn dir_exists(&self, relative: &str) -> bool {
        let mut want: Vec<&str> = Vec::new();
        for part in relative.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." => {
                    if want.pop().is_none() {
                        return false;
                    }
                }
                p => want.push(p),
            }
        }
        want.is_empty()
            || self.dirs.iter().any(|d| {
                let have: Vec<&str> = d.split('/').filter(|p| !p.is_empty()).collect();
                have.starts_with(&want)
            })
    }
}

/// The project root for a spec at `path`: `X` for `X/.starforge/jobspec.json`; else the folder
/// of the config file in use; else the git work tree's root; else the current directory.
pub fn project_root(
    path: &Path,
    config_root: Option<&Arc<Path>>,
    cwd: &Path,
    cache: &DirCache,
) -> Arc<Path> {
    if in_starforge(path, cwd) {
        let abs = cwd.join(path);
        if let Some(x) = abs.parent().and_then(Path::parent) {
            return Arc::from(x);
        }
    }
    if let Some(root) = config_root {
        return root.clone();
    }
    let abs = cwd.join(path);
    match abs.parent() {
        Some(dir) => cache.git_root(dir).unwrap_or_else(|| Arc::from(cwd)),
        None => Arc::from(cwd),
    }
}

/// Is the spec at `path` in a `.starforge` folder? From the path as given; made absolute only
/// when that does not tell (`jobspec.json`, `./jobspec.json`).
fn in_starforge(path: &Path, cwd: &Path) -> bool {
    match path.parent().and_then(Path::file_name) {
        Some(name) => name == ".starforge",
        None => cwd
            .join(path)
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == ".starforge"),
    }
}

/// Whether `.starforge` occurs in `path`'s bytes. When it occurs neither in a spec's path nor in
/// the working directory, the spec is not in a `.starforge` folder: the folder's name would be
/// part of one or the other. Cheaper than [`in_starforge`], which parses components.
pub fn mentions_starforge(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    memchr::memchr_iter(b'.', bytes).any(|at| bytes[at..].starts_with(b".starforge"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte test never says "outside" of a spec that is in a `.starforge` folder.
    #[test]
    fn mentions_starforge_is_implied_by_in_starforge() {
        let paths = [
            "jobspec.json",
            "./jobspec.json",
            ".starforge/jobspec.json",
            "./.starforge/jobspec.json",
            "proj/.starforge/jobspec.json",
            "proj/.starforge//jobspec.json",
            "proj/.starforge/./jobspec.json",
            "proj/.starforge/x/../jobspec.json",
            "/abs/proj/.starforge/jobspec.json",
            "archive/009/run-009830.jobspec.json",
            "a.starforge/jobspec.json",
            "../jobspec.json",
        ];
        let cwds = [
            "/work/proj",
            "/work/proj/.starforge",
            "/work/.starforge/sub",
            "/",
        ];
        let mut inside = 0;
        for path in paths {
            for cwd in cwds {
                let (path, cwd) = (Path::new(path), Path::new(cwd));
                if in_starforge(path, cwd) {
                    inside += 1;
                    assert!(
                        mentions_starforge(path) || mentions_starforge(cwd),
                        "{path:?} in {cwd:?}"
                    );
                }
            }
        }
        assert!(inside >= 8, "the cases reach the folder: {inside}");
        assert!(!mentions_starforge(Path::new(
            "archive/009/run-009830.jobspec.json"
        )));
    }

    /// The per-worker answers (recent list and map) stay right across roots, relative paths
    /// that differ in one byte, more paths than the recent list holds, and a second cache.
    #[test]
    fn repeated_questions_get_the_first_answers() {
        let base = std::env::temp_dir().join(format!("forgelint-dirs-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        for i in (0..24).step_by(2) {
            std::fs::create_dir_all(a.join(format!("exp-{i:02}"))).unwrap();
        }
        std::fs::create_dir_all(&b).unwrap();
        let cache = DirCache::default();
        for _ in 0..3 {
            for i in 0..24 {
                let rel = format!("exp-{i:02}");
                assert_eq!(cache.is_dir(&a, &rel), i % 2 == 0, "{rel} in a");
                assert!(!cache.is_dir(&b, &rel), "{rel} in b");
            }
        }
        // A new cache (a new run) does not reuse the answers: the folder has changed.
        std::fs::create_dir_all(b.join("exp-01")).unwrap();
        assert!(!cache.is_dir(&b, "exp-01"));
        assert!(DirCache::default().is_dir(&b, "exp-01"));
        std::fs::remove_dir_all(&base).ok();
    }
}
