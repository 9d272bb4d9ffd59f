//! The linter of a history's versions: each version of a spec or experiment file linted in
//! memory as `check` lints the file (the nearest config's rules, from the work tree), with its
//! commit's tree as its project: the folders a spec names, its experiment's config, the spec
//! that names an experiment.

use std::collections::HashMap;
use std::hash::Hasher;
use std::path::Path;
use std::sync::Arc;

use super::place::Place;
use super::tree_project::{ConfigTexts, TreeProject};
use crate::check::in_memory::lint_spec_version;
use crate::check::plan::Plan;
use crate::check::profiles::Profile;
use crate::diagnostic::{Finding, Fnv, Provenance};
use crate::discover::{self, WalkMemo};
use crate::engine::FileName;
use crate::history::git::GitError;
use crate::history::tree::Snapshot;
use crate::history::walk::{FileVersion, Linter};
use crate::paths::ShownFrom;
use crate::read::MAX_FILE_SIZE;
use crate::rules::eval::Others;
use crate::scratch::Scratch;

/// What a path of the history is linted as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Spec,
    /// A file of the experiment folder at this git path.
    Experiment(Arc<str>),
}

/// Paths whose kind is remembered before the memory starts over: more than a history's
/// spec folders hold at once, few enough to stay small.
const KINDS_KEPT: usize = 64 * 1024;

pub struct VersionLinter<'p, 's> {
    plan: &'p Plan<'s>,
    place: &'p Place,
    scratch: Scratch,
    memo: WalkMemo,
    kinds: HashMap<Box<str>, Option<Kind>>,
    config_texts: ConfigTexts,
    /// Linting some version panicked (a bug, reported as a finding for it): exit 2.
    pub crashed: bool,
}

/// A finding's identity in a file's history: the baseline's without the path (rule, JSON
/// Pointer, hash of the offending value), so it survives edits around it and renames.
pub fn identity(f: &Finding) -> u64 {
    let mut hash = Fnv::default();
    hash.write(f.rule.as_bytes());
    hash.byte(0);
    hash.write(f.pointer.as_bytes());
    hash.byte(0);
    hash.write(&f.value_hash.to_le_bytes());
    hash.finish()
}

impl<'p, 's> VersionLinter<'p, 's> {
    pub fn new(plan: &'p Plan<'s>, place: &'p Place) -> VersionLinter<'p, 's> {
        VersionLinter {
            plan,
            place,
            scratch: Scratch::default(),
            memo: WalkMemo::default(),
            kinds: HashMap::new(),
            config_texts: ConfigTexts::default(),
            crashed: false,
        }
    }

    /// What the file at git path `path` is linted as, by the `[files]` of its config in the
    /// work tree (as the walk of `check` decides); `None`: not linted.
    pub fn kind(&mut self, path: &str) -> Option<Kind> {
        if let Some(kind) = self.kinds.get(path) {
            return kind.clone();
        }
        let abs = self.place.abs(path);
        let options = discover::Options {
            settings: self.plan.profiles.configs(),
            no_ignore: true,
            discovered_only: false,
            threads: 1,
            cwd: &self.place.cwd,
        };
        let kind = if options.wanted(&abs, &mut self.memo) {
            Some(Kind::Spec)
        } else {
            options
                .experiment_of(&abs, &mut self.memo)
                .and_then(|root| self.place.git_path(&root))
                .map(|root| Kind::Experiment(Arc::from(root)))
        };
        if self.kinds.len() >= KINDS_KEPT {
            self.kinds.clear();
        }
        self.kinds.insert(path.into(), kind.clone());
        kind
    }

    /// Lints one version of the file at git path `file.path` as `kind`, in `tree`; each
    /// finding marked with the version it is in.
    pub fn lint_as(
        &mut self,
        kind: &Kind,
        file: &FileVersion<'_>,
        tree: &mut Snapshot<'_>,
    ) -> Result<Vec<Finding>, GitError> {
        let abs = self.place.abs(file.path);
        let plan = self.plan;
        // A file whose config cannot be loaded is not linted: the run stops with its error.
        let Some(profile) = plan.profiles.for_file(&abs, &mut self.scratch.walk.folders) else {
            return Ok(Vec::new());
        };
        let mut findings = match kind {
            Kind::Spec => self.lint_spec(profile, &abs, file, tree)?,
            Kind::Experiment(root) => self.lint_experiment_file(profile, &abs, root, file, tree)?,
        };
        let version: Arc<str> = Arc::from(file.id.to_string());
        let shown = self.place.shown(file.path);
        for f in &mut findings {
            // Named from the current folder, as the spec is (the experiment linter names its
            // files from the absolute path).
            f.path = shown.clone();
            f.history = Some(Box::new(Provenance {
                version: version.clone(),
                introduced: None,
                removed: None,
            }));
        }
        Ok(findings)
    }

