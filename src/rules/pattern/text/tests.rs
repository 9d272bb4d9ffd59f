//! The filters, keywords and decoding of text patterns, each against what it must drop or keep.

use super::*;

fn pattern(source: &str) -> Pattern {
    Pattern::new(super::super::build_regex(source).unwrap())
}

fn reported(p: &TextPattern, text: &str) -> Vec<String> {
    p.reported(text, &mut KeywordsFound::default())
        .into_iter()
        .map(|m| text[m.at].to_string())
        .collect()
}

fn secrets(p: &TextPattern, text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    p.secrets(text, &mut spans);
    spans.into_iter().map(|s| text[s].to_string()).collect()
}

#[test]
fn entropy_is_bits_a_character() {
    assert_eq!(entropy(""), 0.0);
    assert_eq!(entropy("xxxx"), 0.0);
    assert!((entropy("abab") - 1.0).abs() < 1e-9);
    assert!((entropy("abcdefgh") - 3.0).abs() < 1e-9);
    assert!(entropy("hf_xxxxxxxxxxxxxxxxxxxx") < 1.0);
    assert!(entropy("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") > 4.0);
    // Characters, not bytes: two two-byte characters alternating are one bit.
    assert!((entropy("éüéü") - 1.0).abs() < 1e-9);
}

#[test]
fn filters_drop_what_they_name_and_keep_the_rest() {
    let filters = Filters {
        allow: vec![pattern("EXAMPLE$")],
        allow_line: vec![pattern(r"weights_only\s*=\s*True")],
        stop_words: vec!["abcdefghij".into()],
        min_entropy: Some(3.0),
    };
    let p = TextPattern::new(
        pattern(r"(?P<at>tok_[A-Za-z0-9]{16})|torch\.load\("),
        filters,
        Vec::new(),
        None,
    );
    let text =
        "tok_QpZkVbXwLmNrTsYu\ntok_QWERTYUIOEXAMPLE\ntok_xxxxxxxxxxxxxxxx\ntok_ABCDEFGHIJqwerty\n";
    assert_eq!(reported(&p, text), ["tok_QpZkVbXwLmNrTsYu"]);
    // The detector masks every match all the same.
    assert_eq!(secrets(&p, text).len(), 4);
    // A line's other text excuses a match on it; `\r` is not part of the line.
    let text = "a = torch.load(f, weights_only=True)\r\nb = torch.load(f)\n";
    let found = p.reported(text, &mut KeywordsFound::default());
    assert_eq!(found.len(), 1);
    assert!(found[0].at.start > text.find('\n').unwrap());
}

/// The cursor gives each match the lines a search from scratch gives, matches on one line
/// sharing one verdict, and ones across line breaks (`\r\n` too) their lines.
#[test]
fn the_line_cursor_agrees_with_a_search_from_scratch() {
    fn from_scratch(text: &str, span: Range<usize>) -> &str {
        let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
        let end = text[span.end..]
            .find('\n')
            .map_or(text.len(), |i| span.end + i);
        text[start..end].trim_end_matches('\r')
    }
    let regex = super::super::build_regex(r"(?s)x.{0,4}?y|z").unwrap();
    for text in [
        "zzz x y z\nzz\r\nx\ny x\r\nyz\n\nz",
        "x\n\n\ny",
        "z",
        "\nz\n",
        "ab x-y xy z\r\n",
    ] {
        let mut cursor = LineCursor::default();
        let mut tests = 0;
        for m in regex.find_iter(text) {
            let expected = from_scratch(text, m.range());
            let mut seen = None;
            cursor.excused(text, m.range(), |l| {
                seen = Some(l.to_string());
                l.len() % 2 == 0
            });
            if let Some(seen) = seen {
                tests += 1;
                assert_eq!(seen, expected, "{text:?} at {:?}", m.range());
            }
            // The verdict, kept or not, is the lines'.
            let verdict = cursor.excused(text, m.range(), |_| unreachable!("kept"));
            assert_eq!(verdict, expected.len() % 2 == 0, "{text:?}");
        }
        assert!(tests > 0);
    }
}

#[test]
fn keywords_gate_the_pattern_in_any_case() {
    let p = TextPattern::new(
        pattern(r"\b[0-9a-f]{8}\b"),
        Filters::default(),
        vec!["WandB".into(), "netrc".into()],
        None,
    );
    assert!(reported(&p, "commit 0123abcd").is_empty());
    assert_eq!(reported(&p, "WANDB key 0123abcd"), ["0123abcd"]);
    assert_eq!(reported(&p, "0123abcd in .NETRC"), ["0123abcd"]);
    // Masking does not ask for them.
    assert_eq!(secrets(&p, "commit 0123abcd"), ["0123abcd"]);
}

fn find(set: &Keywords, text: &str) -> Box<[bool]> {
    set.find(&text.as_bytes().to_ascii_lowercase())
}

