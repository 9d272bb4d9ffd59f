//! Embeds every `rules/*.toml` file in the binary, so a new built-in rule is a new data file and
//! nothing else; beside each, its TOML tree parsed here (`src/rules/prebuilt.rs`), so that
//! start-up does not parse TOML.
use std::fmt::Write;
use std::path::Path;

#[path = "src/rules/prebuilt.rs"]
#[allow(dead_code)]
mod prebuilt;

#[path = "src/rules/pattern/analysis/mod.rs"]
#[allow(dead_code)]
mod analysis;

/// The keys whose strings are regexes (`pattern` a text check's, the rest predicates' and
/// filters'): their analyses are made here, not at each start.
const PATTERN_KEYS: [&str; 5] = ["pattern", "matches", "not-matches", "allow", "allow-line"];

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let out_dir = std::env::var("OUT_DIR").unwrap();
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=src/rules/prebuilt.rs");
    println!("cargo:rerun-if-changed=src/rules/pattern/analysis");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("rules/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut texts = String::from("[\n");
    let mut trees = String::from("[\n");
    let mut patterns = std::collections::BTreeSet::new();
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            texts,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).expect("a rule file is UTF-8");
        // A file that is not TOML gets no tree: it compiles from its text, which says why.
        let tree = prebuilt::encoder::encode(&text).unwrap_or_default();
        if let Some(root) = prebuilt::decode(&tree) {
            collect_patterns(root.get_ref(), &mut patterns);
        }
        let tree_path = Path::new(&out_dir).join(format!("{name}.tree"));
        std::fs::write(&tree_path, tree).unwrap();
        writeln!(
            trees,
            "    include_bytes!({:?}),",
            tree_path.display().to_string()
        )
        .unwrap();
    }
    texts.push(']');
    trees.push(']');
    let out = Path::new(&out_dir);
    std::fs::write(out.join("builtin_rules.rs"), texts).unwrap();
    std::fs::write(out.join("builtin_trees.rs"), trees).unwrap();
    std::fs::write(out.join("builtin_patterns.rs"), patterns_table(&patterns)).unwrap();
}

/// Every string under a [`PATTERN_KEYS`] key of `table`, at any depth.
fn collect_patterns(table: &toml::de::DeTable<'_>, out: &mut std::collections::BTreeSet<String>) {
    use toml::de::DeValue;
    fn visit(value: &DeValue<'_>, is_pattern: bool, out: &mut std::collections::BTreeSet<String>) {
        match value {
            DeValue::String(s) if is_pattern => {
                out.insert(s.to_string());
            }
            DeValue::Array(items) => {
                for item in items.iter() {
                    visit(item.get_ref(), is_pattern, out);
                }
            }
            DeValue::Table(table) => collect_patterns(table, out),
            _ => {}
        }
    }
    for (key, value) in table.iter() {
        visit(
            value.get_ref(),
            PATTERN_KEYS.contains(&&**key.get_ref()),
            out,
        );
    }
}

/// The analyses of `patterns` (sorted) as a Rust array of `(source, runs, literals)`.
fn patterns_table(patterns: &std::collections::BTreeSet<String>) -> String {
    let mut table = String::from("[\n");
    for source in patterns {
        // A pattern that does not parse is left to the rule's compiler, which says why.
        let Some(analysis::AnalysedBytes { runs, literals }) = analysis::analysed_bytes(source)
        else {
            continue;
        };
        let bytes = |b: Option<Vec<u8>>| match b {
            Some(b) => format!("Some(&{b:?})"),
            None => "None".to_string(),
        };
        writeln!(
            table,
            "    ({source:?}, {}, {}),",
            bytes(runs),
            bytes(literals)
        )
        .unwrap();
    }
    table.push(']');
    table
}
