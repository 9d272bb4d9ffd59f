//! The forge/v2 JobSpec schema, read from the built-in rules rather than kept as a copy: the
//! keys of each object from `unknown-field`, the types from `wrong-type`, and every other check
//! of a rule that refuses a spec on its own (no catalog, no configuration) whose predicate a
//! schema can state exactly. A check it cannot state exactly is left out: the schema must never
//! refuse a spec the server admits (an editor would show a false error).

use serde_json::{json, Map, Value};

use super::ecma;
use crate::diagnostic::Severity;
use crate::rules::{
    Assertion, Check, Condition, JsonType, Lit, Operand, Predicate, Rule, RuleSet, Setting, Target,
};
use crate::select::Segment;

/// Warnings the schema enforces all the same: an unknown key is a misspelling far more often
/// than not (and closed objects are what lets an editor complete keys), and a digest that is
/// not 64 lowercase hex digits cannot match any artifact.
const ENFORCED_WARNINGS: [&str; 2] = ["unknown-field", "digest-hex"];

/// Rules that the schema's `properties` and `type` already say; not repeated on every field.
const STRUCTURAL: [&str; 2] = ["unknown-field", "wrong-type"];

/// A semantic version (semver.org's own pattern, ASCII classes only): what the `semver`
/// predicate (the `semver` crate) parses.
pub const SEMVER: &str = r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?$";

/// What the JobSpec page of the platform's documentation says of a field (by its path).
const SEED: &[(&str, &str)] = &[
    ("", "A forge/v2 JobSpec: the payload `sf submit` builds into the job package and the admission server admits."),
    ("apiVersion", "Must be forge/v2: any other value is refused on both the client and the server, before anything is scheduled."),
    ("kind", "The training kind the SDK ships (KIND_TRAINING): \"TrainingJob\" unless your forgelint.toml sets [platform] kind. Any other value is refused."),
    ("metadata.name", "A run-id segment (`run/<run_id>/…`)."),
    ("metadata.owner", "Whatever the client sends is ignored: the server stamps the authenticated account."),
    ("metadata.labels", "A free map: any key."),
    ("spec.recipe", "Admission compares the recipe name, its version, its digest and framework.runtime_id against the server's catalog; any mismatch is refused (`sf recipe status`, `sf recipe upgrade`)."),
    ("spec.source.exp", "The experiment directory, relative to the project root."),
    ("spec.source.entrypoint", "Must be empty. The recipe owns the entrypoint; use a custom/custom recipe to run your own command."),
    ("spec.framework.image", "The optional --image override. Required for custom jobs. The registry host must be on the deployment's allowlist."),
    ("spec.framework.observability_url", "Required when the recipe declares external observability, and forbidden when it declares platform."),
    ("spec.resources.pools", "Must be non-empty. GPU count is nodes * gpus_per_node per pool, summed across pools for the quota check."),
    ("spec.model.init_from", "run/<run_id>/<kind>, optionally @step=<N>."),
    ("spec.data.corpus", "<owner>/<name>[@version]. The platform mounts it and sets DOCS_DIR. A hardcoded host path would skip the access check, so it is not accepted."),
    ("spec.hyperparams", "A free map: hyperparameters by their dotted config path (\"policy.optimizer.kwargs.lr\")."),
    ("spec.plugins[*].id", "<owner>/<name>. Two plugins that would unpack to the same leaf directory cannot be combined."),
    ("spec.plugins[*].digest", "Digests start with sha256:."),
    ("spec.recipe.digest", "Digests start with sha256:."),
    ("provenance.core_version", "The client's core version: it must satisfy the requires.core range the catalog gives for the recipe."),
];

/// `""`, `[]`, `{}` and `null`: what `empty` and `non-empty` call empty.
fn empty_values() -> Value {
    json!(["", [], {}, null])
}

