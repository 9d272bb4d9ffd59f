//! Errors that stop the run (exit 2): bad flags, config, catalog or rule files. Each points at
//! the offending file's own line and column when there is one.

use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};

use crate::secrets::Detector;

/// A problem in one of forgelint's own input files (config, catalog, rule file).
#[derive(Debug, Clone)]
pub struct FileError {
    pub source: NamedSource<Arc<str>>,
    /// Byte range in `source`; `None` for a problem with the file as a whole.
    pub span: Option<std::ops::Range<usize>>,
    pub message: String,
    pub label: Option<String>,
    pub help: Option<String>,
}

impl FileError {
    pub fn new(
        name: &str,
        text: &Arc<str>,
        span: Option<std::ops::Range<usize>>,
        message: impl Into<String>,
    ) -> FileError {
        // A span must lie inside the text and on char boundaries for miette to render it.
        let span = span.map(|r| clamp_span(text, r));
        FileError {
            source: NamedSource::new(name, framed_text(text)),
            span,
            message: message.into(),
            label: None,
            help: None,
        }
    }

    /// This error with every secret `detector` finds masked where the error shows its file:
    /// in the frame's text (in place, so the span still points where it did), and in the
    /// message, label and help, which can quote the file (a parser's message does). Done
    /// wherever an error is shown ([`Error::masked`]).
    pub fn masked(mut self, detector: &Detector) -> FileError {
        let secrets = detector.find(self.source.inner());
        if !secrets.is_empty() {
            let masked = Arc::from(secrets.masked_in_place(self.source.inner()));
            let name = self.source.name().to_string();
            self.source = NamedSource::new(name, masked);
        }
        mask_in(&mut self.message, detector);
        if let Some(label) = &mut self.label {
            mask_in(label, detector);
        }
        if let Some(help) = &mut self.help {
            mask_in(help, detector);
        }
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> FileError {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> FileError {
        self.label = Some(label.into());
        self
    }

    /// This error without anything of its file's text, for a file outside the project: no code
    /// frame, and not the message either (a parser's message can quote a key or a value); the
    /// path and the problem's line and column only. `what` names the file's role ("catalog").
    pub fn without_text(self, what: &str, root: &std::path::Path) -> FileError {
        let name = self.source.name().to_string();
        // The path comes from the config: nothing in it may reach the terminal raw.
        let shown = crate::escape::visible(&name);
        let place = match &self.span {
            Some(span) => {
                let (line, column) = line_column(self.source.inner(), span.start);
                format!("{shown}:{line}:{column}")
            }
            None => shown.to_string(),
        };
        FileError {
            source: NamedSource::new(&name, Arc::from("")),
            span: None,
            message: format!("{what} {place}: not a valid {what}"),
            label: None,
            help: Some(format!(
                "the file is outside the project ({}), so neither its text nor the parser's message is shown",
                crate::escape::visible(&root.display().to_string())
            )),
        }
    }

    /// Builds an error from a `toml` parse or deserialize error, adding a did-you-mean for
    /// unknown keys.
    pub fn from_toml(name: &str, text: &Arc<str>, err: &toml::de::Error) -> FileError {
        let mut message = err.message().trim().to_string();
        let help = did_you_mean_for_unknown_field(&message);
        // With a suggestion, the full list of expected keys is noise.
        if help
            .as_deref()
            .is_some_and(|h| h.starts_with("did you mean"))
        {
            if let Some(cut) = message.find(", expected") {
                message.truncate(cut);
            }
        }
        let mut out = FileError::new(name, text, err.span(), message);
        out.help = help;
        out
    }
}

/// `text` with its secrets masked, in place.
fn mask_in(text: &mut String, detector: &Detector) {
    if let std::borrow::Cow::Owned(masked) = detector.mask(text) {
        *text = masked;
    }
}

/// `text` for a code frame: every character that must not reach a terminal raw (an escape, a
/// bidi control) replaced by a visible one of the same UTF-8 length, so spans into the text
/// stay where they were. Line breaks and tabs are kept. (Its secrets are masked, in place too,
/// where the error is shown: [`FileError::masked`].)
fn framed_text(text: &Arc<str>) -> Arc<str> {
    let raw = |at: usize, c: char| {
        crate::escape::is_dangerous(c)
            && !matches!(c, '\n' | '\t')
            && !(c == '\r' && text[at + 1..].starts_with('\n'))
    };
    if !text.char_indices().any(|(at, c)| raw(at, c)) {
        return text.clone();
    }
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        match c.len_utf8() {
            _ if !raw(at, c) => out.push(c),
            2 => out.push('\u{bf}'),
            3 => out.push('\u{fffd}'),
            n => out.extend(std::iter::repeat_n('?', n)),
        }
    }
    out.into()
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

fn clamp_span(text: &str, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let mut start = r.start.min(text.len());
    let mut end = r.end.clamp(start, text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// serde's message for an unknown field is "unknown field `x`, expected one of `a`, `b`" (or
/// "expected `a` or `b`"): suggest the closest expected name.
fn did_you_mean_for_unknown_field(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (unknown, expected) = rest.split_once('`')?;
    let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    match suggest(unknown, candidates.iter().copied()) {
        Some(best) => Some(format!("did you mean `{best}`?")),
        None if !candidates.is_empty() => Some(format!(
            "expected one of: {}",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => None,
    }
}

/// The closest candidate to `word`, if any is close enough to be a likely typo.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| {
            let score = strsim::jaro_winkler(&lower, &c.to_lowercase());
            (score, c)
        })
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Recent answers of [`suggestions`], by the word and a hash of the candidates' text (not
/// their address, which a later list may reuse). A worker keeps its own for a run
/// (its scratch).
#[derive(Default)]
pub struct Suggestions {
    /// By the hashes of the candidates and of the word; the word itself tells a collision.
    answers: std::collections::HashMap<
        (u64, u64),
        KeptAnswer,
        std::hash::BuildHasherDefault<crate::diagnostic::Fnv>,
    >,
}

/// A kept answer: the word, then the best candidate and the only close one (their indices).
type KeptAnswer = (Box<str>, Option<usize>, Option<usize>);

/// Answers kept before [`Suggestions`] starts over.
const KEPT_SUGGESTIONS: usize = 4096;

/// The hash of `candidates`' text that [`suggestions_among`] keeps answers by: one per list,
/// for a caller that asks of several words among the same candidates.
pub fn candidates_hash(candidates: &[String]) -> u64 {
    let mut hash = crate::diagnostic::Fnv::default();
    for c in candidates {
        std::hash::Hasher::write(&mut hash, c.as_bytes());
        hash.byte(0);
    }
    std::hash::Hasher::finish(&hash)
}

/// [`suggest`] of `word` among `candidates` (whose [`candidates_hash`] is `list`), and the
/// one close candidate if exactly one is, at once, from one scoring of each candidate. An
/// audit meets the same unknown keys in spec after spec, and scoring a key against every
/// allowed one costs more than the rest of its finding: recent answers are kept in `kept`.
pub fn suggestions_among<'a>(
    word: &str,
    candidates: &'a [String],
    list: u64,
    kept: &mut Suggestions,
) -> (Option<&'a str>, Option<&'a str>) {
    let key = (list, crate::diagnostic::fnv1a(&[word]));
    let pick = |i: Option<usize>| i.and_then(|i| candidates.get(i)).map(String::as_str);
    if let Some((kept_word, best, only)) = kept.answers.get(&key) {
        if **kept_word == *word {
            return (pick(*best), pick(*only));
        }
    }
    let lower = word.to_lowercase();
    let close: Vec<(f64, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (strsim::jaro_winkler(&lower, &c.to_lowercase()), i))
        .filter(|(score, _)| *score >= 0.8)
        .collect();
    let best = close
        .iter()
        .copied()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, i)| i);
    let only = (close.len() == 1).then(|| close[0].1);
    if kept.answers.len() >= KEPT_SUGGESTIONS {
        kept.answers.clear();
    }
    kept.answers.insert(key, (word.into(), best, only));
    (pick(best), pick(only))
}

// The message, help and label can quote the file (a key, a value) and name paths from it:
// they are made visible where they are shown.
impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::escape::visible(&self.message))
    }
}

