//! `forgelint lsp` driven by a scripted JSON-RPC client: the binary is spawned in a temporary
//! copy of the demo repository, spoken to over its standard input and output, and what it
//! publishes is compared with what `forgelint check` reports on the same files.
//!
//! Every wait has a timeout, so a server that hangs fails the test instead of blocking it.

use crate::common;
#[path = "lsp_client/mod.rs"]
mod lsp_client;

use std::path::Path;
use std::time::Instant;

use common::{manifest_dir, run_in, Tree, BIN};
use lsp_client::{uri, Client};
use serde_json::{json, Value};

/// A client of `forgelint lsp` started in `root`, with `root` as its workspace.
fn start(root: &Path, env: &[(&str, &str)]) -> Client {
    Client::start(BIN, root, env)
}

/// A temporary copy of the demo repository, with `specs/bad.jobspec.json`: the demo's
/// faulty spec with an owner set (a warning with a safe fix).
fn demo() -> (Tree, String) {
    let tree = Tree::new();
    copy_dir(&manifest_dir().join("fixtures/demo"), tree.root());
    let spec = std::fs::read_to_string(tree.path("specs/grpo-70b.jobspec.json")).unwrap();
    let spec = spec.replacen("\"owner\": \"\"", "\"owner\": \"alice\"", 1);
    assert!(spec.contains("alice"));
    tree.write("specs/bad.jobspec.json", &spec);
    (tree, spec)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `(rule, start line, start character, end line, end character, severity)` of a diagnostic.
type Key = (String, u64, u64, u64, u64, u64);

fn key_of_diagnostic(d: &Value) -> Key {
    let at = |p: &str| d["range"].pointer(p).and_then(Value::as_u64).unwrap();
    (
        d["code"].as_str().unwrap().to_string(),
        at("/start/line"),
        at("/start/character"),
        at("/end/line"),
        at("/end/character"),
        d["severity"].as_u64().unwrap(),
    )
}

/// The same key of a finding of `check --format json` (1-based positions, severity names).
fn key_of_finding(f: &Value) -> Key {
    let at = |p: &str| f.pointer(p).and_then(Value::as_u64).unwrap() - 1;
    let severity = match f["severity"].as_str().unwrap() {
        "error" => 1,
        "warning" => 2,
        _ => 3,
    };
    (
        f["rule"].as_str().unwrap().to_string(),
        at("/start/line"),
        at("/start/column"),
        at("/end/line"),
        at("/end/column"),
        severity,
    )
}

/// What `forgelint check --format json` reports on the file `rel` of `root`, that file only.
fn check_findings(root: &Path, rel: &str) -> Vec<Value> {
    let run = run_in(root, &["check", "--format", "json", rel]);
    run.json()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == rel)
        .cloned()
        .collect()
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

#[test]
fn diagnostics_are_the_findings_of_check() {
    let (tree, spec) = demo();
    let train = "experiments/my-grpo/train.py";
    let code = "import os\nCORPUS = \"/mnt/shared/handbook\"\nTOKEN = \"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\"\n";
    tree.write(train, code);
    let mut client = start(tree.root(), &[]);
    for (rel, text) in [("specs/bad.jobspec.json", spec.as_str()), (train, code)] {
        let uri = uri(&tree.path(rel));
        client.open(&uri, text);
        let diagnostics = client.diagnostics(&uri, 1);
        let expected = check_findings(tree.root(), rel);
        assert!(expected.len() >= 2, "{rel}: {expected:?}");
        assert_eq!(
            sorted(diagnostics.iter().map(key_of_diagnostic).collect()),
            sorted(expected.iter().map(key_of_finding).collect()),
            "{rel}"
        );
        for d in &diagnostics {
            assert_eq!(d["source"], "forgelint");
            let href = d["codeDescription"]["href"].as_str().unwrap_or_default();
            assert!(href.ends_with(".md") || href.ends_with(".toml"), "{d}");
        }
        if rel == train {
            // Masked as every output masks it: its first four characters and an ellipsis.
            let all = serde_json::to_string(&diagnostics).unwrap();
            assert!(all.contains("hf_Q…"), "{all}");
            assert!(!all.contains("DurCVBry"), "a secret leaked: {all}");
        }
    }
    assert_eq!(client.shutdown(), 0);
}

/// `(line, character)` of byte `at` of `text` (ASCII before it).
fn position_at(text: &str, at: usize) -> (u64, u64) {
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line as u64, column as u64)
}

