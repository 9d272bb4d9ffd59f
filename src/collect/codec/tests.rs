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
        history: Some(Box::new(Provenance {
            version: Arc::from("0123abcd"),
            introduced: Some(Stamp {
                commit: "c".repeat(40),
                date: "2024-03-02T10:04:00+01:00".into(),
                author: "Ada Lovelace <ada@lab.example>".into(),
                boundary: true,
            }),
            removed: None,
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
    plain.history = None;
    let mut removed = finding(&b, "exp-secret", "m3");
    if let Some(h) = removed.history.as_mut() {
        h.removed = h.introduced.take();
    }
    let groups = vec![
        vec![finding(&a, "api-version", "m1"), finding(&a, "kind", "m2")],
        vec![plain, removed],
    ];
    let mut bytes = Vec::new();
    for group in &groups {
        write_group(&mut bytes, group.iter()).unwrap();
    }
    let mut input = &bytes[..];
    let mut decoder = Decoder::default();
    let mut read = Vec::new();
    let mut back = Vec::new();
    while decoder.read_group(&mut input, &mut read).unwrap() {
        back.push(std::mem::take(&mut read));
    }
    assert_eq!(back, groups);
    assert!(std::ptr::eq(
        back[0][1].rule.as_str(),
        back[1][0].rule.as_str()
    ));
    assert!(Arc::ptr_eq(&back[0][0].path, &back[0][1].path));
    // The headers alone: each record's path, and the counts of its findings.
    let mut input = &bytes[..];
    let mut counts = Counts::default();
    let mut paths = Vec::new();
    while let Some(path) = decoder.read_counts(&mut input, &mut counts).unwrap() {
        paths.push(String::from_utf8(path.to_vec()).unwrap());
    }
    assert_eq!(paths, [&*a, &*b]);
    assert_eq!((counts.severities, counts.fixes), ([0, 3, 1], [0, 3]));
}

/// Varints read back at every width (the one- and two-byte shortcuts and the loop), and
/// one cut short or past ten bytes is an error.
#[test]
fn varints_read_back_at_every_width() {
    let mut values: Vec<u64> = vec![0, 1, u64::MAX];
    for bits in (7..64).step_by(7) {
        values.extend([(1 << bits) - 1, 1 << bits, (1 << bits) + 1]);
    }
    for n in values {
        let mut bytes = Vec::new();
        write_varint(&mut bytes, n);
        bytes.push(0x2a);
        let mut input = Cursor { bytes: &bytes };
        assert_eq!(input.varint().unwrap(), n);
        assert_eq!(input.bytes, [0x2a]);
        let cut = &bytes[..bytes.len() - 2];
        assert!(Cursor { bytes: cut }.varint().is_err(), "{n}");
    }
    assert!(Cursor { bytes: &[0x80; 11] }.varint().is_err());
}

#[test]
fn a_damaged_record_is_an_error_not_a_panic() {
    let a: Arc<str> = Arc::from("a.json");
    let mut bytes = Vec::new();
    write_group(&mut bytes, [finding(&a, "kind", "m")].iter()).unwrap();
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
    // Any byte of the record damaged: an error or other findings, never a panic.
    for at in 1..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] = 0xff;
        let mut input = &damaged[..];
        let _ = Decoder::default().read_group(&mut input, &mut Vec::new());
    }
}

