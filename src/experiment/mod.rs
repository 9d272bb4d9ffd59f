//! Experiment directories: every file of an experiment linted with the experiment rules —
//! text rules over its code, config rules over its YAML, TOML and JSON — beside the spec that
//! names it. [`walk`] lists a directory's files; [`file`] lints one; [`text`] runs the text
//! rules; [`suppress`] applies the inline `# forgelint: ignore[…]` comments.

mod file;
mod spec;
mod suppress;
mod text;
mod walk;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::diagnostic::Finding;
use crate::engine::{load_config, reads, Active, LoadedConfig};
use crate::json::Document;
use crate::platform_facts::Platform;
use crate::rules::eval::{ConfigDoc, Others};
use crate::rules::OtherDoc;
use crate::scratch::{LintScratch, RecentConfigFiles, Scratch};
use crate::select::SelectorTable;

pub use file::{is_weights_file, FileCounts};
pub use spec::naming_in;

/// The rule ids of the findings the experiment walk and the suppressions make themselves.
pub const EXP_LARGE_FILE: &str = "exp-large-file";
pub const UNUSED_SUPPRESSION: &str = "unused-suppression";
pub const SUPPRESSION_WITHOUT_REASON: &str = "suppression-without-reason";

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
pub struct ExperimentLinter<'a> {
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
    /// The experiments' config files, each read and composed once.
    pub configs: crate::engine::ConfigStore,
}

impl<'a> ExperimentLinter<'a> {
    pub fn new(
        platform: &'a Platform,
        rules: &[Active<'a>],
        rules_for: Box<dyn RulesFor<'a> + 'a>,
        display: Box<Display<'a>>,
        no_ignore: bool,
        cwd: &'a Path,
        known_ids: Vec<String>,
    ) -> ExperimentLinter<'a> {
        ExperimentLinter {
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
            configs: crate::engine::ConfigStore::default(),
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
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        let loaded = config
            .is_none()
            .then(|| self.own_config(dir, &mut scratch.lint.config_files))
            .flatten();
        let parsed = loaded
            .as_ref()
            .and_then(|c| c.parse().map(|docs| (c, docs)));
        let config = config.or_else(|| parsed.as_ref().and_then(|(c, docs)| c.first(docs)));
        let others = Others {
            spec,
            config,
            composed: None,
        };
        let mut findings = Vec::new();
        walk::each_file(dir, self.no_ignore, &mut |path, problem| {
            if skip(path) {
                return;
            }
            let rel = path.strip_prefix(dir).unwrap_or(path);
            self.counts.files.fetch_add(1, Ordering::Relaxed);
            findings.extend(self.lint_file(path, rel, problem, &others, scratch));
        });
        findings
    }

    /// The config of the experiment `dir`, when an experiment rule reads it.
    fn own_config(&self, dir: &Path, recent: &mut RecentConfigFiles) -> Option<LoadedConfig> {
        if !self.reads_config {
            return None;
        }
        load_config(
            dir,
            &self.platform.experiments.config,
            &*self.display,
            recent,
        )
    }

    /// Lints one file of the experiment directory `root` (found by the walk, or named on the
    /// command line); `problem` says why it is not opened (a FIFO, a dangling link).
    pub fn lint_named_file(
        &self,
        path: &Path,
        root: &Path,
        problem: Option<String>,
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        self.with_context(root, scratch, |others, scratch| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            self.lint_file(path, rel, problem, others, scratch)
        })
    }

    /// Runs `f` with what the rules of a file of the experiment `root` may read besides it:
    /// the experiment's config and the spec that names it, each only when a rule reads it.
    fn with_context<R>(
        &self,
        root: &Path,
        scratch: &mut Scratch,
        f: impl FnOnce(&Others<'_>, &mut Scratch) -> R,
    ) -> R {
        let loaded = self.own_config(root, &mut scratch.lint.config_files);
        let parsed = loaded
            .as_ref()
            .and_then(|c| c.parse().map(|docs| (c, docs)));
        let config = parsed.as_ref().and_then(|(c, docs)| c.first(docs));
        let spec_text = if self.reads_spec {
            let root = crate::paths::normalize(root, self.cwd);
            spec::naming(&root, &mut scratch.naming_spec)
        } else {
            None
        };
        let spec = spec_text
            .as_deref()
            .and_then(|text| crate::json::parse(text).ok());
        let others = Others {
            spec: spec.as_ref(),
            config,
            composed: None,
        };
        f(&others, scratch)
    }
}

impl ExperimentLinter<'_> {
    /// Lints `bytes`, given for the file `path` of the experiment `root` (standard input with
    /// `--stdin-filename`): as the file would be linted, without reading it.
    pub fn lint_given(
        &self,
        path: &Path,
        root: &Path,
        bytes: &[u8],
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        self.lint_given_with(path, root, bytes, &Others::NONE, &mut scratch.lint)
    }

    /// [`ExperimentLinter::lint_given`] with the experiment's config and the spec that names it, as
    /// [`ExperimentLinter::lint_named_file`] reads them: for an editor's buffer of the file.
    pub fn lint_given_in_context(
        &self,
        path: &Path,
        root: &Path,
        bytes: &[u8],
        scratch: &mut Scratch,
    ) -> Vec<Finding> {
        self.with_context(root, scratch, |others, scratch| {
            self.lint_given_with(path, root, bytes, others, &mut scratch.lint)
        })
    }

    /// [`ExperimentLinter::lint_given`] with `others` as the file's context, read by the
    /// caller: for a version of the file in git history, whose context is its commit's tree.
    pub fn lint_given_with(
        &self,
        path: &Path,
        root: &Path,
        bytes: &[u8],
        others: &Others<'_>,
        scratch: &mut LintScratch,
    ) -> Vec<Finding> {
        let rel = path.strip_prefix(root).unwrap_or(path);
        let rules = self.rules_for.rules_for(path, rel);
        let name = crate::engine::FileName::ready((self.display)(path));
        if file::is_weights_file(path) {
            return self.too_large(&rules, &name, file::WEIGHTS_MESSAGE.into());
        }
        self.lint_read(path, &name, &rules, bytes, others, scratch)
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
    let display =
        |p: &Path| -> Arc<str> { crate::paths::shown(p, crate::paths::ShownFrom::as_given()) };
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
    let linter = ExperimentLinter::new(
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
    linter.lint_text(
        text,
        path,
        &name,
        &rules,
        others,
        &mut LintScratch::default(),
    )
}
