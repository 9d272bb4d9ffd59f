//! Reading spec files: bounded in size, into a buffer each worker reuses, with as few system
//! calls as a file allows.

use std::io::Read;
use std::path::Path;

/// Files larger than this are not parsed: an `invalid-json` finding says so.
pub const MAX_FILE_SIZE: u64 = 32 * 1024 * 1024;

/// Reads at most `MAX_FILE_SIZE + 1` bytes of a regular file.
pub fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    read_bounded_into(path, &mut bytes)?;
    Ok(bytes)
}

/// Reads a file of forgelint's own (a catalog, a rule file) as UTF-8 text: at most
/// `MAX_FILE_SIZE` bytes, and never held up by a FIFO or a device put in a file's place.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    text_of(read_bounded(path)?)
}

/// The bytes of a bounded read as text: refused when over the size limit or not UTF-8.
fn text_of(bytes: Vec<u8>) -> std::io::Result<String> {
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(std::io::Error::other(format!(
            "larger than {} MiB",
            MAX_FILE_SIZE >> 20
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8"))
}

/// Reads at most `MAX_FILE_SIZE + 1` bytes of a regular file into `bytes`, which is emptied
/// first and keeps its capacity: a worker reads thousands of files into one buffer.
pub fn read_bounded_into(path: &Path, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    let (file, fills) = open_by_path(path)?;
    read_opened(file, fills, bytes)
}

/// Opens the file at `path` by its whole path. A short read is not taken as its end: asking
/// the file system (statfs(2), a lookup of every folder on the path) costs more than the one
/// read that finds the end of a file read once.
fn open_by_path(path: &Path) -> std::io::Result<(std::fs::File, bool)> {
    #[cfg(unix)]
    let file = open_non_blocking(path, 0)?;
    #[cfg(not(unix))]
    let file = portable::open_regular(path)?;
    Ok((file, false))
}

/// Reads a file as [`read_text`] does, if it is not a symbolic link: a config's base beside
/// it is read so, since a link could lead anywhere on the machine.
pub fn read_text_unlinked(path: &Path) -> std::io::Result<String> {
    // The link is refused by the open itself where the system can (one call, no race).
    #[cfg(unix)]
    let file = open_non_blocking(path, libc::O_NOFOLLOW)?;
    #[cfg(not(unix))]
    let file = {
        if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
            return Err(std::io::Error::other("a symbolic link; it was not read"));
        }
        portable::open_regular(path)?
    };
    let mut bytes = Vec::new();
    read_opened(file, false, &mut bytes)?;
    text_of(bytes)
}

/// Opens `path` for reading without waiting: a file swapped for a FIFO or a device after
/// discovery must not hang the run (open(2) on a FIFO without a writer blocks). What it is
/// shows in the read ([`read_opened`]).
/// `more`: other flags of open(2).
#[cfg(unix)]
fn open_non_blocking(path: &Path, more: libc::c_int) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OPEN_FLAGS | more)
        .open(path)
}

#[cfg(unix)]
const OPEN_FLAGS: libc::c_int = libc::O_NONBLOCK | libc::O_NOCTTY;

/// The error for what is not a regular file where one was found.
fn not_regular() -> std::io::Error {
    std::io::Error::other("not a regular file (it changed since it was found); it was not read")
}

/// Reads the opened `file` as [`read_bounded_into`] says; `fills`: a short read ends it.
fn read_opened(mut file: std::fs::File, fills: bool, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    bytes.clear();
    let limit = MAX_FILE_SIZE + 1;
    // First what fits in the buffer: a typical spec, and the read that finds its end.
    let room = (bytes.capacity().max(FIRST_READ) as u64).min(limit);
    let first = read_once(&mut file, bytes, room, fills);
    let filled = matches!(first, Ok(n) if n as u64 == room);
    // Discovery saw a regular file. What was swapped in since reads as an error (a folder, a
    // FIFO with nothing written yet), as nothing (a FIFO without a writer, /dev/null) or fills
    // the buffer (a device): only those outcomes, and a file larger than the buffer, pay for
    // an fstat, which names the real problem.
    if first.is_err() || bytes.is_empty() || filled {
        let metadata = file.metadata()?;
        if !metadata.is_file() {
            bytes.clear();
            return Err(not_regular());
        }
        if filled && room < limit {
            // Sized from the file's length: one allocation, not a chain of doublings.
            let want = metadata.len().min(MAX_FILE_SIZE) as usize + 1;
            bytes.reserve_exact(want.saturating_sub(bytes.len()));
            (&mut file).take(limit - room).read_to_end(bytes)?;
        }
    }
    first.map(drop)
}

