//! Built-in functions: the few checks no declarative predicate covers. A rule file names one with
//! `function = "…"` and passes `options`; the rule stays data.

use super::eval::{
    emit, emit_at, emit_repeat, for_each_repeat, project, Context, Hits, Lit, Vars, MAX_VALUE_CHARS,
};
use super::{Check, Needs, Operand, Setting};
use crate::escape::quote;
use crate::json::{push_pointer_segment, Value};
use crate::select::Resolved;
use crate::text::host_path::{self, HostPathCheck};

use std::sync::Arc;

/// A built-in function compiled with its options, ready to run on the values a check selects.
pub trait Builtin: std::fmt::Debug + Send + Sync {
    fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits);

    /// The context it needs to run at all (a quota, the registries).
    fn needs(&self) -> Needs {
        Needs::default()
    }

    /// `host-path`'s check, which the experiment linter runs over a text file.
    fn host_path(&self) -> Option<&HostPathCheck> {
        None
    }
}

/// What a built-in function reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// The document a check selects from (jobspec and config rules).
    Document,
    /// A text file's string literals (`target = "text"` rules).
    Text,
}

/// One option a function takes, with the JSON Schema of its value (for the rule schema).
pub struct OptionDef {
    pub name: &'static str,
    pub schema: fn() -> serde_json::Value,
}

/// Everything about one built-in function, in one row of [`FUNCTIONS`]: its name, what it
/// reads, the placeholders it gives messages, its options and how they compile. A new
/// function is a row here and the [`Builtin`] that runs it; the compiler, the rule schema and
/// the error messages read the table.
pub struct FunctionDef {
    pub name: &'static str,
    /// What it checks, for the rule schema.
    pub summary: &'static str,
    pub reads: Reads,
    /// The placeholders it adds for messages.
    pub vars: &'static [&'static str],
    /// The options it takes; none refuses every option.
    pub options: &'static [OptionDef],
    /// Compiles its options (checked against `options` already).
    compile: CompileOptions,
}

/// How a function compiles its options.
type CompileOptions = fn(&toml::Table, Syntax) -> Result<Arc<dyn Builtin>, String>;

/// Whether the regexes among a function's options are parsed when it compiles.
pub use crate::text::host_path::Syntax;

/// `host-path`: run over a text file's string literals by the experiment linter.
pub const HOST_PATH: &str = "host-path";
/// `config-key`: reads the experiment's config file.
pub const CONFIG_KEY: &str = "config-key";

/// The built-in functions, in the order errors and the schema list them.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        name: "duplicate-keys",
        summary: "Objects that repeat a key (the parser records them).",
        reads: Reads::Document,
        vars: &[],
        options: &[],
        compile: |_, _| Ok(Arc::new(DuplicateKeys)),
    },
    FunctionDef {
        name: "gpu-quota",
        summary: "Σ nodes × gpus_per_node over the selected pool arrays, against the project's quota.",
        reads: Reads::Document,
        vars: &["total", "quota", "project"],
        options: &[],
        compile: |_, _| Ok(Arc::new(GpuQuota)),
    },
    FunctionDef {
        name: "image-registry",
        summary: "The registry host of the selected image references must be allowed.",
        reads: Reads::Document,
        vars: &["host", "allowed"],
        options: &[OptionDef {
            name: "allowed",
            schema: allowed_schema,
        }],
        compile: |options, _| Ok(Arc::new(ImageRegistry::compile(options)?)),
    },
    FunctionDef {
        name: "leaf-collision",
        summary: "Two selected `<owner>/<name>` values with the same last segment.",
        reads: Reads::Document,
        vars: &["leaf", "other"],
        options: &[OptionDef {
            name: "separator",
            schema: || serde_json::json!({ "type": "string", "minLength": 1, "default": "/" }),
        }],
        compile: |options, _| Ok(Arc::new(LeafCollision::compile(options)?)),
    },
    FunctionDef {
        name: "path-escapes-root",
        summary: "A relative path that is absolute or climbs out of the project root with `..`.",
        reads: Reads::Document,
        vars: &["reason"],
        options: &[],
        compile: |_, _| Ok(Arc::new(ProjectPath { escapes: true })),
    },
    FunctionDef {
        name: "directory-missing",
        summary: "A relative path that names no directory under the project root.",
        reads: Reads::Document,
        vars: &[],
        options: &[],
        compile: |_, _| Ok(Arc::new(ProjectPath { escapes: false })),
    },
    FunctionDef {
        name: HOST_PATH,
        summary: "A string literal that is a host path under a data mount ([experiments] host-path-roots).",
        reads: Reads::Text,
        vars: &["root", "kind", "instead"],
        options: HOST_PATH_OPTIONS,
        compile: |options, syntax| Ok(Arc::new(HostPath(host_path::compile(options, syntax)?))),
    },
    FunctionDef {
        name: CONFIG_KEY,
        summary: "The selected keys (dotted paths) must name keys of the experiment's config file.",
        reads: Reads::Document,
        vars: &["config", "did-you-mean"],
        options: &[],
        compile: |_, _| Ok(Arc::new(ConfigKey)),
    },
];

