//! `config-key`: a spec's hyperparameter override (a dotted path such as
//! `policy.optimizer.kwargs.lr`) must name a key of the experiment's config — composed with its
//! bases, as the framework composes it ([`crate::formats::compose`]) — or the override does
//! nothing (or the job dies after its wait in the queue).
//!
//! The override syntax of Hydra (and of NeMo-RL, which parses overrides with it) is read: `+key`
//! and `++key` add a key, so they name none yet; `~key` deletes one, which must exist; a list
//! index (`data.splits.0`) names an item that must exist. Keys under a package whose option is
//! chosen on the command line, or of a config whose bases could not all be read, are not judged.

use super::eval::{emit_at, last_key, Context, Hits, Vars, MAX_VALUE_CHARS};
use super::Check;
use crate::diagnostic::{Locator, Related, Span};
use crate::escape::quote;
use crate::formats::compose::{Composed, KeyTree, Lookup};
use crate::select::Resolved;

/// Keys a did-you-mean looks at below the deepest key an override reaches, at most.
const MAX_CANDIDATES: usize = 1024;

pub fn config_key(check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
    let Some(composed) = ctx.others.composed else {
        return;
    };
    let Some(primary) = composed.files.first() else {
        return;
    };
    let config = if composed.files.len() > 1 {
        format!("{} or its bases", crate::escape::visible(&primary.shown))
    } else {
        crate::escape::visible(&primary.shown).into_owned()
    };
    let mut locators: Vec<Option<Locator<'_>>> = Vec::new();
    for m in res.found {
        let key = last_key(&m.pointer(ctx.doc));
        let (path, mark) = match override_target(&key) {
            Override::Adds => continue,
            Override::Sets(path) => (path, ""),
            Override::Deletes(path) => (path, "~"),
        };
        if path.is_empty() || !composed.judged(path) {
            continue;
        }
        let lookup = composed.tree.lookup(path);
        if lookup.found {
            continue;
        }
        let suggestion = did_you_mean(&composed.tree, path, &lookup)
            .map(|s| {
                format!(
                    "; did you mean {}?",
                    quote(&format!("{mark}{s}"), MAX_VALUE_CHARS)
                )
            })
            .unwrap_or_default();
        let vars = Vars {
            value: quote(&key, MAX_VALUE_CHARS),
            extra: vec![("config", config.clone()), ("did-you-mean", suggestion)],
            ..Vars::default()
        };
        let mut hit = emit_at(check, ctx, m, vars, Vec::new());
        hit.elsewhere
            .push(related(composed, &mut locators, &lookup, path));
        out.push(hit);
    }
}

/// What an override key does, by its Hydra prefix.
#[derive(Debug, PartialEq, Eq)]
enum Override<'k> {
    /// `key`: sets a key, which must exist.
    Sets(&'k str),
    /// `+key`, `++key`: adds a key (or, `++`, sets it whether or not it exists).
    Adds,
    /// `~key`: deletes a key, which must exist.
    Deletes(&'k str),
}

fn override_target(key: &str) -> Override<'_> {
    if key.starts_with('+') {
        Override::Adds
    } else if let Some(path) = key.strip_prefix('~') {
        Override::Deletes(path)
    } else {
        Override::Sets(key)
    }
}

/// The key the override most likely meant: among the keys of the deepest mapping it reaches
/// (its siblings), then one level below them; with the rest of the path when that exists.
fn did_you_mean(tree: &KeyTree, path: &str, lookup: &Lookup) -> Option<String> {
    let members = tree.members(lookup.deepest)?;
    let prefix = &path[..lookup.matched];
    let rest = &path[lookup.matched..];
    let (first, tail) = match rest.split_once('.') {
        Some((first, tail)) => (first, Some(tail)),
        None => (rest, None),
    };
    let with_tail = |key: &str| -> String {
        let near = format!("{prefix}{key}");
        match tail {
            Some(tail) if tree.lookup(&format!("{near}.{tail}")).found => format!("{near}.{tail}"),
            _ => near,
        }
    };
    let siblings = members.list.iter().map(|(k, _)| &**k);
    if let Some(key) =
        crate::error::suggest(first, siblings.clone()).or_else(|| shortened(first, siblings))
    {
        return Some(with_tail(key));
    }
    // A level left out (`optimizer.lr` for `optimizer.kwargs.lr`): the keys one level down.
    let below: Vec<(String, &str)> = members
        .list
        .iter()
        .filter_map(|(k, child)| Some((k, tree.members(*child)?)))
        .flat_map(|(k, m)| m.list.iter().map(move |(c, _)| (format!("{k}.{c}"), &**c)))
        .take(MAX_CANDIDATES)
        .collect();
    let best = crate::error::suggest(first, below.iter().map(|(_, c)| *c))?;
    let (full, _) = below.iter().find(|(_, c)| *c == best)?;
    Some(with_tail(full))
}