/// `(line, character)` of the first `needle` in `text` (ASCII before it).
fn position_of(text: &str, needle: &str) -> (u64, u64) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the text"));
    position_at(text, at)
}

fn range(start: (u64, u64), end: (u64, u64)) -> Value {
    json!({ "start": { "line": start.0, "character": start.1 },
            "end": { "line": end.0, "character": end.1 } })
}

/// Replaces the first `from` of `text` by `to` with an incremental change of version
/// `version`; the text after it.
fn edit(
    client: &mut lsp_client::Client,
    uri: &str,
    text: &str,
    from: &str,
    to: &str,
    version: i64,
) -> String {
    let at = text
        .find(from)
        .unwrap_or_else(|| panic!("{from:?} not in the text"));
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": version },
            "contentChanges": [{
                "range": range(position_at(text, at), position_at(text, at + from.len())),
                "text": to,
            }],
        }),
    );
    text.replacen(from, to, 1)
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    sorted(
        diagnostics
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default().to_string())
            .collect(),
    )
}

/// A spec whose experiment's config lacks a hyperparameter: the spec's diagnostics (the
/// config read from disk) are check's, and the related place is in the config file.
#[test]
fn hyperparameters_are_checked_against_the_experiments_config() {
    let (tree, _) = demo();
    let rel = "specs/dpo-sweep.jobspec.json";
    let text = std::fs::read_to_string(tree.path(rel)).unwrap();
    let mut client = start(tree.root(), &[]);
    let spec = uri(&tree.path(rel));
    client.open(&spec, &text);
    let diagnostics = client.diagnostics(&spec, 1);
    let expected = check_findings(tree.root(), rel);
    assert_eq!(
        sorted(diagnostics.iter().map(key_of_diagnostic).collect()),
        sorted(expected.iter().map(key_of_finding).collect()),
    );
    let unknown = diagnostics
        .iter()
        .find(|d| d["code"] == "hyperparam-unknown")
        .expect("hyperparam-unknown is reported");
    let related = &unknown["relatedInformation"][0]["location"];
    assert_eq!(
        related["uri"],
        uri(&tree.path("experiments/dpo-sweep/config.yaml"))
    );
    assert_eq!(client.shutdown(), 0);
}

#[test]
fn an_edit_that_fixes_a_fault_clears_it() {
    let (tree, mut text) = demo();
    let uri = uri(&tree.path("specs/bad.jobspec.json"));
    let mut client = start(tree.root(), &[]);
    client.open(&uri, &text);
    assert!(codes(&client.diagnostics(&uri, 1)).contains(&"unknown-field".to_string()));
    let mut latencies = Vec::new();
    for version in 2..=21 {
        let (from, to) = if version % 2 == 0 {
            ("\"gpu_per_node\"", "\"gpus_per_node\"")
        } else {
            (
                "\"gpus_per_node\": 8\n        }\n      ],",
                "\"gpu_per_node\": 8\n        }\n      ],",
            )
        };
        let started = Instant::now();
        text = edit(&mut client, &uri, &text, from, to, version);
        let diagnostics = client.diagnostics(&uri, version);
        latencies.push(started.elapsed());
        let fixed = !codes(&diagnostics).contains(&"unknown-field".to_string());
        assert_eq!(
            fixed,
            version % 2 == 0,
            "version {version}: {diagnostics:?}"
        );
        // The server's text is the client's: its findings are check's on that text.
        std::fs::write(tree.path("specs/edited.jobspec.json"), &text).unwrap();
        let expected = check_findings(tree.root(), "specs/edited.jobspec.json");
        assert_eq!(
            sorted(diagnostics.iter().map(key_of_diagnostic).collect()),
            sorted(expected.iter().map(key_of_finding).collect()),
        );
    }
    latencies.sort();
    println!(
        "edit → diagnostics: median {:?}, max {:?} over {} edits",
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1],
        latencies.len()
    );
    assert_eq!(client.shutdown(), 0);
}

