//! Bad rule files, and files a config names: exit 2 with the culprit and its position.

use super::*;

use std::process::Command;
use std::time::Duration;

/// Lints a valid spec with `--rules policies/` holding `files`; the run must exit 2 and stderr
/// must name `culprit` at `position`.
pub(super) fn bad_rules(files: &[(&str, &str)], culprit: &str, position: &str) -> String {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    for (name, text) in files {
        tree.write(format!("policies/{name}"), text);
    }
    let target = if files.len() == 1 {
        format!("policies/{}", files[0].0)
    } else {
        "policies".to_string()
    };
    let run = tree.run(&["--no-config", "--rules", &target, "jobspec.json"]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    let location = format!("{culprit}:{position}");
    assert!(
        run.stderr.contains(&location),
        "expected {location} in\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    tree.scrub(&run.stderr)
}

const RULE_HEAD: &str = "id = \"team-label\"\nseverity = \"error\"\nsummary = \"metadata.labels.team is required\"\nmessage = \"{path} is missing\"\n";

#[test]
fn a_rule_file_that_is_not_toml() {
    let text = "id = \"team-label\"\nseverity = \"error\nsummary = \"x\"\n";
    let err = bad_rules(&[("team.toml", text)], "policies/team.toml", "2:18");
    assert_named_snapshot!("rule_file_not_toml", err);
}

#[test]
fn a_rule_file_with_an_unknown_key() {
    let text =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nnon-empy = true\n");
    let err = bad_rules(&[("team.toml", &text)], "policies/team.toml", "8:1");
    assert!(err.contains("did you mean `non-empty`?"), "{err}");
    assert_named_snapshot!("rule_file_unknown_key", err);
}

#[test]
fn a_rule_file_with_an_unknown_function() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"spec.resources.pools\"\nfunction = \"gpu-qota\"\n"
    );
    let err = bad_rules(&[("quota.toml", &text)], "policies/quota.toml", "8:12");
    assert!(err.contains("gpu-qota"), "{err}");
    assert_named_snapshot!("rule_file_unknown_function", err);
}

#[test]
fn a_rule_file_with_a_bad_regex() {
    let text =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nmatches = '^[a-z+$'\n");
    let err = bad_rules(&[("team.toml", &text)], "policies/team.toml", "8:11");
    assert_named_snapshot!("rule_file_bad_regex", err);
}

/// A pattern that parses but compiles past the size limit is refused when the rule file is
/// loaded, not on the first value it meets.
#[test]
fn a_rule_file_with_a_regex_over_the_size_limit() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nmatches = '^\\w{{5000}}$'\n"
    );
    let err = bad_rules(&[("team.toml", &text)], "policies/team.toml", "8:11");
    assert!(
        err.contains("bad regex") && err.contains("size limit"),
        "{err}"
    );
}

#[test]
fn a_rule_file_with_a_bad_selector() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"spec.resources.pools[*.name\"\npresent = true\n"
    );
    let err = bad_rules(&[("pools.toml", &text)], "policies/pools.toml", "7:");
    assert_named_snapshot!("rule_file_bad_selector", err);
}

/// A selector outside the forge/v2 shape would load, never fire, and let the run say "All
/// clear": it is an error at the segment that leaves the shape, with a did-you-mean.
#[test]
fn a_selector_outside_the_jobspec_shape() {
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"spec.resource.pools[*].series\"\npresent = true\n"
    );
    let err = bad_rules(&[("pools.toml", &text)], "policies/pools.toml", "7:16");
    assert!(err.contains("did you mean `resources`?"), "{err}");
    assert_named_snapshot!("rule_file_selector_outside_shape", err);
}

