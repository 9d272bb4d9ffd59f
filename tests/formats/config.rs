//! YAML, TOML and JSON config files through the public API: values, spans, pointers, aliases and
//! the limits that keep hostile input bounded.

use forgelint::diagnostic::Span;
use forgelint::formats::{parse_config, ConfigFormat};
use forgelint::json::{Document, NodeId, Value};
use forgelint::select::Selector;

fn yaml(text: &str) -> Document<'_> {
    let mut docs = parse_config(ConfigFormat::Yaml, text).unwrap();
    assert_eq!(docs.len(), 1, "{text}");
    docs.remove(0)
}

fn at(text: &str, span: Span) -> &str {
    &text[span.start as usize..span.end as usize]
}

/// The node at a path of keys (objects) and indexes (arrays).
fn path(doc: &Document<'_>, steps: &[&str]) -> NodeId {
    let mut node = doc.root();
    for step in steps {
        node = match step.parse::<usize>() {
            Ok(i) => doc.items(node)[i],
            Err(_) => doc.get(node, step).unwrap_or_else(|| panic!("no {step}")),
        };
    }
    node
}

#[test]
fn yaml_scalars_resolve_and_keep_their_tokens() {
    let text = "a: 1\nb: \"q\\\"x\"\nc: 'sq'\nd: ~\ne:\nf: true\ng: 0x1F\nh: +1.5\n\
                i: .inf\nj: -.NaN\nk: 1_000\nl: !!str 5\nm: &s plain value\nn: 1E3\n\
                o: |\n  block\n  text\np: 007\nq: FALSE\n";
    let doc = yaml(text);
    let cases: [(&str, Value, &str); 17] = [
        ("a", Value::Number("1".into()), "1"),
        ("b", Value::String("q\"x".into()), "\"q\\\"x\""),
        ("c", Value::String("sq".into()), "'sq'"),
        ("d", Value::Null, "~"),
        ("e", Value::Null, ""),
        ("f", Value::Bool(true), "true"),
        ("g", Value::Number("31".into()), "0x1F"),
        ("h", Value::Number("1.5".into()), "+1.5"),
        ("i", Value::String(".inf".into()), ".inf"),
        ("j", Value::String("-.NaN".into()), "-.NaN"),
        ("k", Value::String("1_000".into()), "1_000"),
        ("l", Value::String("5".into()), "5"),
        ("m", Value::String("plain value".into()), "plain value"),
        ("n", Value::Number("1E3".into()), "1E3"),
        ("o", Value::String("block\ntext\n".into()), "block\n  text"),
        ("p", Value::Number("7".into()), "007"),
        ("q", Value::Bool(false), "FALSE"),
    ];
    for (key, value, token) in cases {
        let member = doc.member(doc.root(), key).unwrap();
        assert_eq!(at(text, member.key_span), key);
        assert_eq!(doc.value(member.value), &value, "{key}");
        assert_eq!(at(text, doc.span(member.value)), token, "{key}");
        assert_eq!(doc.pointer_of(member.value), format!("/{key}"));
    }
}

#[test]
fn yaml_collections_span_their_text() {
    let text = "top:\n  list:\n  - x\n  - {f: g, h: [1, 2]}\n  flow: [a, b]\n  empty: {}\nend: 1\n";
    let doc = yaml(text);
    let top = path(&doc, &["top"]);
    assert_eq!(
        at(text, doc.span(top)),
        "list:\n  - x\n  - {f: g, h: [1, 2]}\n  flow: [a, b]\n  empty: {}"
    );
    let list = path(&doc, &["top", "list"]);
    assert_eq!(at(text, doc.span(list)), "- x\n  - {f: g, h: [1, 2]}");
    let inner = path(&doc, &["top", "list", "1"]);
    assert_eq!(at(text, doc.span(inner)), "{f: g, h: [1, 2]}");
    let two = path(&doc, &["top", "list", "1", "h", "1"]);
    assert_eq!(doc.pointer_of(two), "/top/list/1/h/1");
    assert_eq!(at(text, doc.span(two)), "2");
    assert_eq!(at(text, doc.span(path(&doc, &["top", "flow"]))), "[a, b]");
    assert_eq!(at(text, doc.span(path(&doc, &["top", "empty"]))), "{}");
    assert_eq!(at(text, doc.span(doc.root())), text.trim_end());
}

