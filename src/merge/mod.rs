//! `forgelint merge`: shard reports (`--shard K/N`) joined into one, sorted as one run sorts its
//! findings. Each input is already sorted, so the findings are merged k ways as they are read:
//! memory holds one finding per input, whatever the size of the reports.
//!
//! An input is taken only as a whole report of this forgelint: one document and nothing after
//! it, of this report version and tool version, its findings sorted, and no file's findings in
//! two inputs (the same shard twice). Anything else is refused (exit 2) with the input's name
//! and the byte offset. A pipe (`<(cat r.json)`) is read once into a temporary file, as an input
//! is read more than once.

mod json;
mod sarif;
mod scan;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, Seek, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::env::{Env, ExitStatus};
use crate::error::Error;
use scan::Scanner;

/// The kinds of report that merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    Jsonl,
    Sarif,
}

/// Merges `reports` into one, written to `output` (atomically) or standard output.
pub fn merge(
    reports: &[PathBuf],
    output: Option<&Path>,
    env: &mut Env<'_>,
) -> Result<ExitStatus, Error> {
    let inputs = open_inputs(reports, &env.cwd)?;
    let kind = kind_of_all(&inputs)?;
    let write = |out: &mut dyn Write| -> Result<(), Error> {
        let mut out = io::BufWriter::with_capacity(64 * 1024, out);
        match kind {
            Kind::Json => json::merge_json(&inputs, &mut out)?,
            Kind::Jsonl => json::merge_jsonl(&inputs, &mut out)?,
            Kind::Sarif => sarif::merge(&inputs, &mut out)?,
        }
        out.flush().map_err(|source| write_error(output, source))
    };
    match output {
        Some(path) => {
            let mut failure = None;
            crate::atomic_write::write_atomically(&env.cwd.join(path), |w| {
                write(w).map_err(|e| {
                    failure = Some(e);
                    io::Error::other("the merge failed")
                })
            })
            .map_err(|source| {
                failure
                    .take()
                    .unwrap_or_else(|| write_error(output, source))
            })?;
        }
        None => {
            // Merged into a temporary file first: an input refused halfway (its tail, a
            // second document) leaves standard output empty, not a truncated report.
            let mut merged = tempfile::tempfile().map_err(|e| write_error(None, e))?;
            write(&mut merged)?;
            let copied = merged
                .seek(io::SeekFrom::Start(0))
                .and_then(|_| io::copy(&mut merged, &mut *env.stdout))
                .and_then(|_| env.stdout.flush());
            match copied {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
                other => other.map(drop).map_err(|e| write_error(None, e))?,
            }
        }
    }
    Ok(ExitStatus::Success)
}

fn write_error(output: Option<&Path>, source: io::Error) -> Error {
    Error::Write {
        path: output.map_or_else(|| "standard output".into(), |p| p.display().to_string()),
        source,
    }
}

/// One report to merge: its name as given, and the file read (the given one, or a pipe's
/// bytes in a temporary file).
pub(super) struct Input {
    pub shown: String,
    pub path: PathBuf,
    _spooled: Option<tempfile::NamedTempFile>,
}

impl Input {
    pub fn open(&self) -> io::Result<File> {
        File::open(&self.path)
    }

    /// An error in this input at byte `offset`.
    pub fn error_at(&self, offset: u64, what: impl std::fmt::Display) -> Error {
        read_error(
            &self.shown,
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{what} (at byte {offset})"),
            ),
        )
    }
}

/// The inputs, each a regular file or spooled from a pipe; the same file named twice is refused.
fn open_inputs(reports: &[PathBuf], cwd: &Path) -> Result<Vec<Input>, Error> {
    let mut inputs: Vec<Input> = Vec::with_capacity(reports.len());
    let mut seen: Vec<(PathBuf, String)> = Vec::new();
    for report in reports {
        let shown = report.display().to_string();
        let path = cwd.join(report);
        let failed = |source| read_error(&shown, source);
        let meta = std::fs::metadata(&path).map_err(failed)?;
        if meta.is_dir() {
            return Err(failed(io::Error::other("a folder, not a report")));
        }
        if meta.is_file() {
            let resolved = path.canonicalize().map_err(failed)?;
            if let Some((_, first)) = seen.iter().find(|(p, _)| *p == resolved) {
                return Err(Error::usage(format!(
                    "{} and {} are one report: each shard is merged once",
                    crate::escape::visible(first),
                    crate::escape::visible(&shown)
                )));
            }
            seen.push((resolved, shown.clone()));
            inputs.push(Input {
                shown,
                path,
                _spooled: None,
            });
            continue;
        }
        // A pipe or a device: read once, into a temporary file that is read as often as needed.
        let mut spool = tempfile::NamedTempFile::new().map_err(failed)?;
        let mut source = File::open(&path).map_err(failed)?;
        io::copy(&mut source, spool.as_file_mut()).map_err(failed)?;
        inputs.push(Input {
            shown,
            path: spool.path().to_path_buf(),
            _spooled: Some(spool),
        });
    }
    Ok(inputs)
}

