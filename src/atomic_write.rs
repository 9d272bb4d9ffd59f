//! Files forgelint writes (`--output`): written to a temporary file in the same folder, then
//! renamed over the target, so a failure leaves any old file intact. (`--fix` writes a fixed
//! spec with the same temporaries, and checks more: `fix/write.rs`.)
//!
//! A run killed mid-write (SIGKILL, a power cut) leaves its temporary behind; the next write to
//! the folder removes the temporaries of processes that are gone, so they cannot pile up.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const TEMP_SUFFIX: &str = ".forgelint-tmp";

/// A dead process's temporary is removed only once nothing has written to it for this long: a
/// run in another PID namespace (a container sharing the folder) has a PID this process cannot
/// see, and its temporary is written to from the moment it is made until it is renamed.
#[cfg(unix)]
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Where no process can be probed (Windows), a temporary is taken as abandoned once nothing
/// has written to it for this long, whoever made it: a run writes its report from start to
/// end, so a live run's temporary is never idle for an hour.
#[cfg(any(test, not(unix)))]
const STALE_BY_AGE: Duration = Duration::from_secs(60 * 60);

pub(crate) fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty());
    let temp = format!(".{name}.{}{TEMP_SUFFIX}", std::process::id());
    match dir {
        Some(d) => d.join(temp),
        None => PathBuf::from(temp),
    }
}

/// Removes from `dir` the temporaries (`.NAME.PID.forgelint-tmp`, regular files) of processes
/// that are gone and that have not been written to for [`STALE_AFTER`]. Best effort: what
/// cannot be read or removed is left.
#[cfg(unix)]
pub(crate) fn remove_stale_temps(dir: &Path) {
    remove_temps_where(dir, process_exists, STALE_AFTER);
}

/// Removes from `dir` the temporaries not written to for [`STALE_BY_AGE`].
#[cfg(any(test, not(unix)))]
pub(crate) fn remove_stale_temps_by_age(dir: &Path) {
    remove_temps_where(dir, |_| false, STALE_BY_AGE);
}

#[cfg(not(unix))]
pub(crate) use remove_stale_temps_by_age as remove_stale_temps;

/// Removes from `dir` the temporaries of other processes that are not `alive` (by PID) and
/// that have not been written to for `stale_after`.
fn remove_temps_where(dir: &Path, alive: impl Fn(u32) -> bool, stale_after: Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let Some(pid) = temp_pid(entry.file_name().as_encoded_bytes()) else {
            continue;
        };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        // Not followed through a link: only a temporary itself is removed.
        let Ok(meta) = entry.metadata() else { continue };
        let idle = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok());
        if meta.is_file() && idle.is_some_and(|idle| idle >= stale_after) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The PID in a temporary's name, `.NAME.PID.forgelint-tmp`.