/// A built-in function as a check uses it: its row, compiled with the check's options.
#[derive(Debug, Clone)]
pub struct Function {
    def: &'static FunctionDef,
    builtin: Arc<dyn Builtin>,
}

impl std::fmt::Debug for FunctionDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

type CompileError = (bool, String);

impl Function {
    /// The names of the built-in functions.
    pub fn names() -> impl Iterator<Item = &'static str> {
        FUNCTIONS.iter().map(|d| d.name)
    }

    /// Compiles `function = name` with its options; errors say whether the options are at fault.
    pub fn compile(
        name: &str,
        options: Option<&toml::Table>,
        syntax: Syntax,
    ) -> Result<Function, CompileError> {
        let Some(def) = FUNCTIONS.iter().find(|d| d.name == name) else {
            return Err((false, format!("unknown function `{name}`")));
        };
        let empty = toml::Table::new();
        let options = options.unwrap_or(&empty);
        if def.options.is_empty() && !options.is_empty() {
            return Err((true, format!("function `{name}` takes no options")));
        }
        let known: Vec<&str> = def.options.iter().map(|o| o.name).collect();
        for key in options.keys() {
            if !known.contains(&key.as_str()) {
                let hint = crate::error::suggest(key, known.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                return Err((
                    true,
                    format!("function `{name}` has no option `{key}`{hint}"),
                ));
            }
        }
        let builtin = (def.compile)(options, syntax).map_err(|e| (true, e))?;
        Ok(Function { def, builtin })
    }

    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// Whether this is the built-in function `name`.
    pub fn is(&self, name: &str) -> bool {
        self.def.name == name
    }

    /// Reads a text file's string literals (a `target = "text"` rule), not a document.
    pub fn reads_text(&self) -> bool {
        self.def.reads == Reads::Text
    }

    /// Placeholders this function adds for messages.
    pub fn vars(&self) -> &'static [&'static str] {
        self.def.vars
    }

    pub fn needs(&self) -> Needs {
        self.builtin.needs()
    }

    pub fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
        self.builtin.run(check, ctx, res, out);
    }

    /// The check of `host-path`, compiled with its options.
    pub fn host_path(&self) -> Option<&HostPathCheck> {
        self.builtin.host_path()
    }
}

/// The schema of `image-registry`'s `allowed`.
fn allowed_schema() -> serde_json::Value {
    serde_json::json!({
        "description": "The allowed registry hosts, or { setting = \"registries\" }.",
        "anyOf": [
            { "type": "array", "items": { "$ref": "#/$defs/literal" } },
            { "type": "object", "properties": { "setting": { "const": "registries" } }, "required": ["setting"] },
        ],
    })
}

#[derive(Debug)]
struct DuplicateKeys;

impl Builtin for DuplicateKeys {
    fn run(&self, check: &Check, ctx: &Context<'_>, _: Resolved<'_>, out: &mut Hits) {
        duplicate_keys(check, ctx, out);
    }
}

#[derive(Debug)]
struct GpuQuota;

impl Builtin for GpuQuota {
    fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
        gpu_quota(check, ctx, res, out);
    }

    fn needs(&self) -> Needs {
        Needs {
            quota: true,
            ..Needs::default()
        }
    }
}

