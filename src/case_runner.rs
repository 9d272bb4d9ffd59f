//! Running the passing and failing cases that rule files carry.
//!
//! A case is a spec (the reference spec patched, or a whole document) in a context (the reference
//! platform, with overrides). The same runner serves the built-in test suite and a platform
//! team's own rule files.

use std::sync::{Arc, OnceLock};

use crate::catalog::Catalog;
use crate::diagnostic::Finding;
use std::path::Path;

use crate::engine::{
    lint_spec, Active, ExperimentLookup, FileName, LintInput, LoadedConfig, SpecInput,
};
use crate::formats::ConfigFormat;
use crate::platform_facts::Platform;
use crate::project::VirtualProject;
use crate::rules::eval::Others;
use crate::rules::{Case, Rule, RuleSet, REFERENCE_CATALOG};
use crate::scratch::LintScratch;

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
            .unwrap_or_else(|| crate::platform_facts::DEFAULT_KIND.into()),
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
        experiments: Default::default(),
    }
}

/// Lints a case with `rules` (all at their default severity): its file, for a case of a rule
/// on experiment files; else its spec (with the case's experiment config, if it has one).
pub fn run_case(case: &Case, rules: &[&Rule]) -> Result<Vec<Finding>, String> {
    run_case_on(case, &case.document()?, rules)
}

/// [`run_case`] on `document` instead of the case's own (a fixed one).
fn run_case_on(case: &Case, document: &str, rules: &[&Rule]) -> Result<Vec<Finding>, String> {
    let platform = case_platform(case);
    let project = VirtualProject {
        dirs: case
            .context
            .dirs
            .clone()
            .unwrap_or_else(|| REFERENCE_DIRS.map(String::from).to_vec()),
    };
    let experiment = case.file.is_some();
    let active: Vec<Active<'_>> = rules
        .iter()
        .filter(|r| r.target.is_experiment() == experiment)
        .map(|r| Active {
            rule: r,
            severity: r.severity,
        })
        .collect();
    let config = case.config.as_ref().map(|(name, text)| CaseConfig {
        name: name.clone(),
        text: text.clone(),
    });
    let mut findings = match &case.file {
        Some((file, text)) => {
            lint_case_file(document, file, text, config.as_ref(), &active, &platform)?
        }
        None => {
            let path: Arc<str> = Arc::from("case.json");
            let name = FileName::ready(path);
            let table = crate::rules::selector_table(active.iter().map(|a| a.rule));
            // A config whose name is not YAML, TOML or JSON is no config for the spec.
            let loaded = config.as_ref().and_then(|c| c.loaded().ok());
            let input = SpecInput {
                lint: LintInput {
                    rules: &active,
                    table: &table,
                    platform: &platform,
                    project: &project,
                },
                experiment: match &loaded {
                    Some(config) => ExperimentLookup::Config(config),
                    None => ExperimentLookup::None,
                },
            };
            let mut scratch = LintScratch::default();
            lint_spec(document.as_bytes(), &name, &input, &mut scratch).findings
        }
    };
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(findings)
}

/// A case's experiment config file.
struct CaseConfig {
    name: String,
    text: String,
}

impl CaseConfig {
    fn loaded(&self) -> Result<LoadedConfig, String> {
        let format = ConfigFormat::of_path(Path::new(&self.name))
            .ok_or_else(|| format!("`config-file` {:?} is not YAML, TOML or JSON", self.name))?;
        Ok(LoadedConfig {
            path: Arc::from(self.name.as_str()),
            file: std::path::PathBuf::from(&self.name),
            text: Arc::from(self.text.as_str()),
            format,
        })
    }
}

/// Lints the experiment file of a case, `file` in the experiment, with the case's spec
/// (`spec_text`) as the spec that names the experiment.
fn lint_case_file(
    spec_text: &str,
    file: &str,
    text: &str,
    config: Option<&CaseConfig>,
    rules: &[Active<'_>],
    platform: &Platform,
) -> Result<Vec<Finding>, String> {
    let spec = crate::json::parse(spec_text).map_err(|e| format!("the case's spec: {e}"))?;
    let loaded = config.map(CaseConfig::loaded).transpose()?;
    let docs = match &loaded {
        Some(c) => Some(
            crate::formats::parse_config(c.format, &c.text)
                .map_err(|e| format!("the case's config: {e}"))?,
        ),
        None => None,
    };
    let config = match (&loaded, &docs) {
        (Some(c), Some(docs)) => c.first(docs),
        _ => None,
    };
    let others = Others {
        spec: Some(&spec),
        config,
        composed: None,
    };
    Ok(crate::experiment::lint_in_memory(
        Path::new(file),
        text,
        rules,
        platform,
        &others,
    ))
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
            .map(|f| match f.pointer.as_str() {
                "" => format!(
                    "{} at {}:{} ({})",
                    f.rule, f.start.line, f.start.column, f.message
                ),
                pointer => format!("{} at {pointer:?} ({})", f.rule, f.message),
            })
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
        if !own
            .iter()
            .any(|f| &f.pointer == at || format!("{}:{}", f.start.line, f.start.column) == *at)
        {
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
    match &case.fixed {
        Some(expected) => verify_fixed(rule, case, own.into_iter().cloned().collect(), expected),
        None => Ok(()),
    }
}

/// Applies every fix (safe and unsafe) of the rule's findings to the case's document and
/// compares the result with what the case expects.
fn verify_fixed(
    rule: &Rule,
    case: &Case,
    own: Vec<Finding>,
    expected: &crate::rules::Fixed,
) -> Result<(), String> {
    let document = case.document()?;
    let expected = match expected {
        crate::rules::Fixed::Text(text) => text.clone(),
        crate::rules::Fixed::Patch(patch) => crate::rules::apply_patch(&document, patch)
            .map_err(|m| format!("bad `fixed-patch`: {m}"))?,
    };
    let lint = |text: &str| run_case_on(case, text, &[rule]).unwrap_or_default();
    let fixed =
        crate::fix::apply::fix_text(&document, own, crate::diagnostic::Applicability::All, &lint)
            .map_err(|bug| format!("the fix would break the document: {}", bug.message))?;
    if fixed.applied == 0 {
        return Err("expected the fixed text; no fix applied".into());
    }
    if fixed.text != expected {
        let (line, want, got) = expected
            .split('\n')
            .map(Some)
            .chain(std::iter::repeat(None))
            .zip(
                fixed
                    .text
                    .split('\n')
                    .map(Some)
                    .chain(std::iter::repeat(None)),
            )
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| (i + 1, a.unwrap_or("(end)"), b.unwrap_or("(end)")))
            .unwrap_or((0, "", ""));
        return Err(format!(
            "the fixed text differs from `fixed` at line {line}: expected {want:?}, the fix gives {got:?}"
        ));
    }
    Ok(())
}
