//! The rule file as written (TOML), before compilation. Every table denies unknown keys so a typo
//! is an error with a did-you-mean, never a silently ignored setting.
//!
//! The JSON Schema of a rule file (`forgelint schema rule`) is derived from these types
//! (schemars): each key's description is its doc comment here, and the value each key takes
//! is given beside it (`schema_with`, [`shapes`]). One clause type serves checks and
//! conditions; `x-in` says where each key of it belongs, and the schema splits it by that.

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use crate::catalog::RawRecipe;

/// A forgelint rule file (TOML): one rule, its checks and its cases.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "forgelint rule file")]
pub struct RawRule {
    /// Stable id: lowercase letters, digits and `-`, starting with a letter; unique across all
    /// rule files.
    #[schemars(schema_with = "shapes::rule_id")]
    pub id: Spanned<String>,
    /// The default severity (a config's [severity] can override it).
    #[schemars(schema_with = "shapes::severity")]
    pub severity: Spanned<String>,
    /// One line: what is wrong.
    pub summary: String,
    /// What the rule reads: jobspecs (the default), or the files of experiment directories:
    /// text, yaml, toml, json.
    #[serde(default)]
    #[schemars(schema_with = "shapes::target")]
    pub target: Option<Spanned<String>>,
    /// (target = "text") The matched text is a secret: every output shows its first four
    /// characters and `…`, and every excerpt of any linted file is masked wherever the pattern
    /// matches (before `allow`, `stop-words`, `min-entropy` and `keywords`, which only decide
    /// what is reported), whatever rules run. Such a rule also reads the files other rules
    /// skip as binary, decoded lossily.
    #[schemars(with = "Option<bool>")]
    pub mask: Option<Spanned<bool>>,
    /// Default message template of the checks ({value}, {expected}, {path}, …).
    #[schemars(with = "Option<String>")]
    pub message: Option<Spanned<String>>,
    /// How to fix it (a template too).
    #[schemars(with = "Option<String>")]
    pub help: Option<Spanned<String>>,
    /// The long text `forgelint explain` prints (Markdown): why the server refuses it and how
    /// to fix it.
    pub explanation: Option<String>,
    /// Reserved for built-in rules whose findings come from the JSON parser, the experiment
    /// walk or the suppression comments; such a rule has no checks.
    #[serde(default)]
    #[schemars(schema_with = "shapes::reported_by")]
    pub reported_by: Option<Spanned<String>>,
    /// Globs (relative to the config's folder; for experiment targets, to the experiment
    /// directory): run only on these files.
    #[schemars(with = "Option<Vec<String>>")]
    pub files: Option<Vec<Spanned<String>>>,
    /// Globs: never run on these files.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub ignores: Vec<Spanned<String>>,
    /// How the checks' findings are fixed (a check may say otherwise).
    #[serde(default)]
    #[schemars(schema_with = "shapes::fix")]
    pub fix: Option<Spanned<super::fix::RawFix>>,
    /// safe: applied by --fix; unsafe (it may change what the job does): only with
    /// --unsafe-fixes.
    #[serde(default)]
    #[schemars(schema_with = "shapes::fix_safety")]
    pub fix_safety: Option<Spanned<String>>,
    /// The checks: the rule fires when any of them fails.
    #[serde(default)]
    #[schemars(with = "Vec<RawClause>")]
    pub check: Vec<Spanned<RawClause>>,
    /// The rule's own passing cases, run by `forgelint test-rules` against the reference spec.
    #[serde(default)]
    #[schemars(with = "Vec<RawCase>")]
    pub valid: Vec<Spanned<RawCase>>,
    /// The rule's own failing cases, run by `forgelint test-rules` against the reference spec.
    #[serde(default)]
    #[schemars(with = "Vec<RawCase>")]
    pub invalid: Vec<Spanned<RawCase>>,
}

