//! The rules of a run that cannot run at all: every check of theirs needs context (a catalog,
//! registries, a quota) that the configuration does not give. Decided once per run, grouped by
//! what is missing, so the summary can say which rules did not run and what would make them.

use crate::engine::Active;
use crate::platform_facts::{Needs, Platform};
use crate::report::Skipped;
use crate::rules::plan::check_needs;
use crate::rules::Rule;

/// The active rules that cannot run with `platform`, one group per missing context (catalog,
/// then registries, then quota; a rule whose checks lack different contexts is grouped under
/// all of them), each with its rules in run order.
pub fn skipped(rules: &[Active<'_>], platform: &Platform) -> Vec<Skipped> {
    let available = platform.available();
    let mut groups: Vec<(Needs, Vec<String>)> = Vec::new();
    for active in rules {
        let Some(missing) = blocked_by(active.rule, available) else {
            continue;
        };
        let id = active.rule.id.clone();
        match groups.iter_mut().find(|(needs, _)| *needs == missing) {
            Some((_, ids)) => ids.push(id),
            None => groups.push((missing, vec![id])),
        }
    }
    groups.sort_by_key(|(needs, _)| order(*needs));
    groups
        .into_iter()
        .map(|(missing, rules)| {
            let (reasons, settings): (Vec<String>, Vec<&str>) = CONTEXTS
                .iter()
                .filter(|(has, _, _)| has(missing))
                .map(|(_, name, setting)| (format!("no {name}"), *setting))
                .unzip();
            Skipped {
                reason: reasons.join(", "),
                setting: settings.join(" and "),
                rules,
            }
        })
        .collect()
}

/// Each context a check can need: whether `needs` asks for it, its name, and the
/// configuration that provides it.
type Context = (fn(Needs) -> bool, &'static str, &'static str);
const CONTEXTS: [Context; 3] = [
    (|n| n.catalog, "catalog", "[platform] catalog"),
    (|n| n.registries, "registries", "[platform] registries"),
    (
        |n| n.quota,
        "quota",
        "[platform] gpu-quota or [platform.project-quota]",
    ),
];

/// Groups in the order of [`CONTEXTS`]: catalog first.
fn order(needs: Needs) -> Vec<usize> {
    (0..CONTEXTS.len())
        .filter(|&i| (CONTEXTS[i].0)(needs))
        .collect()
}

/// What keeps every check of `rule` from running with the `available` context, or `None` when
/// some check can run (or the rule has no checks: its work is done elsewhere).
fn blocked_by(rule: &Rule, available: Needs) -> Option<Needs> {
    if rule.checks.is_empty() {
        return None;
    }
    let mut missing = Needs::default();
    for check in &rule.checks {
        let needs = check_needs(check);
        let lacking = Needs {
            catalog: needs.catalog && !available.catalog,
            registries: needs.registries && !available.registries,
            quota: needs.quota && !available.quota,
        };
        if lacking == Needs::default() {
            return None;
        }
        missing = missing.union(lacking);
    }
    Some(missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::rules::RuleSet;

    fn ids(groups: &[Skipped]) -> Vec<(&str, &str, Vec<&str>)> {
        groups
            .iter()
            .map(|g| {
                (
                    g.reason.as_str(),
                    g.setting.as_str(),
                    g.rules.iter().map(String::as_str).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn the_builtin_rules_without_context_are_grouped_by_what_is_missing() {
        let set = RuleSet::builtin().unwrap();
        let active: Vec<Active<'_>> = set
            .rules
            .iter()
            .map(|rule| Active {
                rule,
                severity: Severity::Error,
            })
            .collect();
        let groups = skipped(&active, &Platform::default());
        let none = ids(&groups);
        assert_eq!(
            none,
            [
                (
                    "no catalog",
                    "[platform] catalog",
                    vec![
                        "observability-url-forbidden",
                        "observability-url-required",
                        "recipe-handshake",
                        "recipe-unknown"
                    ]
                ),
                (
                    "no registries",
                    "[platform] registries",
                    vec!["image-registry"]
                ),
                (
                    "no quota",
                    "[platform] gpu-quota or [platform.project-quota]",
                    vec!["gpu-quota"]
                ),
            ]
        );
        // A per-project quota is a quota; registries make image-registry run.
        let mut platform = Platform {
            registries: Some(vec!["nvcr.io".into()]),
            ..Platform::default()
        };
        platform.project_quota.insert("my-lab".into(), 8);
        let groups = skipped(&active, &platform);
        let some = ids(&groups);
        assert_eq!(some.len(), 1, "{some:?}");
        assert_eq!(some[0].0, "no catalog");
    }
}
