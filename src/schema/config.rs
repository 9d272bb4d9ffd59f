//! The schema of `forgelint.toml`, derived from the types it deserializes into
//! (`config::RawConfig`, with schemars): the keys, their descriptions and defaults come from
//! there. What is added here is what the code knows besides: the severities `[severity]` takes
//! and the built-in rules' ids, listed so an editor can complete them.

use serde_json::{json, Map, Value};

use super::{derived, RULE_ID};
use crate::config::RawConfig;
use crate::diagnostic::Severity;
use crate::rules::RuleSet;

pub fn schema(builtin: &RuleSet) -> Value {
    let (mut top, defs) = derived::<RawConfig>();
    let properties = top["properties"]
        .as_object_mut()
        .expect("a config has keys");
    let description = properties["severity"]["description"].clone();
    properties["severity"] = severity(builtin, description);
    properties["per-file-ignores"]["additionalProperties"]["items"]["pattern"] = json!(RULE_ID);
    if !defs.is_empty() {
        top.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(top)
}

/// `[severity]`: `off` or a severity, by rule id. Built-in ids are listed so an editor can
/// complete them; a rule file's own ids are allowed as any id (forgelint checks that a loaded
/// rule has it).
fn severity(builtin: &RuleSet, description: Value) -> Value {
    let levels: Vec<&str> = std::iter::once("off")
        .chain(Severity::ALL.iter().map(|s| s.as_str()))
        .collect();
    let level = json!({ "enum": levels });
    let props: Map<String, Value> = builtin
        .rules
        .iter()
        .map(|r| {
            let mut s = level.clone();
            s["description"] = json!(format!("{} (default {})", r.summary, r.severity));
            (r.id.clone(), s)
        })
        .collect();
    json!({
        "type": "object",
        "description": description,
        "properties": props,
        "propertyNames": { "pattern": RULE_ID },
        "additionalProperties": level,
    })
}
