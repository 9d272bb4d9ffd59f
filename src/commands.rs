//! `forgelint rules` and `forgelint explain`.

use crate::check::load_settings;
use crate::cli::{CompletionsArgs, ExplainArgs, ListFormat, RulesArgs, TestRulesArgs};
use crate::error::Error;
use crate::escape::visible;
use crate::process::{Env, ExitStatus};
use crate::rules::{CaseSource, Rule};

fn needs_text(rule: &Rule) -> String {
    let names = rule.needs.names();
    if names.is_empty() {
        "-".to_string()
    } else {
        names.join(", ")
    }
}

pub fn rules(args: RulesArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let settings = load_settings(&args.config, &env.cwd)?;
    let rules = &settings.rules.rules;
    let io = |e| Error::Write {
        path: "standard output".into(),
        source: e,
    };
    match args.format {
        ListFormat::Json => {
            let list: Vec<serde_json::Value> = rules
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.id,
                        "severity": r.severity.as_str(),
                        "needs": r.needs.names(),
                        "summary": r.summary,
                        "builtin": r.origin.builtin,
                        "source": r.origin.name,
                    })
                })
                .collect();
            let text = serde_json::to_string_pretty(&list).unwrap_or_default();
            writeln!(env.stdout, "{text}").map_err(io)?;
        }
        ListFormat::Human => {
            let id_width = rules.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
            let needs_width = rules
                .iter()
                .map(|r| needs_text(r).len())
                .max()
                .unwrap_or(5)
                .max(5);
            writeln!(
                env.stdout,
                "{:id_width$}  {:8}  {:needs_width$}  SUMMARY",
                "ID", "SEVERITY", "NEEDS"
            )
            .map_err(io)?;
            for r in rules {
                writeln!(
                    env.stdout,
                    "{:id_width$}  {:8}  {:needs_width$}  {}",
                    r.id,
                    r.severity.as_str(),
                    needs_text(r),
                    visible(&r.summary)
                )
                .map_err(io)?;
            }
        }
    }
    Ok(ExitStatus::Success)
}

pub fn explain(args: ExplainArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let settings = load_settings(&args.config, &env.cwd)?;
    let Some(rule) = settings.rules.get(&args.rule) else {
        let help = crate::error::suggest(
            &args.rule,
            settings.rules.rules.iter().map(|r| r.id.as_str()),
        )
        .map(|s| format!("did you mean `{s}`?"))
        .or_else(|| Some("`forgelint rules` lists every rule".into()));
        return Err(Error::Usage {
            message: format!("unknown rule `{}`", visible(&args.rule)),
            help,
        });
    };
    let io = |e| Error::Write {
        path: "standard output".into(),
        source: e,
    };
    // The same page as docs/rules/<id>.md, with anything from a user's rule file made visible.
    let doc = rule_doc(rule);
    let safe: String = doc.lines().map(|l| format!("{}\n", visible(l))).collect();
    write!(env.stdout, "{safe}").map_err(io)?;
    Ok(ExitStatus::Success)
}

/// A rule's documentation page (Markdown): what `docs/rules/<id>.md` holds and SARIF's `helpUri`
/// points at.
pub fn rule_doc(rule: &Rule) -> String {
    let mut out = format!("# {}\n\n", rule.id);
    out.push_str(&format!(
        "Severity: **{}** · needs: {} · reads: {}\n\n{}\n",
        rule.severity,
        needs_text(rule),
        target_text(rule.target),
        rule.summary
    ));
    if !rule.explanation.is_empty() {
        out.push_str(&format!("\n## Why\n\n{}\n", rule.explanation));
    }
    if let Some(help) = &rule.help {
        out.push_str(&format!("\n## Fix\n\n{}\n", help.render(|_| Some("…"))));
    }
    for (valid, title) in [(false, "Fails"), (true, "Passes")] {
        // Prefer a case that differs from the reference spec: it shows what matters.
        let mut cases = rule.cases().iter().filter(|c| c.valid == valid);
        let example = cases
            .clone()
            .find(|c| !matches!(c.source, CaseSource::Reference) || !c.edits.is_empty())
            .or_else(|| cases.next());
        if let Some(case) = example {
            out.push_str(&format!("\n## {title}: {}\n\n", case.name));
            out.push_str(&case_text(case));
            if !valid {
                out.push_str(&findings_text(rule, case));
            }
        }
    }
    out
}

