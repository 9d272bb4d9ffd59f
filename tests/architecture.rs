//! The shape of `src/`, held by tests so that a change that breaks it fails CI:
//!
//! - no import cycle between the top-level modules (a `crate::x` path anywhere in a module's
//!   files, doc links included, before its `#[cfg(test)]` part and outside its `tests.rs`
//!   files, is an edge to `x`);
//! - `diagnostic` is a leaf: it names nothing else of the crate;
//! - the command line's types (`crate::cli`) are read only where arguments become options;
//! - functions stay short: at most [`MAX_LONG`] over [`LONG`] lines, none over [`TOO_LONG`].
//!
//! A failure names the cycle and the lines that make each of its edges.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One `crate::x` mention: the file and line it is on, and the text.
#[derive(Debug, Clone)]
struct Mention {
    file: String,
    line: usize,
    text: String,
}

/// Per top-level module (a file `src/x.rs` or a folder `src/x/`), the modules its files name,
/// each with where it names them. `main` and `lib` are the crate's roots, not modules.
type Graph = BTreeMap<String, BTreeMap<String, Vec<Mention>>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap();
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

/// The names after each `crate::` in `text` (one `use crate::{a, b::c}` names `a` and `b`),
/// each with the byte offset of its `crate::`.
fn named_modules(text: &str) -> Vec<(usize, String)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.push((at, ident(group[start..i].trim())));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push((at, ident(group[start..i].trim())));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.push((at, ident(rest)));
        }
    }
    names.retain(|(_, n)| !n.is_empty() && n != "self");
    names
}

