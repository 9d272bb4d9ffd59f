//! One file's text linted as `check` lints the file it stands for, without reading that file:
//! for an editor (`forgelint lsp`), whose buffer is newer than the disk. The file gets its
//! nearest config's rules, as in a run; the experiment a spec names is read for its config
//! (`hyperparam-unknown`) but its files are not linted, as they are not the file at hand.

use std::path::Path;
use std::sync::Arc;

use super::profiles::Profile;
use super::profiles::RuleChoice;
use crate::config::ConfigTree;
use crate::diagnostic::Finding;
use crate::engine::{
    self, Active, ExperimentConfigs, ExperimentLookup, FileName, LintInput, SpecInput,
};
use crate::error::Error;
use crate::project::{mentions_starforge, DirCache, RealProject};
use crate::rules::eval::ProjectFs;
use crate::scratch::{LintScratch, Scratch};

/// Lints `bytes` as the spec at `path` (relative to `cwd`, or absolute), with the rules of
/// its nearest config in `configs`. An error when that config cannot be loaded.
pub fn lint_spec_text(
    configs: &ConfigTree,
    path: &Path,
    bytes: &[u8],
    cwd: &Path,
    scratch: &mut Scratch,
) -> Result<Vec<Finding>, Error> {
    with_profile(configs, path, cwd, scratch, |profile, scratch| {
        let from = crate::paths::ShownFrom {
            cwd,
            root: configs.root(),
        };
        let name = || -> Arc<str> { crate::paths::shown(path, from) };
        let name = FileName::lazy(&name);
        let active = profile.rules_for(path, cwd);
        let cache = DirCache::default();
        let project = RealProject {
            spec: path,
            memo: &scratch.dirs,
            config_root: profile.config_root.as_ref(),
            cwd,
            cwd_mentions_starforge: mentions_starforge(cwd),
            cache: &cache,
        };
        // Its experiment's config is read; its files are not the file at hand.
        let input = profile.spec_input(&active, &project, false);
        engine::lint_spec(bytes, &name, &input, &mut scratch.lint).findings
    })
}

/// Lints `bytes` as the file at `path` of the experiment directory `root`, with the experiment
/// rules of its nearest config, the experiment's config and the spec that names it.
pub fn lint_experiment_text(
    configs: &ConfigTree,
    path: &Path,
    root: &Path,
    bytes: &[u8],
    cwd: &Path,
    scratch: &mut Scratch,
) -> Result<Vec<Finding>, Error> {
    with_profile(configs, path, cwd, scratch, |profile, scratch| {
        profile
            .experiments
            .lint_given_in_context(path, root, bytes, scratch)
    })
}

/// Lints `bytes` as a version of the spec `name` with `rules` (`profile`'s for it), in a
/// project that is not on disk (a commit's tree, for `forgelint history` and `--new-from-rev`):
/// `project` answers which of its folders exist, and gives the config of the experiment the
/// spec names.
pub fn lint_spec_version<P: ProjectFs + ExperimentConfigs>(
    profile: &Profile<'_>,
    rules: &[Active<'_>],
    name: &FileName<'_>,
    bytes: &[u8],
    project: &P,
    scratch: &mut LintScratch,
) -> Vec<Finding> {
    let input = SpecInput {
        lint: LintInput {
            rules,
            table: &profile.table,
            platform: &profile.settings.platform,
            project,
        },
        experiment: ExperimentLookup::Elsewhere(project),
    };
    engine::lint_spec(bytes, name, &input, scratch).findings
}

/// Runs `f` with the profile of the file at `path`, built for this one file.
fn with_profile<R>(
    configs: &ConfigTree,
    path: &Path,
    cwd: &Path,
    scratch: &mut Scratch,
    f: impl FnOnce(&Profile<'_>, &mut Scratch) -> R,
) -> Result<R, Error> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let Some(settings) = configs.settings_for_dir(dir, &mut scratch.walk.folders) else {
        return Err(configs.take_errors().into_iter().next().unwrap_or_else(|| {
            Error::usage("the configuration of this file cannot be loaded (reported before)")
        }));
    };
    // Every rule, and `.gitignore` read, as a run with no flags.
    let from = crate::paths::ShownFrom {
        cwd,
        root: configs.root(),
    };
    let profile = Profile::new(&RuleChoice::default(), false, settings, from);
    Ok(f(&profile, scratch))
}