fn target_text(target: crate::rules::Target) -> &'static str {
    use crate::rules::Target;
    match target {
        Target::Jobspec => "jobspecs",
        Target::Text => "the text of experiment files",
        Target::Yaml => "YAML files of experiments",
        Target::Toml => "TOML files of experiments",
        Target::Json => "JSON files of experiments",
    }
}

/// What the rule reports on a failing case, as `forgelint check --format concise` prints it.
fn findings_text(rule: &Rule, case: &crate::rules::Case) -> String {
    let Ok(findings) = crate::cases::run_case(case, &[rule]) else {
        return String::new();
    };
    if findings.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nforgelint reports:\n\n```text\n");
    for f in &findings {
        out.push_str(&format!(
            "{}:{}:{}: {}[{}] {}\n",
            f.path, f.start.line, f.start.column, f.severity, f.rule, f.message
        ));
    }
    out.push_str("```\n");
    out
}

/// The language of a code block for a file of an experiment.
fn fence_language(file: &str) -> &'static str {
    crate::text::language_of(std::path::Path::new(file), "")
        .sarif_name()
        .map_or("text", |name| match name {
            "shellscript" => "sh",
            other => other,
        })
}

/// A case as a reader wants it: the change to the reference spec, not the whole spec.
fn case_text(case: &crate::rules::Case) -> String {
    if let Some((file, text)) = &case.file {
        let mut out = format!(
            "The experiment file `{file}`:\n\n```{}\n{}\n```\n",
            fence_language(file),
            text.trim_end()
        );
        if !matches!(case.source, CaseSource::Reference) {
            out.push_str("\nIts spec:\n\n");
            out.push_str(&spec_text(case));
        }
        return out;
    }
    let mut out = spec_text(case);
    if let Some((file, text)) = &case.config {
        out.push_str(&format!(
            "\nThe experiment's `{file}`:\n\n```{}\n{}\n```\n",
            fence_language(file),
            text.trim_end()
        ));
    }
    out
}

/// A case's spec as a reader wants it: the change to the reference spec, not the whole spec.
fn spec_text(case: &crate::rules::Case) -> String {
    let mut out = match &case.source {
        CaseSource::Reference => {
            "The reference spec ([rules/reference/jobspec.json](../../rules/reference/jobspec.json)).\n".to_string()
        }
        CaseSource::Patch(patch) => {
            let pretty = serde_json::from_str::<serde_json::Value>(patch)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| patch.clone());
            format!(
                "The reference spec ([rules/reference/jobspec.json](../../rules/reference/jobspec.json)) with this JSON merge patch:\n\n```json\n{pretty}\n```\n"
            )
        }
        CaseSource::Document(document) => format!("```json\n{}\n```\n", document.trim_end()),
    };
    for (old, new) in &case.edits {
        out.push_str(&format!("\nthen the text {old:?} replaced by {new:?}.\n"));
    }
    let c = &case.context;
    let mut context = Vec::new();
    if let Some(kind) = &c.kind {
        context.push(format!("kind = {kind:?}"));
    }
    match &c.catalog {
        Some(None) => context.push("no catalog".to_string()),
        Some(Some(catalog)) => context.push(format!("a catalog of {:?}", catalog.names())),
        None => {}
    }
    if let Some(r) = &c.registries {
        context.push(format!("registries = {r:?}"));
    }
    if let Some(q) = c.gpu_quota {
        context.push(format!("gpu-quota = {q}"));
    }
    if let Some(q) = &c.project_quota {
        context.push(format!("project-quota = {q:?}"));
    }
    if let Some(d) = &c.dirs {
        context.push(format!("directories {d:?}"));
    }
    if !context.is_empty() {
        out.push_str(&format!("\nIn a context with {}.\n", context.join(", ")));
    }
    out
}

