//! Baselines: today's findings recorded so that only new ones fail.
//!
//! A finding's identity is its file (relative to the baseline's folder), rule, JSON Pointer and
//! the hash of the offending value's text without whitespace — never a line number — so it
//! survives reformatting and moved lines, and a fixed finding drops out. The file is sorted,
//! diff-friendly JSON, written atomically.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::collect::{Collected, Findings};
use crate::diagnostic::Finding;
use crate::error::{Error, FileError};
use crate::json::writer::{write_json_at, ArrayWriter, ObjectWriter};

pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub path: String,
    pub rule: String,
    pub pointer: String,
    /// Hash of the offending value, hex.
    pub value: String,
    /// The message when it was recorded, for people reading the file; not part of the identity.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

impl Entry {
    fn key(&self) -> (&str, &str, &str, &str) {
        (&self.path, &self.rule, &self.pointer, &self.value)
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

/// Lexically normalizes `path` (made absolute against `cwd`) relative to `base`, with `/`.
fn relative_path(path: &str, base: &Path, cwd: &Path) -> String {
    let normalize = |p: &Path| {
        let mut out = PathBuf::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    };
    let abs = normalize(&cwd.join(path));
    let base = normalize(&cwd.join(base));
    match abs.strip_prefix(&base) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => abs.to_string_lossy().replace('\\', "/"),
    }
}

fn entry(f: &Finding, base: &Path, cwd: &Path) -> Entry {
    entry_at(f, relative_path(&f.path, base, cwd))
}

/// The entry of `f`, its path already made relative.
fn entry_at(f: &Finding, path: String) -> Entry {
    Entry {
        path,
        rule: f.rule.to_string(),
        pointer: f.pointer.clone(),
        value: format!("{:016x}", f.value_hash),
        message: f.message.clone(),
    }
}

fn folder_of(file: &Path) -> PathBuf {
    file.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// What [`write`] wrote: findings, and the files they are in.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub findings: usize,
    pub files: usize,
}

/// Writes the baseline of `findings` to `file`: the entries sorted, as `serde_json` prints
/// them. Entries are written as the findings are read, a file at a time, when their order is
/// the findings' order (paths relative to one folder, the usual case: a first pass checks);
/// otherwise they are sorted in memory.
pub fn write(file: &Path, findings: &dyn Findings, cwd: &Path) -> std::io::Result<Written> {
    let base = folder_of(file);
    let mut written = Written::default();
    let mut last: Option<Entry> = None;
    let mut in_order = true;
    findings.each_batch(&mut |batch| {
        for group in batch.chunk_by(|a, b| a.path == b.path) {
            let entries = group_entries(group, &base, cwd);
            in_order &= last
                .as_ref()
                .is_none_or(|l| entries.first().is_none_or(|e| l <= e));
            last = entries.last().cloned();
            written.findings += entries.len();
            written.files += 1;
        }
        Ok(())
    })?;
    crate::atomic_write::write_atomically(file, |w| {
        let mut out = std::io::BufWriter::new(w);
        let mut doc = ObjectWriter::begin(&mut out, 0)?;
        doc.value("version", &VERSION)?;
        doc.field("findings", |out, level| {
            let mut list = ArrayWriter::begin(out, level)?;
            let mut write_entries = |entries: &[Entry]| {
                entries
                    .iter()
                    .try_for_each(|e| list.element(|out, level| write_json_at(out, level, e)))
            };
            if in_order {
                findings.each_batch(&mut |batch| {
                    for group in batch.chunk_by(|a, b| a.path == b.path) {
                        write_entries(&group_entries(group, &base, cwd))?;
                    }
                    Ok(())
                })?;
            } else {
                let mut all = Vec::new();
                findings.each_batch(&mut |batch| {
                    all.extend(batch.iter().map(|f| entry(f, &base, cwd)));
                    Ok(())
                })?;
                all.sort();
                write_entries(&all)?;
            }
            list.end()
        })?;
        doc.end()?;
        writeln!(out)?;
        out.flush()
    })?;
    Ok(written)
}

/// The entries of one file's findings, sorted; the path made relative once.
fn group_entries(group: &[Finding], base: &Path, cwd: &Path) -> Vec<Entry> {
    let Some(first) = group.first() else {
        return Vec::new();
    };
    let path = relative_path(&first.path, base, cwd);
    let mut entries: Vec<Entry> = group.iter().map(|f| entry_at(f, path.clone())).collect();
    entries.sort();
    entries
}

/// A loaded baseline: entries counted by identity.
#[derive(Debug, Clone)]
pub struct Baseline {
    base: PathBuf,
    remaining: BTreeMap<(String, String, String, String), usize>,
}

/// What applying a baseline did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub hidden: usize,
    pub stale: usize,
}

impl Baseline {
    pub fn load(file: &Path) -> Result<Baseline, Error> {
        crate::config::refuse_special_file(file, "the baseline")?;
        let text = crate::read::read_text(file).map_err(|source| Error::Io {
            path: file.display().to_string(),
            source,
        })?;
        let doc: File = serde_json::from_str(&text).map_err(|e| {
            let text: std::sync::Arc<str> = text.as_str().into();
            let offset: usize = text
                .split_inclusive('\n')
                .take(e.line().saturating_sub(1))
                .map(str::len)
                .sum::<usize>()
                + e.column().saturating_sub(1);
            let offset = offset.min(text.len());
            FileError::new(
                &file.display().to_string(),
                &text,
                Some(offset..offset),
                format!("not a forgelint baseline: {e}"),
            )
        })?;
        if doc.version != VERSION {
            return Err(Error::usage(format!(
                "{}: baseline version {} is not supported (expected {VERSION})",
                file.display(),
                doc.version
            )));
        }
        let mut remaining = BTreeMap::new();
        for e in &doc.findings {
            let (p, r, ptr, v) = e.key();
            *remaining
                .entry((p.to_string(), r.to_string(), ptr.to_string(), v.to_string()))
                .or_insert(0) += 1;
        }
        Ok(Baseline {
            base: folder_of(file),
            remaining,
        })
    }

    /// Hides the findings the baseline records; counts them and the entries left unmatched.
    pub fn apply(self, findings: &mut Collected, cwd: &Path) -> std::io::Result<Applied> {
        let mut counting = self.clone();
        let cwd = cwd.to_path_buf();
        let hidden = {
            let mut first = |f: &Finding| counting.hide(f, &cwd);
            let again_cwd = cwd.clone();
            findings.hide(
                &mut first,
                Box::new(move || {
                    let (mut baseline, cwd) = (self.clone(), again_cwd.clone());
                    Box::new(move |f: &Finding| baseline.hide(f, &cwd))
                }),
            )?
        };
        Ok(Applied {
            hidden,
            stale: counting.stale(),
        })
    }

    /// Whether the baseline hides `f`, findings read in sorted order: an entry hides as many
    /// findings as it counts.
    pub fn hide(&mut self, f: &Finding, cwd: &Path) -> bool {
        let e = entry(f, &self.base, cwd);
        let key = (e.path, e.rule, e.pointer, e.value);
        match self.remaining.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// The entries that have hidden nothing (yet).
    pub fn stale(&self) -> usize {
        self.remaining.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_baseline_folder() {
        let cwd = Path::new("/repo");
        assert_eq!(
            relative_path("specs/a.json", Path::new("."), cwd),
            "specs/a.json"
        );
        assert_eq!(
            relative_path("./specs/../specs/a.json", Path::new("ci"), cwd),
            "/repo/specs/a.json"
        );
        assert_eq!(
            relative_path("specs/a.json", Path::new("specs"), cwd),
            "a.json"
        );
    }
}
