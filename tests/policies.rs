//! The example policy pack (rules/examples/): rule files a platform team writes without Rust.
//! Each loads as a user rule folder and its own cases hold.

use std::path::Path;

use forgelint::case_runner::verify_case;
use forgelint::rules::RuleSet;

#[test]
fn example_policies_load_and_their_cases_hold() {
    let mut set = RuleSet::default();
    set.load_path(Path::new("rules/examples"))
        .expect("example policies compile");
    let ids: Vec<&str> = set.rules.iter().map(|r| r.id.as_str()).collect();
    for expected in [
        "labels-team-required",
        "series-allowlist",
        "learning-rate-bound",
        "plugin-limit",
        "recipe-project",
        "forbidden-hyperparam",
        "config-precision",
        "no-local-cache",
        "fp8-needs-h200",
        "h200-full-nodes",
        "torch-load-weights-only",
        "lab-token",
    ] {
        assert!(ids.contains(&expected), "{expected} missing from {ids:?}");
    }
    let mut ran = 0;
    for rule in &set.rules {
        assert!(rule.cases().iter().any(|c| c.valid) && rule.cases().iter().any(|c| !c.valid));
        for case in rule.cases() {
            ran += 1;
            if let Err(why) = verify_case(rule, case, None) {
                panic!("{} / {}: {why}", rule.id, case.name);
            }
        }
    }
    assert!(ran >= 20);
}

#[test]
fn example_policies_load_beside_the_builtin_rules() {
    let mut set = RuleSet::builtin().unwrap();
    set.load_path(Path::new("rules/examples")).unwrap();
    assert!(set.get("plugin-limit").is_some() && set.get("gpu-quota").is_some());
    // Loading the same folder again is a duplicate-id error pointing at the rule file.
    let err = set.load_path(Path::new("rules/examples")).unwrap_err();
    assert!(err.to_string().contains("duplicate rule id"), "{err}");
}

/// `{limit}`, `{length}` and `{pattern}` give the raw values the `{expected}` phrase is made of;
/// each failing case of the rule file renders the message pinned here.
#[test]
fn raw_placeholders_render_in_messages() {
    use forgelint::case_runner::run_case;
    let mut set = RuleSet::default();
    set.load_path(Path::new("tests/data/rules/raw-placeholders.toml"))
        .expect("the rule file compiles");
    let rule = &set.rules[0];
    let mut messages = Vec::new();
    for case in rule.cases() {
        verify_case(rule, case, None).unwrap_or_else(|why| panic!("{}: {why}", case.name));
        let findings = run_case(case, &[rule]).expect("the case runs");
        messages.extend(findings.into_iter().map(|f| f.message));
    }
    assert_eq!(
        messages,
        [
            "metadata.labels.team has 18 characters, more than 12 (a length of at most 12)",
            "spec.resources.pools is an array of 2 items: 2 pools, at most 1",
            "spec.resources.roles has 0 roles, needs at least 1",
            "spec.resources.pools[0].nodes is 8, above the limit of 4 (at most 4)",
            "metadata.name must match ^[a-z0-9-]+$, found \"GRPO\"",
        ]
    );
}

/// The raw placeholders belong to their predicates: elsewhere they are unknown placeholders,
/// an error when the rule file is loaded.
#[test]
fn raw_placeholders_are_unknown_where_the_predicate_has_none() {
    use forgelint::rules::compile_rule;
    let head = "id = \"x\"\nseverity = \"error\"\nsummary = \"x\"\n\n[[check]]\nselect = \"metadata.name\"\n";
    for (predicate, message, wanted) in [
        ("matches = '^a'", "{limit}", "unknown placeholder `{limit}`"),
        (
            "maximum = 4",
            "{pattern}",
            "unknown placeholder `{pattern}`",
        ),
        (
            "present = true",
            "{length}",
            "unknown placeholder `{length}`",
        ),
        ("min-length = 1", "{lenght}", "did you mean `{length}`?"),
    ] {
        let text = format!("{head}{predicate}\nmessage = \"{message}\"\n");
        let err = compile_rule("x.toml", text.into(), false).expect_err(predicate);
        assert!(err.to_string().contains(wanted), "{predicate}: {err}");
    }
}

/// Item conditions (`@.…`) are checked when the rule file loads: their selector, read from the
/// check's item, must fit the jobspec shape; they stand directly in a check's `when`.
#[test]
fn item_conditions_are_checked_when_the_rule_loads() {
    let rule = |when: &str| {
        format!(
            "id = \"x\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n[[check]]\nselect = \"spec.resources.pools[*].gpus_per_node\"\nequals = 8\nwhen = [{when}]\n"
        )
    };
    let compile = |text: String| {
        forgelint::rules::compile_rule("x.toml", std::sync::Arc::from(text), false)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        compile(rule("{ select = \"@.series\", equals = \"h200\" }")),
        Ok(())
    );
    let err = compile(rule("{ select = \"@.seriess\", equals = \"h200\" }")).unwrap_err();
    assert!(err.contains("spec.resources.pools[*].seriess"), "{err}");
    let err = compile(rule(
        "{ any = [{ select = \"@.series\", equals = \"h200\" }] }",
    ))
    .unwrap_err();
    assert!(err.contains("directly in a check's `when`"), "{err}");
    let err = compile(rule("{ select = \"@series\", equals = \"h200\" }")).unwrap_err();
    assert!(err.contains("bad selector"), "{err}");
}
