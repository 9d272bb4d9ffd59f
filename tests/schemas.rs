//! The JSON Schemas of `forgelint schema` (committed under `schemas/`): valid draft 2020-12
//! schemas, in sync with the command, and faithful to the linter — a spec, config or rule file
//! forgelint accepts is never refused by its schema, and the faults a schema can express are.
//! Run with `FORGELINT_UPDATE_SCHEMAS=1` to regenerate the committed files.

use std::path::Path;
use std::process::Command;

use forgelint::case_runner::run_case;
use forgelint::rules::{RuleSet, Target, REFERENCE_SPEC};
use forgelint::schema;
use forgelint::schema::Kind as SchemaKind;
use serde_json::Value;

const KINDS: [SchemaKind; 3] = SchemaKind::ALL;

fn validator(kind: SchemaKind) -> jsonschema::Validator {
    let schema = schema::generate(kind).expect("the schema is generated");
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// The validation errors of `instance`, one line each (empty: valid).
fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A TOML file as the JSON value editors validate (taplo converts the same way).
fn toml_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    toml_text(&text)
}

fn toml_text(text: &str) -> Value {
    let value: toml::Value = toml::from_str(text).expect("valid TOML");
    serde_json::to_value(value).expect("TOML as JSON")
}

fn files_in(dir: &str, ext: &str) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no .{ext} file in {dir}");
    out
}