    fn lint_spec(
        &mut self,
        profile: &Profile<'_>,
        abs: &Path,
        file: &FileVersion<'_>,
        tree: &mut Snapshot<'_>,
    ) -> Result<Vec<Finding>, GitError> {
        let rules = profile.rules_for(abs, &self.place.cwd);
        let root = self.project_root(file.path, profile);
        let config_names = &profile.settings.platform.experiments.config;
        let project = TreeProject::new(root, tree, config_names, self.place, &self.config_texts);
        let name = FileName::ready(self.place.shown(file.path));
        // At most one byte over the size limit was read: enough to report the file as too large.
        let findings = lint_spec_version(
            profile,
            &rules,
            &name,
            file.bytes,
            &project,
            &mut self.scratch.lint,
        );
        project.into_error().map_or(Ok(findings), Err)
    }

    /// The project root of the spec at git path `path`, as `check` finds it on disk: `X` for
    /// `X/.starforge/jobspec.json`, else the folder of its config when that is in the
    /// repository, else the repository's top.
    fn project_root(&self, path: &str, profile: &Profile<'_>) -> String {
        let parent = Path::new(path).parent();
        if parent
            .and_then(Path::file_name)
            .is_some_and(|n| n == ".starforge")
        {
            let root = parent.and_then(Path::parent).unwrap_or(Path::new(""));
            return root.to_string_lossy().replace('\\', "/");
        }
        profile
            .config_root
            .as_ref()
            .and_then(|root| self.place.git_path(root))
            .unwrap_or_default()
    }

    fn lint_experiment_file(
        &mut self,
        profile: &Profile<'_>,
        abs: &Path,
        root: &str,
        file: &FileVersion<'_>,
        tree: &mut Snapshot<'_>,
    ) -> Result<Vec<Finding>, GitError> {
        let experiments = &profile.experiments;
        let config_names = &profile.settings.platform.experiments.config;
        let project = TreeProject::new(
            String::new(),
            tree,
            config_names,
            self.place,
            &self.config_texts,
        );
        let config = experiments
            .reads_config
            .then(|| project.config_at(root))
            .flatten();
        let parsed = config
            .as_ref()
            .and_then(|c| c.parse().map(|docs| (c, docs)));
        let spec_text = experiments
            .reads_spec
            .then(|| {
                let read =
                    &mut |p: &Path| project.read_text(&p.to_string_lossy().replace('\\', "/"));
                crate::experiment::naming_in(Path::new(root), read)
            })
            .flatten();
        let spec = spec_text
            .as_deref()
            .and_then(|text| crate::json::parse(text).ok());
        let others = Others {
            spec: spec.as_ref(),
            config: parsed.as_ref().and_then(|(c, docs)| c.first(docs)),
            composed: None,
        };
        let findings = experiments.lint_given_with(
            abs,
            &self.place.abs(root),
            file.bytes,
            &others,
            &mut self.scratch.lint,
        );
        project.into_error().map_or(Ok(findings), Err)
    }
}

impl Linter for VersionLinter<'_, '_> {
    type Finding = Finding;

    fn wants(&mut self, path: &str) -> bool {
        self.kind(path).is_some()
    }

    fn size_limit(&self) -> usize {
        MAX_FILE_SIZE as usize + 1
    }

    fn lint(
        &mut self,
        file: &FileVersion<'_>,
        tree: &mut Snapshot<'_>,
    ) -> Result<Vec<(u64, Finding)>, GitError> {
        let Some(kind) = self.kind(file.path) else {
            return Ok(Vec::new());
        };
        let shown = self.place.shown(file.path);
        // A panic is a bug: reported for this version, and the others are still linted.
        let findings =
            match crate::engine::contain(Path::new(&*shown), ShownFrom::as_given(), || {
                self.lint_as(&kind, file, tree)
            }) {
                Ok(linted) => linted?,
                Err(mut crashed) => {
                    self.crashed = true;
                    crashed.history = Some(Box::new(Provenance {
                        version: Arc::from(file.id.to_string()),
                        introduced: None,
                        removed: None,
                    }));
                    vec![crashed]
                }
            };
        Ok(findings.into_iter().map(|f| (identity(&f), f)).collect())
    }
}
