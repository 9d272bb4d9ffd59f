//! The global gitignore (`core.excludesFile`), found as the `ignore` crate finds it, once per
//! process and without a regex.
//!
//! The `ignore` crate reads git's global config on every walk it builds and scans it with a
//! regex it compiles on first use: a third of a millisecond, more than linting a spec, and a
//! pre-commit run builds walks for the spec's experiment. The walks here take the file this
//! module finds as an explicit ignore file, rooted where the crate roots the global one (the
//! current folder), which matches the same paths.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The global gitignore file, when there is one: `core.excludesFile` of git's global configs
/// (`$GIT_CONFIG_GLOBAL`, else `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, then the system
/// config), else `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`); `None` unless it is a
/// file.
pub fn global_excludes() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| excludes_path().filter(|p| p.is_file()))
        .as_deref()
}

/// Where the global gitignore is, in the order `ignore::gitignore::gitconfig_excludes_path`
/// looks.
fn excludes_path() -> Option<PathBuf> {
    let configured = |path: Option<PathBuf>| {
        let data = std::fs::read(path?).ok()?;
        excludes_file_setting(&data)
    };
    // GIT_CONFIG_GLOBAL, when set, replaces both per-user configs.
    let global = std::env::var_os("GIT_CONFIG_GLOBAL")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let system = std::env::var_os("GIT_CONFIG_SYSTEM")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from);
    configured(global)
        .or_else(|| configured(home_dir().map(|h| h.join(".gitconfig"))))
        .or_else(|| configured(xdg_config_home().map(|x| x.join("git/config"))))
        .or_else(|| configured(Some(system)))
        .or_else(|| xdg_config_home().map(|x| x.join("git/ignore")))
}

fn xdg_config_home() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|x| !x.as_os_str().is_empty())
        .or_else(|| home_dir().map(|h| h.join(".config")))
}

#[allow(deprecated)] // as the `ignore` crate finds it, for the same file
fn home_dir() -> Option<PathBuf> {
    std::env::home_dir()
}

/// The `excludesFile` value of a git config's bytes, with a leading `~` expanded: what the
/// `ignore` crate's regex `(?im-u)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$` captures, at the
/// first line where it matches. As there, whitespace (`\s`: ASCII) may run across lines.
fn excludes_file_setting(data: &[u8]) -> Option<PathBuf> {
    let line_starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', data).map(|at| at + 1));
    let value = line_starts
        .filter_map(|start| setting_at(data, start))
        .next()?;
    std::str::from_utf8(value)
        .ok()
        .map(|s| PathBuf::from(expand_tilde(s)))
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ')
}

/// The first position at or after `at` that is not whitespace.
fn skip_space(data: &[u8], mut at: usize) -> usize {
    while data.get(at).copied().is_some_and(is_space) {
        at += 1;
    }
    at
}

/// The regex's capture for a match starting at `start`. `\s*` before `excludesfile` and before
/// `=` can stop only at the first non-space byte; then the quote is taken if there is one
/// (greedy), else the value starts at it; the value is the shortest run of non-space bytes
/// after which the rest of the pattern matches.
fn setting_at(data: &[u8], start: usize) -> Option<&[u8]> {
    const KEY: &[u8] = b"excludesfile";
    let key = skip_space(data, start);
    if !data.get(key..key + KEY.len())?.eq_ignore_ascii_case(KEY) {
        return None;
    }
    let eq = skip_space(data, key + KEY.len());
    if data.get(eq) != Some(&b'=') {
        return None;
    }
    let value = skip_space(data, eq + 1);
    let mut starts = Vec::with_capacity(2);
    if data.get(value) == Some(&b'"') {
        starts.push(skip_space(data, value + 1));
    }
    starts.push(value);
    starts.into_iter().find_map(|from| {
        let mut end = from;
        while data.get(end).is_some_and(|&b| !is_space(b)) {
            end += 1;
            if ends_line(data, end) {
                return Some(&data[from..end]);
            }
        }
        None
    })
}

