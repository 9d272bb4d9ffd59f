//! The files of one experiment directory, walked by the worker that lints them: sorted, with
//! `.gitignore` respected (unless `--no-ignore`), `.git`, `target` and `node_modules` skipped,
//! and links never followed.

use std::path::Path;

use crate::discover::{why_not_opened, SKIPPED_DIRS};

/// Hands every file under `dir` to `visit` in path order, with why it is not opened when it
/// is not a regular file (a FIFO, a socket, a dangling link).
pub fn each_file(dir: &Path, no_ignore: bool, visit: &mut dyn FnMut(&Path, Option<String>)) {
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(false)
        .parents(true)
        .ignore(false)
        .git_ignore(!no_ignore)
        .git_exclude(!no_ignore)
        .git_global(!no_ignore)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|t| t.is_dir())
                && entry.depth() > 0
                && SKIPPED_DIRS
                    .iter()
                    .any(|d| entry.file_name() == std::ffi::OsStr::new(d)))
        })
        .build();
    for entry in walker.flatten() {
        let Some(ft) = entry.file_type() else {
            continue;
        };
        if ft.is_dir() {
            continue;
        }
        // As the main walk says it.
        let Some(problem) = why_not_opened(&ft, entry.path()) else {
            continue;
        };
        visit(entry.path(), problem);
    }
}
