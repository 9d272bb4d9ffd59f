//! The evaluation context: what the platform is like, and what of it a rule needs. The
//! configuration builds a [`Platform`]; rules and the engine read it, so they need not depend
//! on the configuration (which depends on them).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::catalog::Catalog;

/// The job kind a spec is taken to be when the configuration names none.
pub const DEFAULT_KIND: &str = "TrainingJob";

/// What the platform is like: the context that lets context-dependent rules run.
#[derive(Debug, Clone)]
pub struct Platform {
    pub kind: String,
    pub catalog: Option<Arc<Catalog>>,
    pub registries: Option<Vec<String>>,
    pub gpu_quota: Option<u64>,
    pub project_quota: BTreeMap<String, u64>,
    pub experiments: Experiments,
}

/// `[experiments]`: how the files of an experiment directory are read.
#[derive(Debug, Clone)]
pub struct Experiments {
    /// Host paths under these roots are data mounts (`exp-host-path`).
    pub host_path_roots: Vec<String>,
    /// The experiment's config file: the first of these names that exists.
    pub config: Vec<String>,
    /// Files over this many bytes are not read (`exp-large-file`).
    pub max_file_size: u64,
}

/// The data mounts of the platform's clusters, and the home folders researchers copy from.
pub const DEFAULT_HOST_PATH_ROOTS: [&str; 10] = [
    "/mnt",
    "/data",
    "/datasets",
    "/lustre",
    "/gpfs",
    "/scratch",
    "/shared",
    "/home",
    "~",
    "file:",
];
pub const DEFAULT_EXPERIMENT_CONFIGS: [&str; 4] =
    ["config.yaml", "config.yml", "config.toml", "config.json"];
/// 10 MB: a file larger than this in an experiment is packed into every job package.
pub const DEFAULT_MAX_EXPERIMENT_FILE: u64 = 10_000_000;

impl Default for Experiments {
    fn default() -> Experiments {
        Experiments {
            host_path_roots: DEFAULT_HOST_PATH_ROOTS.map(String::from).to_vec(),
            config: DEFAULT_EXPERIMENT_CONFIGS.map(String::from).to_vec(),
            max_file_size: DEFAULT_MAX_EXPERIMENT_FILE,
        }
    }
}

impl Default for Platform {
    fn default() -> Platform {
        Platform {
            kind: DEFAULT_KIND.to_string(),
            catalog: None,
            registries: None,
            gpu_quota: None,
            project_quota: BTreeMap::new(),
            experiments: Experiments::default(),
        }
    }
}

impl Platform {
    /// The GPU quota of `project`: its own entry, else the default for every project.
    pub fn quota_for(&self, project: Option<&str>) -> Option<u64> {
        project
            .and_then(|p| self.project_quota.get(p).copied())
            .or(self.gpu_quota)
    }

    pub fn has(&self, needs: Needs) -> bool {
        let available = self.available();
        (!needs.catalog || available.catalog)
            && (!needs.registries || available.registries)
            && (!needs.quota || available.quota)
    }

    /// The context this configuration provides.
    pub fn available(&self) -> Needs {
        Needs {
            catalog: self.catalog.is_some(),
            registries: self.registries.is_some(),
            quota: self.gpu_quota.is_some() || !self.project_quota.is_empty(),
        }
    }
}

/// Context a check needs from the configuration before it can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs {
    pub catalog: bool,
    pub registries: bool,
    pub quota: bool,
}

impl Needs {
    pub fn union(self, other: Needs) -> Needs {
        Needs {
            catalog: self.catalog || other.catalog,
            registries: self.registries || other.registries,
            quota: self.quota || other.quota,
        }
    }
    pub fn names(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.catalog {
            out.push("catalog");
        }
        if self.registries {
            out.push("registries");
        }
        if self.quota {
            out.push("quota");
        }
        out
    }
}
