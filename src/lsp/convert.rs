//! forgelint's findings and errors in the protocol's terms: file URIs and paths, positions
//! (0-based lines and UTF-16 columns, the protocol's default encoding, against forgelint's
//! 1-based ones), diagnostics and the edits of fixes.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Position, Range, TextEdit, Uri,
};

use crate::diagnostic::{Finding, LineIndex, Severity};
use crate::error::{Error, FileError};
use crate::rules::Rule;

/// The `source` of every diagnostic.
pub const SOURCE: &str = "forgelint";

/// The local path a `file:` URI names; `None` for another scheme (an unsaved buffer).
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("FILE://"))?;
    // `file:///p` has an empty authority; `file://localhost/p` names this machine.
    let path = match rest.strip_prefix("localhost") {
        Some(after) if after.starts_with('/') => after,
        _ => rest,
    };
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    path_of_bytes(percent_decode(path.as_bytes())?)
}

/// The path a URI's decoded path names: its bytes, where a path is bytes.
#[cfg(unix)]
fn path_of_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The path a URI's decoded path names, where a path is Unicode (Windows).
#[cfg(not(unix))]
fn path_of_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(bytes).ok()?;
    Some(PathBuf::from(without_drive_slash(&text)))
}

/// A URI's path puts a `/` before a drive (`file:///C:/x`): the path is `C:/x`.
#[cfg(any(test, not(unix)))]
fn without_drive_slash(path: &str) -> &str {
    match path.as_bytes() {
        [b'/', letter, b':', ..] if letter.is_ascii_alphabetic() => &path[1..],
        _ => path,
    }
}

fn percent_decode(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = bytes.get(at + 1..at + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    Some(out)
}

/// The `file:` URI of an absolute path ([`crate::paths::file_uri`]).
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    Uri::from_str(&crate::paths::file_uri(path)).ok()
}

/// A forgelint position (1-based line, 1-based UTF-16 column) in the protocol's terms.
fn position(p: crate::diagnostic::Position) -> Position {
    Position::new(p.line.saturating_sub(1), p.column.saturating_sub(1))
}

/// The protocol range of the bytes `start..end` of `text`.
pub fn byte_range(text: &str, index: &mut LineIndex, start: usize, end: usize) -> Range {
    let span =
        crate::diagnostic::Locator::new(text).clamp(crate::diagnostic::Span::new(start, end));
    Range::new(
        position(index.position(text, span.start as usize)),
        position(index.position(text, span.end as usize)),
    )
}

