//! `forgelint merge`: shard reports (`--shard K/N`) joined into one, sorted as one run sorts its
//! findings. Each input is already sorted, so the findings are merged k ways as they are read:
//! memory holds one finding per input, whatever the size of the reports.

mod json;
mod sarif;
mod scan;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, Write};
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
    let inputs: Vec<PathBuf> = reports.iter().map(|p| env.cwd.join(p)).collect();
    let kind = kind_of_all(reports, &inputs)?;
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
        None => match write(&mut *env.stdout) {
            Err(Error::Write { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => {}
            other => other?,
        },
    }
    Ok(ExitStatus::Success)
}

fn write_error(output: Option<&Path>, source: io::Error) -> Error {
    Error::Write {
        path: output.map_or_else(|| "standard output".into(), |p| p.display().to_string()),
        source,
    }
}

/// The kind every input is, or an error naming the first that is not a report or not of the
/// first one's kind.
fn kind_of_all(shown: &[PathBuf], inputs: &[PathBuf]) -> Result<Kind, Error> {
    let mut first: Option<(Kind, &PathBuf)> = None;
    for (shown, path) in shown.iter().zip(inputs) {
        let this = kind_of(path).map_err(|source| read_error(shown, source))?;
        match first {
            None => first = Some((this, shown)),
            Some((kind, first_shown)) if kind != this => {
                let visible =
                    |p: &Path| crate::escape::visible(&p.display().to_string()).into_owned();
                return Err(Error::usage(format!(
                    "{} is a {} report and {} a {} one: merge reports of one format",
                    visible(shown),
                    name(this),
                    visible(first_shown),
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
fn kind_of(path: &Path) -> io::Result<Kind> {
    let mut scan = Scanner::new(BufReader::new(File::open(path)?));
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

fn read_error(path: &Path, source: io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source,
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

/// Merges sorted inputs k ways: `each` gets every item of every input in order, the earlier
/// input's first on a tie. One item per input is held.
fn merge_sorted<I, T>(
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
    while let Some(Reverse((_, i))) = heap.pop() {
        if let Some(item) = heads[i].take() {
            each(item)?;
        }
        heads[i] = next(&mut inputs[i])?;
        if let Some(item) = &heads[i] {
            heap.push(Reverse((key(item), i)));
        }
    }
    Ok(())
}