#[test]
fn selectors_in_conditions_and_operands_must_fit_the_shape_too() {
    let when = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"metadata.name\"\nwhen = [{{ select = \"metadata.lables.team\", present = true }}]\npresent = true\n"
    );
    let err = bad_rules(&[("when.toml", &when)], "policies/when.toml", "8:30");
    assert!(err.contains("did you mean `labels`?"), "{err}");
    let operand = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"metadata.name\"\none-of = {{ select = \"spec.resources.pool[*].name\" }}\n"
    );
    let err = bad_rules(
        &[("operand.toml", &operand)],
        "policies/operand.toml",
        "8:37",
    );
    assert!(err.contains("did you mean `pools`?"), "{err}");
    // Below a scalar, and a key on an array: nothing can match either.
    let scalar =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.name.first\"\npresent = true\n");
    let err = bad_rules(&[("scalar.toml", &scalar)], "policies/scalar.toml", "7:25");
    assert!(err.contains("`metadata.name` is a string"), "{err}");
    let array =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"spec.resources.pools.name\"\npresent = true\n");
    let err = bad_rules(&[("array.toml", &array)], "policies/array.toml", "7:32");
    assert!(err.contains("is an array"), "{err}");
}

/// Wildcards where the shape has arrays and maps, indexes, quoted keys and anything below the
/// free maps (labels, hyperparams) still load.
#[test]
fn selectors_inside_the_shape_and_free_maps_load() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json");
    let checks = [
        "spec.resources.pools[*].name",
        "spec.resources.pools.*.nodes",
        "spec.plugins[0].id",
        "spec.resources.roles.*",
        "$.spec.*",
        "metadata.labels.\\\"cost.center\\\"",
        "spec.hyperparams['policy.optimizer.kwargs.lr']",
        "spec.hyperparams.anything[3].goes",
    ];
    let mut text = RULE_HEAD.to_string();
    for select in checks {
        text.push_str(&format!(
            "\n[[check]]\nselect = \"{select}\"\nnot-equals = \"never\"\n"
        ));
    }
    tree.write("policies/fits.toml", &text);
    let run = tree.run(&[
        "--no-config",
        "--rules",
        "policies/fits.toml",
        "jobspec.json",
    ]);
    run.expect_code(0);
}

/// `test-rules` warns about a rule file without a failing case; the exit code is the cases'.
#[test]
fn test_rules_warns_about_a_rule_without_an_invalid_case() {
    let tree = Tree::new();
    let text = format!(
        "{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nnon-empty = true\n\n[[valid]]\nname = \"has a team\"\npatch = '{{\"metadata\": {{\"labels\": {{\"team\": \"x\"}}}}}}'\n"
    );
    tree.write("policies/team.toml", &text);
    let run = tree.run(&["test-rules", "policies/team.toml"]);
    run.expect_code(0);
    assert!(
        run.stderr
            .contains("warning: policies/team.toml: rule `team-label` has no [[invalid]] case"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("1 passed, 0 failed"), "{}", run.stdout);
    let with_invalid = format!(
        "{text}\n[[invalid]]\nname = \"no team\"\npatch = '{{\"metadata\": {{\"labels\": {{\"team\": null}}}}}}'\n"
    );
    tree.write("policies/team.toml", &with_invalid);
    let run = tree.run(&["test-rules", "policies/team.toml"]);
    run.expect_code(0);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

#[test]
fn two_rule_files_with_the_same_id() {
    let a =
        format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nnon-empty = true\n");
    let b = format!("# a copy\n{a}");
    let err = bad_rules(&[("a.toml", &a), ("b.toml", &b)], "policies/b.toml", "2:6");
    assert!(
        err.contains("policies/a.toml"),
        "names the first definition: {err}"
    );
    assert_named_snapshot!("rule_files_duplicate_id", err);
}

#[test]
fn a_rule_file_reusing_a_builtin_id() {
    let text = "id = \"owner-ignored\"\nseverity = \"error\"\nsummary = \"s\"\nmessage = \"m\"\n\n[[check]]\nselect = \"metadata.owner\"\nabsent = true\n";
    let err = bad_rules(&[("owner.toml", text)], "policies/owner.toml", "1:6");
    assert!(err.contains("owner-ignored"), "{err}");
}

#[test]
fn a_bad_rule_file_listed_by_the_config() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write("forgelint.toml", "rules = [\"policies/\"]\n")
        .write(
            "policies/team.toml",
            format!("{RULE_HEAD}\n[[check]]\nselect = \"metadata.labels.team\"\nmatches = '('\n"),
        );
    let run = tree.run(&["--config", "forgelint.toml"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("policies/team.toml:8:11"),
        "{}",
        run.stderr
    );
}

/// A catalog or rule path in the config that is not a file to read says what it is, at once
/// (reading a device or a FIFO would never end or never start).
#[test]
#[cfg(unix)]
fn a_config_path_that_is_not_a_regular_file_says_what_it_is() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .mkdir("folder")
        .mkfifo("pipe")
        .symlink("missing.toml", "dangling.toml");
    let _socket = std::os::unix::net::UnixListener::bind(tree.path("socket")).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("catalog", "folder", "catalog `./folder` is a directory"),
        (
            "catalog",
            "pipe",
            "catalog `./pipe` is a FIFO, not a regular file",
        ),
        (
            "catalog",
            "socket",
            "catalog `./socket` is a socket, not a regular file",
        ),
        (
            "catalog",
            "/dev/zero",
            "catalog `/dev/zero` is a character device, not a regular file",
        ),
        (
            "catalog",
            "/dev/urandom",
            "catalog `/dev/urandom` is a character device, not a regular file",
        ),
        (
            "catalog",
            "dangling.toml",
            "catalog `./dangling.toml` is a symbolic link to nothing",
        ),
        (
            "catalog",
            "nope.toml",
            "catalog `./nope.toml` does not exist",
        ),
        (
            "rules",
            "pipe",
            "rule path `./pipe` is a FIFO, not a regular file or folder",
        ),
        (
            "rules",
            "/dev/zero",
            "rule path `/dev/zero` is a character device, not a regular file or folder",
        ),
    ];
    for (key, value, message) in cases {
        let (config, position) = match *key {
            "catalog" => (
                format!("[platform]\ncatalog = \"{value}\"\n"),
                "forgelint.toml:2:11",
            ),
            _ => (format!("rules = [\"{value}\"]\n"), "forgelint.toml:1:10"),
        };
        tree.write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        run.expect_code(2);
        assert!(
            run.stderr.contains(message) && run.stderr.contains(position),
            "{key} = {value}: expected {message:?} at {position} in\n{}",
            run.stderr
        );
    }
}

