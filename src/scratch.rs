//! What a worker keeps from one file to the next during a run: its buffers, and the answers to
//! the questions files ask again and again (which folder holds which config, which directory
//! exists, which key a misspelt one was meant to be). One [`Scratch`] per worker, made when
//! the run starts and passed down to each function that uses a part of it. It is dropped with
//! the run, so no answer outlives the files it describes: the language server makes one per
//! lint, and a folder replaced between two runs is looked at again.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::discover::WalkMemo;
use crate::error::Suggestions;
use crate::json::Arena;
use crate::project::DirMemo;
use crate::read::{Folders, Reader};
use crate::recent::Recent;
use crate::rules::eval::Hits;
use crate::select::Resolutions;

/// One worker's buffers and memos for one run.
#[derive(Default)]
pub struct Scratch {
    /// What linting a document reuses.
    pub lint: LintScratch,
    /// The read buffer and the folder the worker reads from.
    pub reader: Reader,
    /// The directories of projects the worker asked about.
    pub dirs: RefCell<DirMemo>,
    /// The configs and experiments of the folders the worker asked about.
    pub walk: WalkMemo,
    /// The spec that names the experiment the worker's files were last in (an experiment's
    /// files come one after another).
    pub naming_spec: Recent<PathBuf, Option<String>, 1>,
    /// Whether the walk lints an experiment directory itself, by the directory and the
    /// project root of the spec that names it: specs name the same few experiments.
    pub walk_lints: Recent<(PathBuf, Option<PathBuf>), bool, 8>,
    /// Messages and help found free of secrets in the worker's earlier files.
    pub clean: crate::secrets::CleanTexts,
}

/// The config files of the experiment folders a worker looked at last.
#[derive(Default)]
pub struct RecentConfigFiles {
    /// Which file is a folder's config, by folder. Keys here and in `texts` are compared as
    /// bytes (`Path`'s `==` parses both into components, a tenth of the config's lookup): the
    /// paths come from one code path, and a miss only reads the file again.
    pub paths: Recent<PathBuf, Option<PathBuf>, 16>,
    /// Config texts read for a spec (the config and the bases beside it), by path: in a walk a
    /// worker lints a spec and then the files of its experiment, so the experiment's own lint
    /// takes each text from here instead of reading the file a second time.
    pub texts: Recent<PathBuf, Arc<str>, 4>,
    /// The folder these files were last read from, which the worker's [`Reader`] takes over
    /// for the experiment's own files (see [`Reader::adopt_folder`]).
    pub folders: Folders,
}

impl RecentConfigFiles {
    /// Texts longer than this are not kept for the experiment's lint.
    const HANDED_ON: usize = 1 << 20;

    /// Keeps `text`, read from the file at `path`, for the lint of that file, which asks by
    /// absolute path (a relative one would never be asked for).
    pub fn hand_on(&mut self, path: &Path, text: &Arc<str>) {
        if text.len() <= Self::HANDED_ON && path.is_absolute() {
            self.take_text(path);
            self.texts.put(path.to_path_buf(), text.clone());
        }
    }

    /// The text read for a spec from the file at `path` (absolute), if kept: taken once.
    pub fn take_text(&mut self, path: &Path) -> Option<Arc<str>> {
        self.texts.take(|kept| kept.as_os_str() == path.as_os_str())
    }
}

/// What linting one document reuses from the last.
#[derive(Default)]
pub struct LintScratch {
    /// The parser's buffers.
    pub arena: Arena,
    /// The shared selectors resolved on the document.
    pub resolutions: Resolutions,
    /// Did-you-mean answers for unknown keys.
    pub suggestions: RefCell<Suggestions>,
    /// The hits of the rule being run.
    pub hits: Hits,
    /// The config file of the experiments looked at last, by folder: many specs name the same
    /// experiment.
    pub config_files: RecentConfigFiles,
    /// Findings are made without their value hash: set by a run that neither fixes nor
    /// compares its findings with another run's (see `Finding::value_hash`).
    pub skip_value_hashes: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An absolute path on any system.
    fn absolute(rel: &str) -> PathBuf {
        std::env::temp_dir().join(rel)
    }

    /// A text read for a spec is taken once, by its exact path; a later read of it is kept
    /// in its place, and a text too long to keep is not.
    #[test]
    fn config_texts_are_handed_on_once() {
        let mut recent = RecentConfigFiles::default();
        let config = &absolute("p/experiments/a/config.yaml");
        let base = &absolute("p/experiments/a/base.yaml");
        recent.hand_on(config, &Arc::from("old: 1\n"));
        recent.hand_on(config, &Arc::from("lr: 1\n"));
        recent.hand_on(base, &Arc::from("policy: {}\n"));
        assert!(recent
            .take_text(&absolute("p/experiments/b/config.yaml"))
            .is_none());
        assert_eq!(recent.take_text(config).as_deref(), Some("lr: 1\n"));
        assert!(recent.take_text(config).is_none(), "taken once");
        assert_eq!(recent.take_text(base).as_deref(), Some("policy: {}\n"));
        assert!(recent.texts.is_empty());
        let long: Arc<str> = Arc::from("x".repeat(RecentConfigFiles::HANDED_ON + 1));
        recent.hand_on(config, &long);
        assert!(recent.take_text(config).is_none(), "too long to keep");
        recent.hand_on(Path::new("experiments/a/config.yaml"), &Arc::from("a: 1\n"));
        assert!(
            recent.texts.is_empty(),
            "a relative path is never asked for"
        );
    }

    /// At most four texts are kept, the latest.
    #[test]
    fn config_texts_kept_are_few() {
        let mut recent = RecentConfigFiles::default();
        let paths: Vec<PathBuf> = (0..6).map(|i| absolute(&format!("p/{i}.yaml"))).collect();
        for path in &paths {
            recent.hand_on(path, &Arc::from("a: 1\n"));
        }
        assert!(recent.take_text(&paths[0]).is_none());
        assert!(recent.take_text(&paths[1]).is_none());
        assert!(paths[2..].iter().all(|p| recent.take_text(p).is_some()));
    }
}
