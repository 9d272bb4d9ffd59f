//! The config tree of a run: the config of each folder. Each file is linted with the nearest `forgelint.toml` (or
//! `.forgelint.toml`) in its folder or above it, as ruff does: a monorepo whose labs each have
//! their own is linted in one run. A file with none above it gets the config found from the
//! current directory (else the defaults); `--config` names one config for every file and
//! `--no-config` none. Each config is read and compiled once, over what it `extend`s, when the
//! first file under it is met.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use crate::config::{self, ConfigFile, ConfigSource, Settings};
use crate::error::Error;
use crate::recent::Recent;

/// Folders whose nearest config one generation of [`Folders`] remembers: an archive of a
/// million runs has a million folders, and memory must not grow with them. Two generations
/// keep the answers for the folders the walker has just passed, which the workers ask about
/// again once the files queued between them (a few thousand) are linted.
const MAX_FOLDERS: usize = 16 * 1024;

/// Per folder asked about: the index of its nearest config (`None`: it failed to load).
///
/// Keyed by the folder's spelling as bytes, hashed whole: a `Path` key is hashed component by
/// component (about 370 instructions for `runs/run-000005`), and a walk of one spec per folder
/// asks about every folder twice (the walker and a worker). Two spellings of one folder
/// (`a//b`, `a/b`) are two keys, each with the same answer.
#[derive(Default)]
struct Folders {
    new: HashMap<Box<[u8]>, Option<usize>>,
    old: HashMap<Box<[u8]>, Option<usize>>,
}

impl Folders {
    fn get(&self, folder: &Path) -> Option<Option<usize>> {
        let key = folder.as_os_str().as_encoded_bytes();
        self.new.get(key).or_else(|| self.old.get(key)).copied()
    }

    fn insert(&mut self, folder: &Path, answer: Option<usize>) {
        if self.new.len() >= MAX_FOLDERS {
            self.old = std::mem::take(&mut self.new);
        }
        self.new
            .insert(folder.as_os_str().as_encoded_bytes().into(), answer);
    }
}

pub struct ConfigTree {
    cwd: PathBuf,
    /// The project root found upward from `cwd` ([`config::project_root_above`]), else `cwd`.
    root: PathBuf,
    /// `--rules`: loaded by every config that extends no other.
    extra_rules: Vec<PathBuf>,
    /// Whether files look for their nearest config; else every file has the first.
    nearest: bool,
    /// The index of the config of files that have none of their own (the configs it extends
    /// come before it).
    first: usize,
    /// The compiled configs. They never move: the rules of a run borrow them.
    compiled: boxcar::Vec<Settings>,
    /// Per config file (resolved path): its index in `compiled`; `None` when it failed.
    loaded: Mutex<HashMap<PathBuf, Option<usize>>>,
    /// The folders asked about, relative to the current directory when they are inside it.
    folders: RwLock<Folders>,
    /// Whether `cwd` is the process's working directory, so that a relative folder can be
    /// looked at as it is.
    relative_to_process: bool,
    /// The nearest config to the current directory, once asked.
    cwd_answer: std::sync::OnceLock<Option<usize>>,
    /// ConfigTree that failed to load after the run began: the run stops with the first.
    errors: Mutex<Vec<Error>>,
}

/// The folders a worker asked about last, with their answers: a folder's files come together,
/// and an experiment file asks about its folder's parents too. Each walker and lint worker
/// keeps its own for a run.
pub type RecentFolders = Recent<PathBuf, Option<usize>, 8>;

/// `dir` without a leading `./` (and the separators after it), so that a folder the walker
/// names from `.` (`./runs/x`) and a worker names as its file was given (`runs/x`) is one
/// folder, looked at once. By bytes where they are UTF-8: `Path::strip_prefix` parses both
/// paths' components.
fn without_dot_prefix(dir: &Path) -> &Path {
    let bytes = dir.as_os_str().as_encoded_bytes();
    let [b'.', sep, rest @ ..] = bytes else {
        return dir;
    };
    if !crate::paths::is_separator(*sep) {
        return dir;
    }
    match std::str::from_utf8(rest) {
        Ok(rest) => without_dot_prefix(Path::new(
            rest.trim_start_matches(['/', std::path::MAIN_SEPARATOR]),
        )),
        Err(_) => dir.strip_prefix(".").unwrap_or(dir),
    }
}