#[test]
fn heads_read_back_as_the_records_counts_and_paths() {
    let a: Arc<str> = Arc::from("specs/a.jobspec.json");
    let b: Arc<str> = Arc::from("é/b.jobspec.json");
    let mut plain = finding(&b, "kind", "m3");
    plain.fix = None;
    plain.severity = Severity::Error;
    let mut records = Vec::new();
    write_group(&mut records, [finding(&a, "api-version", "m1")].iter()).unwrap();
    write_group(&mut records, [finding(&b, "kind", "m2"), plain].iter()).unwrap();
    let mut heads = Vec::new();
    push_heads(&records, &mut heads).unwrap();
    assert!(
        heads.len() < records.len() / 4,
        "{} of {}",
        heads.len(),
        records.len()
    );
    let read_all = |mut input: &[u8]| {
        let (mut decoder, mut got) = (Decoder::default(), Vec::new());
        let mut counts = Counts::default();
        while let Some(path) = decoder.read_counts(&mut input, &mut counts).unwrap() {
            got.push(String::from_utf8(path.to_vec()).unwrap());
        }
        (got, counts)
    };
    let (paths, counts) = read_all(&heads);
    assert_eq!(paths, [&*a, &*b]);
    assert_eq!((counts.severities, counts.fixes), ([0, 2, 1], [0, 2]));
    assert_eq!(read_all(&records), (paths, counts));
    // A record cut short is refused, not indexed in part.
    assert!(push_heads(&records[..records.len() - 1], &mut Vec::new()).is_err());
    assert!(push_heads(&records[..3], &mut Vec::new()).is_err());
}

/// `findings` written as one record and read back.
fn round_trip(findings: &[Finding]) -> Vec<Finding> {
    let mut bytes = Vec::new();
    write_group(&mut bytes, findings.iter()).unwrap();
    let mut back = Vec::new();
    assert!(Decoder::default()
        .read_group(&mut &bytes[..], &mut back)
        .unwrap());
    back
}

/// Places at the edges of the short form (one line, `u16` length, line and columns) and just
/// past them read back as written, as do value hashes with and without their bytes.
#[test]
fn places_read_back_either_side_of_the_short_form() {
    let a: Arc<str> = Arc::from("a.json");
    let max = u32::from(u16::MAX);
    let places = [
        (Span { start: 0, end: 0 }, (1, 1), (1, 1)),
        (
            Span {
                start: u32::MAX - max,
                end: u32::MAX,
            },
            (max, max),
            (max, max),
        ),
        (
            Span {
                start: 7,
                end: 8 + max,
            },
            (3, 1),
            (3, 2),
        ),
        (Span { start: 7, end: 9 }, (max + 1, 1), (max + 1, 3)),
        (Span { start: 7, end: 9 }, (2, max + 1), (2, max + 3)),
        (Span { start: 7, end: 9 }, (2, 1), (2, max + 1)),
        (Span { start: 7, end: 90 }, (2, 1), (3, 1)),
        (Span { start: 9, end: 7 }, (2, 1), (2, 1)),
    ];
    let findings: Vec<Finding> = places
        .iter()
        .enumerate()
        .map(|(i, &(span, (line, column), (end_line, end_column)))| {
            let mut f = finding(&a, "kind", "m");
            // A hash of 0 (a run without a baseline keeps none) takes no bytes.
            f.value_hash = i as u64;
            f.span = span;
            f.start = Position { line, column };
            f.end = Position {
                line: end_line,
                column: end_column,
            };
            f
        })
        .collect();
    assert_eq!(round_trip(&findings), findings);
    assert!(short_place(Span::new(0, 0), Position::default(), Position::default()).is_some());
    assert!(short_place(places[2].0, Position::default(), Position::default()).is_none());
}

/// A pointer that ends as its message does keeps only the rest; the split never falls inside
/// a character, and any pointer and message read back whole.
#[test]
fn pointers_sharing_their_messages_end_read_back_whole() {
    let a: Arc<str> = Arc::from("a.json");
    let cases = [
        ("unknown field legacy_field_00", "/legacy_field_00"),
        ("unknown field ab", "/ab"),
        ("", "/x"),
        ("m", ""),
        ("same", "same"),
        ("key é", "/é"),
        // The same last byte, different characters: 'é' is C3 A9, '©' is C2 A9.
        ("a é", "/©"),
        (
            "a longer message whose end is 0123456789abcdef",
            "/p/0123456789abcdef",
        ),
        (
            "0123456789abcdef0123456789abcdef",
            "/x/123456789abcdef0123456789abcdef",
        ),
    ];
    let findings: Vec<Finding> = cases
        .iter()
        .map(|(message, pointer)| {
            let mut f = finding(&a, "unknown-field", message);
            f.pointer = (*pointer).into();
            f
        })
        .collect();
    assert_eq!(round_trip(&findings), findings);
    let written = |message: &str, pointer: &str| {
        let mut out = Vec::new();
        write_pointer(&mut out, pointer, message);
        out
    };
    assert_eq!(written("unknown field ab", "/ab"), [2, 1, b'/']);
    // The shared A9 is the end of a character, not a character: the pointer is kept whole.
    assert_eq!(written("a é", "/©"), [0, 3, b'/', 0xc2, 0xa9]);
    assert_eq!(written("xy", "/ab"), [0, 3, b'/', b'a', b'b']);
}

