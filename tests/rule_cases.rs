//! Every built-in rule's own passing and failing cases, run against the whole rule set: a passing
//! case must produce no finding at all, a failing case its own rule (and only the rules it lists
//! in `also`) — one fault, one finding.
//!
//! Each rule file also has a test of its own, named after its rule in snake case, so
//! `cargo test gpu_quota` runs the cases of `rules/gpu-quota.toml` alone. A rule file missing from
//! the list below fails `every_rule_file_has_a_test_of_its_own`. Each test also pins the findings
//! of its rule's failing cases in a snapshot (`tests/snapshots/rule_cases__findings__<id>.snap`).

use forgelint::case_runner::verify_case;
use forgelint::rules::RuleSet;

/// The cases of the built-in rule of `rules/<file>`, each as declared, run against the whole rule
/// set; the rule has passing and failing cases.
fn rule_file_cases_hold(test: &str, file: &str) {
    let id = file.strip_suffix(".toml").expect("a .toml rule file");
    assert_eq!(
        test,
        id.replace('-', "_"),
        "the test of {file} is named after its rule"
    );
    let set = RuleSet::builtin().expect("built-in rules compile");
    let rule = set
        .rules
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("rules/{file} defines no built-in rule {id:?}"));
    assert!(
        rule.cases().iter().any(|c| c.valid),
        "{id} has no [[valid]] case"
    );
    assert!(
        rule.cases().iter().any(|c| !c.valid),
        "{id} has no [[invalid]] case"
    );
    let failures: Vec<String> = rule
        .cases()
        .iter()
        .filter_map(|case| {
            verify_case(rule, case, Some(&set))
                .err()
                .map(|why| format!("{id} / {}: {why}", case.name))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        rule.cases().len(),
        failures.join("\n")
    );
    // The findings of every failing case, as forgelint prints them: pinned here, and shown on
    // the rule's page in docs/rules/.
    assert_named_snapshot!(
        format!("findings__{id}"),
        forgelint::ruledoc::failing_cases_findings(rule)
    );
}

/// One test per rule file: `name => "file.toml"`.
macro_rules! each_rule_file {
    ($($test:ident => $file:literal,)*) => {
        /// The rule files with a test of their own.
        const TESTED_RULE_FILES: &[&str] = &[$($file),*];

        /// One test per built-in rule file: `cargo test <rule_id>` runs that rule's cases.
        mod each_rule {
            $(
                #[test]
                fn $test() {
                    super::rule_file_cases_hold(stringify!($test), $file);
                }
            )*
        }
    };
}

each_rule_file! {
    api_version => "api-version.toml",
    config_invalid => "config-invalid.toml",
    core_version => "core-version.toml",
    corpus_format => "corpus-format.toml",
    corpus_host_path => "corpus-host-path.toml",
    dataset_format => "dataset-format.toml",
    digest_format => "digest-format.toml",
    digest_hex => "digest-hex.toml",
    duplicate_key => "duplicate-key.toml",
    entrypoint_set => "entrypoint-set.toml",
    exp_host_path => "exp-host-path.toml",
    exp_large_file => "exp-large-file.toml",
    exp_secret => "exp-secret.toml",
    git_dirty => "git-dirty.toml",
    gpu_quota => "gpu-quota.toml",
    hyperparam_unknown => "hyperparam-unknown.toml",
    image_registry => "image-registry.toml",
    image_required => "image-required.toml",
    init_from_format => "init-from-format.toml",
    invalid_json => "invalid-json.toml",
    kind => "kind.toml",
    missing_field => "missing-field.toml",
    name_format => "name-format.toml",
    observability_url_forbidden => "observability-url-forbidden.toml",
    observability_url_required => "observability-url-required.toml",
    owner_ignored => "owner-ignored.toml",
    plugin_id_format => "plugin-id-format.toml",
    plugin_leaf_collision => "plugin-leaf-collision.toml",
    pool_name_duplicate => "pool-name-duplicate.toml",
    pools_empty => "pools-empty.toml",
    recipe_handshake => "recipe-handshake.toml",
    recipe_unknown => "recipe-unknown.toml",
    role_pool => "role-pool.toml",
    source_exp_escape => "source-exp-escape.toml",
    source_exp_missing => "source-exp-missing.toml",
    suppression_without_reason => "suppression-without-reason.toml",
    unknown_field => "unknown-field.toml",
    unused_suppression => "unused-suppression.toml",
    wrong_type => "wrong-type.toml",
}

#[test]
fn every_rule_file_has_a_test_of_its_own() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("rules/ exists")
        .map(|e| {
            e.expect("a rules/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    assert_eq!(
        TESTED_RULE_FILES, files,
        "each_rule_file! in tests/rule_cases.rs lists every rules/*.toml, in order"
    );
}

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

/// Every built-in rule with a fix shows it on a failing case (`fixed` or `fixed-patch`), and
/// the fixes are the ones the contract lists, at the safety it gives.
#[test]
fn every_builtin_fix_has_a_case_with_the_fixed_text() {
    use forgelint::diagnostic::Safety;
    let set = RuleSet::builtin().unwrap();
    let fixes: Vec<(&str, Safety)> = set
        .rules
        .iter()
        .filter_map(|r| r.fix_safety().map(|s| (r.id.as_str(), s)))
        .collect();
    assert_eq!(
        fixes,
        [
            ("api-version", Safety::Unsafe),
            ("digest-hex", Safety::Safe),
            ("entrypoint-set", Safety::Unsafe),
            ("kind", Safety::Unsafe),
            ("observability-url-forbidden", Safety::Unsafe),
            ("owner-ignored", Safety::Safe),
            ("recipe-handshake", Safety::Unsafe),
            ("unknown-field", Safety::Unsafe),
        ]
    );
    for (id, _) in fixes {
        let rule = set.get(id).unwrap();
        assert!(
            rule.cases().iter().any(|c| c.fixed.is_some()),
            "{id} has a fix but no case with its fixed text"
        );
    }
}

/// The rule ids of the product contract (SPEC.md), exactly.
const SPEC_RULES: [&str; 39] = [
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
    // Experiment directories.
    "exp-host-path",
    "exp-secret",
    "hyperparam-unknown",
    "config-invalid",
    "exp-large-file",
    "unused-suppression",
    // The SPEC asks for a warning on a suppression without a reason and names no id for it:
    // it is a rule of its own, so that a team can turn it off and keep `unused-suppression`.
    "suppression-without-reason",
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
