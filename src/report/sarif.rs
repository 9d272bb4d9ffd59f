//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning ingests it.
//!
//! Hand-written on serde_json (the SARIF crates do not build alone or add much): the driver lists
//! every rule that ran; each result has a region in 1-based UTF-16 columns (`columnKind`) plus the
//! exact byte range, an artifact URI relative to `%SRCROOT%` (the current directory), and a
//! `partialFingerprints` entry derived from path, rule and JSON Pointer, so it survives moved
//! lines. Files that could not be read or parsed are also tool execution notifications.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path};

use serde::Serialize;
use serde_json::{json, Value};

use super::chunked::write_findings_array;
use super::ReportInput;
use crate::diagnostic::{fnv1a, Finding, Fnv, Severity, INTERNAL_ERROR, INVALID_JSON};
use crate::json::writer::{
    decimal, write_json_at, write_number, write_string, ArrayWriter, JsonWriter, ObjectWriter,
    Skeleton,
};
use crate::rules::Rule;

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Appends `text` percent-encoded for a URI, keeping `/` between segments (RFC 3986
/// unreserved kept).
fn push_encoded(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => {
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 0xF)] as char);
            }
        }
    }
}

use crate::paths::file_uri;

/// The artifact location of a finding's `path` (as findings name it, from the working
/// folder): relative to `%SRCROOT%`, the report's root, when it is inside it.
fn located(path: &str, input: &ReportInput<'_>) -> ArtifactLocation {
    artifact_location(&input.path_from_root(path), input.root)
}

/// An artifact location: a URI relative to `%SRCROOT%`, or an absolute `file:` URI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

/// The artifact location of a finding's file: relative to `%SRCROOT%` when it is inside it.
fn artifact_location(path: &str, cwd: &Path) -> ArtifactLocation {
    // Most paths are relative names of unreserved characters: they are their own URI.
    if is_plain_relative(path) {
        return ArtifactLocation {
            uri: path.to_string(),
            uri_base_id: Some("%SRCROOT%"),
        };
    }
    artifact_location_by_components(path, cwd)
}

