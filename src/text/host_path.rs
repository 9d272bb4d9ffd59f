//! `host-path`: string values that are paths on the user's machine or cluster — under one of the
//! data mounts of `[experiments] host-path-roots` — which a job on the platform cannot read.
//!
//! What makes a value a host path is decided here, per language, from the scanners' regions:
//!
//! - the value is where a path starts: a Python literal appended to something else
//!   (`API_BASE + "/data/v1"`, or the second of two adjacent literals) and the second piece of a
//!   shell word (`"$BASE"/data`) are not;
//! - shell reads `$HOME/…` and `${HOME}/…` as `~/…`, splits `key=value` words whatever their
//!   key (`data.train_files=…`), and reads the default of `${VAR:-default}`;
//! - a `file:` URI is a host path only when its path is absolute (`file:///data/x`), and is then
//!   judged as that path (`file://verl/config` is relative, `file:db?mode=ro` is SQLite's);
//! - YAML reads the default of an OmegaConf `${oc.select:key,default}` or `${oc.env:VAR,default}`,
//!   and the block scalars of the keys it is told hold shell scripts (`run: |`) as shell;
//! - a notebook's code cells are Python ([`super::notebook`]);
//! - a literal that goes on with words after its path is prose, not a path.
//!
//! What the rule file says ([`HostPathCheck`]): paths that are never data (a tool's cache, a
//! sandbox's home), the calls and names that send a path to another machine, the YAML keys of
//! shell scripts, and the kinds of path (data, model, checkpoint, output) told by the name the
//! value is given and by the path itself, each with what to use instead.

use std::borrow::Cow;
use std::ops::Range;

use globset::GlobSet;
use regex::{Regex, RegexSet};

use super::{kind_at, notebook, scan, Language, Region, RegionKind};

/// The check as its rule file configures it.
#[derive(Debug, Default)]
pub struct HostPathCheck {
    /// Paths that are never data: a tool's own state (`~/.cache`), another machine's home.
    pub ignore: Option<GlobSet>,
    /// A literal passed to a call whose callee matches (`sandbox.write_text`) is a path on
    /// another machine.
    pub remote_calls: Option<RegexSet>,
    /// A value given a name that matches (`sandbox_home=`) is a path on another machine.
    pub remote_names: Option<RegexSet>,
    /// A literal that goes on with at least this many words after its path is prose; 0: none is.
    pub prose_words: usize,
    /// YAML keys whose block scalar is a shell script (`run: |`).
    pub shell_keys: Vec<String>,
    /// The kinds of path, in order: the first whose `name` matches the value's name, else the
    /// first whose `path` matches the path, else the first with neither.
    pub kinds: Vec<PathKind>,
}

/// A kind of path (a model, a checkpoint, …) and what to use instead of it.
#[derive(Debug)]
pub struct PathKind {
    /// As the message says it: "a model".
    pub kind: String,
    /// Matched against the names the value is given (its key, keyword, option or variable).
    pub name: Option<Regex>,
    /// Matched against the path.
    pub path: Option<Regex>,
    /// What to use instead.
    pub instead: String,
}

/// A host path found in a file.
#[derive(Debug)]
pub struct Found<'c> {
    /// In the file: the literal with its quotes, or the value alone after `key=`.
    pub span: Range<usize>,
    /// The value as written (decoded, in a notebook).
    pub value: String,
    /// The root it lies under.
    pub root: &'c str,
    pub kind: Option<&'c PathKind>,
}

/// The host paths of `text`, a file in `language` whose regions are `regions`, under `roots`.
pub fn find<'c>(
    check: &'c HostPathCheck,
    roots: &'c [String],
    language: Language,
    text: &str,
    regions: &[Region],
    out: &mut dyn FnMut(Found<'c>),
) {
    let mut finder = Finder { check, roots, out };
    match language {
        Language::Python => finder.python(text, regions, &|r| r),
        Language::Shell => finder.shell(text, regions, 0),
        Language::Yaml => finder.yaml(text, regions),
        Language::Toml | Language::Json => finder.keyed(text, regions),
        Language::Notebook => {
            if let Some(cells) = notebook::code_cells(text) {
                let code_regions = notebook::python_regions(&cells.code);
                finder.python(&cells.code, &code_regions, &|r| cells.file_range(r));
            }
        }
        Language::Other => {}
    }
}

