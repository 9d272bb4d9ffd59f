//! The whole page on synthetic findings: bounded size, hostile values, batches, folders.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::diagnostic::{Finding, Position, Severity, Span};
use crate::report::Summary;
use crate::rules::RuleSet;

struct Texts(HashMap<String, Arc<str>>);

impl Sources for Texts {
    fn source(&self, finding: &Finding) -> Option<crate::report::Source> {
        let text = self.0.get(&*finding.path).cloned()?;
        Some(crate::report::Source::new(
            text,
            &crate::rules::secret_detector([]),
        ))
    }
}

/// Findings handed over in batches of `size`, so that files straddle batches.
struct Batched<'a>(&'a [Finding], usize);

impl Findings for Batched<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn each_batch(
        &self,
        each: &mut dyn FnMut(&[Finding]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.0.chunks(self.1).try_for_each(each)
    }
}

fn finding(path: &str, rule: &str, message: &str, at: usize) -> Finding {
    Finding {
        message: message.to_string(),
        help: Some("fix it".into()),
        pointer: "/a".into(),
        span: Span::new(at, at + 3),
        start: Position { line: 2, column: 8 },
        end: Position {
            line: 2,
            column: 11,
        },
        ..Finding::for_tests(path, rule, 2)
    }
}

fn summary_of(findings: &[Finding]) -> Summary {
    let mut paths: Vec<&str> = findings.iter().map(|f| &*f.path).collect();
    paths.dedup();
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    Summary {
        files: paths.len(),
        files_with_findings: paths.len(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
        ..Summary::default()
    }
}

fn page<F: Findings + ?Sized>(
    all: &[Finding],
    findings: &F,
    texts: &Texts,
    group_depth: usize,
) -> String {
    let set = RuleSet::builtin().unwrap();
    let rules: Vec<&crate::rules::Rule> = set.rules.iter().collect();
    let summary = summary_of(all);
    let all = all.to_vec();
    let input = ReportInput {
        findings: &all,
        summary: &summary,
        rules: &rules,
        cwd: Path::new("/work"),
        root: Path::new("/work"),
        statistics: false,
        tool_error: false,
        threads: 1,
    };
    let mut out = Vec::new();
    let page = super::Page {
        group_depth,
        links_from: Path::new("/work"),
        limits: Limits::default(),
    };
    write_with(&mut out, &input, findings, texts, page).unwrap();
    String::from_utf8(out).unwrap()
}

const SPEC: &str = "{\n  \"a\": \"xyz\"\n}\n";

#[test]
fn the_page_stays_small_with_many_findings_of_one_rule() {
    let n = 200_000;
    let findings: Vec<Finding> = (0..n)
        .map(|i| {
            finding(
                &format!("archive/2025-{:02}/run-{i:06}.jobspec.json", i % 12 + 1),
                "wrong-type",
                "spec.resources.pools[0].nodes is \"two\", not an integer ≥ 1",
                7,
            )
        })
        .collect();
    let mut sorted = findings;
    sorted.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let texts = Texts(
        sorted
            .iter()
            .take(60)
            .map(|f| (f.path.to_string(), Arc::from(SPEC)))
            .collect(),
    );
    let html = page(&sorted, &sorted[..], &texts, 2);
    assert!(html.len() < 400_000, "{} bytes", html.len());
    assert!(html.contains("and 199,750 more"), "the rest is counted");
    assert!(html.contains("data-count=\"200000\""));
    assert_eq!(html.matches("<pre class=\"frame\">").count(), 50);
    // Twelve months, each a row of the timeline.
    for month in 1..=12 {
        assert!(html.contains(&format!("<td class=\"path\">archive/2025-{month:02}</td>")));
    }
}

#[test]
fn hostile_paths_messages_and_file_text_are_escaped() {
    let path = "<script>alert(1)</script>/\"onmouseover=\"x.jobspec.json";
    let message = "</details><script>alert(2)</script>\u{1b}[31m\u{202e}";
    let text = "{\n  \"a\": \"</pre><img src=x onerror=alert(3)>\"\n}\n";
    let findings = vec![finding(path, "<b>rule</b>", message, 7)];
    let texts = Texts(HashMap::from([(path.to_string(), Arc::from(text))]));
    let html = page(&findings, &findings[..], &texts, 2);
    for raw in [
        "<script",
        "<img",
        "<b>",
        "onmouseover=\"",
        "\u{1b}",
        "\u{202e}",
    ] {
        assert!(!html.contains(raw), "{raw:?} got through:\n{html}");
    }
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("&lt;/details&gt;&lt;script&gt;alert(2)"));
    assert!(html.contains("\\u{1b}[31m\\u{202e}"));
    assert!(html.contains("&lt;img src=x onerror=alert(3)&gt;"));
    assert!(html.contains("<code class=\"id\">&lt;b&gt;rule&lt;/b&gt;</code>"));
    // The page's own elements are balanced: nothing closed early.
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count()
    );
}

