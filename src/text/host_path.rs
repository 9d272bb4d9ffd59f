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

pub use lazy::{Lazy, Syntax};

use super::{notebook, scan, Language, Region, RegionKind};

/// The check as its rule file configures it.
#[derive(Debug, Default)]
pub struct HostPathCheck {
    /// Paths that are never data: a tool's own state (`~/.cache`), another machine's home.
    pub ignore: Option<Lazy<GlobSet>>,
    /// A literal passed to a call whose callee matches (`sandbox.write_text`) is a path on
    /// another machine.
    pub remote_calls: Option<Lazy<RegexSet>>,
    /// A value given a name that matches (`sandbox_home=`) is a path on another machine.
    pub remote_names: Option<Lazy<RegexSet>>,
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
    pub name: Option<Lazy<Regex>>,
    /// Matched against the path.
    pub path: Option<Lazy<Regex>>,
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
    let mut finder = Finder {
        check,
        roots,
        starts: root_starts(roots),
        out,
    };
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

/// The first bytes of `roots`, a scheme's (`file:`) in both ASCII cases.
fn root_starts(roots: &[String]) -> [bool; 256] {
    let mut starts = [false; 256];
    for first in roots.iter().filter_map(|r| r.bytes().next()) {
        starts[usize::from(first.to_ascii_lowercase())] = true;
        starts[usize::from(first.to_ascii_uppercase())] = true;
    }
    starts
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
    /// The bytes a host path may start with: most literals a file holds start with none.
    starts: [bool; 256],
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
        let remote = |set: &Option<Lazy<RegexSet>>, text: &str| {
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
        let first = *value.as_bytes().first()?;
        let may_start = self.starts[usize::from(first)] || (home_vars && first == b'$');
        if !may_start {
            return None;
        }
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

mod keys;
mod lazy;
mod options;
mod python;

pub use options::{compile, option_schema};

use keys::{block_scalar_key, key_on_line, omegaconf_defaults, YamlKeys};
use python::{continues_python, python_context, python_statements, Statement};

#[cfg(test)]
mod tests;
