//! Linting one file: read it (bounded), parse once, run the effective rules, stamp identity.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use crate::config::Platform;
use crate::diagnostic::{Finding, Locator, Related};
use crate::json::{Document, Span};
pub use crate::project::{mentions_starforge, project_root, DirCache, RealProject, VirtualProject};
use crate::rules::eval::{run_check, run_when_holding, Context, Hit, ProjectFs};
use crate::rules::plan::{needs_bits, When};
use crate::rules::{Rule, Severity};
use crate::select::{Resolutions, SelectorTable};

/// Files larger than this are not parsed: an `invalid-json` finding says so.
pub const MAX_FILE_SIZE: u64 = 32 * 1024 * 1024;
/// At most this many findings are kept per file; a final note says how many more there were.
pub const MAX_FINDINGS_PER_FILE: usize = 1000;

/// At most this many findings are held for the report over a whole run; more are counted by
/// severity (for the summary and the exit code) but not reported.
pub const MAX_FINDINGS_HELD: usize = 1_000_000;

pub const INVALID_JSON: &str = "invalid-json";
/// The id of the finding that reports a panic (a bug in forgelint) while linting a file.
pub const INTERNAL_ERROR: &str = "internal-error";

/// The finding for a panic caught while linting `path`.
pub fn internal_error(path: &Arc<str>, payload: &(dyn std::any::Any + Send)) -> Finding {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    at_file_start(
        path,
        INTERNAL_ERROR,
        Severity::Error,
        format!(
            "forgelint crashed while linting {}: {}. This is a bug in forgelint; please report it with this file.",
            crate::escape::visible(path),
            crate::escape::visible(&what)
        ),
    )
}

/// Debug builds only: panics on the file named by `FORGELINT_PANIC_ON`, so the tests can prove
/// that a panic is contained. Release builds compile this to nothing.
pub fn panic_for_tests(path: &Path) {
    if cfg!(debug_assertions) {
        if let Some(name) = std::env::var_os("FORGELINT_PANIC_ON") {
            if path.file_name() == Some(name.as_os_str()) {
                panic!("FORGELINT_PANIC_ON matched");
            }
        }
    }
}

/// A rule as it applies to one file: its configured severity.
#[derive(Clone, Copy)]
pub struct Active<'a> {
    pub rule: &'a Rule,
    pub severity: Severity,
}

/// Reads at most `MAX_FILE_SIZE + 1` bytes of a regular file.
pub fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    read_bounded_into(path, &mut bytes)?;
    Ok(bytes)
}