/// One `[[check]]`, or one condition inside `when`, `any`, `all`, `not`. The same vocabulary of
/// predicates serves both; the compiler rejects keys that do not belong where they are used
/// (and the schema, by each key's `x-in`: `check`, `text-check`, `condition`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawClause {
    // Subject.
    /// A selector: metadata.name, spec.resources.pools[*].name, spec.hyperparams."a.b", $; in
    /// a condition, `@…` selects from the item of each checked value.
    #[schemars(with = "Option<String>", extend("x-in" = ["check", "condition"]))]
    pub select: Option<Spanned<String>>,
    /// A catalog fact about the spec's recipe.
    #[serde(default)]
    #[schemars(schema_with = "shapes::fact", extend("x-in" = ["condition"]))]
    pub fact: Option<Spanned<String>>,
    /// A selector on the spec that names the experiment (conditions of rules on experiment
    /// files).
    #[schemars(with = "Option<String>", extend("x-in" = ["condition"]))]
    pub spec: Option<Spanned<String>>,
    /// A selector on the experiment's config file (conditions).
    #[schemars(with = "Option<String>", extend("x-in" = ["condition"]))]
    pub config: Option<Spanned<String>>,
    /// The regex (Rust regex syntax) of a text rule, searched over the whole file (`(?s)` lets
    /// `.` cross lines, `(?m)` makes `^` and `$` lines); its named group `at`, if any, is the
    /// span reported, and with `mask = true` its group `secret`, if any, the span masked (a
    /// whole private key block).
    #[schemars(with = "Option<String>", extend("x-in" = ["text-check"]))]
    pub pattern: Option<Spanned<String>>,
    /// Where a text pattern may start: string literals, comments, the rest, or anywhere (the
    /// default).
    #[serde(rename = "in")]
    #[serde(default)]
    #[schemars(schema_with = "shapes::scope", extend("x-in" = ["text-check"]))]
    pub in_: Option<Spanned<String>>,
    /// Regexes: a match whose text (its `at` group, else the whole match) matches one of them
    /// is dropped, as gitleaks' allowlist regexes drop a placeholder: `allow = ['EXAMPLE$']`.
    #[serde(default)]
    #[schemars(schema_with = "shapes::regexes", extend("x-in" = ["text-check"]))]
    pub allow: Option<Spanned<Vec<Spanned<String>>>>,
    /// Regexes tried on the whole lines a match spans: one that matches drops the match
    /// (`allow-line = ['weights_only\s*=\s*True']` excuses a `torch.load(` call).
    #[serde(default)]
    #[schemars(schema_with = "shapes::regexes", extend("x-in" = ["text-check"]))]
    pub allow_line: Option<Spanned<Vec<Spanned<String>>>>,
    /// Words that drop a match whose text (its `at` group, else the whole match) holds one,
    /// in any ASCII case (gitleaks' stop words): `stop-words = ["abcdefghijklmnopqrstuvwxyz"]`.
    #[serde(default)]
    #[schemars(schema_with = "shapes::words", extend("x-in" = ["text-check"]))]
    pub stop_words: Option<Spanned<Vec<Spanned<String>>>>,
    /// The least Shannon entropy, in bits a character, of a match's text (its `at` group, else
    /// the whole match): a placeholder such as `hf_xxxxxxxxxxxxxxxxxxxx` (about 1 bit) is
    /// dropped, a random token (4 or more) kept. `min-entropy = 3.0`.
    #[serde(default)]
    #[schemars(schema_with = "shapes::entropy", extend("x-in" = ["text-check"]))]
    pub min_entropy: Option<Spanned<f64>>,
    /// Literal strings, in any ASCII case, of which the file must hold one for the pattern to
    /// run at all: a cheap first pass over the file (`keywords = ["hf_"]`).
    #[serde(default)]
    #[schemars(schema_with = "shapes::keywords", extend("x-in" = ["text-check"]))]
    pub keywords: Option<Spanned<Vec<Spanned<String>>>>,
    /// `"base64"`: each match's `at` group is decoded, and the match with that group replaced
    /// by the decoded text is searched by the rule's other pattern checks (their keywords and
    /// filters too); a match of theirs in the decoded part is reported here, at the encoded
    /// value. For a Kubernetes Secret's `data:` values.
    #[serde(default)]
    #[schemars(schema_with = "shapes::decode", extend("x-in" = ["text-check"]))]
    pub decode: Option<Spanned<String>>,
    // Check-only.
    /// Conditions that must all hold for the check to run.
    #[serde(default)]
    #[schemars(schema_with = "shapes::conditions", extend("x-in" = ["check", "text-check"]))]
    pub when: Option<Vec<Spanned<RawClause>>>,
    /// Overrides the rule's message template.
    #[schemars(with = "Option<String>", extend("x-in" = ["check", "text-check"]))]
    pub message: Option<Spanned<String>>,
    /// Overrides the rule's help template.
    #[schemars(with = "Option<String>", extend("x-in" = ["check", "text-check"]))]
    pub help: Option<Spanned<String>>,
    /// Which token the finding points at: the value (the default) or its key.
    #[serde(default)]
    #[schemars(schema_with = "shapes::report_at", extend("x-in" = ["check"]))]
    pub report_at: Option<Spanned<String>>,
    /// The label on the other location of `unique` and `leaf-collision` findings.
    #[schemars(extend("x-in" = ["check", "text-check", "condition"]))]
    pub related_label: Option<String>,
    /// How a finding of this check is fixed (jobspec rules).
    #[serde(default)]
    #[schemars(schema_with = "shapes::fix", extend("x-in" = ["check"]))]
    pub fix: Option<Spanned<super::fix::RawFix>>,
    /// safe: applied by --fix; unsafe (it may change what the job does): only with
    /// --unsafe-fixes.
    #[serde(default)]
    #[schemars(schema_with = "shapes::fix_safety", extend("x-in" = ["check"]))]
    pub fix_safety: Option<Spanned<String>>,
    // Condition combinators.
    /// Any of these conditions holds.
    #[serde(default)]
    #[schemars(schema_with = "shapes::conditions", extend("x-in" = ["condition"]))]
    pub any: Option<Vec<Spanned<RawClause>>>,
    /// All of these conditions hold.
    #[serde(default)]
    #[schemars(schema_with = "shapes::conditions", extend("x-in" = ["condition"]))]
    pub all: Option<Vec<Spanned<RawClause>>>,
    /// This condition does not hold.
    #[serde(default)]
    #[schemars(schema_with = "shapes::condition", extend("x-in" = ["condition"]))]
    pub not: Option<Box<Spanned<RawClause>>>,
    // Predicates.
    /// The value exists.
    #[serde(default)]
    #[schemars(schema_with = "shapes::flag", extend("x-in" = ["check", "condition"]))]
    pub present: Option<Spanned<bool>>,
    /// It exists and is not "", [], {} or null.
    #[serde(default)]
    #[schemars(schema_with = "shapes::flag", extend("x-in" = ["check", "condition"]))]
    pub non_empty: Option<Spanned<bool>>,
    /// It does not exist.
    #[serde(default)]
    #[schemars(schema_with = "shapes::flag", extend("x-in" = ["check", "condition"]))]
    pub absent: Option<Spanned<bool>>,
    /// It does not exist or is empty.
    #[serde(default)]
    #[schemars(schema_with = "shapes::flag", extend("x-in" = ["check", "condition"]))]
    pub empty: Option<Spanned<bool>>,
    /// It is this value.
    #[serde(default)]
    #[schemars(schema_with = "shapes::operand", extend("x-in" = ["check", "condition"]))]
    pub equals: Option<Spanned<toml::Value>>,
    /// It is not this value.
    #[serde(default)]
    #[schemars(schema_with = "shapes::operand", extend("x-in" = ["check", "condition"]))]
    pub not_equals: Option<Spanned<toml::Value>>,
    /// It is one of these values.
    #[serde(default)]
    #[schemars(schema_with = "shapes::operand", extend("x-in" = ["check", "condition"]))]
    pub one_of: Option<Spanned<toml::Value>>,
    /// It is none of these values.
    #[serde(default)]
    #[schemars(schema_with = "shapes::operand", extend("x-in" = ["check", "condition"]))]
    pub not_one_of: Option<Spanned<toml::Value>>,
    /// A string matching this regex (Rust regex syntax).
    #[schemars(with = "Option<String>", extend("x-in" = ["check", "condition"]))]
    pub matches: Option<Spanned<String>>,
    /// A string not matching this regex.
    #[schemars(with = "Option<String>", extend("x-in" = ["check", "condition"]))]
    pub not_matches: Option<Spanned<String>>,
    /// The JSON type, or one of a list of types.
    #[serde(rename = "type")]
    #[serde(default)]
    #[schemars(schema_with = "shapes::json_type", extend("x-in" = ["check", "condition"]))]
    pub type_: Option<Spanned<toml::Value>>,
    /// A numeric bound: the value is at least this.
    #[serde(default)]
    #[schemars(schema_with = "shapes::bound", extend("x-in" = ["check", "condition"]))]
    pub minimum: Option<Spanned<toml::Value>>,
    /// A numeric bound: the value is at most this.
    #[serde(default)]
    #[schemars(schema_with = "shapes::bound", extend("x-in" = ["check", "condition"]))]
    pub maximum: Option<Spanned<toml::Value>>,
    /// A numeric bound: the value is more than this.
    #[serde(default)]
    #[schemars(schema_with = "shapes::bound", extend("x-in" = ["check", "condition"]))]
    pub exclusive_minimum: Option<Spanned<toml::Value>>,
    /// A numeric bound: the value is less than this.
    #[serde(default)]
    #[schemars(schema_with = "shapes::bound", extend("x-in" = ["check", "condition"]))]
    pub exclusive_maximum: Option<Spanned<toml::Value>>,
    /// The length of a string (characters), array or object is at least this.
    #[serde(default)]
    #[schemars(schema_with = "shapes::length", extend("x-in" = ["check", "condition"]))]
    pub min_length: Option<Spanned<i64>>,
    /// The length of a string (characters), array or object is at most this.
    #[serde(default)]
    #[schemars(schema_with = "shapes::length", extend("x-in" = ["check", "condition"]))]
    pub max_length: Option<Spanned<i64>>,
    /// A semantic version.
    #[serde(default)]
    #[schemars(schema_with = "shapes::flag", extend("x-in" = ["check", "condition"]))]
    pub semver: Option<Spanned<bool>>,
    /// A semantic version inside this range (">=1.2, <2").
    #[serde(default)]
    #[schemars(schema_with = "shapes::semver_range", extend("x-in" = ["check", "condition"]))]
    pub semver_range: Option<Spanned<toml::Value>>,
    // Assertions that only make sense in a check.
    /// The selected values are pairwise distinct.
    #[serde(default)]
    #[schemars(schema_with = "shapes::flag", extend("x-in" = ["check"]))]
    pub unique: Option<Spanned<bool>>,
    /// The selected objects have no other keys.
    #[schemars(with = "Option<Vec<String>>", extend("x-in" = ["check"]))]
    pub keys: Option<Spanned<Vec<String>>>,
    /// A built-in function for what no predicate expresses.
    #[serde(default)]
    #[schemars(schema_with = "shapes::function", extend("x-in" = ["check", "text-check"]))]
    pub function: Option<Spanned<String>>,
    /// The function's options.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>", extend("x-in" = ["check", "text-check"]))]
    pub options: Option<Spanned<toml::Table>>,
}

