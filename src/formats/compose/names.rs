//! Group paths and packages, as Hydra resolves them, and file paths resolved lexically.

use std::path::{Component, Path, PathBuf};

/// `a/b` joined: either part may be empty.
pub(super) fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rest}"),
    }
}

/// A group path with `.` and `..` resolved; `None` when it climbs above its root.
pub(super) fn clean(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// `path` with `.` and `..` resolved lexically (no file system access).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Where a child config's keys go, as Hydra places them: its `@package` (relative to the
/// parent's package; `_here_` is the parent's, `_global_` the root), else its `# @package`
/// header (absolute), else its group as written, dotted.
pub(super) fn final_package(
    parent: &str,
    package: Option<&str>,
    header: Option<&str>,
    group: &str,
) -> String {
    let default = group.trim_start_matches('/').replace('/', ".");
    let package = match (package, header) {
        (Some(p), _) => p.replace("_group_", &default),
        (None, Some(h)) if h.is_empty() || h == "_global_" => "_global_".to_string(),
        (None, Some(h)) if h.starts_with("_global_.") => h.to_string(),
        (None, Some(h)) => format!("_global_.{h}"),
        (None, None) => default,
    };
    let package = if package == "_here_" {
        String::new()
    } else {
        package
    };
    let full = match (parent.is_empty(), package.is_empty()) {
        (true, _) => package,
        (_, true) => parent.to_string(),
        _ => format!("{parent}.{package}"),
    };
    match full.rfind("_global_") {
        Some(at) => full[at + "_global_".len()..]
            .trim_start_matches('.')
            .to_string(),
        None => full,
    }
}

/// The key an `override` entry and the entry it overrides share: the group's path and the
/// package its keys go to.
pub(super) fn override_key(
    parent_group: &str,
    group: &str,
    package: Option<&str>,
    parent_package: &str,
) -> String {
    let rel = group.trim_start_matches('/');
    let path = if group.starts_with('/') {
        rel.to_string()
    } else {
        join(parent_group, rel)
    };
    let path = clean(&path).unwrap_or(path);
    format!(
        "{path}@{}",
        final_package(parent_package, package, None, rel)
    )
}
