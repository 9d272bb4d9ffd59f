//! The arguments of `forgelint check` resolved once into [`Options`] the core owns (as
//! ripgrep's low-level arguments become its high-level ones), then the plan of the run made
//! from them before any spec is read: the configs' profiles, the baseline, the worker pool.
//! A bad flag, config, rule file or baseline stops the run here. This is the only part of
//! `check` that reads the command line.

use std::path::{Path, PathBuf};

use super::fixing::FixMode;
use super::profiles::{Profiles, RuleChoice};
use crate::baseline::Baseline;
use crate::cli::{CheckArgs, ColorChoice, FailOn, FormatTarget, HistoryArgs, ReportArgs};
use crate::config::ConfigTree;
use crate::config::{ConfigSource, Settings};
use crate::diagnostic::{Applicability, Severity};
use crate::env::Env;
use crate::error;
use crate::error::Error;
use crate::report::Format;
use crate::shard::Shard;

/// What a `check` run does, resolved from its arguments: every choice made, every default
/// filled in, every combination of flags checked.
pub struct Options {
    pub config: ConfigSource,
    /// Files and folders to lint (`.` when none is given), `-` left out.
    pub paths: Vec<PathBuf>,
    /// The name the spec on standard input is reported by, when `-` was given.
    pub stdin_name: Option<PathBuf>,
    /// The reports to write, each to its file or to standard output.
    pub reports: Vec<ReportTarget>,
    /// `--statistics`.
    pub statistics: bool,
    /// `--group-depth`: the folders of the HTML report's breakdown.
    pub group_depth: usize,
    /// `--select` and `--ignore`.
    pub rules: RuleChoice,
    /// `--baseline`: the findings it records are hidden.
    pub baseline: Option<PathBuf>,
    /// `--write-baseline`: today's findings are recorded there.
    pub write_baseline: Option<PathBuf>,
    /// The lowest severity that fails the run.
    pub threshold: Severity,
    /// `--max-results N`: the reports hold the N most severe findings.
    pub max_results: Option<usize>,
    /// `--exit-zero`.
    pub exit_zero: bool,
    /// Whether the report on standard output is coloured.
    pub color: bool,
    /// Worker threads.
    pub threads: usize,
    /// `--no-ignore`: `.gitignore` and `.ignore` are not read.
    pub no_ignore: bool,
    /// `--discovered-only`: of the files named, only those a walk would find are linted.
    pub discovered_only: bool,
    /// `--quiet`: no summary.
    pub quiet: bool,
    /// `--fix` or `--diff`: the fixes applied to each spec, and whether they are written.
    pub fix: Option<FixMode>,
    /// `--shard K/N`: the part of the files this run lints.
    pub shard: Option<Shard>,
    /// `GITHUB_WORKSPACE`, the repository's checkout on a GitHub runner: GitHub annotations
    /// and SARIF name files from it when the run's folder is in it.
    pub workspace: Option<PathBuf>,
    /// `--new-from-rev REV`: only the findings the files did not have at REV are reported.
    pub new_from_rev: Option<String>,
}

/// What a `history` run does: the commits and paths it reads, and the options it shares with
/// `check` (the rules, the reports, the exit status).
pub struct HistoryOptions {
    /// Revisions as `git log` takes them; `HEAD` when there are none.
    pub revs: Vec<String>,
    /// `--all`: every ref.
    pub all: bool,
    /// Git pathspecs, relative to the current directory as git reads them.
    pub pathspecs: Vec<String>,
    pub options: Options,
}

/// One report of a run: its format and its file; `None` for standard output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    pub format: Format,
    pub file: Option<PathBuf>,
}

