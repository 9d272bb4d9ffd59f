use super::python::{assigned_name, statement_target};
use super::*;

fn roots() -> Vec<String> {
    crate::platform_facts::DEFAULT_HOST_PATH_ROOTS
        .map(String::from)
        .to_vec()
}

fn regex(p: &str) -> Option<Lazy<Regex>> {
    Some(Lazy::new(vec![p.to_string()], Syntax::Check).unwrap())
}

/// The check as `rules/exp-host-path.toml` configures it, in short.
fn check() -> HostPathCheck {
    HostPathCheck {
        ignore: Some(
            Lazy::new(
                ["~/.*", "~/.*/**", "/home/user", "/home/user/**"]
                    .map(String::from)
                    .to_vec(),
                Syntax::Check,
            )
            .unwrap(),
        ),
        remote_calls: Some(
            Lazy::new(
                vec![r"(?i)(?:^|\.)(?:sandbox|container)\w*\.".into()],
                Syntax::Check,
            )
            .unwrap(),
        ),
        remote_names: Some(Lazy::new(vec![r"(?i)\bsandbox_".into()], Syntax::Check).unwrap()),
        prose_words: 3,
        shell_keys: vec!["run".into(), "setup".into()],
        kinds: vec![
            PathKind {
                kind: "a checkpoint".into(),
                name: regex("(?i)ckpt|checkpoint"),
                path: regex("(?i)ckpt"),
                instead: "c".into(),
            },
            PathKind {
                kind: "a model".into(),
                name: regex("(?i)model|tokenizer"),
                path: regex("/models/"),
                instead: "m".into(),
            },
            PathKind {
                kind: "an output folder".into(),
                name: regex("(?i)(?:^|[^a-z])(?:save|out)"),
                path: None,
                instead: "o".into(),
            },
            PathKind {
                kind: "data".into(),
                name: None,
                path: None,
                instead: "d".into(),
            },
        ],
    }
}

/// (the text under each finding's span, its value, root, kind) in `text` as `language`.
fn found(language: Language, text: &str) -> Vec<(String, String, String, String)> {
    let check = check();
    let roots = roots();
    let regions = crate::text::scan(language, text);
    let mut out = Vec::new();
    find(&check, &roots, language, text, &regions, &mut |f| {
        out.push((
            text[f.span.clone()].to_string(),
            f.value.clone(),
            f.root.to_string(),
            f.kind.map_or("-", |k| k.kind.as_str()).to_string(),
        ))
    });
    out
}

fn spans(language: Language, text: &str) -> Vec<String> {
    found(language, text).into_iter().map(|f| f.0).collect()
}

#[test]
fn roots_and_file_uris() {
    let finder_check = HostPathCheck::default();
    let roots = roots();
    let mut sink = |_: Found<'_>| {};
    let finder = Finder {
        check: &finder_check,
        roots: &roots,
        starts: root_starts(&roots),
        out: &mut sink,
    };
    for yes in [
        "/mnt",
        "/mnt/shared/x",
        "~/data",
        "/home/me",
        "file:///datasets/x",
        "FILE:/data/y",
        "file://localhost/mnt/z?mode=ro",
    ] {
        assert!(finder.locate(yes, false).is_some(), "{yes}");
    }
    for no in [
        "/mnt2",
        "mnt/x",
        "~user",
        "~",
        "~/",
        "",
        "https://x",
        "/usr/lib",
        "$DOCS_DIR/x",
        "file://verl/trainer/config",
        "file://../../verl/config",
        "file://",
        "file:biogrid.db?mode=ro",
        "file:///usr/share/x",
        "file://host/mnt/x",
        "$HOME/data",
    ] {
        assert!(finder.locate(no, false).is_none(), "{no}");
    }
    assert_eq!(finder.locate("$HOME/data", true).unwrap().0, "~/data");
    assert_eq!(finder.locate("${HOME}/x", true).unwrap().0, "~/x");
    assert!(finder.locate("$HOMEDIR/x", true).is_none());
    assert_eq!(
        finder.locate("file:///datasets/x", false).unwrap().1,
        "/datasets"
    );
}

#[test]
fn python_values_and_their_kinds() {
    let text = r#"
CORPUS = "/mnt/shared/handbook"
model_path = os.path.expanduser("~/models/qwen")
save_path = os.path.expanduser("~/ReTool/data/train.parquet")
parser.add_argument(
    "--local_save_dir", default="~/data/gsm8k", help="The save directory."
)
load(ckpt="/data/mcore_ckpt/x")
"#;
    let f = found(Language::Python, text);
    let kinds: Vec<(&str, &str)> = f.iter().map(|x| (x.1.as_str(), x.3.as_str())).collect();
    assert_eq!(
        kinds,
        vec![
            ("/mnt/shared/handbook", "data"),
            ("~/models/qwen", "a model"),
            ("~/ReTool/data/train.parquet", "an output folder"),
            ("~/data/gsm8k", "an output folder"),
            ("/data/mcore_ckpt/x", "a checkpoint"),
        ]
    );
    assert_eq!(f[0].0, "\"/mnt/shared/handbook\"");
}