impl std::error::Error for FileError {}

impl Diagnostic for FileError {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(crate::escape::visible(h)) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.span.as_ref().map(|_| &self.source as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        let label = self.label.as_deref().unwrap_or("here");
        let label = LabeledSpan::new_primary_with_span(
            Some(crate::escape::visible(label).into_owned()),
            span,
        );
        Some(Box::new(std::iter::once(label)))
    }
}

/// Everything that makes forgelint exit with status 2.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    #[error(transparent)]
    #[diagnostic(transparent)]
    File(#[from] Box<FileError>),
    #[error("{message}")]
    Usage {
        message: String,
        #[help]
        help: Option<String>,
    },
    // The cause is the error's source, which the report prints below the message: naming it
    // in the message too printed it twice. The path may come from a hostile config or file
    // name, so it is shown escaped.
    #[error("cannot write {}", crate::escape::visible(.path))]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {}", crate::escape::visible(.path))]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Git could not be read (no git, not a repository, a revision it does not know); git's
    /// own words may quote names from the repository, so the message is shown escaped.
    #[error("{}", crate::escape::visible(.message))]
    Git {
        message: String,
        #[help]
        help: Option<String>,
    },
}

impl From<FileError> for Error {
    fn from(e: FileError) -> Error {
        Error::File(Box::new(e))
    }
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage {
            message: message.into(),
            help: None,
        }
    }

    /// This error with the secrets `detector` finds masked in what it quotes of a file (see
    /// [`FileError::masked`]): wherever an error leaves forgelint (the command's error, a
    /// language server diagnostic, a failed rule case), it goes through here.
    pub fn masked(self, detector: &Detector) -> Error {
        match self {
            Error::File(e) => Error::File(Box::new(e.masked(detector))),
            Error::Usage { mut message, help } => {
                mask_in(&mut message, detector);
                let help = help.map(|mut h| {
                    mask_in(&mut h, detector);
                    h
                });
                Error::Usage { message, help }
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one candidate close to `word` (as [`suggest`] judges closeness), if exactly one is.
    pub fn suggest_only<'a>(
        word: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Option<&'a str> {
        let lower = word.to_lowercase();
        let mut close = candidates
            .into_iter()
            .filter(|c| strsim::jaro_winkler(&lower, &c.to_lowercase()) >= 0.8);
        let first = close.next()?;
        close.next().is_none().then_some(first)
    }

    /// The answers kept from one call are those a fresh scoring gives, for the list they were
    /// made from only.
    #[test]
    fn kept_suggestions_are_the_fresh_ones() {
        let keys: Vec<String> = [
            "metadata",
            "spec",
            "kind",
            "apiVersion",
            "provenance",
            "specs",
        ]
        .map(String::from)
        .to_vec();
        let other: Vec<String> = ["metadat", "kinds"].map(String::from).to_vec();
        let mut kept = Suggestions::default();
        for word in [
            "metdata",
            "kindd",
            "sepc",
            "spex",
            "apiversion",
            "zzz",
            "METADATA",
            "",
        ] {
            for list in [&keys, &other] {
                let fresh = (
                    suggest(word, list.iter().map(String::as_str)),
                    suggest_only(word, list.iter().map(String::as_str)),
                );
                let hash = candidates_hash(list);
                assert_eq!(
                    suggestions_among(word, list, hash, &mut kept),
                    fresh,
                    "{word}"
                );
                assert_eq!(
                    suggestions_among(word, list, hash, &mut kept),
                    fresh,
                    "{word}, kept"
                );
            }
        }
    }

    /// Escapes and bidi controls in a frame's text become visible characters of the same
    /// length; line breaks, tabs and CRLF stay; spans still point at the same text.
    #[test]
    fn frames_show_no_raw_control_characters() {
        let text: Arc<str> = "a\u{1b}[2J\t= 1\r\n\u{202e}b\u{85} = \"x\"\rc\u{7f}\n".into();
        let framed = framed_text(&text);
        assert_eq!(&*framed, "a?[2J\t= 1\r\n\u{fffd}b\u{bf} = \"x\"?c?\n");
        assert_eq!(framed.len(), text.len());
        let at = text.find('b').unwrap();
        assert_eq!(&framed[at..at + 1], "b");
        let plain: Arc<str> = "a = 1\r\n".into();
        assert!(Arc::ptr_eq(&framed_text(&plain), &plain));
    }

    /// A config or rule file quoted in an error (its frame, a parser's message) shows no
    /// secret: masked in place, so the span still points at the same text.
    #[test]
    fn an_error_frame_and_message_mask_secrets() {
        let token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123";
        let text: Arc<str> =
            format!("[platform]\ntoken = \"{token}\"\nkey = \"-----BEGIN RSA PRIVATE KEY-----\nMIIEbodyOfAKeyLongEnoughToBeOneSixtyFourBase64CharactersOfKeyMaterial00\n-----END RSA PRIVATE KEY-----\"\n").into();
        let at = text.find("token").unwrap();
        let error = FileError::new(
            "forgelint.toml",
            &text,
            Some(at..at + 5),
            format!("unknown field `{token}`"),
        )
        .masked(&crate::rules::secret_detector([]));
        let framed = error.source.inner();
        assert_eq!(framed.len(), text.len());
        assert_eq!(&framed[at..at + 5], "token");
        assert!(!framed.contains("EFGHIJ"), "{framed}");
        assert!(!framed.contains("MIIEbody"), "{framed}");
        assert_eq!(error.message, "unknown field `ghp_…`");
    }

    #[test]
    fn without_text_keeps_the_place_and_drops_the_text() {
        let text: Arc<str> = "a = 1\nsecret = \"é hunter2\"\n".into();
        let at = text.find("hunter2").unwrap();
        let shown = FileError::new(
            "/elsewhere/c.toml",
            &text,
            Some(at..at + 7),
            "invalid type: string \"é hunter2\"",
        )
        .with_help("hunter2")
        .with_label("hunter2")
        .without_text("catalog", std::path::Path::new("/repo"));
        assert_eq!(
            shown.message,
            "catalog /elsewhere/c.toml:2:13: not a valid catalog"
        );
        assert!(shown.source.inner().is_empty());
        assert_eq!((shown.span, shown.label), (None, None));
        assert!(!shown.help.unwrap().contains("hunter2"));
    }

    #[test]
    fn suggests_the_closest_known_key() {
        let help = did_you_mean_for_unknown_field(
            "unknown field `catalg`, expected one of `kind`, `catalog`, `registries`",
        );
        assert_eq!(help.as_deref(), Some("did you mean `catalog`?"));
        let help = did_you_mean_for_unknown_field("unknown field `zzz`, expected `a` or `b`");
        assert_eq!(help.as_deref(), Some("expected one of: `a`, `b`"));
    }
}
