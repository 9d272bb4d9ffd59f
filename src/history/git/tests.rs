//! The plumbing, on repositories made by the `git` program.

use super::*;
use crate::history::fixture::TestRepo;

fn commits(repo: &Repo, range: &Range) -> Vec<Commit> {
    repo.log(range, &[])
        .expect("log")
        .collect::<Result<_, _>>()
        .expect("commits")
}

fn paths(changes: &[Change]) -> Vec<String> {
    let mut out: Vec<String> = changes
        .iter()
        .map(|c| match c {
            Change::Added(s) => format!("A {}", s.path),
            Change::Deleted(s) => format!("D {}", s.path),
            Change::Modified { new, .. } => format!("M {}", new.path),
            Change::Renamed { old, new, .. } => format!("R {} {}", old.path, new.path),
        })
        .collect();
    out.sort();
    out
}

#[test]
fn log_reads_changes_renames_and_merges_oldest_first() {
    let mut t = TestRepo::new();
    t.write("a.txt", "one\n");
    t.write(
        "dir/b.txt",
        "a line long enough to be recognised when it moves\n",
    );
    let c1 = t.commit("first");
    t.write("a.txt", "two\n");
    let c2 = t.commit("second");
    t.git(&["mv", "dir/b.txt", "dir/c.txt"]);
    let c3 = t.commit("move");
    t.git(&["checkout", "-q", "-b", "side"]);
    t.write("d.txt", "side\n");
    let s1 = t.commit("on the side");
    t.git(&["checkout", "-q", "main"]);
    t.remove("a.txt");
    let c4 = t.commit("drop a");
    let m = t.merge("side");

    let repo = Repo::open(t.path()).expect("open");
    assert!(!repo.bare);
    assert!(repo.shallow.is_empty());
    let log = commits(&repo, &Range::default());
    let ids: Vec<Oid> = log.iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), 6);
    assert_eq!(ids[..3], [c1, c2, c3]);
    assert_eq!(ids[5], m, "parents come before children");
    assert!(ids.contains(&s1) && ids.contains(&c4));
    assert!(log[0].parents.is_empty());
    assert_eq!(paths(&log[0].changes), ["A a.txt", "A dir/b.txt"]);
    assert_eq!(paths(&log[1].changes), ["M a.txt"]);
    assert_eq!(paths(&log[2].changes), ["R dir/b.txt dir/c.txt"]);
    let Change::Renamed { similarity, .. } = &log[2].changes[0] else {
        panic!("a rename");
    };
    assert_eq!(*similarity, 100);
    // The merge against its first parent: what the side branch brought.
    assert_eq!(log[5].parents, [c4, s1]);
    assert_eq!(paths(&log[5].changes), ["A d.txt"]);
    assert_eq!(log[0].author, "Ada Lovelace");
    assert_eq!(log[0].email, "ada@lab.example");
    assert_eq!(log[0].date, "2024-01-02T00:00:00Z");
    assert_eq!(log[0].time, 1_704_153_600);
}

#[test]
fn a_range_limits_the_commits_and_names_its_tips() {
    let mut t = TestRepo::new();
    t.write("a.txt", "1\n");
    let c1 = t.commit("1");
    t.write("a.txt", "2\n");
    let c2 = t.commit("2");
    t.write("b.txt", "3\n");
    let c3 = t.commit("3");
    let repo = Repo::open(t.path()).expect("open");
    let range = Range {
        revs: vec![format!("{c1}..HEAD")],
        all: false,
    };
    let ids: Vec<Oid> = commits(&repo, &range).iter().map(|c| c.id).collect();
    assert_eq!(ids, [c2, c3]);
    assert_eq!(repo.tips(&range).expect("tips"), [c3]);
    assert_eq!(repo.resolve("HEAD~1").expect("resolve"), c2);
    assert!(repo.resolve("no-such-branch").is_err());
    // Limited to paths: only the commits and changes that touch them.
    let only_b: Vec<Commit> = repo
        .log(&Range::default(), &["b.txt".to_string()])
        .expect("log")
        .collect::<Result<_, _>>()
        .expect("commits");
    assert_eq!(only_b.len(), 1);
    assert_eq!(paths(&only_b[0].changes), ["A b.txt"]);
}

