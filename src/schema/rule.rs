//! The schema of a rule file: the keys of `rules::schema` (each table denies unknown keys), with
//! the names the compiler accepts (severities, targets, scopes, types, facts, settings,
//! functions) taken from the code. Only what the compiler refuses whatever the rest of the file
//! says is refused here; a rule's meaning (one assertion per check, selectors that fit the
//! jobspec shape, placeholders) is left to `forgelint test-rules`.

use serde_json::{json, Map, Value};

use super::{string, strings, RULE_ID};
use crate::rules::functions::Function;
use crate::rules::{Fact, JsonType, Scope, Setting, Target};

/// The functions that take no options (an empty `options` table is allowed).
const NO_OPTIONS: [&str; 6] = [
    "duplicate-keys",
    "gpu-quota",
    "path-escapes-root",
    "directory-missing",
    "host-path",
    "config-key",
];

pub fn schema() -> Value {
    let mut top = Map::new();
    top.insert(
        "id".into(),
        json!({
            "type": "string",
            "pattern": RULE_ID,
            "description": "Stable id: lowercase letters, digits and `-`, starting with a letter; unique across all rule files.",
        }),
    );
    top.insert(
        "severity".into(),
        json!({
            "enum": ["error", "warning", "note"],
            "description": "The default severity (a config's [severity] can override it).",
        }),
    );
    top.insert("summary".into(), string("One line: what is wrong."));
    top.insert(
        "message".into(),
        string("Default message template of the checks ({value}, {expected}, {path}, …)."),
    );
    top.insert("help".into(), string("How to fix it (a template too)."));
    top.insert(
        "explanation".into(),
        string("The long text `forgelint explain` prints (Markdown): why the server refuses it."),
    );
    top.insert(
        "target".into(),
        json!({
            "enum": Target::NAMES,
            "default": "jobspec",
            "description": "What the rule reads: jobspecs (the default), or the files of experiment directories: text, yaml, toml, json.",
        }),
    );
    top.insert(
        "mask".into(),
        json!({ "type": "boolean", "description": "(target = \"text\") The matched text is a secret: every output shows its first four characters and `…`, and every excerpt of any linted file is masked wherever the pattern matches, whatever rules run." }),
    );
    top.insert(
        "fix".into(),
        fix_schema("How the checks' findings are fixed (a check may say otherwise)."),
    );
    top.insert("fix-safety".into(), fix_safety_schema());
    top.insert(
        "reported-by".into(),
        json!({
            "enum": ["parser", "walker", "suppressions"],
            "description": "Reserved for built-in rules whose findings come from the JSON parser, the experiment walk or the suppression comments.",
        }),
    );
    top.insert(
        "files".into(),
        strings("Globs (relative to the config's folder; for experiment targets, to the experiment directory): run only on these files."),
    );
    top.insert(
        "ignores".into(),
        strings("Globs: never run on these files."),
    );
    // Its items are a check or a text check, by `target` (below).
    top.insert(
        "check".into(),
        json!({ "type": "array", "description": "The checks: the rule fires when any of them fails." }),
    );
    for (key, what) in [("valid", "passing"), ("invalid", "failing")] {
        top.insert(
            key.into(),
            json!({
                "type": "array",
                "items": { "$ref": format!("#/$defs/{key}-case") },
                "description": format!("The rule's own {what} cases, run by `forgelint test-rules` against the reference spec."),
            }),
        );
    }
    json!({
        "title": "forgelint rule file",
        "description": "A forgelint rule file (TOML): one rule, its checks and its cases. See the README's \"The rule language\".",
        "type": "object",
        "properties": top,
        "required": ["id", "severity", "summary"],
        "additionalProperties": false,
        "allOf": [
            // `mask` is refused for any target but text.
            {
                "if": { "required": ["mask"] },
                "then": { "required": ["target"], "properties": { "target": { "const": "text" } } },
            },
            {
                "if": { "required": ["target"], "properties": { "target": { "const": "text" } } },
                "then": { "properties": { "check": { "items": { "$ref": "#/$defs/text-check" } } } },
                "else": { "properties": { "check": { "items": { "$ref": "#/$defs/check" } } } },
            },
        ],
        "$defs": defs(),
    })
}