/// Runs the cases of rule files; each case that does not behave as declared is reported with the
/// rule file's own span.
pub fn test_rules(args: TestRulesArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let builtin = crate::rules::RuleSet::builtin()?;
    let (set, strict) = if args.paths.is_empty() {
        (builtin.clone(), true)
    } else {
        let mut set = crate::rules::RuleSet::default();
        for p in &args.paths {
            set.load_path(p)?;
        }
        set.sort();
        (set, false)
    };
    let io = |e| Error::Write {
        path: "standard output".into(),
        source: e,
    };
    let (mut passed, mut failed) = (0usize, 0usize);
    for rule in &set.rules {
        // Without a failing case nothing shows the rule can fire at all (a selector or
        // predicate that never matches passes every valid case). A warning: the exit code
        // still says whether the cases that exist hold.
        if !rule.cases().iter().any(|c| !c.valid) {
            writeln!(
                env.stderr,
                "warning: {}: rule `{}` has no [[invalid]] case, so nothing shows that it fires",
                visible(&rule.origin.name),
                visible(&rule.id)
            )
            .ok();
        }
        for case in rule.cases() {
            // Built-in cases must trigger nothing but their own rule; a team's rule is tested
            // on its own.
            let verdict = crate::cases::verify_case(rule, case, strict.then_some(&builtin));
            match verdict {
                Ok(()) => passed += 1,
                Err(why) => {
                    failed += 1;
                    let err = crate::error::FileError::new(
                        &rule.origin.name,
                        &rule.origin.text,
                        Some(case.span.clone()),
                        format!(
                            "{}: case \"{}\" failed: {}",
                            rule.id,
                            visible(&case.name),
                            visible(&why)
                        ),
                    )
                    .with_label("this case");
                    let mut text = String::new();
                    let handler = miette::GraphicalReportHandler::new_themed(
                        miette::GraphicalTheme::unicode_nocolor(),
                    )
                    .with_links(false)
                    .with_width(env.width);
                    if handler.render_report(&mut text, &err).is_err() {
                        text = format!("{err}\n");
                    }
                    write!(env.stdout, "{text}").map_err(io)?;
                }
            }
        }
    }
    let rules = set.rules.len();
    writeln!(
        env.stdout,
        "{passed} passed, {failed} failed ({rules} rule file{})",
        if rules == 1 { "" } else { "s" }
    )
    .map_err(io)?;
    Ok(if failed > 0 {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

const STARTER_CONFIG: &str = r#"# forgelint configuration. Every key is optional; `forgelint rules` lists the rules.

# Extra rule files or folders (your team's policies), relative to this file.
# rules = ["policies/"]

[files]
# Which files are specs (this replaces the defaults), and which paths to skip.
# include = ["**/jobspec.json", "**/*.jobspec.json"]
# exclude = ["vendor/**"]
# Experiment directories linted even when no spec names them.
# experiments = ["experiments/*"]

[experiments]
# Host paths under these roots are data mounts (exp-host-path); this replaces the defaults.
# host-path-roots = ["/mnt", "/data", "/datasets", "/lustre", "/gpfs", "/scratch", "/shared", "/home", "~", "file:"]
# The experiment's config file, for hyperparam-unknown: the first of these that exists.
# config = ["config.yaml", "config.yml", "config.toml", "config.json"]
# Experiment files larger than this (bytes) are reported by exp-large-file, not read.
# max-file-size = 10000000

[platform]
# The SDK's KIND_TRAINING string.
kind = "TrainingJob"
# A snapshot of the admission catalog (TOML or JSON): enables the handshake rules.
# catalog = "catalog.toml"
# Image registries the deployment allows: enables image-registry.
# registries = ["nvcr.io"]
# GPUs per job for any project: enables gpu-quota.
# gpu-quota = 64

# [platform.project-quota]
# big-lab = 256

[severity]
# Per-rule override: "off", "note", "warning" or "error".
# owner-ignored = "off"

[per-file-ignores]
# Glob -> rule ids.
# "archive/**" = ["source-exp-missing"]
"#;

/// Writes a starter forgelint.toml; never overwrites one.
pub fn init(env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let path = env.cwd.join(crate::config::CONFIG_NAMES[0]);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path);
    let mut file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::usage(format!(
                "{} already exists; forgelint init does not overwrite it",
                path.display()
            )))
        }
        Err(source) => {
            return Err(Error::Write {
                path: path.display().to_string(),
                source,
            })
        }
    };
    std::io::Write::write_all(&mut file, STARTER_CONFIG.as_bytes()).map_err(|source| {
        Error::Write {
            path: path.display().to_string(),
            source,
        }
    })?;
    writeln!(env.stderr, "Wrote {}.", path.display()).ok();
    Ok(ExitStatus::Success)
}

/// `forgelint completions SHELL`: the completion script for the whole command line.
pub fn completions(args: CompletionsArgs, env: &mut Env<'_>) -> Result<ExitStatus, Error> {
    let mut command = <crate::cli::Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "forgelint", &mut script);
    env.stdout
        .write_all(&script)
        .and_then(|_| env.stdout.flush())
        .map_err(|source| Error::Write {
            path: "standard output".into(),
            source,
        })?;
    Ok(ExitStatus::Success)
}