fn graph() -> Graph {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut graph = Graph::new();
    for path in files {
        let relative = path.strip_prefix(&root).unwrap();
        let module = module_of(relative);
        if module == "main" || module == "lib" {
            continue;
        }
        // A file's tests may reach anywhere: the module proper ends at its `#[cfg(test)]`, and
        // a `tests.rs` (declared `#[cfg(test)] mod tests;` beside it) is tests throughout.
        if path.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let proper = text.split("#[cfg(test)]").next().unwrap_or_default();
        let edges = graph.entry(module.clone()).or_default();
        for (at, named) in named_modules(proper) {
            if named == module {
                continue;
            }
            let line_start = proper[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = proper[at..].find('\n').map_or(proper.len(), |i| at + i);
            edges.entry(named).or_default().push(Mention {
                file: relative.display().to_string(),
                line: proper[..at].matches('\n').count() + 1,
                text: proper[line_start..line_end].trim().to_string(),
            });
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let next = s.index.len();
        s.index.insert(v, next);
        s.low.insert(v, next);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph[v].keys().filter(|w| graph.contains_key(w.as_str())) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

/// The edges inside `component`, each with the first line that makes it.
fn describe(graph: &Graph, component: &[String]) -> String {
    let mut out = format!("import cycle between {}:\n", component.join(", "));
    for from in component {
        for (to, mentions) in &graph[from] {
            if component.contains(to) {
                let m = &mentions[0];
                out.push_str(&format!(
                    "  {from} -> {to}: src/{}:{}: {}\n",
                    m.file, m.line, m.text
                ));
            }
        }
    }
    out
}

#[test]
fn the_modules_import_no_cycle() {
    let graph = graph();
    assert!(graph.len() > 10, "the modules of src/ were not found");
    let found = cycles(&graph);
    let report: Vec<String> = found.iter().map(|c| describe(&graph, c)).collect();
    assert!(found.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_diagnostics_are_a_leaf() {
    let graph = graph();
    let edges = &graph["diagnostic"];
    let named: Vec<String> = edges
        .iter()
        .map(|(to, m)| format!("{to} (src/{}:{})", m[0].file, m[0].line))
        .collect();
    assert!(edges.is_empty(), "diagnostic names {}", named.join(", "));
}

/// Arguments are resolved into the core's own options where they are read: `main` parses them,
/// `lib` dispatches, `commands` and the check plan resolve them. Nothing else names `cli`.
#[test]
fn only_the_entry_points_read_the_command_line() {
    let allowed = ["main", "lib", "commands", "cli"];
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut readers = Vec::new();
    for path in files {
        let relative = path.strip_prefix(src()).unwrap();
        let module = module_of(relative);
        if allowed.contains(&module.as_str()) || relative == Path::new("check/plan.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, named) in named_modules(&text) {
            if named == "cli" {
                let line = text[..at].matches('\n').count() + 1;
                readers.push(format!("src/{}:{line}", relative.display()));
            }
        }
    }
    assert!(
        readers.is_empty(),
        "crate::cli named in {}",
        readers.join(", ")
    );
}

/// The test's own parser finds a cycle when there is one, and names its edges.
#[test]
fn a_cycle_is_found_and_named() {
    let mut graph = Graph::new();
    let mention = |text: &str| Mention {
        file: "x.rs".into(),
        line: 1,
        text: text.into(),
    };
    for (from, line) in [
        ("a", "use crate::{\n    b::B,\n    c,\n};"),
        ("b", "use crate::c::C;"),
        ("c", "/// see [`crate::a`]"),
        ("d", "use crate::a;"),
    ] {
        let edges = graph.entry(from.to_string()).or_default();
        for (_, to) in named_modules(line) {
            edges.entry(to).or_default().push(mention(line));
        }
    }
    assert_eq!(
        cycles(&graph),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
    let text = describe(&graph, &cycles(&graph)[0]);
    assert!(
        text.contains("c -> a: src/x.rs:1: /// see [`crate::a`]"),
        "{text}"
    );
}

/// A function longer than this many lines (from `fn` to its closing brace) is long.
const LONG: usize = 100;
/// At most this many functions may be long: the JSON parser's hot loop (`value_on`) is one,
/// kept whole as the parser's one dispatch on the next byte.
const MAX_LONG: usize = 2;
/// No function is longer than this.
const TOO_LONG: usize = 150;

/// `source` with comments, string and character literals blanked out (newlines kept), so
/// that braces in them do not count.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, text: &str| {
        out.extend(text.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        let ident_before = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            let mut depth = 0;
            let mut j = 0;
            loop {
                if j >= rest.len() {
                    break j;
                }
                if rest[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break j;
                    }
                } else {
                    j += rest[j..].chars().next().map_or(1, char::len_utf8);
                }
            }
        } else if let Some(len) = raw_string_len(rest).filter(|_| !ident_before) {
            len
        } else if rest.starts_with('"') || (rest.starts_with("b\"") && !ident_before) {
            let start = usize::from(rest.starts_with('b')) + 1;
            let mut j = start;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(rest.len())
        } else if let Some(len) = char_literal_len(rest) {
            len
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        blank(&mut out, &rest[..end]);
        i += end;
    }
    out
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at the start of `text`.
fn raw_string_len(text: &str) -> Option<usize> {
    let after_b = text.strip_prefix('b').unwrap_or(text);
    let after_r = after_b.strip_prefix('r')?;
    let hashes = after_r.len() - after_r.trim_start_matches('#').len();
    let body = after_r[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    let end = body.find(&close)? + close.len();
    Some(text.len() - body.len() + end)
}

/// The length of a character literal (`'x'`, `'\\n'`, `'\\u{…}'`) at the start of `text`; a
/// lifetime is none.
fn char_literal_len(text: &str) -> Option<usize> {
    let body = text.strip_prefix('\'')?;
    let mut chars = body.char_indices();
    let (_, first) = chars.next()?;
    if first == '\\' {
        let close = body[1..].find('\'')? + 1;
        return Some(close + 2);
    }
    let (at, next) = chars.next()?;
    (next == '\'').then_some(at + 2)
}

/// Every function of `src/`: its length in lines, file, first line and name.
fn functions() -> Vec<(usize, String, usize, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for path in files {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        let relative = path.strip_prefix(src()).unwrap().display().to_string();
        let bytes = code.as_bytes();
        for (at, _) in code.match_indices("fn ") {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let name: String = code[at + 3..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // The body: the first `{` before any `;` (a declaration has none).
            let Some(open) = code[at..].find(['{', ';']).map(|i| at + i) else {
                continue;
            };
            if name.is_empty() || bytes[open] == b';' {
                continue;
            }
            let mut depth = 0usize;
            let mut close = open;
            for (i, b) in bytes[open..].iter().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = open + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let first = code[..at].matches('\n').count() + 1;
            let last = code[..close].matches('\n').count() + 1;
            found.push((last - first + 1, relative.clone(), first, name));
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found
}

#[test]
fn functions_stay_short() {
    let all = functions();
    assert!(all.len() > 500, "the functions of src/ were not found");
    let long: Vec<String> = all
        .iter()
        .filter(|f| f.0 > LONG)
        .map(|(lines, file, line, name)| format!("{name} ({lines} lines, src/{file}:{line})"))
        .collect();
    assert!(
        long.len() <= MAX_LONG && all[0].0 <= TOO_LONG,
        "at most {MAX_LONG} functions over {LONG} lines and none over {TOO_LONG}; split these \
         into functions that name each step: {}",
        long.join(", ")
    );
}

/// The lexer blanks what would miscount: braces in strings, comments and characters.
#[test]
fn braces_in_literals_and_comments_do_not_count() {
    let source = "fn a() { let s = \"}\"; let r = r#\"}\"#; let c = '}'; // }\n /* } */ }\n\
                  fn b<'x>(v: &'x str) -> &'x str { v }\n";
    let code = code_only(source);
    assert_eq!(code.matches('{').count(), 2, "{code}");
    assert_eq!(code.matches('}').count(), 2, "{code}");
    assert_eq!(code.len(), source.len());
}