/// `text` with the byte edits of a fix of `check --format json` applied.
fn apply_check_fix(text: &str, fix: &Value) -> String {
    let mut out = text.to_string();
    let mut edits = fix["edits"].as_array().unwrap().clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e["start"].as_u64().unwrap()));
    for e in edits {
        let (start, end) = (e["start"].as_u64().unwrap(), e["end"].as_u64().unwrap());
        out.replace_range(
            start as usize..end as usize,
            e["replacement"].as_str().unwrap(),
        );
    }
    out
}

/// `text` (ASCII) with the protocol's text edits applied.
fn apply_lsp_edits(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + p["character"].as_u64().unwrap() as usize
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            (
                offset(&r["start"]),
                offset(&r["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, new);
    }
    out
}

#[test]
fn a_quick_fix_removes_the_owner_and_hover_explains_the_rule() {
    let (tree, text) = demo();
    let uri = uri(&tree.path("specs/bad.jobspec.json"));
    let mut client = start(tree.root(), &[]);
    client.open(&uri, &text);
    let diagnostics = client.diagnostics(&uri, 1);
    let owner = diagnostics
        .iter()
        .find(|d| d["code"] == "owner-ignored")
        .expect("owner-ignored is reported")
        .clone();
    let id = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": owner["range"],
                "context": { "diagnostics": [owner] } }),
    );
    let actions = client.response(id)["result"].as_array().unwrap().clone();
    let fix = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("owner-ignored"))
        .unwrap_or_else(|| panic!("no fix of owner-ignored among {actions:?}"));
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    assert!(fix["title"].as_str().unwrap().contains("safe"), "{fix}");
    assert_eq!(fix["diagnostics"][0]["code"], "owner-ignored");
    let edits = fix["edit"]["changes"][&uri].as_array().unwrap();
    let fixed = apply_lsp_edits(&text, edits);
    let expected = check_findings(tree.root(), "specs/bad.jobspec.json")
        .into_iter()
        .find(|f| f["rule"] == "owner-ignored")
        .unwrap();
    assert_eq!(fixed, apply_check_fix(&text, &expected["fix"]));
    assert!(!fixed.contains("\"owner\""));
    serde_json::from_str::<Value>(&fixed).expect("the fixed spec is JSON");

    // An unsafe fix is offered too, not preferred.
    let handshake = diagnostics
        .iter()
        .find(|d| d["code"] == "recipe-handshake")
        .unwrap()
        .clone();
    let id = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": handshake["range"],
                "context": { "diagnostics": [] } }),
    );
    let actions = client.response(id)["result"].as_array().unwrap().clone();
    let unsafe_fix = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("recipe-handshake"))
        .unwrap_or_else(|| panic!("no fix of recipe-handshake among {actions:?}"));
    assert_eq!(unsafe_fix["isPreferred"], false);
    assert!(unsafe_fix["title"].as_str().unwrap().contains("unsafe"));

    let start = &owner["range"]["start"];
    let (line, character) = (
        start["line"].as_u64().unwrap(),
        start["character"].as_u64().unwrap(),
    );
    let hover = client.hover(&uri, line, character + 1);
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    let rules = run_in(tree.root(), &["rules", "--format", "json"]).json();
    let rule = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "owner-ignored")
        .unwrap();
    assert!(value.contains("owner-ignored"), "{value}");
    assert!(value.contains(rule["summary"].as_str().unwrap()), "{value}");
    assert_eq!(hover["result"]["contents"]["kind"], "markdown");
    assert_eq!(client.hover(&uri, 0, 0)["result"], Value::Null);
    assert_eq!(client.shutdown(), 0);
}