#[test]
fn common_suffixes_are_counted_at_every_length() {
    let text = b"0123456789abcdefghijklmnopqrstuv";
    for n in 0..=text.len() {
        let end = &text[text.len() - n..];
        let mut a = b"A".to_vec();
        a.extend_from_slice(end);
        let mut b = b"xyzB".to_vec();
        b.extend_from_slice(end);
        assert_eq!(common_suffix(&a, &b), n);
        assert_eq!(common_suffix(end, &b), n);
        assert_eq!(common_suffix(&a, end), n);
    }
}

/// A record's rules are named by place after their first finding; past the table's room they
/// are written out each time, and a place no rule holds is damage.
#[test]
fn rules_read_back_by_place_and_past_the_table() {
    let a: Arc<str> = Arc::from("a.json");
    let ids: Vec<String> = (0..RECORD_RULES + 5).map(|i| format!("rule-{i}")).collect();
    let findings: Vec<Finding> = ids
        .iter()
        .chain(&ids)
        .map(|id| finding(&a, id, "m"))
        .collect();
    let back = round_trip(&findings);
    assert_eq!(back, findings);
    assert!(back
        .iter()
        .zip(&findings)
        .all(|(b, f)| std::ptr::eq(b.rule.as_str(), f.rule.as_str())));
    let mut bytes = Vec::new();
    write_group(&mut bytes, [finding(&a, "kind", "m")].iter()).unwrap();
    let rule_at = HEADER + 1 + a.len() + 1;
    assert_eq!(bytes[rule_at], NEW_RULE);
    bytes[rule_at] = 0;
    let mut back = Vec::new();
    assert!(Decoder::default()
        .read_group(&mut &bytes[..], &mut back)
        .is_err());
}

/// A message or help that starts as its rule's do is written without that start and read back
/// whole; one that does not is written whole.
#[test]
fn messages_and_help_leave_out_their_rules_start() {
    let a: Arc<str> = Arc::from("a.json");
    let rule = RuleId::new("codec-test-texts");
    rule.offer_texts("unknown field ", "remove the field: ");
    // A later offer does not change what was encoded with the first.
    rule.offer_texts("other", "other");
    let cases = [
        ("unknown field legacy_é", Some("remove the field: ")),
        ("unknown field ", Some("remove the field: it is ignored")),
        ("unknown fiel", None),
        ("", Some("remove the field")),
        ("known field x", Some("é")),
    ];
    let findings: Vec<Finding> = cases
        .iter()
        .map(|(message, help)| {
            let mut f = finding(&a, "codec-test-texts", message);
            f.help = help.map(str::to_string);
            f
        })
        .collect();
    assert_eq!(round_trip(&findings), findings);
    let size = |f: &Finding| {
        let mut bytes = Vec::new();
        write_group(&mut bytes, [f.clone()].iter()).unwrap();
        bytes.len()
    };
    let mut other = findings[0].clone();
    other.rule = RuleId::new("codec-test-plain");
    assert_eq!(size(&other) - size(&findings[0]), 14 + 18);
    let mut started = Vec::new();
    write_after_start(&mut started, "unknown field k", "unknown field ");
    assert_eq!(started, [3, b'k']);
    let mut whole = Vec::new();
    write_after_start(&mut whole, "k", "");
    assert_eq!(whole, [2, b'k']);
}
