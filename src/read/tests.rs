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
        for (room, fills) in [1u64, 5, FIRST_READ as u64, 4 * FIRST_READ as u64]
            .into_iter()
            .flat_map(|room| [(room, true), (room, false)])
        {
            let mut bytes = Vec::new();
            let mut file = std::fs::File::open(&path).unwrap();
            let read = read_once(&mut file, &mut bytes, room, fills).unwrap();
            let want = (len as u64).min(room) as usize;
            assert_eq!(read, want, "{len} bytes, room {room}, {fills}");
            assert!(bytes == text[..want], "{len} bytes, room {room}, {fills}");
            let mut portable_bytes = Vec::new();
            let mut file = std::fs::File::open(&path).unwrap();
            let read = portable::read_once(&mut file, &mut portable_bytes, room, fills).unwrap();
            assert_eq!(read, want, "{len} bytes, room {room}, portable");
            assert!(
                portable_bytes == bytes,
                "{len} bytes, room {room}, portable"
            );
        }
        // The portable open and read, into a reused buffer.
        let file = portable::open_regular(&path).unwrap();
        read_opened(file, false, &mut reused).unwrap();
        assert!(reused == text, "{len} bytes, portable read");
    }
}

/// A file is read whole without following a link in its place; a link is refused.
#[test]
fn reads_without_links_refuse_links() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("base.yaml");
    std::fs::write(&file, "a: 1\n").unwrap();
    assert_eq!(read_text_unlinked(&file).unwrap(), "a: 1\n");
    assert!(read_text_unlinked(&dir.path().join("missing.yaml")).is_err());
    assert!(read_text_unlinked(dir.path()).is_err());
    #[cfg(unix)]
    {
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(read_text_unlinked(&link).is_err());
        assert_eq!(read_bounded(&link).unwrap(), b"a: 1\n");
    }
}

/// The portable read refuses by metadata what the Unix read refuses once opened (a folder,
/// a FIFO without a writer, devices), with the same error, and neither waits on a FIFO.
#[test]
#[cfg(unix)]
fn portable_reads_refuse_what_unix_reads_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("swapped.json");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path, alive for the call.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let file = dir.path().join("spec.json");
    std::fs::write(&file, "{}").unwrap();
    let portable_read = |path: &Path| {
        let mut bytes = Vec::new();
        portable::open_regular(path).and_then(|f| read_opened(f, false, &mut bytes))?;
        Ok::<_, std::io::Error>(bytes)
    };
    let outcome = |read: std::io::Result<Vec<u8>>| read.map_err(|e| (e.kind(), e.to_string()));
    let mut paths = vec![
        file.clone(),
        fifo,
        dir.path().to_path_buf(),
        dir.path().join("missing.json"),
    ];
    paths.extend(
        ["/dev/null", "/dev/zero"]
            .map(std::path::PathBuf::from)
            .into_iter()
            .filter(|p| p.exists()),
    );
    // An open of the FIFO would wait for a writer: the refusal must come first. Asked on a
    // thread, so a wait fails the test instead of hanging it.
    let (sender, receiver) = std::sync::mpsc::channel();
    let fifo = paths[1].clone();
    std::thread::spawn(move || sender.send(portable::open_regular(&fifo).map(drop)));
    let refused = receiver
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the FIFO was opened, not refused")
        .unwrap_err();
    assert_eq!(refused.to_string(), not_regular().to_string());
    for path in &paths {
        let unix = outcome(read_bounded(path));
        assert_eq!(outcome(portable_read(path)), unix, "{}", path.display());
        if path != &file {
            assert!(unix.is_err(), "{}", path.display());
        }
    }
    assert_eq!(portable_read(&file).unwrap(), b"{}");
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
        let here = std::env::temp_dir();
        let local = file_system_of(&here).is_some_and(fills_reads);
        assert_eq!(short_read_ends_file(&here), local);
        assert!(!short_read_ends_file(Path::new("/proc")));
    }
}