#[test]
fn committed_schemas_match_the_command() {
    let update = std::env::var_os("FORGELINT_UPDATE_SCHEMAS").is_some();
    std::fs::create_dir_all("schemas").unwrap();
    let mut stale = Vec::new();
    for kind in KINDS {
        let path = format!("schemas/{}", kind.file_name());
        let expected = schema::text(kind).unwrap();
        if update {
            std::fs::write(&path, &expected).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(expected.as_str()) {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "stale schemas (run FORGELINT_UPDATE_SCHEMAS=1 cargo test --test tests schemas::): {stale:?}"
    );
}

#[test]
fn the_command_prints_each_schema() {
    for (arg, kind) in [
        ("jobspec", KINDS[0]),
        ("config", KINDS[1]),
        ("rule", KINDS[2]),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_forgelint"))
            .args(["schema", arg])
            .output()
            .unwrap();
        assert!(out.status.success(), "schema {arg}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            schema::text(kind).unwrap()
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_forgelint"))
        .args(["schema", "sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_schema_is_valid_against_the_2020_12_metaschema() {
    for kind in KINDS {
        let schema = schema::generate(kind).unwrap();
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{}: {e}", kind.file_name());
        }
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(
            schema["$id"],
            format!("https://forgelint.dev/schemas/{}", kind.file_name()).as_str()
        );
    }
}

#[test]
fn the_reference_spec_validates() {
    let v = validator(SchemaKind::Jobspec);
    let spec = json_file(Path::new("rules/reference/jobspec.json"));
    assert_eq!(errors(&v, &spec), Vec::<String>::new());
}

/// The rules whose findings the jobspec schema may stand for.
fn enforced() -> Vec<String> {
    schema::jobspec::enforced(&RuleSet::builtin().unwrap())
}

/// The rules forgelint reports on a demo spec (with the demo's config).
fn demo_findings(path: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_forgelint"))
        .args(["check", "--format", "json", "--quiet"])
        .arg(path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn demo_specs_without_a_schema_fault_validate() {
    let v = validator(SchemaKind::Jobspec);
    let enforced = enforced();
    let mut valid = 0;
    for path in files_in("fixtures/demo/specs", "json") {
        // Not JSON (a hand-edited spec with a trailing comma): nothing to validate.
        let Ok(spec) = serde_json::from_str::<Value>(&std::fs::read_to_string(&path).unwrap())
        else {
            continue;
        };
        let findings = demo_findings(&path);
        let errs = errors(&v, &spec);
        if findings.iter().all(|r| !enforced.contains(r)) {
            assert!(errs.is_empty(), "{}: {errs:?}", path.display());
            valid += 1;
        } else {
            assert!(!errs.is_empty(), "{}: {findings:?}", path.display());
        }
    }
    assert!(valid >= 1, "no demo spec validates");
}

/// Specs forgelint refuses for a reason the schema states, as merge patches of the reference.
const REFUSED: [(&str, &str); 14] = [
    ("wrong apiVersion", r#"{"apiVersion": "forge/v1"}"#),
    ("no apiVersion", r#"{"apiVersion": null}"#),
    ("no kind", r#"{"kind": null}"#),
    (
        "zero nodes",
        r#"{"spec": {"resources": {"pools": [{"name": "t", "series": "h200", "nodes": 0, "gpus_per_node": 8}]}}}"#,
    ),
    (
        "negative GPUs",
        r#"{"spec": {"resources": {"pools": [{"name": "t", "series": "h200", "nodes": 1, "gpus_per_node": -1}]}}}"#,
    ),
    ("unknown top-level key", r#"{"status": {}}"#),
    (
        "misspelt pool key",
        r#"{"spec": {"resources": {"pools": [{"name": "t", "series": "h200", "nodes": 1, "gpu_per_node": 8}]}}}"#,
    ),
    ("missing metadata.name", r#"{"metadata": {"name": null}}"#),
    ("empty project", r#"{"metadata": {"project": ""}}"#),
    ("no pools", r#"{"spec": {"resources": {"pools": []}}}"#),
    (
        "md5 digest",
        r#"{"spec": {"recipe": {"digest": "md5:abc"}}}"#,
    ),
    (
        "short digest",
        r#"{"spec": {"recipe": {"digest": "sha256:abc"}}}"#,
    ),
    ("name with a slash", r#"{"metadata": {"name": "a/b"}}"#),
    (
        "entrypoint set",
        r#"{"spec": {"source": {"entrypoint": "python train.py"}}}"#,
    ),
];

/// The reference spec with a JSON merge patch (RFC 7386) applied.
fn patched(patch: &str) -> Value {
    fn merge(target: &mut Value, patch: &Value) {
        let Value::Object(p) = patch else {
            *target = patch.clone();
            return;
        };
        if !target.is_object() {
            *target = Value::Object(Default::default());
        }
        let t = target.as_object_mut().unwrap();
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
    let mut spec: Value = serde_json::from_str(REFERENCE_SPEC).unwrap();
    merge(&mut spec, &serde_json::from_str(patch).unwrap());
    spec
}

#[test]
fn specs_refused_for_a_schema_reason_fail() {
    let v = validator(SchemaKind::Jobspec);
    let enforced = enforced();
    let mut specs: Vec<(&str, Value)> = REFUSED.iter().map(|(n, p)| (*n, patched(p))).collect();
    let mut null_metadata = patched("{}");
    null_metadata["metadata"] = Value::Null;
    specs.push(("metadata null", null_metadata));
    specs.push(("a null plugin", patched(r#"{"spec": {"plugins": [null]}}"#)));
    for (name, spec) in specs {
        assert!(
            lint(&spec).iter().any(|r| enforced.contains(r)),
            "forgelint accepts {name}"
        );
        assert!(!errors(&v, &spec).is_empty(), "{name} validates");
    }
    let mut not_object = serde_json::json!([]);
    assert!(!v.is_valid(&not_object), "a top-level array");
    not_object = serde_json::json!({"apiVersion": "forge/v2"});
    assert!(
        !v.is_valid(&not_object),
        "a spec with nothing but apiVersion"
    );
}

/// Every case of every built-in jobspec rule, as forgelint runs it: a `[[valid]]` case's spec
/// validates, and a spec the schema refuses is one forgelint reports with a rule the schema
/// enforces — so the schema never refuses what forgelint (the server's stand-in) accepts.
#[test]
fn the_schema_refuses_only_what_forgelint_refuses() {
    let v = validator(SchemaKind::Jobspec);
    let set = RuleSet::builtin().unwrap();
    let all: Vec<_> = set.rules.iter().collect();
    let enforced = enforced();
    let (mut checked, mut refused) = (0, 0);
    for rule in set.rules.iter().filter(|r| r.target == Target::Jobspec) {
        for case in rule.cases() {
            let Ok(text) = case.document() else { continue };
            // Not JSON (invalid-json, duplicate keys kept by the parser): nothing to validate.
            let Ok(spec) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            checked += 1;
            let errs = errors(&v, &spec);
            if case.valid {
                assert!(errs.is_empty(), "{} / {}: {errs:?}", rule.id, case.name);
                continue;
            }
            if errs.is_empty() {
                continue;
            }
            refused += 1;
            let findings = run_case(case, &all).unwrap();
            assert!(
                findings
                    .iter()
                    .any(|f| enforced.contains(&f.rule.to_string())),
                "{} / {}: the schema refuses it ({errs:?}) but forgelint reports only {:?}",
                rule.id,
                case.name,
                findings.iter().map(|f| &f.rule).collect::<Vec<_>>()
            );
        }
    }
    assert!(checked > 100, "only {checked} cases checked");
    assert!(refused > 30, "only {refused} failing cases refused");
}

/// The failing cases of the rules the schema states exactly all fail it.
#[test]
fn failing_cases_of_exact_rules_fail() {
    let v = validator(SchemaKind::Jobspec);
    let set = RuleSet::builtin().unwrap();
    for id in [
        "api-version",
        "wrong-type",
        "unknown-field",
        "missing-field",
        "pools-empty",
        "name-format",
        "entrypoint-set",
        "init-from-format",
        "corpus-host-path",
        "corpus-format",
        "plugin-id-format",
        "digest-format",
        "digest-hex",
    ] {
        let rule = set.get(id).unwrap();
        for case in rule.cases().iter().filter(|c| !c.valid) {
            let Ok(spec) = serde_json::from_str::<Value>(&case.document().unwrap()) else {
                continue;
            };
            assert!(!v.is_valid(&spec), "{id} / {} validates", case.name);
        }
    }
}

#[test]
fn every_rule_file_validates() {
    let v = validator(SchemaKind::Rule);
    let mut files = files_in("rules", "toml");
    files.extend(files_in("rules/examples", "toml"));
    files.extend(files_in("fixtures/demo/policies", "toml"));
    for path in files {
        let errs = errors(&v, &toml_file(&path));
        assert!(errs.is_empty(), "{}: {errs:?}", path.display());
    }
}

#[test]
fn rule_files_with_a_mistake_fail() {
    let v = validator(SchemaKind::Rule);
    let good = "id = \"x\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n\n[[check]]\nselect = \"metadata.name\"\nnon-empty = true\n";
    assert!(v.is_valid(&toml_text(good)));
    for (what, text) in [
        (
            "a misspelt top-level key",
            good.replace("summary", "sumary"),
        ),
        ("a misspelt check key", good.replace("select =", "selct =")),
        (
            "a misspelt predicate",
            good.replace("non-empty", "nonempty"),
        ),
        (
            "an unknown severity",
            good.replace("\"error\"", "\"fatal\""),
        ),
        ("an upper-case id", good.replace("\"x\"", "\"X\"")),
        ("no summary", good.replace("summary = \"s\"\n", "")),
        (
            "present = false",
            good.replace("non-empty = true", "present = false"),
        ),
        (
            "an unknown function",
            good.replace("non-empty = true", "function = \"quota\""),
        ),
        (
            "an unknown fact",
            good.replace(
                "non-empty = true",
                "when = [{ fact = \"recipe.name\", present = true }]\npresent = true",
            ),
        ),
        (
            "mask on a jobspec rule",
            good.replace("message", "mask = true\nmessage"),
        ),
        (
            "`at` in a valid case",
            format!("{good}\n[[valid]]\nat = \"/x\"\n"),
        ),
        (
            "a text pattern in a jobspec check",
            good.replace("non-empty = true", "pattern = 'x'"),
        ),
    ] {
        assert!(!v.is_valid(&toml_text(&text)), "{what} validates");
    }
    let text_rule = "id = \"t\"\nseverity = \"warning\"\ntarget = \"text\"\nmask = true\nsummary = \"s\"\nmessage = \"{match}\"\n\n[[check]]\npattern = 'x'\nin = \"string\"\n";
    assert!(v.is_valid(&toml_text(text_rule)));
    for (what, text) in [
        (
            "a selector in a text check",
            text_rule.replace("in = ", "select = \"a\"\nin = "),
        ),
        (
            "a predicate in a text check",
            format!("{text_rule}non-empty = true\n"),
        ),
        (
            "an unknown scope",
            text_rule.replace("\"string\"", "\"strings\""),
        ),
        (
            "a jobspec function in a text check",
            text_rule.replace("pattern = 'x'\nin = \"string\"", "function = \"gpu-quota\""),
        ),
        ("no keyword", format!("{text_rule}keywords = []\n")),
        (
            "an empty keyword",
            format!("{text_rule}keywords = [\"\"]\n"),
        ),
        (
            "a negative entropy",
            format!("{text_rule}min-entropy = -1.0\n"),
        ),
        (
            "an unknown decoding",
            format!("{text_rule}decode = \"hex\"\n"),
        ),
        (
            "a stop word that is no string",
            format!("{text_rule}stop-words = [1]\n"),
        ),
        (
            "keywords with a function",
            text_rule.replace(
                "pattern = 'x'\nin = \"string\"",
                "function = \"host-path\"\nkeywords = [\"/mnt\"]",
            ),
        ),
    ] {
        assert!(!v.is_valid(&toml_text(&text)), "{what} validates");
    }
    // The filter keys on a text check validate; on a jobspec check, they do not.
    let filtered = format!(
        "{text_rule}allow = ['EXAMPLE$']\nallow-line = ['weights_only\\s*=\\s*True']\nstop-words = [\"abcdefghijklmnopqrstuvwxyz\"]\nmin-entropy = 3\nkeywords = [\"tok_\"]\ndecode = \"base64\"\n"
    );
    let errs = errors(&v, &toml_text(&filtered));
    assert!(errs.is_empty(), "{errs:?}");
    for key in [
        "allow = ['x']",
        "allow-line = ['x']",
        "stop-words = ['x']",
        "min-entropy = 3.0",
        "keywords = ['x']",
        "decode = 'base64'",
    ] {
        let text = good.replace("non-empty = true", &format!("non-empty = true\n{key}"));
        assert!(
            !v.is_valid(&toml_text(&text)),
            "{key} on a jobspec check validates"
        );
    }
}

#[test]
fn the_demo_config_validates_and_a_misspelt_key_fails() {
    let v = validator(SchemaKind::Config);
    let demo = std::fs::read_to_string("fixtures/demo/forgelint.toml").unwrap();
    let errs = errors(&v, &toml_text(&demo));
    assert!(errs.is_empty(), "{errs:?}");
    // Every key the README documents (which files and rules exist is forgelint's to check).
    let full = "extend = \"../forgelint.toml\"\nrules = [\"policies/\"]\n[files]\ninclude = [\"**/jobspec.json\"]\nexclude = [\"vendor/**\"]\nexperiments = [\"experiments/*\"]\n[experiments]\nhost-path-roots = [\"/mnt\", \"~\"]\nconfig = \"config.yaml\"\nmax-file-size = 10000000\n[platform]\nkind = \"TrainingJob\"\ncatalog = \"catalog.toml\"\nregistries = [\"nvcr.io\"]\ngpu-quota = 64\n[platform.project-quota]\nbig-lab = 256\n[severity]\nowner-ignored = \"off\"\nmy-team-rule = \"error\"\n[per-file-ignores]\n\"archive/**\" = [\"source-exp-missing\"]\n";
    let errs = errors(&v, &toml_text(full));
    assert!(errs.is_empty(), "{errs:?}");
    for (what, text) in [
        ("a misspelt key", demo.replace("catalog =", "catalg =")),
        ("a misspelt table", demo.replace("[platform]", "[platfrom]")),
        (
            "an unknown severity",
            format!("{demo}\n[severity]\nowner-ignored = \"fatal\"\n"),
        ),
        (
            "a negative quota",
            demo.replace("gpu-quota = 64", "gpu-quota = -1"),
        ),
    ] {
        assert!(!v.is_valid(&toml_text(&text)), "{what} validates");
    }
}

/// A spec linted in-process with every built-in rule and no catalog: the rules it breaks.
fn lint(spec: &Value) -> Vec<String> {
    use forgelint::rules::{Case, CaseContext, CaseSource};
    let case = Case {
        name: "probe".into(),
        valid: true,
        span: 0..0,
        source: CaseSource::Document(serde_json::to_string_pretty(spec).unwrap()),
        edits: Vec::new(),
        at: None,
        count: None,
        also: Vec::new(),
        context: CaseContext {
            kind: None,
            catalog: Some(None),
            registries: None,
            gpu_quota: None,
            project_quota: None,
            dirs: None,
        },
        file: None,
        config: None,
        fixed: None,
    };
    let set = RuleSet::builtin().unwrap();
    let all: Vec<_> = set.rules.iter().collect();
    run_case(&case, &all)
        .unwrap()
        .into_iter()
        .map(|f| f.rule.to_string())
        .collect()
}

/// Sets the string at `pointer` of the reference spec.
fn with_string(pointer: &str, value: &str) -> Value {
    let mut spec: Value = serde_json::from_str(REFERENCE_SPEC).unwrap();
    // The reference has no entrypoint: it is added.
    spec["spec"]["source"]["entrypoint"] = Value::String(String::new());
    *spec.pointer_mut(pointer).expect("a field of the reference") = Value::String(value.into());
    spec
}

/// The patterns translated from the rules' regexes (Unicode classes, case folding, anchors)
/// and the semver pattern agree with forgelint on awkward strings in every field they check:
/// the schema refuses a value exactly when forgelint reports a rule the schema enforces.
#[test]
fn patterns_agree_with_the_rules_on_awkward_strings() {
    let v = validator(SchemaKind::Jobspec);
    let enforced = enforced();
    let hex = "0123456789abcdef".repeat(4);
    let values: Vec<String> = [
        "",
        " ",
        "a b",
        "a\u{85}b",
        "a\u{feff}b",
        "a\u{a0}b",
        "a\u{2028}b",
        "a\tb",
        "a\u{1f}b",
        "a😀b",
        "ab@c",
        "İ",
        "run/x/y",
        "run/x😀/y@step=12",
        "run/x/y@step=٣",
        "run/x/y@step=",
        "run/x y/z",
        "Run/x/y",
        "alice/handbook@v1",
        "alice/handbook@",
        "Alice/hand.book",
        "a/b/c",
        "/mnt/x",
        "./x",
        "../x",
        "..",
        "~x",
        "FILE:x",
        "fıle:x",
        "C:\\x",
        "c:/x",
        "\\\\share",
        "1.2.3",
        "1.2.3-rc.1+b.01",
        "01.2.3",
        "1.2",
        "v1.2.3",
        "1.2.3\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("sha256:{hex}"),
        format!("sha256:{}", hex.to_uppercase()),
        format!("sha256:{}", &hex[1..]),
        format!("sha256:{hex}0"),
        format!("sha256:{hex}\n"),
        format!("sha512:{hex}"),
    ])
    .collect();
    let fields = [
        "/metadata/name",
        "/spec/model/init_from",
        "/spec/data/corpus",
        "/spec/recipe/digest",
        "/spec/plugins/0/id",
        "/spec/plugins/0/digest",
        "/spec/source/entrypoint",
        "/provenance/core_version",
    ];
    let mut disagreements = Vec::new();
    for field in fields {
        for value in &values {
            let spec = with_string(field, value);
            let refused_by_rules = lint(&spec).iter().any(|r| enforced.contains(r));
            if v.is_valid(&spec) == refused_by_rules {
                disagreements.push(format!(
                    "{field} = {value:?}: forgelint {}, the schema {}",
                    if refused_by_rules {
                        "refuses"
                    } else {
                        "accepts"
                    },
                    if refused_by_rules {
                        "accepts"
                    } else {
                        "refuses"
                    },
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// The starter config `forgelint init` writes validates, and so does every key it shows
/// commented out, once uncommented.
#[test]
fn the_starter_config_validates() {
    let v = validator(SchemaKind::Config);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_forgelint"))
        .arg("init")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(dir.path().join("forgelint.toml")).unwrap();
    let errs = errors(&v, &toml_text(&text));
    assert!(errs.is_empty(), "{errs:?}");
    // `# key = value` and `# [table]` lines are settings; other comments are prose.
    let uncommented: String = text
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") || rest.starts_with('[') => rest,
            _ => l,
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let errs = errors(&v, &toml_text(&uncommented));
    assert!(errs.is_empty(), "{errs:?}\n{uncommented}");
}
