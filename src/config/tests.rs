/// The file-name tests agree with the globs they stand for.
#[test]
fn include_by_name_agrees_with_the_globs() {
    let sets: [&[&str]; 4] = [
        &["**/jobspec.json", "**/*.jobspec.json"],
        &["**/spec.json"],
        &["**/*.json", "**/x"],
        &["**/*é.json"],
    ];
    let paths = [
        "jobspec.json",
        "a/jobspec.json",
        "/abs/a/jobspec.json",
        "a/b.jobspec.json",
        ".jobspec.json",
        "a/.jobspec.json",
        "jobspec.json.bak",
        "a/xjobspec.json",
        "a/jobspec.jsonx",
        "a/jobspec.json/b",
        "a//jobspec.json",
        "spec.json",
        "a/spec.json",
        "a/xspec.json",
        "x",
        "a/x",
        "a/xx",
        "a/é.json",
        "a/aé.json",
        "a/e.json",
        "a/.",
        "a/..",
        "",
    ];
    let files_of = |patterns: &[&str]| {
        let spanned: Vec<Spanned<String>> = patterns
            .iter()
            .map(|p| Spanned::new(0..0, p.to_string()))
            .collect();
        Files::compile("t", &Arc::from(""), &spanned, &[], &[]).unwrap()
    };
    for patterns in sets {
        let files = files_of(patterns);
        assert!(
            files.include_names.is_some(),
            "{patterns:?} are file-name tests"
        );
        for path in paths {
            let by_globs = files.include.is_match(path);
            match files.included_by_name(Path::new(path)) {
                Some(by_name) => assert_eq!(by_name, by_globs, "{patterns:?} on {path:?}"),
                None => assert!(path.is_empty() || path.ends_with('.'), "{path:?}"),
            }
        }
    }
    for patterns in [
        &["**/*.json", "specs/*.json"][..],
        &["**/a*b"],
        &["**/a.", "**/*"],
    ] {
        assert!(files_of(patterns).include_names.is_none(), "{patterns:?}");
    }
}

use super::*;

fn load(text: &str) -> Result<Settings, Error> {
    Settings::from_text(None, PathBuf::from("."), text, &[])
}

#[test]
fn unknown_keys_are_errors_with_did_you_mean() {
    let err = load("[platform]\ncatalg = \"x\"\n").unwrap_err();
    let Error::File(f) = err else { panic!() };
    assert!(
        f.message.contains("unknown field `catalg`"),
        "{}",
        f.message
    );
    assert_eq!(f.help.as_deref(), Some("did you mean `catalog`?"));
    assert_eq!(f.span, Some(11..17));
}

#[test]
fn quota_prefers_the_project_entry() {
    let s = load("[platform]\ngpu-quota = 64\n[platform.project-quota]\nbig-lab = 256\n").unwrap();
    assert_eq!(s.platform.quota_for(Some("big-lab")), Some(256));
    assert_eq!(s.platform.quota_for(Some("other")), Some(64));
    assert_eq!(s.platform.quota_for(None), Some(64));
}

#[test]
fn unknown_rule_ids_are_errors() {
    let err = load("[severity]\nowner-ignord = \"off\"\n").unwrap_err();
    let Error::File(f) = err else { panic!() };
    assert_eq!(f.help.as_deref(), Some("did you mean `owner-ignored`?"));
}
