//! Paths → the sorted list of files to lint. The only module that walks the file system.

mod ignored;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::config::RecentFolders;
use crate::config::Settings;
use crate::recent::Recent;

/// Directories never descended into.
pub const SKIPPED_DIRS: [&str; 3] = [".git", "target", "node_modules"];

/// What a candidate is linted as.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A jobspec (or any file named on the command line outside an experiment).
    Spec,
    /// A file of the experiment directory `root`.
    ExperimentFile { root: Arc<Path> },
}

/// A file to lint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    pub path: PathBuf,
    pub kind: Kind,
    /// Named on the command line (always linted; unreadable → exit 2).
    pub explicit: bool,
    /// Why the file is not opened (a FIFO, a socket, a dangling link): reported as a finding.
    pub problem: Option<String>,
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<Candidate>,
    /// Explicit paths that do not exist.
    pub missing: Vec<(PathBuf, String)>,
    /// Directories that could not be read during the walk.
    pub warnings: Vec<String>,
}

/// The settings the files in a folder are linted with: one for every folder, or the nearest
/// config's ([`crate::config::ConfigTree`]).
pub trait SettingsAt: Sync {
    /// `None` when the folder's config cannot be loaded: its files are not linted. `recent`
    /// holds the asking thread's latest answers.
    fn settings_at(&self, dir: &Path, recent: &mut RecentFolders) -> Option<&Settings>;
}

impl SettingsAt for Settings {
    fn settings_at(&self, _: &Path, _: &mut RecentFolders) -> Option<&Settings> {
        Some(self)
    }
}

impl SettingsAt for crate::config::ConfigTree {
    fn settings_at(&self, dir: &Path, recent: &mut RecentFolders) -> Option<&Settings> {
        self.settings_for_dir(dir, recent)
    }
}

/// The settings of the file at `path`.
fn settings_of<'s>(
    at: &'s dyn SettingsAt,
    path: &Path,
    recent: &mut RecentFolders,
) -> Option<&'s Settings> {
    at.settings_at(path.parent().unwrap_or(Path::new("")), recent)
}

/// What a thread remembers while it tells which files to lint: the nearest config of the
/// folders it asked about last, and the experiment of the last folder (its files come
/// together). Each walker thread and lint worker keeps its own for a run.
#[derive(Default)]
pub struct WalkMemo {
    pub folders: RecentFolders,
    experiment_of: Recent<PathBuf, Option<Arc<Path>>, 1>,
    /// The experiment the working folder is in, by the settings (their address) that told.
    cwd_experiment: Recent<usize, Option<Arc<Path>>, 1>,
}

pub struct Options<'a> {
    pub settings: &'a dyn SettingsAt,
    pub no_ignore: bool,
    pub threads: usize,
    pub cwd: &'a Path,
    /// `--discovered-only`: of the files named, only those a walk would find are linted.
    pub discovered_only: bool,
}

/// Why a path that is not a regular file is not opened.
pub(crate) fn not_regular(ft: &std::fs::FileType) -> String {
    let kind = match crate::paths::special_kind(ft) {
        "a character device" | "a block device" => "a device",
        kind => kind,
    };
    format!("not a regular file ({kind}); it was not opened")
}

