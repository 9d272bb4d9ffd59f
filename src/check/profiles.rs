//! What each config of a run decides, resolved once per config: the rules that run and at
//! which severity, which of them apply to a file, the selectors they share, and the linter of
//! experiment files. A file is linted with the profile of its nearest config
//! ([`crate::config::ConfigTree`]); most runs have one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use crate::config::Settings;
use crate::config::{ConfigTree, RecentFolders};
use crate::diagnostic::INVALID_JSON;
use crate::engine::{Active, ExperimentLookup, ExperimentSite, LintInput, SpecInput};
use crate::experiment;
use crate::paths::relative_to;
use crate::project::RealProject;
use crate::select::SelectorTable;

pub struct Profile<'s> {
    pub settings: &'s Settings,
    /// The rules that run, each at its configured severity.
    pub rules: Vec<Active<'s>>,
    /// Those of them that read jobspecs.
    pub spec_rules: Vec<Active<'s>>,
    /// Those of them that read experiment files.
    pub experiment_rules: Vec<Active<'s>>,
    /// `invalid-json`, if it runs: unreadable files are reported under it.
    pub invalid_json: Option<Active<'s>>,
    /// Whether some rule applies to some files only: decided once, as most runs scope nothing.
    pub scoped: bool,
    /// The folder of the config file, absolute: the project root of the specs under it.
    pub config_root: Option<Arc<Path>>,
    /// The selectors of the jobspec rules, shared.
    pub table: SelectorTable,
    /// Some jobspec rule reads the experiment's config (`hyperparam-unknown`).
    pub spec_reads_config: bool,
    pub experiments: experiment::ExperimentLinter<'s>,
    /// Some file was linted with it: only those count in the run's notes.
    used: AtomicBool,
}

impl<'s> Profile<'s> {
    pub(super) fn new(
        choice: &RuleChoice,
        no_ignore: bool,
        settings: &'s Settings,
        from: crate::paths::ShownFrom<'s>,
    ) -> Profile<'s> {
        let cwd = from.cwd;
        let rules = active_rules(choice, settings);
        let (experiment_rules, spec_rules): (Vec<Active<'s>>, Vec<Active<'s>>) =
            rules.iter().partition(|a| a.rule.target.is_experiment());
        let scoped = scopes_rules(&rules, settings);
        let invalid_json = rules.iter().find(|a| a.rule.id == INVALID_JSON).copied();
        let rules_for = ExperimentRules {
            settings,
            scoped,
            rules: experiment_rules.clone(),
            cwd,
        };
        // Experiment files are found under absolute folders (a spec's experiment, a run from
        // inside one): named from the working folder as every other file.
        let display = move |path: &Path| -> Arc<str> { crate::paths::shown(path, from) };
        let mut experiments = experiment::ExperimentLinter::new(
            &settings.platform,
            &experiment_rules,
            Box::new(rules_for),
            Box::new(display),
            no_ignore,
            cwd,
            settings.rules.rules.iter().map(|r| r.id.clone()).collect(),
        );
        experiments.unreadable = invalid_json;
        Profile {
            settings,
            table: crate::rules::selector_table(spec_rules.iter().map(|a| a.rule)),
            spec_reads_config: spec_rules
                .iter()
                .any(|a| crate::engine::spec_rule_reads_config(a.rule)),
            config_root: settings
                .config_path
                .as_ref()
                .map(|_| Arc::from(crate::paths::normalize(&settings.base_dir, cwd))),
            rules,
            spec_rules,
            experiment_rules,
            invalid_json,
            scoped,
            experiments,
            used: AtomicBool::new(false),
        }
    }

    /// The jobspec rules that apply to a file at `path` (per-file ignores, a rule's own `files`
    /// and `ignores`); the relative path is made only when some rule is scoped.
    pub fn rules_for(&self, path: &Path, cwd: &Path) -> Cow<'_, [Active<'s>]> {
        if !self.scoped {
            return Cow::Borrowed(&self.spec_rules);
        }
        let relative = relative_to(path, &self.settings.base_dir, cwd);
        let ignored = ignored_at(self.settings, &relative);
        Cow::Owned(
            self.spec_rules
                .iter()
                .filter(|a| !ignored.contains(&a.rule.id.as_str()) && a.rule.applies_to(&relative))
                .copied()
                .collect(),
        )
    }

    /// What linting a spec of `project` with `rules` (this profile's for it) reads: its
    /// experiment on disk, whose files the run may lint when `lint_files`.
    pub fn spec_input<'a>(
        &'a self,
        rules: &'a [Active<'s>],
        project: &'a RealProject<'a>,
        lint_files: bool,
    ) -> SpecInput<'a> {
        SpecInput {
            lint: LintInput {
                rules,
                table: &self.table,
                platform: &self.settings.platform,
                project,
            },
            experiment: ExperimentLookup::OnDisk(self.experiment_site(project, lint_files)),
        }
    }

    /// The experiment a spec at `project` names, as this profile reads it; `lint_files`: the
    /// run may lint its files.
    fn experiment_site<'a>(
        &'a self,
        project: &'a RealProject<'a>,
        lint_files: bool,
    ) -> ExperimentSite<'a> {
        ExperimentSite {
            project,
            config_names: &self.settings.platform.experiments.config,
            display: &*self.experiments.display,
            spec_reads_config: self.spec_reads_config,
            wanted: lint_files && !self.experiment_rules.is_empty(),
            files_read_config: self.experiments.reads_config,
            store: &self.experiments.configs,
        }
    }

    /// Whether some file was linted with this profile.
    pub fn used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }
}

