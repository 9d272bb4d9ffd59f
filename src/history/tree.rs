//! A commit's tree read by path: what a file linted in history sees as its project (the config
//! files above it, the experiment folder a spec names, that folder's files), as of its commit.
//!
//! Paths are walked from the commit's root tree one folder at a time; trees are kept, parsed,
//! up to a budget of entries (most lookups of a history ask for the same few folders: the
//! root, `experiments/`, a spec's own folder), the oldest dropped first.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::git::{GitError, Kind, Mode, Objects, Oid};

/// Tree entries kept parsed, over all trees: about 100 bytes each.
const ENTRY_BUDGET: usize = 200_000;
/// Commits whose root tree is kept.
const COMMITS_KEPT: usize = 64;

/// One entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub name: Box<[u8]>,
    pub mode: Mode,
    pub id: Oid,
}

/// Reads trees and files of any commit, through its own `cat-file`.
pub struct Trees {
    objects: Objects,
    trees: HashMap<Oid, Arc<[Item]>>,
    /// Trees in the order they were read, for dropping the oldest.
    order: VecDeque<Oid>,
    entries: usize,
    roots: HashMap<Oid, Oid>,
    root_order: VecDeque<Oid>,
    /// The root trees of the commits being read, as the log gave them: no read for those.
    announced: HashMap<Oid, Oid>,
    buf: Vec<u8>,
}

impl Trees {
    pub fn new(objects: Objects) -> Trees {
        Trees {
            objects,
            trees: HashMap::new(),
            order: VecDeque::new(),
            entries: 0,
            roots: HashMap::new(),
            root_order: VecDeque::new(),
            announced: HashMap::new(),
            buf: Vec::new(),
        }
    }

    /// The root trees of the commits read next (`(commit, tree)`), known from the log: they
    /// replace those announced before.
    pub fn announce(&mut self, roots: impl IntoIterator<Item = (Oid, Oid)>) {
        self.announced.clear();
        self.announced.extend(roots);
    }

    /// The tree of `commit`, to read by path.
    pub fn at(&mut self, commit: Oid) -> Result<Snapshot<'_>, GitError> {
        let known = self
            .announced
            .get(&commit)
            .or_else(|| self.roots.get(&commit));
        let root = match known {
            Some(root) => *root,
            None => {
                let root = self.root_of(commit)?;
                if self.root_order.len() == COMMITS_KEPT {
                    if let Some(old) = self.root_order.pop_front() {
                        self.roots.remove(&old);
                    }
                }
                self.roots.insert(commit, root);
                self.root_order.push_back(commit);
                root
            }
        };
        Ok(Snapshot {
            trees: self,
            commit,
            root,
        })
    }

    /// The root tree a commit object names on its first line, `tree <id>`.
    fn root_of(&mut self, commit: Oid) -> Result<Oid, GitError> {
        let object = self
            .objects
            .read(&commit.to_string(), 4096, &mut self.buf)?;
        let tree = (object.map(|o| o.kind) == Some(Kind::Commit))
            .then(|| self.buf.strip_prefix(b"tree "))
            .flatten()
            .and_then(|rest| rest.split(|&b| b == b'\n').next())
            .and_then(Oid::from_hex);
        tree.ok_or_else(|| GitError::Parse {
            command: "cat-file".into(),
            what: format!("{commit} is not a commit"),
        })
    }

    /// The parsed entries of tree `id`, sorted by name.
    fn tree(&mut self, id: Oid) -> Result<Arc<[Item]>, GitError> {
        if let Some(tree) = self.trees.get(&id) {
            return Ok(tree.clone());
        }
        let object = self
            .objects
            .read(&id.to_string(), usize::MAX, &mut self.buf)?;
        if object.map(|o| o.kind) != Some(Kind::Tree) {
            return Err(GitError::Parse {
                command: "cat-file".into(),
                what: format!("{id} is not a tree"),
            });
        }
        let mut items: Vec<Item> = self
            .objects
            .tree_entries(&self.buf)
            .map(|(mode, name, id)| Item {
                name: name.into(),
                mode,
                id,
            })
            .collect();
        // Git's order puts `a/` after `a.b`; ours is plain byte order, for binary search.
        items.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let items: Arc<[Item]> = items.into();
        self.entries += items.len();
        while self.entries > ENTRY_BUDGET {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(dropped) = self.trees.remove(&old) {
                self.entries -= dropped.len();
            }
        }
        self.trees.insert(id, items.clone());
        self.order.push_back(id);
        Ok(items)
    }

    /// A blob's bytes by id (at most `limit` kept) and its full size; `None` if not a blob.
    pub fn blob(
        &mut self,
        id: Oid,
        limit: usize,
        into: &mut Vec<u8>,
    ) -> Result<Option<u64>, GitError> {
        let object = self.objects.read(&id.to_string(), limit, into)?;
        Ok(object.filter(|o| o.kind == Kind::Blob).map(|o| o.size))
    }
}

/// One commit's tree, read by `/`-separated paths from the repository's top.
pub struct Snapshot<'a> {
    trees: &'a mut Trees,
    pub commit: Oid,
    root: Oid,
}

impl Snapshot<'_> {
    /// The entry at `path` (`""` is the root tree itself); `None` if there is none.
    pub fn entry(&mut self, path: &str) -> Result<Option<(Mode, Oid)>, GitError> {
        let mut current = (Mode::Tree, self.root);
        for part in path.split('/').filter(|p| !p.is_empty() && *p != ".") {
            if current.0 != Mode::Tree || part == ".." {
                return Ok(None);
            }
            let tree = self.trees.tree(current.1)?;
            match tree.binary_search_by(|item| (*item.name).cmp(part.as_bytes())) {
                Ok(i) => current = (tree[i].mode, tree[i].id),
                Err(_) => return Ok(None),
            }
        }
        Ok(Some(current))
    }

    /// A blob's bytes by id (at most `limit` kept) and its full size; `None` if not a blob.
    pub fn blob(
        &mut self,
        id: Oid,
        limit: usize,
        into: &mut Vec<u8>,
    ) -> Result<Option<u64>, GitError> {
        self.trees.blob(id, limit, into)
    }

    /// Whether `path` is a folder in this tree.
    pub fn is_dir(&mut self, path: &str) -> Result<bool, GitError> {
        Ok(matches!(self.entry(path)?, Some((Mode::Tree, _))))
    }

    /// The entries of the folder `path`, by name; empty when it is not a folder.
    pub fn list(&mut self, path: &str) -> Result<Arc<[Item]>, GitError> {
        match self.entry(path)? {
            Some((Mode::Tree, id)) => self.trees.tree(id),
            _ => Ok(Arc::from(Vec::new())),
        }
    }

    /// The file at `path` into `into` (at most `limit` bytes kept) and its full size; `None`
    /// when there is no regular file there (a folder, a link, a submodule, nothing).
    pub fn read(
        &mut self,
        path: &str,
        limit: usize,
        into: &mut Vec<u8>,
    ) -> Result<Option<u64>, GitError> {
        into.clear();
        match self.entry(path)? {
            Some((Mode::File, id)) => self.trees.blob(id, limit, into),
            _ => Ok(None),
        }
    }
}
