//! `forgelint.toml`: found, parsed, and compiled into [`Settings`] once, before any file is read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet};
use toml::Spanned;

mod raw;
mod tree;

pub(crate) use raw::RawConfig;
pub use tree::{ConfigTree, RecentFolders};

use raw::{RawExperiments, RawFiles, RawPlatform, StringOrList};

use crate::catalog::Catalog;
use crate::diagnostic::Severity;
use crate::error::{Error, FileError};
use crate::platform_facts::{Experiments, Platform, DEFAULT_KIND};
use crate::rules::RuleSet;

pub const CONFIG_NAMES: [&str; 2] = ["forgelint.toml", ".forgelint.toml"];
pub const DEFAULT_INCLUDE: [&str; 2] = ["**/jobspec.json", "**/*.jobspec.json"];
pub const DEFAULT_EXPERIMENTS: [&str; 1] = ["experiments/*"];

/// `[files]` compiled.
#[derive(Debug, Clone)]
pub struct Files {
    pub include: GlobSet,
    pub exclude: GlobSet,
    /// Experiment directories, as globs relative to the project root.
    pub experiments: GlobSet,
    /// The most path components an `experiments` glob can match (`None`: any number, `**`).
    pub experiments_depth: Option<usize>,
    /// `include` as tests of the file name, when every pattern is `**/NAME` or `**/*SUFFIX`
    /// with a plain NAME or SUFFIX (as the defaults are): the same answers without a regex
    /// per file.
    include_names: Option<Vec<NameTest>>,
    /// The patterns `include`, `exclude` and `experiments` were compiled from: a config that
    /// extends this one and sets none of its own inherits them.
    patterns: [Vec<String>; 3],
}

#[derive(Debug, Clone)]
enum NameTest {
    Is(String),
    EndsWith(String),
}

impl Files {
    /// `[files]` of the config file `name` (whose `text` a bad glob's error points into).
    fn compile(
        name: &str,
        text: &Arc<str>,
        include: &[Spanned<String>],
        exclude: &[Spanned<String>],
        experiments: &[Spanned<String>],
    ) -> Result<Files, FileError> {
        let plain = |s: &str| {
            !s.is_empty()
                && !s.ends_with('.')
                && !s.contains(['*', '?', '[', ']', '{', '}', '\\', '/'])
        };
        let include_names = include
            .iter()
            .map(|p| {
                let name = p.get_ref().strip_prefix("**/")?;
                match name.strip_prefix('*') {
                    Some(suffix) if plain(suffix) => Some(NameTest::EndsWith(suffix.to_string())),
                    None if plain(name) => Some(NameTest::Is(name.to_string())),
                    _ => None,
                }
            })
            .collect();
        Ok(Files {
            include: glob_set(name, text, include)?,
            exclude: glob_set(name, text, exclude)?,
            experiments: glob_set(name, text, experiments)?,
            experiments_depth: experiments.iter().try_fold(0, |most, p| {
                let glob = p.get_ref().trim_matches('/');
                (!glob.contains("**")).then(|| most.max(glob.split('/').count()))
            }),
            include_names,
            patterns: [include, exclude, experiments]
                .map(|list| list.iter().map(|p| p.get_ref().clone()).collect()),
        })
    }

    /// Whether `include` takes `path`, told from its file name alone; `None` when only the
    /// globs can tell.
    pub fn included_by_name(&self, path: &Path) -> Option<bool> {
        use crate::paths::is_separator;
        let tests = self.include_names.as_ref()?;
        let bytes = path.as_os_str().as_encoded_bytes();
        // globset finds no file name in a path that ends with `.` (or `/`): left to it.
        if matches!(bytes.last(), None | Some(b'.'))
            || bytes.last().is_some_and(|&b| is_separator(b))
        {
            return None;
        }
        let name = &bytes[bytes
            .iter()
            .rposition(|&b| is_separator(b))
            .map_or(0, |i| i + 1)..];
        Some(tests.iter().any(|t| match t {
            NameTest::Is(n) => name == n.as_bytes(),
            NameTest::EndsWith(suffix) => name.ends_with(suffix.as_bytes()),
        }))
    }
}

