use super::*;

/// Numbered keys (`legacy_field_00` to `_19`) get twenty different bits, so an object of
/// them compares no keys; duplicates among them are still found.
#[test]
fn numbered_keys_get_their_own_bits() {
    let keys: Vec<String> = (0..20).map(|i| format!("legacy_field_{i:02}")).collect();
    let bits: std::collections::HashSet<u64> = keys.iter().map(|k| key_bit(k)).collect();
    assert_eq!(bits.len(), keys.len());
    for key in ["", "a", "ab"] {
        assert_eq!(key_bit(key).count_ones(), 1);
    }
    let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\": 1")).collect();
    let text = format!("{{{}, \"legacy_field_07\": 2}}", members.join(", "));
    let doc = parse(&text).expect("parses");
    assert_eq!(doc.duplicates.len(), 1, "{:?}", doc.duplicates);
}

/// One arena through documents of every kind, broken ones included, parses each exactly
/// as a fresh parse does, and keeps its buffers.
#[test]
fn a_reused_arena_parses_like_a_fresh_one() {
    let texts = [
        r#"{"a": [1, {"b": "x\u0041"}, []], "c": {"d": null, "d": true}}"#,
        r#"{"a": [1, 2"#,
        "[1]",
        r#"{"k": "v", "w": {"k": [{"k": 1}]}}"#,
        "",
        r#"{"z": 1e400, "y": -0.5}"#,
    ];
    let mut arena = Arena::default();
    for round in 0..2 {
        for text in texts {
            let fresh = parse(text);
            let reused = parse_reusing(text, &mut arena);
            match (&fresh, &reused) {
                (Ok(f), Ok(r)) => {
                    assert_eq!(format!("{:?}", f.nodes), format!("{:?}", r.nodes), "{text}");
                    assert_eq!(format!("{:?}", f.members), format!("{:?}", r.members));
                    assert_eq!(f.items, r.items);
                    assert_eq!(format!("{:?}", f.duplicates), format!("{:?}", r.duplicates));
                }
                (Err(f), Err(r)) => assert_eq!(f, r, "{text}"),
                _ => panic!("{text}: {fresh:?} against {reused:?}"),
            }
            if let Ok(doc) = reused {
                arena.recycle(doc);
            }
        }
        assert!(
            arena.nodes.capacity() > 0,
            "round {round} kept the node buffer"
        );
        assert!(arena.members.capacity() > 0 && arena.member_scratch.capacity() > 0);
    }
}

/// The string scan stops where a byte-by-byte scan does, whatever the length of the text,
/// the start and the place of the stop (in or out of a 16- or 8-byte chunk).
#[test]
fn string_scan_agrees_with_bytes() {
    let naive = |bytes: &[u8], pos: usize| {
        (pos..bytes.len())
            .find(|&i| bytes[i] == b'"' || bytes[i] == b'\\' || bytes[i] < 0x20)
            .unwrap_or(bytes.len().max(pos))
    };
    let fillers = [b'a', b' ', 0x7F, 0x80, 0xC3, 0xFF, 0x21, 0x5B, 0x5D];
    let stops = [b'"', b'\\', 0x00, 0x1F, b'\n'];
    for len in 0..48 {
        for (f, &filler) in fillers.iter().enumerate() {
            let mut bytes = vec![filler; len];
            for pos in 0..=len {
                assert_eq!(
                    scan_string(&bytes, pos),
                    naive(&bytes, pos),
                    "{bytes:?} {pos}"
                );
            }
            for at in 0..len {
                bytes[at] = stops[(at + f) % stops.len()];
                for pos in 0..=len {
                    assert_eq!(
                        scan_string(&bytes, pos),
                        naive(&bytes, pos),
                        "{bytes:?} {pos}"
                    );
                }
                bytes[at] = filler;
            }
        }
    }
}

/// Whitespace is skipped to where a byte-by-byte skip stops, for indentation of every
/// width, ending in a token, other whitespace or the end of the text.
#[test]
fn whitespace_skip_agrees_with_bytes() {
    let naive = |bytes: &[u8], pos: usize| {
        (pos..bytes.len())
            .find(|&i| !matches!(bytes[i], b' ' | b'\n' | b'\t' | b'\r'))
            .unwrap_or(bytes.len().max(pos))
    };
    for indent in 0..40 {
        for end in [
            &b""[..],
            b"\"",
            b"}",
            b"\t1",
            b"\r\n  x",
            b"\n",
            b" \n   \t{",
        ] {
            for lead in [&b""[..], b"\n", b" ", b",\n", b"\n\n"] {
                let mut bytes = lead.to_vec();
                bytes.extend(std::iter::repeat_n(b' ', indent));
                bytes.extend_from_slice(end);
                for pos in 0..=bytes.len() {
                    assert_eq!(skip_ws(&bytes, pos), naive(&bytes, pos), "{bytes:?} {pos}");
                }
            }
        }
    }
}

