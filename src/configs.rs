//! The configs of a run. Each file is linted with the nearest `forgelint.toml` (or
//! `.forgelint.toml`) in its folder or above it, as ruff does: a monorepo whose labs each have
//! their own is linted in one run. A file with none above it gets the config found from the
//! current directory (else the defaults); `--config` names one config for every file and
//! `--no-config` none. Each config is read and compiled once, over what it `extend`s, when the
//! first file under it is met.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use crate::cli::ConfigArgs;
use crate::config::{self, ConfigFile, Settings, CONFIG_NAMES};
use crate::error::Error;

/// Folders whose nearest config is remembered before the map starts over: an archive of a
/// million runs has a million folders, and memory must not grow with them.
const MAX_FOLDERS: usize = 4096;

pub struct Configs {
    /// Tells this run's answers in a thread's memory from an earlier run's.
    id: u64,
    cwd: PathBuf,
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
    /// Per folder (absolute) asked about: the index of its nearest config.
    folders: RwLock<HashMap<PathBuf, Option<usize>>>,
    /// Configs that failed to load after the run began: the run stops with the first.
    errors: Mutex<Vec<Error>>,
}

thread_local! {
    /// The last folder this thread asked about, and its answer: a folder's files come together.
    static LAST: std::cell::RefCell<Option<(u64, PathBuf, Option<usize>)>> =
        const { std::cell::RefCell::new(None) };
}

impl Configs {
    /// The configs `flags` ask for, with the first loaded now: `--config`, else the nearest
    /// to `cwd`, else the defaults. A bad first config stops the run before any file is read.
    pub fn new(flags: &ConfigArgs, cwd: &Path) -> Result<Configs, Error> {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut configs = Configs {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            cwd: cwd.to_path_buf(),
            extra_rules: flags.rules.clone(),
            nearest: !flags.no_config && flags.config.is_none(),
            first: 0,
            compiled: boxcar::Vec::new(),
            loaded: Mutex::default(),
            folders: RwLock::default(),
            errors: Mutex::default(),
        };
        let first = if flags.no_config {
            None
        } else {
            flags.config.clone().or_else(|| config::find_config(cwd))
        };
        match first {
            Some(path) => {
                let mut loaded = HashMap::new();
                configs.first = configs.load(&path, &mut loaded, &mut Vec::new())?;
                configs.loaded = Mutex::new(loaded);
            }
            None => {
                let mut settings = Settings::defaults(PathBuf::from("."))?;
                for p in &flags.rules {
                    settings.rules.load_path(p)?;
                }
                settings.rules.sort();
                configs.first = configs.compiled.push(settings);
            }
        }
        Ok(configs)
    }

    /// The config of files with none of their own (the only one with `--config`).
    pub fn first(&self) -> &Settings {
        &self.compiled[self.first]
    }

    /// The index of [`Configs::first`].
    pub fn first_index(&self) -> usize {
        self.first
    }

    pub fn get(&self, index: usize) -> Option<&Settings> {
        self.compiled.get(index)
    }

    /// The index of the config the files in folder `dir` (absolute, or relative to the current
    /// directory) are linted with; `None` when it cannot be loaded (the error is kept for
    /// [`Configs::take_errors`]).
    pub fn for_dir(&self, dir: &Path) -> Option<usize> {
        if !self.nearest {
            return Some(self.first);
        }
        let last = LAST.with(|last| {
            last.borrow()
                .as_ref()
                .filter(|(id, known, _)| *id == self.id && known == dir)
                .map(|(_, _, index)| *index)
        });
        if let Some(index) = last {
            return index;
        }
        let index = self.nearest_to(&crate::paths::normalize(dir, &self.cwd));
        LAST.with(|last| *last.borrow_mut() = Some((self.id, dir.to_path_buf(), index)));
        index
    }

    /// The settings files in `dir` are linted with.
    pub fn settings_for_dir(&self, dir: &Path) -> Option<&Settings> {
        self.for_dir(dir).and_then(|i| self.get(i))
    }

    /// The nearest config to the absolute folder `dir`: its own, else its parent's answer.
    /// The folders between `dir` and the first one known (or holding a config) are each
    /// looked at once.
    fn nearest_to(&self, dir: &Path) -> Option<usize> {
        let mut unknown = Vec::new();
        let mut found = Some(self.first);
        for folder in dir.ancestors() {
            if let Some(known) = self
                .folders
                .read()
                .ok()
                .and_then(|f| f.get(folder).copied())
            {
                found = known;
                break;
            }
            unknown.push(folder);
            if let Some(path) = CONFIG_NAMES
                .iter()
                .map(|n| folder.join(n))
                .find(|p| p.is_file())
            {
                found = self.load_found(&path);
                break;
            }
        }
        if let Ok(mut folders) = self.folders.write() {
            if folders.len() + unknown.len() > MAX_FOLDERS {
                folders.clear();
            }
            for folder in unknown {
                folders.insert(folder.to_path_buf(), found);
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
                Some(base) => Some(self.load(&base, loaded, chain)?),
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
        let configs = Configs::new(&ConfigArgs::default(), &base).unwrap();
        assert_eq!(configs.compiled.count(), 1);
        let root = configs.first_index();
        for run in 0..200 {
            let dir = format!("labs/a/run-{run}/logs");
            let index = configs.for_dir(Path::new(&dir)).unwrap();
            assert_ne!(index, root, "{dir}");
            assert_eq!(configs.get(index).unwrap().platform.kind, "EvalJob");
            let outside = format!("other/run-{run}");
            assert_eq!(
                configs.for_dir(Path::new(&outside)),
                Some(root),
                "{outside}"
            );
        }
        assert_eq!(configs.for_dir(&lab), configs.for_dir(&lab.join("x")));
        assert_eq!(
            configs.compiled.count(),
            2,
            "the lab's config, over the root's"
        );
        assert!(configs.take_errors().is_empty());
        std::fs::remove_dir_all(&base).ok();
    }
}
