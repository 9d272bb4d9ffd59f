//! One file's text linted as `check` lints the file it stands for, without reading that file:
//! for an editor (`forgelint lsp`), whose buffer is newer than the disk. The file gets its
//! nearest config's rules, as in a run; the experiment a spec names is read for its config
//! (`hyperparam-unknown`) but its files are not linted, as they are not the file at hand.

use std::path::Path;
use std::sync::Arc;

use super::profiles::Profile;
use crate::cli::CheckArgs;
use crate::configs::Configs;
use crate::diagnostic::Finding;
use crate::engine::{self, DirCache, FileName, OpenedExperiment, RealProject, SpecExperiment};
use crate::error::Error;
use crate::experiment;
use crate::json::Document;

/// Lints `bytes` as the spec at `path` (relative to `cwd`, or absolute), with the rules of
/// its nearest config in `configs`. An error when that config cannot be loaded.
pub fn lint_spec_text(
    configs: &Configs,
    path: &Path,
    bytes: &[u8],
    cwd: &Path,
) -> Result<Vec<Finding>, Error> {
    let args = CheckArgs::default();
    with_profile(configs, &args, path, cwd, |profile| {
        let name = || -> Arc<str> { crate::paths::shown(path) };
        let name = FileName::lazy(&name);
        let active = profile.rules_for(path, cwd);
        let cache = DirCache::default();
        let project = RealProject {
            spec: path,
            config_root: profile.config_root.as_ref(),
            cwd,
            cwd_mentions_starforge: engine::mentions_starforge(cwd),
            cache: &cache,
        };
        let experiment = ConfigOnly {
            spec: path,
            profile,
            cwd,
            cache: &cache,
        };
        engine::lint_named(
            bytes,
            &name,
            &active,
            &profile.table,
            &profile.settings.platform,
            &project,
            &experiment,
        )
    })
}

/// Lints `bytes` as the file at `path` of the experiment directory `root`, with the experiment
/// rules of its nearest config, the experiment's config and the spec that names it.
pub fn lint_experiment_text(
    configs: &Configs,
    path: &Path,
    root: &Path,
    bytes: &[u8],
    cwd: &Path,
) -> Result<Vec<Finding>, Error> {
    let args = CheckArgs::default();
    with_profile(configs, &args, path, cwd, |profile| {
        profile.experiments.lint_given_in_context(path, root, bytes)
    })
}

/// Runs `f` with the profile of the file at `path`, built for this one file.
fn with_profile<R>(
    configs: &Configs,
    args: &CheckArgs,
    path: &Path,
    cwd: &Path,
    f: impl FnOnce(&Profile<'_>) -> R,
) -> Result<R, Error> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let Some(settings) = configs.for_dir(dir).and_then(|i| configs.get(i)) else {
        return Err(configs.take_errors().into_iter().next().unwrap_or_else(|| {
            Error::usage("the configuration of this file cannot be loaded (reported before)")
        }));
    };
    Ok(f(&Profile::new(args, settings, cwd)))
}

/// The experiment of a spec linted on its own: its config is read, its files are not.
struct ConfigOnly<'a, 's> {
    spec: &'a Path,
    profile: &'a Profile<'s>,
    cwd: &'a Path,
    cache: &'a DirCache,
}

impl SpecExperiment for ConfigOnly<'_, '_> {
    fn open(&self, doc: &Document<'_>) -> Option<OpenedExperiment> {
        open_experiment(doc, self.spec, self.profile, self.cwd, self.cache, None)
    }
}

/// Whether a spec's experiment files are linted with it: `None` when they are not wanted;
/// else asked with the experiment's folder and the spec's `.starforge` project root, if any.
pub(super) type LintsFiles<'a> = Option<&'a dyn Fn(&Path, Option<&Path>) -> bool>;

/// The experiment directory the spec `doc` at `spec` names, with its config file when a rule
/// reads it; `None` when it names none that exists, or nothing needs it.
pub(super) fn open_experiment(
    doc: &Document<'_>,
    spec: &Path,
    profile: &Profile<'_>,
    cwd: &Path,
    cache: &DirCache,
    lints_files: LintsFiles<'_>,
) -> Option<OpenedExperiment> {
    if lints_files.is_none() && !profile.spec_reads_config {
        return None;
    }
    let exp = source_exp(doc)?;
    if exp.is_empty() || crate::rules::functions::path_escape(exp).is_some() {
        return None;
    }
    let root = engine::project_root(spec, profile.config_root.as_ref(), cwd, cache);
    // Asked once already by source-exp-missing: the answer is cached.
    if !cache.is_dir(&root, exp) {
        return None;
    }
    let dir = crate::paths::normalize(&root.join(exp), cwd);
    let starforge_root = engine::mentions_starforge(spec).then_some(&*root);
    let lint_files = lints_files.is_some_and(|lints| lints(&dir, starforge_root));
    let reads_config =
        profile.spec_reads_config || (lint_files && profile.experiments.reads_config);
    let config = reads_config
        .then(|| {
            experiment::load_config(
                &dir,
                &profile.settings.platform.experiments.config,
                &*profile.experiments.display,
            )
        })
        .flatten()
        // A config that has every key the spec looks up need not be parsed: most do.
        .filter(|config| {
            (lint_files && profile.experiments.reads_config)
                || !experiment::config_keys_present(config, doc, &profile.spec_rules)
        });
    Some(OpenedExperiment {
        dir,
        config,
        lint_files,
    })
}

/// `spec.source.exp`, when it is a string.
fn source_exp<'d>(doc: &'d Document<'_>) -> Option<&'d str> {
    let spec = doc.get(doc.root(), "spec")?;
    let source = doc.get(spec, "source")?;
    doc.as_str(doc.get(source, "exp")?)
}