impl Options {
    /// Resolves `forgelint check`'s arguments, with the terminal and folder of `env`.
    pub fn from_args(args: CheckArgs, env: &Env<'_>) -> Result<Options, Error> {
        let (paths, stdin_name) = paths_to_lint(&args, &env.cwd)?;
        if stdin_name.is_some() && args.shard.is_some() {
            return Err(Error::usage(
                "--shard splits the files of a tree; a spec on standard input (`-`) belongs to no part",
            ));
        }
        check_new_from_rev(&args)?;
        let mut options = Options::reporting(args.report, args.write_baseline.is_some(), env)?;
        options.paths = paths;
        options.stdin_name = stdin_name;
        options.write_baseline = args.write_baseline;
        options.no_ignore = args.no_ignore;
        options.discovered_only = args.discovered_only;
        options.fix = fix_mode(args.fix, args.unsafe_fixes, args.diff);
        options.shard = args.shard;
        options.new_from_rev = args.new_from_rev;
        Ok(options)
    }

    /// The options `check` and `history` share, from their flags; the rest left empty.
    /// `writes_baseline`: the run writes a baseline, so the report for standard output is
    /// not written unless `-o` names a file for it.
    fn reporting(args: ReportArgs, writes_baseline: bool, env: &Env<'_>) -> Result<Options, Error> {
        let requested = requested_formats(&args);
        check_statistics_format(args.statistics, &requested)?;
        check_format_targets(&requested, args.output.is_some())?;
        Ok(Options {
            config: args.config.source(),
            reports: report_targets(requested, args.output.as_ref(), writes_baseline),
            paths: Vec::new(),
            stdin_name: None,
            statistics: args.statistics,
            group_depth: args.group_depth as usize,
            rules: RuleChoice {
                select: args.select,
                ignore: args.ignore,
            },
            baseline: args.baseline,
            write_baseline: None,
            threshold: match args.fail_on {
                FailOn::Error => Severity::Error,
                FailOn::Warning => Severity::Warning,
                FailOn::Note => Severity::Note,
            },
            exit_zero: args.exit_zero,
            max_results: args.max_results,
            color: match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => env.stdout_is_terminal && !env.no_color,
            },
            threads: args
                .jobs
                .filter(|&j| j > 0)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            no_ignore: false,
            discovered_only: false,
            quiet: args.quiet,
            fix: None,
            shard: None,
            workspace: std::env::var_os("GITHUB_WORKSPACE")
                .filter(|w| !w.is_empty())
                .map(PathBuf::from),
            new_from_rev: None,
        })
    }

    /// `--diff`: the fixes are shown, not written.
    pub fn diff(&self) -> bool {
        self.fix.is_some_and(|mode| !mode.write)
    }
}

impl HistoryOptions {
    /// Resolves `forgelint history`'s arguments; `check`'s flags that mean nothing for a
    /// history are refused, each with why.
    pub fn from_args(args: HistoryArgs, env: &Env<'_>) -> Result<HistoryOptions, Error> {
        refuse_in_history(&args)?;
        Ok(HistoryOptions {
            revs: args.revs,
            all: args.all,
            pathspecs: args.paths,
            options: Options::reporting(args.report, false, env)?,
        })
    }
}

/// The flags of `check` that `history` refuses, and why.
fn refuse_in_history(args: &HistoryArgs) -> Result<(), Error> {
    let r = &args.refused;
    let refused = [
        (r.fix || r.unsafe_fixes, "--fix", "history is read, never written: fix the files with `forgelint check --fix`"),
        (r.diff, "--diff", "history is read, never written: see the fixes with `forgelint check --diff`"),
        (r.write_baseline.is_some(), "--write-baseline", "a baseline records the files as they are: write it with `forgelint check --write-baseline`"),
        (r.new_from_rev.is_some(), "--new-from-rev", "history reports every finding with its commits; a range such as `REV..HEAD` reads only the commits since REV"),
        (r.shard.is_some(), "--shard", "a history is read in one pass: limit it with a range or `-- PATHS` instead"),
        (r.stdin_filename.is_some(), "--stdin-filename", "history reads files from git, not from standard input"),
        (r.no_ignore, "--no-ignore", "history reads the files git tracks; .gitignore plays no part"),
    ];
    refuse_first(&refused, |flag| {
        format!("{flag} does not go with `forgelint history`")
    })
}