/// The byte offset of the protocol position `at` in `text`: past the end of its line (or of
/// the text) it is clamped there, as the protocol asks.
pub fn offset_of(text: &str, at: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..at.line {
        match memchr::memchr(b'\n', &text.as_bytes()[line_start..]) {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[line_start..];
    let line_end = line.find('\n').unwrap_or(line.len());
    let line_end = if line[..line_end].ends_with('\r') {
        line_end - 1
    } else {
        line_end
    };
    let mut units = 0;
    for (i, c) in line[..line_end].char_indices() {
        if units >= at.character as usize {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    line_start + line_end
}

/// Does `range` hold `at` (its end included: the cursor just after a value is on it)?
pub fn contains(range: &Range, at: Position) -> bool {
    let key = |p: &Position| (p.line, p.character);
    key(&range.start) <= key(&at) && key(&at) <= key(&range.end)
}

/// Do two ranges share a position (an empty range touching another counts)?
pub fn overlaps(a: &Range, b: &Range) -> bool {
    let key = |p: &Position| (p.line, p.character);
    key(&a.start) <= key(&b.end) && key(&b.start) <= key(&a.end)
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

/// The page that documents `rule`: the repository's page of a built-in rule, the rule file
/// of one of the project's own.
pub fn docs_uri(rule: &Rule, root: &Path) -> Option<Uri> {
    if rule.origin.builtin {
        let page = format!(
            "{}/blob/main/docs/rules/{}.md",
            env!("CARGO_PKG_REPOSITORY"),
            rule.id
        );
        return Uri::from_str(&page).ok();
    }
    path_to_uri(&root.join(&rule.origin.name))
}

/// The diagnostic of a finding in the document `uri`. Its message is the finding's, which
/// already masks a secret as every other output does; the text at its range is never copied.
pub fn diagnostic(finding: &Finding, uri: &Uri, root: &Path, rule: Option<&Rule>) -> Diagnostic {
    let range = Range::new(position(finding.start), position(finding.end));
    let mut message = finding.message.clone();
    if let Some(help) = &finding.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .filter_map(|r| {
            let uri = match &r.path {
                None => uri.clone(),
                Some(path) => path_to_uri(&root.join(&**path))?,
            };
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, Range::new(position(r.start), position(r.end))),
                message: r.label.clone(),
            })
        })
        .collect();
    Diagnostic {
        range,
        severity: Some(severity(finding.severity)),
        code: Some(NumberOrString::String(finding.rule.to_string())),
        code_description: rule
            .and_then(|r| docs_uri(r, root))
            .map(|href| CodeDescription { href }),
        source: Some(SOURCE.into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// Where a [`FileError`] points: its file, and its span's range in that file's text.
fn error_place(error: &FileError, root: &Path) -> (PathBuf, Range) {
    let text = error.source.inner();
    let range = match &error.span {
        Some(span) => byte_range(text, &mut LineIndex::new(text), span.start, span.end),
        None => Range::default(),
    };
    (root.join(error.source.name()), range)
}

/// The message of an error that stops forgelint: the error's own, with its help.
fn error_message(error: &Error) -> String {
    let (message, help) = match error {
        Error::File(e) => (
            crate::escape::visible(&e.message).into_owned(),
            e.help.clone(),
        ),
        Error::Usage { message, help } => (message.clone(), help.clone()),
        other => {
            let source = std::error::Error::source(other)
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            (format!("{other}{source}"), None)
        }
    };
    match help {
        Some(help) => format!("{message}\nhelp: {help}"),
        None => message,
    }
}

/// The diagnostic of an error in the document at `path` itself (a rule file, a config): at
/// its span when it is in that file; else at the document's start, pointing at the file it is in.
pub fn error_diagnostic(error: &Error, path: &Path, root: &Path) -> Diagnostic {
    let mut diagnostic = Diagnostic {
        range: Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some(SOURCE.into()),
        message: error_message(error),
        ..Diagnostic::default()
    };
    if let Error::File(e) = error {
        let (file, range) = error_place(e, root);
        if same_file(&file, path) {
            diagnostic.range = range;
        } else if let Some(uri) = path_to_uri(&file) {
            diagnostic.message = format!(
                "{}: {}",
                crate::escape::visible(e.source.name()),
                diagnostic.message
            );
            diagnostic.related_information = Some(vec![DiagnosticRelatedInformation {
                location: Location::new(uri, range),
                message: e.label.clone().unwrap_or_else(|| "here".into()),
            }]);
        }
    }
    diagnostic
}

/// The diagnostic of a file forgelint cannot lint because its configuration is broken.
pub fn unlintable(error: &Error, path: &Path, root: &Path) -> Diagnostic {
    let mut diagnostic = error_diagnostic(error, path, root);
    diagnostic.range = Range::default();
    diagnostic.message = format!(
        "forgelint cannot lint this file: its configuration has an error: {}",
        diagnostic.message
    );
    diagnostic
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// The edits of a finding's fix, on `text` (the document as it was linted).
pub fn fix_edits(fix: &crate::diagnostic::Fix, text: &str, index: &mut LineIndex) -> Vec<TextEdit> {
    fix.edits
        .iter()
        .map(|edit| TextEdit {
            range: byte_range(
                text,
                index,
                edit.span.start as usize,
                edit.span.end as usize,
            ),
            new_text: edit.replacement.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip_with_awkward_bytes() {
        for path in ["/a/b c/é%#?.json", "/plain/jobspec.json", "/"] {
            let uri = path_to_uri(Path::new(path)).expect("a valid URI");
            assert_eq!(
                uri_to_path(uri.as_str()),
                Some(PathBuf::from(path)),
                "{uri:?}"
            );
        }
        assert_eq!(
            uri_to_path("file://localhost/x/y"),
            Some(PathBuf::from("/x/y"))
        );
        assert_eq!(uri_to_path("untitled:Untitled-1"), None);
        assert_eq!(uri_to_path("file:///bad%zz"), None);
    }

    /// A Windows URI's path is the drive's, without the `/` before it.
    #[test]
    fn windows_uris_name_the_drive() {
        for (decoded, path) in [
            ("/C:/work/x.json", "C:/work/x.json"),
            ("/c:", "c:"),
            ("/work/x.json", "/work/x.json"),
            ("/1:/x", "/1:/x"),
        ] {
            assert_eq!(without_drive_slash(decoded), path);
        }
    }

    #[test]
    fn offsets_count_utf16_units_and_clamp_to_the_line() {
        let text = "a\r\né😀x\nlast";
        assert_eq!(offset_of(text, Position::new(0, 0)), 0);
        assert_eq!(offset_of(text, Position::new(0, 9)), 1, "before the CR");
        assert_eq!(offset_of(text, Position::new(1, 1)), 5, "after é");
        assert_eq!(offset_of(text, Position::new(1, 3)), 9, "after the emoji");
        assert_eq!(offset_of(text, Position::new(2, 4)), text.len());
        assert_eq!(offset_of(text, Position::new(7, 0)), text.len());
        let mut index = LineIndex::new(text);
        let range = byte_range(text, &mut index, 5, 9);
        assert_eq!(range, Range::new(Position::new(1, 1), Position::new(1, 3)));
    }
}
