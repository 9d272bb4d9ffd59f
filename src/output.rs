//! Files forgelint writes (`--output`): written to a temporary file in the same folder, then
//! renamed over the target, so a failure leaves any old file intact.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty());
    let temp = format!(".{name}.{}.forgelint-tmp", std::process::id());
    match dir {
        Some(d) => d.join(temp),
        None => PathBuf::from(temp),
    }
}

/// Writes `target` through `fill`, atomically.
pub fn write_atomically(
    target: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let temp = temp_path(target);
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
        std::fs::rename(&temp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
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
}
