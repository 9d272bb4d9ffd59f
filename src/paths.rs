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
    // Runs for every file: bytes first, components only when they may differ.
    let clean = without_leading_dot(path);
    let simple = !clean
        .as_os_str()
        .as_encoded_bytes()
        .windows(2)
        .any(|w| w == b"..")
        || !clean
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    let base_is_cwd = matches!(base.as_os_str().as_encoded_bytes(), b"." | b"./")
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
    let bytes = path.as_os_str().as_encoded_bytes();
    match bytes {
        [b'.'] => Path::new(""),
        [b'.', slash, rest @ ..] if is_separator(*slash) => {
            let rest = &rest[rest.iter().take_while(|&&b| is_separator(b)).count()..];
            let dot_again =
                rest.first() == Some(&b'.') && rest.get(1).is_none_or(|&b| is_separator(b));
            if dot_again {
                // `././x`: components drop every `.`; leave that to them.
                path.strip_prefix(".").unwrap_or(path)
            } else {
                // SAFETY: `rest` is the encoded bytes of `path` after ASCII characters (`.` and
                // separators), a split `OsStr::from_encoded_bytes_unchecked` allows.
                Path::new(unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(rest) })
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

/// `dir` joined with `name`, a file name without separators, as `Path::join` joins them, without
/// its parsing of components (and on Unix without its growing the buffer twice): every folder a
/// walk meets is looked at for a config of its own.
pub fn join_name(dir: &Path, name: &str) -> PathBuf {
    // A drive's prefix (`C:`) changes what a join means: Windows keeps std's.
    if cfg!(windows) {
        return dir.join(name);
    }
    let dir = dir.as_os_str();
    let mut joined = std::ffi::OsString::with_capacity(dir.len() + 1 + name.len());
    joined.push(dir);
    if dir
        .as_encoded_bytes()
        .last()
        .is_some_and(|&b| !is_separator(b))
    {
        joined.push("/");
    }
    joined.push(name);
    PathBuf::from(joined)
}

/// Whether the byte `b` of a path's encoded bytes separates components: `/`, and `\` on
/// Windows.
pub fn is_separator(b: u8) -> bool {
    b == b'/' || (cfg!(windows) && b == b'\\')
}

/// Where a run names files from: its working folder, and the root of the project it is in.
#[derive(Debug, Clone, Copy)]
pub struct ShownFrom<'a> {
    /// The working folder, absolute; empty for paths shown as given.
    pub cwd: &'a Path,
    /// The project root found upward from the working folder (a config's folder, a folder
    /// holding `.starforge` or `.git`; else the working folder itself): at or above `cwd`.
    pub root: &'a Path,
}

impl ShownFrom<'static> {
    /// Paths shown as given: for text linted in memory, which names no folder.
    pub fn as_given() -> ShownFrom<'static> {
        ShownFrom {
            cwd: Path::new(""),
            root: Path::new(""),
        }
    }
}

impl ShownFrom<'_> {
    /// `path` as a finding names it: an absolute path under the working folder relative to
    /// it; under the project but outside the working folder, relative to it too, with `..`
    /// (run from `lab/specs`, an experiment is `../experiments/x/train.py`). A relative path,
    /// or one outside the project, as given.
    pub fn relative<'p>(&self, path: &'p Path) -> std::borrow::Cow<'p, Path> {
        if !path.is_absolute() || !self.cwd.is_absolute() {
            return path.into();
        }
        if let Ok(inside) = path.strip_prefix(self.cwd) {
            if !inside.as_os_str().is_empty() {
                return inside.into();
            }
        }
        if !path.starts_with(self.root) || !self.cwd.starts_with(self.root) {
            return path.into();
        }
        // The deepest folder both are in: at or below the root.
        let mut common = self.root;
        for folder in self.cwd.ancestors() {
            if path.starts_with(folder) {
                common = folder;
                break;
            }
        }
        let (Ok(up), Ok(down)) = (self.cwd.strip_prefix(common), path.strip_prefix(common)) else {
            return path.into();
        };
        if down.as_os_str().is_empty() {
            return path.into();
        }
        let mut out = PathBuf::new();
        for _ in up.components() {
            out.push("..");
        }
        out.push(down);
        out.into()
    }
}

/// How a finding names the file at `path`, in every format: relative to the working folder
/// when it is in the project ([`ShownFrom::relative`]), as given otherwise, with `/` between
/// its components on every platform. SARIF URIs, GitHub annotations and the other machine
/// formats need `/`, and a file is named alike on Windows and elsewhere (SARIF fingerprints
/// agree). Every path that becomes a finding's file goes through here.
pub fn shown(path: &Path, from: ShownFrom<'_>) -> std::sync::Arc<str> {
    let path = from.relative(path);
    std::sync::Arc::from(slashed(&path.to_string_lossy(), cfg!(windows)).as_ref())
}

