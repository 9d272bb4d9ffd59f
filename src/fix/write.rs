//! Writing a fixed file in place (`--fix`): atomically (a temporary in the same folder, renamed
//! over the file), and only over the very file that was read, as it was read.
//!
//! The state of the path is taken before the file is read ([`ReadState`]); before the fixed
//! copy replaces it, the path must still name the same file (the same link, if it was one, to
//! the same target; device and inode on Unix), unchanged (size, modification time, and bytes
//! equal to those linted). An editor's save, another `--fix` run, a link swapped in: each
//! leaves the file alone with a finding, and the run exits 2. On Linux the names are exchanged
//! (`RENAME_EXCHANGE`) and what came out is checked once more: a change in the last instant is
//! put back. The copy keeps the file's mode, owner and group; a file its owner may not write is
//! not fixed, nor one whose owner this user cannot give the copy.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::atomic_write;

/// What the path of a file to fix named when the file was read.
#[derive(Debug, Clone)]
pub struct ReadState {
    /// The path itself was a symbolic link.
    link: bool,
    /// The file it named, links followed.
    real: PathBuf,
    identity: Identity,
}

/// A file whatever path names it, links followed: a link and its target named on one command
/// line are one file, fixed once. (Not the inode: fixing a file frees its inode, which the
/// next file written may take.)
pub type FileKey = PathBuf;

/// The file the path names, links followed.
pub fn file_key(path: &Path) -> io::Result<FileKey> {
    path.canonicalize()
}

impl ReadState {
    /// The file read, whatever path named it.
    pub fn file_key(&self) -> FileKey {
        self.real.clone()
    }

    /// The state of the path now, taken just before its file is read.
    pub fn of(path: &Path) -> io::Result<ReadState> {
        let link = fs::symlink_metadata(path)?.file_type().is_symlink();
        let real = path.canonicalize()?;
        let meta = fs::symlink_metadata(&real)?;
        Ok(ReadState {
            link,
            real,
            identity: Identity::of(&meta),
        })
    }
}

/// Which file, in which state: a file replaced, or written to, is another.
#[cfg(unix)]
type Identity = UnixIdentity;
#[cfg(not(unix))]
type Identity = PortableIdentity;

/// The device and inode, size and modification time.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct UnixIdentity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

#[cfg(unix)]
impl UnixIdentity {
    fn of(meta: &fs::Metadata) -> UnixIdentity {
        use std::os::unix::fs::MetadataExt;
        UnixIdentity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
        }
    }
}

/// Without inodes: the size and the modification time (the bytes are compared as well).
#[cfg(any(test, not(unix)))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PortableIdentity {
    size: u64,
    modified: Option<std::time::SystemTime>,
}