/// Everything decided before linting: platform context, rules, file patterns, overrides.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file in use, if any.
    pub config_path: Option<PathBuf>,
    /// Globs are relative to this folder (the config's, else the current directory).
    pub base_dir: PathBuf,
    pub platform: Platform,
    pub files: Files,
    pub rules: RuleSet,
    /// The rule files loaded, resolved: a config extending this one that names one again
    /// does not load it twice.
    pub rule_paths: Vec<PathBuf>,
    /// Per-rule severity; `None` turns the rule off.
    pub severity: BTreeMap<String, Option<Severity>>,
    pub per_file_ignores: Vec<(globset::GlobMatcher, Vec<String>)>,
}

/// Where a run's settings come from, in the core's terms (`--config`, `--no-config`,
/// `--rules` on the command line).
#[derive(Debug, Clone, Default)]
pub struct ConfigSource {
    /// One config for every file, instead of each file's nearest.
    pub file: Option<PathBuf>,
    /// No config file at all: the defaults.
    pub none: bool,
    /// Rule files or folders every config loads (those that extend no other).
    pub extra_rules: Vec<PathBuf>,
}

impl ConfigSource {
    /// The config of the files that have none of their own: the one named, else the nearest
    /// to `cwd`; `None` for the defaults.
    pub fn first_config(&self, cwd: &Path) -> Option<PathBuf> {
        if self.none {
            return None;
        }
        self.file.clone().or_else(|| find_config(cwd))
    }

    /// Whether each file is linted with its nearest config (else every file has the first).
    pub fn nearest(&self) -> bool {
        !self.none && self.file.is_none()
    }
}

/// Loads the settings `source` asks for: the config it names, else the nearest config to
/// `cwd`, else the defaults; its extra rule files are added to them.
pub fn load_settings(source: &ConfigSource, cwd: &Path) -> Result<Settings, Error> {
    match source.first_config(cwd) {
        Some(path) => Settings::load(&path, &source.extra_rules),
        None => Settings::defaults_with_rules(&source.extra_rules, PathBuf::from(".")),
    }
}

/// The root of the project the folder `dir` (absolute) is in, found upward: the nearest folder
/// at or above it that holds a config file (when `configs`), a `.starforge` folder or `.git`
/// (a git work tree's root). `None` when no folder does. So a run from any folder of a
/// project — `experiments/x`, `specs/` — sees the project as one from its root does.
pub fn project_root_above(dir: &Path, configs: bool) -> Option<PathBuf> {
    dir.ancestors()
        .find(|folder| {
            (configs && config_in(folder).is_some())
                || folder.join(".starforge").is_dir()
                || folder.join(".git").exists()
        })
        .map(Path::to_path_buf)
}

/// Looks for a config file in `start` and its parents.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(config_in)
}

/// The config file in the folder `dir` itself, if it holds one (the first of [`CONFIG_NAMES`]).
pub fn config_in(dir: &Path) -> Option<PathBuf> {
    CONFIG_NAMES
        .iter()
        .map(|name| crate::paths::join_name(dir, name))
        .find(|p| p.is_file())
}

fn glob_set(
    name: &str,
    text: &Arc<str>,
    patterns: &[Spanned<String>],
) -> Result<GlobSet, FileError> {
    crate::paths::glob_set(patterns.iter().map(|p| (p.get_ref().as_str(), p.span())))
        .map_err(|(span, message)| FileError::new(name, text, span, message))
}

fn glob(name: &str, text: &Arc<str>, p: &Spanned<String>) -> Result<Glob, FileError> {
    crate::paths::glob(p.get_ref())
        .map_err(|message| FileError::new(name, text, Some(p.span()), message))
}

