//! A compact binary form of findings for the sorted runs spilled to disk: one record per
//! file (its path once, then its findings), integers as LEB128 varints, strings as a length
//! and their UTF-8 bytes. Only this process reads what it wrote, so there is no version.

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use crate::diagnostic::{Edit, Finding, Fix, Position, Related, RuleId, Safety, Severity, Span};

/// Writes one file's findings (all with the path of the first) as one record.
pub fn write_group(out: &mut impl Write, findings: &[Finding]) -> io::Result<()> {
    let Some(first) = findings.first() else {
        return Ok(());
    };
    write_str(out, &first.path)?;
    write_varint(out, findings.len() as u64)?;
    for f in findings {
        write_finding(out, f)?;
    }
    Ok(())
}

fn write_finding(out: &mut impl Write, f: &Finding) -> io::Result<()> {
    write_str(out, &f.rule)?;
    out.write_all(&[
        f.severity as u8,
        u8::from(f.secret) | u8::from(f.help.is_some()) << 1 | u8::from(f.fix.is_some()) << 2,
    ])?;
    write_str(out, &f.message)?;
    if let Some(help) = &f.help {
        write_str(out, help)?;
    }
    write_str(out, &f.pointer)?;
    write_place(out, f.span, f.start, f.end)?;
    write_varint(out, f.value_hash)?;
    write_varint(out, f.related.len() as u64)?;
    for r in &f.related {
        match &r.path {
            Some(path) => {
                out.write_all(&[1])?;
                write_str(out, path)?;
            }
            None => out.write_all(&[0])?,
        }
        write_place(out, r.span, r.start, r.end)?;
        write_str(out, &r.label)?;
    }
    if let Some(fix) = &f.fix {
        out.write_all(&[fix.safety as u8])?;
        write_varint(out, fix.edits.len() as u64)?;
        for edit in &fix.edits {
            write_varint(out, edit.span.start.into())?;
            write_varint(out, edit.span.end.into())?;
            write_str(out, &edit.replacement)?;
        }
    }
    Ok(())
}

fn write_place(out: &mut impl Write, span: Span, start: Position, end: Position) -> io::Result<()> {
    for n in [
        span.start,
        span.end,
        start.line,
        start.column,
        end.line,
        end.column,
    ] {
        write_varint(out, n.into())?;
    }
    Ok(())
}

fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    write_varint(out, s.len() as u64)?;
    out.write_all(s.as_bytes())
}

fn write_varint(out: &mut impl Write, mut n: u64) -> io::Result<()> {
    let mut bytes = [0u8; 10];
    let mut len = 0;
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            bytes[len] = low;
            len += 1;
            break;
        }
        bytes[len] = low | 0x80;
        len += 1;
    }
    out.write_all(&bytes[..len])
}

/// Reads records back, sharing one `Arc` per record's path; rule ids (there are few) are
/// interned once per decoder.
#[derive(Default)]
pub struct Decoder {
    rules: Vec<RuleId>,
}

impl Decoder {
    /// Reads the next record's findings into `into`; `false` at the end of the input.
    pub fn read_group(
        &mut self,
        input: &mut impl BufRead,
        into: &mut Vec<Finding>,
    ) -> io::Result<bool> {
        if input.fill_buf()?.is_empty() {
            return Ok(false);
        }
        let path: Arc<str> = Arc::from(read_string(input)?);
        let count = read_len(input)?;
        for _ in 0..count {
            into.push(self.read_finding(input, &path)?);
        }
        Ok(true)
    }

    fn read_finding(&mut self, input: &mut impl BufRead, path: &Arc<str>) -> io::Result<Finding> {
        let rule = self.rule(read_string(input)?);
        let [severity, flags] = read_array::<2>(input)?;
        let severity = match severity {
            0 => Severity::Note,
            1 => Severity::Warning,
            2 => Severity::Error,
            _ => return Err(corrupt()),
        };
        let message = read_string(input)?;
        let help = if flags & 2 != 0 {
            Some(read_string(input)?)
        } else {
            None
        };
        let pointer = read_string(input)?;
        let (span, start, end) = read_place(input)?;
        let value_hash = read_varint(input)?;
        let related_count = read_len(input)?;
        let mut related = Vec::with_capacity(related_count.min(16));
        for _ in 0..related_count {
            let [has_path] = read_array::<1>(input)?;
            let path = if has_path == 1 {
                Some(Arc::from(read_string(input)?))
            } else {
                None
            };
            let (span, start, end) = read_place(input)?;
            let label = read_string(input)?;
            related.push(Related {
                path,
                span,
                start,
                end,
                label,
            });
        }
        let fix = if flags & 4 != 0 {
            Some(Box::new(read_fix(input)?))
        } else {
            None
        };
        Ok(Finding {
            path: path.clone(),
            rule,
            severity,
            message,
            help,
            pointer,
            span,
            start,
            end,
            related,
            value_hash,
            secret: flags & 1 != 0,
            fix,
        })
    }

