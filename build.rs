//! Embeds every `rules/*.toml` file in the binary, so a new built-in rule is a new data file and
//! nothing else; beside each, its TOML tree parsed here (`src/rules/prebuilt.rs`), so that
//! start-up does not parse TOML.
use std::fmt::Write;
use std::path::Path;

#[path = "src/rules/prebuilt.rs"]
#[allow(dead_code)]
mod prebuilt;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let out_dir = std::env::var("OUT_DIR").unwrap();
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=src/rules/prebuilt.rs");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("rules/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut texts = String::from("[\n");
    let mut trees = String::from("[\n");
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
}
