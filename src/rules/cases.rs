//! The passing and failing cases a rule file carries (`[[valid]]`, `[[invalid]]`): their model,
//! their compilation with the rule file, and the documents they run on. A built-in rule's cases
//! are compiled only when asked for. Running them is the case runner's: it lints with
//! the engine, which sits above the rules.

use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::schema::RawCase;
use super::{Origin, REFERENCE_SPEC};
use crate::catalog::Catalog;
use crate::error::FileError;

#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub valid: bool,
    /// Byte range of the case in the rule file.
    pub span: std::ops::Range<usize>,
    pub source: CaseSource,
    /// Text replacements `(old, new)` applied after the patch.
    pub edits: Vec<(String, String)>,
    pub at: Option<String>,
    pub count: Option<usize>,
    pub also: Vec<String>,
    pub context: CaseContext,
    /// Rules on experiment files: the file linted, as its path in the experiment and its text
    /// (the spec, from `patch` or `document`, is the one that names the experiment).
    pub file: Option<(String, String)>,
    /// The experiment's config file, as its name and text.
    pub config: Option<(String, String)>,
    /// What the document becomes once the rule's fixes are applied (failing cases).
    pub fixed: Option<Fixed>,
}

/// The text a failing case's document is fixed into.
#[derive(Debug, Clone)]
pub enum Fixed {
    Text(String),
    /// A merge patch on the case's document, pretty-printed.
    Patch(String),
}

/// Where a case's document comes from.
#[derive(Debug, Clone)]
pub enum CaseSource {
    /// The reference spec as it is.
    Reference,
    /// A JSON merge patch applied to the reference spec.
    Patch(String),
    /// The whole file.
    Document(String),
}

impl Case {
    /// The case's file text: the reference spec patched (or the document given), then edited.
    pub fn document(&self) -> Result<String, String> {
        let mut document = match &self.source {
            CaseSource::Reference => REFERENCE_SPEC.to_string(),
            CaseSource::Patch(p) => {
                apply_patch(REFERENCE_SPEC, p).map_err(|m| format!("bad patch: {m}"))?
            }
            CaseSource::Document(d) => d.clone(),
        };
        for (old, new) in &self.edits {
            if !document.contains(old.as_str()) {
                return Err(format!(
                    "edit: the text to replace is not in the case's document: {old:?}"
                ));
            }
            document = document.replace(old.as_str(), new);
        }
        Ok(document)
    }
}

#[derive(Debug, Clone, Default)]
pub struct CaseContext {
    pub kind: Option<String>,
    pub catalog: Option<Option<Arc<crate::catalog::Catalog>>>,
    pub registries: Option<Vec<String>>,
    pub gpu_quota: Option<u64>,
    pub project_quota: Option<std::collections::BTreeMap<String, u64>>,
    pub dirs: Option<Vec<String>>,
}

/// Compiles the cases of rule file `name` (whose text is `text`): `valid` and `invalid` as parsed
/// from the text from byte `offset` on, so their spans count from there.
pub(super) fn compile_cases(
    name: &str,
    text: &Arc<str>,
    offset: usize,
    valid: &[Spanned<RawCase>],
    invalid: &[Spanned<RawCase>],
) -> Result<Vec<Case>, Box<FileError>> {
    let mut cases = Vec::with_capacity(valid.len() + invalid.len());
    for (i, case) in valid.iter().enumerate() {
        cases.push(compile_case(name, text, offset, case, true, i)?);
    }
    for (i, case) in invalid.iter().enumerate() {
        cases.push(compile_case(name, text, offset, case, false, i)?);
    }
    Ok(cases)
}

