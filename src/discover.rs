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

pub fn discover(paths: &[PathBuf], opts: &Options<'_>) -> Discovery {
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
    let explicit_files = out.files.len();
    if !roots.is_empty() {
        walk(&roots, opts, &mut out);
    }
    // One file named in two spellings (`x`, `./x`, `dir/../x`), or reached from two roots, is
    // linted once. A single walked root cannot repeat a file.
    if explicit_files + roots.len() > 1 {
        let mut seen = std::collections::HashSet::new();
        out.files
            .retain(|c| seen.insert(crate::normalize(&c.path, opts.cwd)));
    }
    // In path order (byte-wise: cheap), which also reads a folder's files together. The report
    // sorts findings on its own.
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

fn walk(roots: &[PathBuf], opts: &Options<'_>, out: &mut Discovery) {
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
    let found = Mutex::new(Vec::new());
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
            if let Ok(mut f) = found.lock() {
                // `./x` is shown as `x`, as every other linter does.
                let path = entry.into_path();
                let path = match path.strip_prefix(".") {
                    Ok(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => path,
                };
                f.push(Candidate {
                    path,
                    explicit: false,
                    problem,
                });
            }
            ignore::WalkState::Continue
        })
    });
    out.files
        .extend(found.into_inner().unwrap_or_else(|e| e.into_inner()));
    out.warnings
        .extend(warnings.into_inner().unwrap_or_else(|e| e.into_inner()));
}
