//! The project a spec belongs to: its root folder and the directories under it, asked once per
//! run and answered from per-worker memory after that.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::json::Document;
use crate::recent::Recent;
use crate::rules::eval::ProjectFs;
use crate::rules::functions::path_escape;

/// File-system facts asked once per run: thousands of specs name the same few directories and
/// live in the same few git work trees. Each worker answers repeated questions from a
/// [`DirMemo`] of its own (no lock, no cache line shared with the other workers); the shared
/// maps make sure each folder is looked at once.
#[derive(Default)]
pub struct DirCache {
    /// Per project root: whether each relative path asked about is a directory.
    known: RwLock<HashMap<PathBuf, HashMap<String, bool>>>,
    /// Keyed by bytes: hashing a `Path` walks its components.
    git_roots: RwLock<GitRoots>,
}

/// Per folder, by its spelling's bytes: the nearest folder at or above it holding `.git`.
type GitRoots = HashMap<Box<[u8]>, Option<Arc<Path>>>;

/// A worker's own copy of the answers it got from the run's [`DirCache`]. Roots are keyed by
/// their bytes: hashing a `Path` walks its components.
#[derive(Default)]
pub struct DirMemo {
    known: HashMap<std::ffi::OsString, HashMap<String, bool>>,
    /// The latest answers: specs name the same few experiments, and comparing a few short
    /// byte strings costs less than hashing two (SipHash stays for the map, whose keys come
    /// from the files).
    recent: Recent<(std::ffi::OsString, String), bool, RECENT_DIRS>,
    /// The experiment folders found lately, by the folder of the spec that named them and the
    /// name: a folder of specs names the same few experiments.
    experiments: Recent<ExperimentKey, Option<Found>, RECENT_DIRS>,
    /// The project roots found lately, by the folder of the spec as given and its config
    /// file's folder (the root depends on nothing else): a folder's specs come together, and
    /// each asks. The worker's own `Arc`s, so cloning one touches no counter another worker
    /// does.
    roots: Recent<(std::ffi::OsString, Option<Arc<Path>>), Arc<Path>, RECENT_DIRS>,
}

/// What finding a spec's experiment folder depends on: the spec's project root and the name
/// (the working directory is the run's). Not the spec's folder: a tree of one spec per folder
/// names the same few experiments from every folder.
#[derive(Debug)]
struct ExperimentKey {
    root: std::ffi::OsString,
    exp: String,
}

/// An experiment folder found: [`ExperimentDir`] without what the spec's own name decides.
#[derive(Debug, Clone)]
struct Found {
    dir: Arc<Path>,
    project_root: Arc<Path>,
    root: Arc<Path>,
}

/// How many answers [`DirMemo::recent`] keeps.
const RECENT_DIRS: usize = 16;

impl DirCache {
    /// Is `relative` (below `root`) a directory? Asked of the worker's `memo` first.
    pub fn is_dir(&self, root: &Path, relative: &str, memo: &RefCell<DirMemo>) -> bool {
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return self.shared_is_dir(root, relative);
        };
        let bytes = root.as_os_str().as_encoded_bytes();
        let recent = memo.recent.get(|(r, rel)| {
            crate::json::same_key(rel.as_bytes(), relative.as_bytes())
                && crate::json::same_key(r.as_encoded_bytes(), bytes)
        });
        if let Some(known) = recent {
            return known;
        }
        let known = match memo
            .known
            .get(root.as_os_str())
            .and_then(|r| r.get(relative))
        {
            Some(&known) => known,
            None => {
                let known = self.shared_is_dir(root, relative);
                bound(&mut memo.known);
                memo.known
                    .entry(root.as_os_str().to_os_string())
                    .or_default()
                    .insert(relative.to_string(), known);
                known
            }
        };
        memo.recent.put(
            (root.as_os_str().to_os_string(), relative.to_string()),
            known,
        );
        known
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

    /// The nearest folder at or above `dir` that holds `.git`. The folders looked at on the
    /// way up are remembered with the answer: the next folder of an archive finds its parent's.
    pub fn git_root(&self, dir: &Path) -> Option<Arc<Path>> {
        let known = |folder: &Path| {
            let key = folder.as_os_str().as_encoded_bytes();
            self.git_roots.read().ok()?.get(key).cloned()
        };
        let mut unknown = Vec::new();
        let mut root = None;
        for folder in dir.ancestors() {
            if let Some(answer) = known(folder) {
                root = answer;
                break;
            }
            unknown.push(folder);
            if crate::paths::join_name(folder, ".git").exists() {
                root = Some(Arc::from(folder));
                break;
            }
        }
        if !unknown.is_empty() {
            if let Ok(mut roots) = self.git_roots.write() {
                for folder in unknown {
                    bound(&mut roots);
                    roots.insert(folder.as_os_str().as_encoded_bytes().into(), root.clone());
                }
            }
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
    /// The worker's memo of the cache's answers.
    pub memo: &'a RefCell<DirMemo>,
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
                return self.cache.is_dir(root, relative, self.memo);
            }
        }
        self.cache.is_dir(&self.root(), relative, self.memo)
    }
}