/// `--new-from-rev` with a flag it cannot go with, and why.
fn check_new_from_rev(args: &CheckArgs) -> Result<(), Error> {
    if args.new_from_rev.is_none() {
        return Ok(());
    }
    let refused = [
        (args.write_baseline.is_some(), "--write-baseline", "a baseline records every finding of the files; --new-from-rev reports only those REV did not have"),
        (args.diff, "--diff", "--diff shows fixes, not findings: there is nothing for REV to hide"),
    ];
    refuse_first(&refused, |flag| {
        format!("--new-from-rev does not go with {flag}")
    })
}

/// The first of the `flags` given (`(given, flag, why)`), as a usage error: `message` says
/// which flag, the help why.
fn refuse_first(
    flags: &[(bool, &str, &str)],
    message: impl Fn(&str) -> String,
) -> Result<(), Error> {
    match flags.iter().find(|(given, ..)| *given) {
        Some((_, flag, why)) => Err(Error::Usage {
            message: message(flag),
            help: Some(why.to_string()),
        }),
        None => Ok(()),
    }
}

/// The reports asked for, or the human report on standard output.
fn requested_formats(args: &ReportArgs) -> Vec<FormatTarget> {
    if args.format.is_empty() {
        return vec![FormatTarget {
            format: Format::Human,
            file: None,
        }];
    }
    args.format.clone()
}

/// Each report's file: its own, else `-o FILE`, else standard output. Writing a baseline
/// reports what it wrote: without `-o`, the report meant for standard output is not written.
fn report_targets(
    requested: Vec<FormatTarget>,
    output: Option<&PathBuf>,
    writes_baseline: bool,
) -> Vec<ReportTarget> {
    requested
        .into_iter()
        .map(|t| ReportTarget {
            format: t.format,
            file: t.file.or_else(|| output.cloned()),
        })
        .filter(|t| t.file.is_some() || !writes_baseline)
        .collect()
}

/// The plan of a run: its options, and what they make before any spec is read.
pub struct Plan<'s> {
    pub options: &'s Options,
    /// What each config decides; a file is linted with its nearest config's.
    pub profiles: Profiles<'s>,
    pub baseline: Option<Baseline>,
    /// The worker threads, started when a run first needs them: a pre-commit run of a file or
    /// two lints on the calling thread and starts none.
    pool: std::sync::OnceLock<rayon::ThreadPool>,
}

impl<'s> Plan<'s> {
    pub fn new(
        options: &'s Options,
        configs: &'s ConfigTree,
        cwd: &'s Path,
    ) -> Result<Plan<'s>, Error> {
        check_rule_ids(&options.rules, configs.first())?;
        // Read before any spec: a bad baseline stops the run before the work is done.
        let baseline = match &options.baseline {
            Some(path) => Some(Baseline::load(path)?),
            None => None,
        };
        Ok(Plan {
            profiles: Profiles::new(configs, &options.rules, options.no_ignore, cwd),
            options,
            baseline,
            pool: std::sync::OnceLock::new(),
        })
    }

    /// The worker threads (`-j`), started on first use.
    pub fn pool(&self) -> Result<&rayon::ThreadPool, Error> {
        if let Some(pool) = self.pool.get() {
            return Ok(pool);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.options.threads)
            .build()
            .map_err(|e| Error::usage(format!("cannot start worker threads: {e}")))?;
        Ok(self.pool.get_or_init(|| pool))
    }
}

/// What `--fix`, `--unsafe-fixes` and `--diff` ask for.
fn fix_mode(fix: bool, unsafe_fixes: bool, diff: bool) -> Option<FixMode> {
    let applicability = if unsafe_fixes {
        Applicability::All
    } else {
        Applicability::Safe
    };
    (fix || diff).then_some(FixMode {
        applicability,
        write: !diff,
    })
}