/// What keeps `path`, named by the config, from being read as a file (or, `folder_ok`, walked
/// as a folder), in words that follow its name: "does not exist", "is a directory", "is a FIFO,
/// not a regular file". A device or a FIFO is refused before it is opened: reading one would
/// never end or never start.
pub(crate) fn not_readable(path: &Path, folder_ok: bool) -> Option<String> {
    let kind = match std::fs::metadata(path) {
        Ok(meta) => meta.file_type(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(if std::fs::symlink_metadata(path).is_ok() {
                "is a symbolic link to nothing".to_string()
            } else {
                "does not exist".to_string()
            });
        }
        Err(e) => return Some(format!("cannot be read: {e}")),
    };
    if kind.is_file() || (folder_ok && kind.is_dir()) {
        return None;
    } else if kind.is_dir() {
        return Some("is a directory".to_string());
    }
    let what = crate::paths::special_kind(&kind);
    let or_folder = if folder_ok { " or folder" } else { "" };
    Some(format!("is {what}, not a regular file{or_folder}"))
}

/// A FIFO, device, socket or folder given where a file of ours belongs (`--config`,
/// `--baseline`) is refused by what it is, before it is opened; a missing file is left to the
/// read, whose error says so.
pub(crate) fn refuse_special_file(path: &Path, what: &str) -> Result<(), Error> {
    match not_readable(path, false) {
        Some(why) if why.starts_with("is ") => Err(Error::Usage {
            message: format!(
                "{what} {} {why}",
                crate::escape::visible(&path.display().to_string())
            ),
            help: None,
        }),
        _ => Ok(()),
    }
}

/// `err`, about a file the config names, as it may be shown from a config in `root` (the
/// project): whole for a file inside it, without the file's text for one outside. In CI the
/// config comes from the pull request, and a code frame of `/etc/passwd` or a runner's
/// credentials must not reach a public log.
pub(crate) fn shown_from(err: Error, root: &Path, what: &str) -> Error {
    match err {
        Error::File(e)
            if !e.source.inner().is_empty() && !inside(Path::new(e.source.name()), root) =>
        {
            Error::File(Box::new(e.without_text(what, root)))
        }
        other => other,
    }
}

/// Whether `file` is under `root` once both are resolved (links followed); when either cannot
/// be resolved, it is not.
fn inside(file: &Path, root: &Path) -> bool {
    match (file.canonicalize(), root.canonicalize()) {
        (Ok(file), Ok(root)) => file.starts_with(root),
        _ => false,
    }
}

/// A config file read and parsed, not yet compiled: what it `extend`s is compiled first.
pub struct ConfigFile {
    path: Option<PathBuf>,
    name: String,
    text: Arc<str>,
    base_dir: PathBuf,
    raw: RawConfig,
}

/// How many configs an `extend` chain may hold.
const MAX_EXTEND_DEPTH: usize = 32;

impl ConfigFile {
    /// Reads and parses the config file at `path`.
    pub fn read(path: &Path) -> Result<ConfigFile, Error> {
        refuse_special_file(path, "the configuration")?;
        let text = crate::read::read_text(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        let base_dir = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        ConfigFile::parse(Some(path), base_dir, &text)
    }

    /// Parses `text`, the config at `path` (none: the defaults, or a test's text).
    pub fn parse(path: Option<&Path>, base_dir: PathBuf, text: &str) -> Result<ConfigFile, Error> {
        let name = path
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "forgelint.toml".into());
        let text: Arc<str> = Arc::from(text);
        let raw: RawConfig =
            toml::from_str(&text).map_err(|e| FileError::from_toml(&name, &text, &e))?;
        Ok(ConfigFile {
            path: path.map(Path::to_path_buf),
            name,
            text,
            base_dir,
            raw,
        })
    }

