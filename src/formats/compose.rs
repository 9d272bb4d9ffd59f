//! Config composition, as Hydra 1.3 and NeMo-RL compose an experiment's config from its bases:
//! which keys the composed config has, so a spec's hyperparameter overrides are checked against
//! what the job will really load.
//!
//! - NeMo-RL (`load_config_with_inheritance`): `defaults: base.yaml` or a list of such paths,
//!   each relative to the file that names it; the bases merge in order, the file on top.
//! - Hydra: a defaults list of config names (`ppo_trainer`), group options (`optimizer: adam`,
//!   `actor@actor_rollout_ref.actor: dp_actor`, a list of options, `null`), `override` entries
//!   (the first one met, from the primary config down, wins), `optional` ones, `_self_` (where
//!   the file's own keys go; last when absent), `# @package` headers and the `_global_`/`_here_`
//!   packages. Configs are looked up in the primary config's folder, then in each
//!   `hydra.searchpath` entry: `file://path` (or no scheme) relative to the project root — the
//!   job's working folder — and else to the experiment; `pkg://` names a Python package, which
//!   cannot be read here. Group paths are relative to the containing config's group (`../optim`)
//!   or absolute (`/optim`).
//!
//! What cannot be resolved is never guessed at: a base that is not found (or does not parse,
//! or loops, or is outside the project) is a [`Problem`], and then no key is judged unknown at
//! all; an option chosen on the command line (`model: ???`, an interpolation) leaves the keys
//! under its package unjudged. The work is bounded: at most [`MAX_DEPTH`] levels and
//! [`MAX_FILES`] files, each file parsed once per run by its [`ConfigSource`].

mod file;
mod names;
mod tree;

pub use file::{ConfigFile, Defaults, Entry, EntryKind, GroupOption};
pub use names::normalize;
pub use tree::{KeyTree, Lookup, Members, Origin, Shape};

use names::{clean, final_package, join, override_key};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Span;
use crate::json::ParseError;

/// Levels of bases below the primary config followed at most.
pub const MAX_DEPTH: usize = 32;
/// Config files one composition reads at most.
pub const MAX_FILES: usize = 512;
/// Keys one composed config holds at most.
pub const MAX_KEYS: usize = 1_000_000;

/// A config file as a [`ConfigSource`] gives it: `None` when there is none that may be read,
/// an error when it does not parse.
pub type Loaded = Option<Result<Arc<ConfigFile>, Arc<InvalidFile>>>;

/// Where composition reads config files from: each parsed once, and nothing outside what may
/// be read.
pub trait ConfigSource {
    /// The config at `path` (absolute): `None` when there is no regular file there that may be
    /// read, an error when it does not parse.
    fn load(&self, path: &Path) -> Loaded;

    /// Whether `dir` is a folder (a search path entry).
    fn is_dir(&self, dir: &Path) -> bool;
}

/// A config file that does not parse.
#[derive(Debug)]
pub struct InvalidFile {
    pub path: PathBuf,
    pub shown: Arc<str>,
    pub text: Arc<str>,
    pub error: ParseError,
}

/// No files at all: composition from the primary config alone (a rule file's cases).
pub struct NoFiles;

impl ConfigSource for NoFiles {
    fn load(&self, _: &Path) -> Loaded {
        None
    }

    fn is_dir(&self, _: &Path) -> bool {
        false
    }
}

/// Where a composition happens.
pub struct Place<'a> {
    /// The project root: the job's working folder, which `file://` search paths are relative
    /// to; no file outside it is read.
    pub project_root: &'a Path,
    /// The experiment's folder: a search path not found under the root is looked for here.
    pub experiment: &'a Path,
}

/// A composed config: its keys, the files they come from, and what could not be resolved.
#[derive(Debug)]
pub struct Composed {
    pub tree: KeyTree,
    /// The files read, by the index their keys' origins name; the primary first.
    pub files: Vec<Arc<ConfigFile>>,
    /// Packages whose keys cannot be judged (`""`: the whole config).
    pub unknown: Vec<String>,
    /// What could not be resolved, each at the place that names it.
    pub problems: Vec<Problem>,
}

/// Something composition could not resolve.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The file that says it (the one naming a missing base; the one that does not parse).
    pub path: PathBuf,
    pub shown: Arc<str>,
    pub text: Arc<str>,
    pub span: Span,
    pub kind: ProblemKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProblemKind {
    /// A base that is not found: its name and the places looked in.
    Missing { name: String, searched: Vec<String> },
    /// A config that does not parse: the parser's message.
    Invalid(String),
    /// A base that is its own base, by way of others.
    Cycle(String),
    /// More than [`MAX_DEPTH`] levels, [`MAX_FILES`] files or [`MAX_KEYS`] keys.
    TooLarge,
}

