//! The text files of an experiment directory (train.py, run.sh, config.yaml, …), split into
//! code, string and comment regions, so a text rule can be scoped to one kind of region.
//!
//! Each language has a small hand-written scanner: one pass over the bytes, no recursion (nested
//! constructs use an explicit stack), and no panics on any input. Region boundaries always fall
//! on ASCII bytes or at the ends of the text, so every span is on char boundaries. An
//! unterminated literal runs to the end of its line for single-line forms (Python, TOML and JSON
//! quotes) or to the end of the file for forms that may span lines (triple quotes, heredocs,
//! shell and YAML quotes).

use std::ops::Range;
use std::path::Path;

pub mod host_path;
pub mod notebook;
mod python;
mod shell;
mod simple;
pub mod suppress;
mod yaml;

pub use suppress::{suppressions, Suppression};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Shell,
    Yaml,
    Toml,
    Json,
    /// A Jupyter notebook: the Python of its code cells, inside JSON.
    Notebook,
    Other,
}

impl Language {
    /// The name SARIF uses for an artifact's `sourceLanguage`.
    pub fn sarif_name(self) -> Option<&'static str> {
        match self {
            Language::Python => Some("python"),
            Language::Shell => Some("shellscript"),
            Language::Yaml => Some("yaml"),
            Language::Toml => Some("toml"),
            Language::Json => Some("json"),
            Language::Notebook => None,
            Language::Other => None,
        }
    }
}

/// The language of a file, by its extension, else by a `#!` first line.
pub fn language_of(path: &Path, text: &str) -> Language {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("py" | "pyi") => return Language::Python,
        Some("sh" | "bash" | "zsh" | "ksh") => return Language::Shell,
        Some("yaml" | "yml") => return Language::Yaml,
        Some("toml") => return Language::Toml,
        Some("json") => return Language::Json,
        Some("ipynb") => return Language::Notebook,
        _ => {}
    }
    shebang_language(text).unwrap_or(Language::Other)
}

/// `#!/bin/bash`, `#!/usr/bin/env -S bash -e`, `#!/usr/bin/python3.11`, …
fn shebang_language(text: &str) -> Option<Language> {
    let line = text.strip_prefix("#!")?;
    let line = line.split('\n').next().unwrap_or_default();
    let mut words = line.split_ascii_whitespace();
    let mut program = words.next()?.rsplit('/').next().unwrap_or_default();
    if program == "env" {
        // The first word that is not an option (or an assignment) names the program.
        program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        program = program.rsplit('/').next().unwrap_or_default();
    }
    if matches!(program, "sh" | "bash" | "zsh" | "dash" | "ksh") {
        return Some(Language::Shell);
    }
    let version = program.strip_prefix("python")?;
    version
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'.')
        .then_some(Language::Python)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionKind {
    Code,
    String,
    Comment,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub kind: RegionKind,
    pub span: Range<usize>,
    /// For a String: the literal's content (inside the quotes, after any prefix); else == span.
    pub content: Range<usize>,
}

/// Regions in order, non-overlapping and non-empty, covering the whole text (none for an empty
/// text). Adjacent code is merged into one region.
pub fn scan(lang: Language, text: &str) -> Vec<Region> {
    let mut out = Regions::new(text.len());
    match lang {
        Language::Python => python::scan(text.as_bytes(), &mut out),
        Language::Shell => shell::scan(text.as_bytes(), &mut out),
        Language::Yaml => yaml::scan(text.as_bytes(), &mut out),
        Language::Toml => simple::scan_toml(text.as_bytes(), &mut out),
        Language::Json => simple::scan_json(text.as_bytes(), &mut out),
        Language::Notebook => notebook::scan(text, &mut out),
        Language::Other => {}
    }
    out.finish()
}

/// The kind of the region holding byte `offset` (the last region's for the end of the text;
/// Code when there is none).
pub fn kind_at(regions: &[Region], offset: usize) -> RegionKind {
    let at = regions.partition_point(|r| r.span.end <= offset);
    regions
        .get(at)
        .or(regions.last())
        .map_or(RegionKind::Code, |r| r.kind)
}

/// Byte offsets where each line starts (the first is 0; a line ends after its `\n`).
pub fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    starts
}