/// Whether `dir` has a `..` component. Asked for every folder: the bytes are searched for `..`
/// first (rarely there), and only then split into components.
fn climbs(dir: &Path) -> bool {
    memchr::memmem::find(dir.as_os_str().as_encoded_bytes(), b"..").is_some()
        && dir
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
}

impl ConfigTree {
    /// The configs `source` asks for, with the first loaded now: the one it names, else the
    /// nearest to `cwd`, else the defaults. A bad first config stops the run before any file
    /// is read.
    pub fn new(source: &ConfigSource, cwd: &Path) -> Result<ConfigTree, Error> {
        let root =
            config::project_root_above(cwd, !source.none).unwrap_or_else(|| cwd.to_path_buf());
        let mut configs = ConfigTree {
            cwd: cwd.to_path_buf(),
            extra_rules: source.extra_rules.clone(),
            nearest: source.nearest(),
            first: 0,
            compiled: boxcar::Vec::new(),
            loaded: Mutex::default(),
            folders: RwLock::default(),
            cwd_answer: std::sync::OnceLock::new(),
            relative_to_process: std::env::current_dir().is_ok_and(|d| d == cwd),
            errors: Mutex::default(),
            root,
        };
        match source.first_config(cwd) {
            Some(path) => {
                let mut loaded = HashMap::new();
                configs.first = configs.load(&path, &mut loaded, &mut Vec::new())?;
                configs.loaded = Mutex::new(loaded);
            }
            None => {
                // Without a config, globs are relative to the project root found upward: a
                // run from `specs/` or `experiments/x` sees the project's `experiments/*`.
                let base = match configs.root.strip_prefix(cwd) {
                    Ok(_) => PathBuf::from("."),
                    Err(_) => configs.root.clone(),
                };
                let settings = Settings::defaults_with_rules(&source.extra_rules, base)?;
                configs.first = configs.compiled.push(settings);
            }
        }
        Ok(configs)
    }

    /// The root of the project the run's folder is in: found upward from it (a config's
    /// folder, a folder holding `.starforge` or `.git`), else the run's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The run's folder.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The config of files with none of their own (the only one with `--config`).
    pub fn first(&self) -> &Settings {
        &self.compiled[self.first]
    }

    /// The index of [`ConfigTree::first`].
    pub fn first_index(&self) -> usize {
        self.first
    }

    pub fn get(&self, index: usize) -> Option<&Settings> {
        self.compiled.get(index)
    }

    /// The index of the config the files in folder `dir` (absolute, or relative to the current
    /// directory) are linted with; `None` when it cannot be loaded (the error is kept for
    /// [`ConfigTree::take_errors`]). `recent` holds the asking worker's latest answers.
    pub fn for_dir(&self, dir: &Path, recent: &mut RecentFolders) -> Option<usize> {
        if !self.nearest {
            return Some(self.first);
        }
        if let Some(index) = recent.get(|known| known.as_os_str() == dir.as_os_str()) {
            return index;
        }
        let index = self.nearest_to(dir);
        recent.put(dir.to_path_buf(), index);
        index
    }

    /// The settings files in `dir` are linted with.
    pub fn settings_for_dir(&self, dir: &Path, recent: &mut RecentFolders) -> Option<&Settings> {
        self.for_dir(dir, recent).and_then(|i| self.get(i))
    }

