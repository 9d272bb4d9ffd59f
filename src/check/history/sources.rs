//! The text of a history's findings for code frames: each finding's version read from git by
//! its object id, and every secret in that version masked, whatever rules ran (a version may
//! hold a secret whose finding is reported with another version, or not selected at all).

use std::cell::RefCell;
use std::sync::Arc;

use crate::diagnostic::Finding;
use crate::history::git::{Kind, Objects};
use crate::read::MAX_FILE_SIZE;
use crate::report::{Source, Sources};
use crate::secrets::Detector;

pub struct VersionSources {
    objects: RefCell<Objects>,
    /// The secret detector of the run's rules (those with `mask = true`), run on each version
    /// shown.
    detector: Detector,
}

impl VersionSources {
    pub fn new(objects: Objects, detector: Detector) -> VersionSources {
        VersionSources {
            objects: RefCell::new(objects),
            detector,
        }
    }

    /// The text of the version `finding` is in; `None` when it is not a blob git can give or
    /// not text.
    fn read(&self, finding: &Finding) -> Option<Arc<str>> {
        let version = &finding.history.as_ref()?.version;
        let mut bytes = Vec::new();
        let read = self
            .objects
            .borrow_mut()
            .read(version, MAX_FILE_SIZE as usize + 1, &mut bytes);
        match read {
            Ok(Some(o)) if o.kind == Kind::Blob && o.size <= MAX_FILE_SIZE => {
                String::from_utf8(bytes).ok().map(Arc::<str>::from)
            }
            _ => None,
        }
    }
}

impl Sources for VersionSources {
    /// Called once for the findings of a version that come one after another (the human and
    /// HTML formats group them), so each version is read and searched once.
    fn source(&self, finding: &Finding) -> Option<Source> {
        let text = self.read(finding)?;
        Some(Source::new(text, &self.detector))
    }
}