#[derive(Debug)]
struct ImageRegistry {
    allowed: Operand,
}

impl ImageRegistry {
    fn compile(options: &toml::Table) -> Result<ImageRegistry, String> {
        let allowed = match options.get("allowed") {
            None => Operand::Setting(Setting::Registries),
            Some(toml::Value::Array(items)) => {
                Operand::Literal(Lit::from_toml(&toml::Value::Array(items.clone()))?)
            }
            Some(toml::Value::Table(t))
                if t.get("setting").and_then(|v| v.as_str()) == Some("registries") =>
            {
                Operand::Setting(Setting::Registries)
            }
            Some(_) => {
                return Err("`allowed` is a list of hosts or { setting = \"registries\" }".into())
            }
        };
        Ok(ImageRegistry { allowed })
    }
}

impl Builtin for ImageRegistry {
    fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
        image_registry(&self.allowed, check, ctx, res, out);
    }

    fn needs(&self) -> Needs {
        Needs {
            registries: matches!(self.allowed, Operand::Setting(_)),
            ..Needs::default()
        }
    }
}

#[derive(Debug)]
struct LeafCollision {
    separator: String,
}

impl LeafCollision {
    fn compile(options: &toml::Table) -> Result<LeafCollision, String> {
        let separator = match options.get("separator") {
            None => "/".to_string(),
            Some(toml::Value::String(s)) if !s.is_empty() => s.clone(),
            Some(_) => return Err("`separator` is a non-empty string".into()),
        };
        Ok(LeafCollision { separator })
    }
}

impl Builtin for LeafCollision {
    fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
        if res.found.len() >= 2 {
            leaf_collision(&self.separator, check, ctx, res, out);
        }
    }
}

/// `config-key`: see [`super::config_key`].
#[derive(Debug)]
struct ConfigKey;

impl Builtin for ConfigKey {
    fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
        super::config_key::config_key(check, ctx, res, out);
    }
}

/// `host-path`, which the experiment linter runs over a text file's literals: a document has
/// nothing for it.
#[derive(Debug)]
struct HostPath(HostPathCheck);

impl Builtin for HostPath {
    fn run(&self, _: &Check, _: &Context<'_>, _: Resolved<'_>, _: &mut Hits) {}

    fn host_path(&self) -> Option<&HostPathCheck> {
        Some(&self.0)
    }
}

/// The options of `host-path` (their schemas are [`host_path::option_schema`]).
const HOST_PATH_OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "ignore",
        schema: || host_path::option_schema("ignore"),
    },
    OptionDef {
        name: "remote-calls",
        schema: || host_path::option_schema("remote-calls"),
    },
    OptionDef {
        name: "remote-names",
        schema: || host_path::option_schema("remote-names"),
    },
    OptionDef {
        name: "prose-words",
        schema: || host_path::option_schema("prose-words"),
    },
    OptionDef {
        name: "shell-keys",
        schema: || host_path::option_schema("shell-keys"),
    },
    OptionDef {
        name: "kinds",
        schema: || host_path::option_schema("kinds"),
    },
];

/// `path-escapes-root` (`escapes`) and `directory-missing`: a path under the project root.
#[derive(Debug)]
struct ProjectPath {
    escapes: bool,
}

impl Builtin for ProjectPath {
    fn run(&self, check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
        let doc = ctx.doc;
        for m in res.found {
            let Some(path) = doc.as_str(m.node) else {
                continue;
            };
            if path.is_empty() {
                continue;
            }
            let escape = path_escape(path);
            let fault = if self.escapes {
                escape.map(str::to_string)
            } else if escape.is_none() && !ctx.project.dir_exists(path) {
                Some(String::new())
            } else {
                None
            };
            if let Some(reason) = fault {
                let vars = Vars {
                    value: quote(path, MAX_VALUE_CHARS),
                    extra: vec![("reason", reason)],
                    ..Vars::default()
                };
                out.push(emit_at(check, ctx, m, vars, Vec::new()));
            }
        }
    }
}