/// The experiment rules of a profile.
struct ExperimentRules<'s> {
    settings: &'s Settings,
    scoped: bool,
    rules: Vec<Active<'s>>,
    cwd: &'s Path,
}

impl<'s> experiment::RulesFor<'s> for ExperimentRules<'s> {
    /// The experiment rules that apply to a file at `path`, which is `in_experiment` in its
    /// experiment directory: per-file ignores match the first, a rule's own globs the second.
    fn rules_for(&self, path: &Path, in_experiment: &Path) -> Cow<'_, [Active<'s>]> {
        if !self.scoped {
            return Cow::Borrowed(&self.rules);
        }
        let settings = self.settings;
        let ignored = if settings.per_file_ignores.is_empty() {
            Vec::new()
        } else {
            ignored_at(settings, &relative_to(path, &settings.base_dir, self.cwd))
        };
        self.rules
            .iter()
            .filter(|a| !ignored.contains(&a.rule.id.as_str()) && a.rule.applies_to(in_experiment))
            .copied()
            .collect()
    }
}

/// The rule ids per-file ignores turn off at `relative` (to the config's folder).
fn ignored_at<'s>(settings: &'s Settings, relative: &Path) -> Vec<&'s str> {
    settings
        .per_file_ignores
        .iter()
        .filter(|(glob, _)| glob.is_match(relative))
        .flat_map(|(_, ids)| ids.iter().map(String::as_str))
        .collect()
}

/// The rules a run asks for (`--select`, `--ignore`): every rule when both are empty.
#[derive(Debug, Clone, Default)]
pub struct RuleChoice {
    /// Only these, when there are any.
    pub select: Vec<String>,
    /// Never these.
    pub ignore: Vec<String>,
}

impl RuleChoice {
    fn allows(&self, id: &str) -> bool {
        (self.select.is_empty() || self.select.iter().any(|s| s == id))
            && !self.ignore.iter().any(|i| i == id)
    }
}