/// The names a value is given, for the kind of path and the remote test.
#[derive(Debug, Default)]
struct Context {
    /// Its key, keyword, option, variable or assignment target (several, space-separated).
    name: String,
    /// The call it is an argument of (`sandbox.write_text`), in Python.
    call: String,
}

/// Bytes a context looks back over at most: a value's name is near it.
const LOOK_BACK: usize = 512;

/// The offset `back` bytes before `at` (or 0), on a character boundary.
fn back_from(text: &str, at: usize, back: usize) -> usize {
    let mut from = at.saturating_sub(back);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    from
}

/// The start of the line holding `at`, looked for at most [`LOOK_BACK`] bytes back.
fn line_start_near(text: &str, at: usize) -> usize {
    let floor = back_from(text, at, LOOK_BACK);
    text[floor..at].rfind('\n').map_or(floor, |p| floor + p + 1)
}

struct Finder<'c, 'o> {
    check: &'c HostPathCheck,
    roots: &'c [String],
    out: &'o mut dyn FnMut(Found<'c>),
}

impl<'c> Finder<'c, '_> {
    /// Reports `value`, at `span` in the file, if it is a host path that is data; `context`
    /// is asked only then. `home_vars`: `$HOME` is the home folder (shell).
    fn judge(
        &mut self,
        value: &str,
        span: Range<usize>,
        home_vars: bool,
        context: &mut dyn FnMut() -> Context,
    ) {
        let Some((path, root)) = self.locate(value, home_vars) else {
            return;
        };
        let check = self.check;
        if check
            .ignore
            .as_ref()
            .is_some_and(|g| g.is_match(path.as_ref()))
        {
            return;
        }
        if check.prose_words > 0 && value.split_whitespace().skip(1).count() >= check.prose_words {
            return;
        }
        let context = context();
        let remote = |set: &Option<RegexSet>, text: &str| {
            !text.is_empty() && set.as_ref().is_some_and(|s| s.is_match(text))
        };
        if remote(&check.remote_calls, &context.call) || remote(&check.remote_names, &context.name)
        {
            return;
        }
        let kind = self.classify(&context, &path);
        (self.out)(Found {
            span,
            value: value.to_string(),
            root,
            kind,
        });
    }

    /// The path `value` names and the root it lies under, if it is a host path.
    fn locate<'v>(&self, value: &'v str, home_vars: bool) -> Option<(Cow<'v, str>, &'c str)> {
        let mut path = Cow::Borrowed(value);
        if home_vars {
            if let Some(rest) = ["${HOME}", "$HOME"]
                .iter()
                .find_map(|var| value.strip_prefix(var))
            {
                if rest.is_empty() || rest.starts_with('/') {
                    path = Cow::Owned(format!("~{rest}"));
                }
            }
        }
        for scheme in self.roots.iter().filter(|r| r.ends_with(':')) {
            let Some(head) = path.get(..scheme.len()) else {
                continue;
            };
            if !head.eq_ignore_ascii_case(scheme) {
                continue;
            }
            if !scheme.eq_ignore_ascii_case("file:") {
                return Some((path, scheme.as_str()));
            }
            let absolute = file_uri_path(&path[scheme.len()..])?.to_string();
            let root = self.root_of(&absolute)?;
            return Some((Cow::Owned(absolute), root));
        }
        let root = self.root_of(&path)?;
        Some((path, root))
    }

    /// The folder root `path` lies under: the root itself or below it (`/mnt`, `/mnt/x`, not
    /// `/mnt2`); below a home root only (`~/x`: the home folder alone is no data).
    fn root_of(&self, path: &str) -> Option<&'c str> {
        self.roots
            .iter()
            .filter(|r| !r.ends_with(':'))
            .find(|root| match path.strip_prefix(root.as_str()) {
                Some("") => !root.starts_with('~'),
                Some(rest) => rest.starts_with('/') && !(root.starts_with('~') && rest.len() == 1),
                None => false,
            })
            .map(String::as_str)
    }

    fn classify(&self, context: &Context, path: &str) -> Option<&'c PathKind> {
        let kinds = &self.check.kinds;
        let names = format!("{} {}", context.name, context.call);
        kinds
            .iter()
            .find(|k| k.name.as_ref().is_some_and(|r| r.is_match(&names)))
            .or_else(|| {
                kinds
                    .iter()
                    .find(|k| k.path.as_ref().is_some_and(|r| r.is_match(path)))
            })
            .or_else(|| kinds.iter().find(|k| k.name.is_none() && k.path.is_none()))
    }

    /// Python's string literals (`code` is the file's text, or a notebook's cells with `map`
    /// taking its spans to the file).
    fn python(
        &mut self,
        code: &str,
        regions: &[Region],
        map: &dyn Fn(Range<usize>) -> Range<usize>,
    ) {
        let mut statements: Option<Vec<Statement>> = None;
        for (index, region) in regions.iter().enumerate() {
            if region.kind != RegionKind::String {
                continue;
            }
            let value = &code[region.content.clone()];
            if self.locate(value, false).is_none() || continues_python(code, regions, index) {
                continue;
            }
            self.judge(value, map(region.span.clone()), false, &mut || {
                let statements = statements.get_or_insert_with(|| python_statements(code, regions));
                python_context(code, regions, index, statements)
            });
        }
    }

    /// Shell words; `text` starts at `base` in the file (a YAML block holding a script).
    fn shell(&mut self, text: &str, regions: &[Region], base: usize) {
        let bytes = text.as_bytes();
        for region in regions.iter().filter(|r| r.kind == RegionKind::String) {
            let start = region.span.start;
            // The second piece of a word does not start a path.
            if start > 0 && !is_shell_break(bytes[start - 1]) {
                continue;
            }
            let key_part = &text[start..region.content.start];
            let key = key_part
                .split_once('=')
                .map(|(k, _)| k.trim_start_matches(['+', '~']));
            let value = &text[region.content.clone()];
            let shift = |r: Range<usize>| r.start + base..r.end + base;
            if let Some((name, default)) = parameter_default(value) {
                let at = region.content.start + default.start;
                let default_text = &value[default.clone()];
                let span = shift(at..at + default_text.len());
                let name = key.unwrap_or(name).to_string();
                self.judge(default_text, span, true, &mut || Context {
                    name: name.clone(),
                    call: String::new(),
                });
                continue;
            }
            let span = if key.is_some() {
                shift(region.content.clone())
            } else {
                shift(region.span.clone())
            };
            self.judge(value, span, true, &mut || Context {
                name: key.map_or_else(|| option_before(text, start), str::to_string),
                call: String::new(),
            });
        }
    }

    fn yaml(&mut self, text: &str, regions: &[Region]) {
        let mut keys: Option<YamlKeys<'_>> = None;
        for region in regions.iter().filter(|r| r.kind == RegionKind::String) {
            if let Some(key) = block_scalar_key(text, region.content.start) {
                if self.check.shell_keys.iter().any(|k| k == key) {
                    let script = &text[region.content.clone()];
                    let script_regions = scan(Language::Shell, script);
                    self.shell(script, &script_regions, region.content.start);
                }
                continue;
            }
            let value = &text[region.content.clone()];
            let at = region.content.start;
            let mut context = || Context {
                name: keys.get_or_insert_with(|| YamlKeys::new(text)).path(at),
                call: String::new(),
            };
            if value.contains("${oc.") {
                for default in omegaconf_defaults(value) {
                    let span = at + default.start..at + default.end;
                    self.judge(&value[default], span, false, &mut context);
                }
                continue;
            }
            self.judge(value, region.span.clone(), false, &mut context);
        }
    }

    /// TOML and JSON string values, named by the key before them on their line.
    fn keyed(&mut self, text: &str, regions: &[Region]) {
        for region in regions.iter().filter(|r| r.kind == RegionKind::String) {
            let value = &text[region.content.clone()];
            let start = region.span.start;
            self.judge(value, region.span.clone(), false, &mut || Context {
                name: key_on_line(text, start),
                call: String::new(),
            });
        }
    }
}