/// A file that the config names outside its project (its folder) is never quoted: a config from
/// a pull request must not copy a file of the CI runner into a public log. Its error gives the
/// path and the position only; a file inside the project still gets its code frame.
#[test]
fn a_bad_file_named_by_the_config_outside_the_project_is_not_quoted() {
    let outside = Tree::new();
    outside
        // Not TOML: the frame would show the line.
        .write("first-line.toml", "SECRET: hunter2\n")
        // TOML, but not a catalog: the parser's message would quote the key or the value.
        .write("key.toml", "\n\nSECRET_hunter2 = 1\n")
        .write("value.json", "{\"recipe\": \"SECRET hunter2\"}\n")
        .write("rules/SECRET.toml", "hunter2 = 1\n");
    let far = |rel: &str| outside.path(rel).display().to_string();
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .symlink(far("first-line.toml"), "linked.toml");
    let relative = format!(
        "../{}/key.toml",
        outside.root().file_name().unwrap().to_str().unwrap()
    );
    let cases = [
        (
            format!("[platform]\ncatalog = \"{}\"\n", far("first-line.toml")),
            format!("{}:1:", far("first-line.toml")),
        ),
        (
            format!("[platform]\ncatalog = \"{relative}\"\n"),
            format!("{relative}:3:1"),
        ),
        (
            format!("[platform]\ncatalog = \"{}\"\n", far("value.json")),
            format!("{}:1:", far("value.json")),
        ),
        (
            "[platform]\ncatalog = \"linked.toml\"\n".to_string(),
            "linked.toml:1:".to_string(),
        ),
        (
            format!("rules = [\"{}\"]\n", far("rules")),
            format!("{}:1:1", far("rules/SECRET.toml")),
        ),
    ];
    for (config, position) in &cases {
        tree.write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        run.expect_code(2);
        let stderr = run.stderr.replace(&far("rules/SECRET.toml"), "[RULE FILE]");
        assert!(
            !stderr.contains("hunter2") && !stderr.contains("SECRET"),
            "{config}: the file's text is shown:\n{stderr}"
        );
        assert!(
            run.stderr.contains(position.as_str()) && run.stderr.contains("outside the project"),
            "{config}: expected {position} in\n{}",
            run.stderr
        );
    }
    // Inside the project: the frame, as for the config itself.
    tree.write("catalog.toml", "SECRET: hunter2\n")
        .write("forgelint.toml", "[platform]\ncatalog = \"catalog.toml\"\n");
    let run = tree.run(&["--config", "forgelint.toml"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("SECRET: hunter2") && run.stderr.contains("catalog.toml:1:"),
        "{}",
        run.stderr
    );
}

/// Errors in the config and the files it names reach the terminal without a raw escape or
/// bidi control, in the message, the help, the label or the code frame.
#[test]
fn config_errors_carry_no_raw_control_characters() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json")
        .write(
            "catalog.toml",
            "[[recipe]]\nname = \"x\"\nrequires = { core = \"\\u001b[2J\" }\n",
        )
        .write("policies/bad.toml", "\"\\u202e\\u009b31m\" = 1\n");
    let raw = |text: &str| {
        text.chars().find(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
    };
    for config in [
        // Raw in a comment: TOML refuses it, with a frame of that line.
        "# \u{1b}[2J\u{202e} comment\n[platform]\n",
        "[severity]\n\"\\u001b[2J\" = \"off\"\n",
        "[platform]\ncatalog = \"\\u001b[2Jnope\"\n",
        "[platform]\ncatalog = \"catalog.toml\"\n",
        "rules = [\"policies\"]\n",
    ] {
        tree.write("forgelint.toml", config);
        let run = tree.run(&["--config", "forgelint.toml"]);
        run.expect_code(2);
        assert_eq!(raw(&run.stderr), None, "{config:?}:\n{}", run.stderr);
    }
}

/// A run killed while it wrote `-o` or `--write-baseline` leaves its temporary file; the next
/// write to that folder removes the temporaries of processes that are gone, and only those.
#[test]
fn temporary_files_of_dead_runs_are_removed_by_the_next_write() {
    let tree = Tree::new();
    tree.valid_project("jobspec.json").mkdir("out");
    let dead = {
        let mut child = Command::new("true").spawn().expect("true");
        let pid = child.id();
        child.wait().expect("true");
        pid
    };
    let live = std::process::id();
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let temp = |rel: &str, old: bool| {
        tree.write(rel, "partial");
        if old {
            std::fs::File::options()
                .write(true)
                .open(tree.path(rel))
                .and_then(|f| f.set_modified(an_hour_ago))
                .unwrap();
        }
    };
    temp(&format!("out/.report.json.{dead}.forgelint-tmp"), true);
    temp(&format!("out/.other.sarif.{dead}.forgelint-tmp"), true);
    // Kept: a live process's, one just written (it may belong to a run in another PID
    // namespace), names that are not ours, and a folder.
    temp(&format!("out/.report.json.{live}.forgelint-tmp"), true);
    temp(&format!("out/.fresh.json.{dead}.forgelint-tmp"), false);
    temp(&format!("out/.report.json.x{dead}.forgelint-tmp"), true);
    temp(&format!("out/.report.json.{dead}.forgelint-tmp.bak"), true);
    temp("out/.report.json.0.forgelint-tmp", true);
    tree.mkdir(format!("out/.folder.{dead}.forgelint-tmp"));
    let entries = |dir: &str| {
        let mut names: Vec<String> = std::fs::read_dir(tree.path(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    tree.run(&["--no-config", "--format", "json", "-o", "out/report.json"])
        .expect_code(0);
    let mut expected = vec![
        format!(".fresh.json.{dead}.forgelint-tmp"),
        format!(".folder.{dead}.forgelint-tmp"),
        ".report.json.0.forgelint-tmp".to_string(),
        format!(".report.json.{dead}.forgelint-tmp.bak"),
        format!(".report.json.{live}.forgelint-tmp"),
        format!(".report.json.x{dead}.forgelint-tmp"),
        "report.json".to_string(),
    ];
    expected.sort();
    assert_eq!(entries("out"), expected);

    // The baseline goes through the same writer.
    temp(&format!("base/.baseline.json.{dead}.forgelint-tmp"), true);
    tree.run(&["--no-config", "--write-baseline", "base/baseline.json"])
        .expect_code(0);
    assert_eq!(entries("base"), ["baseline.json"]);
}