/// The kind every input is, or an error naming the first that is not a report or not of the
/// first one's kind.
fn kind_of_all(inputs: &[Input]) -> Result<Kind, Error> {
    let mut first: Option<(Kind, &str)> = None;
    for input in inputs {
        let this = kind_of(input).map_err(|source| read_error(&input.shown, source))?;
        match first {
            None => first = Some((this, &input.shown)),
            Some((kind, first_shown)) if kind != this => {
                return Err(Error::usage(format!(
                    "{} is a {} report and {} a {} one: merge reports of one format",
                    crate::escape::visible(&input.shown),
                    name(this),
                    crate::escape::visible(first_shown),
                    name(kind)
                )));
            }
            Some(_) => {}
        }
    }
    first
        .map(|(kind, _)| kind)
        .ok_or_else(|| Error::usage("merge needs at least one report"))
}

fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::Json => "json",
        Kind::Jsonl => "jsonl",
        Kind::Sarif => "sarif",
    }
}

/// Tells the kind by the first key of the document: SARIF logs begin with `$schema` (or
/// `version` then `runs`), forgelint's JSON with `version` then `tool`, and a JSON Lines report
/// with a finding (`path`) or, when it has none, its summary line.
fn kind_of(input: &Input) -> io::Result<Kind> {
    let mut scan = Scanner::new(BufReader::new(input.open()?));
    scan.begin_object()?;
    let mut first = true;
    while let Some(key) = scan.next_key(&mut first)? {
        match key.as_str() {
            "$schema" | "runs" => return Ok(Kind::Sarif),
            "tool" | "findings" => return Ok(Kind::Json),
            "path" | "summary" => return Ok(Kind::Jsonl),
            _ => {}
        }
        scan.skip_value()?;
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        "not a forgelint report (json, jsonl or sarif)",
    ))
}

fn read_error(shown: &str, source: io::Error) -> Error {
    Error::Io {
        path: shown.to_string(),
        source,
    }
}

/// The version of forgelint that wrote a report, as its `tool` (JSON) or driver (SARIF) says:
/// a report of another version is refused, its shape may differ.
fn check_tool_version(input: &Input, offset: u64, version: Option<&Value>) -> Result<(), Error> {
    let ours = env!("CARGO_PKG_VERSION");
    match version.and_then(Value::as_str) {
        Some(v) if v == ours => Ok(()),
        Some(v) => Err(input.error_at(
            offset,
            format!(
                "written by forgelint {}, and this is forgelint {ours}: merge reports with the version that wrote them",
                crate::escape::visible(v)
            ),
        )),
        None => Err(input.error_at(offset, "no forgelint version")),
    }
}

