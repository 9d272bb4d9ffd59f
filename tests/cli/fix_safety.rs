//! `--fix` writes only over the file it read, as it read it: an edit, a link swapped in or
//! another `--fix` run during the run leaves the file alone with a finding (exit 2); the owner,
//! group and mode survive; a read-only file is not fixed; a link and its target named together
//! are fixed once.
//!
//! The changes are made at an exact step of the run, not after a sleep: debug builds run the
//! shell command `FORGELINT_TEST_FIX_HOOK` (stage in `$1`, path in `$2`) after the file was read
//! and before it is checked (`before-check`), and after the last check before the rename
//! (`before-rename`). A release build has no hook: these tests then say so and pass. The hook
//! is a shell command, and links, modes and owners are Unix's: those tests are Unix-only.

#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, PermissionsExt};
#[cfg(unix)]
use std::path::Path;

#[cfg(unix)]
use super::fixing::project;
use super::fixing::{faulty_spec, fixed_spec, read};
use super::*;
#[cfg(unix)]
use common::{Extra, BIN};

#[cfg(unix)]
const SPEC: &str = "run.jobspec.json";

/// The faulty spec with its safe fix applied: what `--fix` alone writes.
fn safely_fixed() -> String {
    patch(
        &faulty_spec(),
        r#""owner": "bob",
    "#,
        "",
    )
}

#[cfg(unix)]
fn hooks_built_in() -> bool {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: the fix hook is compiled into debug builds only");
    }
    cfg!(debug_assertions)
}

#[cfg(unix)]
/// `--fix` with the hook `hook` and `env`, concise output.
fn fix_with_hook(tree: &Tree, args: &[&str], hook: &str, env: &[(&str, &str)]) -> Run {
    let mut extra = Extra::default();
    extra
        .env
        .push(("FORGELINT_TEST_FIX_HOOK".into(), hook.into()));
    extra
        .env
        .extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut all = vec!["--no-config", "--format", "concise", "--fix"];
    all.extend(args);
    tree.run_with(&all, &extra)
}

#[cfg(unix)]
fn assert_not_fixed(run: &Run, path: &str) {
    run.expect_code(2);
    let finding = run
        .findings_of(path)
        .into_iter()
        .find(|f| f.message.contains("changed during the run"))
        .unwrap_or_else(|| panic!("no finding says {path} changed:\n{}", run.stdout));
    assert!(finding.message.ends_with("not fixed"), "{finding:?}");
    assert_eq!(finding.position, "1:1");
}

#[test]
#[cfg(unix)]
fn an_edit_saved_during_the_run_survives() {
    if !hooks_built_in() {
        return;
    }
    let edited = faulty_spec().replace("\"bob\"", "\"carol\"");
    for stage in ["before-check", "before-rename"] {
        let tree = project(&faulty_spec());
        let hook = format!("[ \"$1\" = {stage} ] && printf '%s' \"$EDITED\" > \"$2\"; true");
        let run = fix_with_hook(&tree, &[], &hook, &[("EDITED", &edited)]);
        assert_not_fixed(&run, SPEC);
        assert_eq!(read(&tree, SPEC), edited, "{stage}: the edit is kept");
        let names: Vec<_> = std::fs::read_dir(tree.root())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(
            names.iter().all(|n| !n.contains("forgelint-tmp")),
            "{stage}: {names:?}"
        );
    }
}

#[test]
#[cfg(unix)]
fn a_file_replaced_during_the_run_by_one_of_the_same_bytes_is_not_fixed() {
    if !hooks_built_in() {
        return;
    }
    let tree = project(&faulty_spec());
    // Same bytes, another file: an editor that saves by renaming a new file into place.
    let hook = "[ \"$1\" = before-check ] && cp \"$2\" \"$2.new\" && mv \"$2.new\" \"$2\"; true";
    let run = fix_with_hook(&tree, &[], hook, &[]);
    assert_not_fixed(&run, SPEC);
    assert_eq!(read(&tree, SPEC), faulty_spec());
}

#[test]
#[cfg(unix)]
fn a_link_swapped_in_during_the_run_is_not_followed() {
    if !hooks_built_in() {
        return;
    }
    let tree = project(&faulty_spec());
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere.json");
    // The link points at a file with the very bytes that were read.
    let hook = "[ \"$1\" = before-check ] && cp \"$2\" \"$OUTSIDE\" && rm \"$2\" && ln -s \"$OUTSIDE\" \"$2\"; true";
    let run = fix_with_hook(&tree, &[], hook, &[("OUTSIDE", target.to_str().unwrap())]);
    assert_not_fixed(&run, SPEC);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), faulty_spec());
    let link = std::fs::symlink_metadata(tree.path(SPEC)).unwrap();
    assert!(link.file_type().is_symlink());
}

/// Another `--fix --unsafe-fixes` run fixes the file while this one is between its read and
/// its write: this one's fix would throw the other's away, so it is not written.
#[test]
#[cfg(unix)]
fn a_second_fix_run_in_between_loses_nothing() {
    if !hooks_built_in() {
        return;
    }
    let tree = project(&faulty_spec());
    let hook = "[ \"$1\" = before-check ] && env -u FORGELINT_TEST_FIX_HOOK \"$FORGELINT\" --no-config --quiet --fix --unsafe-fixes \"$2\" >/dev/null 2>&1; true";
    let run = fix_with_hook(&tree, &[], hook, &[("FORGELINT", BIN)]);
    assert_not_fixed(&run, SPEC);
    assert_eq!(
        read(&tree, SPEC),
        fixed_spec(),
        "the other run's fixes stay"
    );
}