/// A secret `exp-secret` does not report (in a spec's field, beside a suppressed one in an
/// experiment file) is masked in the diagnostics that quote it and in the hover.
#[test]
fn diagnostics_and_hovers_show_no_secret() {
    let (tree, text) = demo();
    let secret = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123";
    let text = text.replacen("\"alice\"", &format!("\"{secret}\""), 1);
    let uri = uri(&tree.path("specs/bad.jobspec.json"));
    let mut client = start(tree.root(), &[]);
    client.open(&uri, &text);
    let diagnostics = client.diagnostics(&uri, 1);
    let all = serde_json::to_string(&diagnostics).unwrap();
    assert!(all.contains("ghp_…"), "{all}");
    assert!(!all.contains("EFGHIJKLMN"), "a secret leaked: {all}");
    let (line, character) = position_of(&text, secret);
    let hover = client.hover(&uri, line, character + 1);
    let value = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(value.contains("owner-ignored"), "{value}");
    assert!(!value.contains("EFGHIJKLMN"), "a secret leaked: {value}");
    let train = "experiments/my-grpo/train.py";
    let code = format!(
        "TOKEN = \"hf_SuppressedTokenAbCdEfGhIjKlMnOpQrStUv\"  # forgelint: ignore[exp-secret] revoked\nCORPUS = \"/mnt/shared/{secret}\"\n"
    );
    let train_uri = lsp_client::uri(&tree.path(train));
    client.open(&train_uri, &code);
    let all = serde_json::to_string(&client.diagnostics(&train_uri, 1)).unwrap();
    assert!(all.contains("exp-host-path"), "{all}");
    assert!(!all.contains("EFGHIJKLMN"), "a secret leaked: {all}");
    assert_eq!(client.shutdown(), 0);
}