#[test]
fn yaml_streams_give_one_document_each() {
    let docs = parse_config(ConfigFormat::Yaml, "--- 1\n---\na: b\n...\n--- [x]\n").unwrap();
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0].value(docs[0].root()), &Value::Number("1".into()));
    assert_eq!(
        docs[1].as_str(docs[1].get(docs[1].root(), "a").unwrap()),
        Some("b")
    );
    assert_eq!(docs[2].items(docs[2].root()).len(), 1);
    for empty in ["", "# just a comment\n", "\n\n"] {
        assert!(parse_config(ConfigFormat::Yaml, empty).unwrap().is_empty());
    }
}

#[test]
fn yaml_aliases_copy_and_merge_keys_merge() {
    let text = "base: &b\n  lr: 0.1\n  steps: 10\nextra: &e {seed: 3, steps: 5}\n\
                copy: *b\none: &o\n  <<: *b\n  steps: 20\nboth:\n  <<: [*e, *b]\n  lr: 1\nagain: [*o]\n";
    let doc = yaml(text);
    let copy = path(&doc, &["copy"]);
    assert_eq!(doc.pointer_of(path(&doc, &["copy", "lr"])), "/copy/lr");
    assert_eq!(at(text, doc.span(copy)), "lr: 0.1\n  steps: 10");
    let keys = |node| -> Vec<String> {
        let members = doc.members(node);
        members.iter().map(|m| m.key.to_string()).collect()
    };
    assert_eq!(keys(path(&doc, &["one"])), ["lr", "steps"]);
    // Explicit keys win over merged ones.
    let one_steps = path(&doc, &["one", "steps"]);
    assert_eq!(doc.value(one_steps), &Value::Number("20".into()));
    let one_lr = path(&doc, &["one", "lr"]);
    assert_eq!(doc.pointer_of(one_lr), "/one/lr");
    assert_eq!(at(text, doc.span(one_lr)), "0.1");
    assert_eq!(keys(path(&doc, &["both"])), ["seed", "steps", "lr"]);
    assert_eq!(
        doc.value(path(&doc, &["both", "steps"])),
        &Value::Number("5".into())
    );
    assert_eq!(doc.pointer_of(path(&doc, &["both", "lr"])), "/both/lr");
    // A copy of a merged mapping is the merged mapping.
    let again = path(&doc, &["again", "0"]);
    assert_eq!(keys(again), ["lr", "steps"]);
    let steps = path(&doc, &["again", "0", "steps"]);
    assert_eq!(doc.pointer_of(steps), "/again/0/steps");
    assert_eq!(at(text, doc.span(steps)), "20");
}

#[test]
fn yaml_duplicate_keys_are_recorded() {
    let text = "a: 1\nb: 2\na: 3\n";
    let doc = yaml(text);
    assert_eq!(doc.duplicates.len(), 1);
    let dup = &doc.duplicates[0];
    assert_eq!(
        (dup.key.as_str(), dup.first, dup.second),
        ("a", Span::new(0, 1), Span::new(10, 11))
    );
    assert_eq!(doc.value(path(&doc, &["a"])), &Value::Number("3".into()));
}