impl Options<'_> {
    /// Is the folder `dir` an experiment directory by `[files] experiments`: globs relative to
    /// the project root, or to a parent that holds `.starforge` (the project root of the spec
    /// in it)?
    pub fn is_experiment_dir(&self, dir: &Path, memo: &mut WalkMemo) -> bool {
        self.settings
            .settings_at(dir, &mut memo.folders)
            .is_some_and(|settings| self.is_experiment_dir_in(settings, dir))
    }

    /// [`Options::is_experiment_dir`] by the globs of `settings`.
    fn is_experiment_dir_in(&self, settings: &Settings, dir: &Path) -> bool {
        let files = &settings.files;
        if files.experiments.is_empty() {
            return false;
        }
        let rel = crate::paths::relative_to(dir, &settings.base_dir, self.cwd);
        if rel.is_relative() && files.experiments.is_match(&*rel) {
            return true;
        }
        // Under a `.starforge` project root: its last components, one stat to confirm.
        let Some(depth) = files.experiments_depth else {
            return false;
        };
        let mut root = dir;
        for _ in 0..depth {
            match root.parent() {
                Some(p) => root = p,
                None => return false,
            }
        }
        let Ok(tail) = dir.strip_prefix(root) else {
            return false;
        };
        files.experiments.is_match(tail)
            && crate::paths::normalize(root, self.cwd)
                .join(".starforge")
                .is_dir()
    }

    /// The experiment directory holding the file `path`, if any: its nearest parent that is
    /// one. The answer for a folder is kept in `memo`, so the files of one folder ask once.
    pub fn experiment_of(&self, path: &Path, memo: &mut WalkMemo) -> Option<Arc<Path>> {
        let parent = path.parent()?;
        if let Some(root) = memo.experiment_of.get(|dir| dir == parent) {
            return root;
        }
        // The config of the file's folder tells which of its parents are experiments.
        let settings = self.settings.settings_at(parent, &mut memo.folders)?;
        let mut root = parent
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && *d != Path::new("."))
            .find(|d| self.is_experiment_dir_in(settings, d))
            .map(Arc::from);
        if root.is_none() && parent.is_relative() && !has_parent_dir(parent) {
            // A walk from inside an experiment (`forgelint` in `experiments/x`): the folders
            // the relative path does not name are the working folder and those above it.
            root = self.cwd_experiment(settings, memo);
        }
        memo.experiment_of.put(parent.to_path_buf(), root.clone());
        root
    }

    /// The experiment directory the working folder is in (or is), absolute, if any.
    fn cwd_experiment(&self, settings: &Settings, memo: &mut WalkMemo) -> Option<Arc<Path>> {
        let key = settings as *const Settings as usize;
        if let Some(known) = memo.cwd_experiment.get(|k| *k == key) {
            return known;
        }
        let found = self
            .cwd
            .ancestors()
            .find(|d| self.is_experiment_dir_in(settings, d))
            .map(Arc::from);
        memo.cwd_experiment.put(key, found.clone());
        found
    }

    /// A file named on the command line: a spec, unless its name is not a spec's and it lies
    /// in an experiment directory.
    pub fn explicit_kind(&self, path: &Path, memo: &mut WalkMemo) -> Kind {
        let by_name = settings_of(self.settings, path, &mut memo.folders)
            .and_then(|s| s.files.included_by_name(path));
        if by_name == Some(true) || self.wanted(path, memo) {
            return Kind::Spec;
        }
        let absolute = crate::paths::normalize(path, self.cwd);
        match self.experiment_of(&absolute, memo) {
            // Spelt like the path, so the path in the experiment is `path` less `root`.
            Some(root) => Kind::ExperimentFile {
                root: match (path.is_relative(), root.strip_prefix(self.cwd)) {
                    (true, Ok(relative)) => Arc::from(relative),
                    _ => root,
                },
            },
            None => Kind::Spec,
        }
    }

    /// `--discovered-only`: would a walk of the project find the file `path` (named on the
    /// command line, not a folder), as a spec or as a file of an experiment? Not when its name
    /// is not a spec's (`[files] include`, `exclude`) and no experiment folder holds it
    /// (`[files] experiments`), when a folder it is in is one the walk never enters (`.git`,
    /// `target`, `node_modules`), or when `.gitignore` ignores it (unless `--no-ignore`). As
    /// ruff's `--force-exclude`, but for what the walk takes as well as what it leaves.
    fn discovers(&self, path: &Path, memo: &mut WalkMemo, ignores: &mut ignored::Ignores) -> bool {
        let absolute = crate::paths::normalize(path, self.cwd);
        let walked = absolute.strip_prefix(self.cwd).unwrap_or(Path::new(""));
        let in_skipped = walked
            .parent()
            .is_some_and(|p| p.iter().any(|c| SKIPPED_DIRS.iter().any(|d| c == *d)));
        if in_skipped || (!self.no_ignore && ignores.ignored(&absolute)) {
            return false;
        }
        self.wanted(path, memo) || self.experiment_of(&absolute, memo).is_some()
    }

    /// Is the file at `path` a spec by `[files] include` and `exclude`?
    pub fn wanted(&self, path: &Path, memo: &mut WalkMemo) -> bool {
        let Some(settings) = settings_of(self.settings, path, &mut memo.folders) else {
            return false;
        };
        let files = &settings.files;
        match files.included_by_name(path) {
            Some(false) => return false,
            Some(true) if files.exclude.is_empty() => return true,
            _ => {}
        }
        let rel = crate::paths::relative_to(path, &settings.base_dir, self.cwd);
        // One candidate for both sets: globset prepares it (basename, extension) once.
        let candidate = globset::Candidate::new(&*rel);
        files.include.is_match_candidate(&candidate)
            && !files.exclude.is_match_candidate(&candidate)
    }
}

