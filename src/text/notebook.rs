//! Jupyter notebooks (`.ipynb`): the Python of their code cells, with every byte of it mapped
//! back to the JSON text it was decoded from.
//!
//! A notebook is JSON whose `cells[].source` holds each cell's text as one string or a list of
//! strings (one a line). Markdown cells are prose and outputs are what ran, so only the code
//! cells are read: their sources are decoded (JSON escapes) and joined, cells apart by a line
//! break, into one Python text. Its regions are found by the Python scanner, and a span of it
//! maps back to the exact escaped bytes of the file (`\"~/data\"` for `"~/data"`), so findings,
//! suppressions and code frames point into the notebook as it is on disk.

use std::ops::Range;

use super::{python, Region, RegionKind, Regions};

/// The code cells of a notebook, decoded.
#[derive(Debug, Default)]
pub struct CodeCells {
    /// The cells' Python, joined.
    pub code: String,
    /// For each byte of `code`, the file range of the character (or escape) it was decoded
    /// from; a byte between cells maps to the empty range at the end of the cell before.
    origin: Vec<(u32, u32)>,
}

impl CodeCells {
    /// The file range of the code range `range`: from the start of its first character's
    /// encoding to the end of its last's.
    pub fn file_range(&self, range: Range<usize>) -> Range<usize> {
        let start = self.origin.get(range.start).map_or(0, |o| o.0 as usize);
        let end = match range.end.checked_sub(1) {
            Some(last) if range.end > range.start => {
                self.origin.get(last).map_or(start, |o| o.1 as usize)
            }
            _ => start,
        };
        start..end.max(start)
    }
}

/// The code cells of the notebook `text`, or `None` when it is not a notebook's JSON.
pub fn code_cells(text: &str) -> Option<CodeCells> {
    let doc = crate::json::parse(text).ok()?;
    let cells = doc.get(doc.root(), "cells")?;
    let mut out = CodeCells::default();
    for &cell in doc.items(cells) {
        if doc.get(cell, "cell_type").and_then(|t| doc.as_str(t)) != Some("code") {
            continue;
        }
        let Some(source) = doc.get(cell, "source") else {
            continue;
        };
        let lines: Vec<u32> = match doc.items(source) {
            [] if doc.as_str(source).is_some() => vec![source],
            items => items.to_vec(),
        };
        if !out.code.is_empty() {
            // Cells apart: a break, so a string cannot run from one cell into the next.
            let at = out.origin.last().map_or(0, |o| o.1);
            out.code.push('\n');
            out.origin.push((at, at));
        }
        for line in lines {
            if doc.as_str(line).is_none() {
                continue;
            }
            let span = doc.span(line);
            // The string's bytes between its quotes.
            let (start, end) = (
                span.start as usize + 1,
                (span.end as usize).saturating_sub(1),
            );
            if let Some(raw) = text.get(start..end) {
                decode(raw, start, &mut out);
            }
        }
    }
    Some(out)
}

/// Appends the decoding of the JSON string body `raw` (at `offset` in the file) to `out`.
fn decode(raw: &str, offset: usize, out: &mut CodeCells) {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let from = offset + i;
        if bytes[i] != b'\\' {
            // A whole character, each of its bytes mapped to it.
            let width = utf8_width(bytes[i]);
            let Some(ch) = raw.get(i..i + width) else {
                return;
            };
            out.code.push_str(ch);
            for _ in 0..width {
                out.origin.push((from as u32, (from + width) as u32));
            }
            i += width;
            continue;
        }
        let (ch, used) = match bytes.get(i + 1) {
            Some(b'"') => ('"', 2),
            Some(b'\\') => ('\\', 2),
            Some(b'/') => ('/', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => unicode_escape(bytes, i),
            // The parser accepted the string: nothing else can follow a backslash.
            _ => return,
        };
        let mut buffer = [0u8; 4];
        let encoded = ch.encode_utf8(&mut buffer);
        out.code.push_str(encoded);
        for _ in 0..encoded.len() {
            out.origin.push((from as u32, (from + used) as u32));
        }
        i += used;
    }
}

/// `\uXXXX` at `i` (a surrogate pair when one follows): the character and the bytes used.
fn unicode_escape(bytes: &[u8], i: usize) -> (char, usize) {
    let hex = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let Some(high) = hex(i + 2) else {
        return ('\u{fffd}', 2);
    };
    if (0xD800..0xDC00).contains(&high) && bytes.get(i + 6..i + 8) == Some(b"\\u") {
        if let Some(low) = hex(i + 8).filter(|l| (0xDC00..0xE000).contains(l)) {
            let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            return (char::from_u32(code).unwrap_or('\u{fffd}'), 12);
        }
    }
    (char::from_u32(high).unwrap_or('\u{fffd}'), 6)
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// The regions of a notebook file: those of its code cells, mapped back into the JSON (the
/// rest is code); none when it is not a notebook.
pub(super) fn scan(text: &str, out: &mut Regions) {
    let Some(cells) = code_cells(text) else {
        return;
    };
    let code_regions = python_regions(&cells.code);
    for region in code_regions.iter().filter(|r| r.kind != RegionKind::Code) {
        out.push(
            region.kind,
            cells.file_range(region.span.clone()),
            cells.file_range(region.content.clone()),
        );
    }
}

/// The Python regions of `code`.
pub fn python_regions(code: &str) -> Vec<Region> {
    let mut out = Regions::new(code.len());
    python::scan(code.as_bytes(), &mut out);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{scan as scan_text, Language};

    const NOTEBOOK: &str = r##"{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["Data is in /data/x\n"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": [
    "import os\n",
    "p = os.path.expanduser(\"~/data/é\")  # a \"note\"\n",
    "q = '\u00e9\ud83d\ude00'"
  ]},
  {"cell_type": "code", "source": "r = 1"}
 ],
 "nbformat": 4
}"##;

    #[test]
    fn code_cells_decode_and_map_back() {
        let cells = code_cells(NOTEBOOK).unwrap();
        assert_eq!(
            cells.code,
            "import os\np = os.path.expanduser(\"~/data/é\")  # a \"note\"\nq = 'é😀'\nr = 1"
        );
        let at = cells.code.find("\"~/data").unwrap();
        let end = at + "\"~/data/é\"".len();
        assert_eq!(&NOTEBOOK[cells.file_range(at..end)], "\\\"~/data/é\\\"");
        let emoji = cells.code.find('😀').unwrap();
        assert_eq!(
            &NOTEBOOK[cells.file_range(emoji..emoji + 4)],
            "\\ud83d\\ude00"
        );
        assert!(code_cells("[1]").is_none());
        assert!(code_cells("{\"cells\": 3}").unwrap().code.is_empty());
        assert!(code_cells("not json").is_none());
    }

    #[test]
    fn regions_map_into_the_file() {
        let regions = scan_text(Language::Notebook, NOTEBOOK);
        let strings: Vec<&str> = regions
            .iter()
            .filter(|r| r.kind != RegionKind::Code)
            .map(|r| &NOTEBOOK[r.span.clone()])
            .collect();
        assert_eq!(
            strings,
            vec![
                "\\\"~/data/é\\\"",
                "# a \\\"note\\\"",
                "'\\u00e9\\ud83d\\ude00'"
            ]
        );
        // Not a notebook: no regions at all.
        assert!(
            scan_text(Language::Notebook, "{").is_empty()
                || scan_text(Language::Notebook, "{")
                    .iter()
                    .all(|r| r.kind == RegionKind::Code)
        );
    }
}