    /// The config file this one extends, resolved against its folder. `chain` holds the
    /// configs that extend this one (resolved paths), for a loop to be an error, not a hang.
    pub fn extends(&self, chain: &[PathBuf]) -> Result<Option<PathBuf>, Error> {
        let Some(extend) = &self.raw.extend else {
            return Ok(None);
        };
        let at = |message: String| -> Error {
            FileError::new(&self.name, &self.text, Some(extend.span()), message).into()
        };
        let path = self.base_dir.join(extend.get_ref());
        let shown = crate::escape::visible(&path.display().to_string()).into_owned();
        if let Some(problem) = not_readable(&path, false) {
            return Err(at(format!("`extend`: `{shown}` {problem}")));
        }
        let resolved = path.canonicalize().unwrap_or_else(|_| path.clone());
        if chain.contains(&resolved) {
            return Err(at(format!(
                "`extend`: `{shown}` extends this file in turn; a chain of configs cannot loop"
            )));
        }
        if chain.len() >= MAX_EXTEND_DEPTH {
            return Err(at(format!(
                "`extend`: more than {MAX_EXTEND_DEPTH} configs extend one another"
            )));
        }
        Ok(Some(path))
    }

    /// Compiles the config over `base`, the config it extends (if any): each key it sets
    /// replaces the base's, tables (`[severity]`, `[per-file-ignores]`,
    /// `[platform.project-quota]`) are merged key by key, and rule files add up. `extra_rules`
    /// (`--rules`) are loaded by the first config of a chain and inherited from it.
    pub fn compile(
        self,
        base: Option<&Settings>,
        extra_rules: &[PathBuf],
    ) -> Result<Settings, Error> {
        let ConfigFile {
            path,
            name,
            text,
            base_dir,
            raw,
        } = self;
        let (rules, rule_paths) =
            load_rules(&name, &text, &base_dir, &raw.rules, base, extra_rules)?;
        let platform = platform(&name, &text, &base_dir, raw.platform, raw.experiments, base)?;
        let files = files(&name, &text, raw.files, base)?;
        let severity = severity(&name, &text, &raw.severity, &rules, base)?;
        let mut per_file_ignores = base.map(|b| b.per_file_ignores.clone()).unwrap_or_default();
        for (pattern, ids) in &raw.per_file_ignores {
            let matcher = glob(&name, &text, pattern)?.compile_matcher();
            for id in ids.get_ref() {
                if rules.get(id.get_ref()).is_none() {
                    return Err(unknown_rule(&name, &text, id, &rules));
                }
            }
            per_file_ignores.push((
                matcher,
                ids.get_ref().iter().map(|i| i.get_ref().clone()).collect(),
            ));
        }
        Ok(Settings {
            config_path: path,
            base_dir,
            platform,
            files,
            rules,
            rule_paths,
            severity,
            per_file_ignores,
        })
    }
}

impl Settings {
    /// Defaults with the built-in rules only (no config file).
    pub fn defaults(base_dir: PathBuf) -> Result<Settings, Error> {
        Settings::from_text(None, base_dir, "", &[])
    }

    /// Defaults with the built-in rules and `extra_rules` (`--rules`), without a config file;
    /// globs are relative to `base_dir` (the project root, `.` for the current directory).
    pub fn defaults_with_rules(
        extra_rules: &[PathBuf],
        base_dir: PathBuf,
    ) -> Result<Settings, Error> {
        let mut settings = Settings::defaults(base_dir)?;
        for p in extra_rules {
            settings.rules.load_path(p)?;
        }
        settings.rules.sort();
        Ok(settings)
    }

    /// Loads `path`, over the configs it extends, and compiles it with the built-in rules plus
    /// `extra_rules` (`--rules`).
    pub fn load(path: &Path, extra_rules: &[PathBuf]) -> Result<Settings, Error> {
        let shown = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Settings::load_within(path, extra_rules, &shown)
    }

    /// [`Settings::load`] for a run in the folder `shown`: an error in a config outside it is
    /// shown without that config's text (see [`shown_from`]).
    pub fn load_within(
        path: &Path,
        extra_rules: &[PathBuf],
        shown: &Path,
    ) -> Result<Settings, Error> {
        load_chain(path, extra_rules, &mut Vec::new(), shown)
            .map_err(|e| shown_from(e, shown, "configuration"))
    }