/// `duplicate-keys`: every key an object repeats, at the second, pointing at the first.
fn duplicate_keys(check: &Check, ctx: &Context<'_>, out: &mut Hits) {
    let doc = ctx.doc;
    for dup in &doc.duplicates {
        let mut pointer = doc.pointer_of(dup.object);
        push_pointer_segment(&mut pointer, &dup.key);
        let key = quote(&dup.key, MAX_VALUE_CHARS);
        let vars = Vars {
            path: key.clone().into(),
            key,
            pointer: pointer.clone(),
            ..Vars::default()
        };
        out.push(emit(
            check,
            dup.second,
            pointer,
            vars,
            vec![(dup.first, check.related_label.clone())],
        ));
    }
}

/// `gpu-quota`: Σ nodes × gpus_per_node over the pools, against the project's quota.
fn gpu_quota(check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
    let doc = ctx.doc;
    let project_name = project(doc);
    let Some(quota) = ctx.platform.quota_for(project_name) else {
        return;
    };
    for m in res.found {
        let mut total: u128 = 0;
        for &pool in doc.items(m.node) {
            let int = |key: &str| -> Option<u128> {
                match doc.value(doc.get(pool, key)?) {
                    // An integer too large for 128 bits still counts, as the
                    // most there can be (the sum saturates).
                    Value::Number(raw) if crate::json::is_integer_literal(raw) => {
                        if raw.starts_with('-') {
                            None
                        } else {
                            Some(raw.parse::<u128>().unwrap_or(u128::MAX))
                        }
                    }
                    _ => None,
                }
            };
            if let (Some(nodes), Some(gpus)) = (int("nodes"), int("gpus_per_node")) {
                total = total.saturating_add(nodes.saturating_mul(gpus));
            }
        }
        if total > quota as u128 {
            let total = if total == u128::MAX {
                format!("more than {}", u128::MAX)
            } else {
                total.to_string()
            };
            let vars = Vars {
                value: total.clone(),
                expected: format!("at most {quota}").into(),
                extra: vec![
                    ("total", total),
                    ("quota", quota.to_string()),
                    (
                        "project",
                        project_name
                            .map(|p| quote(p, MAX_VALUE_CHARS))
                            .unwrap_or_else(|| "(none)".into()),
                    ),
                ],
                ..Vars::default()
            };
            out.push(emit_at(check, ctx, m, vars, Vec::new()));
        }
    }
}

/// `image-registry`: the image's registry host, by docker's rule, must be allowed.
fn image_registry(
    allowed: &Operand,
    check: &Check,
    ctx: &Context<'_>,
    res: Resolved<'_>,
    out: &mut Hits,
) {
    let doc = ctx.doc;
    let hosts: &[Lit] = match allowed {
        Operand::Literal(Lit::List(items)) => items,
        _ => &[],
    };
    let registries: &[String] = match allowed {
        Operand::Literal(_) => &[],
        _ => match &ctx.platform.registries {
            Some(r) => r,
            None => return,
        },
    };
    let allowed = hosts
        .iter()
        .filter_map(|l| match l {
            Lit::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .chain(registries.iter().map(String::as_str));
    for m in res.found {
        let Some(image) = doc.as_str(m.node) else {
            continue;
        };
        if image.is_empty() {
            continue;
        }
        let host = image_registry_host(image);
        if !allowed.clone().any(|a| a == host) {
            let list = allowed
                .clone()
                .map(|a| quote(a, MAX_VALUE_CHARS))
                .collect::<Vec<_>>()
                .join(", ");
            let vars = Vars {
                value: quote(image, MAX_VALUE_CHARS),
                expected: list.clone().into(),
                extra: vec![("host", quote(host, MAX_VALUE_CHARS)), ("allowed", list)],
                ..Vars::default()
            };
            out.push(emit_at(check, ctx, m, vars, Vec::new()));
        }
    }
}

/// `leaf-collision`: two ids whose last segment (the folder they unpack to) is the same.
fn leaf_collision(
    separator: &str,
    check: &Check,
    ctx: &Context<'_>,
    res: Resolved<'_>,
    out: &mut Hits,
) {
    let doc = ctx.doc;
    let leaf = |m: &crate::select::Match| {
        let id = doc.as_str(m.node)?;
        Some(last_segment(id, separator)).filter(|leaf| !leaf.is_empty())
    };
    for_each_repeat(res.found, leaf, |m, first| {
        let (Some(id), Some(first_id)) = (doc.as_str(m.node), doc.as_str(first.node)) else {
            return;
        };
        let vars = Vars {
            value: quote(id, MAX_VALUE_CHARS),
            extra: vec![
                ("leaf", quote(last_segment(id, separator), MAX_VALUE_CHARS)),
                ("other", quote(first_id, MAX_VALUE_CHARS)),
            ],
            ..Vars::default()
        };
        out.push(emit_repeat(check, ctx, m, first, vars));
    });
}

/// What follows the last `separator` in `id` (all of `id` without one). A one-byte separator,
/// the usual `/`, is found without setting up a substring search for every id.
fn last_segment<'a>(id: &'a str, separator: &str) -> &'a str {
    match separator.as_bytes() {
        &[byte] => match id.bytes().rposition(|b| b == byte) {
            // A one-byte separator is ASCII: the byte after it starts a character.
            Some(at) => &id[at + 1..],
            None => id,
        },
        _ => id.rsplit(separator).next().unwrap_or(id),
    }
}

