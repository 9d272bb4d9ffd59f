//! TOML to [`Document`], through the `toml` crate's spanned tree ([`DeTable`]).
//!
//! Spans: a value's literal; a table from a `[a.b]` header spans the header, one made by a dotted
//! key (`a.b = 1`) or a header's prefix spans that key; an array of tables spans its first
//! `[[header]]` and each table its own. The root spans the whole text. Datetimes are strings of
//! their text, `inf` and `nan` strings too; integers in any radix or with `_` become decimal.
//!
//! The conversion recurses once per level: the `toml` parser refuses nesting past 80 levels
//! (and dotted keys past 80 parts), so the depth is small.

use std::borrow::Cow;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::{error_at, json_number, radix_number};
use crate::diagnostic::Span;
use crate::json::{Builder, Document, ParseError, Value};

pub(super) fn parse(text: &str) -> Result<Document<'_>, ParseError> {
    let root = DeTable::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        error_at(text, offset, e.message())
    })?;
    let mut b = Builder::new();
    table(&mut b, text, root.into_inner(), Span::new(0, text.len()));
    b.finish()
        .ok_or_else(|| error_at(text, 0, "the TOML document is incomplete"))
}

/// The table's entries in the order of the file (`DeTable` keeps them sorted by key).
fn table<'s>(b: &mut Builder<'s>, text: &'s str, entries: DeTable<'s>, span: Span) {
    let mut entries: Vec<_> = entries.into_iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    b.start_object();
    for (key, item) in entries {
        let key_span = span_of(key.span());
        b.key(key.into_inner(), key_span);
        value(b, text, item);
    }
    b.end(span);
}

fn value<'s>(b: &mut Builder<'s>, text: &'s str, item: Spanned<DeValue<'s>>) {
    let range = item.span();
    let span = span_of(range.clone());
    let literal = text.get(range).unwrap_or_default();
    let leaf = match item.into_inner() {
        DeValue::String(s) => Value::String(s),
        DeValue::Boolean(v) => Value::Bool(v),
        DeValue::Integer(i) => {
            let number = match i.radix() {
                10 => decimal(literal),
                radix => radix_number(i.as_str(), radix).map(Cow::Owned),
            };
            number.map_or(Value::String(Cow::Borrowed(literal)), Value::Number)
        }
        DeValue::Float(_) if literal.contains("inf") || literal.contains("nan") => {
            Value::String(Cow::Borrowed(literal))
        }
        DeValue::Float(_) => {
            decimal(literal).map_or(Value::String(Cow::Borrowed(literal)), Value::Number)
        }
        DeValue::Datetime(_) => Value::String(Cow::Borrowed(literal)),
        DeValue::Array(items) => {
            b.start_array();
            for item in items {
                value(b, text, item);
            }
            b.end(span);
            return;
        }
        DeValue::Table(entries) => return table(b, text, entries, span),
    };
    b.scalar(leaf, span);
}

/// A decimal literal (`1_000`, `+1.5e3`) in JSON number syntax, borrowed when it already is.
fn decimal(literal: &str) -> Option<Cow<'_, str>> {
    if literal.contains('_') {
        return json_number(&literal.replace('_', "")).map(|n| Cow::Owned(n.into_owned()));
    }
    json_number(literal)
}

fn span_of(range: std::ops::Range<usize>) -> Span {
    Span::new(range.start, range.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(text: &str, span: Span) -> &str {
        &text[span.start as usize..span.end as usize]
    }

    #[test]
    fn values_keep_their_literals() {
        let text = "n = 1_000\nh = 0x1F\no = 0o17\nb = 0b101\nf = +1.5e3\ni = -inf\n\
                    nn = nan\nd = 1979-05-27T07:32:00Z\ns = 'x'\nt = true\ng = 1e3\n";
        let doc = parse(text).unwrap();
        let root = doc.root();
        let keys: Vec<&str> = doc.members(root).iter().map(|m| &*m.key).collect();
        assert_eq!(
            keys,
            ["n", "h", "o", "b", "f", "i", "nn", "d", "s", "t", "g"]
        );
        let get = |k: &str| doc.value(doc.get(root, k).unwrap()).clone();
        assert_eq!(get("n"), Value::Number("1000".into()));
        assert_eq!(get("h"), Value::Number("31".into()));
        assert_eq!(get("o"), Value::Number("15".into()));
        assert_eq!(get("b"), Value::Number("5".into()));
        assert_eq!(get("f"), Value::Number("1.5e3".into()));
        assert_eq!(get("i"), Value::String("-inf".into()));
        assert_eq!(get("nn"), Value::String("nan".into()));
        assert_eq!(get("d"), Value::String("1979-05-27T07:32:00Z".into()));
        assert_eq!(get("s"), Value::String("x".into()));
        assert_eq!(get("t"), Value::Bool(true));
        assert!(matches!(get("g"), Value::Number(Cow::Borrowed("1e3"))));
        for m in doc.members(root) {
            let value = text_of(text, doc.span(m.value));
            let line = format!("{} = {value}", text_of(text, m.key_span));
            assert!(text.lines().any(|l| l == line), "{line}");
        }
    }

    #[test]
    fn tables_and_arrays_of_tables() {
        let text = "a.b = 1\n[srv.alpha]\nip = \"x\"\n[[prod]]\nn = 1\n[[prod]]\nn = 2\n";
        let doc = parse(text).unwrap();
        let root = doc.root();
        assert_eq!(doc.span(root), Span::new(0, text.len()));
        let alpha = doc.get(doc.get(root, "srv").unwrap(), "alpha").unwrap();
        assert_eq!(text_of(text, doc.span(alpha)), "[srv.alpha]");
        let prod = doc.get(root, "prod").unwrap();
        let second = doc.items(prod)[1];
        assert_eq!(doc.pointer_of(doc.get(second, "n").unwrap()), "/prod/1/n");
        assert_eq!(&text[doc.span(second).start as usize..][..8], "[[prod]]");
        let b = doc.get(doc.get(root, "a").unwrap(), "b").unwrap();
        assert_eq!(doc.value(b), &Value::Number("1".into()));
        assert!(doc.duplicates.is_empty());
    }

    #[test]
    fn errors_point_at_the_fault() {
        for (text, offset) in [("a = 1\nb = \n", 10), ("a = 1\na = 2\n", 6), ("[x\n", 2)] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.offset, offset, "{text:?}: {err}");
            assert!(err.message.starts_with("line "), "{err}");
        }
    }
}
