//! Parsing and linting the reference spec (`rules/reference/jobspec.json`, about 1.5 KB).
//!
//! `cargo bench --bench parse`. Compares forgelint's span-recording parser with
//! `serde_json::Value`, measures `Document::member` lookups, and measures a whole lint of one
//! file: parse plus every built-in rule in the reference context (catalog, registries and GPU
//! quota set), as `forgelint check` runs it.

use std::sync::Arc;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use forgelint::case_runner::{REFERENCE_DIRS, REFERENCE_GPU_QUOTA, REFERENCE_REGISTRIES};
use forgelint::catalog::Catalog;
use forgelint::engine::{
    lint_bytes, lint_spec, Active, ExperimentLookup, FileName, LintInput, SpecInput,
};
use forgelint::platform_facts::Platform;
use forgelint::project::VirtualProject;
use forgelint::rules::{RuleSet, REFERENCE_CATALOG, REFERENCE_SPEC};
use forgelint::scratch::LintScratch;

fn main() {
    divan::main();
}

/// forgelint's parser: every key and value with its span.
#[divan::bench(sample_count = 1000, sample_size = 20)]
fn forgelint_parse(bencher: Bencher) {
    bencher
        .counter(BytesCount::of_str(REFERENCE_SPEC))
        .bench(|| forgelint::json::parse(black_box(REFERENCE_SPEC)).map(|doc| doc.root()));
}

/// `Document::member` lookups as the rules make them: present and absent keys, in objects of
/// different sizes.
#[divan::bench(sample_count = 1000, sample_size = 20)]
fn forgelint_member_lookups(bencher: Bencher) {
    let doc = forgelint::json::parse(REFERENCE_SPEC).expect("the reference spec parses");
    let root = doc.root();
    let spec = doc
        .get(root, "spec")
        .expect("the reference spec has a spec");
    let lookups = [
        (root, "apiVersion"),
        (root, "kind"),
        (root, "metadata"),
        (root, "status"),
        (spec, "resources"),
        (spec, "plugins"),
        (spec, "entrypoint"),
        (spec, "observability_url"),
    ];
    bencher.bench_local(|| {
        lookups
            .iter()
            .filter(|&&(object, key)| doc.member(object, black_box(key)).is_some())
            .count()
    });
}

/// serde_json into a `Value` tree (no spans), with the project's `preserve_order` feature.
#[divan::bench(sample_count = 1000, sample_size = 20)]
fn serde_json_value(bencher: Bencher) {
    bencher
        .counter(BytesCount::of_str(REFERENCE_SPEC))
        .bench(|| serde_json::from_str::<serde_json::Value>(black_box(REFERENCE_SPEC)));
}

/// One file end to end: UTF-8 check, parse and every built-in rule in the reference context.
#[divan::bench(sample_count = 1000, sample_size = 20)]
fn parse_and_lint_all_builtin_rules(bencher: Bencher) {
    let rules = RuleSet::builtin().expect("the built-in rules compile");
    let active: Vec<Active<'_>> = rules
        .rules
        .iter()
        .map(|rule| Active {
            rule,
            severity: rule.severity,
        })
        .collect();
    let catalog_text: Arc<str> = Arc::from(REFERENCE_CATALOG);
    let catalog = Catalog::parse("rules/reference/catalog.toml", &catalog_text, false)
        .expect("the reference catalog is valid");
    let platform = Platform {
        catalog: Some(Arc::new(catalog)),
        registries: Some(REFERENCE_REGISTRIES.map(String::from).to_vec()),
        gpu_quota: Some(REFERENCE_GPU_QUOTA),
        ..Platform::default()
    };
    let project = VirtualProject {
        dirs: REFERENCE_DIRS.map(String::from).to_vec(),
    };
    let path: Arc<str> = Arc::from("experiments/my-grpo/.starforge/jobspec.json");
    let bytes = REFERENCE_SPEC.as_bytes();
    // The reference spec passes every rule: this measures the clean path, with no finding to
    // locate or format.
    let table = forgelint::rules::selector_table(&rules.rules);
    let findings = lint_bytes(bytes, &path, &active, &table, &platform, &project);
    assert!(
        findings.is_empty(),
        "the reference spec has findings: {:?}",
        findings.iter().map(|f| &f.message).collect::<Vec<_>>()
    );
    // As a run's worker lints: its buffers reused from one file to the next.
    let input = SpecInput {
        lint: LintInput {
            rules: &active,
            table: &table,
            platform: &platform,
            project: &project,
        },
        experiment: ExperimentLookup::None,
    };
    let name = FileName::ready(path.clone());
    let mut scratch = LintScratch::default();
    bencher
        .counter(BytesCount::of_str(REFERENCE_SPEC))
        .bench_local(|| lint_spec(black_box(bytes), &name, &input, &mut scratch).findings);
}
