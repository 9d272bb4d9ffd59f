//! Experiment directories: every file of an experiment linted with the experiment rules —
//! text rules over its code, config rules over its YAML, TOML and JSON — beside the spec that
//! names it. [`walk`] lists a directory's files; [`file`] lints one; [`text`] runs the text
//! rules; [`suppress`] applies the inline `# forgelint: ignore[…]` comments.

mod file;
mod spec;
mod suppress;
mod text;
mod walk;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::diagnostic::Finding;
use crate::engine::{Active, LoadedConfig};
use crate::formats::ConfigFormat;
use crate::json::Document;
use crate::platform::Platform;
use crate::rules::eval::{ConfigDoc, Others};
use crate::rules::{Condition, OtherDoc, Rule};
use crate::select::SelectorTable;

pub use file::{is_weights_file, FileCounts};

/// The rule ids of the findings the experiment walk and the suppressions make themselves.
pub const EXP_LARGE_FILE: &str = "exp-large-file";
pub const UNUSED_SUPPRESSION: &str = "unused-suppression";

/// Bytes read to tell a binary file (a NUL among them) from a text file, as git does.
pub const BINARY_PROBE: usize = 8 * 1024;

/// The experiment rules that apply to a file: `(path, path in its experiment)`.
pub trait RulesFor<'a>: Send + Sync {
    fn rules_for(&self, path: &Path, in_experiment: &Path) -> std::borrow::Cow<'_, [Active<'a>]>;
}

/// No rules: for the linter of a rule file's cases, which passes its rules itself.
struct NoRules;

impl<'a> RulesFor<'a> for NoRules {
    fn rules_for(&self, _: &Path, _: &Path) -> std::borrow::Cow<'_, [Active<'a>]> {
        std::borrow::Cow::Borrowed(&[])
    }
}

/// How a file is shown in findings.
pub type Display<'a> = dyn Fn(&Path) -> Arc<str> + Send + Sync + 'a;

/// What linting the files of experiments shares over a run.
pub struct Linter<'a> {
    pub platform: &'a Platform,
    /// The shared selectors of the config rules (`yaml`, `toml`, `json`).
    pub config_table: SelectorTable,
    /// The experiment rules that apply to a file: `(path, path in its experiment)`.
    pub rules_for: Box<dyn RulesFor<'a> + 'a>,
    /// How a file is shown in findings.
    pub display: Box<Display<'a>>,
    pub no_ignore: bool,
    /// The folder relative paths are relative to.
    pub cwd: &'a Path,
    /// Every rule id of the rule set, running or not: a suppression naming another is a typo.
    pub known_ids: Vec<String>,
    /// The rule a file that cannot be read is reported under (`invalid-json`), if it runs.
    pub unreadable: Option<Active<'a>>,
    /// Some experiment rule reads the experiment's config (a `config` condition).
    pub reads_config: bool,
    /// Some experiment rule reads the spec that names the experiment (a `spec` condition).
    pub reads_spec: bool,
    pub counts: FileCounts,
}

impl<'a> Linter<'a> {
    pub fn new(
        platform: &'a Platform,
        rules: &[Active<'a>],
        rules_for: Box<dyn RulesFor<'a> + 'a>,
        display: Box<Display<'a>>,
        no_ignore: bool,
        cwd: &'a Path,
        known_ids: Vec<String>,
    ) -> Linter<'a> {
        Linter {
            known_ids,
            unreadable: None,
            platform,
            config_table: crate::rules::selector_table(
                rules
                    .iter()
                    .map(|a| a.rule)
                    .filter(|r| r.target.is_experiment()),
            ),
            rules_for,
            display,
            no_ignore,
            cwd,
            reads_config: rules
                .iter()
                .any(|a| a.rule.target.is_experiment() && reads(a.rule, OtherDoc::Config)),
            reads_spec: rules
                .iter()
                .any(|a| a.rule.target.is_experiment() && reads(a.rule, OtherDoc::Spec)),
            counts: FileCounts::default(),
        }
    }

    /// Lints every file of the experiment directory `dir` (not those `skip` takes), with the
    /// spec that names it and its config when known. Counted in `counts.files`: the walk
    /// does not see them.
    pub fn lint_dir(
        &self,
        dir: &Path,
        spec: Option<&Document<'_>>,
        config: Option<ConfigDoc<'_>>,
        skip: &mut dyn FnMut(&Path) -> bool,
    ) -> Vec<Finding> {
        let loaded = config.is_none().then(|| self.own_config(dir)).flatten();
        let parsed = loaded
            .as_ref()
            .and_then(|c| c.parse().map(|docs| (c, docs)));
        let config = config.or_else(|| parsed.as_ref().and_then(|(c, docs)| c.first(docs)));
        let others = Others { spec, config };
        let mut findings = Vec::new();
        walk::each_file(dir, self.no_ignore, &mut |path, problem| {
            if skip(path) {
                return;
            }
            let rel = path.strip_prefix(dir).unwrap_or(path);
            self.counts.files.fetch_add(1, Ordering::Relaxed);
            findings.extend(self.lint_file(path, rel, problem, &others));
        });
        findings
    }

    /// The config of the experiment `dir`, when an experiment rule reads it.
    fn own_config(&self, dir: &Path) -> Option<LoadedConfig> {
        if !self.reads_config {
            return None;
        }
        load_config(dir, &self.platform.experiments.config, &*self.display)
    }