#[test]
fn a_revision_that_looks_like_an_option_is_not_one() {
    let mut t = TestRepo::new();
    t.write("a.txt", "1\n");
    t.commit("1");
    let repo = Repo::open(t.path()).expect("open");
    let out = t.path().join("written");
    let range = Range {
        revs: vec![format!("--output={}", out.display())],
        all: false,
    };
    let log: Result<Vec<Commit>, GitError> = repo.log(&range, &[]).expect("spawn").collect();
    assert!(log.is_err(), "an unknown revision is an error");
    assert!(repo.tips(&range).is_err());
    assert!(!out.exists(), "no option was taken from a revision");
}

#[test]
fn objects_are_read_by_id_and_by_path_and_kept_to_a_limit() {
    let mut t = TestRepo::new();
    t.write("a.txt", "hello\n");
    t.write("big.txt", &"x".repeat(100_000));
    let c1 = t.commit("1");
    let repo = Repo::open(t.path()).expect("open");
    let mut objects = repo.objects().expect("cat-file");
    let mut buf = Vec::new();
    let object = objects.read(&format!("{c1}:a.txt"), 1 << 20, &mut buf);
    assert_eq!(
        object.expect("read"),
        Some(Object {
            kind: Kind::Blob,
            size: 6
        })
    );
    assert_eq!(buf, b"hello\n");
    // Over the limit: the size is whole, the bytes are cut, and the next answer is in step.
    let big = objects.read("HEAD:big.txt", 10, &mut buf).expect("read");
    assert_eq!(big.map(|o| o.size), Some(100_000));
    assert_eq!(buf, b"xxxxxxxxxx");
    assert_eq!(
        objects.read("HEAD:missing", 10, &mut buf).expect("read"),
        None
    );
    assert_eq!(objects.read("bad\nname", 10, &mut buf).expect("read"), None);
    let tree = objects
        .read("HEAD^{tree}", 1 << 20, &mut buf)
        .expect("read");
    assert_eq!(tree.map(|o| o.kind), Some(Kind::Tree));
    let names: Vec<Vec<u8>> = objects
        .tree_entries(&buf)
        .map(|(_, name, _)| name.to_vec())
        .collect();
    assert_eq!(names, [b"a.txt".to_vec(), b"big.txt".to_vec()]);
    // Many at once, in order, a missing one among them.
    let a = Oid::from_hex(t.git(&["rev-parse", "HEAD:a.txt"]).trim().as_bytes()).expect("id");
    let missing = Oid::from_hex(&[b'0'; 40]).expect("id");
    let mut seen = Vec::new();
    objects
        .read_each(&[a, missing, a], 3, &mut |i, object, bytes| {
            seen.push((i, object.map(|o| o.size), bytes.to_vec()));
        })
        .expect("read_each");
    assert_eq!(
        seen,
        [
            (0, Some(6), b"hel".to_vec()),
            (1, None, Vec::new()),
            (2, Some(6), b"hel".to_vec())
        ]
    );
}