#[test]
fn batches_give_the_page_one_slice_gives() {
    let mut findings = Vec::new();
    for (file, n) in [
        ("a/x.jobspec.json", 5),
        ("b/y.jobspec.json", 9),
        ("c/z.jobspec.json", 3),
    ] {
        for i in 0..n {
            let mut f = finding(
                file,
                if i % 2 == 0 { "kind" } else { "api-version" },
                "m",
                7,
            );
            f.span = Span::new(7 + i, 8 + i);
            findings.push(f);
        }
    }
    let texts = Texts(
        ["a/x.jobspec.json", "b/y.jobspec.json", "c/z.jobspec.json"]
            .iter()
            .map(|p| (p.to_string(), Arc::from(SPEC)))
            .collect(),
    );
    let whole = page(&findings, &findings[..], &texts, 2);
    for size in [1, 2, 4, 7] {
        assert_eq!(page(&findings, &Batched(&findings, size), &texts, 2), whole);
    }
}

#[test]
fn a_secret_in_another_rules_frame_is_masked() {
    let text = "key = \"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\"\npath = \"/mnt/data\"\n";
    let path = "experiments/x/train.py";
    let at = text.find("hf_").unwrap();
    let mut secret = finding(path, "exp-secret", "a credential", at);
    secret.span = Span::new(at, at + 37);
    secret.secret = true;
    let other_at = text.find("/mnt").unwrap();
    let other = finding(path, "exp-host-path", "a host path", other_at);
    let findings = vec![secret, other];
    let texts = Texts(HashMap::from([(path.to_string(), Arc::from(text))]));
    for size in [1, 2] {
        let html = page(&findings, &Batched(&findings, size), &texts, 2);
        assert!(!html.contains("abcdefghij"), "{html}");
        assert_eq!(html.matches("<pre class=\"frame\">").count(), 2);
    }
    // The secret alone, not reported (suppressed, baselined, not selected): masked all the same,
    // and a private key's body line too.
    let text = "key = \"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\"\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBodyLineOfTheKeyMHcCAQEEIBodyLineOfTheKeyMHcCAQEEIBodyLineOfTheKey\n-----END EC PRIVATE KEY-----\npath = \"/mnt/data\"\n";
    let other_at = text.find("/mnt").unwrap();
    let mut other = finding(path, "exp-host-path", "a host path", other_at);
    other.start.line = 5;
    let findings = vec![other];
    let texts = Texts(HashMap::from([(path.to_string(), Arc::from(text))]));
    let html = page(&findings, &findings[..], &texts, 2);
    assert!(html.contains("<pre class=\"frame\">"), "{html}");
    assert!(!html.contains("abcdefghij"), "{html}");
    assert!(!html.contains("MHcCAQ"), "{html}");
    assert!(!html.contains("END EC"), "{html}");
}

#[test]
fn group_depth_sets_the_folders() {
    let findings = vec![
        finding("lab/2025-01/a/jobspec.json", "kind", "m", 7),
        finding("lab/2025-02/b/jobspec.json", "kind", "m", 7),
        finding("top.jobspec.json", "kind", "m", 7),
    ];
    let texts = Texts(HashMap::new());
    let folders = |html: &str| -> Vec<String> {
        let table = &html[html.find("id=\"folders\"").unwrap()..html.find("id=\"files\"").unwrap()];
        table
            .split("<td class=\"path\">")
            .skip(1)
            .map(|cell| cell[..cell.find("</td>").unwrap()].to_string())
            .collect()
    };
    assert_eq!(
        folders(&page(&findings, &findings[..], &texts, 1)),
        [".", "lab"]
    );
    assert_eq!(
        folders(&page(&findings, &findings[..], &texts, 2)),
        [".", "lab/2025-01", "lab/2025-02"]
    );
    assert_eq!(
        folders(&page(&findings, &findings[..], &texts, 3)),
        [".", "lab/2025-01/a", "lab/2025-02/b"]
    );
}