/// Reads at most `MAX_FILE_SIZE + 1` bytes of a regular file into `bytes`, which is emptied
/// first and keeps its capacity: a worker reads thousands of files into one buffer.
pub fn read_bounded_into(path: &Path, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking: a file swapped for a FIFO or a device after discovery must not hang the
    // run (open(2) on a FIFO without a writer blocks).
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    bytes.clear();
    let limit = MAX_FILE_SIZE + 1;
    // First what fits in the buffer: a typical spec, and the read that finds its end.
    let room = (bytes.capacity().max(FIRST_READ) as u64).min(limit);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let first = if short_read_ends_file(dir.unwrap_or(Path::new("."))) {
        read_once(&mut file, bytes, room)
    } else {
        (&mut file).take(room).read_to_end(bytes)
    };
    let filled = matches!(first, Ok(n) if n as u64 == room);
    // Discovery saw a regular file. What was swapped in since reads as an error (a folder, a
    // FIFO with nothing written yet), as nothing (a FIFO without a writer, /dev/null) or fills
    // the buffer (a device): only those outcomes, and a file larger than the buffer, pay for
    // an fstat, which names the real problem.
    if first.is_err() || bytes.is_empty() || filled {
        let metadata = file.metadata()?;
        if !metadata.is_file() {
            bytes.clear();
            return Err(std::io::Error::other(
                "not a regular file (it changed since it was found); it was not read",
            ));
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
/// the whole file when it stops short of that room (the caller knows a short read ends the
/// file); after a full or empty read, goes on as `read_to_end` would.
/// Most specs fit: this saves the second read that only finds the end, one system call a file.
fn read_once(file: &mut std::fs::File, bytes: &mut Vec<u8>, room: u64) -> std::io::Result<usize> {
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
    if read > 0 && read < want {
        return Ok(read);
    }
    // Nothing (an empty file, or something that is not a file) or a full buffer: read on.
    let rest = (&mut *file).take(room - read as u64).read_to_end(bytes)?;
    Ok(read + rest)
}

/// Whether a read shorter than asked means the end of a regular file in `dir`. It does on the
/// local file systems that serve reads from the page cache: Linux fills a read up to the end
/// of the file. FUSE, network and pseudo file systems promise less, and their files are read
/// until a read returns nothing. Asked once per folder a thread moves to.
fn short_read_ends_file(dir: &Path) -> bool {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(std::path::PathBuf, bool)>> =
            const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some((known, fills)) if known.as_os_str() == dir.as_os_str() => *fills,
            _ => {
                let fills = file_system_of(dir).is_some_and(fills_reads);
                *last = Some((dir.to_path_buf(), fills));
                fills
            }
        }
    })
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

#[cfg(not(target_os = "linux"))]
fn file_system_of(_dir: &Path) -> Option<u32> {
    None
}

/// Local file systems whose regular-file reads come from the page cache (`linux/magic.h`):
/// ext2/3/4, XFS, Btrfs, tmpfs, ramfs, overlayfs (it reads through to one of these), F2FS,
/// bcachefs, squashfs and OpenZFS.
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

thread_local! {
    /// A worker thread's read buffer, reused from one file to the next.
    static READ_BUFFER: std::cell::Cell<Vec<u8>> = std::cell::Cell::default();
}

/// Reads the file at `path` (see [`read_bounded_into`]) into the worker's buffer and hands
/// the bytes, or the error, to `use_bytes`.
pub fn with_file_bytes<R>(path: &Path, use_bytes: impl FnOnce(std::io::Result<&[u8]>) -> R) -> R {
    let mut buffer = READ_BUFFER.with(|cell| cell.take());
    if buffer.capacity() == 0 {
        buffer.reserve(FIRST_READ);
    }
    let result = use_bytes(read_bounded_into(path, &mut buffer).map(|()| buffer.as_slice()));
    if buffer.capacity() <= KEPT_READ_BUFFER {
        READ_BUFFER.with(|cell| cell.set(buffer));
    }
    result
}

/// A finding at the very start of a file (unreadable, not a regular file, too large).
pub fn file_finding(path: &Arc<str>, rule: Active<'_>, message: String) -> Finding {
    at_file_start(path, &rule.rule.id, rule.severity, message)
}

/// A finding about a file as a whole: an empty span at 1:1.
fn at_file_start(path: &Arc<str>, rule: &str, severity: Severity, message: String) -> Finding {
    let start = crate::source::Position { line: 1, column: 1 };
    Finding {
        path: path.clone(),
        rule: Arc::from(rule),
        severity,
        message,
        help: None,
        pointer: String::new(),
        span: Span::default(),
        start,
        end: start,
        related: Vec::new(),
        value_hash: 0,
    }
}

thread_local! {
    /// A worker thread's parse buffers, reused from one file to the next.
    static ARENA: std::cell::Cell<crate::json::Arena> = std::cell::Cell::default();
    /// A worker thread's selector resolutions, reused from one file to the next.
    static RESOLUTIONS: std::cell::RefCell<Resolutions> = std::cell::RefCell::default();
}

/// The name a file's findings carry, made when the first of them needs it: most files have
/// no finding, and then their name is never built.
pub struct FileName<'a> {
    made: std::cell::OnceCell<Arc<str>>,
    make: Option<&'a dyn Fn() -> Arc<str>>,
}

impl<'a> FileName<'a> {
    /// A name `make` builds on first use.
    pub fn lazy(make: &'a dyn Fn() -> Arc<str>) -> FileName<'a> {
        FileName {
            made: std::cell::OnceCell::new(),
            make: Some(make),
        }
    }

    /// A name already built.
    pub fn ready(name: Arc<str>) -> FileName<'a> {
        FileName {
            made: std::cell::OnceCell::from(name),
            make: None,
        }
    }

    pub fn get(&self) -> &Arc<str> {
        self.made
            .get_or_init(|| self.make.map_or_else(|| Arc::from(""), |make| make()))
    }
}

