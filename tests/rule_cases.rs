//! Every built-in rule's own passing and failing cases, run against the whole rule set: a passing
//! case must produce no finding at all, a failing case its own rule (and only the rules it lists
//! in `also`) — one fault, one finding.

use forgelint::cases::verify_case;
use forgelint::rules::RuleSet;

#[test]
fn every_builtin_rule_case_behaves_as_declared() {
    let set = RuleSet::builtin().expect("built-in rules compile");
    let mut failures = Vec::new();
    let mut ran = 0;
    for rule in &set.rules {
        for case in &rule.cases {
            ran += 1;
            if let Err(why) = verify_case(rule, case, Some(&set)) {
                failures.push(format!("{} / {}: {why}", rule.id, case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {ran} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_builtin_rule_has_passing_and_failing_cases() {
    let set = RuleSet::builtin().unwrap();
    for rule in &set.rules {
        assert!(rule.cases.iter().any(|c| c.valid), "{} has no [[valid]] case", rule.id);
        assert!(rule.cases.iter().any(|c| !c.valid), "{} has no [[invalid]] case", rule.id);
    }
}