    /// Compiles the config `text` (its own; an `extend` in it is an error here).
    pub fn from_text(
        path: Option<&Path>,
        base_dir: PathBuf,
        text: &str,
        extra_rules: &[PathBuf],
    ) -> Result<Settings, Error> {
        let file = ConfigFile::parse(path, base_dir, text)?;
        if let Some(extend) = &file.raw.extend {
            return Err(FileError::new(
                &file.name,
                &file.text,
                Some(extend.span()),
                "`extend` needs a config read from a file",
            )
            .into());
        }
        file.compile(None, extra_rules)
    }
}

/// Loads the config at `path` over the chain it extends. An error in a config it extends
/// outside `shown` (the folder of the run) gives no code frame: see [`shown_from`].
fn load_chain(
    path: &Path,
    extra_rules: &[PathBuf],
    chain: &mut Vec<PathBuf>,
    shown: &Path,
) -> Result<Settings, Error> {
    chain.push(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()));
    let file = ConfigFile::read(path)?;
    let base = match file.extends(chain)? {
        Some(base) => Some(
            load_chain(&base, extra_rules, chain, shown)
                .map_err(|e| shown_from(e, shown, "configuration"))?,
        ),
        None => None,
    };
    file.compile(base.as_ref(), extra_rules)
}

/// The rule set of a config: the base's (or the built-in rules and `extra_rules`) and the rule
/// files it names, each file once; with the resolved paths of every rule file loaded.
fn load_rules(
    name: &str,
    text: &Arc<str>,
    base_dir: &Path,
    paths: &[Spanned<String>],
    base: Option<&Settings>,
    extra_rules: &[PathBuf],
) -> Result<(RuleSet, Vec<PathBuf>), Error> {
    let (mut rules, mut loaded) = match base {
        Some(base) => (base.rules.clone(), base.rule_paths.clone()),
        None => (RuleSet::builtin()?, Vec::new()),
    };
    for r in paths {
        let p = base_dir.join(r.get_ref());
        if let Some(problem) = not_readable(&p, true) {
            return Err(FileError::new(
                name,
                text,
                Some(r.span()),
                format!(
                    "rule path `{}` {problem}",
                    crate::escape::visible(&p.display().to_string())
                ),
            )
            .into());
        }
        // A base config's rule files, named again, are already loaded.
        rules
            .load_path_once(&p, &mut loaded)
            .map_err(|e| shown_from(e, base_dir, "rule file"))?;
    }
    if base.is_none() {
        for p in extra_rules {
            rules.load_path_once(p, &mut loaded)?;
        }
    }
    rules.sort();
    Ok((rules, loaded))
}

/// `[platform]` and `[experiments]`, each key over the base's.
fn platform(
    name: &str,
    text: &Arc<str>,
    base_dir: &Path,
    raw: RawPlatform,
    raw_experiments: RawExperiments,
    base: Option<&Settings>,
) -> Result<Platform, Error> {
    let base = base.map(|b| &b.platform);
    let catalog = match &raw.catalog {
        Some(c) => {
            let p = base_dir.join(c.get_ref());
            if let Some(problem) = not_readable(&p, false) {
                return Err(FileError::new(
                    name,
                    text,
                    Some(c.span()),
                    format!(
                        "catalog `{}` {problem}",
                        crate::escape::visible(&p.display().to_string())
                    ),
                )
                .into());
            }
            let catalog =
                Catalog::load(&p).map_err(|e| shown_from(Error::from(e), base_dir, "catalog"))?;
            Some(Arc::new(catalog))
        }
        None => base.and_then(|b| b.catalog.clone()),
    };
    let mut project_quota = base.map(|b| b.project_quota.clone()).unwrap_or_default();
    project_quota.extend(raw.project_quota);
    Ok(Platform {
        kind: raw
            .kind
            .or_else(|| base.map(|b| b.kind.clone()))
            .unwrap_or_else(|| DEFAULT_KIND.to_string()),
        catalog,
        registries: raw
            .registries
            .or_else(|| base.and_then(|b| b.registries.clone())),
        gpu_quota: raw.gpu_quota.or_else(|| base.and_then(|b| b.gpu_quota)),
        project_quota,
        experiments: experiments(
            name,
            text,
            raw_experiments,
            base.map(|b| b.experiments.clone()).unwrap_or_default(),
        )?,
    })
}

