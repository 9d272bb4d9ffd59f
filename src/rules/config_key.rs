//! `config-key`: a spec's hyperparameter override (a dotted path such as
//! `policy.optimizer.kwargs.lr`) must name a key of the experiment's config file, or the override
//! does nothing (or the job dies after its wait in the queue).

use super::eval::{emit_at, last_key, ConfigDoc, Context, Hits, Vars, MAX_VALUE_CHARS};
use super::Check;
use crate::diagnostic::{Locator, Related, Span};
use crate::escape::quote;
use crate::json::{Document, NodeId};
use crate::select::Resolved;

/// At most this many keys of a config are offered as did-you-mean candidates.
const MAX_CANDIDATES: usize = 10_000;
/// At most this many (node, rest-of-path) states are tried for one dotted path: a key that
/// itself contains dots can be read two ways, and a hostile config must not make it blow up.
const MAX_STEPS: usize = 10_000;

pub fn config_key(check: &Check, ctx: &Context<'_>, res: Resolved<'_>, out: &mut Hits) {
    let Some(config) = ctx.others.config else {
        return;
    };
    let mut candidates: Option<Vec<String>> = None;
    let mut locator = Locator::new(config.text);
    for m in res.found {
        let key = last_key(&m.pointer(ctx.doc));
        let (found, deepest) = lookup(config.doc, &key);
        if found {
            continue;
        }
        let known = candidates.get_or_insert_with(|| dotted_keys(config.doc));
        // Keys as deep as the override first: `kwargs.lr` means a leaf, not its parent.
        let depth = key.matches('.').count();
        let suggestion = crate::error::suggest(
            &key,
            known
                .iter()
                .map(String::as_str)
                .filter(|k| k.matches('.').count() == depth),
        )
        .or_else(|| crate::error::suggest(&key, known.iter().map(String::as_str)))
        .map(|s| format!("; did you mean {}?", quote(s, MAX_VALUE_CHARS)))
        .unwrap_or_default();
        let vars = Vars {
            value: quote(&key, MAX_VALUE_CHARS),
            extra: vec![
                ("config", crate::escape::visible(config.path).into_owned()),
                ("did-you-mean", suggestion),
            ],
            ..Vars::default()
        };
        let mut hit = emit_at(check, ctx, m, vars, Vec::new());
        hit.elsewhere
            .push(related(&config, &mut locator, deepest, &key));
        out.push(hit);
    }
}

/// The related place in the config: the deepest key the path does name, or the document.
fn related(config: &ConfigDoc<'_>, locator: &mut Locator<'_>, at: Located, key: &str) -> Related {
    let (span, label) = match at {
        Located::Key(span, matched) => (
            span,
            format!(
                "`{}` is the nearest key the override names; `{}` is not under it",
                crate::escape::visible(&matched),
                crate::escape::visible(key[matched.len()..].trim_start_matches('.'))
            ),
        ),
        Located::Root => (
            Span::new(0, 0),
            "the experiment's config; no key of it starts the override's path".to_string(),
        ),
    };
    let (span, start, end) = locator.positions(span);
    Related {
        path: Some(config.path.clone()),
        span,
        start,
        end,
        label,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Located {
    /// The key's span, and the part of the path it completes.
    Key(Span, String),
    Root,
}

/// Does `path` name a key of `doc` (each `.` going one level down, or part of a key that
/// contains dots)? Else the deepest key on its way.
fn lookup(doc: &Document<'_>, path: &str) -> (bool, Located) {
    let mut deepest = (0, Located::Root);
    let mut stack: Vec<(NodeId, usize)> = vec![(doc.root(), 0)];
    let mut steps = 0;
    while let Some((node, from)) = stack.pop() {
        steps += 1;
        if steps > MAX_STEPS {
            break;
        }
        let rest = &path[from..];
        for member in doc.members(node) {
            let k: &str = &member.key;
            if rest == k {
                return (true, Located::Root);
            }
            if rest.len() > k.len() && rest.starts_with(k) && rest.as_bytes()[k.len()] == b'.' {
                let next = from + k.len() + 1;
                if next > deepest.0 {
                    deepest = (
                        next,
                        Located::Key(member.key_span, path[..from + k.len()].to_string()),
                    );
                }
                stack.push((member.value, next));
            }
        }
    }
    (false, deepest.1)
}

/// Every key path of the config, dotted (`policy.optimizer.kwargs.lr`), for did-you-mean.
fn dotted_keys(doc: &Document<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(NodeId, String)> = vec![(doc.root(), String::new())];
    while let Some((node, prefix)) = stack.pop() {
        for member in doc.members(node) {
            if out.len() >= MAX_CANDIDATES {
                return out;
            }
            let path = if prefix.is_empty() {
                member.key.to_string()
            } else {
                format!("{prefix}.{}", member.key)
            };
            stack.push((member.value, path.clone()));
            out.push(path);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_paths_go_down_and_through_dotted_keys() {
        let text = r#"{"policy": {"optimizer": {"kwargs": {"lr": 1}}}, "a.b": {"c": 1}}"#;
        let doc = crate::json::parse(text).unwrap();
        assert!(lookup(&doc, "policy.optimizer.kwargs.lr").0);
        assert!(lookup(&doc, "policy.optimizer").0);
        assert!(lookup(&doc, "a.b.c").0);
        let (found, at) = lookup(&doc, "policy.optimizer.kwargs.lrr");
        assert!(!found);
        match at {
            Located::Key(span, matched) => {
                assert_eq!(&text[span.start as usize..span.end as usize], "\"kwargs\"");
                assert_eq!(matched, "policy.optimizer.kwargs");
            }
            Located::Root => panic!("expected a key"),
        }
        assert_eq!(lookup(&doc, "nothing").1, Located::Root);
        let keys = dotted_keys(&doc);
        assert!(keys.contains(&"policy.optimizer.kwargs.lr".to_string()));
    }
}
