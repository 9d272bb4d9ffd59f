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

/// `{"type": "string"}` with a description.
fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

/// An array of strings with a description.
fn strings(description: &str) -> Value {
    json!({ "type": "array", "items": { "type": "string" }, "description": description })
}

/// A closed object of `properties`.
fn object(description: &str, properties: Map<String, Value>) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "additionalProperties": false,
    })
}

/// A rule id, as the rule compiler accepts it.
const RULE_ID: &str = "^[a-z][a-z0-9-]*$";