/// A path's `text` with `/` between its components: when `windows`, its `\` are separators
/// (elsewhere a `\` is part of a name) and the `\\?\` prefix of an extended-length path,
/// which `canonicalize` gives, is dropped where the plain path means the same file.
fn slashed(text: &str, windows: bool) -> std::borrow::Cow<'_, str> {
    if !windows || !text.contains('\\') {
        return text.into();
    }
    let plain = if let Some(unc) = text.strip_prefix(r"\\?\UNC\") {
        // `\\?\UNC\server\share\x` is `\\server\share\x`.
        format!(r"\\{unc}")
    } else {
        match text.strip_prefix(r"\\?\") {
            Some(rest) if has_drive(rest) => rest.to_string(),
            _ => text.to_string(),
        }
    };
    plain.replace('\\', "/").into()
}

/// The `file:` URI of an absolute path, every byte outside RFC 3986's unreserved set (and `/`)
/// percent-encoded: on Windows with `/` for `\` and a drive after a `/`, its `:` kept
/// (`file:///C:/x`), as editors write it.
pub fn file_uri(path: &Path) -> String {
    if cfg!(windows) {
        file_uri_of(slashed(&path.to_string_lossy(), true).as_bytes(), true)
    } else {
        file_uri_of(path.as_os_str().as_encoded_bytes(), false)
    }
}

/// [`file_uri`] of a path's bytes, `/`-separated; `windows`: it may start with a drive.
fn file_uri_of(mut bytes: &[u8], windows: bool) -> String {
    let mut out = String::from("file:");
    match bytes {
        [letter, b':', rest @ ..] if windows && letter.is_ascii_alphabetic() => {
            out.extend(['/', '/', '/', char::from(*letter), ':']);
            bytes = rest;
        }
        // `//server/share/x` (UNC) is `file://server/share/x`.
        [b'/', b'/', ..] if windows => {}
        [b'/', ..] => out.push_str("//"),
        _ => out.push_str("///"),
    }
    encode_into(&mut out, bytes);
    out
}

