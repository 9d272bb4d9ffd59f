//! The config file of the experiment a spec names: found, read, and parsed only when a rule
//! reads it. The spec's rules read it (`hyperparam-unknown`), and so do the rules of the
//! experiment's own files.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::formats::ConfigFormat;
use crate::json::Document;
use crate::rules::eval::ConfigDoc;
use crate::rules::functions::CONFIG_KEY;
use crate::rules::{Assertion, Condition, OtherDoc, Rule};

use super::Active;
use crate::project::{ExperimentDir, RealProject};
use crate::scratch::RecentConfigFiles;

/// How the experiment a spec names is looked up, for the config its rules read.
pub enum ExperimentLookup<'a> {
    /// Nowhere: the spec is linted on its own.
    None,
    /// This config, whatever the spec names (a rule file's case).
    Config(&'a LoadedConfig),
    /// The experiment the spec names, on disk under its project (a file of a run).
    OnDisk(ExperimentSite<'a>),
    /// The experiment the spec names, in a project that is not on disk (a commit's tree):
    /// its config asked of the project, when a rule of the spec reads it.
    Elsewhere(&'a dyn ExperimentConfigs),
}

/// The experiments of a project that is not on disk, for the config a spec's rules read.
pub trait ExperimentConfigs {
    /// The config file of the experiment folder `exp` (as a spec names it: relative to its
    /// project root); `None` when the folder has none.
    fn config(&self, exp: &str) -> Option<LoadedConfig>;
}

/// The experiment a spec on disk names, as a run reads it.
pub struct ExperimentSite<'a> {
    /// The spec's project: the experiment is a folder under its root.
    pub project: &'a RealProject<'a>,
    /// `[experiments] config`: the experiment's config file is the first of these.
    pub config_names: &'a [String],
    /// How the config file is named in findings.
    pub display: &'a (dyn Fn(&Path) -> Arc<str> + Sync),
    /// Some jobspec rule reads the experiment's config.
    pub spec_reads_config: bool,
    /// The run may lint the experiment's files: the experiment found is returned.
    pub wanted: bool,
    /// Some rule of the experiment's files reads its config: it is read for them too.
    pub files_read_config: bool,
}

/// The experiment a spec names, returned to the run that may lint its files: its folder, and
/// its config file when it was read already.
pub struct ExperimentToLint {
    pub dir: ExperimentDir,
    pub config: Option<LoadedConfig>,
}

/// What the lint of a spec read of its experiment.
pub(super) struct Opened<'a> {
    /// The experiment's config file, when it was read.
    pub config: Option<Cow<'a, LoadedConfig>>,
    /// The spec's rules read the config: it is parsed for them.
    pub for_spec: bool,
    /// The experiment found, when the run asked for it.
    pub dir: Option<ExperimentDir>,
}

impl Opened<'_> {
    /// The experiment to return to the run, with the config read for it.
    pub fn into_to_lint(self) -> Option<ExperimentToLint> {
        Some(ExperimentToLint {
            dir: self.dir?,
            config: self.config.map(Cow::into_owned),
        })
    }
}

impl<'a> ExperimentLookup<'a> {
    /// Finds the experiment the spec `doc` names and reads its config, as far as `rules` (the
    /// spec's) and the run need them.
    pub(super) fn open(
        &self,
        doc: &Document<'_>,
        rules: &[Active<'_>],
        recent: &mut RecentConfigFiles,
    ) -> Opened<'a> {
        let nothing = Opened {
            config: None,
            for_spec: false,
            dir: None,
        };
        let site = match self {
            ExperimentLookup::None => return nothing,
            ExperimentLookup::Config(config) => {
                return Opened {
                    config: Some(Cow::Borrowed(*config)),
                    for_spec: true,
                    dir: None,
                }
            }
            ExperimentLookup::OnDisk(site) => site,
            ExperimentLookup::Elsewhere(configs) => return open_elsewhere(*configs, doc, rules),
        };
        if !site.wanted && !site.spec_reads_config {
            return nothing;
        }
        let Some(dir) = site.project.experiment_dir(doc) else {
            return nothing;
        };
        let read = site.spec_reads_config || (site.wanted && site.files_read_config);
        let config = read
            .then(|| load_config(&dir.dir, site.config_names, site.display, recent))
            .flatten();
        // A config that has every key the spec looks up need not be parsed for the spec: most
        // do. The files' rules still read it.
        let for_spec = site.spec_reads_config
            && config
                .as_ref()
                .is_some_and(|c| !config_keys_present(c, doc, rules));
        Opened {
            config: config.map(Cow::Owned),
            for_spec,
            dir: site.wanted.then_some(dir),
        }
    }
}

