//! Merging forgelint's JSON and JSON Lines reports.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::scan::Scanner;
use super::{merge_sorted, merge_summaries, read_error, Sorted};
use crate::diagnostic::Severity;
use crate::error::Error;
use crate::json::writer::{write_json_at, write_json_compact, ArrayWriter, ObjectWriter};

/// A finding's place in a run's order: path, span, rule, message.
fn key_of(f: &Value) -> Sorted {
    Sorted {
        path: f["path"].as_str().unwrap_or_default().to_string(),
        start: f["span"]["start"].as_u64().unwrap_or(0),
        end: f["span"]["end"].as_u64().unwrap_or(0),
        rule: f["rule"].as_str().unwrap_or_default().to_string(),
        message: f["message"].as_str().unwrap_or_default().to_string(),
    }
}

/// One JSON report being read: walked to its `findings`, then read one finding at a time.
struct JsonInput {
    path: PathBuf,
    scan: Scanner<BufReader<File>>,
    first_finding: bool,
    findings_done: bool,
}

impl JsonInput {
    /// Opens `path` and walks to its findings; returns the values met on the way (`version`,
    /// `tool`).
    fn open(path: &Path) -> Result<(JsonInput, Map<String, Value>), Error> {
        let failed = |source| read_error(path, source);
        let file = File::open(path).map_err(failed)?;
        let mut scan = Scanner::new(BufReader::with_capacity(64 * 1024, file));
        scan.begin_object().map_err(failed)?;
        let mut head = Map::new();
        let mut first = true;
        loop {
            match scan.next_key(&mut first).map_err(failed)? {
                Some(key) if key == "findings" => break,
                Some(key) => {
                    head.insert(key, scan.value().map_err(failed)?);
                }
                None => return Err(failed(scan.error("a `findings` array"))),
            }
        }
        scan.begin_array().map_err(failed)?;
        let input = JsonInput {
            path: path.to_path_buf(),
            scan,
            first_finding: true,
            findings_done: false,
        };
        Ok((input, head))
    }

    fn next(&mut self) -> Result<Option<Value>, Error> {
        if self.findings_done {
            return Ok(None);
        }
        let more = self.scan.next_item(&mut self.first_finding);
        if !more.map_err(|e| read_error(&self.path, e))? {
            self.findings_done = true;
            return Ok(None);
        }
        self.scan
            .value()
            .map(Some)
            .map_err(|e| read_error(&self.path, e))
    }

    /// After the findings: the summary, and whether the report had statistics.
    fn tail(&mut self) -> Result<(Map<String, Value>, bool), Error> {
        let failed = |e| read_error(&self.path, e);
        let mut summary = None;
        let mut statistics = false;
        let mut first = false;
        while let Some(key) = self.scan.next_key(&mut first).map_err(failed)? {
            match key.as_str() {
                "summary" => summary = Some(self.scan.value().map_err(failed)?),
                "statistics" => {
                    statistics = true;
                    self.scan.skip_value().map_err(failed)?;
                }
                _ => self.scan.skip_value().map_err(failed)?,
            }
        }
        let summary = summary.ok_or_else(|| failed(self.scan.error("a `summary`")))?;
        Ok((summary, statistics))
    }
}

pub fn merge_json<W: Write>(inputs: &[PathBuf], out: &mut W) -> Result<(), Error> {
    let mut opened = Vec::new();
    let mut head = Map::new();
    for path in inputs {
        let (input, values) = JsonInput::open(path)?;
        if head.is_empty() {
            head = values;
        }
        opened.push(input);
    }
    let write_failed = |source| Error::Write {
        path: "the merged report".into(),
        source,
    };
    let mut tally = Tally::default();
    let mut doc = ObjectWriter::begin(out, 0).map_err(write_failed)?;
    for (key, value) in &head {
        doc.value(key, value).map_err(write_failed)?;
    }
    let mut failure = None;
    let written = doc.field("findings", |out, level| {
        let mut list = ArrayWriter::begin(out, level)?;
        let merged = merge_sorted(&mut opened, JsonInput::next, key_of, &mut |finding| {
            tally.add(&finding);
            list.element(|out, level| write_json_at(out, level, &finding))
                .map_err(write_failed)
        });
        if let Err(e) = merged {
            failure = Some(e);
            return Err(std::io::Error::other("the merge failed"));
        }
        list.end()
    });
    if let Some(e) = failure {
        return Err(e);
    }
    written.map_err(write_failed)?;
    let mut summaries = Vec::new();
    let mut statistics = false;
    for input in &mut opened {
        let (summary, with_statistics) = input.tail()?;
        summaries.push(summary);
        statistics |= with_statistics;
    }
    doc.value("summary", &merge_summaries(&summaries))
        .map_err(write_failed)?;
    if statistics {
        doc.value("statistics", &tally.json())
            .map_err(write_failed)?;
    }
    doc.end().map_err(write_failed)?;
    writeln!(out).map_err(write_failed)
}