fn defs() -> Value {
    json!({
        "literal": {
            "anyOf": [
                { "type": ["string", "number", "boolean"] },
                { "type": "array", "items": { "$ref": "#/$defs/literal" } },
            ],
        },
        "reference": {
            "description": "A value looked up when a spec is linted: a catalog fact, a [platform] setting, or the values another selector finds.",
            "oneOf": [
                reference("fact", json!({ "enum": fact_names() })),
                reference("setting", json!({ "enum": setting_names() })),
                reference("select", json!({ "type": "string" })),
            ],
        },
        "operand": { "anyOf": [{ "$ref": "#/$defs/literal" }, { "$ref": "#/$defs/reference" }] },
        "bound": { "anyOf": [{ "type": "number" }, { "$ref": "#/$defs/reference" }] },
        "condition": condition(),
        "check": check(),
        "text-check": text_check(),
        "valid-case": case(true),
        "invalid-case": case(false),
        "recipe": recipe(),
    })
}

fn reference(key: &str, value: Value) -> Value {
    json!({
        "type": "object",
        "properties": { key: value },
        "required": [key],
        "additionalProperties": false,
    })
}

fn fact_names() -> Vec<&'static str> {
    Fact::ALL.iter().map(|(n, _)| *n).collect()
}

fn setting_names() -> Vec<&'static str> {
    Setting::ALL.iter().map(|(n, _)| *n).collect()
}

/// The predicates, each usable in a check and in a condition.
fn predicates() -> Map<String, Value> {
    let mut m = Map::new();
    let flag = |d: &str| json!({ "const": true, "description": d });
    m.insert("present".into(), flag("The value exists."));
    m.insert(
        "non-empty".into(),
        flag("It exists and is not \"\", [], {} or null."),
    );
    m.insert("absent".into(), flag("It does not exist."));
    m.insert("empty".into(), flag("It does not exist or is empty."));
    m.insert("semver".into(), flag("A semantic version."));
    for (key, d) in [
        ("equals", "It is this value."),
        ("not-equals", "It is not this value."),
        ("one-of", "It is one of these values."),
        ("not-one-of", "It is none of these values."),
    ] {
        m.insert(
            key.into(),
            json!({ "$ref": "#/$defs/operand", "description": d }),
        );
    }
    m.insert(
        "matches".into(),
        string("A string matching this regex (Rust regex syntax)."),
    );
    m.insert(
        "not-matches".into(),
        string("A string not matching this regex."),
    );
    let type_name = json!({ "enum": JsonType::NAMES });
    m.insert(
        "type".into(),
        json!({
            "description": "The JSON type, or one of a list of types.",
            "anyOf": [type_name, { "type": "array", "items": type_name, "minItems": 1 }],
        }),
    );
    for key in [
        "minimum",
        "maximum",
        "exclusive-minimum",
        "exclusive-maximum",
    ] {
        m.insert(
            key.into(),
            json!({ "$ref": "#/$defs/bound", "description": "A numeric bound." }),
        );
    }
    for key in ["min-length", "max-length"] {
        m.insert(
            key.into(),
            json!({ "type": "integer", "minimum": 0, "description": "Length of a string (characters), array or object." }),
        );
    }
    m.insert(
        "semver-range".into(),
        json!({
            "description": "A semantic version inside this range (\">=1.2, <2\").",
            "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/reference" }],
        }),
    );
    m
}

fn condition() -> Value {
    let mut m = Map::new();
    m.insert(
        "select".into(),
        string("A selector on the document, or `@…` on the item of each checked value."),
    );
    m.insert(
        "fact".into(),
        json!({ "enum": fact_names(), "description": "A catalog fact about the spec's recipe." }),
    );
    m.insert(
        "spec".into(),
        string("A selector on the spec that names the experiment (rules on experiment files)."),
    );
    m.insert(
        "config".into(),
        string("A selector on the experiment's config file."),
    );
    let list = json!({ "type": "array", "items": { "$ref": "#/$defs/condition" } });
    m.insert("any".into(), list.clone());
    m.insert("all".into(), list);
    m.insert("not".into(), json!({ "$ref": "#/$defs/condition" }));
    // Read by the parser in any clause; without effect in a condition.
    m.insert("related-label".into(), json!({ "type": "string" }));
    m.extend(predicates());
    json!({
        "type": "object",
        "description": "A condition: a subject (select, fact, spec, config) with one predicate, or any/all/not.",
        "properties": m,
        "additionalProperties": false,
    })
}