/// One case; `index` numbers it among the cases of its kind.
fn compile_case(
    name: &str,
    text: &Arc<str>,
    offset: usize,
    raw: &Spanned<RawCase>,
    valid: bool,
    index: usize,
) -> Result<Case, Box<FileError>> {
    let at = CaseAt { name, text, offset };
    let c = raw.get_ref();
    // The document is built when a case runs, not here: a rule file's cases are compiled
    // with it on every run that loads it, and are needed only by `test-rules`.
    let source = at.source(c)?;
    let file = at.file(c)?;
    let config = c.config.as_ref().map(|t| {
        (
            c.config_file
                .clone()
                .unwrap_or_else(|| "config.yaml".into()),
            t.get_ref().clone(),
        )
    });
    if let Some(e) = c.edit.iter().find(|e| e.get_ref().0.is_empty()) {
        return Err(at.err(e.span(), "the text to replace is empty"));
    }
    if valid && (c.at.is_some() || c.count.is_some()) {
        return Err(at.err(
            raw.span(),
            "`at` and `count` describe the finding of an [[invalid]] case",
        ));
    }
    let fixed = at.fixed(c, valid, &source)?;
    let catalog = at.catalog(raw)?;
    Ok(Case {
        name: c.name.clone().unwrap_or_else(|| {
            format!(
                "{} case {}",
                if valid { "valid" } else { "invalid" },
                index + 1
            )
        }),
        valid,
        span: at.shift(raw.span()),
        source,
        edits: c.edit.iter().map(|e| e.get_ref().clone()).collect(),
        at: c.at.clone(),
        count: c.count,
        also: c.also.clone(),
        context: CaseContext {
            kind: c.kind.clone(),
            catalog,
            registries: c.registries.clone(),
            gpu_quota: c.gpu_quota,
            project_quota: c.project_quota.clone(),
            dirs: c.dirs.clone(),
        },
        file,
        config,
        fixed,
    })
}

/// Where a case is: its rule file, and the offset of the text its spans are in.
struct CaseAt<'a> {
    name: &'a str,
    text: &'a Arc<str>,
    offset: usize,
}

impl CaseAt<'_> {
    /// `span` (in the text the case was parsed from) in the rule file.
    fn shift(&self, span: Range<usize>) -> Range<usize> {
        span.start + self.offset..span.end + self.offset
    }

    fn err(&self, span: Range<usize>, message: &str) -> Box<FileError> {
        Box::new(FileError::new(
            self.name,
            self.text,
            Some(self.shift(span)),
            message,
        ))
    }

    /// The spec the case runs on: a patch of the reference spec, a whole document, or the
    /// reference spec itself.
    fn source(&self, c: &RawCase) -> Result<CaseSource, Box<FileError>> {
        Ok(match (&c.patch, &c.document) {
            (Some(_), Some(d)) => {
                return Err(self.err(d.span(), "a case takes `patch` or `document`, not both"))
            }
            (None, Some(d)) => CaseSource::Document(d.get_ref().clone()),
            (Some(p), None) => CaseSource::Patch(p.get_ref().clone()),
            (None, None) => CaseSource::Reference,
        })
    }

    /// The experiment file a case of an experiment rule runs on: its path and text.
    fn file(&self, c: &RawCase) -> Result<Option<(String, String)>, Box<FileError>> {
        Ok(match (&c.file, &c.text) {
            (Some(f), Some(t)) => Some((f.get_ref().clone(), t.get_ref().clone())),
            (None, Some(t)) => {
                return Err(self.err(
                    t.span(),
                    "`text` needs `file`, the file's path in the experiment",
                ))
            }
            (Some(f), None) => Some((f.get_ref().clone(), String::new())),
            (None, None) => None,
        })
    }

    /// What an [[invalid]] case's fixes make of it: `fixed` (the whole text) or
    /// `fixed-patch` (for a case given as a patch).
    fn fixed(
        &self,
        c: &RawCase,
        valid: bool,
        source: &CaseSource,
    ) -> Result<Option<Fixed>, Box<FileError>> {
        Ok(match (&c.fixed, &c.fixed_patch) {
            (Some(_), Some(p)) => {
                return Err(self.err(p.span(), "a case takes `fixed` or `fixed-patch`, not both"))
            }
            (Some(f), None) if !valid => Some(Fixed::Text(f.get_ref().clone())),
            (None, Some(p)) if !valid && !matches!(source, CaseSource::Patch(_)) => {
                return Err(self.err(
                    p.span(),
                    "`fixed-patch` goes with a case given as a `patch` (pretty-printed); give the whole text as `fixed`",
                ))
            }
            (None, Some(p)) if !valid => Some(Fixed::Patch(p.get_ref().clone())),
            (Some(f), None) => {
                return Err(self.err(f.span(), "`fixed` goes with an [[invalid]] case"))
            }
            (None, Some(p)) => {
                return Err(self.err(p.span(), "`fixed-patch` goes with an [[invalid]] case"))
            }
            (None, None) => None,
        })
    }

    /// The case's own catalog: none (`no-catalog`), its recipes, or the reference's.
    fn catalog(
        &self,
        raw: &Spanned<RawCase>,
    ) -> Result<Option<Option<Arc<Catalog>>>, Box<FileError>> {
        let c = raw.get_ref();
        if c.no_catalog {
            return Ok(Some(None));
        }
        let Some(recipes) = &c.catalog else {
            return Ok(None);
        };
        let catalog = Catalog::from_raw(recipes.clone(), |_, m| {
            FileError::new(self.name, self.text, Some(self.shift(raw.span())), m)
        })
        .map_err(Box::new)?;
        Ok(Some(Some(Arc::new(catalog))))
    }
}

