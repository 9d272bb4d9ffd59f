//! Fixes on generated specs: the reference spec with a random set of fixable faults, written
//! compact, as the reference is, minified or pretty-printed. For every one:
//! - `--fix --unsafe-fixes` leaves none of the fixed findings (the fixer's own check) and the
//!   document means what the fixes say (owner and entrypoint gone, versions from the catalog,
//!   the misspelt key renamed, the digest lower-cased);
//! - every byte outside the edits of the fixes is unchanged;
//! - fixing the result again changes nothing.

use std::sync::Arc;

use forgelint::catalog::Catalog;
use forgelint::diagnostic::Applicability;
use forgelint::diagnostic::Finding;
use forgelint::engine::{lint_bytes, Active};
use forgelint::fix::apply::fix_text;
use forgelint::platform_facts::Platform;
use forgelint::project::VirtualProject;
use forgelint::rules::{RuleSet, REFERENCE_CATALOG, REFERENCE_SPEC};
use proptest::prelude::*;
use serde_json::{json, Value};

const CASES: u32 = 300;

/// The faults a spec may have, each with what its fix makes of the document.
#[derive(Debug, Clone, Copy)]
struct Faults {
    owner: bool,
    api_version: bool,
    kind: bool,
    entrypoint: bool,
    old_recipe: bool,
    upper_digest: bool,
    misspelt: bool,
}

#[derive(Debug, Clone, Copy)]
enum Layout {
    AsWritten,
    Minified,
    Pretty,
}

fn faulty(faults: Faults) -> Value {
    let mut doc: Value = serde_json::from_str(REFERENCE_SPEC).unwrap();
    if faults.owner {
        doc["metadata"]["owner"] = json!("alice@lab");
    }
    if faults.api_version {
        doc["apiVersion"] = json!("forge/v1");
    }
    if faults.kind {
        doc["kind"] = json!("InferenceJob");
    }
    if faults.entrypoint {
        doc["spec"]["source"]["entrypoint"] = json!("torchrun train.py");
    }
    if faults.old_recipe {
        doc["spec"]["recipe"]["version"] = json!("0.6.3");
        doc["spec"]["framework"]["runtime_id"] = json!("nemo-rl-0.6.3-cu124");
    }
    if faults.upper_digest {
        let digest = doc["spec"]["recipe"]["digest"]
            .as_str()
            .unwrap()
            .to_uppercase();
        doc["spec"]["recipe"]["digest"] = json!(digest.replacen("SHA256", "sha256", 1));
    }
    if faults.misspelt {
        let pool = doc["spec"]["resources"]["pools"][0]
            .as_object_mut()
            .unwrap();
        let n = pool.remove("gpus_per_node").unwrap();
        pool.insert("gpu_per_node".into(), n);
    }
    doc
}

/// The document once fixed: the reference spec with the owner emptied fault gone.
fn expected(faults: Faults) -> Value {
    let mut doc: Value = serde_json::from_str(REFERENCE_SPEC).unwrap();
    if faults.owner {
        doc["metadata"].as_object_mut().unwrap().remove("owner");
    }
    doc
}

