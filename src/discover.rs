//! Paths → the sorted list of files to lint. The only module that walks the file system.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::config::Settings;

/// Directories never descended into.
pub const SKIPPED_DIRS: [&str; 3] = [".git", "target", "node_modules"];

/// A file to lint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    pub path: PathBuf,
    /// Named on the command line (always linted; unreadable → exit 2).
    pub explicit: bool,
    /// Why the file is not opened (a FIFO, a socket, a dangling link): reported as a finding.
    pub problem: Option<String>,
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<Candidate>,
    /// Explicit paths that do not exist.
    pub missing: Vec<(PathBuf, String)>,
    /// Directories that could not be read during the walk.
    pub warnings: Vec<String>,
}

pub struct Options<'a> {
    pub settings: &'a Settings,
    pub no_ignore: bool,
    pub threads: usize,
    pub cwd: &'a Path,
}

/// Why a path that is not a regular file is not opened.
fn not_regular(ft: &std::fs::FileType) -> String {
    use std::os::unix::fs::FileTypeExt;
    let kind = if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else {
        "a special file"
    };
    format!("not a regular file ({kind}); it was not opened")
}

impl Options<'_> {
    fn wanted(&self, path: &Path) -> bool {
        let rel = crate::relative_to(path, &self.settings.base_dir, self.cwd);
        let files = &self.settings.files;
        files.include.is_match(&*rel) && !files.exclude.is_match(&*rel)
    }
}

/// Every file under `paths`, collected and sorted (for tools and tests; the linter itself uses
/// [`discover_each`], which holds no list).
pub fn discover(paths: &[PathBuf], opts: &Options<'_>) -> Discovery {
    let walked = Mutex::new(Vec::new());
    let mut out = discover_each(paths, opts, &|c| {
        if let Ok(mut w) = walked.lock() {
            w.push(c);
        }
    });
    out.files
        .extend(walked.into_inner().unwrap_or_else(|e| e.into_inner()));
    {
        use std::os::unix::ffi::OsStrExt;
        out.files.sort_unstable_by(|a, b| {
            a.path
                .as_os_str()
                .as_bytes()
                .cmp(b.path.as_os_str().as_bytes())
        });
    }
    out
}

/// Finds the files to lint. The files named on the command line are returned in
/// `Discovery::files`; every file found by walking a folder is handed to `visit` on the walker's
/// own threads as soon as it is found, so nothing grows with the size of the tree.
pub fn discover_each(
    paths: &[PathBuf],
    opts: &Options<'_>,
    visit: &(dyn Fn(Candidate) + Sync),
) -> Discovery {
    let mut out = Discovery::default();
    let mut roots = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A dangling symlink named explicitly is a file we cannot read, not a typo.
                if std::fs::symlink_metadata(path).is_ok() {
                    out.files.push(Candidate {
                        path: path.clone(),
                        explicit: true,
                        problem: Some("a dangling symbolic link; its target does not exist".into()),
                    });
                } else {
                    out.missing
                        .push((path.clone(), "no such file or directory".into()));
                }
            }
            Err(e) => out.files.push(Candidate {
                path: path.clone(),
                explicit: true,
                problem: Some(format!("cannot read: {e}")),
            }),
            Ok(meta) if meta.is_dir() => roots.push(path.clone()),
            Ok(meta) if meta.is_file() => out.files.push(Candidate {
                path: path.clone(),
                explicit: true,
                problem: None,
            }),
            Ok(meta) => out.files.push(Candidate {
                path: path.clone(),
                explicit: true,
                problem: Some(not_regular(&meta.file_type())),
            }),
        }
    }
    // One file named in two spellings (`x`, `./x`, `dir/../x`), or reached from two roots, is
    // linted once. A single walked root cannot repeat a file, so usually no set is kept.
    let dedupe = out.files.len() + roots.len() > 1;
    let seen = Mutex::new(std::collections::HashSet::new());
    if dedupe {
        if let Ok(mut seen) = seen.lock() {
            out.files
                .retain(|c| seen.insert(crate::normalize(&c.path, opts.cwd)));
        }
    }
    if !roots.is_empty() {
        let visit_once = |c: Candidate| {
            let first = !dedupe
                || seen
                    .lock()
                    .map(|mut s| s.insert(crate::normalize(&c.path, opts.cwd)))
                    .unwrap_or(true);
            if first {
                visit(c);
            }
        };
        walk(&roots, opts, &mut out, &visit_once);
    }
    out
}

fn walk(
    roots: &[PathBuf],
    opts: &Options<'_>,
    out: &mut Discovery,
    visit: &(dyn Fn(Candidate) + Sync),
) {
    let mut builder = ignore::WalkBuilder::new(&roots[0]);
    for root in &roots[1..] {
        builder.add(root);
    }
    builder
        .hidden(false)
        .parents(true)
        .ignore(!opts.no_ignore)
        .git_ignore(!opts.no_ignore)
        .git_exclude(!opts.no_ignore)
        .git_global(!opts.no_ignore)
        .require_git(false)
        .follow_links(false)
        .threads(opts.threads.max(1))
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|t| t.is_dir())
                && entry.depth() > 0
                && SKIPPED_DIRS
                    .iter()
                    .any(|d| entry.file_name() == std::ffi::OsStr::new(d)))
        });
    let warnings = Mutex::new(Vec::new());
    builder.build_parallel().run(|| {
        Box::new(|entry| {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    if let Ok(mut w) = warnings.lock() {
                        w.push(e.to_string());
                    }
                    return ignore::WalkState::Continue;
                }
            };
            let Some(ft) = entry.file_type() else {
                return ignore::WalkState::Continue;
            };
            if ft.is_dir() || !opts.wanted(entry.path()) {
                return ignore::WalkState::Continue;
            }
            let problem = if ft.is_file() {
                None
            } else if ft.is_symlink() {
                match std::fs::metadata(entry.path()) {
                    Ok(m) if m.is_file() => None,
                    Ok(m) if m.is_dir() => return ignore::WalkState::Continue,
                    Ok(m) => Some(not_regular(&m.file_type())),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        Some("a dangling symbolic link; its target does not exist".into())
                    }
                    Err(e) => Some(format!("cannot follow the symbolic link: {e}")),
                }
            } else {
                Some(not_regular(&ft))
            };
            // `./x` is shown as `x`, as every other linter does.
            let path = entry.into_path();
            let path = match path.strip_prefix(".") {
                Ok(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => path,
            };
            visit(Candidate {
                path,
                explicit: false,
                problem,
            });
            ignore::WalkState::Continue
        })
    });
    out.warnings
        .extend(warnings.into_inner().unwrap_or_else(|e| e.into_inner()));
}