#[derive(Debug, Default)]
struct Node {
    children: Vec<(String, Node)>,
    /// Array items or map values (`[*]`, `.*`).
    items: Option<Box<Node>>,
    /// `unknown-field` lists the keys: no other key can be there.
    closed: bool,
    required: Vec<String>,
    /// From `wrong-type`; `None` when unknown.
    types: Option<Vec<JsonType>>,
    /// Not `null`: the value, or a field below it, is required.
    not_null: bool,
    /// The message of the rule that wants a non-empty value, if one does.
    non_empty: Option<String>,
    keywords: Map<String, Value>,
    all_of: Vec<Value>,
    /// `- id (severity): summary` of the rules that check this field.
    rules: Vec<String>,
}

impl Node {
    fn child(&mut self, key: &str) -> &mut Node {
        let at = match self.children.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                self.children.push((key.to_string(), Node::default()));
                self.children.len() - 1
            }
        };
        &mut self.children[at].1
    }

    /// The node of `segments`, made if need be; `None` for a selector with an index, which
    /// names one item a schema cannot single out.
    fn at(&mut self, segments: &[Segment]) -> Option<&mut Node> {
        let mut node = self;
        for segment in segments {
            node = match segment {
                Segment::Key(k) => node.child(k),
                Segment::Wildcard => node.items.get_or_insert_with(Default::default),
                Segment::Index(_) => return None,
            };
        }
        Some(node)
    }

    /// The node of `segments` if the shape has it.
    fn existing(&mut self, segments: &[Segment]) -> Option<&mut Node> {
        let mut node = self;
        for segment in segments {
            node = match segment {
                Segment::Key(k) => {
                    let at = node.children.iter().position(|(c, _)| c == k)?;
                    &mut node.children[at].1
                }
                Segment::Wildcard => node.items.as_deref_mut()?,
                Segment::Index(_) => return None,
            };
        }
        Some(node)
    }

    /// Marks the value at `segments` required: its key in its parent, and every parent up to
    /// the nearest wildcard too (a missing or `null` parent is reported as the missing field;
    /// below a wildcard it is each item that must hold the key).
    fn require(&mut self, segments: &[Segment]) -> Option<&mut Node> {
        let mut node = self;
        for (i, segment) in segments.iter().enumerate() {
            let last = i + 1 == segments.len();
            node = match segment {
                Segment::Key(k) => {
                    if !node.required.contains(k) {
                        node.required.push(k.clone());
                    }
                    let child = node.child(k);
                    if !last {
                        child.not_null = true;
                    }
                    child
                }
                Segment::Wildcard => {
                    let items = node.items.get_or_insert_with(Box::default);
                    // A `null` item has none of its keys: it is reported as missing them.
                    items.not_null |= !last;
                    items
                }
                Segment::Index(_) => return None,
            };
        }
        Some(node)
    }

    /// Adds a constraint: as keywords of the field's own for `wrong-type`'s bounds (part of
    /// the type, with the editor's own messages), else under `allOf` with the rule's message.
    fn constrain(&mut self, schema: Map<String, Value>, message: Option<&str>) {
        let fits = schema.keys().all(|k| !self.keywords.contains_key(k));
        match message {
            None if fits => self.keywords.extend(schema),
            _ => self.all_of.push(with_message(schema, message)),
        }
    }

    fn restrict_types(&mut self, types: &[JsonType]) {
        let kept = match &self.types {
            None => types.to_vec(),
            Some(had) => had
                .iter()
                .copied()
                .filter(|t| {
                    types.contains(t)
                        || (*t == JsonType::Integer && types.contains(&JsonType::Number))
                })
                .collect(),
        };
        self.types = Some(kept);
    }

    fn may_be(&self, t: JsonType) -> bool {
        self.types.as_ref().is_none_or(|ts| ts.contains(&t))
    }

    /// The keywords of a length bound, for the types this value may have.
    fn lengths(&self, string: &str, array: &str, object: &str, n: usize) -> Map<String, Value> {
        let mut m = Map::new();
        for (t, key) in [
            (JsonType::String, string),
            (JsonType::Array, array),
            (JsonType::Object, object),
        ] {
            if self.may_be(t) {
                m.insert(key.into(), json!(n));
            }
        }
        m
    }
}

