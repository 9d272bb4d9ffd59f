//! The rule file as written (TOML), before compilation. Every table denies unknown keys so a typo
//! is an error with a did-you-mean, never a silently ignored setting.

use serde::Deserialize;
use toml::Spanned;

use crate::catalog::RawRecipe;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawRule {
    pub id: Spanned<String>,
    pub severity: Spanned<String>,
    pub summary: String,
    /// What the rule reads: `jobspec` (the default), or the files of an experiment directory:
    /// `text`, `yaml`, `toml`, `json`.
    pub target: Option<Spanned<String>>,
    /// The matched text is a secret: every output masks it.
    pub mask: Option<Spanned<bool>>,
    /// Default message template for the checks.
    pub message: Option<Spanned<String>>,
    pub help: Option<Spanned<String>>,
    /// The long explanation: why the server refuses it and how to fix it (Markdown).
    pub explanation: Option<String>,
    /// `"parser"` for the one rule the JSON loader reports itself (`invalid-json`); such a rule
    /// has no checks.
    pub reported_by: Option<Spanned<String>>,
    /// Globs (relative to the config's folder; for experiment targets, to the experiment
    /// directory): the rule runs only on matching files.
    pub files: Option<Vec<Spanned<String>>>,
    /// Globs: the rule never runs on matching files.
    #[serde(default)]
    pub ignores: Vec<Spanned<String>>,
    /// How the checks' findings are fixed (a check may say otherwise), and how safely.
    pub fix: Option<Spanned<super::fix::RawFix>>,
    pub fix_safety: Option<Spanned<String>>,
    #[serde(default)]
    pub check: Vec<Spanned<RawClause>>,
    #[serde(default)]
    pub valid: Vec<Spanned<RawCase>>,
    #[serde(default)]
    pub invalid: Vec<Spanned<RawCase>>,
}

/// One `[[check]]`, or one condition inside `when`, `any`, `all`, `not`. The same vocabulary of
/// predicates serves both; the compiler rejects keys that do not belong where they are used.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawClause {
    // Subject.
    pub select: Option<Spanned<String>>,
    pub fact: Option<Spanned<String>>,
    /// A selector on the jobspec that names the experiment (conditions of experiment rules).
    pub spec: Option<Spanned<String>>,
    /// A selector on the experiment's config file (conditions).
    pub config: Option<Spanned<String>>,
    /// A text rule's regex.
    pub pattern: Option<Spanned<String>>,
    /// Where a text pattern may match: `string`, `comment`, `code` or `any` (the default).
    #[serde(rename = "in")]
    pub in_: Option<Spanned<String>>,
    // Check-only.
    pub when: Option<Vec<Spanned<RawClause>>>,
    pub message: Option<Spanned<String>>,
    pub help: Option<Spanned<String>>,
    pub report_at: Option<Spanned<String>>,
    pub related_label: Option<String>,
    pub fix: Option<Spanned<super::fix::RawFix>>,
    pub fix_safety: Option<Spanned<String>>,
    // Condition combinators.
    pub any: Option<Vec<Spanned<RawClause>>>,
    pub all: Option<Vec<Spanned<RawClause>>>,
    pub not: Option<Box<Spanned<RawClause>>>,
    // Predicates.
    pub present: Option<Spanned<bool>>,
    pub non_empty: Option<Spanned<bool>>,
    pub absent: Option<Spanned<bool>>,
    pub empty: Option<Spanned<bool>>,
    pub equals: Option<Spanned<toml::Value>>,
    pub not_equals: Option<Spanned<toml::Value>>,
    pub one_of: Option<Spanned<toml::Value>>,
    pub not_one_of: Option<Spanned<toml::Value>>,
    pub matches: Option<Spanned<String>>,
    pub not_matches: Option<Spanned<String>>,
    #[serde(rename = "type")]
    pub type_: Option<Spanned<toml::Value>>,
    pub minimum: Option<Spanned<toml::Value>>,
    pub maximum: Option<Spanned<toml::Value>>,
    pub exclusive_minimum: Option<Spanned<toml::Value>>,
    pub exclusive_maximum: Option<Spanned<toml::Value>>,
    pub min_length: Option<Spanned<i64>>,
    pub max_length: Option<Spanned<i64>>,
    pub semver: Option<Spanned<bool>>,
    pub semver_range: Option<Spanned<toml::Value>>,
    // Assertions that only make sense in a check.
    pub unique: Option<Spanned<bool>>,
    pub keys: Option<Spanned<Vec<String>>>,
    pub function: Option<Spanned<String>>,
    pub options: Option<Spanned<toml::Table>>,
}

/// A passing (`[[valid]]`) or failing (`[[invalid]]`) example carried by the rule file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawCase {
    pub name: Option<String>,
    /// A JSON merge patch (RFC 7386) applied to the reference spec.
    pub patch: Option<Spanned<String>>,
    /// The whole file instead of a patch.
    pub document: Option<Spanned<String>>,
    /// Experiment targets: the file's text, and its path in the experiment directory.
    pub text: Option<Spanned<String>>,
    pub file: Option<Spanned<String>>,
    /// The experiment's config file (`config.yaml` unless `config-file` names another), for
    /// rules that read it.
    pub config: Option<Spanned<String>>,
    pub config_file: Option<String>,
    /// Text replacements `[old, new]` applied, in order, to the document after the patch: for
    /// what a patch cannot express (duplicate keys, comments, line endings).
    #[serde(default)]
    pub edit: Vec<Spanned<(String, String)>>,
    /// The JSON Pointer the finding must point at (failing cases).
    pub at: Option<String>,
    /// The document once every fix of the rule's findings is applied (failing cases).
    pub fixed: Option<Spanned<String>>,
    /// The same as a JSON merge patch on the case's document, which is then pretty-printed:
    /// for a case given as a `patch`, whose document is pretty-printed too.
    pub fixed_patch: Option<Spanned<String>>,
    /// How many findings of this rule the case must produce (failing cases; default: at least 1).
    pub count: Option<usize>,
    /// Other rules this case may also trigger.
    #[serde(default)]
    pub also: Vec<String>,
    // Context overrides; the reference context is used otherwise.
    pub kind: Option<String>,
    pub catalog: Option<Vec<RawRecipe>>,
    #[serde(default)]
    pub no_catalog: bool,
    pub registries: Option<Vec<String>>,
    pub gpu_quota: Option<u64>,
    pub project_quota: Option<std::collections::BTreeMap<String, u64>>,
    /// Directories that exist under the project root.
    pub dirs: Option<Vec<String>>,
}
