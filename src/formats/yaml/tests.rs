use super::*;

fn one(text: &str) -> Document<'_> {
    let mut docs = parse(text).unwrap();
    assert_eq!(docs.len(), 1, "{text}");
    docs.remove(0)
}

fn at(text: &str, span: Span) -> &str {
    &text[span.start as usize..span.end as usize]
}

#[test]
fn anchors_on_keys_and_scalars_serve_as_keys_and_values() {
    let text = "&k name: &v run\n*v : *k\nother: *v\n";
    let doc = one(text);
    let keys: Vec<&str> = doc.members(doc.root()).iter().map(|m| &*m.key).collect();
    assert_eq!(keys, ["name", "run", "other"]);
    let run = doc.get(doc.root(), "run").unwrap();
    assert_eq!(doc.as_str(run), Some("name"));
    assert_eq!(at(text, doc.span(run)), "name");
    let other = doc.get(doc.root(), "other").unwrap();
    assert_eq!(at(text, doc.span(other)), "run");
}

#[test]
fn properties_are_not_part_of_the_token() {
    let text = "a: &x # why\n  b: !!int 3\nc: ! 4\nd: !custom 5\n";
    let doc = one(text);
    let a = doc.get(doc.root(), "a").unwrap();
    assert_eq!(at(text, doc.span(a)), "b: !!int 3");
    let b = doc.get(a, "b").unwrap();
    assert_eq!(
        (doc.value(b), at(text, doc.span(b))),
        (&Value::Number("3".into()), "3")
    );
    let c = doc.get(doc.root(), "c").unwrap();
    assert_eq!(doc.value(c), &Value::String("4".into()));
    let d = doc.get(doc.root(), "d").unwrap();
    assert_eq!(doc.value(d), &Value::Number("5".into()));
}

#[test]
fn block_nesting_stops_at_max_depth() {
    // Block sequences nest on one line: `- - - x`.
    let nested = |levels: usize| format!("{}x", "- ".repeat(levels));
    assert!(parse(&nested(MAX_DEPTH)).is_ok());
    let err = parse(&nested(MAX_DEPTH + 1)).unwrap_err();
    assert!(err.message.contains("nesting"), "{err}");
    // Aliases cannot stack past it either.
    let levels = MAX_DEPTH / 2 + 10;
    let text = format!(
        "a: &a\n  {}x\nb:\n  {}*a\n",
        "- ".repeat(levels),
        "- ".repeat(levels)
    );
    let err = parse(&text).unwrap_err();
    assert!(err.message.contains("nesting"), "{err}");
}

#[test]
fn anchors_belong_to_their_document() {
    let err = parse("a: &x 1\n---\nb: *x\n").unwrap_err();
    assert_eq!(err.offset, 15, "{err}");
}

#[test]
fn merges_of_non_mappings_are_dropped_and_quoted_merge_keys_are_keys() {
    let text = "a: &l [1]\nb:\n  <<: *l\n  c: 1\nd:\n  '<<': 2\n";
    let doc = one(text);
    let b = doc.get(doc.root(), "b").unwrap();
    let keys: Vec<&str> = doc.members(b).iter().map(|m| &*m.key).collect();
    assert_eq!(keys, ["c"]);
    let d = doc.get(doc.root(), "d").unwrap();
    assert!(doc.get(d, "<<").is_some());
}

#[test]
fn the_budget_counts_every_document() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..=4 {
        let items = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{items}]\n"));
    }
    // About 123,000 nodes a document: ten documents pass the budget together.
    assert!(parse(&text).is_ok());
    let stream = format!("---\n{text}").repeat(10);
    assert!(parse(&stream).is_err());
}

#[test]
fn spans_stop_before_trailing_spaces_and_comments() {
    let text =
        "k: [a, {b: c}]   # x\nz: {a: 1}  \np: x y   # c\nr: \"a\\\"b\"  # \"\nq: 'it''s'  \n";
    let doc = one(text);
    let span = |key: &str| at(text, doc.span(doc.get(doc.root(), key).unwrap()));
    assert_eq!(span("k"), "[a, {b: c}]");
    assert_eq!(span("z"), "{a: 1}");
    assert_eq!(span("p"), "x y");
    assert_eq!(span("r"), "\"a\\\"b\"");
    assert_eq!(span("q"), "'it''s'");
    assert_eq!(
        at(text, doc.span(doc.root())),
        text.trim_end_matches("  \n")
    );
}