/// Applies a JSON merge patch (RFC 7386) to `base`; returns the patched document, pretty-printed.
pub fn apply_patch(base: &str, patch: &str) -> Result<String, String> {
    fn merge(target: &mut serde_json::Value, patch: &serde_json::Value) {
        match patch {
            serde_json::Value::Object(p) => {
                if !target.is_object() {
                    *target = serde_json::Value::Object(Default::default());
                }
                let t = target.as_object_mut().expect("an object");
                for (k, v) in p {
                    if v.is_null() {
                        t.remove(k);
                    } else {
                        merge(t.entry(k.clone()).or_insert(serde_json::Value::Null), v);
                    }
                }
            }
            other => *target = other.clone(),
        }
    }
    let mut doc: serde_json::Value = serde_json::from_str(base).map_err(|e| e.to_string())?;
    let patch: serde_json::Value = serde_json::from_str(patch).map_err(|e| e.to_string())?;
    merge(&mut doc, &patch);
    serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())
}

pub use super::prebuilt::cases_start;

/// A built-in rule's cases, compiled from its text from [`cases_start`] on (a built-in file has
/// nothing else there).
pub fn builtin_cases(origin: &Origin) -> Result<Vec<Case>, Box<FileError>> {
    // The rest of the file was compiled with the rule; only the cases are read here.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawCases {
        #[serde(default)]
        valid: Vec<Spanned<RawCase>>,
        #[serde(default)]
        invalid: Vec<Spanned<RawCase>>,
    }
    let (name, text) = (&origin.name, &origin.text);
    let start = cases_start(text);
    let raw: RawCases = toml::from_str(&text[start..]).map_err(|e| {
        let span = e.span().map(|s| s.start + start..s.end + start);
        Box::new(FileError::new(name, text, span, e.message().trim()))
    })?;
    compile_cases(name, text, start, &raw.valid, &raw.invalid)
}

#[cfg(test)]
mod tests {
    use super::super::compile::compile;
    use super::cases_start;

    /// A built-in rule file has only its cases after the first case, so the rule compiled
    /// without them is the whole rule; its cases, compiled on demand, are the file's.
    #[test]
    fn builtin_cases_come_last_and_compile_on_demand() {
        let mut deferred_cases = 0;
        for (name, text) in crate::rules::BUILTIN {
            let start = cases_start(text);
            let tail: toml::Table = toml::from_str(&text[start..])
                .unwrap_or_else(|e| panic!("{name}: the cases do not parse alone: {e}"));
            assert!(
                tail.keys().all(|k| k == "valid" || k == "invalid"),
                "{name}: something other than cases follows the first case: {:?}",
                tail.keys().collect::<Vec<_>>()
            );
            let whole = compile(name, (*text).into(), true, true).unwrap();
            let lean = compile(name, (*text).into(), true, false).unwrap();
            assert_eq!(lean.checks.len(), whole.checks.len(), "{name}");
            assert_eq!(lean.summary, whole.summary, "{name}");
            assert_eq!(lean.cases.get().map(Vec::len), None, "{name}");
            let loaded = crate::rules::compile_rule(name, (*text).into(), true).unwrap();
            assert!(
                loaded.cases.get().is_none(),
                "{name}: cases compiled on load"
            );
            // Compiled from the cases alone, they are what the whole file gives, spans included.
            assert_eq!(
                format!("{:?}", lean.cases()),
                format!("{:?}", whole.cases()),
                "{name}"
            );
            assert_eq!(
                whole.cases().len(),
                tail.values()
                    .map(|v| v.as_array().map_or(0, Vec::len))
                    .sum::<usize>(),
                "{name}"
            );
            deferred_cases += lean.cases().len();
        }
        assert!(deferred_cases >= 100, "{deferred_cases}");
    }

    #[test]
    fn cases_start_at_the_first_case_line() {
        assert_eq!(
            cases_start("id = 1\n[[check]]\n[[valid]]\nname = 'x'\n"),
            17
        );
        assert_eq!(cases_start("id = 1\n[[invalid]]\n[[valid]]\n"), 7);
        assert_eq!(cases_start("[[valid]]\n"), 0);
        // Not at a line's start, or no cases at all: the whole text.
        assert_eq!(cases_start("x = '[[valid]]'\n"), 16);
        assert_eq!(cases_start("id = 1"), 6);
    }
}
