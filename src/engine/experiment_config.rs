//! The config file of the experiment a spec names: found, read, and parsed only when a rule
//! reads it. The spec's rules read it (`hyperparam-unknown`), and so do the rules of the
//! experiment's own files.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Finding, Locator, Severity, Span};
use crate::escape::quote;
use crate::formats::compose::{
    self, Composed, ConfigFile, ConfigSource, NoFiles, Place, Problem, ProblemKind,
};
use crate::formats::ConfigFormat;
use crate::json::{Document, ParseError};
use crate::rules::eval::{ConfigDoc, MAX_VALUE_CHARS};
use crate::rules::functions::CONFIG_KEY;
use crate::rules::{Assertion, Condition, OtherDoc, Rule};

use super::config_store::ConfigStore;
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

    /// The project root, as the paths of its configs (`LoadedConfig::file`) are written.
    fn project_root(&self) -> PathBuf;

    /// Where the bases of a config are read from, inside the project.
    fn files(&self) -> &dyn ConfigSource;
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
    /// The run's config files and their compositions, each made once.
    pub store: &'a ConfigStore,
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
    /// The experiment found on disk.
    pub dir: Option<ExperimentDir>,
    /// The run asked for the experiment, to lint its files.
    pub wanted: bool,
}

impl Opened<'_> {
    /// The experiment to return to the run, with the config read for it.
    pub fn into_to_lint(self) -> Option<ExperimentToLint> {
        Some(ExperimentToLint {
            dir: self.dir.filter(|_| self.wanted)?,
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
            wanted: false,
        };
        let site = match self {
            ExperimentLookup::None => return nothing,
            ExperimentLookup::Config(config) => {
                return Opened {
                    config: Some(Cow::Borrowed(*config)),
                    for_spec: !config_keys_present(config, doc, rules),
                    dir: None,
                    wanted: false,
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
        // do, in the file or in the bases it names by path. The files' rules still read it.
        let mut bases = Bases {
            store: site.store,
            root: &dir.project_root,
            recent,
        };
        let for_spec = site.spec_reads_config
            && config
                .as_ref()
                .is_some_and(|c| !keys_present(c, doc, rules, Some(&mut bases)));
        Opened {
            config: config.map(Cow::Owned),
            for_spec,
            dir: Some(dir),
            wanted: site.wanted,
        }
    }

    /// The config `config` (whose first document is `doc`) composed with its bases, as the
    /// spec's `config-key` checks read it.
    pub(super) fn composed(
        &self,
        opened: &Opened<'_>,
        config: &LoadedConfig,
        doc: &Document<'_>,
    ) -> Option<Arc<Composed>> {
        let primary = || {
            Arc::new(ConfigFile::of_document(
                config.file.clone(),
                config.path.clone(),
                config.text.clone(),
                doc,
            ))
        };
        match self {
            ExperimentLookup::None => None,
            // A rule file's case: the config alone, whose bases are nowhere.
            ExperimentLookup::Config(_) => {
                let place = Place {
                    project_root: Path::new("/"),
                    experiment: Path::new("/"),
                };
                Some(Arc::new(compose::compose(primary(), &place, &NoFiles)))
            }
            ExperimentLookup::OnDisk(site) => {
                let dir = opened.dir.as_ref()?;
                let place = Place {
                    project_root: &dir.project_root,
                    experiment: &dir.dir,
                };
                Some(
                    site.store
                        .composed(primary, &config.file, &place, site.display),
                )
            }
            // A commit's tree: the bases are read from the same tree.
            ExperimentLookup::Elsewhere(configs) => {
                let root = configs.project_root();
                let place = Place {
                    project_root: &root,
                    experiment: config.file.parent()?,
                };
                Some(Arc::new(compose::compose(
                    primary(),
                    &place,
                    configs.files(),
                )))
            }
        }
    }

    /// Whether `what`, at `at` in the config file `path`, is said for the first time in the
    /// run (a rule file's case: always).
    fn first_time(&self, path: &Path, at: u32, what: &'static str) -> bool {
        match self {
            ExperimentLookup::OnDisk(site) => site.store.first_time(path, at, what),
            _ => true,
        }
    }

    /// The findings about the experiment's config itself, each once per run: `config-invalid`
    /// where it (or a base of it) does not parse, a note of the `config-key` rule
    /// (`hyperparam-unknown`) where a base cannot be resolved.
    pub(super) fn config_findings(
        &self,
        problems: &[Problem],
        rules: &[Active<'_>],
    ) -> Vec<Finding> {
        let invalid = rules.iter().find(|a| a.rule.id == CONFIG_INVALID);
        let unknown = rules.iter().find(|a| {
            a.rule
                .checks
                .iter()
                .any(|c| matches!(&c.assertion, Assertion::Function(f) if f.is(CONFIG_KEY)))
        });
        let mut findings = Vec::new();
        for problem in problems {
            let (active, severity, message, what) = match &problem.kind {
                ProblemKind::Invalid(message) => (
                    invalid,
                    invalid.map(|a| a.severity),
                    format!(
                        "the experiment's config does not parse: {}",
                        crate::escape::visible(message)
                    ),
                    CONFIG_INVALID,
                ),
                kind => (
                    unknown,
                    Some(Severity::Note),
                    unresolved_message(kind),
                    CONFIG_KEY,
                ),
            };
            let (Some(active), Some(severity)) = (active, severity) else {
                continue;
            };
            if self.first_time(&problem.path, problem.span.start, what) {
                findings.push(config_finding(problem, &active.rule.id, severity, message));
            }
        }
        findings
    }
}

/// The id of the rule a config that does not parse is reported under.
pub const CONFIG_INVALID: &str = "config-invalid";

/// What a note says of a base that could not be resolved.
fn unresolved_message(kind: &ProblemKind) -> String {
    let not_checked = "hyperparameter overrides are not checked against this config";
    match kind {
        ProblemKind::Missing { name, searched } => format!(
            "the base config {} is not found (looked in {}): {not_checked}",
            quote(name, MAX_VALUE_CHARS),
            searched
                .iter()
                .map(|s| crate::escape::visible(s).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ProblemKind::Cycle(name) => format!(
            "the base config {} leads back to a config that names it (a cycle of defaults): {not_checked}",
            quote(name, MAX_VALUE_CHARS)
        ),
        ProblemKind::TooLarge => format!(
            "the config composes more than {} levels, {} files or {} keys: {not_checked}",
            compose::MAX_DEPTH,
            compose::MAX_FILES,
            compose::MAX_KEYS
        ),
        ProblemKind::Invalid(message) => crate::escape::visible(message).into_owned(),
    }
}

/// A finding in a config file, at a problem's place.
fn config_finding(problem: &Problem, rule: &str, severity: Severity, message: String) -> Finding {
    let text = &problem.text;
    let mut span = problem.span;
    if span.is_empty() {
        // A parser's error is a point: the character there.
        let at = (span.start as usize).min(text.len());
        let width = text[at..].chars().next().map_or(0, char::len_utf8);
        span = Span::new(at, at + width);
    }
    let (span, start, end) = Locator::new(text).positions(span);
    let excerpt = text
        .get(span.start as usize..span.end as usize)
        .unwrap_or_default();
    Finding {
        span,
        start,
        end,
        value_hash: crate::diagnostic::value_hash(excerpt),
        ..super::at_file_start(&problem.shown, rule, severity, message)
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
        wanted: false,
    }
}

/// An experiment's config file, read but not yet parsed.

#[derive(Clone)]
pub struct LoadedConfig {
    /// The file as reported.
    pub path: Arc<str>,
    /// The file (absolute, for one on disk).
    pub file: PathBuf,
    pub text: Arc<str>,
    pub format: crate::formats::ConfigFormat,
}

impl LoadedConfig {
    /// The config's documents, or `None` when it does not parse (rules that read it then
    /// see no config).
    pub fn parse(&self) -> Option<Vec<Document<'_>>> {
        self.parse_or_error().ok()
    }

    /// The config's documents, or the parser's error.
    pub fn parse_or_error(&self) -> Result<Vec<Document<'_>>, ParseError> {
        crate::formats::parse_config(self.format, &self.text)
    }

    /// The problem of a config that does not parse, for `config-invalid`.
    pub fn invalid(&self, error: &ParseError) -> Problem {
        Problem {
            path: self.file.clone(),
            shown: self.path.clone(),
            text: self.text.clone(),
            span: Span::new(error.offset, error.offset),
            kind: ProblemKind::Invalid(error.message.clone()),
        }
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
    keys_present(config, spec, rules, None)
}

/// Where the bases of a config are read from, for the quick scan, and where the texts read
/// are handed on to the experiment's own lint.
struct Bases<'a> {
    store: &'a ConfigStore,
    root: &'a Path,
    recent: &'a mut RecentConfigFiles,
}

/// Config files the quick scan reads at most: the config and the bases it names by path.
const SCANNED_FILES: usize = 16;

/// [`config_keys_present`], looking in the bases the config names by path (NeMo-RL's
/// `defaults: base.yaml`) too, when `bases` says where to read them: a key in any file of the
/// chain is a key of the composed config (a base's mapping is merged key by key, unless an
/// `_override_` replaces it, which the scan leaves to the full composition). Anything else —
/// a Hydra defaults list, a base outside the project, a file the scan cannot read — is
/// answered by composing.
fn keys_present(
    config: &LoadedConfig,
    spec: &Document<'_>,
    rules: &[Active<'_>],
    bases: Option<&mut Bases<'_>>,
) -> bool {
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
    if keys.is_empty() {
        // Nothing to look up: the config need not be read as a whole.
        return true;
    }
    if config.format != ConfigFormat::Yaml {
        return false;
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let Some(mut found) = crate::formats::has_key_paths(&config.text, &keys) else {
        return false;
    };
    if found.iter().all(|&f| f) {
        return true;
    }
    let Some(bases) = bases else {
        return false;
    };
    if config.text.contains("_override_") || bases.store.has_composed(&config.file, bases.root) {
        return false;
    }
    let Some(names) = file_bases(&config.text) else {
        return false;
    };
    let mut queue = vec![(config.file.clone(), names)];
    let mut scanned = 1;
    while let Some((from, names)) = queue.pop() {
        for name in names {
            scanned += 1;
            if scanned > SCANNED_FILES {
                return false;
            }
            let dir = from.parent().unwrap_or(Path::new(""));
            let path = compose::normalize(&dir.join(name));
            let text = if path.parent() == config.file.parent() {
                // In the config's folder, as the config was read; not through a link, which
                // could lead anywhere on the machine.
                bases.recent.folders.read_text_unlinked(&path).ok()
            } else {
                bases.store.text_inside(&path, bases.root)
            };
            let Some(text) = text else {
                return false;
            };
            let text: Arc<str> = Arc::from(text);
            bases.recent.hand_on(&path, &text);
            if text.contains("_override_") {
                return false;
            }
            let Some(more) = crate::formats::has_key_paths(&text, &keys) else {
                return false;
            };
            for (f, m) in found.iter_mut().zip(more) {
                *f |= m;
            }
            let Some(names) = file_bases(&text) else {
                return false;
            };
            queue.push((path, names));
        }
    }
    found.iter().all(|&f| f)
}

/// The bases a YAML config names by path in a top-level `defaults` (NeMo-RL's `defaults:
/// base.yaml`, a flow or block list of such paths), none when it has no `defaults`; `None`
/// when the key is there in any other shape (a Hydra defaults list): only a parse can tell.
fn file_bases(text: &str) -> Option<Vec<String>> {
    // Only the lines that start with `defaults:` are read (found by one vectorised search, not
    // line by line: this runs for every spec whose overrides the config alone does not hold).
    static DEFAULTS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"defaults:"));
    let bytes = text.as_bytes();
    let mut starts = DEFAULTS
        .find_iter(bytes)
        .filter(|&at| at == 0 || bytes[at - 1] == b'\n');
    let Some(at) = starts.next() else {
        return Some(Vec::new());
    };
    if starts.next().is_some() {
        // Two: not a config the scan reads.
        return None;
    }
    let mut lines = text[at + "defaults:".len()..].lines();
    let rest = strip_comment(lines.next().unwrap_or("")).trim();
    let mut out = Vec::new();
    if let Some(flow) = rest.strip_prefix('[') {
        let flow = flow.strip_suffix(']')?;
        for item in flow.split(',').filter(|i| !i.trim().is_empty()) {
            out.push(base_path(item)?);
        }
    } else if !rest.is_empty() {
        out.push(base_path(rest)?);
    } else {
        // A block list: its items, indented or at the key's own column.
        for item in lines {
            let body = item.trim_start();
            if body.is_empty() || body.starts_with('#') {
                continue;
            }
            match body.strip_prefix("- ") {
                Some(entry) => out.push(base_path(strip_comment(entry))?),
                None if item.starts_with([' ', '-']) => return None,
                None => break,
            }
        }
    }
    Some(out)
}

/// A `defaults` entry that is a plain path to a YAML file (quotes taken off), else `None`.
fn base_path(entry: &str) -> Option<String> {
    let entry = entry.trim();
    let entry = entry
        .strip_prefix('"')
        .and_then(|e| e.strip_suffix('"'))
        .or_else(|| entry.strip_prefix('\'').and_then(|e| e.strip_suffix('\'')))
        .unwrap_or(entry);
    let plain = !entry.is_empty()
        && !entry.contains(|c: char| c.is_whitespace() || matches!(c, ':' | '@' | '$' | '{'));
    (plain && (entry.ends_with(".yaml") || entry.ends_with(".yml"))).then(|| entry.to_string())
}

/// `text` up to a YAML comment (` #`).
fn strip_comment(text: &str) -> &str {
    match text.find(" #") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// The experiment's config file: the first of `names` that is a regular file in `dir`, read
/// (up to the size limit). `None` when there is none or it cannot be read.
pub fn load_config(
    dir: &Path,
    names: &[String],
    display: &dyn Fn(&Path) -> Arc<str>,
    recent: &mut RecentConfigFiles,
) -> Option<LoadedConfig> {
    let (path, bytes) = read_config_file(dir, names, recent)?;
    let format = ConfigFormat::of_path(&path)?;
    let text: Arc<str> = Arc::from(String::from_utf8(bytes).ok()?);
    recent.hand_on(&path, &text);
    Some(LoadedConfig {
        path: display(&path),
        file: path,
        text,
        format,
    })
}

/// The path and bytes of the experiment's config file. Which name it has is found once per
/// folder among the recent ones, by reading (a name that is missing, or is no regular file,
/// fails to read): no look at each name's metadata first.
fn read_config_file(
    dir: &Path,
    names: &[String],
    recent: &mut RecentConfigFiles,
) -> Option<(PathBuf, Vec<u8>)> {
    if let Some(known) = recent.paths.get(|d| d.as_os_str() == dir.as_os_str()) {
        let path = known?;
        let bytes = recent.folders.read(&path).ok()?;
        return Some((path, bytes));
    }
    let found = names.iter().find_map(|name| {
        let path = dir.join(name);
        let bytes = recent.folders.read(&path).ok()?;
        Some((path, bytes))
    });
    recent.paths.put(
        dir.to_path_buf(),
        found.as_ref().map(|(path, _)| path.clone()),
    );
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_named_by_path_and_nothing_else() {
        let bases = |text: &str| file_bases(text);
        let names = |list: &[&str]| Some(list.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(bases("policy:\n  lr: 1\n"), names(&[]));
        assert_eq!(
            bases("defaults: \"grpo_math_1B.yaml\"\npolicy: {}\n"),
            names(&["grpo_math_1B.yaml"])
        );
        assert_eq!(
            bases("defaults: ../../grpo.yaml  # the family's base\n"),
            names(&["../../grpo.yaml"])
        );
        assert_eq!(
            bases("defaults: [a.yaml, 'b.yml']\n"),
            names(&["a.yaml", "b.yml"])
        );
        assert_eq!(
            bases("defaults:\n  - sft.yaml\n- ../x.yaml\npolicy:\n  lr: 1\n"),
            names(&["sft.yaml", "../x.yaml"])
        );
        // Hydra's lists, and anything else, are left to the full composition.
        assert_eq!(bases("defaults:\n  - ppo_trainer\n  - _self_\n"), None);
        assert_eq!(bases("defaults:\n  - optim: adam.yaml\n"), None);
        assert_eq!(bases("defaults: [ppo_trainer, _self_]\n"), None);
        assert_eq!(bases("defaults: a.yaml\ndefaults: b.yaml\n"), None);
        // Only a top-level `defaults:` at the start of its line names bases.
        assert_eq!(
            bases("model:\n  defaults: x.yaml\nname: \"defaults: y.yaml\"\n"),
            names(&[])
        );
        assert_eq!(
            bases("# c\r\ndefaults:\r\n  - a.yaml\r\nlr: 1\r\n"),
            names(&["a.yaml"])
        );
        assert_eq!(bases("defaults: ${oc.env:X}.yaml\n"), None);
    }
}