#[test]
fn files_lists_a_tree_with_links_and_submodules() {
    let mut t = TestRepo::new();
    t.write("specs/a.jobspec.json", "{}\n");
    let c1 = t.commit("1");
    t.stage_submodule("vendor/lib", c1);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("specs/a.jobspec.json", t.path().join("link.json")).expect("ln");
        t.git(&["add", "link.json"]);
    }
    // Not `commit`, whose `add -A` would drop the gitlink that has no folder.
    t.git(&["commit", "-q", "-m", "2"]);
    let c2 = t.head();
    let repo = Repo::open(t.path()).expect("open");
    let files: Vec<Side> = repo
        .files(&c2)
        .expect("ls-tree")
        .collect::<Result<_, _>>()
        .expect("files");
    let modes: Vec<(String, Mode)> = files.into_iter().map(|s| (s.path, s.mode)).collect();
    assert!(modes.contains(&("specs/a.jobspec.json".into(), Mode::File)));
    assert!(modes.contains(&("vendor/lib".into(), Mode::Submodule)));
    #[cfg(unix)]
    assert!(modes.contains(&("link.json".into(), Mode::Link)));
    let log = commits(&repo, &Range::default());
    let submodule = log[1]
        .changes
        .iter()
        .find_map(|c| c.after().filter(|s| s.path == "vendor/lib"));
    assert_eq!(submodule.map(|s| s.mode), Some(Mode::Submodule));
}

#[cfg(unix)]
#[test]
fn paths_with_spaces_newlines_and_quotes_are_read_whole() {
    let mut t = TestRepo::new();
    let name = "odd dir/a \"b\"\nc:\u{e9}.jobspec.json";
    t.write(name, "{}\n");
    t.commit("1");
    let repo = Repo::open(t.path()).expect("open");
    let log = commits(&repo, &Range::default());
    assert_eq!(paths(&log[0].changes), [format!("A {name}")]);
}

#[test]
fn a_bare_repository_reads_like_a_work_tree() {
    let mut t = TestRepo::new();
    t.write("a.txt", "1\n");
    let c1 = t.commit("1");
    let (_bare, target) = t.clone_with(&["--bare"]);
    let repo = Repo::open(&target).expect("open");
    assert!(repo.bare);
    let ids: Vec<Oid> = commits(&repo, &Range::default())
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, [c1]);
}

#[test]
fn a_shallow_clone_says_where_history_stops() {
    let mut t = TestRepo::new();
    for i in 0..4 {
        t.write("a.txt", &format!("{i}\n"));
        t.commit(&format!("{i}"));
    }
    let (_clone, target) = t.clone_with(&["--depth", "2"]);
    let repo = Repo::open(&target).expect("open");
    assert_eq!(repo.shallow.len(), 1);
    let log = commits(&repo, &Range::default());
    assert_eq!(log.len(), 2);
    assert!(log[0].parents.is_empty(), "the boundary shows no parent");
    assert!(repo.is_boundary(&log[0].id));
    assert!(!repo.is_boundary(&log[1].id));
    assert_eq!(paths(&log[0].changes), ["A a.txt"], "its tree, as if added");
}

#[test]
fn a_folder_that_is_no_repository_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    // A `.git` file pointing nowhere: git stops here, whatever folders are above.
    std::fs::write(dir.path().join(".git"), "gitdir: nowhere\n").expect("write");
    match Repo::open(dir.path()) {
        Err(GitError::NotARepository { message, .. }) => assert!(!message.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ids_and_versions_parse() {
    let hex = b"0123456789abcdef0123456789abcdef01234567";
    let id = Oid::from_hex(hex).expect("id");
    assert_eq!(id.to_string().as_bytes(), hex);
    assert_eq!(id.short(7), "0123456");
    assert!(Oid::from_hex(b"0123").is_none());
    assert!(Oid::from_hex(&[b'g'; 40]).is_none());
    assert!(Oid::from_hex(&[b'0'; 64]).is_some_and(|o| o.is_null()));
    assert_eq!(parse_version("git version 2.47.3\n"), Some((2, 47)));
    assert_eq!(parse_version("git version 2.39.2.windows.1"), Some((2, 39)));
    assert_eq!(parse_version("hello"), None);
    assert!(is_lfs_pointer(
        b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n"
    ));
    assert!(!is_lfs_pointer(b"{\"apiVersion\": \"forge/v2\"}"));
}