/// A passing (`[[valid]]`) or failing (`[[invalid]]`) example carried by the rule file. The
/// keys marked `x-invalid` describe a failing case's finding and fixes.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawCase {
    /// Shown when the case fails.
    pub name: Option<String>,
    /// A JSON merge patch (RFC 7386) applied to the reference spec; null removes a key.
    #[schemars(with = "Option<String>")]
    pub patch: Option<Spanned<String>>,
    /// The whole file instead of a patch.
    #[schemars(with = "Option<String>")]
    pub document: Option<Spanned<String>>,
    /// (rules on experiment files) The file's text.
    #[schemars(with = "Option<String>")]
    pub text: Option<Spanned<String>>,
    /// (rules on experiment files) The file's path in the experiment.
    #[schemars(with = "Option<String>")]
    pub file: Option<Spanned<String>>,
    /// The experiment's config text (`config.yaml` unless `config-file` names another), for
    /// rules that read it.
    #[schemars(with = "Option<String>")]
    pub config: Option<Spanned<String>>,
    /// The config's name (default config.yaml).
    pub config_file: Option<String>,
    /// Text replacements `[old, new]` applied, in order, to the document after the patch: for
    /// what a patch cannot express (duplicate keys, comments, line endings).
    #[serde(default)]
    #[schemars(schema_with = "shapes::edits")]
    pub edit: Vec<Spanned<(String, String)>>,
    /// The JSON Pointer the finding must point at (`line:column` for experiment files).
    #[schemars(extend("x-invalid" = true))]
    pub at: Option<String>,
    /// The document once every fix of the rule's findings is applied.
    #[schemars(with = "Option<String>", extend("x-invalid" = true))]
    pub fixed: Option<Spanned<String>>,
    /// The same as a JSON merge patch on the case's document, which is then pretty-printed:
    /// for a case given as a `patch`, whose document is pretty-printed too.
    #[schemars(with = "Option<String>", extend("x-invalid" = true))]
    pub fixed_patch: Option<Spanned<String>>,
    /// Exactly this many findings of the rule (default: at least one).
    #[schemars(extend("x-invalid" = true))]
    pub count: Option<usize>,
    /// Other rules the case may trigger.
    #[serde(default)]
    pub also: Vec<String>,
    // Context overrides; the reference context is used otherwise.
    /// Context override: the configured kind.
    pub kind: Option<String>,
    /// Context override: the catalog's recipes.
    pub catalog: Option<Vec<RawRecipe>>,
    /// Context override: no catalog.
    #[serde(default)]
    pub no_catalog: bool,
    /// Context override: the registries allowlist.
    pub registries: Option<Vec<String>>,
    /// Context override: the GPU quota of every project.
    pub gpu_quota: Option<u64>,
    /// Context override: the GPU quota by project.
    pub project_quota: Option<std::collections::BTreeMap<String, u64>>,
    /// Context override: the directories under the project root.
    pub dirs: Option<Vec<String>>,
}