/// A relative path whose segments are all names (none empty, `.` or `..`) of characters a URI
/// keeps as they are: what [`artifact_location_by_components`] would give back unchanged.
fn is_plain_relative(path: &str) -> bool {
    path.bytes().all(
        |b| matches!(b, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/'),
    ) && path
        .split('/')
        .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

fn artifact_location_by_components(path: &str, cwd: &Path) -> ArtifactLocation {
    let p = Path::new(path);
    let relative = if p.is_absolute() {
        p.strip_prefix(cwd).ok()
    } else {
        Some(p)
    };
    // The normal components, percent-encoded and joined by `/`; none may leave the root.
    let inside = relative.and_then(|rel| {
        let mut uri = String::with_capacity(path.len());
        for c in rel.components() {
            match c {
                Component::ParentDir => return None,
                Component::Normal(name) => {
                    if !uri.is_empty() {
                        uri.push('/');
                    }
                    push_encoded(&mut uri, &name.to_string_lossy());
                }
                _ => {}
            }
        }
        Some(uri)
    });
    match inside {
        Some(uri) => ArtifactLocation {
            uri,
            uri_base_id: Some("%SRCROOT%"),
        },
        None => ArtifactLocation {
            uri: file_uri(&cwd.join(p)),
            uri_base_id: None,
        },
    }
}

/// SARIF's `level` of a severity: SARIF names its levels as forgelint does.
fn level_of(s: Severity) -> &'static str {
    s.as_str()
}

/// The rule's documentation: its page in the repository, or its own file for a user's rule.
pub(crate) fn help_uri(rule: &Rule) -> String {
    if rule.origin.builtin {
        format!(
            "{}/blob/main/docs/rules/{}.md",
            env!("CARGO_PKG_REPOSITORY"),
            rule.id
        )
    } else {
        let path = Path::new(&rule.origin.name);
        let abs = std::env::current_dir()
            .map(|c| c.join(path))
            .unwrap_or_else(|_| path.to_path_buf());
        file_uri(&abs)
    }
}

fn rule_descriptor(rule: &Rule) -> Value {
    let help_text = match &rule.help {
        Some(h) => format!(
            "{}\n\nFix: {}",
            if rule.explanation.is_empty() {
                &rule.summary
            } else {
                &rule.explanation
            },
            h.render(|_| Some("…"))
        ),
        None if rule.explanation.is_empty() => rule.summary.clone(),
        None => rule.explanation.clone(),
    };
    json!({
        "id": rule.id,
        "name": rule.id,
        "shortDescription": { "text": rule.summary },
        "fullDescription": { "text": if rule.explanation.is_empty() { &rule.summary } else { &rule.explanation } },
        "help": { "text": help_text, "markdown": help_text },
        "helpUri": help_uri(rule),
        "defaultConfiguration": { "level": level_of(rule.severity) },
        "properties": { "tags": ["forge/v2", if rule.origin.builtin { "builtin" } else { "policy" }] },
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RegionOut {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
    byte_offset: u32,
    byte_length: usize,
}

impl RegionOut {
    /// The members' values, in the order of [`REGION_KEYS`].
    fn values(&self) -> [u64; 6] {
        [
            self.start_line.into(),
            self.start_column.into(),
            self.end_line.into(),
            self.end_column.into(),
            self.byte_offset.into(),
            self.byte_length as u64,
        ]
    }
}

fn region_of(
    span: crate::diagnostic::Span,
    start: crate::diagnostic::Position,
    end: crate::diagnostic::Position,
) -> RegionOut {
    RegionOut {
        start_line: start.line,
        start_column: start.column,
        end_line: end.line,
        end_column: end.column,
        byte_offset: span.start,
        byte_length: span.len(),
    }
}

/// The identity hash of a result's fingerprint: path, rule and pointer.
pub(super) fn identity(f: &Finding) -> u64 {
    fnv1a(&[&f.path, &f.rule, &f.pointer])
}

/// Result `i`'s fingerprint: its identity hash, and the occurrence of that identity among
/// consecutive findings (two findings of one rule on one value). `previous` is result `i - 1`'s,
/// when this chunk of results has reached it.
fn fingerprint(
    findings: &[Finding],
    i: usize,
    previous: Option<(usize, u64, usize)>,
) -> (u64, usize) {
    let hash = identity(&findings[i]);
    let occurrence = match previous {
        Some((at, h, n)) if at + 1 == i => {
            if h == hash {
                n + 1
            } else {
                1
            }
        }
        // The first result of a chunk: counted back.
        _ => {
            1 + findings[..i]
                .iter()
                .rev()
                .take_while(|f| identity(f) == hash)
                .count()
        }
    };
    (hash, occurrence)
}

/// What rendering a chunk of results carries from one result to the next.
#[derive(Default)]
struct ResultState {
    /// The artifact location of the previous result's file (findings are sorted by path: one
    /// location per file).
    artifact: Option<(usize, ArtifactLocation)>,
    /// The previous result's index and fingerprint.
    fingerprint: Option<(usize, u64, usize)>,
    /// The results' fixed text, made for the chunk's first result.
    shapes: Option<ResultShapes>,
}

/// The fixed text of a result at one nesting level, up to its fingerprint: for an artifact
/// with a `uriBaseId` and for one without. The members after it (rule index, related places,
/// help) are written one by one: they come and go.
struct ResultShapes {
    level: usize,
    with_base: Skeleton,
    without_base: Skeleton,
}

/// The region's members, in the log's order.
const REGION_KEYS: [&str; 6] = [
    "startLine",
    "startColumn",
    "endLine",
    "endColumn",
    "byteOffset",
    "byteLength",
];

impl ResultShapes {
    fn new(level: usize) -> ResultShapes {
        let shape = |with_base: bool| {
            Skeleton::new(level, |w| {
                w.begin_object();
                w.key("ruleId");
                w.hole();
                w.key("level");
                w.hole();
                w.key("message");
                w.begin_object();
                w.key("text");
                w.hole();
                w.end_object();
                w.key("locations");
                w.begin_array();
                w.item();
                w.begin_object();
                w.key("physicalLocation");
                w.begin_object();
                w.key("artifactLocation");
                w.begin_object();
                w.key("uri");
                w.hole();
                if with_base {
                    w.key("uriBaseId");
                    w.hole();
                }
                w.end_object();
                w.key("region");
                w.begin_object();
                for key in REGION_KEYS {
                    w.key(key);
                    w.hole();
                }
                w.end_object();
                w.end_object();
                w.end_object();
                w.end_array();
                w.key("partialFingerprints");
                w.begin_object();
                w.key("forgelint/v1");
                w.hole();
                w.end_object();
            })
        };
        ResultShapes {
            level,
            with_base: shape(true),
            without_base: shape(false),
        }
    }
}

/// Writes result `i`.
fn write_result(
    buf: &mut Vec<u8>,
    level: usize,
    input: &ReportInput<'_>,
    findings: &[Finding],
    i: usize,
    rule_index: &RuleIndex<'_>,
    state: &mut ResultState,
) -> std::io::Result<()> {
    let f = &findings[i];
    let same_file = state
        .artifact
        .as_ref()
        .is_some_and(|(at, _)| *findings[*at].path == *f.path);
    if !same_file {
        state.artifact = Some((i, located(&f.path, input)));
    }
    let (hash, occurrence) = fingerprint(findings, i, state.fingerprint);
    state.fingerprint = Some((i, hash, occurrence));
    let location = &state.artifact.as_ref().expect("set above").1;
    let mut text = [0u8; 16 + 1 + 20];
    let len = fingerprint_text(hash, occurrence, &mut text);
    if state.shapes.as_ref().is_none_or(|s| s.level != level) {
        state.shapes = Some(ResultShapes::new(level));
    }
    write_result_json(
        buf,
        state.shapes.as_ref().expect("set above"),
        f,
        location,
        std::str::from_utf8(&text[..len]).unwrap_or_default(),
        rule_index.get(&*f.rule).copied(),
        &|path| located(path, input),
    );
    Ok(())
}

/// `{hash:016x}:{occurrence}` written into `out`; returns its length.
pub(super) fn fingerprint_text(hash: u64, occurrence: usize, out: &mut [u8; 37]) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (k, slot) in out[..16].iter_mut().enumerate() {
        *slot = HEX[(hash >> (60 - 4 * k)) as usize & 0xF];
    }
    out[16] = b':';
    let mut digits = [0u8; 20];
    let digits = decimal(occurrence as u64, &mut digits);
    let len = 17 + digits.len();
    out[17..len].copy_from_slice(digits);
    len
}

/// Rule ids to their index in the driver's list, hashed with FNV-1a: the ids are short and
/// ours, and SipHash was a tenth of the cost of rendering a result.
type RuleIndex<'a> = HashMap<&'a str, usize, std::hash::BuildHasherDefault<Fnv>>;

/// Writes one result, as serde would write the log's shape of it (a test holds the two to the
/// same bytes).
fn write_result_json(
    buf: &mut Vec<u8>,
    shapes: &ResultShapes,
    f: &Finding,
    location: &ArtifactLocation,
    fingerprint: &str,
    rule_index: Option<usize>,
    locate: &dyn Fn(&str) -> ArtifactLocation,
) {
    let shape = match location.uri_base_id {
        Some(_) => &shapes.with_base,
        None => &shapes.without_base,
    };
    let mut parts = shape.parts();
    for text in [&*f.rule, level_of(f.severity), &f.message, &location.uri] {
        parts.next_into(buf);
        write_string(buf, text);
    }
    if let Some(base) = location.uri_base_id {
        parts.next_into(buf);
        write_string(buf, base);
    }
    for value in region_of(f.span, f.start, f.end).values() {
        parts.next_into(buf);
        write_number(buf, value);
    }
    parts.next_into(buf);
    write_string(buf, fingerprint);
    parts.next_into(buf);
    debug_assert!(parts.is_done());
    // Inside the result, after its fingerprints.
    let mut w = JsonWriter::resume(buf, shapes.level + 1, false);
    if let Some(index) = rule_index {
        w.key("ruleIndex");
        w.number(index as u64);
    }
    if !f.related.is_empty() {
        w.key("relatedLocations");
        w.begin_array();
        for (i, r) in f.related.iter().enumerate() {
            w.item();
            w.begin_object();
            w.key("id");
            w.number(i as u64);
            w.key("message");
            write_text(&mut w, &r.label);
            let region = region_of(r.span, r.start, r.end);
            match &r.path {
                Some(path) => write_physical_location(&mut w, &locate(path), region),
                None => write_physical_location(&mut w, location, region),
            }
            w.end_object();
        }
        w.end_array();
    }
    if let Some(fix) = &f.fix {
        write_fixes(&mut w, fix, location);
    }
    if f.help.is_some() || f.history.is_some() {
        w.key("properties");
        w.begin_object();
        if let Some(help) = &f.help {
            w.key("help");
            w.string(help);
        }
        if let Some(history) = &f.history {
            super::history::write_members(&mut w, history);
        }
        w.end_object();
    }
    w.end_object();
}

/// What a fix says it does, by its safety.
fn fix_description(fix: &crate::diagnostic::Fix) -> &'static str {
    match fix.safety {
        crate::diagnostic::Safety::Safe => "Safe fix (forgelint --fix)",
        crate::diagnostic::Safety::Unsafe => {
            "Unsafe fix: it may change what the job does (forgelint --fix --unsafe-fixes)"
        }
    }
}

/// The `fixes` member: one fix, its edits as replacements of byte regions of the file.
fn write_fixes(w: &mut JsonWriter<'_>, fix: &crate::diagnostic::Fix, location: &ArtifactLocation) {
    w.key("fixes");
    w.begin_array();
    w.item();
    w.begin_object();
    w.key("description");
    write_text(w, fix_description(fix));
    w.key("artifactChanges");
    w.begin_array();
    w.item();
    w.begin_object();
    w.key("artifactLocation");
    w.begin_object();
    w.key("uri");
    w.string(&location.uri);
    if let Some(base) = location.uri_base_id {
        w.key("uriBaseId");
        w.string(base);
    }
    w.end_object();
    w.key("replacements");
    w.begin_array();
    for edit in &fix.edits {
        w.item();
        w.begin_object();
        w.key("deletedRegion");
        w.begin_object();
        w.key("byteOffset");
        w.number(edit.span.start.into());
        w.key("byteLength");
        w.number(edit.span.len() as u64);
        w.end_object();
        w.key("insertedContent");
        write_text(w, &edit.replacement);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.end_array();
    w.end_object();
    w.end_array();
}

/// `{"text": text}`.
fn write_text(w: &mut JsonWriter<'_>, text: &str) {
    w.begin_object();
    w.key("text");
    w.string(text);
    w.end_object();
}

/// The `physicalLocation` member.
fn write_physical_location(w: &mut JsonWriter<'_>, location: &ArtifactLocation, region: RegionOut) {
    w.key("physicalLocation");
    w.begin_object();
    w.key("artifactLocation");
    w.begin_object();
    w.key("uri");
    w.string(&location.uri);
    if let Some(base) = location.uri_base_id {
        w.key("uriBaseId");
        w.string(base);
    }
    w.end_object();
    w.key("region");
    w.begin_object();
    for (key, value) in REGION_KEYS.into_iter().zip(region.values()) {
        w.key(key);
        w.number(value);
    }
    w.end_object();
    w.end_object();
}

/// Is this finding also a tool execution notification? Files that could not be read or
/// parsed, and crashes.
fn is_notification(f: &Finding) -> bool {
    *f.rule == *INVALID_JSON || *f.rule == *INTERNAL_ERROR
}

/// The `invocations` value: one invocation, with the notifications.
fn write_invocations(
    buf: &mut Vec<u8>,
    level: usize,
    input: &ReportInput<'_>,
    rule_index: &RuleIndex<'_>,
) -> std::io::Result<()> {
    let mut w = JsonWriter::new(buf, level);
    w.begin_array();
    w.item();
    w.begin_object();
    w.key("executionSuccessful");
    w.boolean(!input.tool_error);
    w.key("toolExecutionNotifications");
    w.begin_array();
    // A pass for the findings of files that could not be linted, when there may be some.
    if [INVALID_JSON, INTERNAL_ERROR]
        .iter()
        .any(|rule| input.findings.may_hold(rule))
    {
        input.findings.each_batch(&mut |batch| {
            for f in batch.iter().filter(|f| is_notification(f)) {
                write_notification(&mut w, f, input, rule_index);
            }
            Ok(())
        })?;
    }
    // GitHub code scanning refuses a run of more than 25,000 results: what `--max-results`
    // left out is said, so that a partial log does not read as a whole one.
    if let Some(left) = input.summary.left_out {
        w.item();
        w.begin_object();
        w.key("level");
        w.string("warning");
        w.key("message");
        write_text(&mut w, &format!("{}.", left.text()));
        w.end_object();
    }
    // Rules that could not run for want of context: a clean log must not read as a full check.
    for skipped in &input.summary.skipped {
        w.item();
        w.begin_object();
        w.key("level");
        w.string("note");
        w.key("message");
        write_text(&mut w, &format!("{}.", skipped.text()));
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.end_array();
    Ok(())
}

/// One notification: a file that could not be linted (unreadable, unparsable, a crash).
fn write_notification(
    w: &mut JsonWriter<'_>,
    f: &Finding,
    input: &ReportInput<'_>,
    rule_index: &RuleIndex<'_>,
) {
    w.item();
    w.begin_object();
    w.key("level");
    w.string("error");
    w.key("message");
    write_text(w, &format!("{}: {}", f.path, f.message));
    w.key("locations");
    w.begin_array();
    w.item();
    w.begin_object();
    let location = located(&f.path, input);
    write_physical_location(w, &location, region_of(f.span, f.start, f.end));
    w.end_object();
    w.end_array();
    w.key("associatedRule");
    w.begin_object();
    w.key("id");
    w.string(&f.rule);
    if let Some(&index) = rule_index.get(&*f.rule) {
        w.key("index");
        w.number(index as u64);
    }
    w.end_object();
    w.end_object();
}

/// Every file with findings, with its language when its name tells it (code scanning shows
/// it; the results point into this list by location): one pass over the files alone.
fn write_artifacts<W: Write>(
    out: &mut W,
    level: usize,
    input: &ReportInput<'_>,
) -> std::io::Result<()> {
    let mut list = ArrayWriter::begin(out, level)?;
    input.findings.each_file(&mut |path, _| {
        let mut artifact = json!({ "location": located(path, input) });
        let language = crate::text::language_of(Path::new(path), "").sarif_name();
        if let Some(language) = language {
            artifact["sourceLanguage"] = json!(language);
        }
        list.element(|out, level| write_json_at(out, level, &artifact))
    })?;
    list.end()
}

/// A SARIF log as forgelint lays it out: the log's own members, then its one run, whose
/// leading members (`tool`, `originalUriBaseIds`, `columnKind`) come before its artifacts,
/// invocations and results. A run's report and `forgelint merge` both write through
/// [`write_log`], so the two layouts cannot drift apart.
pub(crate) trait SarifLog<W: Write> {
    /// The log's members before `runs`.
    fn log_head(&mut self, log: &mut ObjectWriter<'_, W>) -> std::io::Result<()>;
    /// The run's members before `artifacts`.
    fn run_head(&mut self, run: &mut ObjectWriter<'_, W>) -> std::io::Result<()>;
    fn artifacts(&mut self, out: &mut W, level: usize) -> std::io::Result<()>;
    fn invocations(&mut self, out: &mut W, level: usize) -> std::io::Result<()>;
    fn results(&mut self, out: &mut W, level: usize) -> std::io::Result<()>;
}

/// Writes `log`'s sections in the layout of every SARIF log forgelint writes, then a newline.
pub(crate) fn write_log<W: Write>(out: &mut W, log: &mut dyn SarifLog<W>) -> std::io::Result<()> {
    let mut top = ObjectWriter::begin(out, 0)?;
    log.log_head(&mut top)?;
    top.field("runs", |out, level| {
        let mut runs = ArrayWriter::begin(out, level)?;
        runs.element(|out, level| {
            let mut run = ObjectWriter::begin(out, level)?;
            log.run_head(&mut run)?;
            run.field("artifacts", |out, level| log.artifacts(out, level))?;
            run.field("invocations", |out, level| log.invocations(out, level))?;
            run.field("results", |out, level| log.results(out, level))?;
            run.end()
        })?;
        runs.end()
    })?;
    top.end()?;
    writeln!(out)
}

/// The log of a run's findings.
struct RunLog<'a, 'i> {
    input: &'a ReportInput<'i>,
    /// The driver's rules, each as its descriptor.
    rules: Vec<Value>,
    /// The first rule with each id, as a linear search would find it.
    rule_index: RuleIndex<'a>,
}

impl<W: Write> SarifLog<W> for RunLog<'_, '_> {
    fn log_head(&mut self, log: &mut ObjectWriter<'_, W>) -> std::io::Result<()> {
        log.value("$schema", SCHEMA_URI)?;
        log.value("version", "2.1.0")
    }

    fn run_head(&mut self, run: &mut ObjectWriter<'_, W>) -> std::io::Result<()> {
        run.value(
            "tool",
            &json!({
                "driver": {
                    "name": "forgelint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": std::mem::take(&mut self.rules),
                }
            }),
        )?;
        let root = format!("{}/", file_uri(self.input.root).trim_end_matches('/'));
        run.value(
            "originalUriBaseIds",
            &json!({ "%SRCROOT%": { "uri": root } }),
        )?;
        run.value("columnKind", "utf16CodeUnits")
    }

    fn artifacts(&mut self, out: &mut W, level: usize) -> std::io::Result<()> {
        write_artifacts(out, level, self.input)
    }

    fn invocations(&mut self, out: &mut W, level: usize) -> std::io::Result<()> {
        let mut buf = Vec::new();
        write_invocations(&mut buf, level, self.input, &self.rule_index)?;
        out.write_all(&buf)
    }

    // The results are the bulk of the log: rendered on the worker threads.
    fn results(&mut self, out: &mut W, level: usize) -> std::io::Result<()> {
        let (input, rule_index) = (self.input, &self.rule_index);
        write_findings_array(
            out,
            level,
            input.findings,
            input.threads,
            |state, buf, batch, i, level| {
                write_result(buf, level, input, batch, i, rule_index, state)
            },
        )
    }
}

pub fn write(out: &mut dyn Write, input: &ReportInput<'_>) -> std::io::Result<()> {
    let mut rule_index = RuleIndex::default();
    for (i, r) in input.rules.iter().enumerate() {
        rule_index.entry(r.id.as_str()).or_insert(i);
    }
    let mut log = RunLog {
        input,
        rules: input.rules.iter().map(|r| rule_descriptor(r)).collect(),
        rule_index,
    };
    // serde_json writes a token at a time: a concrete buffer in front of the `dyn` writer keeps
    // those small writes out of virtual calls.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    write_log(&mut out, &mut log)?;
    out.flush()
}

#[cfg(test)]
mod tests;
