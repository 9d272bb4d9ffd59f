//! A rule's regex (Rust `regex` syntax) written as a JSON Schema `pattern` (ECMA-262), so the
//! schema refuses what the rule refuses and nothing else.
//!
//! The two dialects disagree on much (`\s`, `\d`, `\p{…}`, `(?i:…)`, `(?s:.)`), so the pattern is
//! not copied: it is parsed, with its classes and case folding resolved into plain code-point
//! ranges, and printed back in a subset both dialects (with or without the `u` flag) read the
//! same way. What that subset cannot say exactly gives `None`, and the constraint is left out.

use std::fmt::Write;

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The last code point of the Basic Multilingual Plane: classes are printed within it.
const BMP_END: u32 = 0xFFFF;
const SURROGATES: (u32, u32) = (0xD800, 0xDFFF);

/// `pattern` as an ECMA-262 pattern that matches the same strings, if it can be written so.
pub fn translate(pattern: &str) -> Option<String> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut out = String::new();
    write_hir(&hir, &mut out)?;
    Some(out)
}

fn write_hir(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty => {}
        HirKind::Literal(lit) => {
            for c in std::str::from_utf8(&lit.0).ok()?.chars() {
                push_char(out, c, false);
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            let ranges: Vec<(u32, u32)> = class
                .ranges()
                .iter()
                .map(|r| (r.start() as u32, r.end() as u32))
                .collect();
            out.push_str(&class_text(&ranges)?);
        }
        // Byte classes match inside UTF-8 sequences, which ECMA patterns cannot see.
        HirKind::Class(Class::Bytes(_)) => return None,
        HirKind::Look(look) => out.push_str(match look {
            Look::Start => "^",
            Look::End => "$",
            // Line anchors and word boundaries differ between the dialects.
            _ => return None,
        }),
        HirKind::Repetition(rep) => {
            let atom = is_atom(&rep.sub);
            if !atom {
                out.push_str("(?:");
            }
            write_hir(&rep.sub, out)?;
            if !atom {
                out.push(')');
            }
            match (rep.min, rep.max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (n, None) => write!(out, "{{{n},}}").ok()?,
                (n, Some(m)) if n == m => write!(out, "{{{n}}}").ok()?,
                (n, Some(m)) => write!(out, "{{{n},{m}}}").ok()?,
            }
            if !rep.greedy {
                out.push('?');
            }
        }
        // Named groups are spelt differently; for matching, a plain group is the same.
        HirKind::Capture(cap) => {
            out.push('(');
            write_hir(&cap.sub, out)?;
            out.push(')');
        }
        HirKind::Concat(parts) => {
            for part in parts {
                write_hir(part, out)?;
            }
        }
        HirKind::Alternation(parts) => {
            out.push_str("(?:");
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write_hir(part, out)?;
            }
            out.push(')');
        }
    }
    Some(())
}

/// Whether a quantifier can follow `hir`'s text directly.
fn is_atom(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Class(_) | HirKind::Capture(_) => true,
        HirKind::Literal(lit) => std::str::from_utf8(&lit.0).is_ok_and(|s| s.chars().count() == 1),
        _ => false,
    }
}

/// A class of code-point ranges. Printed as its ranges when it holds no character outside the
/// BMP; as the negation of its complement when it holds all of them (`[^/@]`); else not at all,
/// since astral ranges need syntax (`\u{…}`) that only the `u` flag reads.
fn class_text(ranges: &[(u32, u32)]) -> Option<String> {
    let astral: Vec<(u32, u32)> = ranges
        .iter()
        .filter(|r| r.1 > BMP_END)
        .map(|&(s, e)| (s.max(BMP_END + 1), e))
        .collect();
    if astral.is_empty() {
        if ranges.is_empty() {
            return None;
        }
        return Some(format!("[{}]", ranges_text(ranges)));
    }
    if astral != [(BMP_END + 1, char::MAX as u32)] {
        return None;
    }
    // Surrogates are no characters: leaving them out of the complement keeps it short.
    let mut taken: Vec<(u32, u32)> = ranges.iter().map(|&(s, e)| (s, e.min(BMP_END))).collect();
    taken.push(SURROGATES);
    taken.sort_unstable();
    let complement = complement_in_bmp(&taken);
    if complement.is_empty() {
        return Some(r"[\s\S]".into());
    }
    Some(format!("[^{}]", ranges_text(&complement)))
}

/// The BMP code points outside `sorted`.
fn complement_in_bmp(sorted: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(s, e) in sorted {
        if s > next {
            out.push((next, s - 1));
        }
        next = next.max(e.saturating_add(1));
    }
    if next <= BMP_END {
        out.push((next, BMP_END));
    }
    out
}

fn ranges_text(ranges: &[(u32, u32)]) -> String {
    let mut out = String::new();
    for &(s, e) in ranges {
        push_code(&mut out, s);
        if e > s {
            if e > s + 1 {
                out.push('-');
            }
            push_code(&mut out, e);
        }
    }
    out
}

fn push_code(out: &mut String, code: u32) {
    match char::from_u32(code) {
        Some(c) => push_char(out, c, true),
        // A surrogate bound (only in a complement's edges).
        None => {
            let _ = write!(out, "\\u{code:04X}");
        }
    }
}

/// One character: printable ASCII as itself (escaped where it is syntax), other BMP characters
/// as `\uXXXX`, an astral character outside a class as itself (one code point with the `u` flag,
/// its two halves in sequence without: the same strings match).
fn push_char(out: &mut String, c: char, in_class: bool) {
    let syntax = if in_class {
        r"\]-^["
    } else {
        r"^$\.*+?()[]{}|/"
    };
    match c {
        ' '..='~' => {
            if syntax.contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
        _ if (c as u32) <= BMP_END => {
            let _ = write!(out, "\\u{:04X}", c as u32);
        }
        _ => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn plain_patterns_stay_readable() {
        assert_eq!(translate("^sha256:").as_deref(), Some("^sha256:"));
        assert_eq!(
            translate("^[a-z0-9][a-z0-9._-]*/x(@v)?$").as_deref(),
            Some(r"^[0-9a-z][\-.0-9_a-z]*\/x(@v)?$")
        );
        assert_eq!(
            translate("^a{2,3}b{4}c{5,}?$").as_deref(),
            Some("^a{2,3}b{4}c{5,}?$")
        );
    }

    #[test]
    fn unicode_classes_become_ranges() {
        // `\s` is Unicode White_Space (with NEL, without BOM), `\p{Cc}` the control
        // characters; their complement covers the astral planes, so it is printed negated.
        let set = r"\u0000- /@\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";
        assert_eq!(translate(r"[/@\s\p{Cc}]"), Some(format!("[{set}]")));
        assert_eq!(translate(r"[^/@\s\p{Cc}]"), Some(format!("[^{set}]")));
        assert_eq!(
            translate(r"(?i:file:)").as_deref(),
            Some("[Ff][Ii][Ll][Ee]:")
        );
        assert_eq!(translate(r"(?s:.)").as_deref(), Some(r"[\s\S]"));
        assert_eq!(translate(r"(?i:k)").as_deref(), Some(r"[Kk\u212A]"));
    }

    #[test]
    fn what_cannot_be_said_exactly_is_left_out() {
        assert_eq!(translate(r"\bword\b"), None);
        assert_eq!(translate(r"(?m)^a$"), None);
        assert_eq!(translate(r"[\u{10000}-\u{10FFF}]"), None);
        assert_eq!(translate(r"(?-u:\xFF)"), None);
    }
}