/// The rules the run's choice and `[severity]` leave, at their severity.
fn active_rules<'s>(choice: &RuleChoice, settings: &'s Settings) -> Vec<Active<'s>> {
    settings
        .rules
        .rules
        .iter()
        .filter(|r| choice.allows(&r.id))
        .filter_map(|r| {
            let severity = match settings.severity.get(&r.id) {
                Some(None) => return None,
                Some(Some(s)) => *s,
                None => r.severity,
            };
            Some(Active { rule: r, severity })
        })
        .collect()
}

/// Whether some rule applies to some files only (per-file ignores, a rule's own `files` or
/// `ignores`).
fn scopes_rules(rules: &[Active<'_>], settings: &Settings) -> bool {
    !settings.per_file_ignores.is_empty()
        || rules
            .iter()
            .any(|a| a.rule.files.is_some() || a.rule.ignores.is_some())
}

/// The profiles of a run, one per config met, each built when its first file is.
pub struct Profiles<'s> {
    configs: &'s ConfigTree,
    choice: &'s RuleChoice,
    no_ignore: bool,
    cwd: &'s Path,
    built: boxcar::Vec<Profile<'s>>,
    /// Per config (its index in [`ConfigTree`]): its profile's index in `built`.
    of_config: RwLock<HashMap<usize, usize>>,
}

impl<'s> Profiles<'s> {
    /// The profiles of `configs`, with the first config's built now.
    pub fn new(
        configs: &'s ConfigTree,
        choice: &'s RuleChoice,
        no_ignore: bool,
        cwd: &'s Path,
    ) -> Profiles<'s> {
        let profiles = Profiles {
            configs,
            choice,
            no_ignore,
            cwd,
            built: boxcar::Vec::new(),
            of_config: RwLock::default(),
        };
        profiles.of_index(configs.first_index());
        profiles
    }

    /// The profile of files that have no config of their own.
    pub fn first(&self) -> &Profile<'s> {
        &self.built[0]
    }

    /// The profile the files in folder `dir` are linted with; `None` when their config cannot
    /// be loaded (the run then stops with its error).
    /// `recent` holds the asking worker's latest answers.
    pub fn for_dir(&self, dir: &Path, recent: &mut RecentFolders) -> Option<&Profile<'s>> {
        let profile = self.of_index(self.configs.for_dir(dir, recent)?)?;
        if !profile.used.load(Ordering::Relaxed) {
            profile.used.store(true, Ordering::Relaxed);
        }
        Some(profile)
    }

    /// The profile the file at `path` is linted with.
    pub fn for_file(&self, path: &Path, recent: &mut RecentFolders) -> Option<&Profile<'s>> {
        self.for_dir(path.parent().unwrap_or(Path::new("")), recent)
    }

    fn of_index(&self, config: usize) -> Option<&Profile<'s>> {
        if let Some(&at) = self.of_config.read().ok()?.get(&config) {
            return self.built.get(at);
        }
        let mut of_config = self.of_config.write().ok()?;
        if let Some(&at) = of_config.get(&config) {
            return self.built.get(at);
        }
        let settings = self.configs.get(config)?;
        let at = self.built.push(Profile::new(
            self.choice,
            self.no_ignore,
            settings,
            self.shown_from(),
        ));
        of_config.insert(config, at);
        self.built.get(at)
    }

    /// Every profile built, first the first.
    pub fn iter(&self) -> impl Iterator<Item = &Profile<'s>> {
        self.built.iter().map(|(_, p)| p)
    }

    /// The profiles some file was linted with (the first when none was).
    pub fn used(&self) -> Vec<&Profile<'s>> {
        let used: Vec<&Profile<'s>> = self.iter().filter(|p| p.used()).collect();
        if used.is_empty() {
            vec![self.first()]
        } else {
            used
        }
    }

    pub fn configs(&self) -> &'s ConfigTree {
        self.configs
    }

    /// Where the run names files from: its folder, and the project root above it.
    pub fn shown_from(&self) -> crate::paths::ShownFrom<'s> {
        crate::paths::ShownFrom {
            cwd: self.cwd,
            root: self.configs.root(),
        }
    }
}