/// [`ExperimentLookup::open`] of a project that is not on disk: the config, for the spec's
/// rules only (the run lints no experiment's files from here).
fn open_elsewhere<'a>(
    configs: &dyn ExperimentConfigs,
    doc: &Document<'_>,
    rules: &[Active<'_>],
) -> Opened<'a> {
    let config = rules
        .iter()
        .any(|a| spec_rule_reads_config(a.rule))
        .then(|| crate::project::experiment_named(doc))
        .flatten()
        .and_then(|exp| configs.config(exp));
    let for_spec = config
        .as_ref()
        .is_some_and(|c| !config_keys_present(c, doc, rules));
    Opened {
        config: config.map(Cow::Owned),
        for_spec,
        dir: None,
    }
}

/// An experiment's config file, read but not yet parsed.
#[derive(Clone)]
pub struct LoadedConfig {
    /// The file as reported.
    pub path: Arc<str>,
    pub text: String,
    pub format: crate::formats::ConfigFormat,
}

impl LoadedConfig {
    /// The config's documents, or `None` when it does not parse (rules that read it then
    /// see no config).
    pub fn parse(&self) -> Option<Vec<Document<'_>>> {
        crate::formats::parse_config(self.format, &self.text).ok()
    }

    /// The config as checks read it: its first document.
    pub fn first<'a>(&'a self, docs: &'a [Document<'a>]) -> Option<ConfigDoc<'a>> {
        docs.first().map(|doc| ConfigDoc {
            doc,
            text: &self.text,
            path: &self.path,
        })
    }
}

/// Does a check of `rule` read the `which` document in a condition?
pub fn reads(rule: &Rule, which: OtherDoc) -> bool {
    fn in_condition(c: &Condition, which: OtherDoc) -> bool {
        match c {
            Condition::Other(w, ..) => *w == which,
            Condition::Any(list) | Condition::All(list) => {
                list.iter().any(|c| in_condition(c, which))
            }
            Condition::Not(inner) => in_condition(inner, which),
            Condition::Select(..) | Condition::Fact(..) | Condition::Item(..) => false,
        }
    }
    rule.checks
        .iter()
        .any(|check| check.when.iter().any(|c| in_condition(c, which)))
}

/// Does a check of the jobspec rule `rule` read the experiment's config?
pub fn spec_rule_reads_config(rule: &Rule) -> bool {
    reads(rule, OtherDoc::Config)
        || rule
            .checks
            .iter()
            .any(|c| matches!(&c.assertion, Assertion::Function(f) if f.is(CONFIG_KEY)))
}

/// Does `config` have every key the `config-key` checks of `rules` look up in `spec`, by the
/// quick scan of a plain YAML config? `false` when it lacks one, when only a full parse can
/// tell, or when a rule reads the config some other way: then the config is parsed.
pub fn config_keys_present(
    config: &LoadedConfig,
    spec: &Document<'_>,
    rules: &[Active<'_>],
) -> bool {
    if config.format != ConfigFormat::Yaml {
        return false;
    }
    let mut keys = Vec::new();
    for rule in rules.iter().map(|a| a.rule) {
        if reads(rule, OtherDoc::Config) {
            return false;
        }
        for check in &rule.checks {
            if matches!(&check.assertion, Assertion::Function(f) if f.is(CONFIG_KEY)) {
                for m in check.select.resolve(spec).found {
                    keys.push(crate::rules::eval::last_key(&m.pointer(spec)));
                }
            }
        }
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    crate::formats::has_key_paths(&config.text, &keys).is_some_and(|found| found.iter().all(|&f| f))
}

/// The experiment's config file: the first of `names` that is a regular file in `dir`, read
/// (up to the size limit). `None` when there is none or it cannot be read.
pub fn load_config(
    dir: &Path,
    names: &[String],
    display: &dyn Fn(&Path) -> Arc<str>,
    recent: &mut RecentConfigFiles,
) -> Option<LoadedConfig> {
    let path = config_path(dir, names, recent)?;
    let format = ConfigFormat::of_path(&path)?;
    let bytes = crate::read::read_bounded(&path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(LoadedConfig {
        path: display(&path),
        text,
        format,
    })
}

/// The path of the experiment's config file, looked up once per folder among the recent ones.
fn config_path(dir: &Path, names: &[String], recent: &mut RecentConfigFiles) -> Option<PathBuf> {
    if let Some(known) = recent.get(|d| d == dir) {
        return known;
    }
    let found = names
        .iter()
        .map(|n| dir.join(n))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
    recent.put(dir.to_path_buf(), found.clone());
    found
}
