//! The workspace: its root (the folder `forgelint check` would run from), its configs compiled
//! once and kept until a config or rule file is saved, and the lint of one document's text by
//! what the document is: a jobspec, a file of an experiment, a rule file or a config.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::{Diagnostic, Uri};

use super::convert;
use crate::config::{ConfigFile, Settings, CONFIG_NAMES};
use crate::config::{ConfigTree, RecentFolders};
use crate::diagnostic::Finding;
use crate::discover::{Kind, Options};
use crate::engine::contain;
use crate::error::Error;
use crate::rules::{secret_detector, Rule};
use crate::scratch::Scratch;
use crate::secrets::Detector;

/// A document's lint: the findings (for code actions and hover) and what is published.
#[derive(Default)]
pub struct Linted {
    pub findings: Vec<Finding>,
    pub diagnostics: Vec<Diagnostic>,
}

pub struct Workspace {
    pub root: PathBuf,
    /// Compiled on the first lint; `None` again after a config or rule file changed.
    configs: Option<ConfigTree>,
    /// The secret detector of the configs' rules, made with them.
    detector: Option<Detector>,
    /// The built-in rules' secret detector: for errors, which quote a config or rule file that
    /// may not compile.
    builtin: Option<Detector>,
}

impl Workspace {
    pub fn new(root: PathBuf) -> Workspace {
        Workspace {
            root,
            configs: None,
            detector: None,
            builtin: None,
        }
    }

    /// Forgets the compiled configs: the next lint reads them again.
    pub fn reload(&mut self) {
        self.configs = None;
        self.detector = None;
    }

    /// What masks the secrets a diagnostic or hover would quote: the rules with `mask = true`
    /// of the configs (the built-in ones when they cannot be loaded).
    fn detector(&mut self) -> &Detector {
        if self.detector.is_none() {
            if let Ok(configs) = self.configs() {
                self.detector = Some(secret_detector(configs.first().rules.rules.iter()));
            }
        }
        match &self.detector {
            Some(detector) => detector,
            None => self.builtin.get_or_insert_with(|| secret_detector([])),
        }
    }

    /// The built-in rules' secret detector, made once.
    fn builtin_detector(&mut self) -> &Detector {
        self.builtin.get_or_insert_with(|| secret_detector([]))
    }

    fn configs(&mut self) -> Result<&ConfigTree, Error> {
        if self.configs.is_none() {
            let source = crate::config::ConfigSource::default();
            self.configs = Some(ConfigTree::new(&source, &self.root)?);
        }
        self.configs
            .as_ref()
            .ok_or_else(|| Error::usage("no configuration"))
    }

    /// `path` as `forgelint check` run from the root names it: relative inside the root.
    fn shown(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf())
    }

    /// Is a save of `path` a reason to compile the configs again: a config, a rule file, a
    /// catalog (any TOML file)?
    pub fn is_setting_file(path: &Path) -> bool {
        is_config(path) || path.extension().is_some_and(|e| e == "toml")
    }

    /// Lints `text`, the document at `path` (absolute), published as `uri`.
    pub fn lint(&mut self, path: &Path, text: &str, uri: &Uri) -> Linted {
        let root = self.root.clone();
        // A config or rule file has no findings: its first error, if any, is its diagnostic
        // (its secrets masked: it can quote the file). A crash is an error too: a bug, and the
        // server goes on.
        let first_error = |found: Result<Result<(), Error>, Finding>, detector: &Detector| {
            let error = found
                .unwrap_or_else(|crashed| Err(Error::usage(crashed.message)))
                .err();
            Linted {
                diagnostics: error
                    .map(|e| convert::error_diagnostic(&e.masked(detector), path, &root))
                    .into_iter()
                    .collect(),
                ..Linted::default()
            }
        };
        if is_config(path) {
            let found = contain(path, crate::paths::ShownFrom::as_given(), || {
                lint_config(path, text, &root)
            });
            return first_error(found, self.builtin_detector());
        }
        if path.extension().is_some_and(|e| e == "toml") && self.is_rule_file(path, text) {
            let found = contain(path, crate::paths::ShownFrom::as_given(), || {
                lint_rule_file(path, text)
            });
            return first_error(found, self.builtin_detector());
        }
        let shown = self.shown(path);
        match self.lint_file(&shown, text) {
            Ok(findings) => self.published(&shown, findings, uri),
            Err(error) => {
                let error = error.masked(self.builtin_detector());
                // A broken config is read again on the next lint, which reports it again.
                self.reload();
                let default_spec = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n == "jobspec.json" || n.ends_with(".jobspec.json"));
                Linted {
                    diagnostics: default_spec
                        .then(|| convert::unlintable(&error, path, &root))
                        .into_iter()
                        .collect(),
                    ..Linted::default()
                }
            }
        }
    }

    /// The findings of a spec or experiment file at `shown`; none for another file. A crash
    /// while linting it is its one finding. Each lint has caches of its own, so nothing
    /// remembered of a file outlives the lint.
    fn lint_file(&mut self, shown: &Path, text: &str) -> Result<Vec<Finding>, Error> {
        let root = self.root.clone();
        let configs = self.configs()?;
        let mut scratch = Scratch::default();
        let scratch = &mut scratch;
        let bytes = text.as_bytes();
        let found = contain(
            shown,
            crate::paths::ShownFrom::as_given(),
            || match kind_of(configs, shown, &root, scratch)? {
                Some(Kind::Spec) => {
                    crate::check::lint_spec_text(configs, shown, bytes, &root, scratch)
                }
                Some(Kind::ExperimentFile { root: exp }) => {
                    crate::check::lint_experiment_text(configs, shown, &exp, bytes, &root, scratch)
                }
                None => Ok(Vec::new()),
            },
        );
        found.unwrap_or_else(|crashed| Ok(vec![crashed]))
    }

    /// The diagnostics of a file's findings, each with its rule's documentation link.
    fn published(&mut self, shown: &Path, mut findings: Vec<Finding>, uri: &Uri) -> Linted {
        // Diagnostics, hovers and code actions quote the findings' messages: masked once here.
        self.detector().mask_findings(&mut findings);
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let root = self.root.clone();
        let diagnostics = findings
            .iter()
            .map(|f| {
                let rule = self.rule(shown, &f.rule);
                convert::diagnostic(f, uri, &root, rule)
            })
            .collect();
        Linted {
            findings,
            diagnostics,
        }
    }

    /// The rule `id` as the file at `path` sees it (its nearest config's rules).
    pub fn rule(&mut self, path: &Path, id: &str) -> Option<&Rule> {
        let shown = self.shown(path);
        let dir = shown.parent().unwrap_or(Path::new(""));
        let configs = self.configs().ok()?;
        let mut recent = RecentFolders::default();
        configs.settings_for_dir(dir, &mut recent)?.rules.get(id)
    }

    /// A TOML file is a rule file when a config loads it, or when it looks like one (a
    /// top-level `id` and a `[[check]]` table), which a new or broken one still does.
    fn is_rule_file(&mut self, path: &Path, text: &str) -> bool {
        if looks_like_rule(text) {
            return true;
        }
        let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let dir = self.shown(path.parent().unwrap_or(Path::new("/")));
        let Ok(configs) = self.configs() else {
            return false;
        };
        // The nearest config of the file's folder usually names it (a `policies/` beside it).
        configs.for_dir(&dir, &mut RecentFolders::default());
        (0..)
            .map_while(|i| configs.get(i))
            .any(|s| s.rule_paths.contains(&resolved))
    }
}