#[test]
fn python_values_that_are_not_paths_here() {
    let text = r#"
if source.startswith("file://"):
    conn = sqlite3.connect("file:biogrid.db?mode=ro", uri=True)
hydra = "file://verl/trainer/config"
requests.get(API_BASE + "/data/v1/health")
ENDPOINT = f"{API_BASE}" + "/home/feed"
path += "/data/x"
PROMPT = ("Dataset files are in "
    "/home/me/input/. Use the shell.")
HELP = "/data/x is where the corpus was. Ask the platform."
cache = os.path.expanduser(config.get("cache_dir", "~/.cache/verl/rlhf"))
sandbox.write_text("/home/me/workdir/tests.json", "{}")
self.sandbox.files.write("/mnt/x", data)
home: str = "/home/user"
config(sandbox_home="/home/ubuntu")
nothing = "~"
"#;
    assert_eq!(spans(Language::Python, text), Vec::<String>::new());
}

#[test]
fn shell_words() {
    let text = r#"
data.train_files=$HOME/data/gsm8k/train.parquet \
    actor_rollout_ref.model.path="$HOME/models/Qwen2-7B" \
    --local-dir ${HOME}/data/x
RAY_DATA_HOME=${RAY_DATA_HOME:-"${HOME}/verl"}
CKPT=${CKPT-/data/ckpt/a}
docker run -v $HOME/.cache:/root/.cache "$BASE"/data/x
cd "$HOME"
echo $HOME
"#;
    let f = found(Language::Shell, text);
    let got: Vec<(&str, &str)> = f.iter().map(|x| (x.0.as_str(), x.3.as_str())).collect();
    assert_eq!(
        got,
        vec![
            ("$HOME/data/gsm8k/train.parquet", "data"),
            ("$HOME/models/Qwen2-7B", "a model"),
            ("${HOME}/data/x", "data"),
            ("${HOME}/verl", "data"),
            ("/data/ckpt/a", "a checkpoint"),
        ]
    );
}

#[test]
fn yaml_values_blocks_and_interpolations() {
    let text = r#"
hydra:
  searchpath:
    - file://verl/trainer/config
actor_rollout_ref:
  model:
    # the base
    path: ~/models/deepseek
  data:
    train_files:
      - /data/a.parquet
critic:
  tokenizer_path: ${oc.select:actor_rollout_ref.model.path,"~/models/x"}
  env: ${oc.env:DATA,/mnt/y}
run: |
  python3 prep.py --local_dir ~/data/math
  ls $HOME/.cache
notes: |
  /data/not/a/script
"#;
    let f = found(Language::Yaml, text);
    let got: Vec<(&str, &str)> = f.iter().map(|x| (x.0.as_str(), x.3.as_str())).collect();
    assert_eq!(
        got,
        vec![
            ("~/models/deepseek", "a model"),
            ("/data/a.parquet", "data"),
            ("~/models/x", "a model"),
            ("/mnt/y", "data"),
            ("~/data/math", "data"),
        ]
    );
}

#[test]
fn toml_and_json_values() {
    assert_eq!(
        found(
            Language::Toml,
            "[model]\ncheckpoint_dir = \"/scratch/ck\"\n"
        )
        .into_iter()
        .map(|f| (f.0, f.3))
        .collect::<Vec<_>>(),
        vec![("\"/scratch/ck\"".to_string(), "a checkpoint".to_string())]
    );
    assert_eq!(
        spans(
            Language::Json,
            r#"{"corpus": "file:///datasets/handbook", "c": "file://x"}"#
        ),
        vec!["\"file:///datasets/handbook\"".to_string()]
    );
}

#[test]
fn notebook_code_cells() {
    let text = r#"{"cells": [
 {"cell_type": "markdown", "source": ["/data/prose.parquet\n"]},
 {"cell_type": "code", "source": [
  "model_path = os.path.expanduser(\"~/Qwen/Qwen3\")\n",
  "conn = sqlite3.connect(\"file:biogrid.db?mode=ro\", uri=True)\n"
 ]}
]}"#;
    let f = found(Language::Notebook, text);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, "\\\"~/Qwen/Qwen3\\\"");
    assert_eq!(f[0].1, "~/Qwen/Qwen3");
    assert_eq!(f[0].3, "a model");
}

#[test]
fn helpers() {
    assert_eq!(parameter_default("${A:-\"x y\"}"), Some(("A", 6..9)));
    assert_eq!(parameter_default("${A}"), None);
    assert_eq!(parameter_default("${A:-x}y"), None);
    assert_eq!(parameter_default("${A:-${B:-c}}"), Some(("A", 5..12)));
    assert_eq!(block_scalar_key("run: |\n  x\n", 7), Some("run"));
    assert_eq!(block_scalar_key("- |\n  x\n", 4), Some(""));
    assert_eq!(block_scalar_key("a: b\n  x\n", 5), None);
    assert_eq!(
        omegaconf_defaults("${oc.select:a.b, '/x'} ${oc.env:Y}"),
        vec![18..20]
    );
    assert_eq!(assigned_name("local_dir: str ="), Some("local_dir"));
    assert_eq!(assigned_name("x =="), None);
    assert_eq!(statement_target("self.out = f("), Some("self.out"));
    assert_eq!(statement_target("OUT: str = "), Some("OUT"));
    assert_eq!(statement_target("if x == "), None);
    assert_eq!(key_on_line("a = 1\n\"k.x\": ", 13), "k.x");
}