/// A document says it owns strings exactly when one of its keys or values had escapes:
/// recycling forgets the nodes of the others without dropping them.
#[test]
fn documents_know_when_they_own_strings() {
    let owns = |text: &str| {
        let doc = parse(text).unwrap();
        let any_owned = doc
            .nodes
            .iter()
            .any(|n| matches!(&n.value, Value::String(Cow::Owned(_))))
            || doc.members.iter().any(|m| matches!(m.key, Cow::Owned(_)));
        assert_eq!(doc.owned_strings, any_owned, "{text}");
        doc.owned_strings
    };
    assert!(!owns(r#"{"a": "b", "c": ["d", {"e": 1}]}"#));
    assert!(owns(r#"{"a\n": 1}"#));
    assert!(owns(r#"{"a": [{"b": "\u00e9"}]}"#));
    assert!(owns(r#"{"a": "\"", "b": "plain"}"#));
    // Recycling either kind leaves an arena that parses the next document alike.
    let mut arena = Arena::default();
    for text in [r#"{"k\t": "v\\"}"#, r#"{"k": "v"}"#, r#"{"x": "\/"}"#] {
        let doc = parse_reusing(text, &mut arena).unwrap();
        assert_eq!(
            format!("{:?}", doc.nodes),
            format!("{:?}", parse(text).unwrap().nodes)
        );
        arena.recycle(doc);
    }
}

/// Wide objects whose keys share a fingerprint still get every duplicate, in order, and
/// objects without one get none.
#[test]
fn duplicates_in_wide_objects() {
    for width in [3, 16, 17, 100, 5000] {
        let keys: Vec<String> = (0..width).map(|i| format!("\"k{i:06}\": {i}")).collect();
        let clean = format!("{{{}}}", keys.join(", "));
        assert!(parse(&clean).unwrap().duplicates.is_empty(), "{width}");
        let repeated = format!(
            "{{{}, \"k{:06}\": 1, \"k000000\": 2}}",
            keys.join(", "),
            width / 2
        );
        let doc = parse(&repeated).unwrap();
        let found: Vec<(&str, u32)> = doc
            .duplicates
            .iter()
            .map(|d| (d.key.as_str(), d.second.start))
            .collect();
        let second = |key: &str| repeated.rfind(key).unwrap() as u32 - 1;
        let middle = format!("k{:06}", width / 2);
        assert_eq!(
            found,
            vec![
                (middle.as_str(), second(&middle)),
                ("k000000", second("k000000"))
            ],
            "{width}"
        );
    }
}

/// Narrow and wide objects report the same duplicates as a scan of every earlier key: each
/// repeat in order, pointing at the key's first occurrence.
#[test]
fn duplicates_point_at_the_first_occurrence() {
    for width in [6, 16, 17, 60] {
        let keys: Vec<String> = (0..width).map(|i| format!("k{}", (i * 7) % 5)).collect();
        let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\": 0")).collect();
        let text = format!("{{{}}}", members.join(", "));
        let doc = parse(&text).unwrap();
        let found: Vec<(&str, u32, u32)> = doc
            .duplicates
            .iter()
            .map(|d| (d.key.as_str(), d.first.start, d.second.start))
            .collect();
        let starts: Vec<u32> = text
            .match_indices('"')
            .step_by(2)
            .map(|(at, _)| at as u32)
            .collect();
        let mut expected = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            if let Some(first) = keys[..i].iter().position(|k| k == key) {
                expected.push((key.as_str(), starts[first], starts[i]));
            }
        }
        assert_eq!(found, expected, "{width}");
    }
}

#[test]
fn spans_point_at_keys_and_values() {
    let text = r#"{"a": [1, "x\n"], "b": {"c": null}}"#;
    let doc = parse(text).unwrap();
    let root = doc.root();
    let a = doc.member(root, "a").unwrap();
    assert_eq!(
        &text[a.key_span.start as usize..a.key_span.end as usize],
        "\"a\""
    );
    let items = doc.items(a.value);
    assert_eq!(items.len(), 2);
    assert_eq!(doc.as_str(items[1]), Some("x\n"));
    let b = doc.get(root, "b").unwrap();
    let c = doc.get(b, "c").unwrap();
    assert_eq!(doc.value(c), &Value::Null);
    assert_eq!(doc.pointer_of(c), "/b/c");
}

#[test]
fn duplicate_keys_are_recorded() {
    let doc = parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
    assert_eq!(doc.duplicates.len(), 1);
    assert_eq!(doc.duplicates[0].key, "a");
    assert_eq!(doc.duplicates[0].first, Span::new(1, 4));
    // Last wins on lookup.
    assert_eq!(
        doc.value(doc.get(doc.root(), "a").unwrap()),
        &Value::Number(Cow::Borrowed("3"))
    );
}

#[test]
fn refuses_what_the_platform_refuses() {
    for (text, offset) in [
        ("", 0),
        ("   ", 3),
        ("\u{FEFF}{}", 0),
        ("[]", 0),
        ("{\"a\":1,}", 6),
        ("{\"a\":1 // c\n}", 7),
        ("{\"a\":", 5),
        ("{\"a\":01}", 5),
        ("{\"a\":\"\t\"}", 6),
    ] {
        let err = parse(text).unwrap_err();
        assert_eq!(err.offset, offset, "{text:?}: {err}");
    }
}

#[test]
fn lone_surrogate_becomes_replacement_character() {
    let doc = parse(r#"{"a": "\ud800x", "b": "\ud83d\ude00"}"#).unwrap();
    assert_eq!(
        doc.as_str(doc.get(doc.root(), "a").unwrap()),
        Some("\u{FFFD}x")
    );
    assert_eq!(doc.as_str(doc.get(doc.root(), "b").unwrap()), Some("😀"));
}

#[test]
fn deep_nesting_is_bounded_not_a_crash() {
    let ok = format!(
        "{{\"a\":{}{}}}",
        "[".repeat(MAX_DEPTH - 1),
        "]".repeat(MAX_DEPTH - 1)
    );
    assert!(parse(&ok).is_ok());
    let deep = format!("{{\"a\":{}", "[".repeat(200_000));
    let err = parse(&deep).unwrap_err();
    assert!(err.message.contains("nesting"), "{err}");
}
