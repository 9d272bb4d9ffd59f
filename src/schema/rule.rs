//! The schema of a rule file, derived from the types rule files deserialize into
//! (`rules::schema`, with schemars, as ast-grep derives its rule schema): the keys, their
//! descriptions and values come from there. What is added here is where each kind of clause
//! goes: the one clause type is split into a check, a text check and a condition by its keys'
//! `x-in`, each function's options come from the function table, and a few keys depend on
//! others (`mask` and text checks on `target`, a failing case's keys). Only what the compiler
//! refuses whatever the rest of the file says is refused; a rule's meaning (one assertion per
//! check, selectors that fit the jobspec shape, placeholders) is left to `forgelint
//! test-rules`.

use serde_json::{json, Map, Value};

use super::derived;
use crate::rules::functions::{Reads, FUNCTIONS};
use crate::rules::schema::RawRule;
use crate::rules::{Fact, Setting};

/// The kinds of clause, by the `x-in` their keys carry.
const CLAUSES: [&str; 3] = ["check", "text-check", "condition"];

pub fn schema() -> Value {
    let (mut top, mut defs) = derived::<RawRule>();
    let clause = take_def(&mut defs, "RawClause");
    let case = take_def(&mut defs, "RawCase");
    let mut out_defs = value_defs();
    for kind in CLAUSES {
        out_defs.insert(kind.into(), clause_def(&clause, kind));
    }
    out_defs.insert("valid-case".into(), case_def(&case, true));
    out_defs.insert("invalid-case".into(), case_def(&case, false));
    // The catalog entries of a case's context, as schemars named them.
    for (name, def) in defs {
        out_defs.insert(name, def);
    }
    let properties = top["properties"]
        .as_object_mut()
        .expect("a rule file has keys");
    // Its items are a check or a text check, by `target` (below).
    properties["check"] = json!({
        "type": "array",
        "description": properties["check"]["description"],
    });
    for key in ["valid", "invalid"] {
        properties[key]["items"] = json!({ "$ref": format!("#/$defs/{key}-case") });
    }
    top.insert(
        "allOf".into(),
        json!([
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
        ]),
    );
    top.insert("$defs".into(), Value::Object(out_defs));
    Value::Object(top)
}

fn take_def(defs: &mut Map<String, Value>, name: &str) -> Value {
    defs.shift_remove(name)
        .unwrap_or_else(|| panic!("schemars derives {name}"))
}

/// The values a check compares with: literals, and what is looked up when a spec is linted.
fn value_defs() -> Map<String, Value> {
    let names = |all: &[&'static str]| json!({ "enum": all });
    let facts: Vec<&str> = Fact::ALL.iter().map(|(n, _)| *n).collect();
    let settings: Vec<&str> = Setting::ALL.iter().map(|(n, _)| *n).collect();
    let reference = |key: &str, value: Value| {
        json!({
            "type": "object",
            "properties": { key: value },
            "required": [key],
            "additionalProperties": false,
        })
    };
    let Value::Object(defs) = json!({
        "literal": {
            "anyOf": [
                { "type": ["string", "number", "boolean"] },
                { "type": "array", "items": { "$ref": "#/$defs/literal" } },
            ],
        },
        "reference": {
            "description": "A value looked up when a spec is linted: a catalog fact, a [platform] setting, or the values another selector finds.",
            "oneOf": [
                reference("fact", names(&facts)),
                reference("setting", names(&settings)),
                reference("select", json!({ "type": "string" })),
            ],
        },
        "operand": { "anyOf": [{ "$ref": "#/$defs/literal" }, { "$ref": "#/$defs/reference" }] },
        "bound": { "anyOf": [{ "type": "number" }, { "$ref": "#/$defs/reference" }] },
    }) else {
        unreachable!("an object")
    };
    defs
}

/// The clause type restricted to the keys of one kind of clause (`x-in`).
fn clause_def(clause: &Value, kind: &str) -> Value {
    let mut properties = Map::new();
    for (key, value) in clause["properties"].as_object().into_iter().flatten() {
        let mut value = value.clone();
        let Some(places) = value.as_object_mut().and_then(|v| v.shift_remove("x-in")) else {
            continue;
        };
        if places
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p == kind))
        {
            properties.insert(key.clone(), value);
        }
    }
    let (description, extra) = match kind {
        "check" => (
            "A check: a selector and one assertion (a predicate, unique, keys or function).",
            json!({ "allOf": function_options() }),
        ),
        "text-check" => (
            "A text check: a pattern or a text function; predicates go in `when` conditions.",
            // `in`, the filters, keywords and decoding go with a pattern; with a function
            // they are refused.
            json!({
                "dependentRequired": {
                    "in": ["pattern"],
                    "allow": ["pattern"],
                    "allow-line": ["pattern"],
                    "stop-words": ["pattern"],
                    "min-entropy": ["pattern"],
                    "keywords": ["pattern"],
                    "decode": ["pattern"],
                },
                "allOf": function_options(),
            }),
        ),
        _ => (
            "A condition: a subject (select, fact, spec, config) with one predicate, or any/all/not.",
            json!({}),
        ),
    };
    if let Some(function) = properties.get_mut("function") {
        let reads = if kind == "text-check" {
            Reads::Text
        } else {
            Reads::Document
        };
        let names: Vec<&str> = FUNCTIONS
            .iter()
            .filter(|f| f.reads == reads)
            .map(|f| f.name)
            .collect();
        function["enum"] = json!(names);
    }
    let mut def = json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "additionalProperties": false,
    });
    if let (Value::Object(def), Value::Object(extra)) = (&mut def, extra) {
        def.extend(extra);
    }
    def
}

/// The options each function takes, from the function table.
fn function_options() -> Value {
    let when = |name: &str| json!({ "required": ["function"], "properties": { "function": { "const": name } } });
    let options = FUNCTIONS.iter().map(|f| {
        let allowed: Map<String, Value> = f
            .options
            .iter()
            .map(|o| (o.name.to_string(), (o.schema)()))
            .collect();
        let options = if allowed.is_empty() {
            json!({ "maxProperties": 0 })
        } else {
            json!({ "properties": allowed, "additionalProperties": false })
        };
        json!({
            "if": when(f.name),
            "then": { "properties": { "options": options } },
        })
    });
    Value::Array(options.collect())
}

/// A passing case (without the keys of a failing case's finding) or a failing one.
fn case_def(case: &Value, valid: bool) -> Value {
    let mut case = case.clone();
    if let Some(properties) = case["properties"].as_object_mut() {
        properties.retain(|_, v| !(valid && v.get("x-invalid").is_some()));
        for value in properties.values_mut() {
            if let Some(v) = value.as_object_mut() {
                v.shift_remove("x-invalid");
            }
        }
    }
    case["dependentRequired"] = json!({ "text": ["file"] });
    case["not"] = json!({ "required": ["patch", "document"] });
    case
}

#[cfg(test)]
mod tests {
    use crate::rules::functions::{Function, Syntax, FUNCTIONS};

    /// A function without options in the table refuses every option; one with options takes
    /// exactly those.
    #[test]
    fn function_options_match_the_compiler() {
        let mut unknown = toml::Table::new();
        unknown.insert("x".into(), toml::Value::Boolean(true));
        for f in FUNCTIONS {
            assert!(
                Function::compile(f.name, Some(&unknown), Syntax::Check).is_err(),
                "{}",
                f.name
            );
            assert!(
                Function::compile(f.name, Some(&toml::Table::new()), Syntax::Check).is_ok(),
                "{}",
                f.name
            );
        }
    }
}