fn text_of(doc: &Value, layout: Layout) -> String {
    match layout {
        Layout::Minified => serde_json::to_string(doc).unwrap(),
        Layout::Pretty => serde_json::to_string_pretty(doc).unwrap(),
        // The reference's own layout, with the faults written into it.
        Layout::AsWritten => {
            let mut text = REFERENCE_SPEC.to_string();
            let reference: Value = serde_json::from_str(REFERENCE_SPEC).unwrap();
            if *doc == reference {
                return text;
            }
            // Values changed in place keep the layout; keys added or renamed go through serde.
            for (from, to) in [
                (
                    r#""owner": """#,
                    format!(r#""owner": {}"#, doc["metadata"]["owner"]),
                ),
                (
                    r#""apiVersion": "forge/v2""#,
                    format!(r#""apiVersion": {}"#, doc["apiVersion"]),
                ),
                (
                    r#""kind": "TrainingJob""#,
                    format!(r#""kind": {}"#, doc["kind"]),
                ),
            ] {
                if doc
                    .pointer(&format!("/{}", from.split('"').nth(1).unwrap()))
                    .is_some()
                    || from.contains("owner")
                {
                    text = text.replacen(from, &to, 1);
                }
            }
            let reparsed: Value = serde_json::from_str(&text).unwrap();
            if reparsed == *doc {
                text
            } else {
                serde_json::to_string_pretty(doc).unwrap()
            }
        }
    }
}

struct Linter {
    rules: RuleSet,
    platform: Platform,
}

impl Linter {
    fn new() -> Linter {
        let catalog = Catalog::parse("catalog.toml", &Arc::from(REFERENCE_CATALOG), false).unwrap();
        Linter {
            rules: RuleSet::builtin().unwrap(),
            platform: Platform {
                catalog: Some(Arc::new(catalog)),
                ..Platform::default()
            },
        }
    }

    fn lint(&self, text: &str) -> Vec<Finding> {
        let active: Vec<Active<'_>> = self
            .rules
            .rules
            .iter()
            .filter(|r| !r.target.is_experiment())
            .map(|rule| Active {
                rule,
                severity: rule.severity,
            })
            .collect();
        let table = forgelint::rules::selector_table(active.iter().map(|a| a.rule));
        let project = VirtualProject {
            dirs: vec!["experiments/my-grpo".into()],
        };
        lint_bytes(
            text.as_bytes(),
            &Arc::from("spec.json"),
            &active,
            &table,
            &self.platform,
            &project,
        )
    }
}

fn faults() -> impl Strategy<Value = Faults> {
    prop::array::uniform7(any::<bool>()).prop_map(|b| Faults {
        owner: b[0],
        api_version: b[1],
        kind: b[2],
        entrypoint: b[3],
        old_recipe: b[4],
        upper_digest: b[5],
        misspelt: b[6],
    })
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        Just(Layout::AsWritten),
        Just(Layout::Minified),
        Just(Layout::Pretty)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn fixes_fix_and_touch_nothing_else(faults in faults(), layout in layout()) {
        let linter = Linter::new();
        let text = text_of(&faulty(faults), layout);
        let findings = linter.lint(&text);
        let edits: Vec<(usize, usize)> = findings
            .iter()
            .filter_map(|f| f.fix.as_deref())
            .flat_map(|fix| fix.edits.iter().map(|e| (e.span.start as usize, e.span.end as usize)))
            .collect();
        let lint = |t: &str| linter.lint(t);
        let fixed = fix_text(&text, findings, Applicability::All, &lint)
            .unwrap_or_else(|bug| panic!("{}: {}", bug.rule, bug.message));
        // What the document means now.
        let value: Value = serde_json::from_str(&fixed.text).unwrap();
        prop_assert_eq!(&value, &expected(faults), "{}", fixed.text);
        prop_assert!(fixed.findings.iter().all(|f| f.fix.is_none()), "{:?}", fixed.findings);
        // The bytes outside every edit of the first pass are all there, in order: the fixed
        // text is the untouched segments with something (the replacements) between them.
        let segments = untouched(&text, &edits);
        let mut at = 0;
        for (i, segment) in segments.iter().enumerate() {
            let found = if i == 0 {
                fixed.text.starts_with(segment).then_some(0)
            } else {
                fixed.text[at..].find(segment.as_str()).map(|k| at + k)
            };
            prop_assert!(found.is_some(), "{:?} is gone from\n{}", segment, fixed.text);
            at = found.unwrap_or(0) + segment.len();
        }
        if let Some(last) = segments.last() {
            prop_assert!(fixed.text.ends_with(last.as_str()));
        }
        // A second fix is a no-op.
        let again = fix_text(&fixed.text, fixed.findings, Applicability::All, &lint).unwrap();
        prop_assert_eq!(again.applied, 0);
        prop_assert_eq!(&again.text, &fixed.text);
    }
}

/// The pieces of `text` outside the byte ranges `edits` (which may overlap).
fn untouched(text: &str, edits: &[(usize, usize)]) -> Vec<String> {
    let mut edits = edits.to_vec();
    edits.sort();
    let mut out = Vec::new();
    let mut from = 0;
    for (start, end) in edits {
        if start > from {
            out.push(text[from..start].to_string());
        }
        from = from.max(end);
    }
    out.push(text[from..].to_string());
    out
}
