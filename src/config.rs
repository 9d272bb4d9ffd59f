//! `forgelint.toml`: found, parsed, and compiled into [`Settings`] once, before any file is read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::catalog::Catalog;
use crate::error::{Error, FileError};
use crate::platform::{Experiments, Platform, DEFAULT_KIND};
use crate::rules::{RuleSet, Severity};

pub const CONFIG_NAMES: [&str; 2] = ["forgelint.toml", ".forgelint.toml"];
pub const DEFAULT_INCLUDE: [&str; 2] = ["**/jobspec.json", "**/*.jobspec.json"];
pub const DEFAULT_EXPERIMENTS: [&str; 1] = ["experiments/*"];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    #[serde(default)]
    rules: Vec<Spanned<String>>,
    #[serde(default)]
    files: RawFiles,
    #[serde(default)]
    platform: RawPlatform,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    per_file_ignores: BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    experiments: RawExperiments,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawExperiments {
    host_path_roots: Option<Vec<Spanned<String>>>,
    config: Option<Spanned<StringOrList>>,
    max_file_size: Option<Spanned<i64>>,
}

/// A key that takes one name or a list of names.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum StringOrList {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawFiles {
    include: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    /// Globs of experiment directories (relative to the project root).
    experiments: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPlatform {
    kind: Option<String>,
    catalog: Option<Spanned<String>>,
    registries: Option<Vec<String>>,
    gpu_quota: Option<u64>,
    #[serde(default)]
    project_quota: BTreeMap<String, u64>,
}

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
        })
    }

    /// Whether `include` takes `path`, told from its file name alone; `None` when only the
    /// globs can tell.
    pub fn included_by_name(&self, path: &Path) -> Option<bool> {
        use std::os::unix::ffi::OsStrExt;
        let tests = self.include_names.as_ref()?;
        let bytes = path.as_os_str().as_bytes();
        // globset finds no file name in a path that ends with `.` (or `/`): left to it.
        if matches!(bytes.last(), None | Some(b'.' | b'/')) {
            return None;
        }
        let name = &bytes[bytes.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1)..];
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
    /// Per-rule severity; `None` turns the rule off.
    pub severity: BTreeMap<String, Option<Severity>>,
    pub per_file_ignores: Vec<(globset::GlobMatcher, Vec<String>)>,
}

/// Looks for a config file in `start` and its parents.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        CONFIG_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
    })
}

fn glob_set(
    name: &str,
    text: &Arc<str>,
    patterns: &[Spanned<String>],
) -> Result<GlobSet, FileError> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        builder.add(glob(name, text, p)?);
    }
    builder
        .build()
        .map_err(|e| FileError::new(name, text, None, e.to_string()))
}

fn glob(name: &str, text: &Arc<str>, p: &Spanned<String>) -> Result<Glob, FileError> {
    globset::GlobBuilder::new(p.get_ref())
        .literal_separator(true)
        .build()
        .map_err(|e| {
            FileError::new(
                name,
                text,
                Some(p.span()),
                format!("bad glob: {}", e.kind()),
            )
        })
}