/// The values the keys of a rule file take, from the names the compiler accepts.
mod shapes {
    use schemars::{json_schema, Schema, SchemaGenerator};

    use crate::diagnostic::Severity;
    use crate::rules::fix::{FIX_NAMES, FIX_PLACEHOLDERS};
    use crate::rules::functions::Function;
    use crate::rules::{Fact, JsonType, Scope, Target};

    /// A rule id, as the compiler accepts it.
    pub const RULE_ID: &str = "^[a-z][a-z0-9-]*$";

    pub fn rule_id(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": RULE_ID })
    }

    pub fn severity(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Severity::ALL.iter().rev().map(|s| s.as_str()).collect();
        json_schema!({ "enum": names })
    }

    pub fn target(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": Target::NAMES, "default": "jobspec" })
    }

    pub fn reported_by(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": ["parser", "walker", "suppressions"] })
    }

    /// `fix`: a named fix, or `{ set = "…" }` over catalog facts and the config.
    pub fn fix(_: &mut SchemaGenerator) -> Schema {
        let facts: Vec<String> = FIX_PLACEHOLDERS
            .iter()
            .map(|p| format!("{{{p}}}"))
            .collect();
        json_schema!({
            "oneOf": [
                { "enum": FIX_NAMES },
                {
                    "type": "object",
                    "properties": { "set": {
                        "type": "string",
                        "description": format!("The value written; may name {}.", facts.join(", ")),
                    } },
                    "required": ["set"],
                    "additionalProperties": false,
                },
            ],
        })
    }

