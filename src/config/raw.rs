//! `forgelint.toml` as written (TOML), before compilation: every table denies unknown keys, so a
//! typo is an error with a did-you-mean. The JSON Schema of the file (`forgelint schema
//! config`) is derived from these types (schemars): each key's description is its doc comment.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::{DEFAULT_EXPERIMENTS, DEFAULT_INCLUDE};
use crate::platform_facts::{
    DEFAULT_EXPERIMENT_CONFIGS, DEFAULT_HOST_PATH_ROOTS, DEFAULT_KIND, DEFAULT_MAX_EXPERIMENT_FILE,
};

/// forgelint configuration (forgelint.toml or .forgelint.toml). Each file is linted with the
/// nearest one in its folder or a parent. Every key is optional; unknown keys are an error.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "forgelint.toml")]
pub(crate) struct RawConfig {
    /// Another config this one builds on, relative to this file; the keys set here replace
    /// the base's, [severity], [per-file-ignores] and [platform.project-quota] are merged key
    /// by key, rule files add up.
    #[schemars(with = "Option<String>")]
    pub extend: Option<Spanned<String>>,
    /// Extra rule files or folders (your team's policies), relative to this file.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub rules: Vec<Spanned<String>>,
    /// Which files are linted. Globs are relative to this config's folder.
    #[serde(default)]
    pub files: RawFiles,
    /// The platform: what the context-dependent rules need.
    #[serde(default)]
    pub platform: RawPlatform,
    /// Per-rule severity: "off", "note", "warning" or "error", by rule id.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    pub severity: BTreeMap<Spanned<String>, Spanned<String>>,
    /// Glob (relative to this config's folder) -> the rule ids not run on the files it
    /// matches.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Vec<String>>")]
    pub per_file_ignores: BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
    /// How the files of experiment directories are read.
    #[serde(default)]
    pub experiments: RawExperiments,
}

/// How the files of experiment directories are read.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawExperiments {
    /// Host paths under these roots are data mounts (exp-host-path): absolute folders such as
    /// "/mnt", "~", or schemes such as "file:". Replaces the defaults.
    #[schemars(with = "Option<Vec<String>>", extend("default" = DEFAULT_HOST_PATH_ROOTS))]
    pub host_path_roots: Option<Vec<Spanned<String>>>,
    /// The experiment's config file (hyperparam-unknown, config conditions): the first of
    /// these names that exists.
    #[schemars(with = "Option<StringOrList>", extend("default" = DEFAULT_EXPERIMENT_CONFIGS))]
    pub config: Option<Spanned<StringOrList>>,
    /// Bytes: larger experiment files are reported by exp-large-file, not read.
    #[schemars(
        with = "Option<u64>",
        range(min = 1),
        extend("default" = DEFAULT_MAX_EXPERIMENT_FILE)
    )]
    pub max_file_size: Option<Spanned<i64>>,
}

/// A key that takes one name or a list of names.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum StringOrList {
    One(String),
    Many(Vec<String>),
}

/// Which files are linted. Globs are relative to this config's folder.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawFiles {
    /// Globs of the files that are specs; replaces the default names.
    #[schemars(with = "Option<Vec<String>>", extend("default" = DEFAULT_INCLUDE))]
    pub include: Option<Vec<Spanned<String>>>,
    /// Globs of paths to skip, added to the skipped paths (.git, target, node_modules).
    #[schemars(with = "Option<Vec<String>>")]
    pub exclude: Option<Vec<Spanned<String>>>,
    /// Globs of experiment directories (relative to the project root), linted even when no
    /// spec names them.
    #[schemars(with = "Option<Vec<String>>", extend("default" = DEFAULT_EXPERIMENTS))]
    pub experiments: Option<Vec<Spanned<String>>>,
}

/// The platform: what the context-dependent rules need.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawPlatform {
    /// The SDK's KIND_TRAINING string: the kind every spec must have (rule kind).
    #[schemars(extend("default" = DEFAULT_KIND))]
    pub kind: Option<String>,
    /// A snapshot of the admission catalog (TOML or JSON), relative to this file: enables the
    /// handshake rules.
    #[schemars(with = "Option<String>")]
    pub catalog: Option<Spanned<String>>,
    /// The image registry hosts the deployment allows (exact host match): enables
    /// image-registry.
    pub registries: Option<Vec<String>>,
    /// GPUs per job for any project: enables gpu-quota.
    pub gpu_quota: Option<u64>,
    /// GPUs per job by metadata.project; a project listed here is not held to gpu-quota.
    #[serde(default)]
    pub project_quota: BTreeMap<String, u64>,
}
