//! The JSON parser against JSONTestSuite (vendored in `tests/data/jsontestsuite/`) and serde_json.
//!
//! - every `y_` file is accepted: an object as it is, any other top level refused with the
//!   top-level-object error only, and accepted once wrapped as `{"v": <file>}`;
//! - every `n_` file is refused, as it is and wrapped (where the wrapping keeps it invalid);
//! - no `i_` file makes the parser panic;
//! - the values of every `y_` file agree with serde_json's, and every span covers its token;
//! - CRLF, deep nesting (bounded, never a stack overflow) and error offsets (always inside the
//!   input, on a character boundary of its lossy text).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use forgelint::json::{self, Document, NodeId, ParseError, Value, MAX_DEPTH};

/// How the parser words its one policy refusal that is not a syntax error.
const TOP_LEVEL: &str = "the top level must be a JSON object";

// ---------------------------------------------------------------------------------------------
// Loading the suite

struct SuiteFile {
    name: String,
    bytes: Vec<u8>,
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jsontestsuite")
}

/// The files left out of the vendored copy for their size, rebuilt from SKIPPED.txt's
/// description; `None` for a name this test does not know how to rebuild.
fn regenerate(name: &str) -> Option<Vec<u8>> {
    match name {
        // 100000 "[" characters, no newline.
        "n_structure_100000_opening_arrays.json" => Some(b"[".repeat(100_000)),
        // "[{\"\":" repeated 50000 times, then "\n".
        "n_structure_open_array_object.json" => {
            let mut bytes = b"[{\"\":".repeat(50_000);
            bytes.push(b'\n');
            Some(bytes)
        }
        _ => None,
    }
}

/// `(name, size, sha256)` of every file SKIPPED.txt lists.
fn skipped_list() -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string(suite_dir().join("SKIPPED.txt")).expect("SKIPPED.txt");
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                [name, size, sha] if name.ends_with(".json") => {
                    Some((name.to_string(), size.parse().ok()?, sha.to_string()))
                }
                _ => None,
            }
        })
        .collect()
}

/// Every file of the suite, the skipped ones rebuilt in memory, sorted by name.
fn suite() -> Vec<SuiteFile> {
    let mut files: Vec<SuiteFile> = std::fs::read_dir(suite_dir())
        .expect("the vendored JSONTestSuite")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| SuiteFile {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            bytes: std::fs::read(&path).expect("a suite file"),
        })
        .collect();
    for (name, _, _) in skipped_list() {
        let bytes = regenerate(&name).unwrap_or_else(|| panic!("cannot rebuild {name}"));
        files.push(SuiteFile { name, bytes });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

fn with_prefix<'a>(files: &'a [SuiteFile], prefix: &'a str) -> impl Iterator<Item = &'a SuiteFile> {
    files.iter().filter(move |f| f.name.starts_with(prefix))
}

fn wrap(before: &[u8], bytes: &[u8], after: &[u8]) -> Vec<u8> {
    [before, bytes, after].concat()
}

/// `{"v": <bytes>}`: valid exactly when `bytes` is one JSON value with optional whitespace around
/// it, or such a value followed by more `, "key": value` members (no `n_` file is one of those,
/// which the serde_json cross-check in `n_files_are_refused` confirms).
fn in_object(bytes: &[u8]) -> Vec<u8> {
    wrap(b"{\"v\": ", bytes, b"}")
}

/// `{"v": [<bytes>]}`: also valid for a comma-separated list of values, and for nothing at all.
fn in_array(bytes: &[u8]) -> Vec<u8> {
    wrap(b"{\"v\": [", bytes, b"]}")
}

fn is_json_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn first_non_ws(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| !is_json_ws(b))
}

/// Parses without letting a panic escape: `Err(panic message)` if the parser panicked.
fn parse_catching(bytes: &[u8]) -> Result<Result<(), ParseError>, String> {
    catch_unwind(AssertUnwindSafe(|| json::parse_bytes(bytes).map(|_| ()))).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".to_string())
    })
}

fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() > 60 {
        format!(
            "{:?}… ({} bytes)",
            text.chars().take(60).collect::<String>(),
            bytes.len()
        )
    } else {
        format!("{text:?}")
    }
}

