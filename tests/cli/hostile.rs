//! Hostile and awkward content: nothing reaches the terminal raw, and code frames show what
//! they point at.

use super::*;

#[test]
fn human_output_of_a_minified_spec_shows_a_window() {
    let spec = minify(&patch(
        &patch(
            &patch(&reference(), r#""owner": """#, r#""owner": "alice""#),
            r#""git_dirty": false"#,
            r#""git_dirty": true"#,
        ),
        "\"hyperparams\": {",
        &format!("\"hyperparams\": {{\"blob\": \"{}\", ", "z".repeat(5000)),
    ));
    // A long value on a pretty-printed line is windowed too.
    let long = patch(
        &reference(),
        r#""owner": """#,
        &format!("\"owner\": \"{}\"", "é".repeat(5000)),
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("min.jobspec.json", &spec)
        .write("long.jobspec.json", &long);
    let run = tree.run(&["--no-config"]);
    run.expect_code(0);
    assert!(run.stdout.contains("min.jobspec.json:1:"), "{}", run.stdout);
    assert!(
        run.stdout.contains("1 │ …"),
        "the window starts with an ellipsis:\n{}",
        run.stdout
    );
    for line in run.stdout.lines() {
        assert!(
            line.chars().count() <= 200,
            "a {}-character line:\n{line}",
            line.chars().count()
        );
    }
    let frames = run.stdout.matches("╭─[").count();
    assert_eq!(frames, 3, "owner-ignored ×2, git-dirty:\n{}", run.stdout);
}

#[test]
fn hostile_values_never_reach_the_terminal_raw() {
    let spec = patch(
        &patch(
            &patch(
                &reference(),
                r#""name": "grpo-gsm8k-0412""#,
                r#""name": "grpo\u001b[2J""#,
            ),
            r#""owner": """#,
            "\"owner\": \"\\u001b]8;;x\\u0007click\\u001b]8;;\\u0007\", \"\u{202e}evil\": 1",
        ),
        r#""corpus": "alice/handbook@v1""#,
        "\"corpus\": \"/mnt/\u{202e}raw/\\u202eescaped\"",
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("hostile.jobspec.json", &spec)
        // Raw control characters: invalid JSON, but the code frame shows the line.
        .write(
            "raw.jobspec.json",
            "{\n  \"apiVersion\": \"forge/v2\u{1b}[2J\u{7}\",\n  \"kind\": 1\n}\n",
        )
        // A hostile file name.
        .write("evil\u{1b}[2J\u{202e}.jobspec.json", warning_only_spec());
    let forbidden = ['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}'];
    for format in ["human", "concise"] {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(1);
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            for c in forbidden {
                assert!(
                    !text.contains(c),
                    "--format {format}: raw U+{:04X} on {stream}:\n{text}",
                    c as u32
                );
            }
        }
        let out = &run.stdout;
        // The values are still there, escaped.
        for shown in [
            r#""grpo\u{1b}[2J""#,
            r#"\u{1b}]8;;x\u{7}click\u{1b}]8;;\u{7}"#,
            r#"/mnt/\u{202e}raw/\u{202e}escaped"#,
            "evil\\u{1b}[2J\\u{202e}.jobspec.json",
        ] {
            assert!(
                out.contains(shown),
                "--format {format}: {shown} not shown in\n{out}"
            );
        }
        assert!(out.contains("evil"), "the bidi key is named: {out}");
        let rules = [
            "name-format",
            "owner-ignored",
            "unknown-field",
            "corpus-host-path",
            "invalid-json",
        ];
        for rule in rules {
            assert!(
                out.contains(&format!("[{rule}]")),
                "--format {format}: no {rule} in\n{out}"
            );
        }
        if format == "human" {
            assert!(
                out.contains("forge/v2␛[2J␇"),
                "the frame shows pictures:\n{out}"
            );
        }
    }
}

#[test]
fn each_code_frame_is_headed_by_a_position_it_shows() {
    let second = r#"{
        "id": "bob/opsd-patch",
        "version": "0.9.0",
        "digest": "sha256:1a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
      }
    ]"#;
    let spec = patch(
        &reference(),
        "\n      }\n    ]",
        &format!("\n      }},\n      {second}"),
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", &spec);
    let run = tree.run(&["--no-config"]);
    run.expect_code(1);
    assert!(
        run.stdout.contains("[plugin-leaf-collision]"),
        "{}",
        run.stdout
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    let mut frames = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(header) = line.split("╭─[").nth(1) else {
            continue;
        };
        frames += 1;
        let mut parts = header.trim_end_matches(']').rsplitn(3, ':');
        let _col = parts.next();
        let row: u32 = parts.next().unwrap().parse().unwrap();
        let shown: Vec<u32> = lines[i + 1..]
            .iter()
            .take_while(|l| !l.contains('╰'))
            .filter_map(|l| l.split('│').next()?.trim().parse().ok())
            .collect();
        assert!(
            shown.contains(&row),
            "the frame headed {line:?} shows lines {shown:?}:\n{}",
            run.stdout
        );
    }
    assert_eq!(
        frames, 2,
        "the collision and the other plugin:\n{}",
        run.stdout
    );
}

#[test]
fn invisible_characters_in_a_value_are_escaped_in_every_format() {
    // A NO-BREAK SPACE and a ZERO WIDTH SPACE, raw in the file: the name looks like
    // "grpo run" and "grporun" when printed as it is.
    let spec = patch(
        &reference(),
        r#""name": "grpo-gsm8k-0412""#,
        "\"name\": \"grpo\u{a0}run\u{200b}x\"",
    );
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo")
        .write("jobspec.json", &spec);
    let shown = r"grpo\u{a0}run\u{200b}x";
    for format in common::FORMATS {
        let run = tree.run(&["--no-config", "--format", format]);
        run.expect_code(1);
        let messages: Vec<String> = match format {
            "json" => run.json()["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| f["rule"] == "name-format")
                .map(|f| f["message"].as_str().unwrap_or_default().to_string())
                .collect(),
            "jsonl" => run
                .stdout
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .filter(|f| f["rule"] == "name-format")
                .map(|f| f["message"].as_str().unwrap_or_default().to_string())
                .collect(),
            "gitlab" => run
                .json()
                .as_array()
                .into_iter()
                .flatten()
                .filter(|i| i["check_name"] == "name-format")
                .map(|i| i["description"].as_str().unwrap_or_default().to_string())
                .collect(),
            "sarif" => run.json()["runs"][0]["results"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|r| r["ruleId"] == "name-format")
                .map(|r| {
                    r["message"]["text"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect(),
            _ => run
                .stdout
                .lines()
                .filter(|l| l.contains("name-format") || l.contains("not a run-id"))
                .map(str::to_string)
                .collect(),
        };
        assert!(
            messages.iter().any(|m| m.contains(shown)),
            "--format {format}: {shown} not in {messages:?}\n{}",
            run.stdout
        );
        for m in &messages {
            assert!(
                !m.contains('\u{a0}') && !m.contains('\u{200b}'),
                "--format {format}: a raw invisible character in {m:?}"
            );
        }
    }
}
