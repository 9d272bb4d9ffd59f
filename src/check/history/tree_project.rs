//! A commit's tree as the project of a file linted in history: which folders exist (for
//! `source-exp-missing` and the other path checks), the config of an experiment a spec names
//! (for `hyperparam-unknown`), and the spec that names an experiment (for the `spec`
//! conditions of experiment rules). Git paths are `/`-separated from the repository's top.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::place::Place;
use crate::engine::{ExperimentConfigs, LoadedConfig};
use crate::formats::compose::{self, ConfigFile, ConfigSource, InvalidFile};
use crate::formats::ConfigFormat;
use crate::history::git::{GitError, Mode, Oid};
use crate::history::tree::Snapshot;
use crate::project::components_within;
use crate::read::MAX_FILE_SIZE;
use crate::recent::Recent;
use crate::rules::eval::ProjectFs;

/// The texts of the experiment configs read last, by object id: thousands of versions of specs
/// name the same few configs, each read from git once while it is among these.
pub type ConfigTexts = RefCell<Recent<Oid, Option<String>, 32>>;

pub struct TreeProject<'t, 'c> {
    /// The project root's path in the tree (`""`: the repository's top).
    root: String,
    tree: RefCell<&'t mut Snapshot<'c>>,
    /// `[experiments] config`: an experiment's config file is the first of these.
    config_names: &'t [String],
    place: &'t Place,
    texts: &'t ConfigTexts,
    /// The first error reading the tree: the questions that cannot fail keep it here.
    failed: RefCell<Option<GitError>>,
}

impl<'t, 'c> TreeProject<'t, 'c> {
    pub fn new(
        root: String,
        tree: &'t mut Snapshot<'c>,
        config_names: &'t [String],
        place: &'t Place,
        texts: &'t ConfigTexts,
    ) -> TreeProject<'t, 'c> {
        TreeProject {
            root,
            tree: RefCell::new(tree),
            config_names,
            place,
            texts,
            failed: RefCell::new(None),
        }
    }

    /// The first error met reading the tree, if any.
    pub fn into_error(self) -> Option<GitError> {
        self.failed.into_inner()
    }

    fn keep<T>(&self, read: Result<T, GitError>) -> Option<T> {
        read.map_err(|e| {
            self.failed.borrow_mut().get_or_insert(e);
        })
        .ok()
    }

    /// The tree path of `relative` (to the project root); `None` when it climbs out of it.
    fn path_of(&self, relative: &str) -> Option<String> {
        let mut path = self.root.clone();
        for part in components_within(relative)? {
            if !path.is_empty() {
                path.push('/');
            }
            path.push_str(part);
        }
        Some(path)
    }

    /// The text of the regular file at the tree path `path`, if it is UTF-8 and not over the
    /// size limit.
    pub fn read_text(&self, path: &str) -> Option<String> {
        let mut bytes = Vec::new();
        let limit = MAX_FILE_SIZE as usize;
        let size = self.keep(self.tree.borrow_mut().read(path, limit, &mut bytes))??;
        if size > MAX_FILE_SIZE {
            return None;
        }
        String::from_utf8(bytes).ok()
    }

    /// The config file of the experiment at the tree path `dir`: the first of the config
    /// names that is a regular file there, as a run loads it from disk.
    pub fn config_at(&self, dir: &str) -> Option<LoadedConfig> {
        let (path, id) = self.config_names.iter().find_map(|name| {
            let path = format!("{dir}/{name}");
            match self.keep(self.tree.borrow_mut().entry(&path))? {
                Some((Mode::File, id)) => Some((path, id)),
                _ => None,
            }
        })?;
        let format = ConfigFormat::of_path(Path::new(&path))?;
        let known = self.texts.borrow_mut().get(|k| *k == id);
        let text = match known {
            Some(text) => text,
            None => {
                let text = self.read_text(&path);
                self.texts.borrow_mut().put(id, text.clone());
                text
            }
        }?;
        Some(LoadedConfig {
            path: self.place.shown(&path),
            file: tree_file(&path),
            text: text.into(),
            format,
        })
    }
}

/// A tree path as the absolute path composition works with: `/` and the tree path.
fn tree_file(path: &str) -> PathBuf {
    PathBuf::from(format!("/{path}"))
}

/// [`tree_file`]'s inverse: the tree path of `file`, when it is one.
fn tree_path(file: &Path) -> Option<String> {
    let path = file.to_str()?.strip_prefix('/')?;
    Some(path.to_string())
}

/// The bases a config composes, read from the same commit's tree (inside the project root).
impl ConfigSource for TreeProject<'_, '_> {
    fn load(&self, file: &Path) -> compose::Loaded {
        let path = tree_path(file)?;
        let inside = self.root.is_empty() || path.starts_with(&format!("{}/", self.root));
        if !inside {
            return None;
        }
        let format = ConfigFormat::of_path(file)?;
        let text: Arc<str> = Arc::from(self.read_text(&path)?);
        let shown = self.place.shown(&path);
        Some(
            match ConfigFile::parse(file.to_path_buf(), shown.clone(), text.clone(), format) {
                Ok(parsed) => Ok(Arc::new(parsed)),
                Err(error) => Err(Arc::new(InvalidFile {
                    path: file.to_path_buf(),
                    shown,
                    text,
                    error,
                })),
            },
        )
    }

    fn is_dir(&self, dir: &Path) -> bool {
        tree_path(dir).is_some_and(|path| {
            let is_dir = self.tree.borrow_mut().is_dir(&path);
            self.keep(is_dir).unwrap_or(false)
        })
    }
}

impl ProjectFs for TreeProject<'_, '_> {
    fn dir_exists(&self, relative: &str) -> bool {
        let Some(path) = self.path_of(relative) else {
            return false;
        };
        let is_dir = self.tree.borrow_mut().is_dir(&path);
        self.keep(is_dir).unwrap_or(false)
    }
}

impl ExperimentConfigs for TreeProject<'_, '_> {
    fn config(&self, exp: &str) -> Option<LoadedConfig> {
        let dir = self.path_of(exp)?;
        self.config_at(&dir)
    }

    fn project_root(&self) -> PathBuf {
        tree_file(&self.root)
    }

    fn files(&self) -> &dyn ConfigSource {
        self
    }
}
