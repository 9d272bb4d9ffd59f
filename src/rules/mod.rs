//! Rules as data: the compiled rule model, the embedded built-in rules and rule-folder loading.
//!
//! A rule file (TOML, see `schema`) is compiled once into a [`Rule`] before any jobspec is read:
//! selectors parsed, regexes and semver ranges compiled, message placeholders checked, functions
//! and their options validated. A bad rule file fails here with its own line and column.

mod cases;
mod compile;
mod config_key;
pub mod eval;
pub mod faults;
pub mod fix;
pub mod functions;
mod hits;
mod mask;
mod path;
pub mod pattern;
pub mod plan;
mod prebuilt;
mod predicate;
pub(crate) use predicate::string_passes;
pub mod schema;
mod shape;
pub mod template;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Safety, Severity};
use crate::error::{Error, FileError};
pub use crate::platform_facts::Needs;
use crate::select::{Selector, SelectorTable};
pub use cases::{apply_patch, Case, CaseContext, CaseSource, Fixed};
pub use compile::compile_rule;
pub use eval::{Hit, Lit};
pub use mask::secret_detector;
pub use pattern::{Pattern, TextMatch, TextPattern};
use template::Template;

/// What kind of file a rule reads: jobspecs, or the files of an experiment directory as text
/// or as parsed config (YAML, TOML, JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Jobspec,
    Text,
    Yaml,
    Toml,
    Json,
}