/// The lint workers' reads, opened through the folder they keep, come back whole as the
/// reads move from folder to folder and back, and when a folder is replaced between two
/// reads (the kept handle then finds nothing, and the path is used).
#[test]
fn reads_through_the_kept_folder_follow_the_path() {
    let root = tempfile::tempdir().unwrap();
    let mut reader = Reader::default();
    let mut read = |path: &Path| reader.with_file_bytes(path, |bytes| bytes.map(<[u8]>::to_vec));
    for dir in ["a", "b"] {
        std::fs::create_dir(root.path().join(dir)).unwrap();
        for name in ["x.json", "y.json"] {
            std::fs::write(root.path().join(dir).join(name), format!("{dir}/{name}")).unwrap();
        }
    }
    for (dir, name) in [
        ("a", "x.json"),
        ("b", "x.json"),
        ("b", "y.json"),
        ("a", "y.json"),
    ] {
        let path = root.path().join(dir).join(name);
        assert_eq!(read(&path).unwrap(), format!("{dir}/{name}").as_bytes());
    }
    let a = root.path().join("a");
    assert_eq!(read(&a.join("x.json")).unwrap(), b"a/x.json");
    std::fs::remove_dir_all(&a).unwrap();
    assert_eq!(
        read(&a.join("x.json")).unwrap_err().kind(),
        std::io::ErrorKind::NotFound
    );
    std::fs::create_dir(&a).unwrap();
    std::fs::write(a.join("x.json"), "the new a/x.json").unwrap();
    assert_eq!(read(&a.join("x.json")).unwrap(), b"the new a/x.json");
    // A missing file in a kept folder is an error, as by its path.
    assert_eq!(
        read(&a.join("none.json")).unwrap_err().kind(),
        std::io::ErrorKind::NotFound
    );
    // A folder named as a file is refused, as by its path.
    assert!(read(&root.path().join("b")).is_err());
    assert!(read(&root.path().join("b/")).is_err());
    // Spellings of one path that split at other places read the same file.
    let mut spelled = |tail: &str| read(Path::new(&format!("{}/{tail}", root.path().display())));
    for tail in ["b//x.json", "b/./x.json", "a/../b/x.json", "./b/x.json"] {
        assert_eq!(spelled(tail).unwrap(), b"b/x.json", "{tail}");
    }
}

/// A spec's check reads its experiment's config through a folder handle of its own; the
/// worker's reader takes the handle over, under the spelling its next files have (relative to
/// the current folder here), and reads them through it.
#[cfg(unix)]
#[test]
fn an_adopted_folder_reads_the_files_named_relative_to_it() {
    let root = tempfile::tempdir().unwrap();
    let experiment = root.path().join("run/experiments/x");
    std::fs::create_dir_all(&experiment).unwrap();
    std::fs::write(experiment.join("config.yaml"), "lr: 1\n").unwrap();
    std::fs::write(experiment.join("train.py"), "print()\n").unwrap();
    let mut folders = Folders::default();
    assert_eq!(
        folders.read(&experiment.join("config.yaml")).unwrap(),
        b"lr: 1\n"
    );
    let mut reader = Reader::default();
    reader.adopt_folder(&mut folders, Some(root.path()));
    assert!(folders.folder.is_none(), "taken over");
    // Named relative to `root`, which is not this process's folder: only the adopted handle
    // finds the file.
    let relative = Path::new("run/experiments/x/train.py");
    assert!(!relative.exists());
    let read = reader.with_file_bytes(relative, |bytes| bytes.map(<[u8]>::to_vec));
    assert_eq!(read.unwrap(), b"print()\n");
    // A link beside the config is not read through the handle either.
    std::os::unix::fs::symlink(experiment.join("config.yaml"), experiment.join("base.yaml"))
        .unwrap();
    let mut folders = Folders::default();
    assert!(folders
        .read_text_unlinked(&experiment.join("base.yaml"))
        .is_err());
    assert_eq!(
        folders
            .read_text_unlinked(&experiment.join("config.yaml"))
            .unwrap(),
        "lr: 1\n"
    );
}
