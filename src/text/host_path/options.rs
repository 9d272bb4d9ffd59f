//! The options of `host-path` in its rule file, their schema and how they compile.

use super::{HostPathCheck, Lazy, PathKind, Syntax};

/// The JSON Schema of `host-path`'s option `name`; `null` for a name it does not take.
pub fn option_schema(name: &str) -> serde_json::Value {
    match name {
        "ignore" => serde_json::json!({
            "description": "Globs of paths that are never data (a tool's cache, a sandbox's home); a path under one is not reported. `$HOME` is read as `~`.",
            "type": "array", "items": { "type": "string", "minLength": 1 },
        }),
        "remote-calls" => serde_json::json!({
            "description": "Regexes of callees (`sandbox.write_text`): a literal passed to such a call is a path on another machine.",
            "type": "array", "items": { "type": "string" },
        }),
        "remote-names" => serde_json::json!({
            "description": "Regexes of names (`sandbox_home`): a value given such a name is a path on another machine.",
            "type": "array", "items": { "type": "string" },
        }),
        "prose-words" => serde_json::json!({
            "description": "A literal that goes on with at least this many words after its path is prose; 0: never.",
            "type": "integer", "minimum": 0,
        }),
        "shell-keys" => serde_json::json!({
            "description": "YAML keys whose block scalar is a shell script (`run: |`): its words are read as shell.",
            "type": "array", "items": { "type": "string", "minLength": 1 },
        }),
        "kinds" => serde_json::json!({
            "description": "Kinds of path, in order: the first whose `name` regex matches the names the value is given (key, keyword, option, variable), else the first whose `path` regex matches the path, else the first with neither. `kind` and `instead` fill `{kind}` and `{instead}`.",
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": { "type": "string", "minLength": 1 },
                    "name": { "type": "string" },
                    "path": { "type": "string" },
                    "instead": { "type": "string", "minLength": 1 },
                },
                "required": ["kind", "instead"],
                "additionalProperties": false,
            },
        }),
        _ => serde_json::Value::Null,
    }
}

/// `host-path`'s options compiled.
pub fn compile(options: &toml::Table, syntax: Syntax) -> Result<HostPathCheck, String> {
    let strings = |key: &str| -> Result<Vec<String>, String> {
        match options.get(key) {
            None => Ok(Vec::new()),
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("`{key}` is a list of strings"))
                })
                .collect(),
            Some(_) => Err(format!("`{key}` is a list of strings")),
        }
    };
    let regex = |key: &str, pattern: &str| {
        Lazy::new(vec![pattern.to_string()], syntax)
            .map_err(|e| format!("`{key}` has a bad regex {e}"))
    };
    let regex_set = |key: &str| -> Result<Option<Lazy<regex::RegexSet>>, String> {
        let patterns = strings(key)?;
        if patterns.is_empty() {
            return Ok(None);
        }
        Lazy::new(patterns, syntax)
            .map(Some)
            .map_err(|e| format!("`{key}` has a bad regex {e}"))
    };
    // The path itself, and everything under it.
    let ignore = strings("ignore")?
        .iter()
        .flat_map(|p| [p.clone(), format!("{}/**", p.trim_end_matches('/'))])
        .collect::<Vec<_>>();
    let ignore = if ignore.is_empty() {
        None
    } else {
        Some(Lazy::new(ignore, syntax).map_err(|e| format!("`ignore` has a bad glob {e}"))?)
    };
    let prose_words = match options.get("prose-words") {
        None => 0,
        Some(toml::Value::Integer(n)) if *n >= 0 => usize::try_from(*n).unwrap_or(usize::MAX),
        Some(_) => return Err("`prose-words` is a whole number, 0 or more".into()),
    };
    let mut kinds = Vec::new();
    match options.get("kinds") {
        None => {}
        Some(toml::Value::Array(items)) => {
            for item in items {
                let Some(table) = item.as_table() else {
                    return Err("`kinds` is a list of tables".into());
                };
                for key in table.keys() {
                    if !["kind", "name", "path", "instead"].contains(&key.as_str()) {
                        return Err(format!(
                            "a kind has no key `{key}` (it takes kind, name, path, instead)"
                        ));
                    }
                }
                let text = |key: &str| table.get(key).and_then(|v| v.as_str());
                let (Some(kind), Some(instead)) = (text("kind"), text("instead")) else {
                    return Err("a kind needs `kind` and `instead`, strings".into());
                };
                kinds.push(PathKind {
                    kind: kind.to_string(),
                    name: text("name").map(|p| regex("kinds.name", p)).transpose()?,
                    path: text("path").map(|p| regex("kinds.path", p)).transpose()?,
                    instead: instead.to_string(),
                });
            }
        }
        Some(_) => return Err("`kinds` is a list of tables".into()),
    }
    Ok(HostPathCheck {
        ignore,
        remote_calls: regex_set("remote-calls")?,
        remote_names: regex_set("remote-names")?,
        prose_words,
        shell_keys: strings("shell-keys")?,
        kinds,
    })
}
