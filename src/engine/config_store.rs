//! The config files of a run's experiments, each read and parsed once, and their
//! compositions, each made once: many specs name one experiment, and many experiments compose
//! the same framework configs (a verl recipe's ~30 files). Shared by the run's workers; a file
//! being read by one is waited for by the others, never read twice. Bounded: past
//! [`KEPT_FILES`] files (or [`KEPT_COMPOSED`] compositions) the older half is dropped, and a
//! file needed again is read again.
//!
//! A base is read only inside the project of the spec (the real path of the file, links
//! resolved, under the real path of the root): in CI the experiment's config comes from the
//! pull request, and its `defaults` must not make forgelint read, and hint at the keys of, a
//! file elsewhere on the machine.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::formats::compose::{self, Composed, ConfigFile, ConfigSource, InvalidFile, Place};
use crate::formats::ConfigFormat;

/// Config files kept parsed at most.
const KEPT_FILES: usize = 4096;
/// Compositions kept at most.
const KEPT_COMPOSED: usize = 1024;

/// A file as read: parsed, or why it does not parse; and its real path.
struct Read {
    file: Result<Arc<ConfigFile>, Arc<InvalidFile>>,
    real: PathBuf,
}

/// A composition, made by the first worker that needs it.
type ComposedOnce = Arc<OnceLock<Arc<Composed>>>;

/// The run's config files and compositions.
#[derive(Default)]
pub struct ConfigStore {
    files: Mutex<Kept<PathBuf, Arc<OnceLock<Option<Read>>>>>,
    composed: Mutex<Kept<(PathBuf, PathBuf), ComposedOnce>>,
    /// Real paths of project roots.
    roots: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// What was reported about a config file already (its path, a place in it, the rule):
    /// said once per run, however many specs meet it.
    reported: Mutex<HashSet<(PathBuf, u32, &'static str)>>,
}

impl ConfigStore {
    /// The composition of the experiment config `primary` at `place`, made once.
    pub fn composed(
        &self,
        primary: impl FnOnce() -> Arc<ConfigFile>,
        primary_path: &Path,
        place: &Place<'_>,
        display: &(dyn Fn(&Path) -> Arc<str> + Sync),
    ) -> Arc<Composed> {
        let key = (primary_path.to_path_buf(), place.project_root.to_path_buf());
        let cell = {
            let Ok(mut kept) = self.composed.lock() else {
                return Arc::new(Composed::alone(primary()));
            };
            kept.get_or_insert_with(key, KEPT_COMPOSED, || Arc::new(OnceLock::new()))
        };
        cell.get_or_init(|| {
            let source = Source {
                store: self,
                display,
                root: self.real_root(place.project_root),
            };
            Arc::new(compose::compose(primary(), place, &source))
        })
        .clone()
    }

    /// Whether `what` (a rule's finding at `at` in the file `path`) is said for the first time
    /// in this run; it is recorded as said.
    pub fn first_time(&self, path: &Path, at: u32, what: &'static str) -> bool {
        self.reported
            .lock()
            .map_or(true, |mut said| said.insert((path.to_path_buf(), at, what)))
    }

    /// Whether the composition of `primary` in the project `root` is made (or being made).
    pub fn has_composed(&self, primary: &Path, root: &Path) -> bool {
        let key = (primary.to_path_buf(), root.to_path_buf());
        self.composed
            .lock()
            .is_ok_and(|kept| kept.new.contains_key(&key) || kept.old.contains_key(&key))
    }

    /// The text of the config file at `path` when it lies inside the project `root` (real
    /// paths), for a quick scan of its keys: read, never parsed or kept, and never shown.
    pub fn text_inside(&self, path: &Path, root: &Path) -> Option<String> {
        let root = self.real_root(root)?;
        let real = std::fs::canonicalize(path).ok()?;
        if !real.starts_with(&root) {
            return None;
        }
        crate::read::read_text(&real).ok()
    }

    fn real_root(&self, root: &Path) -> Option<PathBuf> {
        let Ok(mut roots) = self.roots.lock() else {
            return std::fs::canonicalize(root).ok();
        };
        roots
            .entry(root.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(root).ok())
            .clone()
    }

    /// The config file at `path`, read and parsed once.
    fn read(
        &self,
        path: &Path,
        display: &(dyn Fn(&Path) -> Arc<str> + Sync),
    ) -> Arc<OnceLock<Option<Read>>> {
        let cell = match self.files.lock() {
            Ok(mut kept) => kept
                .get_or_insert_with(path.to_path_buf(), KEPT_FILES, || Arc::new(OnceLock::new())),
            Err(_) => Arc::new(OnceLock::new()),
        };
        cell.get_or_init(|| read_config(path, display));
        cell
    }
}

fn read_config(path: &Path, display: &(dyn Fn(&Path) -> Arc<str> + Sync)) -> Option<Read> {
    let format = ConfigFormat::of_path(path)?;
    let text: Arc<str> = Arc::from(crate::read::read_text(path).ok()?);
    let real = std::fs::canonicalize(path).ok()?;
    let shown = display(path);
    let file = match ConfigFile::parse(path.to_path_buf(), shown.clone(), text.clone(), format) {
        Ok(file) => Ok(Arc::new(file)),
        Err(error) => Err(Arc::new(InvalidFile {
            path: path.to_path_buf(),
            shown,
            text,
            error,
        })),
    };
    Some(Read { file, real })
}

/// The store as one composition reads it: inside one project root.
struct Source<'a> {
    store: &'a ConfigStore,
    display: &'a (dyn Fn(&Path) -> Arc<str> + Sync),
    /// The project root's real path; `None` when it has none (nothing is read).
    root: Option<PathBuf>,
}

impl ConfigSource for Source<'_> {
    fn load(&self, path: &Path) -> compose::Loaded {
        let root = self.root.as_ref()?;
        let cell = self.store.read(path, self.display);
        let read = cell.get()?.as_ref()?;
        read.real.starts_with(root).then(|| read.file.clone())
    }

    fn is_dir(&self, dir: &Path) -> bool {
        std::fs::metadata(dir).is_ok_and(|m| m.is_dir())
    }
}

/// A map that keeps at most about `limit` entries: the newer ones, and those used again since
/// the last drop.
struct Kept<K, V> {
    new: HashMap<K, V>,
    old: HashMap<K, V>,
}

impl<K, V> Default for Kept<K, V> {
    fn default() -> Self {
        Kept {
            new: HashMap::new(),
            old: HashMap::new(),
        }
    }
}

impl<K: Hash + Eq, V: Clone> Kept<K, V> {
    fn get_or_insert_with(&mut self, key: K, limit: usize, make: impl FnOnce() -> V) -> V {
        if let Some(v) = self.new.get(&key) {
            return v.clone();
        }
        let value = self.old.remove(&key).unwrap_or_else(make);
        if self.new.len() >= limit / 2 {
            self.old = std::mem::take(&mut self.new);
        }
        self.new.insert(key, value.clone());
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_maps_stay_bounded_and_keep_what_is_used() {
        let mut kept: Kept<u32, u32> = Kept::default();
        for i in 0..100 {
            kept.get_or_insert_with(i, 10, || i);
            // The first key, asked for again and again, is never made again.
            assert_eq!(kept.get_or_insert_with(0, 10, || 999), 0);
            assert!(kept.new.len() + kept.old.len() <= 10);
        }
    }
}