/// Lints the bytes of one jobspec with the rules active for it. `table` holds the shared
/// selectors of those rules (see [`crate::rules::selector_table`]).
pub fn lint_bytes(
    bytes: &[u8],
    path: &Arc<str>,
    rules: &[Active<'_>],
    table: &SelectorTable,
    platform: &Platform,
    project: &dyn ProjectFs,
) -> Vec<Finding> {
    let name = FileName::ready(path.clone());
    lint_named(bytes, &name, rules, table, platform, project)
}

/// [`lint_bytes`] for a file whose name is made only if it has findings.
pub fn lint_named(
    bytes: &[u8],
    path: &FileName<'_>,
    rules: &[Active<'_>],
    table: &SelectorTable,
    platform: &Platform,
    project: &dyn ProjectFs,
) -> Vec<Finding> {
    // Looked up only for a file that is not JSON: most files are.
    let invalid_json = || rules.iter().find(|a| a.rule.id == INVALID_JSON);
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return invalid_json()
            .map(|r| {
                vec![file_finding(
                    path.get(),
                    *r,
                    format!(
                        "the file is larger than the {} MiB limit; it was not parsed",
                        MAX_FILE_SIZE / 1024 / 1024
                    ),
                )]
            })
            .unwrap_or_default();
    }
    // The worker's parse buffers, when no nested lint (none today) holds them.
    let mut arena = ARENA.with(|cell| cell.take());
    let parsed = match crate::json::text_of(bytes) {
        Some(text) => crate::json::parse_reusing(text, &mut arena).map(|doc| (text, doc)),
        None => crate::json::parse_bytes(bytes).map(|doc| ("", doc)),
    };
    let (text, doc) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            ARENA.with(|cell| cell.set(std::mem::take(&mut arena)));
            let Some(rule) = invalid_json() else {
                return Vec::new();
            };
            let (span, start, end) = match std::str::from_utf8(bytes) {
                Ok(text) => {
                    let end = text[err.offset.min(text.len())..]
                        .chars()
                        .next()
                        .map_or(err.offset, |c| err.offset + c.len_utf8());
                    Locator::new(text).positions(Span::new(err.offset, end))
                }
                // Not UTF-8: the span is the bad byte; its position comes from the valid
                // prefix before it.
                Err(e) => {
                    let at = e.valid_up_to();
                    let prefix = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
                    let (_, start, _) = Locator::new(prefix).positions(Span::new(at, at));
                    let end = crate::source::Position {
                        line: start.line,
                        column: start.column + 1,
                    };
                    (Span::new(at, (at + 1).min(bytes.len())), start, end)
                }
            };
            return vec![Finding {
                path: path.get().clone(),
                rule: Arc::from(rule.rule.id.as_str()),
                severity: rule.severity,
                message: err.message,
                help: None,
                pointer: String::new(),
                span,
                start,
                end,
                related: Vec::new(),
                value_hash: 0,
            }];
        }
    };
    let findings = RESOLUTIONS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut resolved) => {
            resolved.resolve(table, &doc);
            lint_document(text, &doc, path, rules, platform, project, &resolved)
        }
        // Only a nested lint on the same thread would find it busy.
        Err(_) => {
            let mut resolved = Resolutions::default();
            resolved.resolve(table, &doc);
            lint_document(text, &doc, path, rules, platform, project, &resolved)
        }
    });
    arena.recycle(doc);
    ARENA.with(|cell| cell.replace(arena));
    findings
}