/// `[files]`: each list the config sets, else the base's, else the default.
fn files(
    name: &str,
    text: &Arc<str>,
    raw: RawFiles,
    base: Option<&Settings>,
) -> Result<Files, Error> {
    let inherited = |at: usize, defaults: &[&str]| -> Vec<Spanned<String>> {
        let from_base = base.map(|b| b.files.patterns[at].clone());
        from_base
            .unwrap_or_else(|| defaults.iter().map(|p| p.to_string()).collect())
            .into_iter()
            .map(|p| Spanned::new(0..0, p))
            .collect()
    };
    let include = raw
        .include
        .unwrap_or_else(|| inherited(0, &DEFAULT_INCLUDE));
    let exclude = raw.exclude.unwrap_or_else(|| inherited(1, &[]));
    let experiments = raw
        .experiments
        .unwrap_or_else(|| inherited(2, &DEFAULT_EXPERIMENTS));
    Ok(Files::compile(
        name,
        text,
        &include,
        &exclude,
        &experiments,
    )?)
}

/// `[severity]` over the base's.
fn severity(
    name: &str,
    text: &Arc<str>,
    raw: &BTreeMap<Spanned<String>, Spanned<String>>,
    rules: &RuleSet,
    base: Option<&Settings>,
) -> Result<BTreeMap<String, Option<Severity>>, Error> {
    let mut severity = base.map(|b| b.severity.clone()).unwrap_or_default();
    for (id, level) in raw {
        if rules.get(id.get_ref()).is_none() {
            return Err(unknown_rule(name, text, id, rules));
        }
        let value = match level.get_ref().as_str() {
            "off" => None,
            other => Some(Severity::parse(other).ok_or_else(|| {
                FileError::new(
                    name,
                    text,
                    Some(level.span()),
                    format!("unknown severity `{other}`"),
                )
                .with_help("use \"off\", \"note\", \"warning\" or \"error\"")
            })?),
        };
        severity.insert(id.get_ref().clone(), value);
    }
    Ok(severity)
}

fn unknown_rule(name: &str, text: &Arc<str>, id: &Spanned<String>, rules: &RuleSet) -> Error {
    let mut e = FileError::new(
        name,
        text,
        Some(id.span()),
        format!("unknown rule `{}`", crate::escape::visible(id.get_ref())),
    );
    if let Some(s) = crate::error::suggest(id.get_ref(), rules.rules.iter().map(|r| r.id.as_str()))
    {
        e.help = Some(format!("did you mean `{s}`?"));
    }
    e.into()
}

/// `[experiments]` compiled: each key replaces its default.
fn experiments(
    name: &str,
    text: &Arc<str>,
    raw: RawExperiments,
    mut out: Experiments,
) -> Result<Experiments, Error> {
    if let Some(roots) = raw.host_path_roots {
        for root in &roots {
            let r = root.get_ref();
            let is_root = r == "~"
                || (r.starts_with('~') && r.len() > 2)
                || (r.starts_with('/') && r.trim_end_matches('/').len() > 1)
                || (r.ends_with(':') && r.len() > 1);
            if !is_root {
                return Err(FileError::new(
                    name,
                    text,
                    Some(root.span()),
                    format!("`{}` is not a host path root", crate::escape::visible(r)),
                )
                .with_help("a root is an absolute folder such as \"/mnt\", \"~\" or a scheme such as \"file:\"")
                .into());
            }
        }
        out.host_path_roots = roots
            .into_iter()
            .map(|r| r.into_inner().trim_end_matches('/').to_string())
            .collect();
    }
    if let Some(config) = raw.config {
        out.config = match config.into_inner() {
            StringOrList::One(one) => vec![one],
            StringOrList::Many(many) => many,
        };
    }
    if let Some(size) = raw.max_file_size {
        out.max_file_size = u64::try_from(*size.get_ref())
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                FileError::new(
                    name,
                    text,
                    Some(size.span()),
                    "`max-file-size` is a number of bytes, 1 or more",
                )
            })?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
