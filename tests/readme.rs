//! The README's rule table is the rule files' own ids, severities and summaries.

use forgelint::rules::RuleSet;

#[test]
fn readme_rule_table_matches_the_rule_files() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let start = readme.find("<!-- rules:start -->").expect("start marker");
    let end = readme.find("<!-- rules:end -->").expect("end marker");
    let rows: Vec<Vec<String>> = readme[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().replace("\\|", "|"))
                .collect()
        })
        .collect();
    let set = RuleSet::builtin().unwrap();
    let expected: Vec<Vec<String>> = set
        .rules
        .iter()
        .map(|r| {
            let needs = r.needs.names();
            vec![
                format!("`{}`", r.id),
                r.severity.to_string(),
                if needs.is_empty() {
                    "—".to_string()
                } else {
                    needs.join(", ")
                },
                r.summary.clone(),
            ]
        })
        .collect();
    assert_eq!(
        rows, expected,
        "regenerate the README table from `forgelint rules --format json`"
    );
}

#[test]
fn readme_starts_with_the_two_setup_commands() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let block: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("```sh"))
        .skip(1)
        .take(2)
        .collect();
    assert_eq!(
        block,
        ["cargo run --release -- fixtures/demo", "cargo test"]
    );
    let ci = std::fs::read_to_string(".ci/run").unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs the README's test command"
    );
}
