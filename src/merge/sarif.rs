//! Merging forgelint's SARIF logs: one run whose rules are the union of the logs' (by id,
//! results' `ruleIndex` renumbered), whose artifacts and results are merged in path order, and
//! whose invocation joins the logs' notifications.

use std::fs::File;
use std::io::{BufReader, Write};

use serde_json::{Map, Value};

use super::scan::Scanner;
use super::{check_tool_version, merge_sorted, read_error, Input, Place, Sorted};
use crate::error::Error;
use crate::json::writer::{write_json_at, ArrayWriter, ObjectWriter};
use crate::report::sarif::{write_log, SarifLog};

type Scan = Scanner<BufReader<File>>;

/// A log being read: one scanner in its artifacts, another in its results.
struct SarifInput<'a> {
    input: &'a Input,
    /// Where the artifact or result read last begins.
    at: u64,
    artifacts: Scan,
    first_artifact: bool,
    artifacts_done: bool,
    results: Scan,
    first_result: bool,
    results_done: bool,
    /// The run's values before its artifacts (`tool`, `originalUriBaseIds`, `columnKind`).
    head: Map<String, Value>,
    /// The log's own members before `runs` (`$schema`, `version`).
    top: Map<String, Value>,
    invocations: Value,
    /// The index in the merged rules of each of this log's rules.
    rule_index: Vec<Option<usize>>,
}

impl Place for SarifInput<'_> {
    fn input(&self) -> &Input {
        self.input
    }
    fn item_offset(&self) -> u64 {
        self.at
    }
}

fn open_scan(input: &Input) -> Result<Scan, Error> {
    let file = input.open().map_err(|e| read_error(&input.shown, e))?;
    Ok(Scanner::new(BufReader::with_capacity(64 * 1024, file)))
}

/// Walks `scan` into the first run of the log; the log's members met on the way are kept in
/// `top`, with where their values begin.
fn enter_run(
    scan: &mut Scan,
    top: &mut Map<String, Value>,
    at: &mut Vec<(String, u64)>,
) -> std::io::Result<()> {
    scan.begin_object()?;
    let mut first = true;
    loop {
        match scan.next_key(&mut first)? {
            Some(key) if key == "runs" => break,
            Some(key) => {
                at.push((key.clone(), scan.offset()?));
                top.insert(key, scan.value()?);
            }
            None => return Err(scan.error("`runs`")),
        }
    }
    scan.begin_array()?;
    if !scan.next_item(&mut true)? {
        return Err(scan.error("a run"));
    }
    scan.begin_object()
}

/// Reads the run's members up to the array `until`, entering it; the values before it are
/// kept in `values`, or skipped when `values` is `None`.
fn walk_to(
    scan: &mut Scan,
    until: &str,
    mut values: Option<&mut Map<String, Value>>,
    at: &mut Vec<(String, u64)>,
) -> std::io::Result<()> {
    let mut first = true;
    loop {
        match scan.next_key(&mut first)? {
            Some(key) if key == until => return scan.begin_array(),
            Some(key) => match values.as_deref_mut() {
                Some(values) => {
                    at.push((key.clone(), scan.offset()?));
                    values.insert(key, scan.value()?);
                }
                None => scan.skip_value()?,
            },
            None => return Err(scan.error(&format!("`{until}`"))),
        }
    }
}

/// After the results: the rest of the run, no second run, the rest of the log, and nothing
/// after it.
fn finish_log(scan: &mut Scan) -> std::io::Result<Option<u64>> {
    let mut first = false;
    while scan.next_key(&mut first)?.is_some() {
        scan.skip_value()?;
    }
    let at = scan.offset()?;
    if scan.next_item(&mut false)? {
        return Ok(Some(at));
    }
    let mut first = false;
    while scan.next_key(&mut first)?.is_some() {
        scan.skip_value()?;
    }
    scan.end()?;
    Ok(None)
}