#[test]
fn no_findings_is_a_short_page_with_the_totals() {
    let html = page(&[], &[][..], &Texts(HashMap::new()), 2);
    assert!(html.contains("id=\"total-errors\" data-count=\"0\""));
    assert!(html.contains("No findings in 0 files checked."));
    assert!(!html.contains("<details"));
    assert!(html.ends_with("</html>\n"));
}

/// Findings made on the fly, never held: `files` files of `per_file` findings each, over five
/// rules, in path order.
struct Generated {
    files: usize,
    per_file: usize,
}

impl Generated {
    fn path(&self, file: usize) -> String {
        format!(
            "lab/2025-{:02}/run-{file:06}/jobspec.json",
            file * 12 / self.files + 1
        )
    }
}

impl Findings for Generated {
    fn count(&self) -> usize {
        self.files * self.per_file
    }
    fn each_batch(
        &self,
        each: &mut dyn FnMut(&[Finding]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        const RULES: [&str; 5] = [
            "api-version",
            "kind",
            "unknown-field",
            "exp-secret",
            "wrong-type",
        ];
        let mut batch = Vec::with_capacity(1024);
        for file in 0..self.files {
            let path: Arc<str> = self.path(file).into();
            for n in 0..self.per_file {
                let mut f = finding("", RULES[n % 5], "a value is wrong", n % 40);
                f.path = path.clone();
                batch.push(f);
                if batch.len() == 1024 {
                    each(&batch)?;
                    batch.clear();
                }
            }
        }
        if !batch.is_empty() {
            each(&batch)?;
        }
        Ok(())
    }
}

/// A million and a half findings streamed through the report, never held: the page stays small.
/// (Run alone, the test's process peaks at about 15 MB: only each rule's sample is kept.)
#[test]
fn a_million_and_a_half_streamed_findings_make_a_bounded_page() {
    let findings = Generated {
        files: 1500,
        per_file: 1000,
    };
    let texts = Texts(
        (0..findings.files)
            .map(|file| (findings.path(file), Arc::from(SPEC)))
            .collect(),
    );
    let html = page(&[], &findings, &texts, 2);
    assert!(html.len() < 1_000_000, "{} bytes", html.len());
    assert_eq!(html.matches("<pre class=\"frame\">").count(), 5 * 50);
    assert!(
        html.contains("and 299,750 more"),
        "each rule's rest is counted"
    );
    // Twelve months: the timeline.
    let folders = &html[html.find("id=\"folders\"").unwrap()..html.find("id=\"files\"").unwrap()];
    assert_eq!(folders.matches("<td class=\"path\">lab/2025-").count(), 12);
    assert!(html.contains("and 1,480 more files with findings"));
}

#[test]
fn the_totals_say_what_the_baseline_and_missing_context_left_out() {
    let findings = vec![finding("a/x.jobspec.json", "kind", "m", 7)];
    let mut summary = summary_of(&findings);
    summary.baseline = Some(crate::baseline::Applied {
        hidden: 1234,
        stale: 1,
    });
    summary.skipped = vec![crate::report::Skipped {
        reason: "no catalog".into(),
        setting: "[platform] catalog".into(),
        rules: vec!["recipe-unknown".into(), "<i>x</i>".into()],
    }];
    let set = RuleSet::builtin().unwrap();
    let rules: Vec<&crate::rules::Rule> = set.rules.iter().collect();
    let input = ReportInput {
        findings: &findings,
        summary: &summary,
        rules: &rules,
        cwd: Path::new("/work"),
        root: Path::new("/work"),
        statistics: false,
        tool_error: false,
        threads: 1,
    };
    let mut out = Vec::new();
    write(
        &mut out,
        &input,
        &Texts(HashMap::new()),
        2,
        Path::new("/work"),
    )
    .unwrap();
    let html = String::from_utf8(out).unwrap();
    assert!(html.contains("1,234 findings hidden by the baseline; 1 baseline entry is stale."));
    assert!(html.contains("id=\"total-errors\" data-count=\"1\""));
    assert!(html.contains("2 rules skipped: no catalog — set [platform] catalog (recipe-unknown, &lt;i&gt;x&lt;/i&gt;)."));
}
