//! Merging forgelint's JSON and JSON Lines reports.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};

use serde_json::{Map, Value};

use super::scan::Scanner;
use super::{check_tool_version, merge_sorted, merge_summaries, read_error, Input, Place, Sorted};
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
struct JsonInput<'a> {
    input: &'a Input,
    scan: Scanner<BufReader<File>>,
    first_finding: bool,
    findings_done: bool,
    /// Where the finding read last begins.
    at: u64,
}

impl Place for JsonInput<'_> {
    fn input(&self) -> &Input {
        self.input
    }
    fn item_offset(&self) -> u64 {
        self.at
    }
}

impl<'a> JsonInput<'a> {
    /// Opens `input` and walks to its findings; returns the values met on the way (`version`,
    /// `tool`), which must be this forgelint's.
    fn open(input: &'a Input) -> Result<(JsonInput<'a>, Map<String, Value>), Error> {
        let failed = |source| read_error(&input.shown, source);
        let file = input.open().map_err(failed)?;
        let mut scan = Scanner::new(BufReader::with_capacity(64 * 1024, file));
        scan.begin_object().map_err(failed)?;
        let mut head = Map::new();
        let mut first = true;
        loop {
            match scan.next_key(&mut first).map_err(failed)? {
                Some(key) if key == "findings" => break,
                Some(key) => {
                    let at = scan.offset().map_err(failed)?;
                    let value: Value = scan.value().map_err(failed)?;
                    match key.as_str() {
                        "version" if value != crate::report::json::FORMAT_VERSION => {
                            return Err(input.error_at(
                                at,
                                format!(
                                    "a report of version {}, and this forgelint merges version {}",
                                    crate::escape::visible(&value.to_string()),
                                    crate::report::json::FORMAT_VERSION
                                ),
                            ));
                        }
                        "tool" => check_tool_version(input, at, value.get("version"))?,
                        _ => {}
                    }
                    head.insert(key, value);
                }
                None => return Err(failed(scan.error("a `findings` array"))),
            }
        }
        let at = scan.offset().map_err(failed)?;
        for member in ["version", "tool"] {
            if !head.contains_key(member) {
                return Err(input.error_at(at, format!("no `{member}` before the findings")));
            }
        }
        scan.begin_array().map_err(failed)?;
        let opened = JsonInput {
            input,
            scan,
            first_finding: true,
            findings_done: false,
            at,
        };
        Ok((opened, head))
    }

    fn next(&mut self) -> Result<Option<Value>, Error> {
        if self.findings_done {
            return Ok(None);
        }
        let failed = |e| read_error(&self.input.shown, e);
        let more = self.scan.next_item(&mut self.first_finding);
        if !more.map_err(failed)? {
            self.findings_done = true;
            return Ok(None);
        }
        self.at = self.scan.offset().map_err(failed)?;
        self.scan.value().map(Some).map_err(failed)
    }

    /// After the findings: the summary, and whether the report had statistics; then the end of
    /// the input.
    fn tail(&mut self) -> Result<(Map<String, Value>, bool), Error> {
        let failed = |e| read_error(&self.input.shown, e);
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
        self.scan.end().map_err(failed)?;
        Ok((summary, statistics))
    }
}

pub(super) fn merge_json<W: Write>(inputs: &[Input], out: &mut W) -> Result<(), Error> {
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

/// One JSON Lines report being read: a finding per line, then the summary line, then nothing.
struct JsonlInput<'a> {
    input: &'a Input,
    reader: BufReader<File>,
    /// Bytes read so far, and where the line read last begins.
    offset: u64,
    at: u64,
    summary: Option<Value>,
}

impl Place for JsonlInput<'_> {
    fn input(&self) -> &Input {
        self.input
    }
    fn item_offset(&self) -> u64 {
        self.at
    }
}

impl JsonlInput<'_> {
    /// The next line that is not blank, and where it begins; `None` at the end.
    fn line(&mut self) -> Result<Option<String>, Error> {
        loop {
            let mut line = String::new();
            let read = self
                .reader
                .read_line(&mut line)
                .map_err(|e| read_error(&self.input.shown, e))?;
            if read == 0 {
                return Ok(None);
            }
            self.at = self.offset;
            self.offset += read as u64;
            if !line.trim().is_empty() {
                return Ok(Some(line));
            }
        }
    }

    fn next(&mut self) -> Result<Option<Value>, Error> {
        if self.summary.is_some() {
            return Ok(None);
        }
        let Some(line) = self.line()? else {
            return Err(self
                .input
                .error_at(self.offset, "the report ends before its summary line"));
        };
        let value: Value = serde_json::from_str(&line).map_err(|e| {
            self.input
                .error_at(self.at, format!("not a JSON line: {e}"))
        })?;
        if value.get("summary").is_some() && value.get("rule").is_none() {
            self.summary = Some(value);
            if self.line()?.is_some() {
                return Err(self.input.error_at(
                    self.at,
                    "more after the summary line (two reports in one file, or trailing lines)",
                ));
            }
            return Ok(None);
        }
        Ok(Some(value))
    }
}

pub(super) fn merge_jsonl<W: Write>(inputs: &[Input], out: &mut W) -> Result<(), Error> {
    let mut opened = Vec::new();
    for input in inputs {
        let file = input.open().map_err(|e| read_error(&input.shown, e))?;
        opened.push(JsonlInput {
            input,
            reader: BufReader::with_capacity(64 * 1024, file),
            offset: 0,
            at: 0,
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