#[cfg(any(test, not(unix)))]
impl PortableIdentity {
    fn of(meta: &fs::Metadata) -> PortableIdentity {
        PortableIdentity {
            size: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// Why a fixed file was not written; the file is as it was.
#[derive(Debug)]
pub enum NotWritten {
    /// The path no longer names the file that was read, as it was read.
    Changed(&'static str),
    /// Its mode forbids its owner to write it.
    ReadOnly(String),
    /// It belongs to a user (or group) this one cannot give the fixed copy.
    Owner(String),
    Io(io::Error),
}

impl std::fmt::Display for NotWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotWritten::Changed(why) => write!(f, "changed during the run ({why}); not fixed"),
            NotWritten::ReadOnly(mode) => write!(
                f,
                "its mode ({mode}) forbids its owner to write it; not fixed"
            ),
            NotWritten::Owner(owner) => write!(
                f,
                "it belongs to {owner}, and a fixed copy written by this user could not be given to them; not fixed"
            ),
            NotWritten::Io(e) => write!(f, "cannot write the fixed file: {e}; it was left as it was"),
        }
    }
}

impl From<io::Error> for NotWritten {
    fn from(e: io::Error) -> NotWritten {
        NotWritten::Io(e)
    }
}

/// Replaces the file at `path`, read as `read` with the bytes `original`, by `fixed`; see the
/// module's documentation for what is checked.
pub fn write_fixed(
    path: &Path,
    read: &ReadState,
    original: &[u8],
    fixed: &[u8],
) -> Result<(), NotWritten> {
    test_hook("before-check", path);
    let meta = still_the_file(path, read, original)?;
    if let Some(mode) = read_only(&meta) {
        return Err(NotWritten::ReadOnly(mode));
    }
    let real = &read.real;
    let temp = atomic_write::temp_path(real);
    let dir = temp
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Once per folder and run: a folder of a thousand specs with fifty to fix is read once,
    // not fifty times.
    if atomic_write::first_write_in(dir) {
        atomic_write::remove_stale_temps(dir);
    }
    let file = create_private(&temp)?;
    let written = fill(file, fixed, &meta).and_then(|()| put_in_place(&temp, real, read));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// The metadata of the file at `path` when it is still the one `read` describes, with the bytes
/// `original`; the reason it is not otherwise.
fn still_the_file(
    path: &Path,
    read: &ReadState,
    original: &[u8],
) -> Result<fs::Metadata, NotWritten> {
    let link = fs::symlink_metadata(path)
        .map_err(|_| NotWritten::Changed("it was removed"))?
        .file_type()
        .is_symlink();
    if link && !read.link {
        return Err(NotWritten::Changed("a symbolic link was put in its place"));
    }
    if !link && read.link {
        return Err(NotWritten::Changed("its symbolic link was replaced"));
    }
    let real = path
        .canonicalize()
        .map_err(|_| NotWritten::Changed("it was removed"))?;
    if real != read.real {
        return Err(NotWritten::Changed("its link points elsewhere now"));
    }
    let mut file = open_no_follow(&real).map_err(|_| NotWritten::Changed("it was replaced"))?;
    let meta = file.metadata()?;
    if !meta.is_file() || Identity::of(&meta) != read.identity {
        return Err(NotWritten::Changed("it was written to or replaced"));
    }
    // The bytes linted were read after the state was taken: they are the file's too (a save
    // within the same tick of the clock leaves size and time alike).
    let mut now = Vec::with_capacity(original.len() + 1);
    (&mut file)
        .take(original.len() as u64 + 1)
        .read_to_end(&mut now)?;
    if now != original {
        return Err(NotWritten::Changed("it was written to"));
    }
    Ok(meta)
}

/// Opens `path` for reading, never through a link (it is the resolved path: a link there now
/// was put there since).
fn open_no_follow(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// The file's mode when it forbids its owner to write it (`0444`).
#[cfg(unix)]
fn read_only(meta: &fs::Metadata) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o7777;
    (mode & 0o200 == 0).then(|| format!("{mode:04o}"))
}

/// Whether the file is read-only, where there are no modes to show.
#[cfg(any(test, not(unix)))]
fn read_only_portable(meta: &fs::Metadata) -> Option<String> {
    meta.permissions()
        .readonly()
        .then(|| "read-only".to_string())
}

#[cfg(not(unix))]
use read_only_portable as read_only;

/// A new file at `path` that only this user can read until it is given the file's mode.
fn create_private(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Writes `bytes` to the new copy and gives it the owner, group and mode of the file (`meta`).
fn fill(mut file: File, bytes: &[u8], meta: &fs::Metadata) -> Result<(), NotWritten> {
    file.write_all(bytes)?;
    keep_owner(&file, meta)?;
    // After the owner: a change of owner clears the set-user-id and set-group-id bits.
    file.set_permissions(meta.permissions())?;
    Ok(())
}

/// Gives the copy the file's owner and group, when they are not this user's already.
#[cfg(unix)]
fn keep_owner(file: &File, meta: &fs::Metadata) -> Result<(), NotWritten> {
    use std::os::unix::fs::MetadataExt;
    let mine = file.metadata()?;
    if (mine.uid(), mine.gid()) == (meta.uid(), meta.gid()) {
        return Ok(());
    }
    let uid = (mine.uid() != meta.uid()).then_some(meta.uid());
    let gid = (mine.gid() != meta.gid()).then_some(meta.gid());
    std::os::unix::fs::fchown(file, uid, gid).map_err(|e| match e.kind() {
        io::ErrorKind::PermissionDenied => NotWritten::Owner(match uid {
            Some(uid) => format!("another user (uid {uid})"),
            None => format!("a group this user is not in (gid {})", meta.gid()),
        }),
        _ => NotWritten::Io(e),
    })
}

/// Owners are not kept where there are none to keep.
#[cfg(not(unix))]
fn keep_owner(_: &File, _: &fs::Metadata) -> Result<(), NotWritten> {
    Ok(())
}

/// Puts the finished `temp` in place of `real`, if `real` is still the file `read` describes.
fn put_in_place(temp: &Path, real: &Path, read: &ReadState) -> Result<(), NotWritten> {
    let unchanged = |meta: &fs::Metadata| meta.is_file() && Identity::of(meta) == read.identity;
    if !fs::symlink_metadata(real).is_ok_and(|m| unchanged(&m)) {
        return Err(NotWritten::Changed("it was written to or replaced"));
    }
    test_hook("before-rename", real);
    #[cfg(target_os = "linux")]
    {
        if atomic_write::exchange(temp, real).is_ok() {
            // `temp` names what was in place an instant ago: the file read, or a change made
            // since the check above, which is put back.
            if fs::symlink_metadata(temp).is_ok_and(|m| unchanged(&m)) {
                let _ = fs::remove_file(temp);
                return Ok(());
            }
            atomic_write::exchange(temp, real)?;
            return Err(NotWritten::Changed("it was written to as it was replaced"));
        }
    }
    // No exchange (another system, or a file system without it): a plain rename, the check
    // above as close to it as can be.
    fs::rename(temp, real)?;
    Ok(())
}

/// Debug builds on Unix only: runs the shell command `FORGELINT_TEST_FIX_HOOK` with the stage
/// (`before-check`, `before-rename`) and the path as `$1` and `$2`, and waits for it. The tests
/// change the file there — an edit, a link swapped in, another `--fix` run — at the exact step
/// they mean, with no timing involved. Release builds compile this to nothing.
#[cfg(all(unix, debug_assertions))]
fn test_hook(stage: &str, path: &Path) {
    if let Some(command) = std::env::var_os("FORGELINT_TEST_FIX_HOOK") {
        let _ = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .arg("forgelint-test-fix-hook")
            .arg(stage)
            .arg(path)
            .status();
    }
}

#[cfg(not(all(unix, debug_assertions)))]
fn test_hook(_: &str, _: &Path) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::write(path, text).unwrap();
    }

    /// A folder holding `spec.json` with `text`, and the file's path.
    fn spec_file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.json");
        write(&path, text);
        (dir, path)
    }

