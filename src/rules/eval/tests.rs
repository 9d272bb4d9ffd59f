#[test]
fn last_keys_are_unescaped() {
    for (pointer, key) in [
        ("", ""),
        ("/a", "a"),
        ("/a/b", "b"),
        ("/a/b~1c~0d", "b/c~d"),
        ("/a/~01", "~1"),
        ("/x/", ""),
    ] {
        assert_eq!(super::last_key(pointer), key, "{pointer:?}");
    }
}

/// The quiet paths (the rule's plan, then `quietly_passes`) never pass a value that
/// `assert` reports, on values chosen to sit on the edges: null, empty, wrong types,
/// integers written as floats, missing keys.
#[test]
fn the_quiet_path_agrees_with_assert() {
    use super::{assert, quietly_passes, Context};
    let checks = [
        ("type", "\"string\""),
        ("type", "\"integer\""),
        ("type", "[\"number\", \"null\"]"),
        ("type", "\"object\""),
        ("type", "\"array\""),
        ("type", "\"boolean\""),
        ("present", "true"),
        ("non-empty", "true"),
        ("empty", "true"),
        ("matches", "'^a'"),
        ("not-matches", "'b$'"),
        ("min-length", "2"),
        ("max-length", "1"),
        ("semver", "true"),
        ("keys", "[\"k\"]"),
        ("keys", "[]"),
    ];
    let keys = [
        "s", "e", "n", "i", "f", "x", "z", "t", "o", "a", "v", "missing",
    ];
    let mut text = String::from("id = \"t\"\nseverity = \"error\"\nsummary = \"t\"\n");
    text.push_str("message = \"m\"\nexplanation = \"t\"\n");
    for key in keys {
        for (name, value) in checks {
            text.push_str(&format!(
                "[[check]]\nselect = \"spec.hyperparams.d.{key}\"\n{name} = {value}\n"
            ));
        }
        // A condition the plan decides.
        text.push_str(&format!(
                "[[check]]\nselect = \"spec.hyperparams.d.s\"\nwhen = [{{ select = \"spec.hyperparams.d.{key}\", non-empty = true }}]\nabsent = true\n"
            ));
    }
    let rule = super::super::compile::compile_rule("t.toml", text.into(), false)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mut set = super::super::RuleSet::default();
    set.add(rule).unwrap();
    set.sort();
    let table = super::super::selector_table(&set.rules);
    let platform = crate::platform_facts::Platform::default();
    let project = crate::project::VirtualProject { dirs: Vec::new() };
    for doc_text in [
        r#"{"d": {"s": "abc", "e": "", "n": null, "i": 3, "f": 3.0, "x": 1e2, "z": -0,
                "t": true, "o": {}, "a": [], "v": "1.2.3"}}"#,
        r#"{"d": {"s": "b", "e": [1], "n": {"k": 1}, "i": "3", "f": [], "x": null,
                "t": "true", "o": {"k": null}, "a": [null], "v": "1.2"}}"#,
        r#"{"d": null}"#,
        r#"{"d": 5}"#,
    ] {
        // Below a free map: a selector outside the forge/v2 shape does not compile.
        let wrapped = format!(r#"{{"spec": {{"hyperparams": {doc_text}}}}}"#);
        let doc = crate::json::parse(&wrapped).unwrap();
        let mut resolved = crate::select::Resolutions::default();
        resolved.resolve(&table, &doc);
        let ctx = Context {
            doc: &doc,
            platform: &platform,
            recipe: None,
            project: &project,
            resolved: &resolved,
            faults: &super::Faults::default(),
            others: &super::Others::NONE,
            suggestions: &Default::default(),
        };
        let mut quiet = 0;
        let rule = &set.rules[0];
        for (step, check) in rule.plan.iter().zip(&rule.checks) {
            let holds = check.when.iter().all(|c| super::holds(c, &ctx));
            match step.when(&doc, &resolved) {
                crate::rules::plan::When::Holds => assert!(holds, "{doc_text}: {check:?}"),
                crate::rules::plan::When::Fails => assert!(!holds, "{doc_text}: {check:?}"),
                crate::rules::plan::When::Unknown => panic!("undecided: {check:?}"),
            }
            if !holds {
                continue;
            }
            let res = resolved.get(check.select.id).expect("shared selector");
            let mut hits = super::Hits::new(1000);
            assert(check, &ctx, res, &mut hits);
            if step.passes(&doc, &resolved) || quietly_passes(check, &ctx, res) {
                quiet += 1;
                assert!(
                    hits.is_empty(),
                    "{doc_text}: {} {:?} passed quietly but reports {hits:?}",
                    check.select,
                    check.assertion
                );
            }
        }
        assert!(quiet > 0, "the quiet path is taken");
    }
}

/// Repeats are found alike by the pairwise comparison (up to 16 items) and the map of keys
/// seen (more): each repeat paired with the earliest item of its key, items without a key
/// skipped.
#[test]
fn repeats_pair_with_the_earliest() {
    use crate::select::Match;
    for len in [0usize, 1, 2, 5, 16, 17, 40] {
        let items: Vec<Match> = (0..len as u32)
            .map(|i| Match {
                node: i,
                key_span: None,
            })
            .collect();
        // Keys in pairs of neighbours, from a small alphabet; every seventh item has none.
        let key = |m: &Match| (m.node % 7 != 3).then_some(m.node / 2 % 5);
        let mut found = Vec::new();
        super::for_each_repeat(&items, key, |m, first| found.push((m.node, first.node)));
        let mut expected = Vec::new();
        for m in &items {
            let Some(k) = key(m) else { continue };
            if let Some(first) = items
                .iter()
                .take_while(|e| e.node < m.node)
                .find(|e| key(e) == Some(k))
            {
                expected.push((m.node, first.node));
            }
        }
        assert_eq!(found, expected, "{len} items");
    }
}