/// What every check may carry besides its assertion.
fn check_common() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "when".into(),
        json!({ "type": "array", "items": { "$ref": "#/$defs/condition" }, "description": "Conditions that must all hold for the check to run." }),
    );
    m.insert(
        "message".into(),
        string("Overrides the rule's message template."),
    );
    m.insert("help".into(), string("Overrides the rule's help template."));
    m.insert(
        "related-label".into(),
        string("The label on the other location of `unique` and `leaf-collision` findings."),
    );
    m.insert(
        "options".into(),
        json!({ "type": "object", "description": "The function's options." }),
    );
    m
}

/// The functions of one kind of check: those that read text, or those that read documents.
fn functions(text: bool) -> Vec<&'static str> {
    Function::NAMES
        .into_iter()
        .filter(|n| Function::compile(n, None).is_ok_and(|f| f.reads_text() == text))
        .collect()
}

/// A check of a rule on jobspecs or on experiment config files (yaml, toml, json).
fn check() -> Value {
    let mut m = Map::new();
    m.insert(
        "select".into(),
        string(
            "A selector: metadata.name, spec.resources.pools[*].name, spec.hyperparams.\"a.b\", $.",
        ),
    );
    m.extend(check_common());
    m.insert(
        "fix".into(),
        fix_schema("How a finding of this check is fixed (jobspec rules)."),
    );
    m.insert("fix-safety".into(), fix_safety_schema());
    m.insert(
        "report-at".into(),
        json!({ "enum": ["value", "key"], "default": "value", "description": "Which token the finding points at." }),
    );
    m.insert(
        "unique".into(),
        json!({ "const": true, "description": "The selected values are pairwise distinct." }),
    );
    m.insert(
        "keys".into(),
        strings("The selected objects have no other keys."),
    );
    m.insert(
        "function".into(),
        json!({ "enum": functions(false), "description": "A built-in function for what no predicate expresses." }),
    );
    m.extend(predicates());
    json!({
        "type": "object",
        "description": "A check: a selector and one assertion (a predicate, unique, keys or function).",
        "properties": m,
        "additionalProperties": false,
        "allOf": function_options(),
    })
}

/// A check of a `target = "text"` rule: a regex, or a text function.
fn text_check() -> Value {
    let mut m = Map::new();
    m.insert(
        "pattern".into(),
        string(
            "The regex (Rust regex syntax); its named group `at`, if any, is the span reported, and with `mask = true` its group `secret`, if any, the span masked (a whole private key block).",
        ),
    );
    m.insert(
        "in".into(),
        json!({ "enum": Scope::NAMES, "default": "any", "description": "Where a match may start: string literals, comments, the rest, or anywhere." }),
    );
    m.extend(check_common());
    m.insert(
        "function".into(),
        json!({ "enum": functions(true), "description": "A built-in function that reads text." }),
    );
    json!({
        "type": "object",
        "description": "A text check: a pattern or a text function; predicates go in `when` conditions.",
        "properties": m,
        "additionalProperties": false,
        // `in` scopes a pattern; with a function it is refused.
        "dependentRequired": { "in": ["pattern"] },
        "allOf": function_options(),
    })
}

/// The options each function takes.
fn function_options() -> Value {
    let when =
        |names: Value| json!({ "required": ["function"], "properties": { "function": names } });
    let options = |props: Value| json!({ "properties": { "options": { "properties": props, "additionalProperties": false } } });
    json!([
        {
            "if": when(json!({ "const": "image-registry" })),
            "then": options(json!({
                "allowed": {
                    "description": "The allowed registry hosts, or { setting = \"registries\" }.",
                    "anyOf": [
                        { "type": "array", "items": { "$ref": "#/$defs/literal" } },
                        { "type": "object", "properties": { "setting": { "const": "registries" } }, "required": ["setting"] },
                    ],
                },
            })),
        },
        {
            "if": when(json!({ "const": "leaf-collision" })),
            "then": options(json!({
                "separator": { "type": "string", "minLength": 1, "default": "/" },
            })),
        },
        {
            "if": when(json!({ "enum": NO_OPTIONS })),
            "then": { "properties": { "options": { "maxProperties": 0 } } },
        },
    ])
}