/// The JobSpec schema of the built-in rules.
pub fn schema(set: &RuleSet) -> Value {
    let (root, enforced) = build(set);
    let mut out = render(&root, "");
    if let Value::Object(m) = &mut out {
        let note = format!(
            "\n\nGenerated from forgelint's built-in rules. Enforced here: {}. Rules that need the admission catalog or the configuration (registries, quota, the configured kind) are described, not enforced: run forgelint for them.",
            enforced.join(", ")
        );
        if let Some(Value::String(d)) = m.get_mut("description") {
            d.push_str(&note);
        }
        m.insert("title".into(), json!("forge/v2 JobSpec"));
        // The kind's value is the configuration's: only its default is said, never required.
        if let Some(kind) = m.get_mut("properties").and_then(|p| p.get_mut("kind")) {
            kind["default"] = json!(crate::platform_facts::DEFAULT_KIND);
        }
    }
    out
}

/// The ids of the rules whose checks the schema enforces, in whole or in part.
pub fn enforced(set: &RuleSet) -> Vec<String> {
    build(set).1
}

fn enforces(rule: &Rule) -> bool {
    rule.severity == Severity::Error || ENFORCED_WARNINGS.contains(&rule.id.as_str())
}

fn build(set: &RuleSet) -> (Node, Vec<String>) {
    let mut root = Node {
        types: Some(vec![JsonType::Object]),
        not_null: true,
        ..Node::default()
    };
    let rules: Vec<&Rule> = set
        .rules
        .iter()
        .filter(|r| r.target == Target::Jobspec)
        .collect();
    // The top level is an object: anything else is `invalid-json`'s.
    let mut enforced: Vec<String> = set
        .get("invalid-json")
        .map(|r| vec![r.id.clone()])
        .unwrap_or_default();
    // The shape first (keys, then types), so the other checks find their fields' types.
    for pass in 0..2 {
        for rule in rules.iter().filter(|r| enforces(r)) {
            for check in &rule.checks {
                let shape = matches!(
                    check.assertion,
                    Assertion::Keys(_) | Assertion::Predicate(Predicate::Type(_))
                ) && check.when.is_empty();
                if (pass == 0) == shape
                    && apply(&mut root, rule, check).is_some()
                    && !enforced.contains(&rule.id)
                {
                    enforced.push(rule.id.clone());
                }
            }
        }
    }
    for rule in &rules {
        describe(&mut root, rule);
    }
    enforced.sort();
    (root, enforced)
}

/// Names the rule in the description of each field it checks.
fn describe(root: &mut Node, rule: &Rule) {
    if STRUCTURAL.contains(&rule.id.as_str()) {
        return;
    }
    let line = format!("- {} ({}): {}", rule.id, rule.severity, rule.summary);
    for check in &rule.checks {
        if let Some(node) = root.existing(&check.select.segments) {
            if !node.rules.contains(&line) {
                node.rules.push(line.clone());
            }
        }
    }
}

/// What an editor says when a value breaks `rule`: its summary and id. `wrong-type`'s bounds
/// keep the editor's own messages ("Value is below the minimum of 1").
fn message(rule: &Rule) -> Option<String> {
    (!STRUCTURAL.contains(&rule.id.as_str())).then(|| format!("{} ({})", rule.summary, rule.id))
}

/// `schema` with `message` as VS Code's `errorMessage` and `patternErrorMessage` (other
/// validators ignore keywords they do not know).
fn with_message(mut schema: Map<String, Value>, message: Option<&str>) -> Value {
    if let Some(m) = message {
        if schema.contains_key("pattern") {
            schema.insert("patternErrorMessage".into(), json!(m));
        }
        schema.insert("errorMessage".into(), json!(m));
    }
    Value::Object(schema)
}