impl Target {
    pub const NAMES: [&'static str; 5] = ["jobspec", "text", "yaml", "toml", "json"];
    pub fn parse(s: &str) -> Option<Target> {
        Some(match s {
            "jobspec" => Target::Jobspec,
            "text" => Target::Text,
            "yaml" => Target::Yaml,
            "toml" => Target::Toml,
            "json" => Target::Json,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    /// Reads the files of experiment directories, not jobspecs.
    pub fn is_experiment(self) -> bool {
        self != Target::Jobspec
    }
}

/// Which regions of a text file a `pattern` may match in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    String,
    Comment,
    Code,
    Any,
}

impl Scope {
    pub const NAMES: [&'static str; 4] = ["string", "comment", "code", "any"];
    pub fn parse(s: &str) -> Option<Scope> {
        Some(match s {
            "string" => Scope::String,
            "comment" => Scope::Comment,
            "code" => Scope::Code,
            "any" => Scope::Any,
            _ => return None,
        })
    }
}

/// How a rule's findings come about when it has no checks of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportedBy {
    /// By its checks.
    Checks,
    /// By the JSON loader (`invalid-json`).
    Parser,
    /// By the experiment walk: a file too large or a weights file (`exp-large-file`).
    Walker,
    /// By the inline suppressions of a text file (`unused-suppression`).
    Suppressions,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportAt {
    Key,
    Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    Null,
}

impl JsonType {
    pub const NAMES: [&'static str; 7] = [
        "string", "integer", "number", "boolean", "array", "object", "null",
    ];
    pub fn parse(s: &str) -> Option<JsonType> {
        Some(match s {
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "boolean" => JsonType::Boolean,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            "null" => JsonType::Null,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A value a predicate compares against: written in the rule, or looked up per document.
#[derive(Debug, Clone)]
pub enum Operand {
    Literal(Lit),
    /// A fact of the admission catalog about the spec's recipe, e.g. `recipe.version`.
    Fact(Fact),
    /// A `[platform]` setting, e.g. `registries`.
    Setting(Setting),
    /// The values at another place of the same document.
    Select(Selector),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    RecipeKnown,
    RecipeVersion,
    RecipeDigest,
    RecipeRuntimeId,
    RecipeObservability,
    RecipeCustom,
    RecipeRequiresCore,
    CatalogRecipes,
}

impl Fact {
    pub const ALL: [(&'static str, Fact); 8] = [
        ("recipe.known", Fact::RecipeKnown),
        ("recipe.version", Fact::RecipeVersion),
        ("recipe.digest", Fact::RecipeDigest),
        ("recipe.runtime_id", Fact::RecipeRuntimeId),
        ("recipe.observability", Fact::RecipeObservability),
        ("recipe.custom", Fact::RecipeCustom),
        ("recipe.requires.core", Fact::RecipeRequiresCore),
        ("catalog.recipes", Fact::CatalogRecipes),
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Kind,
    Registries,
    /// The quota that applies to the spec's project: `project-quota`, else `gpu-quota`.
    GpuQuota,
}

impl Setting {
    pub const ALL: [(&'static str, Setting); 3] = [
        ("kind", Setting::Kind),
        ("registries", Setting::Registries),
        ("gpu-quota", Setting::GpuQuota),
    ];
}

#[derive(Debug, Clone)]
pub enum Predicate {
    Present,
    NonEmpty,
    Absent,
    Empty,
    Equals(Operand),
    NotEquals(Operand),
    OneOf(Operand),
    NotOneOf(Operand),
    Matches(Pattern),
    NotMatches(Pattern),
    Type(Vec<JsonType>),
    Minimum(Operand),
    Maximum(Operand),
    ExclusiveMinimum(Operand),
    ExclusiveMaximum(Operand),
    MinLength(usize),
    MaxLength(usize),
    Semver,
    SemverRange(Operand),
}

#[derive(Debug, Clone)]
pub enum Condition {
    Select(Selector, Predicate),
    Fact(Fact, Predicate),
    /// A condition on another file: the spec that names the experiment, or its config.
    Other(OtherDoc, Selector, Predicate),
    /// A condition on each selected value's item, the object that holds it (`@.series`): the
    /// check runs on the values whose item it holds for.
    Item(Selector, Predicate),
    Any(Vec<Condition>),
    All(Vec<Condition>),
    Not(Box<Condition>),
}

/// The other file a cross-file condition reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherDoc {
    /// The jobspec whose `spec.source.exp` names the experiment (rules on experiment files).
    Spec,
    /// The experiment's config file (`[experiments] config`).
    Config,
}

#[derive(Debug, Clone)]
pub enum Assertion {
    Predicate(Predicate),
    /// The selected values are pairwise distinct.
    Unique,
    /// The selected objects have no keys but these.
    Keys(Vec<String>),
    Function(functions::Function),
    /// A text rule's regex, matched in the regions of `scope`; the named group `at`, when the
    /// pattern has one, is the span reported, and the group `secret` the span a rule with
    /// `mask = true` hides (see [`Pattern::text_matches`]). Its keywords, filters and
    /// decoding decide which matches are reported ([`TextPattern`]).
    Text {
        pattern: TextPattern,
        scope: Scope,
    },
}

#[derive(Debug, Clone)]
pub struct Check {
    pub select: Selector,
    pub when: Vec<Condition>,
    pub assertion: Assertion,
    pub message: Template,
    pub help: Option<Template>,
    pub report_at: ReportAt,
    pub related_label: String,
    pub needs: Needs,
    /// How a finding of this check is fixed, if it can be.
    pub fix: Option<Arc<fix::FixSpec>>,
}

impl Check {
    /// Whether the check's message or help shows the placeholder `name`: a placeholder's text
    /// is made only when one does (this is asked for every finding).
    pub fn uses(&self, name: &str) -> bool {
        self.message.uses(name) || self.help.as_ref().is_some_and(|h| h.uses(name))
    }

    /// Every selector of the check: what it selects, its conditions' and its operands', each
    /// with whether the check reads the places where it found nothing (see [`Uses`]).
    pub fn visit_selectors<'c>(&'c self, f: &mut impl FnMut(&'c Selector, Uses)) {
        let uses = match &self.assertion {
            Assertion::Predicate(p) => Uses::of(p),
            _ => Uses::Found,
        };
        f(&self.select, uses);
        if let Assertion::Predicate(p) = &self.assertion {
            predicate_selector(p)
                .into_iter()
                .for_each(|s| f(s, Uses::Found));
        }
        for c in &self.when {
            c.visit_selectors(f);
        }
    }

    fn visit_selectors_mut(&mut self, f: &mut impl FnMut(&mut Selector)) {
        f(&mut self.select);
        if let Assertion::Predicate(p) = &mut self.assertion {
            predicate_selector_mut(p).into_iter().for_each(&mut *f);
        }
        for c in &mut self.when {
            c.visit_selectors_mut(f);
        }
    }
}

impl Condition {
    fn visit_selectors<'c>(&'c self, f: &mut impl FnMut(&'c Selector, Uses)) {
        match self {
            Condition::Select(sel, p) => {
                f(sel, Uses::of(p));
                predicate_selector(p)
                    .into_iter()
                    .for_each(|s| f(s, Uses::Found));
            }
            Condition::Fact(_, p) => predicate_selector(p)
                .into_iter()
                .for_each(|s| f(s, Uses::Found)),
            // Resolved on the other file, or from each item: never in the document's table.
            Condition::Other(..) | Condition::Item(..) => {}
            Condition::Any(list) | Condition::All(list) => {
                list.iter().for_each(|c| c.visit_selectors(f))
            }
            Condition::Not(inner) => inner.visit_selectors(f),
        }
    }

    fn visit_selectors_mut(&mut self, f: &mut impl FnMut(&mut Selector)) {
        match self {
            Condition::Select(sel, p) => {
                f(sel);
                predicate_selector_mut(p).into_iter().for_each(f);
            }
            Condition::Fact(_, p) => predicate_selector_mut(p).into_iter().for_each(f),
            Condition::Other(..) | Condition::Item(..) => {}
            Condition::Any(list) | Condition::All(list) => {
                list.iter_mut().for_each(|c| c.visit_selectors_mut(f))
            }
            Condition::Not(inner) => inner.visit_selectors_mut(f),
        }
    }
}

/// What a check reads of a selector's resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uses {
    /// Only the values found.
    Found,
    /// Also where a key on the way is missing (`present`, `non-empty`).
    Missing,
}

impl Uses {
    fn of(p: &Predicate) -> Uses {
        match p {
            Predicate::Present | Predicate::NonEmpty => Uses::Missing,
            _ => Uses::Found,
        }
    }
}

/// The selector a predicate compares against (`{ select = "…" }`), if any.
fn predicate_selector(p: &Predicate) -> Option<&Selector> {
    match predicate::predicate_operand(p) {
        Some(Operand::Select(sel)) => Some(sel),
        _ => None,
    }
}

fn predicate_selector_mut(p: &mut Predicate) -> Option<&mut Selector> {
    match predicate::predicate_operand_mut(p) {
        Some(Operand::Select(sel)) => Some(sel),
        _ => None,
    }
}

/// Where a rule came from: the file's name and text, for errors and `test-rules` reports.
#[derive(Debug, Clone)]
pub struct Origin {
    pub name: String,
    pub text: Arc<str>,
    pub builtin: bool,
    /// Byte range of the `id` value in the file.
    pub id_span: std::ops::Range<usize>,
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    /// The id as findings carry it.
    pub rule_id: crate::diagnostic::RuleId,
    pub severity: Severity,
    pub summary: String,
    pub explanation: String,
    pub help: Option<Template>,
    pub target: Target,
    /// The text a finding of this rule matched is a secret: masked in every output.
    pub mask: bool,
    pub reported_by: ReportedBy,
    pub checks: Vec<Check>,
    /// Context without which none of the checks can run (shown by `forgelint rules`).
    pub needs: Needs,
    pub origin: Origin,
    /// Set when the rule is compiled, except for a built-in rule's (see [`Rule::cases`]).
    cases: std::sync::OnceLock<Vec<Case>>,
    /// One step per check, read before the check itself (see [`plan`]).
    pub plan: Vec<plan::Step>,
    /// The rule's own `files` globs (runs only there) and `ignores` globs (never there).
    pub files: Option<globset::GlobSet>,
    pub ignores: Option<globset::GlobSet>,
}

impl Rule {
    /// Whether the rule reads the files the others skip as binary (a NUL in their first 8 KB,
    /// or not UTF-8), decoded lossily: a secret search (`mask = true`) reads every file.
    pub fn reads_binary_files(&self) -> bool {
        self.mask && self.target == Target::Text
    }

    /// How safe the rule's fixes are, if it has any: unsafe when one of them is.
    pub fn fix_safety(&self) -> Option<Safety> {
        self.checks
            .iter()
            .filter_map(|c| c.fix.as_ref().map(|f| f.safety))
            .max()
    }

    /// The rule's cases. A built-in rule's are compiled on first use, from its whole text.
    pub fn cases(&self) -> &[Case] {
        self.cases
            .get_or_init(|| match cases::builtin_cases(&self.origin) {
                Ok(cases) => cases,
                // The cases of every built-in rule compile: the rule-case tests run them all.
                Err(e) => panic!("the cases of built-in rule {} do not compile: {e}", self.id),
            })
    }

    /// Does the rule's own scope include a file at `relative` (to the config's folder)?
    pub fn applies_to(&self, relative: &Path) -> bool {
        self.files.as_ref().is_none_or(|f| f.is_match(relative))
            && !self.ignores.as_ref().is_some_and(|i| i.is_match(relative))
    }
}

/// The built-in rules, embedded in the binary.
pub const BUILTIN: &[(&str, &str)] = &include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));

/// The TOML tree of each of [`BUILTIN`], in its order, parsed at build time (see [`prebuilt`]).
pub(crate) const BUILTIN_TREES: &[&[u8]] = &include!(concat!(env!("OUT_DIR"), "/builtin_trees.rs"));

/// The reference spec that rule-file cases patch.
pub const REFERENCE_SPEC: &str = include_str!("../../rules/reference/jobspec.json");
/// The catalog of the reference context of rule-file cases.
pub const REFERENCE_CATALOG: &str = include_str!("../../rules/reference/catalog.toml");

/// Every rule in play, in a stable order (by id).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
}

impl RuleSet {
    /// The built-in rules only.
    pub fn builtin() -> Result<RuleSet, Error> {
        let mut set = RuleSet::default();
        for (&(name, text), tree) in BUILTIN.iter().zip(BUILTIN_TREES) {
            set.add(compile::compile_builtin(
                &format!("rules/{name}"),
                text,
                tree,
            )?)?;
        }
        set.sort();
        Ok(set)
    }

    pub fn add(&mut self, rule: Rule) -> Result<(), Error> {
        if let Some(existing) = self.rules.iter().find(|r| r.id == rule.id) {
            return Err(FileError::new(
                &rule.origin.name,
                &rule.origin.text,
                Some(rule.origin.id_span.clone()),
                format!("duplicate rule id `{}`", rule.id),
            )
            .with_help(format!(
                "`{}` is already defined by {}",
                rule.id, existing.origin.name
            ))
            .into());
        }
        self.rules.push(rule);
        Ok(())
    }

    /// Puts the rules in id order and numbers their selectors: equal selectors share an id, so
    /// a document is walked once per distinct selector, not once per check.
    pub fn sort(&mut self) {
        self.rules.sort_by(|a, b| a.id.cmp(&b.id));
        let mut ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut keys_ids = 0;
        for rule in &mut self.rules {
            for check in &mut rule.checks {
                check.visit_selectors_mut(&mut |sel: &mut Selector| {
                    let next = ids.len();
                    sel.id = *ids.entry(sel.as_str().to_string()).or_insert(next);
                });
            }
            rule.plan = plan::plan_of(&rule.checks, &mut keys_ids);
        }
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// Adds every `*.toml` rule file of `path` (a file, or a folder searched recursively).
    pub fn load_path(&mut self, path: &Path) -> Result<(), Error> {
        self.load_path_once(path, &mut Vec::new())
    }

    /// [`RuleSet::load_path`], leaving out the files in `loaded` (resolved paths) and adding
    /// those it loads: a config that extends another may name the base's rule files again.
    pub fn load_path_once(&mut self, path: &Path, loaded: &mut Vec<PathBuf>) -> Result<(), Error> {
        for file in rule_files(path)? {
            let resolved = file.canonicalize().unwrap_or_else(|_| file.clone());
            if loaded.contains(&resolved) {
                continue;
            }
            loaded.push(resolved);
            let text = crate::read::read_text(&file).map_err(|source| Error::Io {
                path: file.display().to_string(),
                source,
            })?;
            let rule = compile_rule(&file.display().to_string(), Arc::from(text), false)?;
            self.add(rule)?;
        }
        Ok(())
    }
}

/// The trie of the shared selectors of `rules` (their checks', conditions' and operands'
/// selectors), for resolving them all in one pass over each document.
pub fn selector_table<'r>(rules: impl IntoIterator<Item = &'r Rule>) -> SelectorTable {
    let mut selectors = Vec::new();
    let mut keys = Vec::new();
    for rule in rules {
        for (step, check) in rule.plan.iter().zip(&rule.checks) {
            check.visit_selectors(&mut |sel, uses| selectors.push((sel, uses == Uses::Missing)));
            if let (Some(id), Assertion::Keys(allowed)) = (step.keys_id(), &check.assertion) {
                keys.push((id as usize, check.select.id, allowed.as_slice()));
            }
        }
    }
    SelectorTable::with_keys(selectors, keys)
}

/// The `*.toml` files under `path` (recursively), sorted.
fn rule_files(path: &Path) -> Result<Vec<PathBuf>, Error> {
    let meta = std::fs::metadata(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !meta.is_dir() {
        // A FIFO or a device is refused by what it is, before it is opened (reading one may
        // never end), not with "Not a directory" from listing it.
        let what = crate::paths::special_kind(&meta.file_type());
        return Err(Error::Usage {
            message: format!(
                "rule path {} is {what}, not a regular file or folder",
                crate::escape::visible(&path.display().to_string())
            ),
            help: Some("--rules and `rules` name rule files (TOML) or folders of them".into()),
        });
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| Error::Io {
            path: dir.display().to_string(),
            source,
        })?;
        for entry in entries.flatten() {
            let p = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() && p.extension().is_some_and(|e| e == "toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}