/// The summaries of disjoint parts of one run, as that run's: counts added; a baseline's
/// hidden findings added and its stale entries those no part matched (each part counts as
/// stale what the others hid); skipped rules joined by reason.
fn merge_summaries(parts: &[Map<String, Value>]) -> Map<String, Value> {
    let mut merged = Map::new();
    let count = |key: &str| -> u64 { parts.iter().filter_map(|p| p.get(key)?.as_u64()).sum() };
    for key in [
        "files",
        "files_with_findings",
        "errors",
        "warnings",
        "notes",
    ] {
        merged.insert(key.into(), count(key).into());
    }
    let binary = count("binary_skipped");
    if binary > 0 {
        merged.insert("binary_skipped".into(), binary.into());
    }
    let baselines: Vec<&Value> = parts.iter().filter_map(|p| p.get("baseline")).collect();
    if let Some(first) = baselines.first() {
        let hidden: u64 = baselines.iter().filter_map(|b| b["hidden"].as_u64()).sum();
        let first_hidden = first["hidden"].as_u64().unwrap_or(0);
        let stale = first["stale"]
            .as_u64()
            .unwrap_or(0)
            .saturating_sub(hidden - first_hidden);
        merged.insert(
            "baseline".into(),
            serde_json::json!({ "hidden": hidden, "stale": stale }),
        );
    }
    // `--max-results` keeps N of each part's findings: the merged report holds them all.
    let left: Vec<&Value> = parts.iter().filter_map(|p| p.get("left_out")).collect();
    if let Some(first) = left.first() {
        let findings: u64 = left.iter().filter_map(|l| l["findings"].as_u64()).sum();
        merged.insert(
            "left_out".into(),
            serde_json::json!({ "max_results": first["max_results"], "findings": findings }),
        );
    }
    let skipped = merge_skipped(parts);
    if !skipped.is_empty() {
        merged.insert("skipped".into(), Value::Array(skipped));
    }
    let fixes: Vec<&Value> = parts.iter().filter_map(|p| p.get("fixes")).collect();
    if !fixes.is_empty() {
        let sum = |key: &str| -> u64 { fixes.iter().filter_map(|f| f[key].as_u64()).sum() };
        merged.insert(
            "fixes".into(),
            serde_json::json!({
                "applied": sum("applied"),
                "safe_available": sum("safe_available"),
                "unsafe_available": sum("unsafe_available"),
            }),
        );
    }
    merged
}

/// Skipped-rule groups joined by reason, in the order first seen; each group's rules once.
fn merge_skipped(parts: &[Map<String, Value>]) -> Vec<Value> {
    let mut groups: Vec<Value> = Vec::new();
    for group in parts
        .iter()
        .filter_map(|p| p.get("skipped")?.as_array())
        .flatten()
    {
        match groups.iter_mut().find(|g| g["reason"] == group["reason"]) {
            Some(known) => {
                let mut rules: Vec<Value> = known["rules"].as_array().cloned().unwrap_or_default();
                for rule in group["rules"].as_array().into_iter().flatten() {
                    if !rules.contains(rule) {
                        rules.push(rule.clone());
                    }
                }
                known["rules"] = Value::Array(rules);
            }
            None => groups.push(group.clone()),
        }
    }
    groups
}

/// Where a finding falls in a run's order: path, span, rule, message.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Sorted {
    path: String,
    start: u64,
    end: u64,
    rule: String,
    message: String,
}

/// An input being merged: its name, and where the item it read last begins.
trait Place {
    fn input(&self) -> &Input;
    fn item_offset(&self) -> u64;
}

/// Merges sorted inputs k ways: `each` gets every item of every input in order. One item per
/// input is held. An input out of order, or a file's items in two inputs, is refused.
fn merge_sorted<I: Place, T>(
    inputs: &mut [I],
    next: fn(&mut I) -> Result<Option<T>, Error>,
    key: fn(&T) -> Sorted,
    each: &mut dyn FnMut(T) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut heads: Vec<Option<T>> = Vec::with_capacity(inputs.len());
    let mut heap = BinaryHeap::new();
    for (i, input) in inputs.iter_mut().enumerate() {
        let head = next(input)?;
        if let Some(item) = &head {
            heap.push(Reverse((key(item), i)));
        }
        heads.push(head);
    }
    // The path of the last item given, and its input.
    let mut last: Option<(String, usize)> = None;
    while let Some(Reverse((sorted, i))) = heap.pop() {
        if let Some((path, from)) = &last {
            if *path == sorted.path && *from != i {
                return Err(inputs[i].input().error_at(
                    inputs[i].item_offset(),
                    format!(
                        "{} has findings here and in {}: a file belongs to one shard (the same shard twice?)",
                        crate::escape::visible(path),
                        crate::escape::visible(&inputs[*from].input().shown)
                    ),
                ));
            }
        }
        if let Some(item) = heads[i].take() {
            each(item)?;
        }
        heads[i] = next(&mut inputs[i])?;
        if let Some(item) = &heads[i] {
            let next_key = key(item);
            if next_key < sorted {
                return Err(inputs[i].input().error_at(
                    inputs[i].item_offset(),
                    "findings out of order: this one sorts before the one above it (a report is written sorted)",
                ));
            }
            heap.push(Reverse((next_key, i)));
        }
        last = Some((sorted.path, i));
    }
    Ok(())
}