impl Composed {
    /// Whether the keys under the dotted `path` can be judged.
    pub fn judged(&self, path: &str) -> bool {
        !self.unknown.iter().any(|p| {
            p.is_empty()
                || path == p
                || (path.len() > p.len()
                    && path.starts_with(p.as_str())
                    && path.as_bytes()[p.len()] == b'.')
        })
    }

    /// The composition of a config that names no base: its own keys.
    pub fn alone(primary: Arc<ConfigFile>) -> Composed {
        Composed {
            tree: primary.tree.clone(),
            files: vec![primary],
            unknown: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// Composes the config `primary` at `place`, reading its bases from `source`.
pub fn compose(primary: Arc<ConfigFile>, place: &Place<'_>, source: &dyn ConfigSource) -> Composed {
    if primary.defaults.is_none() {
        return Composed::alone(primary);
    }
    let folder = primary.path.parent().unwrap_or(Path::new("")).to_path_buf();
    let shown_folder = Path::new(&*primary.shown)
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".into());
    let mut roots = vec![SearchRoot {
        dir: Some(folder),
        shown: shown_folder,
    }];
    for (entry, _) in &primary.search_path {
        roots.push(search_root(entry, place, source));
    }
    let mut composer = Composer {
        source,
        project_root: normalize(place.project_root),
        roots,
        tree: KeyTree::default(),
        files: Vec::new(),
        chain: Vec::new(),
        overrides: HashMap::new(),
        unknown: Vec::new(),
        problems: Vec::new(),
    };
    composer.config(primary, String::new(), String::new(), 0);
    Composed {
        tree: composer.tree,
        files: composer.files,
        unknown: composer.unknown,
        problems: composer.problems,
    }
}

/// A place configs are looked up in: a folder, or one that cannot be read (`pkg://`).
#[derive(Debug)]
struct SearchRoot {
    dir: Option<PathBuf>,
    shown: String,
}

/// A `hydra.searchpath` entry as a folder: `file://` or no scheme, relative to the project
/// root, else to the experiment.
fn search_root(entry: &str, place: &Place<'_>, source: &dyn ConfigSource) -> SearchRoot {
    let shown = entry.to_string();
    let path = match entry.split_once("://") {
        Some(("file", path)) => path,
        Some(_) => return SearchRoot { dir: None, shown },
        None => entry,
    };
    if path.contains("${") {
        return SearchRoot { dir: None, shown };
    }
    let dir = if path.starts_with('/') {
        normalize(Path::new(path))
    } else {
        let in_root = normalize(&place.project_root.join(path));
        let in_experiment = normalize(&place.experiment.join(path));
        if !source.is_dir(&in_root) && source.is_dir(&in_experiment) {
            in_experiment
        } else {
            in_root
        }
    };
    SearchRoot {
        dir: Some(dir),
        shown,
    }
}

struct Composer<'a> {
    source: &'a dyn ConfigSource,
    project_root: PathBuf,
    roots: Vec<SearchRoot>,
    tree: KeyTree,
    files: Vec<Arc<ConfigFile>>,
    /// The files from the primary down to the one being composed: a base among them is a cycle.
    chain: Vec<PathBuf>,
    /// Group choices of `override` entries, by group path and package.
    overrides: HashMap<String, GroupOption>,
    unknown: Vec<String>,
    problems: Vec<Problem>,
}

/// The config being composed: its file, where its keys go, how deep it is.
struct At<'f> {
    file: &'f Arc<ConfigFile>,
    /// Its index in the composition's files.
    index: u32,
    /// Its group: its folder relative to its search root.
    group: &'f str,
    /// Where its keys go.
    package: &'f str,
    depth: usize,
}

/// A base a defaults entry names, as looked for.
struct Base<'n> {
    /// As the entry names it.
    name: &'n str,
    found: Loaded,
    /// Where it was looked for, as shown.
    searched: Vec<String>,
    /// Its group, and where its keys go.
    group: String,
    package: String,
}

