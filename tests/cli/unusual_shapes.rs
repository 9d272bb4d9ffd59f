//! Valid specs in unusual shapes have no finding.

use super::*;

#[test]
fn valid_specs_in_unusual_shapes_have_no_finding() {
    let spec = reference();
    let nested = format!("{}1{}", "{\"k\": ".repeat(1000), "}".repeat(1000));
    let variants: Vec<(&str, String)> = vec![
        ("reference.jobspec.json", spec.clone()),
        (
            "deep.jobspec.json",
            patch(
                &spec,
                "\"hyperparams\": {",
                &format!("\"hyperparams\": {{\"deep\": {nested}, "),
            ),
        ),
        (
            "deep-array.jobspec.json",
            patch(
                &spec,
                "\"hyperparams\": {",
                &format!(
                    "\"hyperparams\": {{\"grid\": {}{}, ",
                    "[".repeat(1000),
                    "]".repeat(1000)
                ),
            ),
        ),
        ("crlf.jobspec.json", spec.replace('\n', "\r\n")),
        ("minified.jobspec.json", minify(&spec)),
        (
            "minified-crlf-end.jobspec.json",
            format!("{}\r\n", minify(&spec)),
        ),
        (
            "non-ascii.jobspec.json",
            patch(
                &patch(
                    &spec,
                    r#""labels": { "team": "reasoning" }"#,
                    r#""labels": { "team": "推論", "チーム": "数学 🚀", "équipe": "raisonnement", "emoji": "👩‍👩‍👧", "κλειδί\u00e9": "ü" }"#,
                ),
                r#""name": "grpo-gsm8k-0412""#,
                r#""name": "grpo-数学-0412""#,
            ),
        ),
    ];
    assert_eq!(minify(&spec).lines().count(), 1);
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    for (name, text) in &variants {
        tree.write(name, text);
        for format in ["concise", "human"] {
            let run = tree.run(&["--no-config", "--format", format, name]);
            assert_eq!(
                (run.code, run.stdout.as_str()),
                (0, ""),
                "{name} (--format {format}) has findings:\n{}",
                run.stderr
            );
            assert_eq!(
                scrub_time(&without_skip_notes(&run.stderr)),
                "All clear: 1 file checked, no findings (TIME).\n"
            );
        }
    }
    // All at once, in parallel.
    let run = tree.run(&["--no-config", "-j", "4"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains(&format!("{} files checked", variants.len())),
        "{}",
        run.stderr
    );
}