// ---------------------------------------------------------------------------------------------
// A small SHA-256 (FIPS 180-4), to check the vendored bytes and the rebuilt files

fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (state, add) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *state = state.wrapping_add(add);
        }
    }
    h.iter().map(|word| format!("{word:08x}")).collect()
}

#[test]
fn sha256_is_right() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // Two blocks of padding.
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

// ---------------------------------------------------------------------------------------------
// The suite itself

#[test]
fn the_suite_is_complete_and_byte_exact() {
    let files = suite();
    let count = |prefix| with_prefix(&files, prefix).count();
    // README.md: upstream has 95 y_, 188 n_ (two of them rebuilt here) and 35 i_ files.
    assert_eq!((count("y_"), count("n_"), count("i_")), (95, 188, 35));
    assert_eq!(files.len(), 318);

    // The rebuilt files are the upstream ones, byte for byte.
    let skipped = skipped_list();
    assert_eq!(skipped.len(), 2, "SKIPPED.txt lists two files");
    for (name, size, sha) in &skipped {
        let bytes = regenerate(name).unwrap();
        assert_eq!(bytes.len(), *size, "{name}: size");
        assert_eq!(&sha256_hex(&bytes), sha, "{name}: SHA-256");
    }

    // The vendored files are unchanged (no EOL or encoding conversion on the way).
    let sums = std::fs::read_to_string(suite_dir().join("SHA256SUMS")).expect("SHA256SUMS");
    let mut checked = 0;
    for line in sums.lines().filter(|l| !l.trim().is_empty()) {
        let (sha, name) = line
            .split_once(char::is_whitespace)
            .expect("`sha  name` lines");
        let name = name.trim_start().trim_start_matches('*');
        let bytes = std::fs::read(suite_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sha256_hex(&bytes), sha, "{name} differs from SHA256SUMS");
        checked += 1;
    }
    assert_eq!(checked, 316, "SHA256SUMS covers every vendored file");
}