    #[test]
    fn writes_over_the_file_as_it_was_read() {
        let (dir, path) = spec_file("old");
        let read = ReadState::of(&path).unwrap();
        write_fixed(&path, &read, b"old", b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary");
    }

    #[test]
    fn an_edit_or_a_replaced_file_is_left_alone() {
        let (dir, path) = spec_file("old");
        let read = ReadState::of(&path).unwrap();
        // The same size and, within the clock's tick, the same time: the bytes tell.
        write(&path, "new");
        let e = write_fixed(&path, &read, b"old", b"fixed").unwrap_err();
        assert!(matches!(e, NotWritten::Changed(_)), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        // Replaced by another file with the same bytes.
        write(&path, "old");
        let read = ReadState::of(&path).unwrap();
        let other = dir.path().join("other.json");
        write(&other, "old");
        fs::rename(&other, &path).unwrap();
        let e = write_fixed(&path, &read, b"old", b"fixed").unwrap_err();
        assert!(e.to_string().starts_with("changed during the run"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_put_in_place_is_not_followed() {
        let (dir, path) = spec_file("old");
        let outside = dir.path().join("outside.json");
        write(&outside, "old");
        let read = ReadState::of(&path).unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        let e = write_fixed(&path, &read, b"old", b"fixed").unwrap_err();
        assert!(matches!(e, NotWritten::Changed(_)), "{e}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), "old");
    }

    /// The portable twins (Windows) beside the Unix reads, on the same files: a file written
    /// to is another by either identity, and a file its owner may not write is read-only to both.
    #[cfg(unix)]
    #[test]
    fn the_portable_twins_agree_with_the_unix_ones() {
        use std::os::unix::fs::PermissionsExt;
        use std::time::{Duration, SystemTime};
        let (_dir, path) = spec_file("old");
        let identities = || {
            let meta = fs::metadata(&path).unwrap();
            (UnixIdentity::of(&meta), PortableIdentity::of(&meta))
        };
        let (unix, portable) = identities();
        assert_eq!(identities(), (unix, portable), "the same file, unchanged");
        // Longer: the size tells.
        write(&path, "older");
        let (unix_longer, portable_longer) = identities();
        assert_ne!(unix_longer, unix);
        assert_ne!(portable_longer, portable);
        // The same size, another time: the time tells.
        let file = fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        drop(file);
        let (unix_touched, portable_touched) = identities();
        assert_ne!(unix_touched, unix_longer);
        assert_ne!(portable_touched, portable_longer);
        for (mode, read_only_expected) in [(0o444, true), (0o644, false), (0o600, false)] {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            let meta = fs::metadata(&path).unwrap();
            assert_eq!(read_only(&meta).is_some(), read_only_expected, "{mode:o}");
            assert_eq!(
                read_only_portable(&meta).is_some(),
                read_only_expected,
                "{mode:o}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_mode_is_kept_and_a_read_only_file_is_not_fixed() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, path) = spec_file("old");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let read = ReadState::of(&path).unwrap();
        write_fixed(&path, &read, b"old", b"new").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let read = ReadState::of(&path).unwrap();
        let e = write_fixed(&path, &read, b"new", b"newer").unwrap_err();
        assert_eq!(
            e.to_string(),
            "its mode (0444) forbids its owner to write it; not fixed"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    }
}