impl<'a> SarifInput<'a> {
    fn open(input: &'a Input) -> Result<SarifInput<'a>, Error> {
        let failed = |e| read_error(&input.shown, e);
        let mut top = Map::new();
        let mut at = Vec::new();
        let mut artifacts = open_scan(input)?;
        enter_run(&mut artifacts, &mut top, &mut at).map_err(failed)?;
        let mut head = Map::new();
        walk_to(&mut artifacts, "artifacts", Some(&mut head), &mut at).map_err(failed)?;
        let offset_of = |member: &str| {
            at.iter()
                .find(|(key, _)| key == member)
                .map_or(0, |(_, offset)| *offset)
        };
        if top.get("version").and_then(Value::as_str) != Some("2.1.0") {
            return Err(input.error_at(
                offset_of("version"),
                "not a SARIF 2.1.0 log (its `version`)",
            ));
        }
        let driver = &head.get("tool").unwrap_or(&Value::Null)["driver"];
        if driver["name"] != "forgelint" {
            return Err(input.error_at(offset_of("tool"), "a log of another tool than forgelint"));
        }
        check_tool_version(input, offset_of("tool"), driver.get("version"))?;
        let mut results = open_scan(input)?;
        enter_run(&mut results, &mut Map::new(), &mut Vec::new()).map_err(failed)?;
        let mut before = Map::new();
        walk_to(&mut results, "results", Some(&mut before), &mut Vec::new()).map_err(failed)?;
        Ok(SarifInput {
            input,
            at: 0,
            artifacts,
            first_artifact: true,
            artifacts_done: false,
            results,
            first_result: true,
            results_done: false,
            head,
            top,
            invocations: before.remove("invocations").unwrap_or(Value::Null),
            rule_index: Vec::new(),
        })
    }

    fn next_artifact(&mut self) -> Result<Option<Value>, Error> {
        next_in(
            &mut self.artifacts,
            &mut self.first_artifact,
            &mut self.artifacts_done,
            self.input,
            &mut self.at,
        )
    }

    fn next_result(&mut self) -> Result<Option<Value>, Error> {
        let was_done = self.results_done;
        let mut result = next_in(
            &mut self.results,
            &mut self.first_result,
            &mut self.results_done,
            self.input,
            &mut self.at,
        )?;
        if self.results_done && !was_done {
            let second =
                finish_log(&mut self.results).map_err(|e| read_error(&self.input.shown, e))?;
            if let Some(at) = second {
                return Err(self
                    .input
                    .error_at(at, "a second run: a forgelint log has one"));
            }
        }
        if let Some(result) = &mut result {
            renumber(&mut result["ruleIndex"], &self.rule_index);
        }
        Ok(result)
    }

    /// This log's rules, by the driver's list.
    fn rules(&self) -> Vec<Value> {
        self.head["tool"]["driver"]["rules"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

fn next_in(
    scan: &mut Scan,
    first: &mut bool,
    done: &mut bool,
    input: &Input,
    at: &mut u64,
) -> Result<Option<Value>, Error> {
    if *done {
        return Ok(None);
    }
    let failed = |e| read_error(&input.shown, e);
    if !scan.next_item(first).map_err(failed)? {
        *done = true;
        return Ok(None);
    }
    *at = scan.offset().map_err(failed)?;
    scan.value().map(Some).map_err(failed)
}

/// Replaces a rule index of one log by the merged rules' index.
fn renumber(index: &mut Value, map: &[Option<usize>]) {
    if let Some(new) = index
        .as_u64()
        .and_then(|i| map.get(usize::try_from(i).ok()?).copied().flatten())
    {
        *index = new.into();
    }
}

/// The file a result, artifact or notification is about, decoded, for the order of paths.
fn uri_of(location: &Value) -> String {
    decode(location["uri"].as_str().unwrap_or_default())
}

/// Percent-decoding, so that paths order as they did before they were encoded.
fn decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn result_key(result: &Value) -> Sorted {
    let location = &result["locations"][0]["physicalLocation"];
    let start = location["region"]["byteOffset"].as_u64().unwrap_or(0);
    Sorted {
        path: uri_of(&location["artifactLocation"]),
        start,
        end: start + location["region"]["byteLength"].as_u64().unwrap_or(0),
        rule: result["ruleId"].as_str().unwrap_or_default().to_string(),
        message: result["message"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

fn artifact_key(artifact: &Value) -> Sorted {
    Sorted {
        path: uri_of(&artifact["location"]),
        start: 0,
        end: 0,
        rule: String::new(),
        message: String::new(),
    }
}

/// The rules of every log, each id once, by id (as a run lists the rules that ran); each
/// log's rules' places in it.
fn merge_rules(inputs: &mut [SarifInput]) -> Vec<Value> {
    let mut rules: Vec<Value> = Vec::new();
    for input in inputs.iter() {
        for rule in input.rules() {
            if !rules.iter().any(|r| r["id"] == rule["id"]) {
                rules.push(rule);
            }
        }
    }
    rules.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    for input in inputs.iter_mut() {
        input.rule_index = input
            .rules()
            .iter()
            .map(|rule| rules.iter().position(|r| r["id"] == rule["id"]))
            .collect();
    }
    rules
}

/// One invocation: successful when every log's was; the files that could not be linted in
/// path order, then the notes on skipped rules, each once.
fn merge_invocations(inputs: &[SarifInput]) -> Value {
    let mut successful = true;
    let mut errors: Vec<Value> = Vec::new();
    let mut notes: Vec<Value> = Vec::new();
    for input in inputs {
        let invocation = &input.invocations[0];
        successful &= invocation["executionSuccessful"].as_bool().unwrap_or(true);
        for n in invocation["toolExecutionNotifications"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if n.get("locations").is_some() {
                let mut n = n.clone();
                renumber(&mut n["associatedRule"]["index"], &input.rule_index);
                errors.push(n);
            } else if !notes.iter().any(|known| known["message"] == n["message"]) {
                notes.push(n.clone());
            }
        }
    }
    errors.sort_by_cached_key(|n| {
        let location = &n["locations"][0]["physicalLocation"];
        (
            uri_of(&location["artifactLocation"]),
            location["region"]["byteOffset"].as_u64().unwrap_or(0),
        )
    });
    errors.extend(notes);
    serde_json::json!([{
        "executionSuccessful": successful,
        "toolExecutionNotifications": errors,
    }])
}

pub(super) fn merge<W: Write>(paths: &[Input], out: &mut W) -> Result<(), Error> {
    let mut inputs = paths
        .iter()
        .map(SarifInput::open)
        .collect::<Result<Vec<_>, Error>>()?;
    let rules = merge_rules(&mut inputs);
    let invocations = merge_invocations(&inputs);
    let mut head = inputs[0].head.clone();
    if let Some(driver) = head.get_mut("tool").and_then(|t| t.get_mut("driver")) {
        driver["rules"] = Value::Array(rules);
    }
    let mut log = MergedLog {
        top: inputs[0].top.clone(),
        head,
        invocations,
        inputs,
        failure: None,
    };
    let written = write_log(out, &mut log);
    if let Some(e) = log.failure {
        return Err(e);
    }
    written.map_err(|source| Error::Write {
        path: "the merged report".into(),
        source,
    })
}

/// The merged log, laid out as a run's own log ([`write_log`]); a read error while merging is
/// left in `failure`.
struct MergedLog<'a> {
    /// The first log's members before `runs`.
    top: Map<String, Value>,
    /// The first log's run's members before its artifacts, with the merged rules.
    head: Map<String, Value>,
    invocations: Value,
    inputs: Vec<SarifInput<'a>>,
    failure: Option<Error>,
}

impl<W: Write> SarifLog<W> for MergedLog<'_> {
    fn log_head(&mut self, log: &mut ObjectWriter<'_, W>) -> std::io::Result<()> {
        self.top
            .iter()
            .try_for_each(|(key, value)| log.value(key, value))
    }

    fn run_head(&mut self, run: &mut ObjectWriter<'_, W>) -> std::io::Result<()> {
        self.head
            .iter()
            .try_for_each(|(key, value)| run.value(key, value))
    }

    fn artifacts(&mut self, out: &mut W, level: usize) -> std::io::Result<()> {
        let next = SarifInput::next_artifact;
        merged_array(
            out,
            level,
            &mut self.inputs,
            next,
            artifact_key,
            &mut self.failure,
        )
    }

    fn invocations(&mut self, out: &mut W, level: usize) -> std::io::Result<()> {
        write_json_at(out, level, &self.invocations)
    }

    fn results(&mut self, out: &mut W, level: usize) -> std::io::Result<()> {
        let next = SarifInput::next_result;
        merged_array(
            out,
            level,
            &mut self.inputs,
            next,
            result_key,
            &mut self.failure,
        )
    }
}

/// An array of the inputs' elements merged in order.
fn merged_array<'a, W: Write>(
    out: &mut W,
    level: usize,
    inputs: &mut [SarifInput<'a>],
    next: fn(&mut SarifInput<'a>) -> Result<Option<Value>, Error>,
    key: fn(&Value) -> Sorted,
    failure: &mut Option<Error>,
) -> std::io::Result<()> {
    let mut list = ArrayWriter::begin(out, level)?;
    let mut write_error = None;
    let merged = merge_sorted(inputs, next, key, &mut |element| {
        list.element(|out, level| write_json_at(out, level, &element))
            .map_err(|e| {
                let error = Error::Write {
                    path: "the merged report".into(),
                    source: std::io::Error::new(e.kind(), e.to_string()),
                };
                write_error = Some(e);
                error
            })
    });
    if let Err(e) = merged {
        return Err(write_error.unwrap_or_else(|| {
            *failure = Some(e);
            std::io::Error::other("the merge failed")
        }));
    }
    list.end()
}
