//! Positions: those of the offending key or value, in UTF-16 columns.

use super::*;

#[test]
fn positions_are_those_of_the_offending_key_or_value_in_utf16_columns() {
    // Line 7 holds CJK (1 UTF-16 unit, 3 bytes each) and emoji (2 units, 4 bytes each) before
    // the offending value and key: bytes, chars and UTF-16 units all differ.
    let spec = patch(
        &reference(),
        "\"owner\": \"\",\n    \"labels\": { \"team\": \"reasoning\" }",
        r#""labels": { "チーム": "推論🚀", "emoji": "👩‍👩‍👧" }, "owner": "bob", "colour": 1"#,
    );
    let owner = spec.find(r#""bob""#).unwrap();
    let colour = spec.find(r#""colour""#).unwrap();
    assert_eq!((line_of(&spec, owner), utf16_column(&spec, owner)), (7, 64));
    assert_eq!(
        (line_of(&spec, colour), utf16_column(&spec, colour)),
        (7, 71)
    );

    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("lf.jobspec.json", &spec)
        .write("crlf.jobspec.json", spec.replace('\n', "\r\n"));
    for name in ["lf.jobspec.json", "crlf.jobspec.json"] {
        let run = tree.run(&["--no-config", "--format", "concise", name]);
        run.expect_code(0);
        let got: Vec<(String, String)> = run
            .findings()
            .into_iter()
            .map(|f| (f.position, f.rule))
            .collect();
        assert_eq!(
            got,
            [
                ("7:64".to_string(), "owner-ignored".to_string()),
                ("7:71".to_string(), "unknown-field".to_string()),
            ],
            "{name}"
        );
        let human = tree.run(&["--no-config", name]);
        assert!(
            human.stdout.contains(&format!("{name}:7:64]")),
            "{}",
            human.stdout
        );
    }

    // One line: columns count UTF-16 units from the start of the file.
    let minified = minify(&patch(
        &spec,
        r#""git_dirty": false"#,
        r#""git_dirty": true"#,
    ));
    let dirty = minified.find("true").unwrap();
    tree.write("min.jobspec.json", &minified);
    let run = tree.run(&["--no-config", "--format", "concise", "min.jobspec.json"]);
    let got: Vec<(String, String)> = run
        .findings()
        .into_iter()
        .map(|f| (f.position, f.rule))
        .collect();
    let at = |offset: usize| format!("1:{}", utf16_column(&minified, offset));
    assert_eq!(
        got,
        [
            (
                at(minified.find(r#""bob""#).unwrap()),
                "owner-ignored".to_string()
            ),
            (
                at(minified.find(r#""colour""#).unwrap()),
                "unknown-field".to_string()
            ),
            (at(dirty), "git-dirty".to_string()),
        ]
    );

    // A duplicate key: the second one, after a line of emoji.
    let dup = patch(
        &reference(),
        r#""project": "my-lab","#,
        "\"project\": \"my-lab\",\n    \"note\": \"🚀🚀🚀\", \"project\": \"big-lab\",",
    );
    tree.write("dup.jobspec.json", &dup);
    let run = tree.run(&["--no-config", "--format", "concise", "dup.jobspec.json"]);
    run.expect_code(1);
    let second = dup.rfind(r#""project""#).unwrap();
    let findings = run.findings();
    let duplicate = findings
        .iter()
        .find(|f| f.rule == "duplicate-key")
        .unwrap_or_else(|| panic!("no duplicate-key in\n{}", run.stdout));
    assert_eq!(
        duplicate.position,
        format!("{}:{}", line_of(&dup, second), utf16_column(&dup, second))
    );
    assert_eq!(duplicate.position, "7:23");
}