/// The experiment directory a spec names (`spec.source.exp`), found under its project root.
#[derive(Debug, Clone)]
pub struct ExperimentDir {
    /// The folder, absolute.
    pub dir: Arc<Path>,
    /// The spec's project root, absolute: where the job runs.
    pub project_root: Arc<Path>,
    /// The spec's project root, when the spec may be in its `.starforge` folder.
    pub starforge_root: Option<Arc<Path>>,
}

/// The experiment folder the spec `doc` names (`spec.source.exp`), relative to its project
/// root; `None` when it names none, or one outside the project.
pub fn experiment_named<'a>(doc: &'a Document<'_>) -> Option<&'a str> {
    let spec = doc.get(doc.root(), "spec")?;
    let source = doc.get(spec, "source")?;
    let exp = doc.as_str(doc.get(source, "exp")?)?;
    (!exp.is_empty() && path_escape(exp).is_none()).then_some(exp)
}

impl RealProject<'_> {
    /// The experiment directory the spec `doc` names, when it names one that exists under
    /// its project root.
    pub fn experiment_dir(&self, doc: &Document<'_>) -> Option<ExperimentDir> {
        let exp = experiment_named(doc)?;
        // The config's folder is the root (borrowed: its shared `Arc` is not counted per file)
        // unless the spec may be in a `.starforge` folder.
        let found = match self.config_root.filter(|_| self.outside_starforge()) {
            Some(root) => self.found_under(root, exp),
            None => self.found_under(&self.root(), exp),
        }?;
        // The spec's own path (not only its folder) may mention `.starforge`.
        Some(ExperimentDir {
            dir: found.dir,
            project_root: found.project_root,
            starforge_root: mentions_starforge(self.spec).then_some(found.root),
        })
    }

    /// Whether the spec cannot be in a `.starforge` folder: neither its path nor the working
    /// directory mentions one (see [`mentions_starforge`]).
    fn outside_starforge(&self) -> bool {
        !self.cwd_mentions_starforge && !mentions_starforge(self.spec)
    }

    /// The experiment folder `exp` under `root`, from the worker's memo when a spec with the
    /// same root named it lately.
    fn found_under(&self, root: &Path, exp: &str) -> Option<Found> {
        let root_bytes = root.as_os_str().as_encoded_bytes();
        let is_key = |k: &ExperimentKey| {
            crate::json::same_key(k.exp.as_bytes(), exp.as_bytes())
                && crate::json::same_key(k.root.as_encoded_bytes(), root_bytes)
        };
        let remembered = self
            .memo
            .try_borrow_mut()
            .ok()
            .and_then(|mut memo| memo.experiments.get(is_key));
        if let Some(found) = remembered {
            return found;
        }
        let found = self.find_experiment(root, exp);
        if let Ok(mut memo) = self.memo.try_borrow_mut() {
            let key = ExperimentKey {
                root: root.as_os_str().to_os_string(),
                exp: exp.to_string(),
            };
            memo.experiments.put(key, found.clone());
        }
        found
    }

    /// The spec's [`project_root`], from the worker's memo when a spec of the same folder
    /// asked lately.
    fn root(&self) -> Arc<Path> {
        let Ok(mut memo) = self.memo.try_borrow_mut() else {
            return project_root(self.spec, self.config_root, self.cwd, self.cache);
        };
        let folder = self.spec.parent().unwrap_or(Path::new("")).as_os_str();
        let same_config = |c: &Option<Arc<Path>>| match (c, self.config_root) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            (None, None) => true,
            _ => false,
        };
        let recent = memo.roots.get(|(f, c)| {
            crate::json::same_key(f.as_encoded_bytes(), folder.as_encoded_bytes()) && same_config(c)
        });
        if let Some(root) = recent {
            return root;
        }
        let root: Arc<Path> = Arc::from(&*project_root(
            self.spec,
            self.config_root,
            self.cwd,
            self.cache,
        ));
        let key = (folder.to_os_string(), self.config_root.cloned());
        memo.roots.put(key, root.clone());
        root
    }

    /// The experiment folder `exp` under the spec's project root `root`, when it is one.
    fn find_experiment(&self, root: &Path, exp: &str) -> Option<Found> {
        // Asked once already by source-exp-missing: the answer is cached.
        if !self.cache.is_dir(root, exp, self.memo) {
            return None;
        }
        Some(Found {
            dir: Arc::from(crate::paths::normalize(&root.join(exp), self.cwd)),
            project_root: Arc::from(crate::paths::normalize(root, self.cwd)),
            // The worker's own copy: a memo hit clones it, and a shared one's counter would
            // bounce between the workers.
            root: Arc::from(root),
        })
    }
}