/// Why `path` is not a path inside the project root, if it is not.
pub fn path_escape(path: &str) -> Option<&'static str> {
    let bytes = path.as_bytes();
    if path.starts_with('/') || path.starts_with('\\') {
        return Some("it is an absolute path");
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("it is an absolute Windows path");
    }
    if path.starts_with('~') {
        return Some("it starts at a home directory");
    }
    let mut depth: i64 = 0;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return Some("it climbs out of the project root with `..`");
                }
            }
            _ => depth += 1,
        }
    }
    None
}

/// The registry host of a Docker image reference, by Docker's own rule: the first component is a
/// host only if there is a `/` after it and it contains `.` or `:`, is `localhost`, or has an
/// uppercase letter; otherwise the image lives on Docker Hub (`docker.io`).
pub fn image_registry_host(image: &str) -> &str {
    let Some((first, _)) = image.split_once('/') else {
        return "docker.io";
    };
    let is_host = first.contains(['.', ':'])
        || first == "localhost"
        || first.chars().any(|c| c.is_ascii_uppercase());
    if !is_host || first == "index.docker.io" {
        "docker.io"
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docker_host_rule() {
        for (image, host) in [
            ("ubuntu", "docker.io"),
            ("ubuntu:22.04", "docker.io"),
            ("library/ubuntu", "docker.io"),
            ("nvcr.io/nvidia/pytorch:24.01", "nvcr.io"),
            ("nvcr.io.evil.com/x", "nvcr.io.evil.com"),
            (
                "registry.internal:5000/a/b@sha256:00",
                "registry.internal:5000",
            ),
            ("localhost/x", "localhost"),
            ("localhost:5000/x", "localhost:5000"),
            ("Registry/x", "Registry"),
            ("index.docker.io/library/ubuntu", "docker.io"),
            ("[::1]:5000/x", "[::1]:5000"),
        ] {
            assert_eq!(image_registry_host(image), host, "{image}");
        }
    }

    #[test]
    fn last_segments() {
        for (id, separator, leaf) in [
            ("alice/opsd", "/", "opsd"),
            ("a/b/c", "/", "c"),
            ("plain", "/", "plain"),
            ("trailing/", "/", ""),
            ("é/ü", "/", "ü"),
            ("a::b::c", "::", "c"),
            ("aéb", "é", "b"),
        ] {
            assert_eq!(last_segment(id, separator), leaf, "{id:?} {separator:?}");
            assert_eq!(
                last_segment(id, separator),
                id.rsplit(separator).next().unwrap_or(id)
            );
        }
    }

    #[test]
    fn path_escapes() {
        assert!(path_escape("experiments/x").is_none());
        assert!(path_escape("a/../b").is_none());
        assert!(path_escape("./a").is_none());
        for bad in ["/abs", "../x", "a/../../x", "C:\\x", "~/x", "\\\\server\\x"] {
            assert!(path_escape(bad).is_some(), "{bad}");
        }
    }
}
