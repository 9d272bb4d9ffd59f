//! `docs/rules/<id>.md` (what SARIF's helpUri points at) is generated from the rule files and kept
//! in sync here. Run with `FORGELINT_UPDATE_DOCS=1` to regenerate.

use forgelint::ruledoc::rule_doc;
use forgelint::rules::RuleSet;

#[test]
fn rule_docs_are_in_sync_with_the_rule_files() {
    let set = RuleSet::builtin().unwrap();
    let update = std::env::var_os("FORGELINT_UPDATE_DOCS").is_some();
    std::fs::create_dir_all("docs/rules").unwrap();
    let mut stale = Vec::new();
    for rule in &set.rules {
        let path = format!("docs/rules/{}.md", rule.id);
        let expected = rule_doc(rule);
        if update {
            std::fs::write(&path, &expected).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(expected.as_str()) {
            stale.push(path);
        }
    }
    let on_disk = std::fs::read_dir("docs/rules").unwrap().count();
    assert_eq!(
        on_disk,
        set.rules.len(),
        "docs/rules holds a page per built-in rule and nothing else"
    );
    assert!(
        stale.is_empty(),
        "stale docs (run FORGELINT_UPDATE_DOCS=1 cargo test --test tests docs::): {stale:?}"
    );
}