/// A set of directories, for rule-file cases.
pub struct VirtualProject {
    pub dirs: Vec<String>,
}

/// The components of `relative` (`/` or `\\` between them) with `.` and `..` resolved; `None`
/// when it climbs out of the folder it is relative to.
pub fn components_within(relative: &str) -> Option<Vec<&str>> {
    let mut parts: Vec<&str> = Vec::new();
    for part in relative.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts)
}

impl ProjectFs for VirtualProject {
    fn dir_exists(&self, relative: &str) -> bool {
        let Some(want) = components_within(relative) else {
            return false;
        };
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

    /// The remembered folders on the way up give the answer the definition gives (the first
    /// folder at or above holding `.git`), asked in any order, inside a work tree and out.
    #[test]
    fn git_roots_remembered_on_the_way_up_are_the_nearest() {
        let base = std::env::temp_dir().join(format!("forgelint-gitroots-{}", std::process::id()));
        for dir in [
            "repo/.git",
            "repo/a/b/c",
            "repo/nested/.git",
            "repo/nested/x",
            "plain/y",
        ] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        let nearest = |dir: &Path| {
            dir.ancestors()
                .find(|a| a.join(".git").exists())
                .map(Path::to_path_buf)
        };
        let cache = DirCache::default();
        for dir in [
            "repo/a/b/c",
            "repo/a/b",
            "repo/a/b/c",
            "repo/nested/x",
            "repo/nested",
            "repo/a",
            "plain/y",
            "plain",
            "repo",
        ] {
            let dir = base.join(dir);
            let got = cache.git_root(&dir).map(|r| r.to_path_buf());
            assert_eq!(got, nearest(&dir), "{}", dir.display());
        }
        assert_eq!(
            cache.git_root(&base.join("repo/a/b/c")).as_deref(),
            Some(base.join("repo").as_path())
        );
        std::fs::remove_dir_all(&base).ok();
    }

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

    /// A worker's remembered experiment folders are the ones it would find again: across
    /// spec folders, config roots, names, a `.starforge` folder, and a spec whose own file
    /// name mentions `.starforge`.
    #[test]
    fn remembered_experiment_folders_are_found_again() {
        let base = std::env::temp_dir().join(format!("forgelint-exps-{}", std::process::id()));
        for dir in ["p/exp-a", "p/exp-b", "p/.starforge", "q/exp-a", "p/runs"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        let (p, q): (Arc<Path>, Arc<Path>) = (Arc::from(base.join("p")), Arc::from(base.join("q")));
        let specs = [
            "p/runs/a.json",
            "p/runs/.starforge.json",
            "p/.starforge/jobspec.json",
            "q/b.json",
            "p/runs/c.json",
        ];
        let exps = ["exp-a", "exp-b", "exp-c", "../p"];
        let cache = DirCache::default();
        let memo = RefCell::default();
        let shown = |d: Option<ExperimentDir>| {
            d.map(|d| format!("{:?} {:?} {:?}", d.dir, d.project_root, d.starforge_root))
        };
        let mut found = 0;
        for round in 0..3 {
            for spec in specs {
                for config_root in [None, Some(&p), Some(&q)] {
                    for exp in exps {
                        let text = format!(r#"{{"spec": {{"source": {{"exp": "{exp}"}}}}}}"#);
                        let doc = crate::json::parse(&text).unwrap();
                        let project = |memo| RealProject {
                            spec: Path::new(spec),
                            memo,
                            config_root,
                            cwd: &base,
                            cwd_mentions_starforge: false,
                            cache: &cache,
                        };
                        let fresh = RefCell::default();
                        let again = shown(project(&memo).experiment_dir(&doc));
                        let first = shown(project(&fresh).experiment_dir(&doc));
                        assert_eq!(again, first, "{spec} {config_root:?} {exp} round {round}");
                        found += usize::from(first.is_some());
                    }
                }
            }
        }
        assert!(found > 20, "some experiments are found: {found}");
        std::fs::remove_dir_all(&base).ok();
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
        let memo = RefCell::default();
        for _ in 0..3 {
            for i in 0..24 {
                let rel = format!("exp-{i:02}");
                assert_eq!(cache.is_dir(&a, &rel, &memo), i % 2 == 0, "{rel} in a");
                assert!(!cache.is_dir(&b, &rel, &memo), "{rel} in b");
            }
        }
        // A new cache and memo (a new run) do not reuse the answers: the folder has changed.
        std::fs::create_dir_all(b.join("exp-01")).unwrap();
        assert!(!cache.is_dir(&b, "exp-01", &memo));
        assert!(DirCache::default().is_dir(&b, "exp-01", &RefCell::default()));
        std::fs::remove_dir_all(&base).ok();
    }
}