/// The absolute path of a `file:` URI (after the scheme), or `None` when it has none: a
/// relative one (`file://verl/config`, as Hydra reads it; `file:db?mode=ro`, SQLite's), a
/// remote host's, or none at all (`file://`).
fn file_uri_path(rest: &str) -> Option<&str> {
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    if let Some(after) = rest.strip_prefix("//") {
        if after.starts_with('/') {
            return Some(after);
        }
        return after
            .strip_prefix("localhost")
            .filter(|p| p.starts_with('/'));
    }
    rest.starts_with('/').then_some(rest)
}

/// Bytes that end an unquoted shell word.
fn is_shell_break(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\r' | b'\n' | b'|' | b'&' | b';' | b'(' | b')' | b'<' | b'>'
    )
}

/// `${NAME:-word}` (or `-`, `:=`, `=`): the name, and the range of the word in `value` (its
/// quotes left out), when `value` is such an expansion and nothing else.
fn parameter_default(value: &str) -> Option<(&str, Range<usize>)> {
    let inner = value.strip_prefix("${")?;
    let name_len = inner
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let rest = &inner[name_len..];
    let op = [":-", ":=", "-", "="]
        .into_iter()
        .find(|op| rest.starts_with(op))?;
    if name_len == 0 {
        return None;
    }
    let word_start = 2 + name_len + op.len();
    // The matching brace: nested `${…}` counted, quotes skipped.
    let bytes = value.as_bytes();
    let (mut depth, mut i, mut quote) = (1usize, word_start, None::<u8>);
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), b'\\') => i += 1,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(bytes[i]),
            (None, b'\\') => i += 1,
            (None, b'{') if i > 0 && bytes[i - 1] == b'$' => depth += 1,
            (None, b'}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 || i + 1 != bytes.len() {
        return None;
    }
    let mut word = word_start..i;
    let w = &value[word.clone()];
    if w.len() >= 2
        && (w.starts_with('"') && w.ends_with('"') || w.starts_with('\'') && w.ends_with('\''))
    {
        word = word.start + 1..word.end - 1;
    }
    Some((&value[2..2 + name_len], word))
}

