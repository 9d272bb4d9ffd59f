//! The text of a history's findings for code frames: each finding's version read from git by
//! its object id, and every secret in that version masked, whatever rules ran (a version may
//! hold a secret whose finding is reported with another version, or not selected at all).

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use crate::config::Settings;
use crate::diagnostic::{Finding, Span};
use crate::engine::Active;
use crate::history::git::{Kind, Objects};
use crate::read::MAX_FILE_SIZE;
use crate::report::Sources;
use crate::rules::eval::Others;

pub struct VersionSources<'s> {
    objects: RefCell<Objects>,
    /// The rules whose findings are masked (`exp-secret`), run on each version shown.
    masking: Vec<Active<'s>>,
    settings: &'s Settings,
    /// The version shown last: its text (none when it cannot be shown) and its secrets.
    last: RefCell<Option<Shown>>,
}

struct Shown {
    version: Arc<str>,
    text: Option<Arc<str>>,
    secrets: Vec<Span>,
}

impl<'s> VersionSources<'s> {
    pub fn new(objects: Objects, settings: &'s Settings) -> VersionSources<'s> {
        let masking = settings
            .rules
            .rules
            .iter()
            .filter(|r| r.mask)
            .map(|rule| Active {
                rule,
                severity: rule.severity,
            })
            .collect();
        VersionSources {
            objects: RefCell::new(objects),
            masking,
            settings,
            last: RefCell::new(None),
        }
    }

    /// Runs `f` on the version `finding` is in, read (and its secrets found) once for the
    /// findings of that version that come one after another.
    fn with_shown<R>(&self, finding: &Finding, f: impl FnOnce(&Shown) -> R) -> Option<R> {
        let version = &finding.history.as_ref()?.version;
        let mut last = self.last.borrow_mut();
        if last.as_ref().is_none_or(|s| s.version != *version) {
            *last = Some(self.read(version, &finding.path));
        }
        last.as_ref().map(f)
    }

    fn read(&self, version: &Arc<str>, path: &str) -> Shown {
        let mut bytes = Vec::new();
        let read = self
            .objects
            .borrow_mut()
            .read(version, MAX_FILE_SIZE as usize + 1, &mut bytes);
        let text = match read {
            Ok(Some(o)) if o.kind == Kind::Blob && o.size <= MAX_FILE_SIZE => {
                String::from_utf8(bytes).ok().map(Arc::<str>::from)
            }
            _ => None,
        };
        let secrets = text.as_deref().map_or_else(Vec::new, |text| {
            crate::experiment::lint_in_memory(
                Path::new(path),
                text,
                &self.masking,
                &self.settings.platform,
                &Others::NONE,
            )
            .into_iter()
            .filter(|f| f.secret)
            .map(|f| f.span)
            .collect()
        });
        Shown {
            version: version.clone(),
            text,
            secrets,
        }
    }
}

impl Sources for VersionSources<'_> {
    fn text(&self, finding: &Finding) -> Option<Arc<str>> {
        self.with_shown(finding, |s| s.text.clone()).flatten()
    }

    fn secrets(&self, finding: &Finding) -> Vec<Span> {
        self.with_shown(finding, |s| s.secrets.clone())
            .unwrap_or_default()
    }
}
