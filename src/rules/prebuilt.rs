//! The built-in rule files parsed at build time. `build.rs` includes this file too: it parses
//! each rule (without its cases) into TOML's spanned tree and writes the tree as bytes; at
//! start-up the tree is rebuilt from those bytes and handed to TOML's own deserializer, so a
//! rule reads exactly as `toml::from_str` reads its text, spans included. Parsing the TOML was
//! half of the instructions of a one-file run.
//!
//! Only `std` and `toml` may be used here (the build script has nothing else).
//!
//! The bytes: a value is a tag, its span (two `u32`, little-endian) and its payload; a string
//! is a `u32` length and UTF-8 bytes; an array or a table is a `u32` count and its items (a
//! table's items are a key, its span and the key's string, then a value). Numbers and dates
//! are kept as TOML literals, parsed again when the tree is rebuilt (the built-in rules have a
//! few).

use std::borrow::Cow;
use std::ops::Range;

use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

const STRING: u8 = 0;
const INTEGER: u8 = 1;
const FLOAT: u8 = 2;
const BOOLEAN: u8 = 3;
const DATETIME: u8 = 4;
const ARRAY: u8 = 5;
const TABLE: u8 = 6;

/// Where a built-in rule file's cases begin: its first `[[valid]]` or `[[invalid]]` line. A
/// built-in file has nothing else after it (a test holds them to that), so the text before it
/// is the whole rule without its cases, with the same offsets.
pub fn cases_start(text: &str) -> usize {
    let is_case = |at: usize| {
        let line = &text.as_bytes()[at..];
        line.starts_with(b"[[valid]]") || line.starts_with(b"[[invalid]]")
    };
    if is_case(0) {
        return 0;
    }
    // Only lines that open an array of tables are looked at.
    text.match_indices("\n[[")
        .map(|(at, _)| at + 1)
        .find(|&at| is_case(at))
        .unwrap_or(text.len())
}

/// Writing the tree: at build time, and in the tests that check it reads back.
#[cfg_attr(not(test), allow(dead_code))]
pub mod encoder {
    use super::*;

    /// The tree of the rule file `text` without its cases, as bytes; `None` when it is not TOML
    /// (the rule then compiles from its text, which reports the error).
    pub fn encode(text: &str) -> Option<Vec<u8>> {
        let root = DeTable::parse(&text[..cases_start(text)]).ok()?;
        let mut out = Vec::new();
        put_span(&mut out, root.span());
        put_table(&mut out, root.get_ref())?;
        Some(out)
    }

    fn put_u32(out: &mut Vec<u8>, n: usize) -> Option<()> {
        out.extend_from_slice(&u32::try_from(n).ok()?.to_le_bytes());
        Some(())
    }

    fn put_span(out: &mut Vec<u8>, span: Range<usize>) {
        // A rule file is far smaller than 4 GiB; a span past it cannot be written and is not.
        for n in [span.start, span.end] {
            out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
        }
    }

    fn put_str(out: &mut Vec<u8>, s: &str) -> Option<()> {
        put_u32(out, s.len())?;
        out.extend_from_slice(s.as_bytes());
        Some(())
    }

    fn put_table(out: &mut Vec<u8>, table: &DeTable<'_>) -> Option<()> {
        put_u32(out, table.len())?;
        for (key, value) in table.iter() {
            put_span(out, key.span());
            put_str(out, key.get_ref())?;
            put_value(out, value)?;
        }
        Some(())
    }

    fn put_value(out: &mut Vec<u8>, value: &Spanned<DeValue<'_>>) -> Option<()> {
        let head = |out: &mut Vec<u8>, tag: u8| {
            out.push(tag);
            put_span(out, value.span());
        };
        match value.get_ref() {
            DeValue::String(s) => {
                head(out, STRING);
                put_str(out, s)?;
            }
            DeValue::Boolean(b) => {
                head(out, BOOLEAN);
                out.push(u8::from(*b));
            }
            DeValue::Array(items) => {
                head(out, ARRAY);
                put_u32(out, items.len())?;
                for item in items.iter() {
                    put_value(out, item)?;
                }
            }
            DeValue::Table(table) => {
                head(out, TABLE);
                put_table(out, table)?;
            }
            DeValue::Integer(i) => {
                head(out, INTEGER);
                put_str(out, &i.to_string())?;
            }
            DeValue::Float(f) => {
                head(out, FLOAT);
                put_str(out, &f.to_string())?;
            }
            DeValue::Datetime(d) => {
                head(out, DATETIME);
                put_str(out, &d.to_string())?;
            }
        }
        Some(())
    }
}

/// The tree `bytes` (made by [`encoder::encode`]) as TOML's spanned table; `None` when the bytes are
/// not such a tree. Strings are borrowed from `bytes`.
pub fn decode(bytes: &[u8]) -> Option<Spanned<DeTable<'_>>> {
    let mut reader = Reader { bytes, at: 0 };
    let span = reader.span()?;
    let table = reader.table()?;
    (reader.at == bytes.len()).then(|| Spanned::new(span, table))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let taken = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(taken)
    }

    fn u32(&mut self) -> Option<usize> {
        let bytes: [u8; 4] = self.take(4)?.try_into().ok()?;
        usize::try_from(u32::from_le_bytes(bytes)).ok()
    }

    fn span(&mut self) -> Option<Range<usize>> {
        Some(self.u32()?..self.u32()?)
    }

    fn str(&mut self) -> Option<&'a str> {
        let len = self.u32()?;
        std::str::from_utf8(self.take(len)?).ok()
    }

    fn table(&mut self) -> Option<DeTable<'a>> {
        let mut table = DeTable::new();
        for _ in 0..self.u32()? {
            let key_span = self.span()?;
            let key = Spanned::new(key_span, Cow::Borrowed(self.str()?));
            let value = self.value()?;
            table.insert(key, value);
        }
        Some(table)
    }

    fn value(&mut self) -> Option<Spanned<DeValue<'a>>> {
        let tag = *self.take(1)?.first()?;
        let span = self.span()?;
        let value = match tag {
            STRING => DeValue::String(Cow::Borrowed(self.str()?)),
            BOOLEAN => DeValue::Boolean(*self.take(1)?.first()? != 0),
            ARRAY => {
                let mut items = DeArray::new();
                for _ in 0..self.u32()? {
                    items.push(self.value()?);
                }
                DeValue::Array(items)
            }
            TABLE => DeValue::Table(self.table()?),
            INTEGER | FLOAT | DATETIME => DeValue::parse(self.str()?).ok()?.into_inner(),
            _ => return None,
        };
        Some(Spanned::new(span, value))
    }
}