#[test]
fn y_files_are_accepted() {
    let files = suite();
    let mut failures = Vec::new();
    for file in with_prefix(&files, "y_") {
        let bytes = &file.bytes;
        let start = first_non_ws(bytes).expect("a y_ file holds a value");
        let raw = json::parse_bytes(bytes);
        if bytes[start] == b'{' {
            if let Err(e) = &raw {
                failures.push(format!("{}: refused at {}: {e}", file.name, e.offset));
            }
        } else {
            match &raw {
                Ok(_) => failures.push(format!("{}: a non-object top level accepted", file.name)),
                Err(e) if !e.message.starts_with(TOP_LEVEL) => failures.push(format!(
                    "{}: refused for another reason than the top level: {e} (offset {})",
                    file.name, e.offset
                )),
                Err(e) if e.offset != start => failures.push(format!(
                    "{}: top-level error at {}, the value starts at {start}",
                    file.name, e.offset
                )),
                Err(_) => {}
            }
        }
        // Whatever the top level, the same bytes as a member's value are fine, with the file's
        // own leading and trailing whitespace inside the braces.
        for wrapped in [in_object(bytes), in_array(bytes)] {
            if let Err(e) = json::parse_bytes(&wrapped) {
                failures.push(format!(
                    "{}: refused wrapped as {}: {e}",
                    file.name,
                    show(&wrapped)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn n_files_are_refused() {
    let files = suite();
    let mut failures = Vec::new();
    for file in with_prefix(&files, "n_") {
        let bytes = &file.bytes;
        match parse_catching(bytes) {
            Err(panic) => failures.push(format!("{}: panicked: {panic}", file.name)),
            Ok(Ok(())) => failures.push(format!("{}: accepted {}", file.name, show(bytes))),
            Ok(Err(_)) => {}
        }
        // `{"v": X}` stays invalid for every n_ file. `{"v": [X]}` does too, except for a file
        // that is nothing but whitespace: `[ ]` is an empty array.
        let mut wrappings = vec![("{\"v\": X}", in_object(bytes))];
        if first_non_ws(bytes).is_some() {
            wrappings.push(("{\"v\": [X]}", in_array(bytes)));
        }
        for (how, wrapped) in wrappings {
            // The wrapping must be sound: an independent strict parser refuses it too.
            if serde_json::from_slice::<serde_json::Value>(&wrapped).is_ok() {
                failures.push(format!(
                    "{}: wrapping as {how} makes it valid JSON",
                    file.name
                ));
                continue;
            }
            match parse_catching(&wrapped) {
                Err(panic) => failures.push(format!("{} as {how}: panicked: {panic}", file.name)),
                Ok(Ok(())) => failures.push(format!("{} as {how}: accepted", file.name)),
                Ok(Err(e)) if e.message.starts_with(TOP_LEVEL) => failures.push(format!(
                    "{} as {how}: refused with the top-level error: {e}",
                    file.name
                )),
                Ok(Err(_)) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn i_files_do_not_panic() {
    let files = suite();
    let mut panics = Vec::new();
    let mut ran = 0;
    for file in with_prefix(&files, "i_") {
        for input in [
            file.bytes.clone(),
            in_object(&file.bytes),
            in_array(&file.bytes),
        ] {
            ran += 1;
            if let Err(panic) = parse_catching(&input) {
                panics.push(format!(
                    "{}: panicked on {}: {panic}",
                    file.name,
                    show(&input)
                ));
            }
        }
    }
    assert_eq!(ran, 35 * 3);
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}

/// The implementation-defined cases, decided as json.rs documents: numbers are kept as their
/// text whatever their magnitude, a lone surrogate escape becomes U+FFFD, the bytes must be UTF-8,
/// a BOM is refused, and nesting is fine up to `MAX_DEPTH`.
#[test]
fn i_files_follow_the_documented_policy() {
    let files = suite();
    let mut failures = Vec::new();
    for file in with_prefix(&files, "i_") {
        let name = file.name.as_str();
        let wrapped = in_object(&file.bytes);
        let outcome = json::parse_bytes(&wrapped);
        let expect_ok = if name.starts_with("i_number_")
            || name == "i_structure_500_nested_arrays.json"
            || name == "i_object_key_lone_2nd_surrogate.json"
        {
            true
        } else if name == "i_structure_UTF-8_BOM_empty_object.json" {
            // Wrapped, the BOM is inside the text, where it is no JSON whitespace.
            let raw = json::parse_bytes(&file.bytes).expect_err("a leading BOM is refused");
            if !(raw.offset == 0 && raw.message.contains("byte-order mark")) {
                failures.push(format!("{name}: refused for another reason: {raw}"));
            }
            false
        } else if std::str::from_utf8(&file.bytes).is_err() {
            if let Err(e) = &outcome {
                if !e.message.contains("not valid UTF-8") {
                    failures.push(format!("{name}: refused for another reason: {e}"));
                }
            }
            false
        } else {
            // The surrogate cases: valid UTF-8 with lone or mismatched `\uD8xx` escapes.
            assert!(
                name.contains("surrogate"),
                "{name}: no policy written down for it"
            );
            true
        };
        match (&outcome, expect_ok) {
            (Ok(doc), true) => {
                let v = doc.get(doc.root(), "v").expect("the wrapper's member");
                check_spans(
                    doc,
                    std::str::from_utf8(&wrapped).unwrap(),
                    v,
                    name,
                    &mut failures,
                );
            }
            (Err(_), false) => {}
            (Ok(_), false) => failures.push(format!("{name}: accepted, expected refused")),
            (Err(e), true) => failures.push(format!("{name}: refused, expected accepted: {e}")),
        }
    }
    // Where the escapes decode to: a lone surrogate to U+FFFD, and a good pair still joins.
    for (escaped, decoded) in [
        (r#""\uDFAA""#, "\u{FFFD}"),
        (r#""\uD888\u1234""#, "\u{FFFD}\u{1234}"),
        (r#""\uDd1e\uD834""#, "\u{FFFD}\u{FFFD}"),
        (r#""\uD800\n""#, "\u{FFFD}\n"),
        (r#""\ud800abc""#, "\u{FFFD}abc"),
        (r#""\uD800\uD800\uDC00""#, "\u{FFFD}\u{10000}"),
        (r#""\uD834\uDd1e""#, "\u{1D11E}"),
    ] {
        let text = format!("{{\"v\": {escaped}}}");
        match json::parse(&text) {
            Ok(doc) => {
                let got = doc.as_str(doc.get(doc.root(), "v").unwrap()).unwrap();
                if got != decoded {
                    failures.push(format!(
                        "{escaped} decoded to {got:?}, expected {decoded:?}"
                    ));
                }
            }
            Err(e) => failures.push(format!("{escaped} refused: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// JSONTestSuite's `n_` cases that are a valid non-object value followed by garbage (`[1]]`,
/// `1]`, `""x`, `123\0`): the syntax error at the garbage comes first, not the top-level error.
#[test]
fn broken_non_object_top_level_is_reported_as_broken_json() {
    let files = suite();
    let mut failures = Vec::new();
    for file in with_prefix(&files, "n_") {
        if let Err(e) = json::parse_bytes(&file.bytes) {
            if e.message.starts_with(TOP_LEVEL) {
                failures.push(format!("{} {}: {e}", file.name, show(&file.bytes)));
            }
        }
    }
    for (text, offset) in [
        ("[1]]", 3),
        ("1]", 1),
        ("\"\"x", 2),
        ("[] []", 3),
        ("123\0", 3),
        ("2@", 1),
    ] {
        match json::parse(text) {
            Err(e) if e.offset == offset && !e.message.starts_with(TOP_LEVEL) => {}
            other => failures.push(format!(
                "{text:?}: {other:?}, expected a syntax error at {offset}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Agreement with serde_json

/// Our tree as a serde_json value. Integer literals become integers when they fit (as serde_json
/// does), any other number an `f64`; a number no `f64` holds becomes a string, so it never
/// compares equal.
fn to_serde(doc: &Document<'_>, id: NodeId) -> serde_json::Value {
    use serde_json::Value as S;
    match doc.value(id) {
        Value::Null => S::Null,
        Value::Bool(b) => S::Bool(*b),
        Value::Number(raw) => {
            if json::is_integer_literal(raw) {
                if let Ok(u) = raw.parse::<u64>() {
                    return S::from(u);
                }
                if let Ok(i) = raw.parse::<i64>() {
                    return S::from(i);
                }
            }
            let f: f64 = raw.parse().expect("a JSON number is an f64 literal");
            serde_json::Number::from_f64(f)
                .map(S::Number)
                .unwrap_or_else(|| S::String(format!("<non-finite number {raw}>")))
        }
        Value::String(s) => S::String(s.to_string()),
        Value::Array { .. } => S::Array(doc.items(id).iter().map(|&i| to_serde(doc, i)).collect()),
        Value::Object { .. } => {
            let mut map = serde_json::Map::new();
            for member in doc.members(id) {
                // Last one wins for a repeated key, in the first one's place: serde_json's way.
                map.insert(member.key.to_string(), to_serde(doc, member.value));
            }
            S::Object(map)
        }
    }
}

/// Do two f64 differ by at most one unit in the last place? serde_json without its
/// `float_roundtrip` feature may round the last bit differently from the standard library.
fn close_f64(a: f64, b: f64) -> bool {
    a == b || (a.signum() == b.signum() && a.to_bits().abs_diff(b.to_bits()) <= 1)
}

/// Structural equality, keys in order, numbers as integers when both are, else as f64.
fn same(ours: &serde_json::Value, theirs: &serde_json::Value, at: &str) -> Result<(), String> {
    use serde_json::Value as S;
    let differ = || Err(format!("at {at:?}: ours {ours} vs serde_json {theirs}"));
    match (ours, theirs) {
        (S::Number(a), S::Number(b)) => {
            let equal = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => close_f64(a.as_f64().unwrap(), b.as_f64().unwrap()),
            };
            if equal {
                Ok(())
            } else {
                differ()
            }
        }
        (S::Array(a), S::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same(x, y, &format!("{at}/{i}"))?;
            }
            Ok(())
        }
        (S::Object(a), S::Object(b)) if a.len() == b.len() => {
            for ((ka, va), (kb, vb)) in a.iter().zip(b) {
                if ka != kb {
                    return Err(format!("at {at:?}: key {ka:?} vs serde_json's {kb:?}"));
                }
                same(va, vb, &format!("{at}/{ka}"))?;
            }
            Ok(())
        }
        (S::Array(_) | S::Object(_) | S::Number(_), _) => differ(),
        _ if ours == theirs => Ok(()),
        _ => differ(),
    }
}

/// Every node's and key's span covers exactly its token in `text`; strings and keys are checked
/// against serde_json's decoding of that token.
fn check_spans(doc: &Document<'_>, text: &str, id: NodeId, name: &str, out: &mut Vec<String>) {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        let span = doc.span(id);
        let Some(token) = text.get(span.start as usize..span.end as usize) else {
            out.push(format!("{name}: span {span:?} is not a slice of the text"));
            continue;
        };
        let ok = match doc.value(id) {
            Value::Null => token == "null",
            Value::Bool(b) => token == if *b { "true" } else { "false" },
            Value::Number(raw) => token == raw.as_ref(),
            Value::String(s) => {
                decodes_to(token, s)
                    && serde_json::from_str::<String>(token).map_or(true, |d| d == *s)
            }
            Value::Array { .. } => {
                stack.extend(doc.items(id));
                token.starts_with('[') && token.ends_with(']')
            }
            Value::Object { .. } => {
                for member in doc.members(id) {
                    let key_span = member.key_span;
                    let key = &text[key_span.start as usize..key_span.end as usize];
                    let key_ok = decodes_to(key, &member.key)
                        && serde_json::from_str::<String>(key).map_or(true, |d| d == member.key)
                        && key_span.end <= doc.span(member.value).start
                        && span.start < key_span.start;
                    if !key_ok {
                        out.push(format!("{name}: key span {key_span:?} covers {key:?}"));
                    }
                    stack.push(member.value);
                }
                token.starts_with('{') && token.ends_with('}')
            }
        };
        if !ok {
            out.push(format!(
                "{name}: span {span:?} covers {token:?} for {:?}",
                doc.value(id)
            ));
        }
    }
}

/// Is `token` a quoted string, and if it has no escapes, is it `decoded` itself?
fn decodes_to(token: &str, decoded: &str) -> bool {
    token.len() >= 2
        && token.starts_with('"')
        && token.ends_with('"')
        && (token.contains('\\') || token[1..token.len() - 1] == *decoded)
}

#[test]
fn the_comparison_sees_differences() {
    let doc =
        json::parse(r#"{"a": [1, 2.5, "x", null, {"b": true}], "c": -0, "d": 1e400}"#).unwrap();
    let ours = to_serde(&doc, doc.root());
    for (theirs, equal) in [
        (
            r#"{"a": [1, 2.5, "x", null, {"b": true}], "c": 0, "d": 0}"#,
            false,
        ),
        (
            r#"{"a": [1, 2.5, "x", null, {"b": true}], "c": 0, "d": "<non-finite number 1e400>"}"#,
            true,
        ),
        (
            r#"{"a": [1, 2.5, "x", null, {"b": true}], "c": 0.0, "d": "<non-finite number 1e400>"}"#,
            true,
        ),
        (
            r#"{"a": [1.0, 2.5, "x", null, {"b": true}], "c": 0, "d": "<non-finite number 1e400>"}"#,
            true,
        ),
        (
            r#"{"a": [1, 2.5000001, "x", null, {"b": true}], "c": 0, "d": "<non-finite number 1e400>"}"#,
            false,
        ),
        (
            r#"{"a": [1, 2.5, "y", null, {"b": true}], "c": 0, "d": "<non-finite number 1e400>"}"#,
            false,
        ),
        (
            r#"{"a": [1, 2.5, "x", null, {"b": 1}], "c": 0, "d": "<non-finite number 1e400>"}"#,
            false,
        ),
        (
            r#"{"a": [1, 2.5, "x", null], "c": 0, "d": "<non-finite number 1e400>"}"#,
            false,
        ),
        (
            r#"{"c": 0, "a": [1, 2.5, "x", null, {"b": true}], "d": "<non-finite number 1e400>"}"#,
            false,
        ),
    ] {
        let theirs: serde_json::Value = serde_json::from_str(theirs).unwrap();
        assert_eq!(same(&ours, &theirs, "").is_ok(), equal, "{theirs}");
    }
    assert!(close_f64(0.1 + 0.2, 0.3));
    assert!(!close_f64(1.0, 1.0 + 4.0 * f64::EPSILON));
}

#[test]
fn y_values_agree_with_serde_json() {
    let files = suite();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut skipped = Vec::new();
    for file in with_prefix(&files, "y_") {
        let theirs: serde_json::Value = match serde_json::from_slice(&file.bytes) {
            Ok(v) => v,
            Err(e) => {
                skipped.push(format!("{} ({e})", file.name));
                continue;
            }
        };
        // The file as it is, when its top level is an object.
        if let Ok(doc) = json::parse_bytes(&file.bytes) {
            let text = std::str::from_utf8(&file.bytes).unwrap();
            if let Err(why) = same(&to_serde(&doc, doc.root()), &theirs, "") {
                failures.push(format!("{}: {why}", file.name));
            }
            check_spans(&doc, text, doc.root(), &file.name, &mut failures);
            let root = doc.span(doc.root());
            if text[..root.start as usize].bytes().any(|b| !is_json_ws(b))
                || text[root.end as usize..].bytes().any(|b| !is_json_ws(b))
            {
                failures.push(format!(
                    "{}: the root span {root:?} is not the value",
                    file.name
                ));
            }
        }
        // Any file as a member's value.
        let wrapped = in_object(&file.bytes);
        let text = std::str::from_utf8(&wrapped).unwrap();
        match json::parse(text) {
            Ok(doc) => {
                let v = doc.get(doc.root(), "v").expect("the wrapper's member");
                if let Err(why) = same(&to_serde(&doc, v), &theirs, "/v") {
                    failures.push(format!("{} (wrapped): {why}", file.name));
                }
                check_spans(&doc, text, doc.root(), &file.name, &mut failures);
                compared += 1;
            }
            Err(e) => failures.push(format!("{} (wrapped): refused: {e}", file.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // serde_json takes every y_ file today; a skip must not hide a whole category.
    assert!(
        skipped.len() <= 2,
        "serde_json refused: {}",
        skipped.join(", ")
    );
    assert_eq!(compared + skipped.len(), 95);
}

#[test]
fn duplicate_keys_in_the_suite_are_recorded() {
    let files = suite();
    for (name, key) in [
        ("y_object_duplicated_key.json", "a"),
        ("y_object_duplicated_key_and_value.json", "a"),
    ] {
        let file = files.iter().find(|f| f.name == name).expect(name);
        let doc = json::parse_bytes(&file.bytes).unwrap();
        assert_eq!(doc.duplicates.len(), 1, "{name}");
        assert_eq!(doc.duplicates[0].key, key, "{name}");
        assert!(doc.duplicates[0].first < doc.duplicates[0].second, "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// Line endings, depth, error offsets

#[test]
fn crlf_line_endings_parse() {
    let text = "{\r\n  \"spec\": {\r\n    \"hyperparams\": {\"lr\": 1e-6, \"betas\": [0.9,\r\n \
                0.999]}\r\n  },\r\n  \"name\": \"a\\r\\nb\"\r\n}\r\n";
    let doc = json::parse(text).expect("CRLF is JSON whitespace");
    let root = doc.root();
    let spec = doc.get(root, "spec").unwrap();
    let hp = doc.get(spec, "hyperparams").unwrap();
    let betas = doc.get(hp, "betas").unwrap();
    let items: Vec<&Value> = doc.items(betas).iter().map(|&i| doc.value(i)).collect();
    assert_eq!(
        items,
        [&Value::Number("0.9".into()), &Value::Number("0.999".into())]
    );
    assert_eq!(doc.as_str(doc.get(root, "name").unwrap()), Some("a\r\nb"));
    let span = doc.span(betas);
    assert_eq!(
        &text[span.start as usize..span.end as usize],
        "[0.9,\r\n 0.999]"
    );
    assert_eq!(doc.span(root).start, 0);
    assert_eq!(doc.span(root).end as usize, text.len() - 2);
    let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
    same(&to_serde(&doc, root), &theirs, "").unwrap();

    // A raw CR or LF inside a string is still a control character.
    for (text, offset) in [("{\"a\": \"x\r\ny\"}", 8), ("{\"a\": \"x\ny\"}", 8)] {
        let err = json::parse(text).unwrap_err();
        assert_eq!(err.offset, offset, "{text:?}: {err}");
        assert!(err.message.contains("control character"), "{err}");
    }
    // A lone CR is whitespace too, and so is CR at the very end.
    assert!(json::parse("{\r\"a\":\r1\r}\r").is_ok());
}

/// Runs `f` on a thread with a small stack: a parser that recursed per nesting level would
/// overflow it long before the depths used here.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic and no stack overflow")
}

#[test]
fn thousand_deep_hyperparameter_arrays_parse() {
    on_small_stack(|| {
        let depth = 1_000;
        let text = format!(
            "{{\"spec\": {{\"hyperparams\": {{\"schedule\": {}0.5{}}}}}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let doc = json::parse(&text).expect("1,000 levels are fine");
        let spec = doc.get(doc.root(), "spec").unwrap();
        let hp = doc.get(spec, "hyperparams").unwrap();
        let mut at = doc.get(hp, "schedule").unwrap();
        let outer = doc.span(at);
        assert_eq!(outer.len(), 2 * depth + 3);
        for level in 0..depth {
            let items = doc.items(at);
            assert_eq!(items.len(), 1, "level {level}");
            let span = doc.span(at);
            assert_eq!(span.start as usize, outer.start as usize + level);
            assert_eq!(span.end as usize, outer.end as usize - level);
            at = items[0];
        }
        assert_eq!(doc.value(at), &Value::Number("0.5".into()));
        // With objects between the arrays, as a sweep over nested groups might be written.
        let text = format!(
            "{{\"hyperparams\": {}1{}}}",
            "[{\"g\": ".repeat(depth / 2),
            "}]".repeat(depth / 2)
        );
        assert!(json::parse(&text).is_ok());
    });
}

#[test]
fn hundred_thousand_deep_is_an_error_not_a_stack_overflow() {
    on_small_stack(|| {
        let n = 100_000;
        let prefix = "{\"a\": ";
        // The first bracket past MAX_DEPTH levels, counting the top-level object as one.
        let too_deep = prefix.len() + MAX_DEPTH - 1;
        let cases = [
            format!("{prefix}{}{}}}", "[".repeat(n), "]".repeat(n)),
            format!("{prefix}{}", "[".repeat(n)),
            format!("{}1{}", "{\"a\": ".repeat(n), "}".repeat(n)),
        ];
        for text in &cases {
            let err = json::parse(text).expect_err("deeper than MAX_DEPTH");
            assert!(err.message.contains("nesting deeper than"), "{err}");
            assert!(err.offset < text.len());
        }
        assert_eq!(json::parse(&cases[0]).unwrap_err().offset, too_deep);
        assert_eq!(json::parse(&cases[1]).unwrap_err().offset, too_deep);
        // Objects in objects: each level is 6 bytes, `{"a": `.
        assert_eq!(json::parse(&cases[2]).unwrap_err().offset, 6 * MAX_DEPTH);

        // The limit is exact: MAX_DEPTH levels in all parse, one more does not.
        let at_limit = format!(
            "{prefix}{}{}}}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(json::parse(&at_limit).is_ok());
        let over = format!(
            "{prefix}{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert_eq!(json::parse(&over).unwrap_err().offset, too_deep);

        // A deep non-object top level is reported as too deep, not as "not an object".
        let bare = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let err = json::parse(&bare).unwrap_err();
        assert!(err.message.contains("nesting deeper than"), "{err}");
        assert_eq!(err.offset, MAX_DEPTH);
    });
}

/// Every error's offset can be used to slice the lossy text, as the engine does.
fn check_offset(input: &[u8], what: &str, out: &mut Vec<String>) -> bool {
    match parse_catching(input) {
        Err(panic) => {
            out.push(format!("{what}: panicked: {panic}"));
            false
        }
        Ok(Ok(())) => false,
        Ok(Err(e)) => {
            let lossy = String::from_utf8_lossy(input);
            if e.offset > input.len() || !lossy.is_char_boundary(e.offset) || e.message.is_empty() {
                out.push(format!(
                    "{what}: offset {} of {} bytes (lossy {}), message {:?}",
                    e.offset,
                    input.len(),
                    lossy.len(),
                    e.message
                ));
            }
            true
        }
    }
}

#[test]
fn error_offsets_are_inside_the_input_on_a_char_boundary() {
    let files = suite();
    let mut failures = Vec::new();
    let mut errors = 0;
    for file in &files {
        for (how, input) in [
            ("raw", file.bytes.clone()),
            ("object", in_object(&file.bytes)),
            ("array", in_array(&file.bytes)),
        ] {
            errors += check_offset(&input, &format!("{} {how}", file.name), &mut failures) as usize;
        }
    }

    // Every truncation of the reference spec and of every y_ file that holds non-ASCII text,
    // many of them in the middle of a character.
    let mut sources: Vec<(String, Vec<u8>)> = vec![(
        "reference spec".into(),
        forgelint::rules::REFERENCE_SPEC.as_bytes().to_vec(),
    )];
    for file in with_prefix(&files, "y_").filter(|f| !f.bytes.is_ascii()) {
        sources.push((file.name.clone(), in_object(&file.bytes)));
    }
    sources.push((
        "non-ASCII keys and values".into(),
        "{\"clé\": \"valé\\u00e9ür\", \"日本\": [\"𝄞\", 1.5e3, true], \"ø\": {\"ß\": null}}"
            .as_bytes()
            .to_vec(),
    ));
    for (name, bytes) in &sources {
        assert!(json::parse_bytes(bytes).is_ok(), "{name} parses whole");
        // Up to the closing brace: trailing whitespace can go.
        let end = bytes.iter().rposition(|&b| !is_json_ws(b)).unwrap();
        for cut in 0..=end {
            let what = format!("{name} cut at {cut}");
            if !check_offset(&bytes[..cut], &what, &mut failures) {
                failures.push(format!("{what}: a truncated object was accepted"));
            }
            errors += 1;
        }
    }

    // Errors right next to multi-byte characters.
    for text in [
        "{\"a\": é}",
        "{\"é\": tru}",
        "{\"é\": trué}",
        "{\"a\": \"é\\é\"}",
        "{\"a\": \"\\u12é4\"}",
        "{\"a\": \"\\uD800\\u12é4\"}",
        "{\"a\": 1é}",
        "{\"a\": -é}",
        "{\"a\": 1.é}",
        "{\"a\": 1eé}",
        "{\"a\": 1 é}",
        "{é}",
        "{\"a\" é 1}",
        "{\"a\": [1 é]}",
        "{\"a\": 1}é",
        "é{}",
        "{\"a\": \"\u{2028}\u{7f}\"}\u{a0}",
        "{\"a\": \"𝄞\u{1}\"}",
        "{\"a\": \"𝄞\\",
        "{\"a\": \"𝄞\\u",
        "{\"a\": \"𝄞\\uD83",
        "\u{FEFF}",
        "\u{FEFF}{}",
        "{}\u{FEFF}",
        "{\"a\": \u{FEFF}1}",
    ] {
        if !check_offset(text.as_bytes(), &format!("{text:?}"), &mut failures) {
            failures.push(format!("{text:?}: accepted"));
        }
        errors += 1;
    }
    for bytes in [
        &b"{\"a\": \"\xC3\"}"[..],
        b"{\"a\": \"\xE6\x97\"}",
        b"{\"\xF0\x9D\x84\": 1}",
        b"{\"a\": 1}\xFF",
        b"\xEF\xBB{}",
        b"{\"a\": \"\xED\xA0\x80\"}",
    ] {
        if !check_offset(bytes, &show(bytes), &mut failures) {
            failures.push(format!("{}: accepted", show(bytes)));
        }
        errors += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(errors > 1_000, "only {errors} errors checked");
}