    fn rule(&mut self, id: String) -> RuleId {
        if let Some(known) = self.rules.iter().find(|r| **r == *id) {
            return *known;
        }
        let rule = RuleId::new(&id);
        self.rules.push(rule);
        rule
    }
}

fn read_fix(input: &mut impl BufRead) -> io::Result<Fix> {
    let [safety] = read_array::<1>(input)?;
    let safety = match safety {
        0 => Safety::Safe,
        1 => Safety::Unsafe,
        _ => return Err(corrupt()),
    };
    let count = read_len(input)?;
    let mut edits = Vec::with_capacity(count.min(16));
    for _ in 0..count {
        let start = read_u32(input)?;
        let end = read_u32(input)?;
        edits.push(Edit {
            span: Span { start, end },
            replacement: read_string(input)?,
        });
    }
    Ok(Fix { safety, edits })
}

fn read_place(input: &mut impl BufRead) -> io::Result<(Span, Position, Position)> {
    let mut n = [0u32; 6];
    for slot in &mut n {
        *slot = read_u32(input)?;
    }
    Ok((
        Span {
            start: n[0],
            end: n[1],
        },
        Position {
            line: n[2],
            column: n[3],
        },
        Position {
            line: n[4],
            column: n[5],
        },
    ))
}

fn read_array<const N: usize>(input: &mut impl BufRead) -> io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    input.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn read_string(input: &mut impl BufRead) -> io::Result<String> {
    let len = read_len(input)?;
    let mut bytes = vec![0u8; len];
    input.read_exact(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| corrupt())
}

/// A length: bounded, so a damaged file cannot ask for an absurd allocation.
fn read_len(input: &mut impl BufRead) -> io::Result<usize> {
    const MAX: u64 = 1 << 32;
    match read_varint(input)? {
        n if n <= MAX => Ok(n as usize),
        _ => Err(corrupt()),
    }
}

fn read_u32(input: &mut impl BufRead) -> io::Result<u32> {
    u32::try_from(read_varint(input)?).map_err(|_| corrupt())
}

fn read_varint(input: &mut impl BufRead) -> io::Result<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let [byte] = read_array::<1>(input)?;
        n |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(n);
        }
    }
    Err(corrupt())
}

fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the temporary file of findings is damaged",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &Arc<str>, rule: &str, message: &str) -> Finding {
        Finding {
            path: path.clone(),
            rule: RuleId::new(rule),
            severity: Severity::Warning,
            message: message.into(),
            help: Some("help é".into()),
            pointer: "/spec/x".into(),
            span: Span::new(3, 300),
            start: Position { line: 1, column: 4 },
            end: Position {
                line: u32::MAX,
                column: 7,
            },
            related: vec![Related {
                path: Some(Arc::from("exp/config.yaml")),
                span: Span::new(0, 1),
                start: Position { line: 2, column: 1 },
                end: Position { line: 2, column: 2 },
                label: "here".into(),
            }],
            value_hash: u64::MAX,
            secret: true,
            fix: Some(Box::new(Fix {
                safety: Safety::Unsafe,
                edits: vec![Edit {
                    span: Span::new(5, 9),
                    replacement: "\"forge/v2\"".into(),
                }],
            })),
        }
    }

    #[test]
    fn findings_read_back_as_written() {
        let a: Arc<str> = Arc::from("specs/a.jobspec.json");
        let b: Arc<str> = Arc::from("specs/b.jobspec.json");
        let mut plain = finding(&b, "kind", "");
        plain.help = None;
        plain.fix = None;
        plain.related.clear();
        plain.secret = false;
        plain.severity = Severity::Error;
        let groups = vec![
            vec![finding(&a, "api-version", "m1"), finding(&a, "kind", "m2")],
            vec![plain],
        ];
        let mut bytes = Vec::new();
        for group in &groups {
            write_group(&mut bytes, group).unwrap();
        }
        let mut input = &bytes[..];
        let mut decoder = Decoder::default();
        let mut read = Vec::new();
        let mut back = Vec::new();
        while decoder.read_group(&mut input, &mut read).unwrap() {
            back.push(std::mem::take(&mut read));
        }
        assert_eq!(back, groups);
        assert!(std::ptr::eq(back[0][1].rule.as_str(), back[1][0].rule.as_str()));
        assert!(Arc::ptr_eq(&back[0][0].path, &back[0][1].path));
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        let a: Arc<str> = Arc::from("a.json");
        let mut bytes = Vec::new();
        write_group(&mut bytes, &[finding(&a, "kind", "m")]).unwrap();
        for cut in 1..bytes.len() {
            let mut input = &bytes[..cut];
            let mut read = Vec::new();
            assert!(Decoder::default()
                .read_group(&mut input, &mut read)
                .is_err());
        }
        let mut input: &[u8] = &[0xff; 12];
        assert!(Decoder::default()
            .read_group(&mut input, &mut Vec::new())
            .is_err());
    }
}