/// 0-based line holding `offset`, given [`line_starts`].
pub fn line_of(line_starts: &[usize], offset: usize) -> u32 {
    let line = line_starts
        .partition_point(|&s| s <= offset)
        .saturating_sub(1);
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// The regions as a scanner finds them: a literal or comment at a time, code filling the gaps.
pub(crate) struct Regions {
    regions: Vec<Region>,
    /// Everything before this is covered.
    done: usize,
    len: usize,
}

impl Regions {
    fn new(len: usize) -> Regions {
        Regions {
            regions: Vec::new(),
            done: 0,
            len,
        }
    }

    /// Code up to `end` (merged with code just before).
    pub(crate) fn code(&mut self, end: usize) {
        let end = end.min(self.len);
        if end <= self.done {
            return;
        }
        match self.regions.last_mut() {
            Some(last) if last.kind == RegionKind::Code && last.span.end == self.done => {
                last.span.end = end;
                last.content.end = end;
            }
            _ => self.regions.push(Region {
                kind: RegionKind::Code,
                span: self.done..end,
                content: self.done..end,
            }),
        }
        self.done = end;
    }

    /// A region of `kind` over `span` (anything before it uncovered becomes code); `content` is
    /// clamped into the span.
    pub(crate) fn push(&mut self, kind: RegionKind, span: Range<usize>, content: Range<usize>) {
        let end = span.end.min(self.len);
        let start = span.start.max(self.done);
        if start >= end {
            return;
        }
        self.code(start);
        let c_start = content.start.clamp(start, end);
        let c_end = content.end.clamp(c_start, end);
        self.regions.push(Region {
            kind,
            span: start..end,
            content: c_start..c_end,
        });
        self.done = end;
    }

    pub(crate) fn string(&mut self, span: Range<usize>, content: Range<usize>) {
        self.push(RegionKind::String, span, content);
    }

    pub(crate) fn comment(&mut self, span: Range<usize>) {
        self.push(RegionKind::Comment, span.clone(), span);
    }

    fn finish(mut self) -> Vec<Region> {
        self.code(self.len);
        self.regions
    }
}

/// The end of the line holding `from`: the offset of its `\n` (or of a `\r` just before it,
/// which may be just before `from` when `from` is the `\n`), or the end of the text.
pub(crate) fn line_end(bytes: &[u8], from: usize) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    let at = memchr::memchr(b'\n', rest).map_or(bytes.len(), |i| from + i);
    if at > 0 && bytes.get(at - 1) == Some(&b'\r') {
        at - 1
    } else {
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_name_and_shebang() {
        let of = |path: &str, text: &str| language_of(Path::new(path), text);
        assert_eq!(of("train.py", ""), Language::Python);
        assert_eq!(of("stubs.PYI", ""), Language::Python);
        assert_eq!(of("run.sh", ""), Language::Shell);
        assert_eq!(of("run.zsh", ""), Language::Shell);
        assert_eq!(of("config.yml", ""), Language::Yaml);
        assert_eq!(of("pyproject.toml", ""), Language::Toml);
        assert_eq!(of("x.json", ""), Language::Json);
        assert_eq!(of("tutorial.ipynb", ""), Language::Notebook);
        assert_eq!(of("launch", "#!/bin/bash\necho"), Language::Shell);
        assert_eq!(of("launch", "#!/usr/bin/env bash\n"), Language::Shell);
        assert_eq!(
            of("launch", "#! /usr/bin/env -S dash -e\n"),
            Language::Shell
        );
        assert_eq!(of("launch", "#!/usr/bin/env python3\n"), Language::Python);
        assert_eq!(of("launch", "#!/usr/bin/python3.11"), Language::Python);
        assert_eq!(of("launch", "#!/usr/bin/env node\n"), Language::Other);
        assert_eq!(of("launch", "#!/usr/bin/pythonista\n"), Language::Other);
        assert_eq!(of("README", "# title"), Language::Other);
        assert_eq!(of("Makefile", ""), Language::Other);
        assert_eq!(Language::Shell.sarif_name(), Some("shellscript"));
        assert_eq!(Language::Other.sarif_name(), None);
    }

    #[test]
    fn kind_at_and_lines() {
        let text = "x = '/mnt/a'  # c\ny";
        let regions = scan(Language::Python, text);
        assert_eq!(kind_at(&regions, 0), RegionKind::Code);
        assert_eq!(kind_at(&regions, 4), RegionKind::String);
        assert_eq!(kind_at(&regions, 6), RegionKind::String);
        assert_eq!(kind_at(&regions, 14), RegionKind::Comment);
        assert_eq!(kind_at(&regions, text.len()), RegionKind::Code);
        assert_eq!(kind_at(&[], 3), RegionKind::Code);
        let starts = line_starts(text);
        assert_eq!(line_of(&starts, 0), 0);
        assert_eq!(line_of(&starts, 17), 0);
        assert_eq!(line_of(&starts, 18), 1);
        assert_eq!(line_of(&starts, 99), 1);
        assert!(scan(Language::Other, "").is_empty());
        assert_eq!(scan(Language::Other, "a # b").len(), 1);
    }
}
