//! Running the passing and failing cases that rule files carry.
//!
//! A case is a spec (the reference spec patched, or a whole document) in a context (the reference
//! platform, with overrides). The same runner serves the built-in test suite and a platform
//! team's own rule files.

use std::sync::{Arc, OnceLock};

use crate::catalog::Catalog;
use crate::diagnostic::Finding;
use crate::engine::{lint_bytes, Active, VirtualProject};
use crate::platform::Platform;
use crate::rules::{Case, Rule, RuleSet, REFERENCE_CATALOG};

/// The reference context's registries allowlist.
pub const REFERENCE_REGISTRIES: [&str; 2] = ["nvcr.io", "registry.internal:5000"];
/// The reference context's GPU quota for every project.
pub const REFERENCE_GPU_QUOTA: u64 = 64;
/// Directories of the reference project root.
pub const REFERENCE_DIRS: [&str; 1] = ["experiments/my-grpo"];

fn reference_catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    CATALOG
        .get_or_init(|| {
            let text: Arc<str> = Arc::from(REFERENCE_CATALOG);
            Arc::new(
                Catalog::parse("rules/reference/catalog.toml", &text, false)
                    .expect("the reference catalog is valid"),
            )
        })
        .clone()
}

/// The platform a case runs against.
pub fn case_platform(case: &Case) -> Platform {
    let c = &case.context;
    Platform {
        kind: c
            .kind
            .clone()
            .unwrap_or_else(|| crate::platform::DEFAULT_KIND.into()),
        catalog: match &c.catalog {
            Some(catalog) => catalog.clone(),
            None => Some(reference_catalog()),
        },
        registries: Some(
            c.registries
                .clone()
                .unwrap_or_else(|| REFERENCE_REGISTRIES.map(String::from).to_vec()),
        ),
        gpu_quota: Some(c.gpu_quota.unwrap_or(REFERENCE_GPU_QUOTA)),
        project_quota: c.project_quota.clone().unwrap_or_default(),
    }
}

/// Lints a case's document with `rules` (all at their default severity).
pub fn run_case(case: &Case, rules: &[&Rule]) -> Result<Vec<Finding>, String> {
    let document = case.document()?;
    let platform = case_platform(case);
    let project = VirtualProject {
        dirs: case
            .context
            .dirs
            .clone()
            .unwrap_or_else(|| REFERENCE_DIRS.map(String::from).to_vec()),
    };
    let active: Vec<Active<'_>> = rules
        .iter()
        .map(|r| Active {
            rule: r,
            severity: r.severity,
        })
        .collect();
    let path: Arc<str> = Arc::from("case.json");
    let table = crate::rules::selector_table(rules.iter().copied());
    let mut findings = lint_bytes(
        document.as_bytes(),
        &path,
        &active,
        &table,
        &platform,
        &project,
    );
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(findings)
}

/// Checks that a case behaves as declared. With `all_rules`, a failing case must trigger no rule
/// but its own and those it lists in `also`, and a passing case no rule at all: one fault, one
/// finding. Returns what went wrong.
pub fn verify_case(rule: &Rule, case: &Case, all_rules: Option<&RuleSet>) -> Result<(), String> {
    let findings = match all_rules {
        Some(set) => run_case(case, &set.rules.iter().collect::<Vec<_>>())?,
        None => run_case(case, &[rule])?,
    };
    let own: Vec<&Finding> = findings.iter().filter(|f| *f.rule == rule.id).collect();
    let describe = |fs: &[&Finding]| {
        fs.iter()
            .map(|f| format!("{} at {:?} ({})", f.rule, f.pointer, f.message))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if case.valid {
        let unexpected: Vec<&Finding> = findings.iter().collect();
        if !unexpected.is_empty() {
            return Err(format!(
                "expected no finding, got: {}",
                describe(&unexpected)
            ));
        }
        return Ok(());
    }
    if own.is_empty() {
        return Err(format!(
            "expected `{}` to fire; it did not{}",
            rule.id,
            if findings.is_empty() {
                String::new()
            } else {
                format!(" (got: {})", describe(&findings.iter().collect::<Vec<_>>()))
            }
        ));
    }
    if let Some(n) = case.count {
        if own.len() != n {
            return Err(format!(
                "expected {n} finding(s) of `{}`, got {}: {}",
                rule.id,
                own.len(),
                describe(&own)
            ));
        }
    }
    if let Some(at) = &case.at {
        if !own.iter().any(|f| &f.pointer == at) {
            return Err(format!(
                "expected a finding at {at:?}, got: {}",
                describe(&own)
            ));
        }
    }
    let others: Vec<&Finding> = findings
        .iter()
        .filter(|f| *f.rule != rule.id && !case.also.iter().any(|a| *a == *f.rule))
        .collect();
    if all_rules.is_some() && !others.is_empty() {
        return Err(format!(
            "other rules fired too (list them in `also` if that is right): {}",
            describe(&others)
        ));
    }
    Ok(())
}
