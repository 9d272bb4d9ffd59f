//! One config file as composition reads it: its keys, its defaults list, its `# @package`
//! header and its `hydra.searchpath`, all owned, so a file parsed once serves every spec of a
//! run.

use std::path::PathBuf;
use std::sync::Arc;

use super::tree::KeyTree;
use crate::diagnostic::Span;
use crate::formats::ConfigFormat;
use crate::json::{Document, NodeId, ParseError, Value};

/// A config file, parsed.
#[derive(Debug)]
pub struct ConfigFile {
    /// Where it is (absolute).
    pub path: PathBuf,
    /// As findings name it.
    pub shown: Arc<str>,
    pub text: Arc<str>,
    /// Its keys, `defaults` left out; file index 0.
    pub tree: KeyTree,
    /// Its `defaults`, if it has the key.
    pub defaults: Option<Defaults>,
    /// `# @package X` at its top.
    pub header: Option<String>,
    /// `hydra.searchpath` entries, with their spans.
    pub search_path: Vec<(String, Span)>,
}

/// A defaults list.
#[derive(Debug)]
pub struct Defaults {
    /// The `defaults` key.
    pub span: Span,
    /// Written as one string (NeMo-RL's `defaults: base.yaml`).
    pub single: bool,
    pub entries: Vec<Entry>,
}