/// Every file under `paths`, collected and sorted (for tools and tests; the linter itself uses
/// [`discover_each`], which holds no list).
pub fn discover(paths: &[PathBuf], opts: &Options<'_>) -> Discovery {
    let walked = Mutex::new(Vec::new());
    let mut out = discover_each(paths, opts, &|batch| {
        if let Ok(mut w) = walked.lock() {
            w.extend(batch);
        }
    });
    out.files
        .extend(walked.into_inner().unwrap_or_else(|e| e.into_inner()));
    out.files.sort_unstable_by(|a, b| {
        a.path
            .as_os_str()
            .as_encoded_bytes()
            .cmp(b.path.as_os_str().as_encoded_bytes())
    });
    out
}

/// Finds the files to lint. The files named on the command line are returned in
/// `Discovery::files`; the files found by walking a folder are handed to `visit` in batches on the
/// walker's own threads as they are found, so nothing grows with the size of the tree.
pub fn discover_each(
    paths: &[PathBuf],
    opts: &Options<'_>,
    visit: &(dyn Fn(Vec<Candidate>) + Sync),
) -> Discovery {
    let mut out = Discovery::default();
    let mut memo = WalkMemo::default();
    let mut ignores = ignored::Ignores::default();
    let mut roots = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A dangling symlink named explicitly is a file we cannot read, not a typo.
                if std::fs::symlink_metadata(path).is_ok() {
                    out.files.push(Candidate {
                        path: path.clone(),
                        kind: Kind::Spec,
                        explicit: true,
                        problem: Some("a dangling symbolic link; its target does not exist".into()),
                    });
                } else {
                    out.missing
                        .push((path.clone(), "no such file or directory".into()));
                }
            }
            Err(e) => out.files.push(Candidate {
                path: path.clone(),
                kind: Kind::Spec,
                explicit: true,
                problem: Some(format!("cannot read: {e}")),
            }),
            Ok(meta) if meta.is_dir() => roots.push(path.clone()),
            Ok(_) if opts.discovered_only && !opts.discovers(path, &mut memo, &mut ignores) => {
                // Not a file the walk would find: not linted, and not counted.
            }
            Ok(meta) if meta.is_file() => {
                let kind = opts.explicit_kind(path, &mut memo);
                let path = match &kind {
                    Kind::ExperimentFile { root } => spelt_like(path.clone(), root, opts.cwd),
                    Kind::Spec => path.clone(),
                };
                out.files.push(Candidate {
                    path,
                    kind,
                    explicit: true,
                    problem: None,
                })
            }
            Ok(meta) => out.files.push(Candidate {
                path: path.clone(),
                kind: Kind::Spec,
                explicit: true,
                problem: Some(not_regular(&meta.file_type())),
            }),
        }
    }
    // One file named in two spellings (`x`, `./x`, `dir/../x`), or reached from two roots, is
    // linted once. A single walked root cannot repeat a file, so usually no set is kept.
    let dedupe = out.files.len() + roots.len() > 1;
    let seen = Mutex::new(std::collections::HashSet::new());
    if dedupe {
        if let Ok(mut seen) = seen.lock() {
            out.files
                .retain(|c| seen.insert(crate::paths::normalize(&c.path, opts.cwd)));
        }
    }
    if !roots.is_empty() {
        let visit_once = |mut batch: Vec<Candidate>| {
            if dedupe {
                if let Ok(mut seen) = seen.lock() {
                    batch.retain(|c| seen.insert(crate::paths::normalize(&c.path, opts.cwd)));
                }
            }
            if !batch.is_empty() {
                visit(batch);
            }
        };
        walk(&roots, opts, &mut out, &visit_once);
    }
    out
}

