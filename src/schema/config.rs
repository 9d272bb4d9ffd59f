//! The schema of `forgelint.toml`: the keys `config::RawConfig` accepts (every table denies
//! unknown keys), with the defaults and names the code uses.

use serde_json::{json, Map, Value};

use super::{object, string, strings, RULE_ID};
use crate::config::{DEFAULT_EXPERIMENTS, DEFAULT_INCLUDE};
use crate::platform_facts::{
    DEFAULT_EXPERIMENT_CONFIGS, DEFAULT_HOST_PATH_ROOTS, DEFAULT_KIND, DEFAULT_MAX_EXPERIMENT_FILE,
};
use crate::rules::RuleSet;

/// What `[severity]` takes, `off` included.
const LEVELS: [&str; 4] = ["off", "note", "warning", "error"];

pub fn schema(builtin: &RuleSet) -> Value {
    let mut top = Map::new();
    top.insert(
        "extend".into(),
        string("Another config this one builds on, relative to this file; the keys set here replace the base's, [severity], [per-file-ignores] and [platform.project-quota] are merged key by key, rule files add up."),
    );
    top.insert(
        "rules".into(),
        strings("Extra rule files or folders (your team's policies), relative to this file."),
    );
    top.insert("files".into(), files());
    top.insert("experiments".into(), experiments());
    top.insert("platform".into(), platform());
    top.insert("severity".into(), severity(builtin));
    top.insert("per-file-ignores".into(), per_file_ignores());
    let mut out = object(
        "forgelint configuration (forgelint.toml or .forgelint.toml). Each file is linted with the nearest one in its folder or a parent. Every key is optional; unknown keys are an error.",
        top,
    );
    if let Value::Object(m) = &mut out {
        m.insert("title".into(), json!("forgelint.toml"));
    }
    out
}

fn files() -> Value {
    let mut m = Map::new();
    m.insert(
        "include".into(),
        with_default(
            strings("Globs of the files that are specs; replaces the default names."),
            json!(DEFAULT_INCLUDE),
        ),
    );
    m.insert(
        "exclude".into(),
        strings("Globs of paths to skip, added to the skipped paths (.git, target, node_modules)."),
    );
    m.insert(
        "experiments".into(),
        with_default(
            strings("Globs of experiment directories (relative to the project root), linted even when no spec names them."),
            json!(DEFAULT_EXPERIMENTS),
        ),
    );
    object(
        "Which files are linted. Globs are relative to this config's folder.",
        m,
    )
}

fn experiments() -> Value {
    let mut m = Map::new();
    m.insert(
        "host-path-roots".into(),
        with_default(
            strings("Host paths under these roots are data mounts (exp-host-path): absolute folders such as \"/mnt\", \"~\", or schemes such as \"file:\". Replaces the defaults."),
            json!(DEFAULT_HOST_PATH_ROOTS),
        ),
    );
    m.insert(
        "config".into(),
        json!({
            "description": "The experiment's config file (hyperparam-unknown, config conditions): the first of these names that exists.",
            "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "string" } }],
            "default": DEFAULT_EXPERIMENT_CONFIGS,
        }),
    );
    m.insert(
        "max-file-size".into(),
        json!({
            "type": "integer",
            "minimum": 1,
            "description": "Bytes: larger experiment files are reported by exp-large-file, not read.",
            "default": DEFAULT_MAX_EXPERIMENT_FILE,
        }),
    );
    object("How the files of experiment directories are read.", m)
}

fn platform() -> Value {
    let quota = json!({ "type": "integer", "minimum": 0 });
    let mut m = Map::new();
    m.insert(
        "kind".into(),
        json!({
            "type": "string",
            "description": "The SDK's KIND_TRAINING string: the kind every spec must have (rule kind).",
            "default": DEFAULT_KIND,
        }),
    );
    m.insert(
        "catalog".into(),
        string("A snapshot of the admission catalog (TOML or JSON), relative to this file: enables the handshake rules."),
    );
    m.insert(
        "registries".into(),
        strings("The image registry hosts the deployment allows (exact host match): enables image-registry."),
    );
    let mut gpu = quota.clone();
    gpu["description"] = json!("GPUs per job for any project: enables gpu-quota.");
    m.insert("gpu-quota".into(), gpu);
    m.insert(
        "project-quota".into(),
        json!({
            "type": "object",
            "description": "GPUs per job by metadata.project; a project listed here is not held to gpu-quota.",
            "additionalProperties": quota,
        }),
    );
    object("The platform: what the context-dependent rules need.", m)
}

fn severity(builtin: &RuleSet) -> Value {
    let level = json!({ "enum": LEVELS });
    // Built-in ids are listed so an editor can complete them; a rule file's own ids are
    // allowed as any id (forgelint checks that a loaded rule has it).
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
        "description": "Per-rule severity: \"off\", \"note\", \"warning\" or \"error\", by rule id.",
        "properties": props,
        "propertyNames": { "pattern": RULE_ID },
        "additionalProperties": level,
    })
}

fn per_file_ignores() -> Value {
    json!({
        "type": "object",
        "description": "Glob (relative to this config's folder) -> the rule ids not run on the files it matches.",
        "additionalProperties": {
            "type": "array",
            "items": { "type": "string", "pattern": RULE_ID },
        },
    })
}

fn with_default(mut schema: Value, default: Value) -> Value {
    schema["default"] = default;
    schema
}