#[test]
fn yaml_alias_bomb_is_refused() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..=9 {
        let prev = format!("*a{}", level - 1);
        let items = [prev.as_str(); 9].join(", ");
        text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    let err = parse_config(ConfigFormat::Yaml, &text).unwrap_err();
    assert!(err.message.contains("nodes"), "{err}");
    assert!(text[err.offset..].starts_with('*'), "{err:?}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let flow = "[".repeat(100_000);
    assert!(parse_config(ConfigFormat::Yaml, &flow).is_err());
    let block: String = (0..100_000).map(|_| "- ").collect();
    let err = parse_config(ConfigFormat::Yaml, &block).unwrap_err();
    assert!(err.message.contains("nesting"), "{err}");
    let toml = format!("a = {}", "[".repeat(100_000));
    assert!(parse_config(ConfigFormat::Toml, &toml).is_err());
    let json = format!("{{\"a\": {}", "[".repeat(100_000));
    assert!(parse_config(ConfigFormat::Json, &json).is_err());
}

#[test]
fn crlf_bom_and_unicode_keep_byte_spans() {
    let text = "\u{feff}名前: \"ü\"\r\nlist:\r\n  - é\r\n  - 2\r\n";
    let doc = yaml(text);
    let name = doc.member(doc.root(), "名前").unwrap();
    assert_eq!(at(text, name.key_span), "名前");
    assert_eq!(at(text, doc.span(name.value)), "\"ü\"");
    let second = path(&doc, &["list", "1"]);
    assert_eq!(at(text, doc.span(second)), "2");
    assert_eq!(at(text, doc.span(path(&doc, &["list", "0"]))), "é");
    assert_eq!(doc.pointer_of(second), "/list/1");

    let toml = "\u{feff}[\"名前\"]\r\n\"ä\" = 1_0\r\n";
    let docs = parse_config(ConfigFormat::Toml, toml).unwrap();
    let value = path(&docs[0], &["名前", "ä"]);
    assert_eq!(at(toml, docs[0].span(value)), "1_0");
    assert_eq!(docs[0].value(value), &Value::Number("10".into()));
}

#[test]
fn invalid_files_fail_at_the_fault() {
    for (format, text, offset) in [
        (ConfigFormat::Yaml, "a: 1\nb: c: d\n", 9),
        (ConfigFormat::Yaml, "a: [1, 2\n", 9),
        (ConfigFormat::Yaml, "é: *nope\n", 4),
        (ConfigFormat::Yaml, "? [a]\n: 1\n", 2),
        (ConfigFormat::Toml, "a = 1\nb = \n", 10),
        (ConfigFormat::Toml, "a = 1\na = 2\n", 6),
        (ConfigFormat::Json, "{\"a\": }", 6),
    ] {
        let err = parse_config(format, text).unwrap_err();
        assert_eq!(err.offset, offset, "{text:?}: {err}");
        assert!(text.is_char_boundary(err.offset));
    }
    let err = parse_config(ConfigFormat::Yaml, "a: 1\nb: c: d\n").unwrap_err();
    assert_eq!(
        err.message,
        "line 2, column 5: mapping values are not allowed in this context"
    );
}

#[test]
fn toml_converts_with_spans() {
    let text = "name = \"run\"\n[trainer]\nsteps = 0x10\nlr = 1e-3\n[[data]]\npath = \"a\"\n";
    let docs = parse_config(ConfigFormat::Toml, text).unwrap();
    let doc = &docs[0];
    let steps = path(doc, &["trainer", "steps"]);
    assert_eq!(doc.value(steps), &Value::Number("16".into()));
    assert_eq!(at(text, doc.span(steps)), "0x10");
    assert_eq!(
        doc.pointer_of(path(doc, &["data", "0", "path"])),
        "/data/0/path"
    );
    let lr = doc.member(path(doc, &["trainer"]), "lr").unwrap();
    assert_eq!(
        (at(text, lr.key_span), at(text, doc.span(lr.value))),
        ("lr", "1e-3")
    );
}

#[test]
fn selectors_resolve_over_yaml() {
    let text = "spec:\n  tasks:\n  - name: a\n    image: x:1\n  - name: b\n    image: y:2\n";
    let doc = yaml(text);
    let selector = Selector::parse("spec.tasks[*].image").unwrap();
    let resolution = selector.resolve(&doc);
    let found: Vec<(&str, &str, String)> = resolution
        .found
        .iter()
        .map(|m| {
            let key = m.key_span.map_or("", |s| at(text, s));
            (key, at(text, doc.span(m.node)), m.pointer(&doc))
        })
        .collect();
    assert_eq!(
        found,
        [
            ("image", "x:1", "/spec/tasks/0/image".to_string()),
            ("image", "y:2", "/spec/tasks/1/image".to_string())
        ]
    );
}

#[test]
fn json_parses_as_before() {
    let docs = parse_config(ConfigFormat::Json, "{\"a\": [1]}").unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].pointer_of(path(&docs[0], &["a", "0"])), "/a/0");
}