/// Files handed to the caller at a time: batching keeps the hand-over (a queue in the
/// linter, [`crate::handoff`]) from costing a lock and a wake-up per file.
pub const BATCH: usize = 128;

/// Why the file at `path` (of type `ft`, as the walk saw it) is not opened: `Some(None)` for a
/// regular file (or a link to one), `Some(Some(why))` for what is reported but never opened,
/// `None` for a link to a folder (not followed).
pub(crate) fn why_not_opened(ft: &std::fs::FileType, path: &Path) -> Option<Option<String>> {
    if ft.is_file() {
        return Some(None);
    }
    if !ft.is_symlink() {
        return Some(Some(not_regular(ft)));
    }
    Some(match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(m) if m.is_dir() => return None,
        Ok(m) => Some(not_regular(&m.file_type())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some("a dangling symbolic link; its target does not exist".into())
        }
        Err(e) => Some(format!("cannot follow the symbolic link: {e}")),
    })
}

/// What a file found by the walk is: a spec, a file of an experiment, or nothing to lint.
fn candidate(
    entry: ignore::DirEntry,
    opts: &Options<'_>,
    memo: &mut WalkMemo,
) -> Option<Candidate> {
    let ft = entry.file_type()?;
    if ft.is_dir() {
        return None;
    }
    let spec = opts.wanted(entry.path(), memo);
    let problem = why_not_opened(&ft, entry.path())?;
    // `./x` is shown as `x`, as every other linter does (in place: this runs for every file).
    let path = without_dot_prefix(entry.into_path());
    let (path, kind) = if spec {
        (path, Kind::Spec)
    } else {
        let root = opts.experiment_of(&path, memo)?;
        (
            spelt_like(path, &root, opts.cwd),
            Kind::ExperimentFile { root },
        )
    };
    Some(Candidate {
        path,
        kind,
        explicit: false,
        problem,
    })
}

/// `path`, a file of the experiment `root`, spelt like `root` so that the path in the
/// experiment is `path` less `root`: made absolute when only `root` is (a walk from inside
/// the experiment).
fn spelt_like(path: PathBuf, root: &Path, cwd: &Path) -> PathBuf {
    if root.is_absolute() && path.is_relative() {
        crate::paths::normalize(&path, cwd)
    } else {
        path
    }
}

/// Whether `path` has a `..` component.
fn has_parent_dir(path: &Path) -> bool {
    path.components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
}

/// `path` without a leading `./` (and the slashes after it), unless nothing would be left.
fn without_dot_prefix(path: PathBuf) -> PathBuf {
    use crate::paths::is_separator;
    let mut bytes = path.into_os_string().into_encoded_bytes();
    if bytes.first() == Some(&b'.') && bytes.get(1).is_some_and(|&b| is_separator(b)) {
        let slashes = bytes[1..].iter().take_while(|&&b| is_separator(b)).count();
        if bytes.len() > 1 + slashes {
            bytes.drain(..1 + slashes);
        }
    }
    // SAFETY: the encoded bytes of a path less ASCII characters (`.` and separators) at the
    // start, a split `OsString::from_encoded_bytes_unchecked` allows.
    PathBuf::from(unsafe { std::ffi::OsString::from_encoded_bytes_unchecked(bytes) })
}

/// One walker thread's visitor: collects candidates into batches, and hands over the last,
/// partial batch when the thread is done with it.
struct Batcher<'a, 'o> {
    batch: Vec<Candidate>,
    memo: WalkMemo,
    opts: &'a Options<'o>,
    visit: &'a (dyn Fn(Vec<Candidate>) + Sync),
    warnings: &'a Mutex<Vec<String>>,
}