fn temp_pid(name: &[u8]) -> Option<u32> {
    let rest = name
        .strip_prefix(b".")?
        .strip_suffix(TEMP_SUFFIX.as_bytes())?;
    let dot = rest.iter().rposition(|&b| b == b'.').filter(|&d| d > 0)?;
    let digits = &rest[dot + 1..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let pid: u32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    // 0 is no process's PID, and kill(2) reads 0 and negative PIDs as process groups.
    (1..=i32::MAX as u32).contains(&pid).then_some(pid)
}

/// Whether a process with `pid` exists: signal 0 is checked, not sent. EPERM means it exists
/// (someone else's); only ESRCH means it is gone.
#[cfg(unix)]
fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: kill with signal 0 sends nothing; it only checks that `pid` can be signalled.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Writes `target` through `fill`, atomically. A target that is not a regular file (`-o
/// /dev/stdout`, a named pipe, a terminal) is written to directly: a file put in its place
/// would replace the device or the link instead of writing to it.
pub fn write_atomically(
    target: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let file = std::fs::OpenOptions::new().write(true).open(target)?;
        let mut w = BufWriter::with_capacity(256 * 1024, file);
        fill(&mut w)?;
        return w.flush();
    }
    let temp = temp_path(target);
    remove_stale_temps(
        temp.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    );
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    let result = (|| {
        let mut w = BufWriter::with_capacity(256 * 1024, file);
        fill(&mut w)?;
        // Readers see the old file or the whole new one, and a failed run leaves the old one.
        // No fsync: a report is not worth a flush to disk (12 ms for a 24 MB SARIF log), and
        // surviving a power cut is not what this promises.
        w.into_inner().map_err(|e| e.into_error())?;
        replace(&temp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Whether this run has not written to `dir` yet (as far as it remembers: a run over a million
/// folders forgets the oldest, and may look at one twice).
pub(crate) fn first_write_in(dir: &Path) -> bool {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let Ok(mut seen) = SEEN.lock() else {
        return true;
    };
    let seen = seen.get_or_insert_with(HashSet::new);
    if seen.len() >= 4096 {
        seen.clear();
    }
    seen.insert(dir.to_path_buf())
}

/// Puts the finished `temp` in place of `target`. Readers see the old file or the new one,
/// never neither.
fn replace(temp: &Path, target: &Path) -> std::io::Result<()> {
    // On ext4, `rename` over an existing file starts writeback of the new one before it returns
    // (the `auto_da_alloc` heuristic for programs that do not fsync): 12 ms for a 13 MB JSON
    // report, 16 ms for a 24 MB SARIF log, a twentieth of a 100,000-spec audit. Exchanging the
    // two names and then removing the old file is as atomic for readers and leaves writeback to
    // the kernel. Only a regular file or a link is exchanged: a folder at `target` must stay an
    // error, as `rename` makes it.
    #[cfg(target_os = "linux")]
    {
        let replaceable = std::fs::symlink_metadata(target)
            .is_ok_and(|m| m.file_type().is_file() || m.file_type().is_symlink());
        if replaceable && exchange(temp, target).is_ok() {
            // `temp` now names the old report. Left behind, it would only be a stale file.
            let _ = std::fs::remove_file(temp);
            return Ok(());
        }
    }
    // No old file, or a file system without exchange (NFS, older kernels): a plain rename.
    std::fs::rename(temp, target)
}

/// Swaps the names `a` and `b` atomically (`renameat2` with `RENAME_EXCHANGE`).
#[cfg(target_os = "linux")]
pub(crate) fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_target_or_leaves_it_intact() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("report.json");
        std::fs::write(&target, "old").unwrap();
        let failed = write_atomically(&target, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
        write_atomically(&target, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A parent that is a file: an error, nothing written.
        assert!(write_atomically(&target.join("x"), |w| w.write_all(b"x")).is_err());
    }

    /// Replacing an existing report leaves the new text under the name and nothing else; a
    /// folder in the way stays an error and is left as it was; a link is replaced, not followed.
    #[test]
    #[cfg(unix)]
    fn an_old_report_is_replaced_and_a_folder_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let entries = || {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let target = dir.path().join("report.sarif");
        for text in ["first", "second", "third"] {
            write_atomically(&target, |w| w.write_all(text.as_bytes())).unwrap();
            assert_eq!(std::fs::read_to_string(&target).unwrap(), text);
            assert_eq!(entries(), ["report.sarif"]);
        }

        let folder = dir.path().join("out");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("kept"), "kept").unwrap();
        assert!(write_atomically(&folder, |w| w.write_all(b"x")).is_err());
        assert!(folder.is_dir());
        assert_eq!(
            std::fs::read_to_string(folder.join("kept")).unwrap(),
            "kept"
        );
        assert_eq!(entries(), ["out", "report.sarif"]);

        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"through")).unwrap();
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "through");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "third");
        assert_eq!(entries(), ["link.json", "out", "report.sarif"]);
    }

    #[test]
    fn temporary_names_give_their_pid() {
        for (name, pid) in [
            (".report.json.4242.forgelint-tmp", Some(4242)),
            (".a.b.c.1.forgelint-tmp", Some(1)),
            (".report.json.0.forgelint-tmp", None),
            (".report.json.+5.forgelint-tmp", None),
            (".report.json.-5.forgelint-tmp", None),
            (".report.json.2147483648.forgelint-tmp", None),
            (".report.json.99999999999999999999.forgelint-tmp", None),
            (".report.json..forgelint-tmp", None),
            ("..5.forgelint-tmp", None),
            (".5.forgelint-tmp", None),
            ("report.json.5.forgelint-tmp", None),
            (".report.json.5.forgelint-tmp.bak", None),
            (".report.json.x5.forgelint-tmp", None),
        ] {
            assert_eq!(temp_pid(name.as_bytes()), pid, "{name}");
        }
        let own = format!(".r.{}{TEMP_SUFFIX}", std::process::id());
        assert_eq!(temp_pid(own.as_bytes()), Some(std::process::id()));
        #[cfg(unix)]
        assert!(process_exists(std::process::id()));
    }

    /// Which of a folder's temporaries each cleanup removes: the Unix one those of processes
    /// that are gone, idle for a minute; the portable one those idle for an hour, whoever made
    /// them. Neither removes this process's own, or a file not named as a temporary.
    #[test]
    fn stale_temporaries_are_removed_by_pid_or_by_age() {
        // No process has this PID: Linux allows at most 2^22, other systems fewer.
        let gone = i32::MAX as u32;
        let alive = std::process::id();
        let before = |minutes: u64| SystemTime::now() - Duration::from_secs(minutes * 60);
        let names = [
            (format!(".a.json.{gone}{TEMP_SUFFIX}"), before(10)),
            (format!(".b.json.{gone}{TEMP_SUFFIX}"), before(0)),
            (format!(".c.json.{gone}{TEMP_SUFFIX}"), before(120)),
            (format!(".d.json.{alive}{TEMP_SUFFIX}"), before(120)),
            (format!("e.json.{gone}{TEMP_SUFFIX}"), before(120)),
        ];
        let remaining = |clean: fn(&Path)| {
            let dir = tempfile::tempdir().unwrap();
            for (name, modified) in &names {
                let file = std::fs::File::create(dir.path().join(name)).unwrap();
                file.set_modified(*modified).unwrap();
            }
            clean(dir.path());
            let mut left: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            left.sort();
            left.iter().map(|n| n[..2].to_string()).collect::<Vec<_>>()
        };
        assert_eq!(
            remaining(remove_stale_temps_by_age),
            [".a", ".b", ".d", "e."]
        );
        #[cfg(unix)]
        assert_eq!(remaining(remove_stale_temps), [".b", ".d", "e."]);
    }

    /// A named pipe (as `/dev/stdout` or a device would be) is written to, not replaced.
    #[test]
    #[cfg(unix)]
    fn a_pipe_is_written_to_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("report.pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        // The read end, opened first without waiting for a writer: nothing here can block.
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let mut reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&pipe)
            .unwrap();
        write_atomically(&pipe, |w| w.write_all(b"through the pipe")).unwrap();
        let mut got = String::new();
        let _ = reader.read_to_string(&mut got);
        assert_eq!(got, "through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file"
        );
    }
}