#[test]
fn hostile_documents_do_not_crash_the_server() {
    let (tree, _) = demo();
    let mut client = start(tree.root(), &[]);
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_object = format!(
        "{{\"a\": {}1{}}}",
        "{\"a\": ".repeat(10_000),
        "}".repeat(10_000)
    );
    let huge = format!(
        "{{\"apiVersion\": \"forge/v2\", \"metadata\": {{\"name\": \"{}\"}}}}",
        "x".repeat(8 * 1024 * 1024)
    );
    let nul = "{\"apiVersion\": \"forge\u{0}v2\", \"kind\u{0}\": 1}\u{0}";
    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (name, previous) in ["b", "c", "d", "e", "f", "g", "h", "i"]
        .iter()
        .zip("abcdefgh".chars())
    {
        let refs = vec![format!("*{previous}"); 9].join(",");
        bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let deep_toml = format!(
        "id = \"deep\"\nsummary = \"s\"\nx = {}{}\n[[check]]\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let documents = [
        ("specs/deep.jobspec.json", deep),
        ("specs/deep-object.jobspec.json", deep_object),
        ("specs/huge.jobspec.json", huge),
        ("specs/nul.jobspec.json", nul.to_string()),
        ("experiments/my-grpo/config.yaml", bomb),
        (
            "experiments/my-grpo/deep.yaml",
            format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
        ),
        ("policies/deep.toml", deep_toml),
    ];
    for (rel, text) in &documents {
        let uri = uri(&tree.path(rel));
        let started = Instant::now();
        client.open(&uri, text);
        let diagnostics = client.diagnostics(&uri, 1);
        let messages: Vec<&str> = diagnostics
            .iter()
            .filter_map(|d| d["message"].as_str())
            .collect();
        println!("{rel}: {:?}, {:?}", started.elapsed(), messages);
        if rel.ends_with(".json") {
            assert!(!diagnostics.is_empty(), "{rel}: no diagnostic");
        }
        // Still answering.
        assert!(client.hover(&uri, 0, 0).get("error").is_none());
    }
    assert_eq!(client.shutdown(), 0);
}

#[test]
fn a_crash_while_linting_is_a_diagnostic_and_the_server_goes_on() {
    let (tree, text) = demo();
    let mut client = start(tree.root(), &[("FORGELINT_PANIC_ON", "boom.jobspec.json")]);
    let boom = uri(&tree.path("specs/boom.jobspec.json"));
    client.open(&boom, &text);
    let diagnostics = client.diagnostics(&boom, 1);
    assert_eq!(codes(&diagnostics), ["internal-error"], "{diagnostics:?}");
    let fine = uri(&tree.path("specs/bad.jobspec.json"));
    client.open(&fine, &text);
    assert!(client.diagnostics(&fine, 1).len() > 3);
    assert_eq!(client.shutdown(), 0);
}

#[test]
fn rule_file_and_config_errors_are_reported_at_their_spans() {
    let (tree, _) = demo();
    let mut client = start(tree.root(), &[]);
    let rule_path = tree.path("policies/labels-team-required.toml");
    let rule = std::fs::read_to_string(&rule_path).unwrap();
    let broken = rule.replace("severity = \"error\"", "severity = \"fatal\"");
    // check names the same place when it loads the broken file.
    std::fs::write(tree.path("broken-rule.toml"), &broken).unwrap();
    let run = run_in(tree.root(), &["test-rules", "broken-rule.toml"]);
    let (line, column) = position_of(&broken, "\"fatal\"");
    assert!(
        run.stderr
            .contains(&format!("broken-rule.toml:{}:{}", line + 1, column + 1)),
        "{}",
        run.stderr
    );
    let uri_rule = uri(&rule_path);
    client.open(&uri_rule, &broken);
    let diagnostics = client.diagnostics(&uri_rule, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": line, "character": column })
    );
    assert_eq!(diagnostics[0]["severity"], 1);
    // Fixed in the editor: the diagnostic goes.
    edit(&mut client, &uri_rule, &broken, "\"fatal\"", "\"error\"", 2);
    assert_eq!(client.diagnostics(&uri_rule, 2), Vec::<Value>::new());

    let config_path = tree.path("forgelint.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    let broken = config.replace("gpu-quota = 64", "gpu-qouta = 64");
    let uri_config = uri(&config_path);
    client.open(&uri_config, &broken);
    let diagnostics = client.diagnostics(&uri_config, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let (line, column) = position_of(&broken, "gpu-qouta");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": line, "character": column })
    );
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("gpu-quota"),
        "{diagnostics:?}"
    );
    assert_eq!(client.shutdown(), 0);
}

/// A config that extends one outside the workspace gets the error `check` gives from the
/// root: the place, never the outside file's text or the parser's words about it.
#[test]
fn a_config_outside_the_project_is_not_quoted() {
    let (tree, _) = demo();
    let outside = tempfile::tempdir().unwrap();
    let base = outside.path().join("base.toml");
    std::fs::write(&base, "[platform]\nwandb-key-of-the-runner = 1\n").unwrap();
    let config = format!("extend = \"{}\"\n", base.display());
    let config_path = tree.path("forgelint.toml");
    std::fs::write(&config_path, &config).unwrap();
    let run = run_in(tree.root(), &["check"]);
    run.expect_code(2);
    assert!(!run.stderr.contains("wandb-key"), "{}", run.stderr);
    let mut client = start(tree.root(), &[]);
    let uri_config = uri(&config_path);
    client.open(&uri_config, &config);
    let diagnostics = client.diagnostics(&uri_config, 1);
    let all = serde_json::to_string(&diagnostics).unwrap();
    assert_eq!(diagnostics.len(), 1, "{all}");
    assert!(all.contains("not a valid configuration"), "{all}");
    assert!(
        !all.contains("wandb-key"),
        "the outside config is quoted: {all}"
    );
    assert_eq!(client.shutdown(), 0);
}

#[test]
fn a_saved_config_is_read_again() {
    let (tree, text) = demo();
    let mut client = start(tree.root(), &[]);
    let spec = uri(&tree.path("specs/bad.jobspec.json"));
    client.open(&spec, &text);
    assert!(codes(&client.diagnostics(&spec, 1)).contains(&"owner-ignored".to_string()));
    let config_path = tree.path("forgelint.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    let config_uri = uri(&config_path);
    client.open(&config_uri, &config);
    client.diagnostics(&config_uri, 1);
    let quieter = format!("{config}\n[severity]\nowner-ignored = \"off\"\n");
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": config_uri, "version": 2 },
                "contentChanges": [{ "text": quieter }] }),
    );
    assert_eq!(client.diagnostics(&config_uri, 2), Vec::<Value>::new());
    std::fs::write(&config_path, &quieter).unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": config_uri } }),
    );
    let after = client.diagnostics(&spec, 1);
    assert!(
        !codes(&after).contains(&"owner-ignored".to_string()),
        "{after:?}"
    );
    assert!(codes(&after).contains(&"gpu-quota".to_string()));
    // A broken config on disk: the spec says why it is not linted.
    std::fs::write(&config_path, "rules = 3\n").unwrap();
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": config_uri } }),
    );
    let broken = client.diagnostics(&spec, 1);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(broken[0]["message"]
        .as_str()
        .unwrap()
        .contains("configuration"));
    assert_eq!(client.shutdown(), 0);
}