    /// The nearest config to the folder `dir`: its own, else its parent's answer. The folders
    /// between `dir` and the first one known (or holding a config) are each looked at once.
    /// A path relative to the current directory is looked at as it is (a shorter path for the
    /// kernel to resolve) up to the current directory, whose answer is kept.
    fn nearest_to(&self, dir: &Path) -> Option<usize> {
        // A folder inside the current directory is known by its relative path, however given.
        let dir = match dir.is_absolute().then(|| dir.strip_prefix(&self.cwd)) {
            Some(Ok(inside)) => inside,
            _ => dir,
        };
        let dir = without_dot_prefix(dir);
        let plain = dir.is_relative() && !climbs(dir);
        if !plain {
            return self.nearest_among(&crate::paths::normalize(dir, &self.cwd), None);
        }
        let cwd = || {
            *self
                .cwd_answer
                .get_or_init(|| self.nearest_among(&self.cwd.clone(), None))
        };
        self.nearest_among(dir, Some(&cwd))
    }

    /// The nearest config among `dir` and its parents; `above` answers for the folder above
    /// the last (the current directory, for a relative `dir`).
    fn nearest_among(
        &self,
        dir: &Path,
        above: Option<&dyn Fn() -> Option<usize>>,
    ) -> Option<usize> {
        let mut unknown = Vec::new();
        let mut found = None;
        for folder in dir.ancestors() {
            if above.is_some() && matches!(folder.as_os_str().as_encoded_bytes(), b"" | b".") {
                break;
            }
            if let Some(known) = self.folders.read().ok().and_then(|f| f.get(folder)) {
                found = Some(known);
                break;
            }
            unknown.push(folder);
            let on_disk = match self.relative_to_process {
                false if folder.is_relative() => Cow::Owned(self.cwd.join(folder)),
                _ => Cow::Borrowed(folder),
            };
            if let Some(path) = config::config_in(&on_disk) {
                found = Some(self.load_found(&path));
                break;
            }
        }
        let found = match (found, above) {
            (Some(found), _) => found,
            (None, Some(above)) => above(),
            (None, None) => Some(self.first),
        };
        if let Ok(mut folders) = self.folders.write() {
            for folder in unknown {
                folders.insert(folder, found);
            }
        }
        found
    }

    /// Loads a config found above a file; a failure is kept, and the files under it are not
    /// linted.
    fn load_found(&self, path: &Path) -> Option<usize> {
        let mut loaded = self.lock_loaded();
        match self.load(path, &mut loaded, &mut Vec::new()) {
            Ok(index) => Some(index),
            Err(e) => {
                if let Ok(mut errors) = self.errors.lock() {
                    errors.push(e);
                }
                None
            }
        }
    }

