//! Python, for `host-path`: where a literal sits (its statement, the bracket around it) and
//! the names it is given.

use super::{back_from, Context, LOOK_BACK};
use crate::text::{kind_at, Region, RegionKind};

/// A Python literal that continues another value: the right operand of `+` (or `+=`), or the
/// second of two adjacent literals (implicit concatenation).
pub(super) fn continues_python(code: &str, regions: &[Region], index: usize) -> bool {
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
pub(super) struct Statement {
    start: usize,
    opener: Option<usize>,
}

/// [`Statement`] of every region (one pass over the code).
pub(super) fn python_statements(code: &str, regions: &[Region]) -> Vec<Statement> {
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
pub(super) fn continued(bytes: &[u8], i: usize) -> bool {
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
pub(super) fn python_context(
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
pub(super) fn assigned_name(element: &str) -> Option<&str> {
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
pub(super) fn statement_target(head: &str) -> Option<&str> {
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
pub(super) fn name_before(code: &str, at: usize) -> &str {
    let head = code[back_from(code, at, LOOK_BACK)..at].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |p| p + 1);
    &head[start..]
}