/// `--statistics` has a place in human, concise, JSON, JSON Lines and HTML output only.
fn check_statistics_format(statistics: bool, requested: &[FormatTarget]) -> Result<(), Error> {
    let refused = requested.iter().find(|t| !t.format.takes_statistics());
    if let (true, Some(target)) = (statistics, refused) {
        return Err(Error::Usage {
            message: format!(
                "--statistics does not go with --format {}",
                target.format.name()
            ),
            help: Some("it goes with human, concise, json, jsonl and html: SARIF, GitHub annotations, JUnit and GitLab reports have no place for counts per rule".into()),
        });
    }
    Ok(())
}

/// At most one report goes to standard output (or `-o FILE`); the others name their files.
fn check_format_targets(requested: &[FormatTarget], output: bool) -> Result<(), Error> {
    let unnamed = requested.iter().filter(|t| t.file.is_none()).count();
    if unnamed > 1 {
        let to = if output { "-o FILE" } else { "standard output" };
        return Err(Error::Usage {
            message: format!("{unnamed} --format reports would all go to {to}"),
            help: Some("give every report but one its own file: --format sarif=report.sarif --format github".into()),
        });
    }
    Ok(())
}

/// Every `--select` and `--ignore` id names a rule.
fn check_rule_ids(rules: &RuleChoice, settings: &Settings) -> Result<(), Error> {
    for id in rules.select.iter().chain(&rules.ignore) {
        if settings.rules.get(id).is_none() {
            let flag = if rules.select.contains(id) {
                "--select"
            } else {
                "--ignore"
            };
            return Err(unknown_rule_error(id, settings, flag));
        }
    }
    Ok(())
}

fn unknown_rule_error(id: &str, settings: &Settings, flag: &str) -> Error {
    let help = error::suggest(id, settings.rules.rules.iter().map(|r| r.id.as_str()))
        .map(|s| format!("did you mean `{s}`?"))
        .or_else(|| Some("`forgelint rules` lists every rule".to_string()));
    Error::Usage {
        // The value is the user's, echoed: escapes in it are shown, not sent to the terminal.
        message: format!("{flag}: unknown rule `{}`", crate::escape::visible(id)),
        help,
    }
}

/// The paths to lint (default `.`) without `-`, and the name of the spec on standard input
/// when `-` is among them.
fn paths_to_lint(args: &CheckArgs, cwd: &Path) -> Result<(Vec<PathBuf>, Option<PathBuf>), Error> {
    let mut paths = args.paths.clone();
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    if let Some(first) = args.paths.first() {
        check_not_a_misspelt_command(first, cwd)?;
    }
    let stdin_requested = paths.iter().any(|p| p == Path::new("-"));
    paths.retain(|p| p != Path::new("-"));
    if args.stdin_filename.is_some() && !stdin_requested {
        return Err(Error::usage(
            "--stdin-filename goes with `-` (read the spec from standard input)",
        ));
    }
    let stdin_name = stdin_requested.then(|| {
        args.stdin_filename
            .clone()
            .unwrap_or_else(|| PathBuf::from("-"))
    });
    Ok((paths, stdin_name))
}

/// The commands a first argument could be a misspelling of.
const COMMANDS: [&str; 11] = [
    "check",
    "lint",
    "history",
    "rules",
    "explain",
    "test-rules",
    "init",
    "completions",
    "schema",
    "merge",
    "lsp",
];

/// A first path that does not exist and is close to a command's name (`explian`) is taken
/// for a misspelt command, not reported as a missing file.
fn check_not_a_misspelt_command(first: &Path, cwd: &Path) -> Result<(), Error> {
    let Some(word) = first.to_str() else {
        return Ok(());
    };
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-');
    // Looked up from the run's folder, as every other path is.
    if !plain || cwd.join(first).symlink_metadata().is_ok() {
        return Ok(());
    }
    match error::suggest(word, COMMANDS.iter().copied()) {
        Some(command) => Err(Error::Usage {
            message: format!("`{word}` is neither a file nor a command"),
            help: Some(format!("did you mean `forgelint {command}`?")),
        }),
        None => Ok(()),
    }
}
