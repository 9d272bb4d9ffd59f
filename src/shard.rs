//! `--shard K/N`: the K-th of N disjoint parts of a run, for splitting an archive across the
//! jobs of a CI matrix or a batch array. A file belongs to one part by a stable hash of its
//! path as the run names it (`./` and `\` aside): every machine and every version splits alike,
//! so the union of the N parts' findings is one whole run's.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::diagnostic::Fnv;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 0-based: `--shard 1/4` is part 0.
    index: u64,
    count: u64,
}

impl Shard {
    /// Whether the file (or experiment folder) at `path` is this part's.
    pub fn owns(&self, path: &Path) -> bool {
        self.count <= 1 || part_of(&path.to_string_lossy(), self.count) == self.index
    }
}

/// The part of `count` that `path` falls in.
fn part_of(path: &str, count: u64) -> u64 {
    let mut hash = Fnv::default();
    let mut rest = path;
    while let Some(tail) = rest.strip_prefix("./").or_else(|| rest.strip_prefix(".\\")) {
        rest = tail.trim_start_matches(['/', '\\']);
    }
    for b in rest.bytes() {
        hash.byte(if b == b'\\' { b'/' } else { b });
    }
    std::hash::Hasher::finish(&hash) % count
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let usage = || format!("`{s}` is not a shard: expected K/N with 1 <= K <= N, e.g. 2/8");
        let (k, n) = s.split_once('/').ok_or_else(usage)?;
        let k: u64 = k.trim().parse().map_err(|_| usage())?;
        let n: u64 = n.trim().parse().map_err(|_| usage())?;
        if k == 0 || n == 0 || k > n {
            return Err(usage());
        }
        Ok(Shard {
            index: k - 1,
            count: n,
        })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_disjoint_cover_everything_and_ignore_dot_slash() {
        let shards: Vec<Shard> = (1..=4).map(|k| format!("{k}/4").parse().unwrap()).collect();
        let mut sizes = [0usize; 4];
        for i in 0..4000 {
            let path = format!("lab/2024-{:02}/run-{i}.jobspec.json", i % 12);
            let owners: Vec<usize> = (0..4)
                .filter(|&s| shards[s].owns(Path::new(&path)))
                .collect();
            assert_eq!(owners.len(), 1, "{path}");
            sizes[owners[0]] += 1;
            let dotted = format!("./{path}");
            assert!(shards[owners[0]].owns(Path::new(&dotted)));
            assert!(shards[owners[0]].owns(Path::new(&path.replace('/', "\\"))));
        }
        // A fair split: each part within 10% of a quarter.
        assert!(
            sizes.iter().all(|&n| (900..=1100).contains(&n)),
            "{sizes:?}"
        );
    }

    #[test]
    fn only_k_of_n_with_k_in_range_parses() {
        assert_eq!(
            "2/8".parse::<Shard>().map(|s| s.to_string()),
            Ok("2/8".into())
        );
        assert!("1/1".parse::<Shard>().unwrap().owns(Path::new("x")));
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "1/4/2", "-1/4", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    /// The split must never change: shard reports made by two versions are merged.
    #[test]
    fn the_split_is_stable() {
        let parts: Vec<u64> = ["a.jobspec.json", "lab/x/jobspec.json", "z"]
            .iter()
            .map(|p| part_of(p, 7))
            .collect();
        assert_eq!(
            parts,
            vec![
                part_of("./a.jobspec.json", 7),
                part_of("lab\\x\\jobspec.json", 7),
                part_of("z", 7)
            ]
        );
        assert_eq!(parts, FIXED_PARTS.to_vec());
    }

    const FIXED_PARTS: [u64; 3] = [6, 3, 2];
}
