//! The files of one experiment directory, walked by the worker that lints them: sorted, with
//! `.gitignore` respected (unless `--no-ignore`), `.git`, `target` and `node_modules` skipped,
//! and links never followed.

use std::path::Path;

use crate::discover::{walk_builder, why_not_opened};

/// Hands every file under `dir` to `visit` in path order, with why it is not opened when it
/// is not a regular file (a FIFO, a socket, a dangling link).
pub fn each_file(dir: &Path, no_ignore: bool, visit: &mut dyn FnMut(&Path, Option<String>)) {
    let walker = walk_builder(dir, no_ignore)
        .sort_by_file_name(|a, b| a.cmp(b))
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