/// What keeps `path`, named by the config, from being read as a file (or, `folder_ok`, walked
/// as a folder), in words that follow its name: "does not exist", "is a directory", "is a FIFO,
/// not a regular file". A device or a FIFO is refused before it is opened: reading one would
/// never end or never start.
pub(crate) fn not_readable(path: &Path, folder_ok: bool) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
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
    let what = if kind.is_file() || (folder_ok && kind.is_dir()) {
        return None;
    } else if kind.is_dir() {
        return Some("is a directory".to_string());
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    };
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
fn shown_from(err: Error, root: &Path, what: &str) -> Error {
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

impl Settings {
    /// Defaults with the built-in rules only (no config file).
    pub fn defaults(base_dir: PathBuf) -> Result<Settings, Error> {
        Settings::from_text(None, base_dir, "", &[])
    }

    /// Loads `path` and compiles it with the built-in rules plus `extra_rules` (`--rules`).
    pub fn load(path: &Path, extra_rules: &[PathBuf]) -> Result<Settings, Error> {
        refuse_special_file(path, "the configuration")?;
        let text = crate::read::read_text(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        Settings::from_text(Some(path), base, &text, extra_rules)
    }

    pub fn from_text(
        path: Option<&Path>,
        base_dir: PathBuf,
        text: &str,
        extra_rules: &[PathBuf],
    ) -> Result<Settings, Error> {
        let name = path
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "forgelint.toml".into());
        let text: Arc<str> = Arc::from(text);
        let raw: RawConfig =
            toml::from_str(&text).map_err(|e| FileError::from_toml(&name, &text, &e))?;

        let mut rules = RuleSet::builtin()?;
        for r in &raw.rules {
            let p = base_dir.join(r.get_ref());
            if let Some(problem) = not_readable(&p, true) {
                return Err(FileError::new(
                    &name,
                    &text,
                    Some(r.span()),
                    format!(
                        "rule path `{}` {problem}",
                        crate::escape::visible(&p.display().to_string())
                    ),
                )
                .into());
            }
            rules
                .load_path(&p)
                .map_err(|e| shown_from(e, &base_dir, "rule file"))?;
        }
        for p in extra_rules {
            rules.load_path(p)?;
        }
        rules.sort();

        let catalog = match &raw.platform.catalog {
            Some(c) => {
                let p = base_dir.join(c.get_ref());
                if let Some(problem) = not_readable(&p, false) {
                    return Err(FileError::new(
                        &name,
                        &text,
                        Some(c.span()),
                        format!(
                            "catalog `{}` {problem}",
                            crate::escape::visible(&p.display().to_string())
                        ),
                    )
                    .into());
                }
                let catalog = Catalog::load(&p)
                    .map_err(|e| shown_from(Error::from(e), &base_dir, "catalog"))?;
                Some(Arc::new(catalog))
            }
            None => None,
        };
        let platform = Platform {
            kind: raw
                .platform
                .kind
                .unwrap_or_else(|| DEFAULT_KIND.to_string()),
            catalog,
            registries: raw.platform.registries,
            gpu_quota: raw.platform.gpu_quota,
            project_quota: raw.platform.project_quota,
            experiments: experiments(&name, &text, raw.experiments)?,
        };

        let include_patterns: Vec<Spanned<String>> = match raw.files.include {
            Some(list) => list,
            None => DEFAULT_INCLUDE
                .iter()
                .map(|p| Spanned::new(0..0, p.to_string()))
                .collect(),
        };
        let experiment_patterns: Vec<Spanned<String>> = match raw.files.experiments {
            Some(list) => list,
            None => DEFAULT_EXPERIMENTS
                .iter()
                .map(|p| Spanned::new(0..0, p.to_string()))
                .collect(),
        };
        let files = Files::compile(
            &name,
            &text,
            &include_patterns,
            &raw.files.exclude,
            &experiment_patterns,
        )?;

        let unknown_rule = |id: &Spanned<String>| -> Error {
            let mut e = FileError::new(
                &name,
                &text,
                Some(id.span()),
                format!("unknown rule `{}`", id.get_ref()),
            );
            if let Some(s) =
                crate::error::suggest(id.get_ref(), rules.rules.iter().map(|r| r.id.as_str()))
            {
                e.help = Some(format!("did you mean `{s}`?"));
            }
            e.into()
        };
        let mut severity = BTreeMap::new();
        for (id, level) in &raw.severity {
            if rules.get(id.get_ref()).is_none() {
                return Err(unknown_rule(id));
            }
            let value = match level.get_ref().as_str() {
                "off" => None,
                other => Some(Severity::parse(other).ok_or_else(|| {
                    FileError::new(
                        &name,
                        &text,
                        Some(level.span()),
                        format!("unknown severity `{other}`"),
                    )
                    .with_help("use \"off\", \"note\", \"warning\" or \"error\"")
                })?),
            };
            severity.insert(id.get_ref().clone(), value);
        }
        let mut per_file_ignores = Vec::new();
        for (pattern, ids) in &raw.per_file_ignores {
            let matcher = glob(&name, &text, pattern)?.compile_matcher();
            for id in ids.get_ref() {
                if rules.get(id.get_ref()).is_none() {
                    return Err(unknown_rule(id));
                }
            }
            per_file_ignores.push((
                matcher,
                ids.get_ref().iter().map(|i| i.get_ref().clone()).collect(),
            ));
        }

        Ok(Settings {
            config_path: path.map(Path::to_path_buf),
            base_dir,
            platform,
            files,
            rules,
            severity,
            per_file_ignores,
        })
    }
}

/// `[experiments]` compiled: each key replaces its default.
fn experiments(name: &str, text: &Arc<str>, raw: RawExperiments) -> Result<Experiments, Error> {
    let mut out = Experiments::default();
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
mod tests {

    /// The file-name tests agree with the globs they stand for.
    #[test]
    fn include_by_name_agrees_with_the_globs() {
        let sets: [&[&str]; 4] = [
            &["**/jobspec.json", "**/*.jobspec.json"],
            &["**/spec.json"],
            &["**/*.json", "**/x"],
            &["**/*é.json"],
        ];
        let paths = [
            "jobspec.json",
            "a/jobspec.json",
            "/abs/a/jobspec.json",
            "a/b.jobspec.json",
            ".jobspec.json",
            "a/.jobspec.json",
            "jobspec.json.bak",
            "a/xjobspec.json",
            "a/jobspec.jsonx",
            "a/jobspec.json/b",
            "a//jobspec.json",
            "spec.json",
            "a/spec.json",
            "a/xspec.json",
            "x",
            "a/x",
            "a/xx",
            "a/é.json",
            "a/aé.json",
            "a/e.json",
            "a/.",
            "a/..",
            "",
        ];
        let files_of = |patterns: &[&str]| {
            let spanned: Vec<Spanned<String>> = patterns
                .iter()
                .map(|p| Spanned::new(0..0, p.to_string()))
                .collect();
            Files::compile("t", &Arc::from(""), &spanned, &[], &[]).unwrap()
        };
        for patterns in sets {
            let files = files_of(patterns);
            assert!(
                files.include_names.is_some(),
                "{patterns:?} are file-name tests"
            );
            for path in paths {
                let by_globs = files.include.is_match(path);
                match files.included_by_name(Path::new(path)) {
                    Some(by_name) => assert_eq!(by_name, by_globs, "{patterns:?} on {path:?}"),
                    None => assert!(path.is_empty() || path.ends_with('.'), "{path:?}"),
                }
            }
        }
        for patterns in [
            &["**/*.json", "specs/*.json"][..],
            &["**/a*b"],
            &["**/a.", "**/*"],
        ] {
            assert!(files_of(patterns).include_names.is_none(), "{patterns:?}");
        }
    }

    use super::*;

    fn load(text: &str) -> Result<Settings, Error> {
        Settings::from_text(None, PathBuf::from("."), text, &[])
    }

    #[test]
    fn unknown_keys_are_errors_with_did_you_mean() {
        let err = load("[platform]\ncatalg = \"x\"\n").unwrap_err();
        let Error::File(f) = err else { panic!() };
        assert!(
            f.message.contains("unknown field `catalg`"),
            "{}",
            f.message
        );
        assert_eq!(f.help.as_deref(), Some("did you mean `catalog`?"));
        assert_eq!(f.span, Some(11..17));
    }

    #[test]
    fn quota_prefers_the_project_entry() {
        let s =
            load("[platform]\ngpu-quota = 64\n[platform.project-quota]\nbig-lab = 256\n").unwrap();
        assert_eq!(s.platform.quota_for(Some("big-lab")), Some(256));
        assert_eq!(s.platform.quota_for(Some("other")), Some(64));
        assert_eq!(s.platform.quota_for(None), Some(64));
    }

    #[test]
    fn unknown_rule_ids_are_errors() {
        let err = load("[severity]\nowner-ignord = \"off\"\n").unwrap_err();
        let Error::File(f) = err else { panic!() };
        assert_eq!(f.help.as_deref(), Some("did you mean `owner-ignored`?"));
    }
}