impl Composer<'_> {
    /// Composes `file`, whose group is `group` (its folder relative to its search root) and
    /// whose keys go at `package`.
    fn config(&mut self, file: Arc<ConfigFile>, group: String, package: String, depth: usize) {
        let index = self.files.len() as u32;
        self.files.push(file.clone());
        self.chain.push(file.path.clone());
        let entries: Vec<Entry> = file
            .defaults
            .as_ref()
            .map(|d| d.entries.clone())
            .unwrap_or_default();
        self.note_overrides(&entries, &group, &package);
        let has_self = entries.iter().any(|e| e.what == EntryKind::SelfKeys);
        let own = Entry {
            span: Span::default(),
            what: EntryKind::SelfKeys,
        };
        let at = At {
            file: &file,
            index,
            group: &group,
            package: &package,
            depth,
        };
        for entry in entries.iter().chain((!has_self).then_some(&own)) {
            if self.gave_up() {
                break;
            }
            match &entry.what {
                EntryKind::SelfKeys => self.own_keys(&at, entry.span),
                EntryKind::File(path) => self.file_base(&at, entry.span, path),
                EntryKind::Config { path, package: p } => {
                    self.config_base(&at, entry.span, path, p.as_deref())
                }
                EntryKind::Group {
                    group: g,
                    package: p,
                    option,
                    optional,
                    overrides: false,
                } => self.group_bases(&at, entry.span, g, p.as_deref(), option, *optional),
                EntryKind::Group { .. } => {}
            }
        }
        self.chain.pop();
    }

    /// The group choices of a defaults list's `override` entries: known before any entry is
    /// expanded, and the first one met (from the primary config down) wins.
    fn note_overrides(&mut self, entries: &[Entry], group: &str, package: &str) {
        for entry in entries {
            if let EntryKind::Group {
                group: g,
                package: p,
                option,
                overrides: true,
                ..
            } = &entry.what
            {
                let key = override_key(group, g, p.as_deref(), package);
                self.overrides.entry(key).or_insert_with(|| option.clone());
            }
        }
    }

    /// `_self_`: the file's own keys, merged at its package.
    fn own_keys(&mut self, at: &At<'_>, span: Span) {
        let origin = Origin {
            file: at.index,
            span: Span::default(),
        };
        let node = self.tree.package(at.package, origin);
        self.tree.merge(node, &at.file.tree, 0, at.index);
        if self.tree.len() > MAX_KEYS {
            self.too_large(at.file, span);
        }
    }

    /// A NeMo-RL base: a file path relative to the file that names it.
    fn file_base(&mut self, at: &At<'_>, span: Span, path: &str) {
        let base = at.file.path.parent().unwrap_or(Path::new("")).join(path);
        let searched = vec![Path::new(&*at.file.shown)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| ".".into())];
        let found = self.load(&normalize(&base));
        let group = self.group_of(found.as_ref(), at.group);
        let base = Base {
            name: path,
            found,
            searched,
            group,
            package: at.package.to_string(),
        };
        self.base(at, span, base);
    }

    /// A Hydra config named in a defaults list (`ppo_trainer`, `/abs/name`, `../rel/name`).
    fn config_base(&mut self, at: &At<'_>, span: Span, path: &str, package: Option<&str>) {
        let (absolute, rel) = match path.strip_prefix('/') {
            Some(rel) => (true, rel),
            None => (false, path),
        };
        let config_path = if absolute {
            rel.to_string()
        } else {
            join(at.group, rel)
        };
        let Some(config_path) = clean(&config_path) else {
            self.missing(at.file, span, path);
            return;
        };
        let relative_group = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
        let child_group = config_path
            .rsplit_once('/')
            .map_or("", |(dir, _)| dir)
            .to_string();
        let (found, searched) = self.find(&config_path);
        let child_package = found
            .as_ref()
            .and_then(|f| f.as_ref().ok())
            .map(|f| final_package(at.package, package, f.header.as_deref(), relative_group));
        let base = Base {
            name: path,
            found,
            searched,
            group: child_group,
            package: child_package.unwrap_or_default(),
        };
        self.base(at, span, base);
    }

    /// A Hydra group entry (`optimizer: adam`, `actor@a.actor: dp_actor`, a list of options):
    /// each option chosen, or an override's choice, composed at its package.
    fn group_bases(
        &mut self,
        at: &At<'_>,
        span: Span,
        group: &str,
        package: Option<&str>,
        option: &GroupOption,
        optional: bool,
    ) {
        let (absolute, rel) = match group.strip_prefix('/') {
            Some(rel) => (true, rel),
            None => (false, group),
        };
        let Some(group_path) = clean(&if absolute {
            rel.to_string()
        } else {
            join(at.group, rel)
        }) else {
            self.missing(at.file, span, group);
            return;
        };
        let key = override_key(at.group, group, package, at.package);
        let option = self.overrides.get(&key).unwrap_or(option).clone();
        let names = match option {
            GroupOption::Nothing => return,
            GroupOption::Unknown => {
                self.unknown
                    .push(final_package(at.package, package, None, rel));
                return;
            }
            GroupOption::One(name) => vec![name],
            GroupOption::Many(names) => names,
        };
        for name in names {
            let config_path = join(&group_path, &name);
            let (found, searched) = self.find(&config_path);
            if found.is_none() && optional {
                continue;
            }
            let child_package = found
                .as_ref()
                .and_then(|f| f.as_ref().ok())
                .map(|f| final_package(at.package, package, f.header.as_deref(), rel));
            let shown_name = format!("{group}: {name}");
            let base = Base {
                name: &shown_name,
                found,
                searched,
                group: group_path.clone(),
                package: child_package.unwrap_or_default(),
            };
            self.base(at, span, base);
        }
    }

    /// A base of the file at `at`, named by the entry at `span`, as found: composed beneath,
    /// or the reason it is not.
    fn base(&mut self, at: &At<'_>, span: Span, base: Base<'_>) {
        let file = at.file;
        match base.found {
            None => self.problem(
                file,
                span,
                ProblemKind::Missing {
                    name: base.name.to_string(),
                    searched: base.searched,
                },
            ),
            Some(Err(invalid)) => {
                self.unknown.push(String::new());
                self.problems.push(Problem {
                    path: invalid.path.clone(),
                    shown: invalid.shown.clone(),
                    text: invalid.text.clone(),
                    span: Span::new(invalid.error.offset, invalid.error.offset),
                    kind: ProblemKind::Invalid(invalid.error.message.clone()),
                });
            }
            Some(Ok(found)) => {
                if self.chain.contains(&found.path) {
                    self.problem(file, span, ProblemKind::Cycle(base.name.to_string()));
                } else if at.depth + 1 > MAX_DEPTH || self.files.len() >= MAX_FILES {
                    self.too_large(file, span);
                } else {
                    self.config(found, base.group, base.package, at.depth + 1);
                }
            }
        }
    }

    fn problem(&mut self, file: &ConfigFile, span: Span, kind: ProblemKind) {
        self.unknown.push(String::new());
        self.problems.push(Problem {
            path: file.path.clone(),
            shown: file.shown.clone(),
            text: file.text.clone(),
            span,
            kind,
        });
    }

    fn missing(&mut self, file: &ConfigFile, span: Span, name: &str) {
        let searched = self.roots.iter().map(|r| r.shown.clone()).collect();
        self.problem(
            file,
            span,
            ProblemKind::Missing {
                name: name.to_string(),
                searched,
            },
        );
    }

    fn too_large(&mut self, file: &ConfigFile, span: Span) {
        if !self
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::TooLarge)
        {
            self.problem(file, span, ProblemKind::TooLarge);
        }
    }

    /// Past a limit nothing more is read.
    fn gave_up(&self) -> bool {
        self.problems
            .iter()
            .any(|p| p.kind == ProblemKind::TooLarge)
    }

    /// The config `config_path` (a path of group folders and a name, without `.yaml`) in the
    /// first search root that has it, and the roots looked in.
    fn find(&self, config_path: &str) -> (Loaded, Vec<String>) {
        let file_name = if config_path.ends_with(".yaml") || config_path.ends_with(".yml") {
            config_path.to_string()
        } else {
            format!("{config_path}.yaml")
        };
        for root in &self.roots {
            let Some(dir) = &root.dir else {
                continue;
            };
            if let Some(found) = self.load(&dir.join(&file_name)) {
                return (Some(found), Vec::new());
            }
        }
        let searched = self
            .roots
            .iter()
            .map(|r| match r.dir {
                Some(_) => r.shown.clone(),
                None => format!("{} (a Python package: not read)", r.shown),
            })
            .collect();
        (None, searched)
    }

    /// The file at `path` when it lies inside the project root.
    fn load(&self, path: &Path) -> Loaded {
        if !path.starts_with(&self.project_root) {
            return None;
        }
        self.source.load(path)
    }

    /// The group of a base found by its file path: its folder relative to the first search
    /// root holding it, else `fallback`.
    fn group_of(
        &self,
        found: Option<&Result<Arc<ConfigFile>, Arc<InvalidFile>>>,
        fallback: &str,
    ) -> String {
        let Some(Ok(file)) = found else {
            return fallback.to_string();
        };
        let folder = file.path.parent().unwrap_or(Path::new(""));
        self.roots
            .iter()
            .filter_map(|r| folder.strip_prefix(r.dir.as_ref()?).ok())
            .next()
            .map(|rel| rel.to_string_lossy().replace('\\', "/"))
            .unwrap_or_else(|| fallback.to_string())
    }
}

#[cfg(test)]
mod tests;