/// The option word before the word at `start` on its line (`--data` of `--data /x`), else "".
fn option_before(text: &str, start: usize) -> String {
    let bytes = text.as_bytes();
    let mut end = start;
    loop {
        while end > 0 && matches!(bytes[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        // A line continuation: the option may end the line before.
        if end >= 2 && bytes[end - 1] == b'\n' && bytes[end - 2] == b'\\' {
            end -= 2;
            continue;
        }
        break;
    }
    let floor = back_from(text, end, LOOK_BACK);
    let word_start = text[floor..end]
        .rfind(|c: char| c.is_ascii_whitespace())
        .map_or(floor, |at| floor + at + 1);
    let word = &text[word_start..end];
    if word.starts_with('-') {
        word.to_string()
    } else {
        String::new()
    }
}

/// The key of the YAML block scalar whose body starts at `body` (`run` of `run: |`), or ""
/// for a block that is a sequence item; `None` when no block scalar starts there.
fn block_scalar_key(text: &str, body: usize) -> Option<&str> {
    if body == 0 || text.as_bytes().get(body - 1) != Some(&b'\n') {
        return None;
    }
    let header_start = text[..body - 1].rfind('\n').map_or(0, |at| at + 1);
    let mut header = text[header_start..body - 1].trim_end_matches('\r');
    if let Some(at) = header.find(" #") {
        header = &header[..at];
    }
    let header = header.trim_end();
    let without = header.trim_end_matches(|c: char| matches!(c, '-' | '+' | '0'..='9'));
    let indicator = without.strip_suffix(['|', '>'])?.trim_end();
    let item = indicator.trim_start().trim_start_matches("- ").trim_start();
    if item.is_empty() || item == "-" {
        return Some("");
    }
    let key = item.strip_suffix(':')?.trim();
    Some(key.trim_matches(['"', '\'']))
}

/// The defaults of OmegaConf's `${oc.select:key,default}` and `${oc.env:VAR,default}` in a
/// YAML value: their ranges in `value`, quotes left out.
fn omegaconf_defaults(value: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let bytes = value.as_bytes();
    let mut from = 0;
    while let Some(found) = value[from..].find("${oc.") {
        let open = from + found;
        from = open + 2;
        let Some(colon) = value[open..].find(':').map(|c| open + c) else {
            break;
        };
        let resolver = &value[open + 2..colon];
        if resolver != "oc.select" && resolver != "oc.env" {
            continue;
        }
        // The first comma at this level starts the default; the closing brace ends it.
        let (mut depth, mut i, mut quote, mut comma) = (0usize, colon + 1, None::<u8>, None);
        while i < bytes.len() {
            let b = bytes[i];
            match (quote, b) {
                (Some(q), _) if b == q => quote = None,
                (Some(_), b'\\') => i += 1,
                (Some(_), _) => {}
                (None, b'\'' | b'"') => quote = Some(b),
                (None, b'{') => depth += 1,
                (None, b'}') if depth == 0 => break,
                (None, b'}') => depth -= 1,
                (None, b',') if depth == 0 && comma.is_none() => comma = Some(i),
                _ => {}
            }
            i += 1;
        }
        let Some(comma) = comma else {
            continue;
        };
        let raw = &value[comma + 1..i.min(value.len())];
        let lead = raw.len() - raw.trim_start().len();
        let mut range = comma + 1 + lead..comma + 1 + raw.trim_end().len();
        let text = &value[range.clone()];
        if text.len() >= 2
            && (text.starts_with('"') && text.ends_with('"')
                || text.starts_with('\'') && text.ends_with('\''))
        {
            range = range.start + 1..range.end - 1;
        }
        out.push(range);
        from = i;
    }
    out
}

/// The keys of a YAML file's lines, found by indentation in one pass: for each line that is
/// not blank or a comment, its start, its key (if it starts one) and the line of its parent.
struct YamlKeys<'t> {
    lines: Vec<(usize, Option<&'t str>, Option<usize>)>,
}

/// Keys a YAML key path names at most, nearest first: enough to tell a path's kind.
const YAML_KEY_DEPTH: usize = 8;

impl<'t> YamlKeys<'t> {
    fn new(text: &'t str) -> YamlKeys<'t> {
        let mut lines = Vec::new();
        // The open keys: their indentation and line.
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let at = start;
            start += line.len();
            let body = line.trim_start();
            if body.is_empty() || body.starts_with('#') {
                continue;
            }
            let (key, indent) = yaml_line_key(line);
            // A sequence item's parent may sit at its own indentation.
            let item = key.is_none();
            while open
                .last()
                .is_some_and(|&(i, _)| i > indent || (i == indent && !item))
            {
                open.pop();
            }
            lines.push((at, key, open.last().map(|&(_, l)| l)));
            if key.is_some() {
                open.push((indent, lines.len() - 1));
            }
        }
        YamlKeys { lines }
    }

    /// The dotted key path of the value at `at`.
    fn path(&self, at: usize) -> String {
        let mut line = self.lines.partition_point(|l| l.0 <= at).checked_sub(1);
        let mut keys = Vec::new();
        while let Some(l) = line {
            if keys.len() >= YAML_KEY_DEPTH {
                break;
            }
            let (_, key, parent) = self.lines[l];
            if let Some(key) = key {
                keys.push(key);
            }
            line = parent;
        }
        keys.reverse();
        keys.join(".")
    }
}

/// The key a YAML line starts (`  - name: x` gives `name`) and the column where it starts.
fn yaml_line_key(line: &str) -> (Option<&str>, usize) {
    let mut body = line.trim_start_matches(' ');
    let mut indent = line.len() - body.len();
    while let Some(rest) = body.strip_prefix("- ") {
        let trimmed = rest.trim_start_matches(' ');
        indent += body.len() - trimmed.len();
        body = trimmed;
    }
    let key = body
        .find(": ")
        .or_else(|| body.trim_end().strip_suffix(':').map(str::len));
    let key = key
        .map(|at| body[..at].trim().trim_matches(['"', '\'']))
        .filter(|k| !k.is_empty() && !k.starts_with('-'));
    (key, indent)
}

/// The key before the value at `start` on its line (TOML `key = `, JSON `"key": `).
fn key_on_line(text: &str, start: usize) -> String {
    let line_start = line_start_near(text, start);
    let head = text[line_start..start].trim_end();
    let Some(head) = head.strip_suffix(['=', ':']) else {
        return String::new();
    };
    let head = head.trim_end();
    let head = head.strip_suffix(['"', '\'']).unwrap_or(head);
    let key_start = head
        .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map_or(0, |at| at + 1);
    head[key_start..].to_string()
}

/// A Python literal that continues another value: the right operand of `+` (or `+=`), or the
/// second of two adjacent literals (implicit concatenation).
fn continues_python(code: &str, regions: &[Region], index: usize) -> bool {
    let bytes = code.as_bytes();
    let mut i = regions[index].span.start;
    while i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b'\\') {
        i -= 1;
    }
    match i.checked_sub(1).map(|at| bytes[at]) {
        Some(b'+') => true,
        Some(b'=') => i >= 2 && bytes[i - 2] == b'+',
        Some(b'\'' | b'"') => kind_at(regions, i - 1) == RegionKind::String,
        _ => false,
    }
}

/// Where a Python string literal sits: the start of its statement, and the innermost bracket
/// open around it.
#[derive(Debug, Clone, Copy)]
struct Statement {
    start: usize,
    opener: Option<usize>,
}

/// [`Statement`] of every region (one pass over the code).
fn python_statements(code: &str, regions: &[Region]) -> Vec<Statement> {
    let bytes = code.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let mut start = 0;
    let mut out = Vec::with_capacity(regions.len());
    for region in regions {
        if region.kind == RegionKind::Code {
            for i in region.span.clone() {
                match bytes[i] {
                    b'(' | b'[' | b'{' => open.push(i),
                    b')' | b']' | b'}' => {
                        open.pop();
                    }
                    b'\n' if open.is_empty() && !continued(bytes, i) => start = i + 1,
                    b';' if open.is_empty() => start = i + 1,
                    _ => {}
                }
            }
        }
        out.push(Statement {
            start,
            opener: open.last().copied(),
        });
    }
    out
}

/// Whether the line break at `i` follows a backslash (a continued line).
fn continued(bytes: &[u8], i: usize) -> bool {
    let before = if i > 0 && bytes[i - 1] == b'\r' {
        i - 1
    } else {
        i
    };
    before > 0 && bytes[before - 1] == b'\\'
}

/// The names a Python literal is given: the keyword or dictionary key it is the value of,
/// the first argument of the call it is in when that is a name (`add_argument("--out", …)`,
/// `environ.get("DATA", …)`), and the target of its statement; and that call's callee.
fn python_context(
    code: &str,
    regions: &[Region],
    index: usize,
    statements: &[Statement],
) -> Context {
    let Statement { start, opener } = statements[index];
    let literal = regions[index].span.start;
    let bytes = code.as_bytes();
    let mut names: Vec<String> = Vec::new();
    // The element the literal ends: from the last comma at its level (or the bracket).
    let floor = opener
        .map_or(start, |o| o + 1)
        .max(literal.saturating_sub(LOOK_BACK));
    let mut element_start = floor;
    let mut key_literal: Option<&str> = None;
    let mut depth = 0usize;
    'back: for region in regions[..index].iter().rev() {
        if region.span.end <= floor {
            break;
        }
        match region.kind {
            RegionKind::String => {
                if depth == 0 && key_literal.is_none() {
                    key_literal = Some(&code[region.content.clone()]);
                }
            }
            RegionKind::Comment => {}
            RegionKind::Code => {
                let from = region.span.start.max(floor);
                for i in (from..region.span.end.min(literal)).rev() {
                    match bytes[i] {
                        b')' | b']' | b'}' => depth += 1,
                        b'(' | b'[' | b'{' => depth = depth.saturating_sub(1),
                        b',' if depth == 0 => {
                            element_start = i + 1;
                            break 'back;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let element = code[element_start..literal].trim();
    if let Some(head) = element.strip_suffix(':') {
        // A dictionary's value: its key.
        if head.trim_end().ends_with(['"', '\'']) {
            if let Some(key) = key_literal {
                names.push(key.to_string());
            }
        }
    } else if let Some(name) = assigned_name(element) {
        names.push(name.to_string());
    }
    let mut call = String::new();
    if let Some(o) = opener.filter(|&o| bytes[o] == b'(') {
        call = name_before(code, o).to_string();
        // The call's first argument, when it is a literal before this one.
        let after = regions.partition_point(|r| r.span.start <= o);
        if let Some(first) = regions[after.min(index)..index]
            .iter()
            .take(2)
            .find(|r| r.kind == RegionKind::String)
        {
            let between = &code[o + 1..first.span.start];
            if first.kind == RegionKind::String && between.trim().is_empty() {
                let arg = &code[first.content.clone()];
                if arg.len() <= 64 && !arg.contains(char::is_whitespace) {
                    names.push(arg.trim_start_matches('-').to_string());
                }
            }
        }
    }
    let mut head_end = opener
        .unwrap_or(literal)
        .min(literal)
        .min(start + LOOK_BACK);
    while !code.is_char_boundary(head_end) {
        head_end -= 1;
    }
    if let Some(target) = code.get(start..head_end).and_then(statement_target) {
        names.push(target.to_string());
    }
    Context {
        name: names.join(" "),
        call,
    }
}

/// `name =` or `name: T =` (a keyword, a parameter, an assignment) ending `element`: the name.
fn assigned_name(element: &str) -> Option<&str> {
    let head = element.strip_suffix('=')?;
    if head.ends_with([
        '=', '!', '<', '>', ':', '+', '-', '*', '/', '%', '&', '|', '^',
    ]) {
        return None;
    }
    let head = match head.find(':') {
        Some(at) => &head[..at],
        None => head,
    };
    let name = head.trim();
    let start = name
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |at| at + 1);
    Some(&name[start..]).filter(|n| !n.is_empty())
}

/// The target of an assignment statement (`self.out = `, `OUT: str = `) heading `head`.
fn statement_target(head: &str) -> Option<&str> {
    let head = head.trim_start();
    let len = head
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(head.len());
    let (name, rest) = head.split_at(len);
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix(':') {
        Some(annotated) => &annotated[annotated.find('=')?..],
        None => rest,
    };
    let assigned = rest.starts_with('=') && !rest.starts_with("==");
    (assigned && !name.is_empty()).then_some(name)
}

/// The dotted name just before the bracket at `at` (`sandbox.write_text` of `sandbox.write_text(`).
fn name_before(code: &str, at: usize) -> &str {
    let head = code[back_from(code, at, LOOK_BACK)..at].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |p| p + 1);
    &head[start..]
}

#[cfg(test)]
mod tests;
