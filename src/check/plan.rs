//! The plan of a run, resolved once from the arguments before any spec is read: settings,
//! the rules that run and at which severity, the baseline, threads, paths, colour and the
//! exit threshold. A bad flag, config, rule file or baseline stops the run here.

use std::path::{Path, PathBuf};

use super::profiles::Profiles;
use crate::baseline::Baseline;
use crate::cli::{CheckArgs, ColorChoice, ConfigArgs, FailOn};
use crate::config::{self, Settings};
use crate::configs::Configs;
use crate::error;
use crate::error::Error;
use crate::process::Env;
use crate::rules::Severity;

/// Loads the settings the flags ask for: `--config`, `--no-config`, or the nearest config
/// file; `--rules` adds rule files to them.
pub fn load_settings(flags: &ConfigArgs, cwd: &Path) -> Result<Settings, Error> {
    let found = if flags.no_config {
        None
    } else {
        flags.config.clone().or_else(|| config::find_config(cwd))
    };
    match found {
        Some(path) => Settings::load(&path, &flags.rules),
        None => {
            let mut settings = Settings::defaults(PathBuf::from("."))?;
            for p in &flags.rules {
                settings.rules.load_path(p)?;
            }
            settings.rules.sort();
            Ok(settings)
        }
    }
}

pub struct Plan<'s> {
    pub args: &'s CheckArgs,
    /// What each config decides; a file is linted with its nearest config's.
    pub profiles: Profiles<'s>,
    pub baseline: Option<Baseline>,
    pub threads: usize,
    pub pool: rayon::ThreadPool,
    /// Files and folders to lint, `-` left out.
    pub paths: Vec<PathBuf>,
    /// The name a spec read from standard input is reported by, when `-` was given.
    pub stdin_name: Option<PathBuf>,
    pub color: bool,
    /// The lowest severity that fails the run.
    pub threshold: Severity,
    /// `--fix` or `--diff`: the fixes applied to each spec, and whether they are written.
    pub fix_mode: Option<super::fixing::FixMode>,
}

impl<'s> Plan<'s> {
    pub fn new(
        args: &'s CheckArgs,
        configs: &'s Configs,
        cwd: &'s Path,
        env: &Env<'_>,
    ) -> Result<Plan<'s>, Error> {
        check_rule_ids(args, configs.first())?;
        check_statistics_format(args)?;
        check_format_targets(args)?;
        // Read before any spec: a bad baseline stops the run before the work is done.
        let baseline = match &args.baseline {
            Some(path) => Some(Baseline::load(path)?),
            None => None,
        };
        let threads = args
            .jobs
            .filter(|&j| j > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::usage(format!("cannot start worker threads: {e}")))?;
        let (paths, stdin_name) = paths_to_lint(args, &env.cwd)?;
        if stdin_name.is_some() && args.shard.is_some() {
            return Err(Error::usage(
                "--shard splits the files of a tree; a spec on standard input (`-`) belongs to no part",
            ));
        }
        Ok(Plan {
            profiles: Profiles::new(configs, args, cwd),
            args,
            baseline,
            threads,
            pool,
            paths,
            stdin_name,
            color: match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => env.stdout_is_terminal && !env.no_color,
            },
            fix_mode: fix_mode(args),
            threshold: match args.fail_on {
                FailOn::Error => Severity::Error,
                FailOn::Warning => Severity::Warning,
                FailOn::Note => Severity::Note,
            },
        })
    }
}

/// What `--fix`, `--unsafe-fixes` and `--diff` ask for.
fn fix_mode(args: &CheckArgs) -> Option<super::fixing::FixMode> {
    let applicability = if args.unsafe_fixes {
        crate::fix::Applicability::All
    } else {
        crate::fix::Applicability::Safe
    };
    (args.fix || args.diff).then_some(super::fixing::FixMode {
        applicability,
        write: !args.diff,
    })
}

/// `--statistics` has a place in human, concise, JSON and JSON Lines output only.
fn check_statistics_format(args: &CheckArgs) -> Result<(), Error> {
    use crate::cli::OutputFormat;
    let refused = args.formats().into_iter().find(|t| {
        matches!(
            t.format,
            OutputFormat::Sarif | OutputFormat::Github | OutputFormat::Junit | OutputFormat::Gitlab
        )
    });
    if let (true, Some(target)) = (args.statistics, refused) {
        let name = format!("{:?}", target.format).to_lowercase();
        return Err(Error::Usage {
            message: format!("--statistics does not go with --format {name}"),
            help: Some("it goes with human, concise, json, jsonl and html: SARIF, GitHub annotations, JUnit and GitLab reports have no place for counts per rule".into()),
        });
    }
    Ok(())
}

/// At most one report goes to standard output (or `-o FILE`); the others name their files.
fn check_format_targets(args: &CheckArgs) -> Result<(), Error> {
    let unnamed = args.formats().iter().filter(|t| t.file.is_none()).count();
    if unnamed > 1 {
        let to = match &args.output {
            Some(_) => "-o FILE",
            None => "standard output",
        };
        return Err(Error::Usage {
            message: format!("{unnamed} --format reports would all go to {to}"),
            help: Some("give every report but one its own file: --format sarif=report.sarif --format github".into()),
        });
    }
    Ok(())
}

/// Every `--select` and `--ignore` id names a rule.
fn check_rule_ids(args: &CheckArgs, settings: &Settings) -> Result<(), Error> {
    for id in args.select.iter().chain(&args.ignore) {
        if settings.rules.get(id).is_none() {
            let flag = if args.select.contains(id) {
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
const COMMANDS: [&str; 7] = [
    "check",
    "rules",
    "explain",
    "test-rules",
    "init",
    "completions",
    "schema",
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