/// The one sibling `word` shortens, if exactly one: its initials (`lr` for `learning_rate`) or
/// one of its words (`steps` for `max_steps`). Too unlike for a typo, but what was meant.
fn shortened<'a>(word: &str, siblings: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if word.is_empty() || word.contains('_') {
        return None;
    }
    let word = word.to_ascii_lowercase();
    let mut found = None;
    for sibling in siblings {
        let lower = sibling.to_ascii_lowercase();
        let words = || lower.split('_').filter(|w| !w.is_empty());
        let initials: String = words().filter_map(|w| w.chars().next()).collect();
        let shortens = words().count() > 1 && (initials == word || words().any(|w| w == word));
        if shortens {
            if found.is_some() {
                return None;
            }
            found = Some(sibling);
        }
    }
    found
}

/// The related place in the config: the deepest key the path does name, in the file that
/// wrote it, or the primary config.
fn related<'c>(
    composed: &'c Composed,
    locators: &mut Vec<Option<Locator<'c>>>,
    lookup: &Lookup,
    key: &str,
) -> Related {
    let origin = composed.tree.node(lookup.deepest).origin;
    let (file, span, label) = if lookup.matched == 0 {
        (
            0,
            Span::new(0, 0),
            "the experiment's config; no key of it starts the override's path".to_string(),
        )
    } else {
        let matched = key[..lookup.matched].trim_end_matches('.');
        (
            origin.file as usize,
            origin.span,
            format!(
                "`{}` is the nearest key the override names; `{}` is not under it",
                crate::escape::visible(matched),
                crate::escape::visible(&key[lookup.matched..])
            ),
        )
    };
    let index = if file < composed.files.len() { file } else { 0 };
    let file = &composed.files[index];
    if locators.len() < composed.files.len() {
        locators.resize_with(composed.files.len(), || None);
    }
    let locator = locators[index].get_or_insert_with(|| Locator::new(&file.text));
    let (span, start, end) = locator.positions(span);
    Related {
        path: Some(file.shown.clone()),
        span,
        start,
        end,
        label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> KeyTree {
        let doc = crate::json::parse(text).unwrap();
        KeyTree::of_document(&doc, 0, &[])
    }

    #[test]
    fn override_prefixes() {
        assert_eq!(override_target("a.b"), Override::Sets("a.b"));
        assert_eq!(override_target("+a.b"), Override::Adds);
        assert_eq!(override_target("++a.b"), Override::Adds);
        assert_eq!(override_target("~a.b"), Override::Deletes("a.b"));
    }

    #[test]
    fn suggestions_come_from_the_siblings() {
        let t = tree(
            r#"{"policy": {"optimizer": {"kwargs": {"lr": 1, "weight_decay": 0}}, "generation": {"top_p": 1}}, "trainer": {"total_epochs": 1}}"#,
        );
        let ask = |path: &str| did_you_mean(&t, path, &t.lookup(path));
        assert_eq!(
            ask("policy.optimizer.kwargs.weight_decy").as_deref(),
            Some("policy.optimizer.kwargs.weight_decay")
        );
        assert_eq!(
            ask("trainer.total_epoch").as_deref(),
            Some("trainer.total_epochs")
        );
        assert_eq!(
            ask("policy.optimzer.kwargs.lr").as_deref(),
            Some("policy.optimizer.kwargs.lr")
        );
        assert_eq!(
            ask("policy.optimizer.lr").as_deref(),
            Some("policy.optimizer.kwargs.lr")
        );
        assert_eq!(ask("policy.zzz"), None);
        assert_eq!(
            ask("triner.total_epochs").as_deref(),
            Some("trainer.total_epochs")
        );
        let t = tree(r#"{"kwargs": {"learning_rate": 1, "max_steps": 2, "warmup_steps": 3}}"#);
        let ask = |path: &str| did_you_mean(&t, path, &t.lookup(path));
        assert_eq!(ask("kwargs.lr").as_deref(), Some("kwargs.learning_rate"));
        assert_eq!(ask("kwargs.max").as_deref(), Some("kwargs.max_steps"));
        // Two keys end in `steps`: neither is offered.
        assert_eq!(ask("kwargs.steps"), None);
    }
}