/// One entry of a defaults list, with its span.
#[derive(Debug, Clone)]
pub struct Entry {
    pub span: Span,
    pub what: EntryKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    /// `_self_`: where the file's own keys go.
    SelfKeys,
    /// A file by its path relative to the file that names it (NeMo-RL: `grpo_math_1B.yaml`,
    /// `../../base.yaml`), merged at the same package.
    File(String),
    /// A Hydra config by name (`ppo_trainer`, `db/mysql@pkg`).
    Config {
        path: String,
        package: Option<String>,
    },
    /// A Hydra config group's option (`optimizer: adam`, `actor@a.b: dp_actor`,
    /// `override optim: sgd`).
    Group {
        group: String,
        package: Option<String>,
        option: GroupOption,
        optional: bool,
        overrides: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum GroupOption {
    /// `group: null`: nothing.
    Nothing,
    One(String),
    Many(Vec<String>),
    /// `???` or an interpolation: chosen on the command line.
    Unknown,
}

impl ConfigFile {
    /// Parses `text`, the file at `path`, in `format`: its first document.
    pub fn parse(
        path: PathBuf,
        shown: Arc<str>,
        text: Arc<str>,
        format: ConfigFormat,
    ) -> Result<ConfigFile, ParseError> {
        let docs = crate::formats::parse_config(format, &text)?;
        let empty;
        let doc = match docs.first() {
            Some(doc) => doc,
            None => {
                empty = Document::empty_object();
                &empty
            }
        };
        let (tree, defaults, search_path) = read_document(doc);
        let header = package_header(&text);
        drop(docs);
        Ok(ConfigFile {
            path,
            shown,
            text: text.clone(),
            tree,
            defaults,
            header,
            search_path,
        })
    }

    /// A config from a document parsed already (`text` is its text).
    pub fn of_document(
        path: PathBuf,
        shown: Arc<str>,
        text: Arc<str>,
        doc: &Document<'_>,
    ) -> ConfigFile {
        let (tree, defaults, search_path) = read_document(doc);
        ConfigFile {
            header: package_header(&text),
            path,
            shown,
            text,
            tree,
            defaults,
            search_path,
        }
    }
}

type Read = (KeyTree, Option<Defaults>, Vec<(String, Span)>);

fn read_document(doc: &Document<'_>) -> Read {
    let root = doc.root();
    let is_map = matches!(doc.value(root), Value::Object { .. });
    let tree = if is_map {
        KeyTree::of_document(doc, 0, &["defaults"])
    } else {
        KeyTree::default()
    };
    let defaults = is_map
        .then(|| doc.member(root, "defaults"))
        .flatten()
        .map(|m| defaults(doc, m.key_span, m.value));
    let mut search_path = Vec::new();
    let list = is_map
        .then(|| doc.get(root, "hydra"))
        .flatten()
        .and_then(|h| doc.get(h, "searchpath"));
    if let Some(list) = list {
        for &item in doc.items(list) {
            if let Some(s) = doc.as_str(item) {
                search_path.push((s.to_string(), doc.span(item)));
            }
        }
    }
    (tree, defaults, search_path)
}

fn defaults(doc: &Document<'_>, span: Span, value: NodeId) -> Defaults {
    let mut entries = Vec::new();
    let single = doc.as_str(value).is_some();
    let items: Vec<NodeId> = if single {
        vec![value]
    } else {
        doc.items(value).to_vec()
    };
    for item in items {
        let span = doc.span(item);
        let what = match doc.value(item) {
            Value::String(s) if single => Some(EntryKind::File(s.trim().to_string())),
            Value::String(s) => Some(config_entry(s.trim())),
            Value::Object { .. } => match doc.members(item) {
                [member] => Some(group_entry(doc, &member.key, member.value)),
                _ => None,
            },
            _ => None,
        };
        if let Some(what) = what {
            entries.push(Entry { span, what });
        }
    }
    Defaults {
        span,
        single,
        entries,
    }
}

/// A string entry of a defaults list.
fn config_entry(s: &str) -> EntryKind {
    if s == "_self_" {
        return EntryKind::SelfKeys;
    }
    if is_file_path(s) {
        return EntryKind::File(s.to_string());
    }
    let (path, package) = split_package(s);
    EntryKind::Config {
        path: path.to_string(),
        package,
    }
}

/// A path with an extension names a file, as NeMo-RL writes its bases; Hydra names configs
/// without one.
fn is_file_path(s: &str) -> bool {
    s.ends_with(".yaml") || s.ends_with(".yml")
}

/// `name@package` → (`name`, `package`).
fn split_package(s: &str) -> (&str, Option<String>) {
    match s.split_once('@') {
        Some((name, package)) => (name.trim(), Some(package.trim().to_string())),
        None => (s, None),
    }
}

/// A `{key: value}` entry of a defaults list: a group and its option.
fn group_entry(doc: &Document<'_>, key: &str, value: NodeId) -> EntryKind {
    let mut key = key.trim();
    let (mut optional, mut overrides) = (false, false);
    loop {
        if let Some(rest) = key.strip_prefix("optional ") {
            optional = true;
            key = rest.trim_start();
        } else if let Some(rest) = key.strip_prefix("override ") {
            overrides = true;
            key = rest.trim_start();
        } else {
            break;
        }
    }
    let (group, package) = split_package(key);
    let name = |s: &str| {
        if s.trim() == "???" || s.contains("${") {
            None
        } else {
            Some(s.trim().to_string())
        }
    };
    let option = match doc.value(value) {
        Value::Null => GroupOption::Nothing,
        Value::String(s) => name(s).map_or(GroupOption::Unknown, GroupOption::One),
        Value::Array { .. } => {
            let names: Option<Vec<String>> = doc
                .items(value)
                .iter()
                .map(|&i| doc.as_str(i).and_then(name))
                .collect();
            names.map_or(GroupOption::Unknown, GroupOption::Many)
        }
        _ => GroupOption::Unknown,
    };
    EntryKind::Group {
        group: group.to_string(),
        package,
        option,
        optional,
        overrides,
    }
}

/// `# @package X` among the comment lines that open the file.
fn package_header(text: &str) -> Option<String> {
    for line in text.lines().take(64) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let comment = line.strip_prefix('#')?;
        if let Some(package) = comment.trim().strip_prefix("@package") {
            return Some(package.trim().to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        ConfigFile::parse(
            PathBuf::from("/p/c.yaml"),
            Arc::from("c.yaml"),
            Arc::from(text),
            ConfigFormat::Yaml,
        )
        .unwrap()
    }

    #[test]
    fn defaults_lists_in_every_form() {
        let f = file("# @package _global_\n# more\nhydra:\n  searchpath:\n    - file://verl/trainer/config\n    - pkg://x.y\ndefaults:\n  - ppo_trainer\n  - db/mysql@data.db\n  - ../base.yaml\n  - actor@actor_rollout_ref.actor: dp_actor\n  - override /optim: [adam, sgd]\n  - optional logger: null\n  - model: ???\n  - extra: ${oc.env:X}\n  - _self_\na: 1\n");
        assert_eq!(f.header.as_deref(), Some("_global_"));
        assert_eq!(
            f.search_path
                .iter()
                .map(|s| s.0.as_str())
                .collect::<Vec<_>>(),
            ["file://verl/trainer/config", "pkg://x.y"]
        );
        let d = f.defaults.as_ref().unwrap();
        assert!(!d.single);
        let kinds: Vec<EntryKind> = d.entries.iter().map(|e| e.what.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                EntryKind::Config {
                    path: "ppo_trainer".into(),
                    package: None
                },
                EntryKind::Config {
                    path: "db/mysql".into(),
                    package: Some("data.db".into())
                },
                EntryKind::File("../base.yaml".into()),
                EntryKind::Group {
                    group: "actor".into(),
                    package: Some("actor_rollout_ref.actor".into()),
                    option: GroupOption::One("dp_actor".into()),
                    optional: false,
                    overrides: false
                },
                EntryKind::Group {
                    group: "/optim".into(),
                    package: None,
                    option: GroupOption::Many(vec!["adam".into(), "sgd".into()]),
                    optional: false,
                    overrides: true
                },
                EntryKind::Group {
                    group: "logger".into(),
                    package: None,
                    option: GroupOption::Nothing,
                    optional: true,
                    overrides: false
                },
                EntryKind::Group {
                    group: "model".into(),
                    package: None,
                    option: GroupOption::Unknown,
                    optional: false,
                    overrides: false
                },
                EntryKind::Group {
                    group: "extra".into(),
                    package: None,
                    option: GroupOption::Unknown,
                    optional: false,
                    overrides: false
                },
                EntryKind::SelfKeys,
            ]
        );
        assert!(f.tree.lookup("a").found && !f.tree.lookup("defaults").found);
        assert!(f.tree.lookup("hydra.searchpath").found);
    }

    #[test]
    fn a_single_string_is_a_file() {
        let f = file("defaults: \"grpo_math_1B.yaml\"\npolicy:\n  lr: 1\n");
        let d = f.defaults.unwrap();
        assert!(d.single);
        assert_eq!(
            d.entries[0].what,
            EntryKind::File("grpo_math_1B.yaml".into())
        );
        assert_eq!(file("x: 1\n").header, None);
        assert!(file("[1, 2]").tree.is_empty());
        assert!(file("").defaults.is_none());
    }
}
