//! The admission catalog snapshot: one entry per recipe, in TOML or JSON.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use crate::error::FileError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Observability {
    Platform,
    External,
}

impl Observability {
    pub fn as_str(self) -> &'static str {
        match self {
            Observability::Platform => "platform",
            Observability::External => "external",
        }
    }
}

/// A catalog entry.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRecipe {
    pub name: String,
    pub version: Option<String>,
    pub digest: Option<String>,
    pub runtime_id: Option<String>,
    pub observability: Option<Observability>,
    #[serde(default)]
    pub requires: RawRequires,
    #[serde(default)]
    pub custom: bool,
}

#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRequires {
    pub core: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    #[serde(default)]
    recipe: Vec<RawRecipe>,
}

#[derive(Debug, Clone)]
pub struct Recipe {
    pub name: String,
    pub version: Option<String>,
    pub digest: Option<String>,
    pub runtime_id: Option<String>,
    pub observability: Option<Observability>,
    /// The range as written, and compiled.
    pub requires_core: Option<(String, semver::VersionReq)>,
    pub custom: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Catalog {
    recipes: HashMap<String, Recipe>,
    names: Vec<String>,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&Recipe> {
        self.recipes.get(name)
    }

    /// Recipe names, sorted.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Builds a catalog from raw entries; `locate` gives an error for entry `i` (its span).
    pub fn from_raw(
        raw: Vec<RawRecipe>,
        mut fail: impl FnMut(usize, String) -> FileError,
    ) -> Result<Catalog, FileError> {
        let mut catalog = Catalog::default();
        for (i, r) in raw.into_iter().enumerate() {
            let requires_core = match r.requires.core {
                Some(range) => match semver::VersionReq::parse(&range) {
                    Ok(req) => Some((range, req)),
                    Err(e) => {
                        return Err(fail(
                            i,
                            format!(
                                "recipe `{}`: requires.core `{range}` is not a semver range: {e}",
                                r.name
                            ),
                        ))
                    }
                },
                None => None,
            };
            if catalog.recipes.contains_key(&r.name) {
                return Err(fail(i, format!("recipe `{}` is listed twice", r.name)));
            }
            catalog.names.push(r.name.clone());
            catalog.recipes.insert(
                r.name.clone(),
                Recipe {
                    name: r.name,
                    version: r.version,
                    digest: r.digest,
                    runtime_id: r.runtime_id,
                    observability: r.observability,
                    requires_core,
                    custom: r.custom,
                },
            );
        }
        catalog.names.sort();
        Ok(catalog)
    }

    /// Loads a snapshot; `.json` files are JSON, anything else TOML.
    pub fn load(path: &Path) -> Result<Catalog, FileError> {
        let name = path.display().to_string();
        let text: Arc<str> = match crate::read::read_text(path) {
            Ok(t) => t.into(),
            Err(e) => {
                return Err(FileError::new(
                    &name,
                    &Arc::from(""),
                    None,
                    format!("cannot read the catalog {name}: {e}"),
                ))
            }
        };
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        Catalog::parse(&name, &text, is_json)
    }

    pub fn parse(name: &str, text: &Arc<str>, is_json: bool) -> Result<Catalog, FileError> {
        let raw: RawCatalog = if is_json {
            serde_json::from_str(text).map_err(|e| {
                let offset = offset_of_line_col(text, e.line(), e.column());
                FileError::new(
                    name,
                    text,
                    Some(offset..offset),
                    format!("invalid catalog: {e}"),
                )
            })?
        } else {
            toml::from_str(text).map_err(|e| FileError::from_toml(name, text, &e))?
        };
        // Point an entry's error at its name in the file; good enough to find it.
        let names: Vec<String> = raw.recipe.iter().map(|r| r.name.clone()).collect();
        Catalog::from_raw(raw.recipe, |i, message| {
            let needle = &names[i];
            let at = nth_occurrence(text, needle, &names[..i]);
            FileError::new(name, text, at.map(|a| a..a + needle.len()), message)
        })
    }
}

fn nth_occurrence(text: &str, needle: &str, before: &[String]) -> Option<usize> {
    let n = before.iter().filter(|n| *n == needle).count();
    text.match_indices(needle).nth(n).map(|(i, _)| i)
}

fn offset_of_line_col(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_toml_and_json_alike() {
        let toml_text: Arc<str> = r#"
[[recipe]]
name = "nemo-rl/grpo"
version = "0.7.0"
observability = "platform"
requires = { core = ">=0.3.0, <0.4.0" }
"#
        .into();
        let c = Catalog::parse("c.toml", &toml_text, false).unwrap();
        let r = c.get("nemo-rl/grpo").unwrap();
        assert!(r
            .requires_core
            .as_ref()
            .unwrap()
            .1
            .matches(&"0.3.2".parse().unwrap()));
        let json_text: Arc<str> =
            r#"{"recipe": [{"name": "a/b", "custom": true, "requires": {"core": "^1"}}]}"#.into();
        let c = Catalog::parse("c.json", &json_text, true).unwrap();
        assert!(c.get("a/b").unwrap().custom);
    }

    #[test]
    fn bad_ranges_and_duplicates_are_errors_with_spans() {
        let text: Arc<str> = "[[recipe]]\nname = \"x\"\nrequires = { core = \"~>1\" }\n".into();
        let err = Catalog::parse("c.toml", &text, false).unwrap_err();
        assert!(err.message.contains("semver range"), "{}", err.message);
        assert!(err.span.is_some());
        let text: Arc<str> = "[[recipe]]\nname = \"x\"\n[[recipe]]\nname = \"x\"\n".into();
        let err = Catalog::parse("c.toml", &text, false).unwrap_err();
        let span = err.span.unwrap();
        assert_eq!((&text[span.clone()], span.start > 25), ("x", true));
    }
}