/// Two runs at once over many files, one with the unsafe fixes: whatever the interleaving, a
/// file ends with the unsafe run's fixes, or that run says it did not fix it (and exits 2).
#[test]
fn two_fix_runs_at_once_never_lose_a_fix_silently() {
    let tree = Tree::new();
    tree.mkdir("experiments/my-grpo");
    let files = 300;
    for i in 0..files {
        tree.write(format!("specs/s{i:03}.jobspec.json"), faulty_spec());
    }
    let root = tree.root().to_path_buf();
    let args = |unsafe_fixes: bool| {
        let mut args = vec!["--no-config", "--format", "concise", "--fix", "-j", "2"];
        if unsafe_fixes {
            args.push("--unsafe-fixes");
        }
        args
    };
    let (full, safe) = std::thread::scope(|scope| {
        let full = scope.spawn(|| run_in(&root, &args(true)));
        let safe = scope.spawn(|| run_in(&root, &args(false)));
        (full.join().unwrap(), safe.join().unwrap())
    });
    let not_fixed = |run: &Run| -> Vec<String> {
        run.findings()
            .into_iter()
            .filter(|f| f.message.contains("changed during the run"))
            .map(|f| f.path)
            .collect()
    };
    let full_not_fixed = not_fixed(&full);
    for i in 0..files {
        let path = format!("specs/s{i:03}.jobspec.json");
        let text = read(&tree, &path);
        if text == fixed_spec() {
            continue;
        }
        assert_eq!(text, safely_fixed(), "{path}");
        assert!(
            full_not_fixed.contains(&path),
            "{path} lost the unsafe fixes and the run did not say so:\n{}",
            full.stdout
        );
    }
    for run in [&full, &safe] {
        assert!(run.code == 2 || not_fixed(run).is_empty(), "{}", run.stdout);
        assert!(!run.stdout.contains("File exists"), "{}", run.stdout);
    }
    assert!(full.code == 2 || full_not_fixed.is_empty());
}

/// Run as root on a file of another user: the fixed copy is theirs, with their group and mode.
#[test]
#[cfg(unix)]
fn the_owner_group_and_mode_survive() {
    if !is_root() {
        eprintln!("skipped: only root can make a file of another user to fix");
        return;
    }
    let tree = project(&faulty_spec());
    let path = tree.path(SPEC);
    std::os::unix::fs::chown(&path, Some(1234), Some(1234)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = tree.run(&["--no-config", "--format", "concise", "--fix"]);
    run.expect_code(1);
    assert_eq!(read(&tree, SPEC), safely_fixed());
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (1234, 1234));
    assert_eq!(meta.permissions().mode() & 0o7777, 0o600);
}

/// A user who may write another's file but cannot give it back to them leaves it alone.
#[test]
#[cfg(unix)]
fn a_file_whose_owner_cannot_be_kept_is_not_fixed() {
    if !is_root() || !Path::new("/usr/bin/setpriv").exists() {
        eprintln!("skipped: needs root and setpriv to run as another user");
        return;
    }
    let tree = project(&faulty_spec());
    let path = tree.path(SPEC);
    for dir in [
        tree.root().to_path_buf(),
        tree.path("experiments"),
        tree.path("experiments/my-grpo"),
    ] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    let extra = Extra {
        wrapper: ["setpriv", "--reuid=1234", "--regid=1234", "--clear-groups"]
            .map(String::from)
            .to_vec(),
        ..Extra::default()
    };
    let run = tree.run_with(&["--no-config", "--format", "concise", "--fix"], &extra);
    run.expect_code(2);
    assert!(
        run.stdout.contains("belongs to another user (uid 0)") && run.stdout.contains("not fixed"),
        "{}",
        run.stdout
    );
    assert_eq!(read(&tree, SPEC), faulty_spec());
    assert_eq!(std::fs::metadata(&path).unwrap().uid(), 0);
}

#[test]
#[cfg(unix)]
fn a_file_its_owner_may_not_write_is_not_fixed() {
    let tree = project(&faulty_spec());
    let path = tree.path(SPEC);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = tree.run(&["--no-config", "--format", "concise", "--fix"]);
    run.expect_code(2);
    assert!(
        run.stdout
            .contains("its mode (0444) forbids its owner to write it; not fixed"),
        "{}",
        run.stdout
    );
    assert_eq!(read(&tree, SPEC), faulty_spec());
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o444
    );
}

#[test]
#[cfg(unix)]
fn a_link_and_its_target_named_together_are_fixed_once() {
    for _ in 0..10 {
        let tree = project("");
        tree.write("real/spec.jobspec.json", faulty_spec())
            .symlink("real/spec.jobspec.json", "linked.jobspec.json");
        let run = tree.run(&[
            "--no-config",
            "--format",
            "concise",
            "--fix",
            "linked.jobspec.json",
            "real/spec.jobspec.json",
        ]);
        run.expect_code(1);
        assert!(!run.stdout.contains("File exists"), "{}", run.stdout);
        assert_eq!(run.paths(), ["linked.jobspec.json"], "{}", run.stdout);
        assert_eq!(read(&tree, "real/spec.jobspec.json"), safely_fixed());
        let link = std::fs::symlink_metadata(tree.path("linked.jobspec.json")).unwrap();
        assert!(link.file_type().is_symlink());
        assert!(run.stderr.contains("Fixed 1 finding"), "{}", run.stderr);
    }
}

#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
