//! The documents the editor has open: their text as the editor holds it (newer than the
//! disk while unsaved), kept up to date by full or incremental changes, and what their last
//! lint found, for code actions and hover.

use std::collections::HashMap;
use std::path::PathBuf;

use lsp_types::{TextDocumentContentChangeEvent, Uri};

use super::convert;
use crate::diagnostic::Finding;

pub struct OpenDocument {
    pub uri: Uri,
    /// The local file it stands for; `None` for an unsaved buffer (not linted).
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: String,
    /// The findings of the last lint of `text`: their spans and fixes are into it.
    pub findings: Vec<Finding>,
}

#[derive(Default)]
pub struct Documents {
    open: HashMap<Uri, OpenDocument>,
}

impl Documents {
    pub fn open(&mut self, uri: Uri, version: i32, text: String) {
        let path = convert::uri_to_path(uri.as_str());
        self.open.insert(
            uri.clone(),
            OpenDocument {
                uri,
                path,
                version,
                text,
                findings: Vec::new(),
            },
        );
    }

    /// Applies the editor's changes in order; `false` when the document is not open.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let Some(doc) = self.open.get_mut(uri) else {
            return false;
        };
        for change in changes {
            match change.range {
                // A range whose ends are out of order is taken as the span between them.
                Some(range) => {
                    let a = convert::offset_of(&doc.text, range.start);
                    let b = convert::offset_of(&doc.text, range.end);
                    doc.text.replace_range(a.min(b)..a.max(b), &change.text);
                }
                None => doc.text = change.text,
            }
        }
        doc.version = version;
        true
    }

    pub fn close(&mut self, uri: &Uri) -> Option<OpenDocument> {
        self.open.remove(uri)
    }

    pub fn get(&self, uri: &Uri) -> Option<&OpenDocument> {
        self.open.get(uri)
    }

    pub fn get_mut(&mut self, uri: &Uri) -> Option<&mut OpenDocument> {
        self.open.get_mut(uri)
    }

    /// Every open document's URI, in a stable order.
    pub fn uris(&self) -> Vec<Uri> {
        let mut uris: Vec<Uri> = self.open.keys().cloned().collect();
        uris.sort();
        uris
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    #[test]
    fn incremental_changes_apply_in_utf16_positions() {
        let mut docs = Documents::default();
        let uri: Uri = "file:///w/a.jobspec.json".parse().unwrap();
        docs.open(uri.clone(), 1, "{\"a\": \"é😀\"}\n".into());
        let change = |range: Option<Range>, text: &str| TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.into(),
        };
        let replaced = Range::new(Position::new(0, 8), Position::new(0, 10));
        assert!(docs.change(&uri, 2, vec![change(Some(replaced), "x")]));
        assert_eq!(docs.get(&uri).unwrap().text, "{\"a\": \"éx\"}\n");
        let appended = Range::new(Position::new(1, 0), Position::new(1, 0));
        assert!(docs.change(&uri, 3, vec![change(Some(appended), "tail")]));
        assert_eq!(docs.get(&uri).unwrap().text, "{\"a\": \"éx\"}\ntail");
        assert!(docs.change(&uri, 4, vec![change(None, "{}")]));
        let doc = docs.get(&uri).unwrap();
        assert_eq!((doc.text.as_str(), doc.version), ("{}", 4));
        assert_eq!(doc.path, Some(PathBuf::from("/w/a.jobspec.json")));
    }
}
