//! Paths as the linter compares them: made absolute without touching the file system, and
//! relative to a config's folder for glob matching.

use std::path::{Path, PathBuf};

/// `path` made absolute against `cwd` with `.` and `..` resolved lexically (no file system
/// access, so it is cheap enough for every file).
pub fn normalize(path: &Path, cwd: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(path).components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base` (the config's folder), for glob matching; as given when outside it.
pub fn relative_to<'p>(path: &'p Path, base: &Path, cwd: &Path) -> std::borrow::Cow<'p, Path> {
    use std::os::unix::ffi::OsStrExt;
    // Runs for every file: bytes first, components only when they may differ.
    let clean = without_leading_dot(path);
    let simple = !clean.as_os_str().as_bytes().windows(2).any(|w| w == b"..")
        || !clean
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    let base_is_cwd = matches!(base.as_os_str().as_bytes(), b"." | b"./")
        || base.as_os_str() == cwd.as_os_str()
        || base == Path::new(".")
        || base == cwd;
    if base_is_cwd && simple && clean.is_relative() {
        return clean.into();
    }
    let abs = normalize(clean, cwd);
    match abs.strip_prefix(normalize(base, cwd)) {
        Ok(rel) => rel.to_path_buf().into(),
        Err(_) => abs.into(),
    }
}

/// `path.strip_prefix(".")` (or `path` when that fails), from the bytes when they tell.
fn without_leading_dot(path: &Path) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    match bytes {
        [b'.'] => Path::new(""),
        [b'.', b'/', rest @ ..] => {
            let rest = &rest[rest.iter().take_while(|&&b| b == b'/').count()..];
            if rest.starts_with(b"./") || rest == b"." {
                // `././x`: components drop every `.`; leave that to them.
                path.strip_prefix(".").unwrap_or(path)
            } else {
                Path::new(std::ffi::OsStr::from_bytes(rest))
            }
        }
        _ => path,
    }
}

/// A glob of a config or rule file, as both compile them: `*` never crosses a `/`. The error
/// is what to tell the user, for the caller to place at the pattern's own span.
pub fn glob(pattern: &str) -> Result<globset::Glob, String> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("bad glob: {}", e.kind()))
}

/// The set of `patterns` (each with what places its errors, its span), compiled with [`glob`].
/// An error names the pattern's place, or none when the set as a whole fails.
pub fn glob_set<'a, P: Clone + 'a>(
    patterns: impl IntoIterator<Item = (&'a str, P)>,
) -> Result<globset::GlobSet, (Option<P>, String)> {
    let mut builder = globset::GlobSetBuilder::new();
    for (pattern, place) in patterns {
        builder.add(glob(pattern).map_err(|message| (Some(place), message))?);
    }
    builder.build().map_err(|e| (None, e.to_string()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn leading_dots_are_dropped_like_strip_prefix() {
        for raw in [
            "./a/b.json",
            ".//a",
            "./",
            ".",
            "./.",
            "././x",
            "./a/./b",
            "a/./b",
            "../a",
            "/x",
            "./.hidden",
            ".hidden",
            "",
        ] {
            let path = Path::new(raw);
            assert_eq!(
                super::without_leading_dot(path),
                path.strip_prefix(".").unwrap_or(path),
                "{raw}"
            );
        }
    }

    #[test]
    fn relative_paths_against_the_current_folder() {
        let cwd = Path::new("/w/repo");
        for (path, base, expected) in [
            ("./a/b.json", ".", "a/b.json"),
            ("a/b.json", "/w/repo", "a/b.json"),
            ("a/../b.json", ".", "b.json"),
            ("/w/repo/x/j.json", ".", "x/j.json"),
            ("x/j.json", "x", "j.json"),
            ("x/j.json", "y", "/w/repo/x/j.json"),
        ] {
            assert_eq!(
                super::relative_to(Path::new(path), Path::new(base), cwd),
                Path::new(expected),
                "{path} against {base}"
            );
        }
    }
}
