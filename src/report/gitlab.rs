//! `--format gitlab`: a GitLab Code Quality report (`artifacts:reports:codequality`), the
//! subset of the Code Climate issue format that GitLab reads: a JSON array of issues with
//! `description`, `check_name`, `fingerprint`, `severity` and `location` (`path`, relative to the
//! project directory, and `lines`).
//!
//! The fingerprint is the identity SARIF's `partialFingerprints` hash (path, rule and JSON
//! Pointer: no line numbers, so it survives moved lines) and the finding's occurrence among the
//! file's findings of that identity (`…:1`, `…:2`: two duplicate keys of one name, say), so
//! every issue has its own and GitLab can tell the issues a merge request adds or fixes. Where
//! nothing repeats, it is SARIF's value.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path};
use std::sync::Arc;

use super::sarif::{fingerprint_text, identity};
use super::{Findings, ReportInput};
use crate::diagnostic::{Finding, Fnv, Severity};
use crate::escape::visible;
use crate::json::writer::{write_newline_indent, JsonWriter};

/// Rendered issues are handed to the output about this many bytes at a time.
const FLUSH_AT: usize = 64 * 1024;

/// GitLab's severities are info, minor, major, critical and blocker: an error (the server
/// refuses the spec) is major, as other linters' GitLab reports have it.
fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Note => "info",
    }
}

/// Identities counted per file, at most: the table's memory is bounded whatever a file holds.
const MAX_IDENTITIES: usize = 4096;

/// What one issue needs from the ones before it: bounded, whatever the number of findings.
#[derive(Default)]
struct State {
    /// The file of the previous finding, and its path as reported.
    file: Option<(Arc<str>, String)>,
    /// The file's findings so far, by identity hash (up to [`MAX_IDENTITIES`] identities).
    seen: HashMap<u64, usize, std::hash::BuildHasherDefault<Fnv>>,
    /// The file's findings so far.
    ordinal: usize,
    /// An issue has been written: the next needs a comma.
    any: bool,
}

impl State {
    /// The fingerprint of the file's next finding, whose identity hash is `hash`: its
    /// occurrence among the file's findings of that identity. In a file with more identities
    /// than the table holds, one it has no room for is told by its place in the file instead
    /// (`…@N`): unique still, though not stable when findings come or go before it.
    fn fingerprint(&mut self, hash: u64) -> String {
        self.ordinal += 1;
        let room = self.seen.len() < MAX_IDENTITIES;
        let occurrence = match self.seen.get_mut(&hash) {
            Some(n) => {
                *n += 1;
                *n
            }
            None if room => {
                self.seen.insert(hash, 1);
                1
            }
            None => return format!("{hash:016x}@{}", self.ordinal),
        };
        let mut text = [0u8; 37];
        let len = fingerprint_text(hash, occurrence, &mut text);
        String::from_utf8_lossy(&text[..len]).into_owned()
    }
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    write_issues(out, input.findings, input.cwd)
}