    /// Lints one file of the experiment directory `root` (found by the walk, or named on the
    /// command line); `problem` says why it is not opened (a FIFO, a dangling link).
    pub fn lint_named_file(
        &self,
        path: &Path,
        root: &Path,
        problem: Option<String>,
    ) -> Vec<Finding> {
        self.with_context(root, |others| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            self.lint_file(path, rel, problem, others)
        })
    }

    /// Runs `f` with what the rules of a file of the experiment `root` may read besides it:
    /// the experiment's config and the spec that names it, each only when a rule reads it.
    fn with_context<R>(&self, root: &Path, f: impl FnOnce(&Others<'_>) -> R) -> R {
        let loaded = self.own_config(root);
        let parsed = loaded
            .as_ref()
            .and_then(|c| c.parse().map(|docs| (c, docs)));
        let config = parsed.as_ref().and_then(|(c, docs)| c.first(docs));
        let spec_text = if self.reads_spec {
            spec::naming(&crate::paths::normalize(root, self.cwd))
        } else {
            None
        };
        let spec = spec_text
            .as_deref()
            .and_then(|text| crate::json::parse(text).ok());
        f(&Others {
            spec: spec.as_ref(),
            config,
        })
    }
}

impl Linter<'_> {
    /// Lints `bytes`, given for the file `path` of the experiment `root` (standard input with
    /// `--stdin-filename`): as the file would be linted, without reading it.
    pub fn lint_given(&self, path: &Path, root: &Path, bytes: &[u8]) -> Vec<Finding> {
        self.lint_given_with(path, root, bytes, &Others::NONE)
    }

    /// [`Linter::lint_given`] with the experiment's config and the spec that names it, as
    /// [`Linter::lint_named_file`] reads them: for an editor's buffer of the file.
    pub fn lint_given_in_context(&self, path: &Path, root: &Path, bytes: &[u8]) -> Vec<Finding> {
        self.with_context(root, |others| {
            self.lint_given_with(path, root, bytes, others)
        })
    }

    fn lint_given_with(
        &self,
        path: &Path,
        root: &Path,
        bytes: &[u8],
        others: &Others<'_>,
    ) -> Vec<Finding> {
        let rel = path.strip_prefix(root).unwrap_or(path);
        let rules = self.rules_for.rules_for(path, rel);
        let name = crate::engine::FileName::ready((self.display)(path));
        if file::is_weights_file(path) {
            return self.too_large(&rules, &name, file::WEIGHTS_MESSAGE.into());
        }
        self.lint_read(path, &name, &rules, bytes, others)
    }
}

/// Lints `text` as the file `path` of an experiment, without reading the disk: for the cases
/// of rule files (`forgelint test-rules`, `explain`).
pub fn lint_in_memory(
    path: &Path,
    text: &str,
    rules: &[Active<'_>],
    platform: &Platform,
    others: &Others<'_>,
) -> Vec<Finding> {
    let rules: Vec<Active<'_>> = rules
        .iter()
        .filter(|a| a.rule.target.is_experiment() && a.rule.applies_to(path))
        .copied()
        .collect();
    let display = |p: &Path| -> Arc<str> { crate::paths::shown(p) };
    // The rules given, and every built-in rule (named after its file), running or not.
    let known = rules
        .iter()
        .map(|a| a.rule.id.clone())
        .chain(
            crate::rules::BUILTIN
                .iter()
                .filter_map(|(file, _)| file.strip_suffix(".toml").map(String::from)),
        )
        .collect();
    let linter = Linter::new(
        platform,
        &rules,
        Box::new(NoRules),
        Box::new(display),
        true,
        Path::new("/"),
        known,
    );
    let name = crate::engine::FileName::ready(display(path));
    if file::is_weights_file(path) {
        return linter.too_large(&rules, &name, file::WEIGHTS_MESSAGE.into());
    }
    linter.lint_text(text, path, &name, &rules, others)
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
    use crate::rules::functions::Function;
    use crate::rules::Assertion;
    reads(rule, OtherDoc::Config)
        || rule
            .checks
            .iter()
            .any(|c| matches!(&c.assertion, Assertion::Function(Function::ConfigKey)))
}

/// Does `config` have every key the `config-key` checks of `rules` look up in `spec`, by the
/// quick scan of a plain YAML config? `false` when it lacks one, when only a full parse can
/// tell, or when a rule reads the config some other way: then the config is parsed.
pub fn config_keys_present(
    config: &LoadedConfig,
    spec: &Document<'_>,
    rules: &[Active<'_>],
) -> bool {
    use crate::rules::functions::Function;
    use crate::rules::Assertion;
    if config.format != ConfigFormat::Yaml {
        return false;
    }
    let mut keys = Vec::new();
    for rule in rules.iter().map(|a| a.rule) {
        if reads(rule, OtherDoc::Config) {
            return false;
        }
        for check in &rule.checks {
            if let Assertion::Function(Function::ConfigKey) = check.assertion {
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
) -> Option<LoadedConfig> {
    let path = config_path(dir, names)?;
    let format = ConfigFormat::of_path(&path)?;
    let bytes = crate::read::read_bounded(&path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(LoadedConfig {
        path: display(&path),
        text,
        format,
    })
}

/// Folders whose config file a worker looked up last: many specs name the same experiment.
const RECENT_CONFIGS: usize = 16;

/// The path of the experiment's config file, looked up once per folder among the recent ones.
fn config_path(dir: &Path, names: &[String]) -> Option<PathBuf> {
    type Recent = Vec<(PathBuf, Option<PathBuf>)>;
    thread_local! {
        static RECENT: std::cell::RefCell<Recent> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if let Some(known) = RECENT.with(|r| {
        r.borrow()
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, path)| path.clone())
    }) {
        return known;
    }
    let found = names
        .iter()
        .map(|n| dir.join(n))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
    RECENT.with(|r| {
        let mut recent = r.borrow_mut();
        if recent.len() == RECENT_CONFIGS {
            recent.pop();
        }
        recent.insert(0, (dir.to_path_buf(), found.clone()));
    });
    found
}