/// Reads up to `room` bytes into `bytes`: one read(2) into the buffer's spare room, which is
/// the whole file when it stops short of that room and `fills` (a short read ends a file
/// there); otherwise goes on as `read_to_end` would.
/// Most specs fit: this saves the second read that only finds the end, one system call a file.
#[cfg(unix)]
fn read_once(
    file: &mut std::fs::File,
    bytes: &mut Vec<u8>,
    room: u64,
    fills: bool,
) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    bytes.reserve(usize::try_from(room).unwrap_or(usize::MAX).min(FIRST_READ));
    let spare = bytes.spare_capacity_mut();
    let want = spare.len().min(usize::try_from(room).unwrap_or(usize::MAX));
    let read = loop {
        // SAFETY: `spare` is `want` or more writable bytes, alive for the call.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), want) };
        if let Ok(n) = usize::try_from(n) {
            break n;
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    };
    // SAFETY: read(2) initialised the first `read` (at most `want`) bytes of the spare room.
    unsafe { bytes.set_len(bytes.len() + read) };
    // Short of what was asked: the end. (Only if the buffer had the whole room: a full
    // buffer says nothing.)
    if fills && read > 0 && read < want {
        return Ok(read);
    }
    // Nothing (an empty file, or something that is not a file), a full buffer, or a file
    // system that may return less than there is: read on.
    let rest = (&mut *file).take(room - read as u64).read_to_end(bytes)?;
    Ok(read + rest)
}

/// Whether a read shorter than asked means the end of a regular file in `dir`. It does on the
/// local file systems that serve reads from the page cache: Linux fills a read up to the end
/// of the file. FUSE, network and pseudo file systems promise less, and their files are read
/// until a read returns nothing. A lint worker asks once per folder it moves to ([`Reader`]),
/// where it keeps folders (Unix).
#[cfg(any(unix, test))]
fn short_read_ends_file(dir: &Path) -> bool {
    file_system_of(dir).is_some_and(fills_reads)
}

/// The type (`f_type`, a magic number) of the file system that holds `dir`.
#[cfg(target_os = "linux")]
fn file_system_of(dir: &Path) -> Option<u32> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: a NUL-terminated path and room for one `statfs`, both alive for the call.
    if unsafe { libc::statfs(path.as_ptr(), stats.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statfs(2) succeeded, so it filled the structure. The magic numbers are 32 bits;
    // `f_type` is wider on some targets.
    Some(unsafe { stats.assume_init() }.f_type as u32)
}

#[cfg(all(not(target_os = "linux"), any(unix, test)))]
fn file_system_of(_dir: &Path) -> Option<u32> {
    None
}

/// Local file systems whose regular-file reads come from the page cache (`linux/magic.h`):
/// ext2/3/4, XFS, Btrfs, tmpfs, ramfs, overlayfs (it reads through to one of these), F2FS,
/// bcachefs, squashfs and OpenZFS.
#[cfg(any(unix, test))]
fn fills_reads(file_system: u32) -> bool {
    const FILLING: [u32; 10] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0x0102_1994, // tmpfs
        0x8584_58F6, // ramfs
        0x794C_7630, // overlayfs
        0xF2F5_2010, // F2FS
        0xCA45_1A4E, // bcachefs
        0x7371_7368, // squashfs
        0x2FC1_2FC1, // OpenZFS
    ];
    FILLING.contains(&file_system)
}

/// The first read of a file reads at most this much, or the buffer's capacity if larger.
const FIRST_READ: usize = 16 * 1024;

/// Read buffers larger than this (a large file) are not kept for the next file.
const KEPT_READ_BUFFER: usize = 1 << 20;