    fn lock_loaded(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<usize>>> {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads and compiles the config at `path` over those it extends, each once; `chain` holds
    /// the configs that extend it. Loading is serialised: configs are few, and the files
    /// waiting for one need it anyway.
    fn load(
        &self,
        path: &Path,
        loaded: &mut HashMap<PathBuf, Option<usize>>,
        chain: &mut Vec<PathBuf>,
    ) -> Result<usize, Error> {
        let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        match loaded.get(&resolved) {
            Some(Some(index)) => return Ok(*index),
            Some(None) => {
                return Err(Error::usage(format!(
                    "the configuration {} cannot be loaded (reported above)",
                    crate::escape::visible(&path.display().to_string())
                )))
            }
            None => {}
        }
        chain.push(resolved.clone());
        let compiled = ConfigFile::read(path).and_then(|file| {
            let base = match file.extends(chain)? {
                // A config it extends outside the run's folder is shown without its text.
                Some(base) => Some(
                    self.load(&base, loaded, chain)
                        .map_err(|e| config::shown_from(e, &self.cwd, "configuration"))?,
                ),
                None => None,
            };
            let base = base.and_then(|i| self.compiled.get(i));
            file.compile(base, &self.extra_rules)
        });
        chain.pop();
        match compiled {
            Ok(settings) => {
                let index = self.compiled.push(settings);
                loaded.insert(resolved, Some(index));
                Ok(index)
            }
            Err(e) => {
                loaded.insert(resolved, None);
                Err(e)
            }
        }
    }

    /// The errors of configs that failed to load during the run, first met first.
    pub fn take_errors(&self) -> Vec<Error> {
        std::mem::take(&mut *self.errors.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many folders, two config files (one extending the other): each compiled once, each
    /// folder answered by its nearest.
    #[test]
    fn each_config_is_compiled_once() {
        let base = std::env::temp_dir().join(format!("forgelint-configs-{}", std::process::id()));
        let lab = base.join("labs/a");
        std::fs::create_dir_all(&lab).unwrap();
        std::fs::write(
            base.join("forgelint.toml"),
            "[platform]\nkind = \"EvalJob\"\n",
        )
        .unwrap();
        std::fs::write(
            lab.join("forgelint.toml"),
            "extend = \"../../forgelint.toml\"\n",
        )
        .unwrap();
        let configs = ConfigTree::new(&ConfigSource::default(), &base).unwrap();
        assert_eq!(configs.compiled.count(), 1);
        let root = configs.first_index();
        let mut recent = RecentFolders::default();
        for run in 0..200 {
            let dir = format!("labs/a/run-{run}/logs");
            let index = configs.for_dir(Path::new(&dir), &mut recent).unwrap();
            assert_ne!(index, root, "{dir}");
            assert_eq!(configs.get(index).unwrap().platform.kind, "EvalJob");
            let outside = format!("other/run-{run}");
            assert_eq!(
                configs.for_dir(Path::new(&outside), &mut recent),
                Some(root),
                "{outside}"
            );
        }
        assert_eq!(
            configs.for_dir(&lab, &mut recent),
            configs.for_dir(&lab.join("x"), &mut recent)
        );
        assert_eq!(
            configs.compiled.count(),
            2,
            "the lab's config, over the root's"
        );
        assert!(configs.take_errors().is_empty());
        std::fs::remove_dir_all(&base).ok();
    }

    /// A folder the walker names from `.` and a worker names as its file was given is one
    /// folder: looked at once, with one answer. A `..` is told from a name with two dots.
    #[test]
    fn one_folder_one_lookup_whatever_its_spelling() {
        let base = std::env::temp_dir().join(format!("forgelint-spelled-{}", std::process::id()));
        let lab = base.join("labs/a");
        std::fs::create_dir_all(lab.join("runs/1")).unwrap();
        std::fs::write(
            lab.join("forgelint.toml"),
            "[platform]\nkind = \"EvalJob\"\n",
        )
        .unwrap();
        let configs = ConfigTree::new(&ConfigSource::default(), &base).unwrap();
        let looked_at = || {
            let folders = configs.folders.read().unwrap();
            folders.new.len() + folders.old.len()
        };
        let index = configs.nearest_to(Path::new("./labs/a/runs/1"));
        assert_ne!(index, Some(configs.first_index()));
        let after_first = looked_at();
        for spelling in ["labs/a/runs/1", "./labs/a/runs/1", "././labs/a/runs/1"] {
            assert_eq!(configs.nearest_to(Path::new(spelling)), index, "{spelling}");
        }
        assert_eq!(
            configs.nearest_to(&base.join("labs/a/runs/1")),
            index,
            "absolute"
        );
        assert_eq!(looked_at(), after_first, "no folder looked at twice");
        for (spelled, plain) in [
            ("./a/b", "a/b"),
            ("././a", "a"),
            (".//a/./b", "a/./b"),
            ("./", ""),
            ("./.hidden/x", ".hidden/x"),
            ("./../x", "../x"),
            (".hidden/x", ".hidden/x"),
            ("a/./b", "a/./b"),
        ] {
            let got = without_dot_prefix(Path::new(spelled));
            assert_eq!(got.as_os_str(), plain, "{spelled}");
            assert_eq!(
                got,
                Path::new(spelled)
                    .strip_prefix(".")
                    .unwrap_or(Path::new(spelled))
            );
        }
        assert!(climbs(Path::new("labs/../x")));
        assert!(!climbs(Path::new("labs/a..b/x")));
        std::fs::remove_dir_all(&base).ok();
    }
}
