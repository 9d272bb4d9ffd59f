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
        for case in rule.cases() {
            ran += 1;
            if let Err(why) = verify_case(rule, case, Some(&set)) {
                failures.push(format!("{} / {}: {why}", rule.id, case.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_builtin_rule_has_passing_and_failing_cases() {
    let set = RuleSet::builtin().unwrap();
    for rule in &set.rules {
        assert!(
            rule.cases().iter().any(|c| c.valid),
            "{} has no [[valid]] case",
            rule.id
        );
        assert!(
            rule.cases().iter().any(|c| !c.valid),
            "{} has no [[invalid]] case",
            rule.id
        );
    }
}

/// The rule ids of the product contract (SPEC.md), exactly.
const SPEC_RULES: [&str; 32] = [
    "invalid-json",
    "duplicate-key",
    "wrong-type",
    "unknown-field",
    "missing-field",
    "api-version",
    "kind",
    "owner-ignored",
    "entrypoint-set",
    "image-required",
    "image-registry",
    "observability-url-required",
    "observability-url-forbidden",
    "init-from-format",
    "corpus-host-path",
    "corpus-format",
    "pools-empty",
    "gpu-quota",
    "plugin-id-format",
    "digest-format",
    "digest-hex",
    "plugin-leaf-collision",
    "recipe-unknown",
    "recipe-handshake",
    "core-version",
    "role-pool",
    "pool-name-duplicate",
    "name-format",
    "source-exp-escape",
    "source-exp-missing",
    "git-dirty",
    "dataset-format",
];

#[test]
fn every_spec_rule_id_is_a_builtin_rule_and_nothing_else() {
    let set = RuleSet::builtin().unwrap();
    let mut ids: Vec<&str> = set.rules.iter().map(|r| r.id.as_str()).collect();
    let mut spec = SPEC_RULES.to_vec();
    ids.sort();
    spec.sort();
    assert_eq!(ids, spec);
}