/// Runs the rules on a parsed document whose shared selectors are resolved.
fn lint_document(
    text: &str,
    doc: &Document<'_>,
    path: &FileName<'_>,
    rules: &[Active<'_>],
    platform: &Platform,
    project: &dyn ProjectFs,
    resolved: &Resolutions,
) -> Vec<Finding> {
    let recipe = platform.catalog.as_ref().and_then(|c| {
        let spec = doc.get(doc.root(), "spec")?;
        let recipe = doc.get(spec, "recipe")?;
        c.get(doc.as_str(doc.get(recipe, "name")?)?)
    });
    let ctx = Context {
        doc,
        platform,
        recipe,
        project,
        resolved,
    };
    let mut findings = Vec::new();
    let mut locator = Locator::new(text);
    let mut hits: Vec<Hit> = Vec::new();
    let missing_context = !needs_bits(platform.available());
    for active in rules {
        let rule = active.rule;
        for (step, check) in rule.plan.iter().zip(&rule.checks) {
            if step.needs & missing_context != 0 {
                continue;
            }
            match step.when(doc, resolved) {
                When::Fails => {}
                When::Holds if step.passes(doc, resolved) => {}
                When::Holds => run_when_holding(check, &ctx, &mut hits),
                When::Unknown => run_check(check, &ctx, &mut hits),
            }
        }
        if hits.is_empty() {
            continue;
        }
        // One rule, one finding per span (two checks of a rule can agree on a value).
        hits.sort_by_key(|h| h.span);
        hits.dedup_by_key(|h| h.span);
        for hit in hits.drain(..) {
            let (span, start, end) = locator.positions(hit.span);
            let related = hit
                .related
                .into_iter()
                .map(|(span, label)| {
                    let (span, start, end) = locator.positions(span);
                    Related {
                        span,
                        start,
                        end,
                        label,
                    }
                })
                .collect();
            findings.push(Finding {
                path: path.get().clone(),
                rule: Arc::from(active.rule.id.as_str()),
                severity: active.severity,
                message: hit.message,
                help: hit.help,
                pointer: hit.pointer,
                span,
                start,
                end,
                related,
                value_hash: crate::diagnostic::value_hash(
                    &text[span.start as usize..span.end as usize],
                ),
            });
        }
    }
    if findings.len() > MAX_FINDINGS_PER_FILE {
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let dropped = findings.len() - MAX_FINDINGS_PER_FILE;
        findings.truncate(MAX_FINDINGS_PER_FILE);
        if let Some(last) = findings.last_mut() {
            last.message.push_str(&format!(
                " ({dropped} more findings in this file not shown)"
            ));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files of every size around the first read's come back whole, into a fresh buffer and a
    /// reused one, whether or not a short read is taken as the end.
    #[test]
    fn reads_return_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut reused = Vec::new();
        for len in [
            0,
            1,
            2047,
            FIRST_READ - 1,
            FIRST_READ,
            FIRST_READ + 1,
            3 * FIRST_READ + 7,
        ] {
            let path = dir.path().join(format!("f{len}.json"));
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            std::fs::write(&path, &text).unwrap();
            assert!(
                read_bounded(&path).unwrap() == text,
                "{len} bytes, fresh buffer"
            );
            read_bounded_into(&path, &mut reused).unwrap();
            assert!(reused == text, "{len} bytes, reused buffer");
            for room in [1u64, 5, FIRST_READ as u64, 4 * FIRST_READ as u64] {
                let mut bytes = Vec::new();
                let mut file = std::fs::File::open(&path).unwrap();
                let read = read_once(&mut file, &mut bytes, room).unwrap();
                let want = (len as u64).min(room) as usize;
                assert_eq!(read, want, "{len} bytes, room {room}");
                assert!(bytes == text[..want], "{len} bytes, room {room}");
            }
        }
    }

    /// Short reads are trusted on the page-cache file systems only: not on FUSE, NFS, SMB or
    /// the kernel's pseudo file systems.
    #[test]
    fn short_reads_are_trusted_on_local_file_systems_only() {
        for local in [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x794C_7630] {
            assert!(fills_reads(local), "{local:#x}");
        }
        // FUSE, NFS, SMB2, CIFS, procfs, sysfs, 9p.
        for other in [
            0x6573_5546,
            0x6969,
            0xFE53_4D42,
            0xFF53_4D42,
            0x9FA0,
            0x6265_6572,
            0x0102_1997,
        ] {
            assert!(!fills_reads(other), "{other:#x}");
        }
        if file_system_of(Path::new("/proc")) == Some(0x9FA0) {
            assert!(!short_read_ends_file(Path::new("/proc")));
            // Asked again after another folder: the answer follows the folder.
            let here = std::env::temp_dir();
            let local = file_system_of(&here).is_some_and(fills_reads);
            assert_eq!(short_read_ends_file(&here), local);
            assert!(!short_read_ends_file(Path::new("/proc")));
        }
    }
    use crate::rules::RuleSet;

    /// A file's name is made only when a finding needs it, and then once.
    #[test]
    fn a_file_name_is_made_only_for_findings() {
        let rules = RuleSet::builtin().expect("the built-in rules compile");
        let active: Vec<Active<'_>> = rules
            .rules
            .iter()
            .filter(|rule| rule.id == "api-version" || rule.id == INVALID_JSON)
            .map(|rule| Active {
                rule,
                severity: rule.severity,
            })
            .collect();
        let table = crate::rules::selector_table(active.iter().map(|a| a.rule));
        let project = VirtualProject { dirs: Vec::new() };
        let made = std::cell::Cell::new(0);
        let make = || -> Arc<str> {
            made.set(made.get() + 1);
            Arc::from("a/jobspec.json")
        };
        let lint = |bytes: &[u8]| {
            let name = FileName::lazy(&make);
            lint_named(
                bytes,
                &name,
                &active,
                &table,
                &Platform::default(),
                &project,
            )
        };
        let cases: [(&[u8], usize, usize); 4] = [
            (br#"{"apiVersion": "forge/v2"}"#, 0, 0),
            (b"{", 1, 1),
            (
                br#"{"apiVersion": "forge/v1", "a": {"apiVersion": 2}}"#,
                1,
                2,
            ),
            (br#"{"apiVersion": "forge/v2", "b": [1]}"#, 0, 2),
        ];
        for (bytes, findings, made_after) in cases {
            let found = lint(bytes);
            assert_eq!(found.len(), findings, "{found:?}");
            assert!(found.iter().all(|f| &*f.path == "a/jobspec.json"));
            assert_eq!(made.get(), made_after, "names made after {bytes:?}");
        }
    }
}