/// Appends `bytes` percent-encoded: every byte outside RFC 3986's unreserved set and `/`.
fn encode_into(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// A relative URI reference from the folder `from` to the file `to` (both absolute, `.` and
/// `..` resolved): `../policies/x.toml`, percent-encoded, as a page in `from` links to `to`.
/// `None` when they share no root (two drives).
pub fn relative_link(from: &Path, to: &Path) -> Option<String> {
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    if from.first() != to.first() {
        return None;
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut link = String::new();
    for _ in common..from.len() {
        link.push_str("../");
    }
    let rest: Vec<String> = to[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    encode_into(&mut link, rest.join("/").as_bytes());
    Some(link)
}

/// Whether `text` starts with a drive, `C:\`.
fn has_drive(text: &str) -> bool {
    matches!(text.as_bytes(), [letter, b':', b'\\', ..] if letter.is_ascii_alphabetic())
}

/// What a file that is neither a regular file nor a folder is: "a FIFO", "a socket", ...
#[cfg(unix)]
pub fn special_kind(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

/// What a file that is neither a regular file nor a folder is: Windows tells no more.
#[cfg(not(unix))]
pub fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// A name joined to a folder is the path `Path::join` makes, byte for byte, whatever the
    /// folder's spelling.
    #[test]
    fn a_joined_name_is_the_path_std_joins() {
        for dir in [
            "",
            ".",
            "..",
            "/",
            "//",
            "a",
            "a/",
            "a//",
            "./a",
            "/abs/lab",
            "lab/./x",
            "odd\\name",
            "a b/ü",
            "C:",
            "C:\\lab",
        ] {
            for name in ["forgelint.toml", ".forgelint.toml"] {
                let dir = Path::new(dir);
                assert_eq!(
                    super::join_name(dir, name).as_os_str(),
                    dir.join(name).as_os_str(),
                    "{dir:?} + {name}"
                );
            }
        }
    }

    /// Windows paths in every form a run meets are named with `/`; elsewhere a `\` is kept,
    /// as part of a file's name.
    #[test]
    fn shown_paths_use_forward_slashes() {
        for (windows, expected) in [
            (r"exp\jobspec.json", "exp/jobspec.json"),
            (r".\exp\jobspec.json", "./exp/jobspec.json"),
            (r"C:\work\exp\jobspec.json", "C:/work/exp/jobspec.json"),
            (r"\\?\C:\work\jobspec.json", "C:/work/jobspec.json"),
            (r"\\?\UNC\server\share\x.json", "//server/share/x.json"),
            (r"\\server\share\x.json", "//server/share/x.json"),
            (r"\\?\Volume{1234}\x.json", "//?/Volume{1234}/x.json"),
            ("exp/mixed\\jobspec.json", "exp/mixed/jobspec.json"),
            ("a/b.json", "a/b.json"),
        ] {
            assert_eq!(super::slashed(windows, true), expected, "{windows}");
        }
        for name in [r"exp\jobspec.json", r"a\\b", "a/b.json"] {
            assert_eq!(super::slashed(name, false), name);
        }
        let given = super::ShownFrom::as_given();
        #[cfg(not(windows))]
        assert_eq!(
            &*super::shown(Path::new(r"odd\name.json"), given),
            r"odd\name.json"
        );
        #[cfg(windows)]
        assert_eq!(
            &*super::shown(Path::new(r"exp\name.json"), given),
            "exp/name.json"
        );
    }

    /// Windows paths make the URIs editors send: the drive after a `/`, `:` kept, a UNC
    /// path's server as the authority. Elsewhere a `\` and a `:` are bytes of a name.
    #[test]
    fn file_uris_of_windows_and_unix_paths() {
        for (path, uri) in [
            (
                r"C:\work\exp one\jobspec.json",
                "file:///C:/work/exp%20one/jobspec.json",
            ),
            (r"\\?\d:\work\x.json", "file:///d:/work/x.json"),
            (r"\\server\share\x.json", "file://server/share/x.json"),
            ("/work/x.json", "file:///work/x.json"),
        ] {
            let slashed = super::slashed(path, true);
            assert_eq!(super::file_uri_of(slashed.as_bytes(), true), uri, "{path}");
        }
        for (path, uri) in [
            (&b"/a\\b:c/\xff%"[..], "file:///a%5Cb%3Ac/%FF%25"),
            (b"/", "file:///"),
            (b"c:/x", "file:///c%3A/x"),
        ] {
            assert_eq!(super::file_uri_of(path, false), uri);
        }
        #[cfg(unix)]
        assert_eq!(super::file_uri(Path::new("/a b")), "file:///a%20b");
    }

    /// Inside the project a file is named from the working folder, with `..` when it lies
    /// beside it; outside the project, and when given relative, as given.
    #[test]
    #[cfg(unix)] // Unix absolute paths: on Windows they name no drive.
    fn paths_in_the_project_are_shown_from_the_working_folder() {
        let from = super::ShownFrom {
            cwd: Path::new("/w/lab/specs"),
            root: Path::new("/w/lab"),
        };
        for (path, expected) in [
            ("/w/lab/specs/a.jobspec.json", "a.jobspec.json"),
            ("/w/lab/specs/x/a.json", "x/a.json"),
            ("/w/lab/experiments/x/train.py", "../experiments/x/train.py"),
            ("/w/lab/specs2/a.json", "../specs2/a.json"),
            ("/w/lab/jobspec.json", "../jobspec.json"),
            ("/w/other/a.json", "/w/other/a.json"),
            ("/w/lab", "/w/lab"),
            ("specs/../a.json", "specs/../a.json"),
            ("../x.json", "../x.json"),
        ] {
            assert_eq!(&*super::shown(Path::new(path), from), expected, "{path}");
        }
        let deep = super::ShownFrom {
            cwd: Path::new("/w/lab/experiments/x/sub"),
            root: Path::new("/w/lab"),
        };
        assert_eq!(
            &*super::shown(Path::new("/w/lab/experiments/x/train.py"), deep),
            "../train.py"
        );
        let given = super::ShownFrom::as_given();
        assert_eq!(
            &*super::shown(Path::new("/w/lab/a.json"), given),
            "/w/lab/a.json"
        );
    }

    #[test]
    #[cfg(unix)]
    fn relative_links_climb_to_the_common_folder() {
        for (from, to, link) in [
            ("/w/lab", "/w/lab/policies/team.toml", "policies/team.toml"),
            (
                "/w/lab/reports",
                "/w/lab/policies/a b.toml",
                "../policies/a%20b.toml",
            ),
            (
                "/w/lab/reports/x",
                "/w/other/p.toml",
                "../../../other/p.toml",
            ),
        ] {
            let got = super::relative_link(Path::new(from), Path::new(to));
            assert_eq!(got.as_deref(), Some(link), "{from} -> {to}");
        }
    }

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
    #[cfg(unix)] // Unix absolute paths: on Windows they name no drive.
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