/// Adds what `check` of `rule` asserts to the tree; `None` when a schema cannot say it exactly.
fn apply(root: &mut Node, rule: &Rule, check: &Check) -> Option<()> {
    let message = message(rule);
    let segments = &check.select.segments;
    let guards = check
        .when
        .iter()
        .map(|c| guard(c, segments))
        .collect::<Option<Vec<Value>>>()?;
    match &check.assertion {
        Assertion::Keys(keys) if guards.is_empty() => {
            let node = root.at(segments)?;
            node.closed = true;
            for k in keys {
                node.child(k);
            }
        }
        Assertion::Predicate(Predicate::Type(types)) if guards.is_empty() => {
            root.at(segments)?.restrict_types(types);
        }
        // Presence is a parent's `required`: not something a condition on the value can guard.
        Assertion::Predicate(Predicate::Present) if guards.is_empty() => {
            root.require(segments)?;
        }
        Assertion::Predicate(Predicate::NonEmpty) if guards.is_empty() => {
            let node = root.require(segments)?;
            node.not_null = true;
            node.non_empty = Some(message.unwrap_or_else(|| rule.summary.clone()));
        }
        Assertion::Predicate(p) => {
            let node = root.at(segments)?;
            let schema = value_schema(p, node)?;
            if guards.is_empty() {
                node.constrain(schema, message.as_deref());
            } else {
                let condition = if guards.len() == 1 {
                    guards.into_iter().next()?
                } else {
                    json!({ "allOf": guards })
                };
                let then = with_message(schema, message.as_deref());
                node.all_of.push(json!({ "if": condition, "then": then }));
            }
        }
        _ => return None,
    }
    Some(())
}

/// A `when` condition on the checked value itself, as a schema of that value. A condition with
/// a wildcard holds when it holds for *every* value, which no per-item `if` says.
fn guard(c: &Condition, segments: &[Segment]) -> Option<Value> {
    let Condition::Select(sel, p) = c else {
        return None;
    };
    if sel.segments != segments || segments.contains(&Segment::Wildcard) {
        return None;
    }
    // A condition holds only where its predicate passes: never for a value of the wrong type.
    Some(match p {
        Predicate::NonEmpty => json!({ "not": { "enum": empty_values() } }),
        Predicate::Matches(re) => {
            json!({ "type": "string", "pattern": ecma::translate(re.as_str())? })
        }
        Predicate::NotMatches(re) => {
            json!({ "type": "string", "not": { "pattern": ecma::translate(re.as_str())? } })
        }
        _ => return None,
    })
}

/// The keywords that say predicate `p` of a present value at `node`. A predicate that does not
/// apply to a value's type passes it, as JSON Schema's type-specific keywords do.
fn value_schema(p: &Predicate, node: &Node) -> Option<Map<String, Value>> {
    let one = |k: &str, v: Value| Some(Map::from_iter([(k.to_string(), v)]));
    match p {
        Predicate::Empty => {
            let mut m = node.lengths("maxLength", "maxItems", "maxProperties", 0);
            if node.may_be(JsonType::Number) || node.may_be(JsonType::Boolean) {
                m.insert("not".into(), json!({ "type": ["number", "boolean"] }));
            }
            Some(m)
        }
        Predicate::Equals(Operand::Literal(l)) => one("const", lit(l)?),
        // Whatever its value, the configured kind is a string.
        Predicate::Equals(Operand::Setting(Setting::Kind)) => one("type", json!("string")),
        Predicate::OneOf(Operand::Literal(Lit::List(items))) => one(
            "enum",
            Value::Array(items.iter().map(lit).collect::<Option<_>>()?),
        ),
        Predicate::Matches(re) => one("pattern", json!(ecma::translate(re.as_str())?)),
        Predicate::NotMatches(re) => one(
            "not",
            json!({ "type": "string", "pattern": ecma::translate(re.as_str())? }),
        ),
        Predicate::Minimum(Operand::Literal(Lit::Num(n))) => one("minimum", number(*n)?),
        Predicate::Maximum(Operand::Literal(Lit::Num(n))) => one("maximum", number(*n)?),
        Predicate::ExclusiveMinimum(Operand::Literal(Lit::Num(n))) => {
            one("exclusiveMinimum", number(*n)?)
        }
        Predicate::ExclusiveMaximum(Operand::Literal(Lit::Num(n))) => {
            one("exclusiveMaximum", number(*n)?)
        }
        Predicate::MinLength(n) => Some(node.lengths("minLength", "minItems", "minProperties", *n)),
        Predicate::MaxLength(n) => Some(node.lengths("maxLength", "maxItems", "maxProperties", *n)),
        Predicate::Semver => one("pattern", json!(SEMVER)),
        _ => None,
    }
}