/// A lint worker's reads: one buffer reused from one file to the next, and the folder it reads
/// from now. Made per worker for one run (its scratch).
#[derive(Default)]
pub struct Reader {
    buffer: Vec<u8>,
    folders: Folders,
}

impl Reader {
    /// Reads the file at `path` (see [`read_bounded_into`]) into the worker's buffer and hands
    /// the bytes, or the error, to `use_bytes`. The file is opened in the current folder (see
    /// [`Folders`]).
    pub fn with_file_bytes<R>(
        &mut self,
        path: &Path,
        use_bytes: impl FnOnce(std::io::Result<&[u8]>) -> R,
    ) -> R {
        let mut buffer = std::mem::take(&mut self.buffer);
        if buffer.capacity() == 0 {
            buffer.reserve(FIRST_READ);
        }
        let read = self
            .folders
            .open(path, false)
            .and_then(|(file, fills)| read_opened(file, fills, &mut buffer));
        let result = use_bytes(read.map(|()| buffer.as_slice()));
        if buffer.capacity() <= KEPT_READ_BUFFER {
            self.buffer = buffer;
        }
        result
    }

    /// Reads on from the folder `other` holds, if it holds one: a spec's check reads its
    /// experiment's config there, and the worker reads the experiment's files next. Those are
    /// named as the spec was: `relative_to` the current folder (`cwd`, which a spec named by a
    /// relative path gives), or by their whole path (`None`).
    pub fn adopt_folder(&mut self, other: &mut Folders, relative_to: Option<&Path>) {
        #[cfg(unix)]
        if let Some(mut folder) = other.folder.take() {
            if let Some(relative) = relative_to.and_then(|cwd| folder.path.strip_prefix(cwd).ok()) {
                folder.path = relative.to_path_buf();
            }
            self.folders.folder = Some(folder);
        }
        #[cfg(not(unix))]
        let _ = (other, relative_to);
    }
}

/// The folder a worker reads files from now, for reads that are not into a [`Reader`]'s buffer
/// (a spec's experiment config and the bases beside it). On Unix files are opened relative to
/// the folder (see `Folder`); elsewhere each by its path.
#[derive(Default)]
pub struct Folders {
    #[cfg(unix)]
    folder: Option<Folder>,
}

impl Folders {
    /// The bytes of the file at `path`, as [`read_bounded`] reads them.
    pub fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        let (file, fills) = self.open(path, false)?;
        let mut bytes = Vec::new();
        read_opened(file, fills, &mut bytes)?;
        Ok(bytes)
    }

    /// The text of the file at `path`, as [`read_text_unlinked`] reads it.
    pub fn read_text_unlinked(&mut self, path: &Path) -> std::io::Result<String> {
        #[cfg(unix)]
        {
            let (file, fills) = self.open(path, true)?;
            let mut bytes = Vec::new();
            read_opened(file, fills, &mut bytes)?;
            text_of(bytes)
        }
        #[cfg(not(unix))]
        read_text_unlinked(path)
    }

    /// Where files cannot be opened relative to a folder handle: each by its path.
    #[cfg(not(unix))]
    fn open(&mut self, path: &Path, unlinked: bool) -> std::io::Result<(std::fs::File, bool)> {
        debug_assert!(!unlinked, "unlinked reads go through read_text_unlinked");
        open_by_path(path)
    }

    /// Opens the file at `path` for reading (not through a symbolic link where `unlinked`),
    /// and says whether a short read ends it.
    #[cfg(unix)]
    fn open(&mut self, path: &Path, unlinked: bool) -> std::io::Result<(std::fs::File, bool)> {
        use std::os::unix::ffi::OsStrExt;
        let more = if unlinked { libc::O_NOFOLLOW } else { 0 };
        // Split at the last `/` by hand: `Path::parent` and `Path::file_name` parse components,
        // which showed in the profile. The name after the last `/` opened in the folder before it
        // is the file the whole path opens.
        let bytes = path.as_os_str().as_bytes();
        let (dir, name) = match memchr::memrchr(b'/', bytes) {
            Some(0) => (Path::new("/"), &bytes[1..]),
            Some(slash) => (
                Path::new(std::ffi::OsStr::from_bytes(&bytes[..slash])),
                &bytes[slash + 1..],
            ),
            None => (Path::new("."), bytes),
        };
        let folder = match &mut self.folder {
            Some(known) if known.path.as_os_str() == dir.as_os_str() => known,
            other => other.insert(Folder {
                path: dir.to_path_buf(),
                fills: short_read_ends_file(dir),
                handle: open_folder(dir),
            }),
        };
        // The name, NUL-terminated on the stack (no allocation a file): a longer name than a
        // file system allows (255 bytes) is left to the path.
        let mut buffer = [0u8; 256];
        let name = Some(name).filter(|n| !n.is_empty()).and_then(|n| {
            buffer.get_mut(..n.len())?.copy_from_slice(n);
            std::ffi::CStr::from_bytes_with_nul(buffer.get(..=n.len())?).ok()
        });
        if let (Some(handle), Some(name)) = (&folder.handle, name) {
            if let Ok(file) = open_at(handle, name, more) {
                return Ok((file, folder.fills));
            }
        }
        Ok((open_non_blocking(path, more)?, folder.fills))
    }
}