#[test]
fn unknown_requests_closed_documents_and_exit_without_shutdown() {
    let (tree, text) = demo();
    let mut client = start(tree.root(), &[]);
    let id = client.request("textDocument/definition", json!({}));
    assert_eq!(client.response(id)["error"]["code"], -32601);
    let id = client.request("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(client.response(id)["error"]["code"], -32602);
    let spec = uri(&tree.path("specs/bad.jobspec.json"));
    client.open(&spec, &text);
    assert!(!client.diagnostics(&spec, 1).is_empty());
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": spec } }),
    );
    let cleared = client.wait_for("cleared diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == spec
    });
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    // Not a file the server lints: nothing, or nothing in it.
    let other = uri(&tree.path("notes.json"));
    client.open(&other, "{not json");
    assert_eq!(client.diagnostics(&other, 1), Vec::<Value>::new());
    client.notify("exit", Value::Null);
    assert_eq!(client.wait_exit(), 1, "exit without shutdown is status 1");
}

#[test]
fn a_spec_under_a_broken_nested_config_says_why_it_is_not_linted() {
    let (tree, text) = demo();
    tree.write(
        "labs/vision/forgelint.toml",
        "[platform]\ngpu-quota = \"many\"\n",
    );
    let mut client = start(tree.root(), &[]);
    let spec = uri(&tree.path("labs/vision/jobspec.json"));
    for version in [1, 2] {
        if version == 1 {
            client.open(&spec, &text);
        } else {
            // Asked again, it says it again (the broken config is not remembered as linted).
            client.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": spec, "version": 2 },
                        "contentChanges": [{ "text": text }] }),
            );
        }
        let diagnostics = client.diagnostics(&spec, version);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let message = diagnostics[0]["message"].as_str().unwrap();
        assert!(message.contains("configuration"), "{message}");
        let related = &diagnostics[0]["relatedInformation"][0]["location"];
        assert_eq!(
            related["uri"],
            uri(&tree.path("labs/vision/forgelint.toml"))
        );
        assert_eq!(related["range"]["start"]["line"], 1);
    }
    assert_eq!(client.shutdown(), 0);
}

/// A body that is not JSON, or JSON that is no message, is answered (`-32700`, `-32600`, id
/// `null` when it has none) and the session goes on.
#[test]
fn malformed_messages_are_answered_and_the_server_goes_on() {
    let (tree, text) = demo();
    let mut client = start(tree.root(), &[]);
    let error_of = |client: &mut lsp_client::Client, code: i64| {
        client.wait_for(&format!("error {code}"), |m| m["error"]["code"] == code)
    };
    client.send_raw(b"Content-Length: 9\r\n\r\n{\"id\": 3,");
    let answer = error_of(&mut client, -32700);
    assert_eq!(answer["id"], Value::Null, "{answer}");
    client.send_raw(b"Content-Length: 16\r\n\r\n{\"id\":42,\"x\":[]}");
    let answer = error_of(&mut client, -32600);
    assert_eq!(answer["id"], 42, "{answer}");
    // A header that is no length, then junk up to the next frame.
    client.send_raw(b"Content-Length: twelve\r\n\r\ngarbage without a header");
    let answer = error_of(&mut client, -32700);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a number"),
        "{answer}"
    );
    let spec = uri(&tree.path("specs/bad.jobspec.json"));
    client.open(&spec, &text);
    assert!(!client.diagnostics(&spec, 1).is_empty());
    assert_eq!(client.hover(&spec, 0, 0)["result"], Value::Null);
    assert_eq!(client.shutdown(), 0);
}

/// A `Content-Length` past any spec is answered, not believed: no allocation of its size, no
/// abort; its bytes are skipped as they come, in bounded memory.
#[test]
fn a_huge_content_length_is_refused_in_bounded_memory() {
    let (tree, _) = demo();
    for length in ["1000000000000", "9223372036854775808", "4000000000"] {
        let mut client = start(tree.root(), &[]);
        client.send_raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
        let answer = client.wait_for("the refusal", |m| m["error"]["code"] == -32700);
        assert_eq!(answer["id"], Value::Null);
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("over the limit"),
            "{answer}"
        );
        // 256 MiB of the promised body: skipped as it comes.
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..256 {
            client.send_raw(&chunk);
        }
        let peak = client.peak_rss_kb().expect("the server's memory");
        assert!(peak < 200 * 1024, "{length}: peak RSS {peak} KiB");
        client.close_input();
        assert_eq!(
            client.wait_exit(),
            1,
            "{length}: the end of the input, no abort"
        );
    }
}