fn write_issues<F: Findings + ?Sized>(
    out: &mut dyn Write,
    findings: &F,
    cwd: &Path,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    out.write_all(b"[")?;
    let mut state = State::default();
    let mut buf = Vec::with_capacity(FLUSH_AT + 4096);
    findings.each_batch(&mut |batch| {
        for f in batch {
            write_issue(&mut buf, f, &mut state, cwd);
            if buf.len() >= FLUSH_AT {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        Ok(())
    })?;
    out.write_all(&buf)?;
    if state.any {
        write_newline_indent(&mut out, 0)?;
    }
    out.write_all(b"]\n")?;
    out.flush()
}

/// Appends one issue, an element of the top-level array.
fn write_issue(buf: &mut Vec<u8>, f: &Finding, state: &mut State, cwd: &Path) {
    if state.file.as_ref().is_none_or(|(p, _)| **p != *f.path) {
        let path = relative(&f.path, cwd).into_owned();
        state.file = Some((f.path.clone(), path));
        state.seen.clear();
        state.ordinal = 0;
    }
    let fingerprint = state.fingerprint(identity(f));
    let path = state.file.as_ref().map_or("", |(_, p)| p.as_str());
    if state.any {
        buf.push(b',');
    }
    state.any = true;
    // Writing to a `Vec` cannot fail.
    let _ = write_newline_indent(buf, 1);
    let mut w = JsonWriter::new(buf, 1);
    w.begin_object();
    w.key("description");
    // Shown in the merge request: invisible characters as visible escapes.
    let mut description = format!("{}: {}", visible(&f.rule), visible(&f.message));
    if let Some(history) = &f.history {
        description.push(' ');
        description.push_str(&super::history::brief(history));
    }
    w.string(&description);
    w.key("check_name");
    w.string(&f.rule);
    w.key("fingerprint");
    w.string(&fingerprint);
    w.key("severity");
    w.string(severity(f.severity));
    w.key("location");
    w.begin_object();
    // The path as it is (JSON-escaped only), so that GitLab finds the file.
    w.key("path");
    w.string(path);
    w.key("lines");
    w.begin_object();
    w.key("begin");
    w.number(f.start.line.into());
    w.key("end");
    w.number(f.end.line.into());
    w.end_object();
    w.end_object();
    w.end_object();
}

/// The path relative to the project directory (`cwd`), as GitLab links it into the repository:
/// without `./`, and an absolute path under `cwd` without `cwd`. Other paths stay as they are.
fn relative<'a>(path: &'a str, cwd: &Path) -> Cow<'a, str> {
    let p = Path::new(path);
    let rel = if p.is_absolute() {
        match p.strip_prefix(cwd) {
            Ok(rel) => rel,
            Err(_) => return Cow::Borrowed(path),
        }
    } else {
        p
    };
    let mut out = String::with_capacity(path.len());
    for c in rel.components() {
        let part = match c {
            Component::Normal(name) => name.to_string_lossy(),
            Component::ParentDir => Cow::Borrowed(".."),
            // `.`, and what an absolute path under `cwd` can no longer have.
            _ => continue,
        };
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&part);
    }
    if out == path {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Position;
    use crate::report::BatchedForTests;

    fn finding(path: &str, rule: &str, pointer: &str, line: u32) -> Finding {
        Finding {
            severity: Severity::Warning,
            pointer: pointer.into(),
            end: Position {
                line: line + 1,
                column: 1,
            },
            ..Finding::for_tests(path, rule, line)
        }
    }

    #[cfg(unix)] // Its tests name Unix absolute paths.
    fn issues(findings: &[Finding]) -> Vec<serde_json::Value> {
        let summary = crate::report::Summary::default();
        let findings = findings.to_vec();
        let input = ReportInput {
            findings: &findings,
            summary: &summary,
            rules: &[],
            cwd: Path::new("/work/project"),
            root: Path::new("/work/project"),
            statistics: false,
            tool_error: false,
            threads: 1,
        };
        let mut out = Vec::new();
        write(&mut out, &input).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        doc.as_array().unwrap().clone()
    }

    #[test]
    #[cfg(unix)] // Unix absolute paths: on Windows they name no drive.
    fn paths_are_relative_to_the_project() {
        let cwd = Path::new("/work/project");
        for (path, expected) in [
            ("specs/a.json", "specs/a.json"),
            ("./specs/./a.json", "specs/a.json"),
            ("/work/project/specs/a.json", "specs/a.json"),
            ("/elsewhere/a.json", "/elsewhere/a.json"),
            ("../up/a.json", "../up/a.json"),
            ("we ird/\u{202e}a\"b.json", "we ird/\u{202e}a\"b.json"),
        ] {
            assert_eq!(relative(path, cwd), expected, "{path}");
        }
    }

    /// Identical findings are told apart by their occurrence in the file, next to each other
    /// or not; a moved line keeps the fingerprint; every issue has the fields GitLab reads.
    #[test]
    #[cfg(unix)] // Unix absolute paths: on Windows they name no drive.
    fn fingerprints_are_unique_and_ignore_lines() {
        let findings = [
            finding("/work/project/a.json", "r", "/x", 1),
            finding("/work/project/a.json", "r", "/x", 1),
            finding("/work/project/a.json", "r", "/y", 2),
            finding("/work/project/a.json", "q", "/y", 2),
            finding("/work/project/a.json", "r", "/y", 3),
            finding("/work/project/a.json", "r", "/x", 4),
            finding("b.json", "r", "/x", 3),
        ];
        let got = issues(&findings);
        let prints: Vec<&str> = got
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap())
            .collect();
        let mut unique = prints.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), prints.len(), "{prints:?}");
        assert_eq!(got[0]["location"]["path"], "a.json");
        assert_eq!(got[0]["location"]["lines"]["begin"], 1);
        assert_eq!(got[0]["location"]["lines"]["end"], 2);
        assert_eq!(got[0]["severity"], "minor");
        assert_eq!(got[0]["check_name"], "r");
        assert_eq!(got[0]["description"], "r: m");
        let moved = issues(&[finding("/work/project/a.json", "r", "/y", 40)]);
        assert_eq!(moved[0]["fingerprint"], got[2]["fingerprint"]);
        let occurrences: Vec<&str> = prints.iter().map(|p| &p[16..]).collect();
        assert_eq!(occurrences, [":1", ":2", ":1", ":1", ":2", ":3", ":1"]);
    }

    /// A file with more identities than the table holds still gives every issue its own
    /// fingerprint.
    #[test]
    fn fingerprints_stay_unique_past_the_table() {
        let mut state = State::default();
        let mut prints: Vec<String> = (0..MAX_IDENTITIES as u64 + 10)
            .chain([5, MAX_IDENTITIES as u64 + 3, 7, MAX_IDENTITIES as u64 + 3])
            .map(|hash| state.fingerprint(hash))
            .collect();
        assert_eq!(state.seen.len(), MAX_IDENTITIES);
        let count = prints.len();
        prints.sort_unstable();
        prints.dedup();
        assert_eq!(prints.len(), count);
    }

    /// Read in batches of any size, the report is the same: the occurrence count and the file
    /// carry over from one batch to the next.
    #[test]
    fn batches_change_nothing() {
        let findings: Vec<Finding> = (0..12)
            .map(|i| finding(&format!("f{}.json", i / 5), "r", &format!("/{}", i / 2), i))
            .collect();
        let cwd = Path::new("/");
        let mut whole = Vec::new();
        write_issues(&mut whole, &findings[..], cwd).unwrap();
        for size in [1, 2, 3, 5, 7] {
            let mut batched = Vec::new();
            write_issues(&mut batched, &BatchedForTests(&findings, size), cwd).unwrap();
            assert_eq!(batched, whole, "batches of {size}");
        }
        let doc: serde_json::Value = serde_json::from_slice(&whole).unwrap();
        let prints: Vec<&str> = doc
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap())
            .collect();
        assert!(
            prints[0].ends_with(":1") && prints[1].ends_with(":2"),
            "{prints:?}"
        );
    }

    #[test]
    fn no_findings_is_an_empty_array() {
        let summary = crate::report::Summary::default();
        let input = ReportInput {
            findings: &Vec::new(),
            summary: &summary,
            rules: &[],
            cwd: Path::new("/"),
            root: Path::new("/"),
            statistics: false,
            tool_error: false,
            threads: 1,
        };
        let mut out = Vec::new();
        write(&mut out, &input).unwrap();
        assert_eq!(out, b"[]\n");
    }
}