/// Every keyword is found, also where one starts inside or at the start of another.
#[test]
fn keywords_are_found_where_they_overlap() {
    let set = Keywords::new(vec![
        "hf_".into(),
        "f_x".into(),
        "hf_x".into(),
        "zzz".into(),
    ]);
    assert_eq!(&*find(&set, "..HF_X.."), &[true, true, true, false]);
    assert_eq!(&*find(&set, ""), &[false; 4]);
    assert_eq!(&*find(&set, "aaaazz"), &[false; 4]);
}

/// The search over lowercased text finds what an ASCII-case-insensitive one finds, at the
/// text's own places: every keyword written in any case, none across a non-ASCII letter whose
/// lowercase is ASCII-like (`K`, the Kelvin sign, is not `k`).
#[test]
fn keywords_are_found_in_any_ascii_case_only() {
    let words = ["hf_", "f_x", "sk-", "PRIVATE KEY", "wandb", "AKIA"];
    let set = Keywords::new(words.iter().map(|w| w.to_string()).collect());
    let cases: [(&str, [bool; 6]); 6] = [
        ("..HF_X..", [true, true, false, false, false, false]),
        (
            "task-1 Private Key: WandB",
            [false, false, true, true, true, false],
        ),
        ("akia sk hf f_", [false, false, false, false, false, true]),
        ("", [false; 6]),
        ("\u{212a}ia s\u{212a}-", [false; 6]),
        ("é sK-é aKiA", [false, false, true, false, false, true]),
    ];
    for (text, want) in cases {
        let got = find(&set, text);
        assert_eq!(&*got, &want, "{text:?}");
        for (word, found) in words.iter().zip(got.iter()) {
            let by_definition = text
                .as_bytes()
                .windows(word.len())
                .any(|w| w.eq_ignore_ascii_case(word.as_bytes()));
            assert_eq!(*found, by_definition, "{word} in {text:?}");
        }
    }
}

#[test]
fn linked_checks_share_one_keyword_set() {
    let a = TextPattern::new(pattern("a+"), Filters::default(), vec!["A".into()], None);
    let b = TextPattern::new(
        pattern("b+"),
        Filters::default(),
        vec!["a".into(), "b".into()],
        None,
    );
    let linked = TextPattern::link(&[a, b]);
    let (sa, ia) = linked[0].0.keyword_set.as_ref().unwrap();
    let (sb, ib) = linked[1].0.keyword_set.as_ref().unwrap();
    assert!(Arc::ptr_eq(sa, sb));
    assert_eq!((&**ia, &**ib), (&[0][..], &[0, 1][..]));
    let mut found = KeywordsFound::default();
    assert_eq!(linked[1].reported("bb", &mut found).len(), 1);
    assert_eq!(linked[0].reported("bb", &mut found).len(), 0);
    assert_eq!(found.sets.len(), 1);
}

#[test]
fn a_decoded_value_is_searched_by_the_other_checks_in_place() {
    let token = TextPattern::new(
        pattern(r"(?i)api_key\W{0,4}(?P<at>[0-9a-f]{8})\b"),
        Filters {
            min_entropy: Some(2.0),
            ..Filters::default()
        },
        vec!["api_key".into()],
        None,
    );
    let data = TextPattern::new(
        pattern(r"(?m)^\s*[\w-]+:\s*(?P<at>[A-Za-z0-9+/]{8,}={0,2})$"),
        Filters::default(),
        Vec::new(),
        Some(Codec::Base64),
    );
    let linked = TextPattern::link(&[token, data]);
    let (token, data) = (&linked[0], &linked[1]);
    assert!(data.decodes() && !token.decodes());
    // "0123abcd" and "00000000", base64-encoded; a value that is not base64 text.
    let text = "data:\n  API_KEY: MDEyM2FiY2Q=\n  OTHER_KEY: MDEyM2FiY2Q=\n  API_KEY: MDAwMDAwMDA=\n  API_KEY: notbase64!\n";
    assert_eq!(reported(data, text), ["MDEyM2FiY2Q="]);
    // Masked: every encoded value that decodes to a match, the low-entropy one too.
    assert_eq!(secrets(data, text), ["MDEyM2FiY2Q=", "MDAwMDAwMDA="]);
    assert!(reported(token, text).is_empty());
    // Unlinked, a decode check has nothing to search with.
    let alone = TextPattern::new(
        pattern(r"(?P<at>[A-Za-z0-9+/]{8,}={0,2})"),
        Filters::default(),
        Vec::new(),
        Some(Codec::Base64),
    );
    assert!(reported(&alone, text).is_empty());
}

#[test]
fn base64_decodes_padded_and_unpadded_text_only() {
    assert_eq!(Codec::Base64.decode("aGVsbG8=").as_deref(), Some("hello"));
    assert_eq!(Codec::Base64.decode("aGVsbG8").as_deref(), Some("hello"));
    assert_eq!(Codec::Base64.decode("aGVsbG8==="), None);
    // Not UTF-8 once decoded.
    assert_eq!(Codec::Base64.decode("/w=="), None);
    assert_eq!(Codec::parse("base64"), Some(Codec::Base64));
    assert_eq!(Codec::parse("hex"), None);
}
