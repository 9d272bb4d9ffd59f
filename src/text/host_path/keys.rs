//! YAML, TOML and JSON, for `host-path`: the keys a value is given, block scalars that hold
//! shell scripts, and the defaults of OmegaConf interpolations.

use std::ops::Range;

use super::line_start_near;

/// The key of the YAML block scalar whose body starts at `body` (`run` of `run: |`), or ""
/// for a block that is a sequence item; `None` when no block scalar starts there.
pub(super) fn block_scalar_key(text: &str, body: usize) -> Option<&str> {
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
pub(super) fn omegaconf_defaults(value: &str) -> Vec<Range<usize>> {
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
pub(super) struct YamlKeys<'t> {
    lines: Vec<(usize, Option<&'t str>, Option<usize>)>,
}

/// Keys a YAML key path names at most, nearest first: enough to tell a path's kind.
const YAML_KEY_DEPTH: usize = 8;

impl<'t> YamlKeys<'t> {
    pub(super) fn new(text: &'t str) -> YamlKeys<'t> {
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
    pub(super) fn path(&self, at: usize) -> String {
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
pub(super) fn yaml_line_key(line: &str) -> (Option<&str>, usize) {
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
pub(super) fn key_on_line(text: &str, start: usize) -> String {
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
