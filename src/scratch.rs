//! What a worker keeps from one file to the next during a run: its buffers, and the answers to
//! the questions files ask again and again (which folder holds which config, which directory
//! exists, which key a misspelt one was meant to be). One [`Scratch`] per worker, made when
//! the run starts and passed down to each function that uses a part of it. It is dropped with
//! the run, so no answer outlives the files it describes: the language server makes one per
//! lint, and a folder replaced between two runs is looked at again.

use std::cell::RefCell;
use std::path::PathBuf;

use crate::discover::WalkMemo;
use crate::error::Suggestions;
use crate::json::Arena;
use crate::project::DirMemo;
use crate::read::Reader;
use crate::recent::Recent;
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
}

/// The config file of the experiment folders a worker looked at last, by folder.
pub type RecentConfigFiles = Recent<PathBuf, Option<PathBuf>, 16>;

/// What linting one document reuses from the last.
#[derive(Default)]
pub struct LintScratch {
    /// The parser's buffers.
    pub arena: Arena,
    /// The shared selectors resolved on the document.
    pub resolutions: Resolutions,
    /// Did-you-mean answers for unknown keys.
    pub suggestions: RefCell<Suggestions>,
    /// The config file of the experiments looked at last, by folder: many specs name the same
    /// experiment.
    pub config_files: RecentConfigFiles,
}
