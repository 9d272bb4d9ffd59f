//! The example policy pack (rules/examples/): rule files a platform team writes without Rust.
//! Each loads as a user rule folder and its own cases hold.

use std::path::Path;

use forgelint::cases::verify_case;
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
    assert!(ran >= 12);
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