/// `fix`: a named fix, or `{ set = "…" }` over catalog facts and the config.
fn fix_schema(description: &str) -> Value {
    json!({
        "description": description,
        "oneOf": [
            { "enum": crate::rules::fix::FIX_NAMES },
            {
                "type": "object",
                "properties": { "set": {
                    "type": "string",
                    "description": format!(
                        "The value written; may name {}.",
                        crate::rules::fix::FIX_PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                    ),
                } },
                "required": ["set"],
                "additionalProperties": false,
            },
        ],
    })
}

fn fix_safety_schema() -> Value {
    json!({
        "enum": ["safe", "unsafe"],
        "default": "unsafe",
        "description": "safe: applied by --fix; unsafe (it may change what the job does): only with --unsafe-fixes.",
    })
}

fn case(valid: bool) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), string("Shown when the case fails."));
    m.insert(
        "patch".into(),
        string("A JSON merge patch (RFC 7386) applied to the reference spec; null removes a key."),
    );
    m.insert("document".into(), string("The whole file instead."));
    m.insert(
        "edit".into(),
        json!({
            "type": "array",
            "description": "Text replacements [old, new] after the patch.",
            "items": {
                "type": "array",
                "prefixItems": [{ "type": "string", "minLength": 1 }, { "type": "string" }],
                "minItems": 2,
                "maxItems": 2,
            },
        }),
    );
    if !valid {
        m.insert(
            "at".into(),
            string(
                "The JSON Pointer the finding must point at (`line:column` for experiment files).",
            ),
        );
        m.insert(
            "fixed".into(),
            string("The whole document once every fix of the rule's findings is applied."),
        );
        m.insert(
            "fixed-patch".into(),
            string("The same as a merge patch on the case's (patched, pretty-printed) document."),
        );
        m.insert(
            "count".into(),
            json!({ "type": "integer", "minimum": 0, "description": "Exactly this many findings of the rule." }),
        );
    }
    m.insert("also".into(), strings("Other rules the case may trigger."));
    m.insert(
        "kind".into(),
        string("Context override: the configured kind."),
    );
    m.insert(
        "catalog".into(),
        json!({ "type": "array", "items": { "$ref": "#/$defs/recipe" }, "description": "Context override: the catalog's recipes." }),
    );
    m.insert(
        "no-catalog".into(),
        json!({ "type": "boolean", "description": "Context override: no catalog." }),
    );
    m.insert(
        "registries".into(),
        strings("Context override: the registries allowlist."),
    );
    let quota = json!({ "type": "integer", "minimum": 0 });
    m.insert("gpu-quota".into(), quota.clone());
    m.insert(
        "project-quota".into(),
        json!({ "type": "object", "additionalProperties": quota }),
    );
    m.insert(
        "dirs".into(),
        strings("Context override: the directories under the project root."),
    );
    m.insert(
        "file".into(),
        string("(rules on experiment files) The file's path in the experiment."),
    );
    m.insert(
        "text".into(),
        string("(rules on experiment files) The file's text."),
    );
    m.insert(
        "config".into(),
        string("The experiment's config text, for rules that read it."),
    );
    m.insert(
        "config-file".into(),
        string("The config's name (default config.yaml)."),
    );
    json!({
        "type": "object",
        "properties": m,
        "additionalProperties": false,
        "dependentRequired": { "text": ["file"] },
        "not": { "required": ["patch", "document"] },
    })
}

fn recipe() -> Value {
    json!({
        "type": "object",
        "description": "A catalog entry.",
        "properties": {
            "name": { "type": "string" },
            "version": { "type": "string" },
            "digest": { "type": "string" },
            "runtime_id": { "type": "string" },
            "observability": { "enum": ["platform", "external"] },
            "requires": {
                "type": "object",
                "properties": { "core": { "type": "string" } },
                "additionalProperties": false,
            },
            "custom": { "type": "boolean" },
        },
        "required": ["name"],
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The functions said to take no options do refuse them, and the others are the two
    /// whose options the schema lists.
    #[test]
    fn function_options_match_the_compiler() {
        let mut options = toml::Table::new();
        options.insert("x".into(), toml::Value::Boolean(true));
        for name in Function::NAMES {
            let refused = Function::compile(name, Some(&options)).is_err();
            let listed = NO_OPTIONS.contains(&name);
            assert!(
                listed || ["image-registry", "leaf-collision"].contains(&name),
                "{name}: options unknown to the schema"
            );
            assert!(refused, "{name} takes an option `x`");
            assert!(
                !listed || Function::compile(name, Some(&toml::Table::new())).is_ok(),
                "{name}"
            );
        }
    }
}
