//! `forgelint schema jobspec|config|rule`: JSON Schemas (draft 2020-12) for editors.
//!
//! Each is generated from what the code itself knows — the built-in rules for the JobSpec, the
//! names the config and rule-file parsers accept for the other two — so a schema cannot drift
//! from the linter. The committed copies under `schemas/` are checked against this output.

mod config;
mod ecma;
pub mod jobspec;
mod rule;

use serde_json::{json, Map, Value};

use crate::env::{Env, ExitStatus};
use crate::error::Error;
use crate::rules::RuleSet;

pub use jobspec::SEMVER;

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";
const BASE_ID: &str = "https://forgelint.dev/schemas/";

/// The files a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A forge/v2 `jobspec.json`.
    Jobspec,
    /// `forgelint.toml`.
    Config,
    /// A rule file (TOML).
    Rule,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Jobspec, Kind::Config, Kind::Rule];

    /// The file name of the schema, under `schemas/` and in its `$id`.
    pub fn file_name(self) -> &'static str {
        match self {
            Kind::Jobspec => "jobspec.schema.json",
            Kind::Config => "forgelint.schema.json",
            Kind::Rule => "rule.schema.json",
        }
    }
}

/// The schema of `kind`, with `$schema` and `$id` first.
pub fn generate(kind: Kind) -> Result<Value, Error> {
    let builtin = RuleSet::builtin()?;
    let body = match kind {
        Kind::Jobspec => jobspec::schema(&builtin),
        Kind::Config => config::schema(&builtin),
        Kind::Rule => rule::schema(),
    };
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DRAFT));
    out.insert(
        "$id".into(),
        json!(format!("{BASE_ID}{}", kind.file_name())),
    );
    if let Value::Object(mut body) = body {
        // The title reads first, after the identifiers.
        if let Some(title) = body.shift_remove("title") {
            out.insert("title".into(), title);
        }
        out.extend(body);
    }
    Ok(Value::Object(out))
}

/// The schema of `kind` as printed: pretty JSON and a final newline.
pub fn text(kind: Kind) -> Result<String, Error> {
    let value = generate(kind)?;
    let mut text = crate::json::writer::to_pretty_string(&value);
    text.push('\n');
    Ok(text)
}

/// `forgelint schema KIND`: the schema on standard output.
pub fn print(kind: Kind, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let text = text(kind)?;
    env.stdout
        .write_all(text.as_bytes())
        .and_then(|_| env.stdout.flush())
        .map_err(|source| Error::Write {
            path: "standard output".into(),
            source,
        })?;
    Ok(ExitStatus::Success)
}

/// The schema schemars derives from `T`'s serde type (draft 2020-12): its top-level keys and
/// its definitions. Optional keys are written absent in TOML, never null: `null` is dropped
/// from their types.
fn derived<T: schemars::JsonSchema>() -> (Map<String, Value>, Map<String, Value>) {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut root = generator.into_root_schema_for::<T>().to_value();
    drop_null_types(&mut root);
    let Value::Object(mut top) = root else {
        unreachable!("a schema of a struct is an object")
    };
    top.shift_remove("$schema");
    let defs = match top.shift_remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    (top, defs)
}

/// Removes `"null"` from every `type` list (and a `null` default), and joins the lines of
/// descriptions, recursively.
fn drop_null_types(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if map.get("default") == Some(&Value::Null) {
                map.shift_remove("default");
            }
            // A doc comment's lines are one paragraph.
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = text.replace('\n', " ");
            }
            map.values_mut().for_each(drop_null_types);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_types),
        _ => {}
    }
}

/// A rule id, as the rule compiler accepts it.
use crate::rules::schema::RULE_ID;
