//! The spec that names an experiment found by the `[files] experiments` globs, for the `spec`
//! conditions of experiment rules: the project's `.starforge/jobspec.json` (what `sf submit`
//! writes) or its `jobspec.json`, in the experiment's parent folders, when its
//! `spec.source.exp` names this experiment.

use std::path::{Path, PathBuf};

use crate::recent::Recent;

/// Parent folders searched for the project of an experiment.
const MAX_LEVELS: usize = 8;
/// Where a project keeps its spec, by its root.
const SPEC_PLACES: [&str; 2] = [".starforge/jobspec.json", "jobspec.json"];

/// The text of the spec that names the experiment `root` (an absolute path), if one does;
/// looked up once per experiment by a worker (its files come one after another): `last`
/// holds the answer for the experiment it asked about last.
pub fn naming(root: &Path, last: &mut Recent<PathBuf, Option<String>, 1>) -> Option<String> {
    if let Some(known) = last.get(|dir| dir == root) {
        return known;
    }
    let found = search(root);
    last.put(root.to_path_buf(), found.clone());
    found
}

fn search(root: &Path) -> Option<String> {
    naming_in(root, &mut |path| crate::read::read_text(path).ok())
}

/// The text of the spec that names the experiment `root`, the specs of its parent folders
/// read with `read`: from disk (`root` absolute), or from a commit's tree (`root` relative to
/// the repository's top).
pub fn naming_in(root: &Path, read: &mut dyn FnMut(&Path) -> Option<String>) -> Option<String> {
    for project in root.ancestors().skip(1).take(MAX_LEVELS) {
        for place in SPEC_PLACES {
            let Some(text) = read(&project.join(place)) else {
                continue;
            };
            if names(&text, project, root) {
                return Some(text);
            }
        }
    }
    None
}

/// Does the spec `text` of the project at `project` name the folder `experiment`?
fn names(text: &str, project: &Path, experiment: &Path) -> bool {
    let Ok(doc) = crate::json::parse(text) else {
        return false;
    };
    let exp = doc
        .get(doc.root(), "spec")
        .and_then(|s| doc.get(s, "source"))
        .and_then(|s| doc.get(s, "exp"))
        .and_then(|e| doc.as_str(e));
    exp.is_some_and(|exp| {
        crate::rules::functions::path_escape(exp).is_none()
            && crate::paths::normalize(Path::new(exp), project) == experiment
    })
}