/// Whether `\s*"?\s*$` (multi-line) matches at `at`: a line ends within the spaces there, or
/// within the spaces after one quote that follows them.
fn ends_line(data: &[u8], at: usize) -> bool {
    let ends_in_spaces = |from: usize| -> Option<usize> {
        let mut i = from;
        loop {
            match data.get(i) {
                None | Some(b'\n') => return None,
                Some(&b) if is_space(b) => i += 1,
                Some(_) => return Some(i),
            }
        }
    };
    match ends_in_spaces(at) {
        None => true,
        Some(next) if data[next] == b'"' => ends_in_spaces(next + 1).is_none(),
        Some(_) => false,
    }
}

/// A leading `~` (alone, or before a separator) as the home folder, as git expands it.
fn expand_tilde(path: &str) -> String {
    let Some(rest) = path.strip_prefix('~') else {
        return path.to_string();
    };
    if !rest.is_empty() && !rest.starts_with(std::path::is_separator) {
        return path.to_string();
    }
    match home_dir() {
        Some(home) => format!("{}{rest}", home.to_string_lossy()),
        None => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(text: &str) -> Option<String> {
        excludes_file_setting(text.as_bytes()).map(|p| p.to_string_lossy().into_owned())
    }

    /// The cases of the `ignore` crate's own tests of its regex, and the corners of the
    /// pattern: quotes, spaces, case, line breaks inside `\s`, lines that do not match.
    #[test]
    fn reads_excludes_file_as_the_ignore_crate_does() {
        let home = home_dir().map(|h| h.to_string_lossy().into_owned());
        assert_eq!(
            setting("[core]\nexcludesFile = /foo/bar").as_deref(),
            Some("/foo/bar")
        );
        if let Some(home) = &home {
            assert_eq!(
                setting("[core]\nexcludesFile = ~/foo/bar"),
                Some(format!("{home}/foo/bar"))
            );
            assert_eq!(
                setting("[core]\nexcludesFile = \"~/foo/bar\""),
                Some(format!("{home}/foo/bar"))
            );
        }
        assert_eq!(setting("[core]\nexcludeFile = /foo/bar"), None);
        assert_eq!(setting("[core]\nexcludesFile = \" \"~/foo/bar \" \""), None);
        assert_eq!(
            setting("[core]\nexcludesFile = C:/Users/RUNNER~1/foo/bar").as_deref(),
            Some("C:/Users/RUNNER~1/foo/bar")
        );
        for (text, expected) in [
            ("\texcludesfile=/a\r\n", Some("/a")),
            ("EXCLUDESFILE = /a  \n", Some("/a")),
            ("excludesfile = /a\"  \n", Some("/a")),
            ("excludesfile = \"/a\n", Some("/a")),
            ("excludesfile = \"/a\"\"\n", Some("/a\"")),
            ("excludesfile = /a b\nexcludesfile = /c\n", Some("/c")),
            ("excludesfile\n=\n/a\n", Some("/a")),
            ("excludesfile = \n", None),
            ("excludesfile = ", None),
            ("x excludesfile = /a\n", None),
            ("excludesfiles = /a\n", None),
            ("\n\n  excludesfile = /a\n", Some("/a")),
            ("excludesfile = /a\nexcludesfile = /b\n", Some("/a")),
            ("excludesfile = \"\"\n", Some("\"")),
            ("excludesfile = /a\" x\n", None),
        ] {
            assert_eq!(setting(text).as_deref(), expected, "{text:?}");
        }
    }

    /// Against the regex itself, on every short text made of the pattern's pieces.
    #[test]
    fn agrees_with_the_regex() {
        let regex =
            regex::bytes::Regex::new(r#"(?im-u)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$"#)
                .expect("the ignore crate's pattern");
        let pieces = [
            "excludesFile",
            "=",
            "\"",
            " ",
            "\n",
            "\r",
            "/a",
            "b",
            "x=",
            "\t",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
            texts.dedup();
        }
        for text in &texts {
            let expected = regex
                .captures(text.as_bytes())
                .and_then(|c| c.get(1))
                .map(|m| m.as_bytes());
            let line_starts = std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
            let ours = line_starts
                .filter_map(|start| setting_at(text.as_bytes(), start))
                .next();
            assert_eq!(ours, expected, "{text:?}");
        }
    }
}