impl ignore::ParallelVisitor for Batcher<'_, '_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        match entry {
            Ok(entry) => {
                if let Some(c) = candidate(entry, self.opts, &mut self.memo) {
                    self.batch.push(c);
                    if self.batch.len() >= BATCH {
                        (self.visit)(std::mem::replace(
                            &mut self.batch,
                            Vec::with_capacity(BATCH),
                        ));
                    }
                }
            }
            Err(e) => {
                if let Ok(mut w) = self.warnings.lock() {
                    w.push(e.to_string());
                }
            }
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Batcher<'_, '_> {
    fn drop(&mut self) {
        if !self.batch.is_empty() {
            (self.visit)(std::mem::take(&mut self.batch));
        }
    }
}

struct Batchers<'a, 'o> {
    opts: &'a Options<'o>,
    visit: &'a (dyn Fn(Vec<Candidate>) + Sync),
    warnings: &'a Mutex<Vec<String>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Batchers<'s, '_> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Batcher {
            batch: Vec::with_capacity(BATCH),
            memo: WalkMemo::default(),
            opts: self.opts,
            visit: self.visit,
            warnings: self.warnings,
        })
    }
}

/// A walk of `root` as every walk of forgelint goes: hidden files seen, `.gitignore` obeyed
/// (unless `no_ignore`; ripgrep's own `.ignore` files are not read), [`SKIPPED_DIRS`] never
/// entered, links to folders not followed.
pub(crate) fn walk_builder(root: &Path, no_ignore: bool) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .parents(true)
        // `.gitignore` is the contract; ripgrep's own `.ignore` files are not read.
        .ignore(false)
        .git_ignore(!no_ignore)
        .git_exclude(!no_ignore)
        // The global gitignore, found once per process (`gitconfig`): the same file, rooted
        // where the `ignore` crate roots it.
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|t| t.is_dir())
                && entry.depth() > 0
                && SKIPPED_DIRS
                    .iter()
                    .any(|d| entry.file_name() == std::ffi::OsStr::new(d)))
        });
    if let Some(global) = crate::gitconfig::global_excludes().filter(|_| !no_ignore) {
        // A bad glob there leaves the others in force, as the `ignore` crate has it.
        let _ = builder.add_ignore(global);
    }
    builder
}

fn walk(
    roots: &[PathBuf],
    opts: &Options<'_>,
    out: &mut Discovery,
    visit: &(dyn Fn(Vec<Candidate>) + Sync),
) {
    let mut builder = walk_builder(&roots[0], opts.no_ignore);
    for root in &roots[1..] {
        builder.add(root);
    }
    builder.threads(opts.threads.max(1));
    let warnings = Mutex::new(Vec::new());
    if opts.threads <= 1 {
        // One walker thread: the sequential walker, which keeps a stack of open folders
        // instead of passing every entry through a work-stealing queue.
        let mut batcher = Batcher {
            batch: Vec::with_capacity(BATCH),
            memo: WalkMemo::default(),
            opts,
            visit,
            warnings: &warnings,
        };
        for entry in builder.build() {
            ignore::ParallelVisitor::visit(&mut batcher, entry);
        }
    } else {
        builder.build_parallel().visit(&mut Batchers {
            opts,
            visit,
            warnings: &warnings,
        });
    }
    out.warnings
        .extend(warnings.into_inner().unwrap_or_else(|e| e.into_inner()));
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    #[test]
    fn dot_prefix_is_dropped_like_strip_prefix() {
        for raw in [
            "./a/b.json",
            ".//a",
            "./",
            ".",
            "a/./b",
            "../a",
            "/x",
            "./.hidden",
        ] {
            let expected = match Path::new(raw).strip_prefix(".") {
                Ok(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from(raw),
            };
            assert_eq!(
                super::without_dot_prefix(PathBuf::from(raw)),
                expected,
                "{raw}"
            );
        }
    }
}