/// What the file at `shown` is linted as, as `forgelint check` would lint it named on the
/// command line: a spec when `[files] include` takes it, a file of an experiment directory by
/// `[files] experiments`; `None` for any other file. The
/// `[files]` of its nearest config decides, so a config that cannot be loaded is an error.
fn kind_of(
    configs: &ConfigTree,
    shown: &Path,
    cwd: &Path,
    scratch: &mut Scratch,
) -> Result<Option<Kind>, Error> {
    let options = Options {
        settings: configs,
        no_ignore: false,
        threads: 1,
        cwd,
        discovered_only: false,
    };
    let dir = shown.parent().unwrap_or(Path::new(""));
    let memo = &mut scratch.walk;
    let Some(settings) = configs.settings_for_dir(dir, &mut memo.folders) else {
        return Err(configs
            .take_errors()
            .into_iter()
            .next()
            .unwrap_or_else(|| Error::usage("the configuration of this folder cannot be loaded")));
    };
    if settings.files.included_by_name(shown) == Some(true) || options.wanted(shown, memo) {
        return Ok(Some(Kind::Spec));
    }
    let Some(root) = options.experiment_of(&crate::paths::normalize(shown, cwd), memo) else {
        return Ok(None);
    };
    Ok(Some(Kind::ExperimentFile {
        root: match (shown.is_relative(), root.strip_prefix(cwd)) {
            (true, Ok(relative)) => Arc::from(relative),
            _ => root,
        },
    }))
}

fn is_config(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| CONFIG_NAMES.contains(&n))
}

/// A top-level `id` key and a `[[check]]` table, by lines: it tells a rule file that does not
/// parse yet.
fn looks_like_rule(text: &str) -> bool {
    let (mut id, mut check, mut in_table) = (false, false, false);
    for line in text.lines().map(str::trim_start) {
        if line.starts_with("[[check]]") {
            check = true;
        }
        if line.starts_with('[') {
            in_table = true;
        } else if !in_table
            && line
                .strip_prefix("id")
                .is_some_and(|r| r.trim_start().starts_with('='))
        {
            id = true;
        }
    }
    id && check
}

/// The config `text` of the file at `path` compiled over the configs it extends (read from
/// disk): its first error. An error in a config outside the workspace `root` is shown without
/// that config's text, as `check` run from the root shows it.
fn lint_config(path: &Path, text: &str, root: &Path) -> Result<(), Error> {
    let base_dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let file = ConfigFile::parse(Some(path), base_dir, text)?;
    let chain = [path.canonicalize().unwrap_or_else(|_| path.to_path_buf())];
    let base = match file.extends(&chain)? {
        Some(base) => Some(Settings::load_within(&base, &[], root)?),
        None => None,
    };
    file.compile(base.as_ref(), &[]).map(drop)
}

/// The rule file `text` at `path` compiled, with its cases: its first error.
fn lint_rule_file(path: &Path, text: &str) -> Result<(), Error> {
    let name = path.display().to_string();
    crate::rules::compile_rule(&name, Arc::from(text), false)
        .map(drop)
        .map_err(Error::File)
}