/// A whole number as an integer (`1`, not `1.0`).
fn number(n: f64) -> Option<Value> {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        Some(json!(n as i64))
    } else {
        serde_json::Number::from_f64(n).map(Value::Number)
    }
}

fn lit(l: &Lit) -> Option<Value> {
    Some(match l {
        Lit::Bool(b) => json!(b),
        Lit::Num(n) => number(*n)?,
        Lit::Str(s) => json!(s),
        Lit::List(items) => Value::Array(items.iter().map(lit).collect::<Option<_>>()?),
    })
}

fn description(node: &Node, path: &str) -> Option<String> {
    let seed = SEED.iter().find(|(p, _)| *p == path).map(|(_, t)| *t);
    let mut text = seed.unwrap_or_default().to_string();
    if !node.rules.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("forgelint rules:\n");
        text.push_str(&node.rules.join("\n"));
    }
    (!text.is_empty()).then_some(text)
}

fn type_names(node: &Node) -> Option<Value> {
    let types = node.types.as_ref()?;
    let mut names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
    // `null` stands for "not set": wrong-type leaves it to the rules about required fields.
    if !node.not_null && !names.contains(&"null") {
        names.push("null");
    }
    Some(match names.as_slice() {
        [one] => json!(one),
        more => json!(more),
    })
}

fn render(node: &Node, path: &str) -> Value {
    let mut m = Map::new();
    if let Some(d) = description(node, path) {
        m.insert("description".into(), json!(d));
    }
    match type_names(node) {
        Some(t) => {
            m.insert("type".into(), t);
        }
        None if node.not_null => {
            m.insert("not".into(), json!({ "type": "null" }));
        }
        None => {}
    }
    if !node.children.is_empty() {
        let props: Map<String, Value> = node
            .children
            .iter()
            .map(|(k, c)| {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                (k.clone(), render(c, &sub))
            })
            .collect();
        m.insert("properties".into(), Value::Object(props));
    }
    if !node.required.is_empty() {
        m.insert("required".into(), json!(node.required));
    }
    if let Some(items) = &node.items {
        let sub = render(items, &format!("{path}[*]"));
        if node.may_be(JsonType::Array) {
            m.insert("items".into(), sub.clone());
        }
        if node.may_be(JsonType::Object) && !node.closed {
            m.insert("additionalProperties".into(), sub);
        }
    }
    if node.closed {
        m.insert("additionalProperties".into(), json!(false));
    }
    m.extend(node.keywords.clone());
    let mut all_of = node.all_of.clone();
    if let Some(message) = &node.non_empty {
        let lengths = node.lengths("minLength", "minItems", "minProperties", 1);
        all_of.insert(0, with_message(lengths, Some(message)));
    }
    if !all_of.is_empty() {
        m.insert("allOf".into(), json!(all_of));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field the seed page describes is one the rules know: a renamed field cannot leave
    /// its description behind.
    #[test]
    fn the_seed_describes_known_fields() {
        let (mut root, _) = build(&RuleSet::builtin().unwrap());
        for (path, _) in SEED {
            if path.is_empty() {
                continue;
            }
            let sel = crate::select::Selector::parse(path).unwrap();
            assert!(root.existing(&sel.segments).is_some(), "{path}");
        }
    }

    #[test]
    fn the_semver_pattern_refuses_nothing_semver_accepts() {
        let re = regex::Regex::new(SEMVER).unwrap();
        for v in [
            "0.3.2",
            "1.0.0-alpha.1",
            "1.0.0+001",
            "1.0.0-0.3.7",
            "1.0.0-x-y-z.--",
            "10.20.30",
            "1.2.3-rc.1+build.5",
            "01.2.3",
            "1.2",
            "v1.2.3",
            "1.2.3-01",
            "1.2.3-",
            "1.2.3+",
            " 1.2.3",
            "1.2.3 ",
            "1.2.3-a..b",
            "18446744073709551616.0.0",
            "1.2.3-α",
        ] {
            if semver::Version::parse(v).is_ok() {
                assert!(re.is_match(v), "{v}");
            }
        }
    }
}