    pub fn fix_safety(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": ["safe", "unsafe"], "default": "unsafe" })
    }

    pub fn fact(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Fact::ALL.iter().map(|(n, _)| *n).collect();
        json_schema!({ "enum": names })
    }

    pub fn scope(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": Scope::NAMES, "default": "any" })
    }

    pub fn regexes(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "array", "items": { "type": "string" } })
    }

    pub fn words(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "array", "items": { "type": "string", "minLength": 1 } })
    }

    /// At least one keyword: with none the pattern would never run.
    pub fn keywords(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": { "type": "string", "minLength": 1 },
            "minItems": 1,
        })
    }

    pub fn entropy(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "number", "minimum": 0 })
    }

    pub fn decode(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": crate::rules::pattern::Codec::NAMES })
    }

    pub fn report_at(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": ["value", "key"], "default": "value" })
    }

    pub fn conditions(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "array", "items": { "$ref": "#/$defs/condition" } })
    }

    pub fn condition(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "$ref": "#/$defs/condition" })
    }

    /// A predicate that is on (`= true`); `false` is refused, not taken as its opposite.
    pub fn flag(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": true })
    }

    pub fn operand(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "$ref": "#/$defs/operand" })
    }

    pub fn bound(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "$ref": "#/$defs/bound" })
    }

    pub fn length(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": 0 })
    }

    pub fn json_type(_: &mut SchemaGenerator) -> Schema {
        let name = json_schema!({ "enum": JsonType::NAMES });
        json_schema!({ "anyOf": [name, { "type": "array", "items": name, "minItems": 1 }] })
    }

    pub fn semver_range(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/reference" }] })
    }

    /// Every built-in function; a check and a text check each take those of their kind.
    pub fn function(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": Function::names().collect::<Vec<_>>() })
    }

    pub fn edits(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [{ "type": "string", "minLength": 1 }, { "type": "string" }],
                "minItems": 2,
                "maxItems": 2,
            },
        })
    }
}

pub use shapes::RULE_ID;