/// The folder a lint worker reads from now: the files of a walk come folder by folder.
///
/// Its files are opened relative to it, which looks up one name instead of every folder on
/// the path (the folders' lookups were about 4% of a 100,000-spec run's CPU). Kept by a
/// worker's [`Reader`] for one run, so a folder replaced between runs is never read through a
/// stale handle. Within a run, a file the handle does not find (its folder deleted and made
/// again) is opened by its path; a folder renamed away while the run reads it is still read
/// through the handle, as if the rename came after.
#[cfg(unix)]
struct Folder {
    path: std::path::PathBuf,
    /// A read shorter than asked ends a regular file here (see [`short_read_ends_file`]).
    fills: bool,
    /// The folder, opened for lookups only; `None` where it could not be opened.
    handle: Option<std::os::fd::OwnedFd>,
}

/// Opens `name` in the folder `handle` for reading, with the other open(2) flags `more`.
#[cfg(unix)]
fn open_at(
    handle: &std::os::fd::OwnedFd,
    name: &std::ffi::CStr,
    more: libc::c_int,
) -> std::io::Result<std::fs::File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: an open folder and a NUL-terminated name, both alive for the call.
    let raw = unsafe {
        libc::openat(
            handle.as_raw_fd(),
            name.as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC | OPEN_FLAGS | more,
        )
    };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: openat(2) returned a new descriptor, which nothing else owns.
    Ok(unsafe { std::fs::File::from_raw_fd(raw) })
}

/// `dir` opened for lookups of its files, or `None`.
#[cfg(unix)]
fn open_folder(dir: &Path) -> Option<std::os::fd::OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    // Lookups only (no read permission needed) where the system has it.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const FOR_LOOKUPS: libc::c_int = libc::O_PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const FOR_LOOKUPS: libc::c_int = 0;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FOR_LOOKUPS | libc::O_DIRECTORY)
        .open(dir)
        .ok()
        .map(std::os::fd::OwnedFd::from)
}

/// The reads of a system without non-blocking opens or `openat` (Windows). Built for the tests
/// on every system too, where they are checked against the Unix reads.
#[cfg(any(test, not(unix)))]
mod portable {
    use std::io::Read;
    use std::path::Path;

    /// Opens `path` by its path if it is a regular file. What is not (a folder, a FIFO, a
    /// device) is refused by its metadata before it is opened: an open that cannot be made
    /// non-blocking could wait for a writer forever.
    pub(super) fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
        if !std::fs::metadata(path)?.is_file() {
            return Err(super::not_regular());
        }
        std::fs::File::open(path)
    }

    /// Reads up to `room` bytes into `bytes`, to the end or the room (the Unix read's
    /// contract, without its single system call; `_fills` is not needed).
    pub(super) fn read_once(
        file: &mut std::fs::File,
        bytes: &mut Vec<u8>,
        room: u64,
        _fills: bool,
    ) -> std::io::Result<usize> {
        file.take(room).read_to_end(bytes)
    }
}

#[cfg(not(unix))]
use portable::read_once;

#[cfg(test)]
mod tests;