/// One JSON Lines report being read: a finding per line, then the summary line.
struct JsonlInput {
    path: PathBuf,
    lines: std::io::Lines<BufReader<File>>,
    summary: Option<Value>,
}

impl JsonlInput {
    fn next(&mut self) -> Result<Option<Value>, Error> {
        if self.summary.is_some() {
            return Ok(None);
        }
        for line in self.lines.by_ref() {
            let line = line.map_err(|e| read_error(&self.path, e))?;
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&line)
                .map_err(|e| read_error(&self.path, std::io::Error::other(e)))?;
            if value.get("summary").is_some() && value.get("rule").is_none() {
                self.summary = Some(value);
                return Ok(None);
            }
            return Ok(Some(value));
        }
        Err(read_error(
            &self.path,
            std::io::Error::other("the report ends before its summary line"),
        ))
    }
}

pub fn merge_jsonl<W: Write>(inputs: &[PathBuf], out: &mut W) -> Result<(), Error> {
    let mut opened = Vec::new();
    for path in inputs {
        let file = File::open(path).map_err(|e| read_error(path, e))?;
        opened.push(JsonlInput {
            path: path.clone(),
            lines: BufReader::with_capacity(64 * 1024, file).lines(),
            summary: None,
        });
    }
    let write_failed = |source| Error::Write {
        path: "the merged report".into(),
        source,
    };
    let mut tally = Tally::default();
    // Each line written again as `jsonl` writes it: a line from a report that was tampered
    // with cannot bring a raw control character through.
    let line = |out: &mut W, value: &Value| -> Result<(), Error> {
        write_json_compact(out, value).map_err(write_failed)?;
        writeln!(out).map_err(write_failed)
    };
    merge_sorted(&mut opened, JsonlInput::next, key_of, &mut |finding| {
        tally.add(&finding);
        line(out, &finding)
    })?;
    let mut summaries = Vec::new();
    let mut statistics = false;
    for input in &mut opened {
        let last = input.summary.take().unwrap_or_default();
        statistics |= last.get("statistics").is_some();
        if let Some(Value::Object(summary)) = last.get("summary") {
            summaries.push(summary.clone());
        }
    }
    let mut last = Map::new();
    last.insert("summary".into(), Value::Object(merge_summaries(&summaries)));
    if statistics {
        last.insert("statistics".into(), tally.json());
    }
    line(out, &Value::Object(last))
}

/// `--statistics` of the merged findings: counts per rule and severity, and per severity.
#[derive(Default)]
struct Tally {
    rules: BTreeMap<(String, u8), u64>,
    severities: BTreeMap<String, u64>,
}

impl Tally {
    fn add(&mut self, finding: &Value) {
        let severity = finding["severity"].as_str().unwrap_or_default();
        let rank = Severity::parse(severity).unwrap_or(Severity::Error) as u8;
        let rule = finding["rule"].as_str().unwrap_or_default();
        match self.rules.get_mut(&(rule.to_string(), rank)) {
            Some(n) => *n += 1,
            None => {
                self.rules.insert((rule.to_string(), rank), 1);
            }
        }
        *self.severities.entry(severity.to_string()).or_default() += 1;
    }

    /// As `report::statistics::json` writes them: by count, most first, then rule id.
    fn json(&self) -> Value {
        let mut rows: Vec<(&(String, u8), &u64)> = self.rules.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0 .0.cmp(&b.0 .0)));
        let name = |rank: u8| Severity::ALL[usize::from(rank).min(2)].as_str();
        serde_json::json!({
            "rules": rows.iter().map(|((rule, rank), count)| serde_json::json!({
                "rule": rule, "severity": name(*rank), "count": count,
            })).collect::<Vec<_>>(),
            "severities": self.severities,
        })
    }
}
