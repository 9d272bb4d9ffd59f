use std::collections::HashMap;

use super::*;
use crate::formats::ConfigFormat;

/// Config files in memory, by path.
struct Files(HashMap<PathBuf, String>);

impl Files {
    fn new(files: &[(&str, &str)]) -> Files {
        Files(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), t.to_string()))
                .collect(),
        )
    }

    fn file(&self, path: &str) -> Arc<ConfigFile> {
        match self.load(Path::new(path)) {
            Some(Ok(f)) => f,
            _ => panic!("{path} does not load"),
        }
    }
}

impl ConfigSource for Files {
    fn load(&self, path: &Path) -> Option<Result<Arc<ConfigFile>, Arc<InvalidFile>>> {
        let text: Arc<str> = Arc::from(self.0.get(path)?.as_str());
        let shown: Arc<str> = Arc::from(
            path.strip_prefix("/p")
                .unwrap_or(path)
                .to_string_lossy()
                .as_ref(),
        );
        Some(
            match ConfigFile::parse(
                path.to_path_buf(),
                shown.clone(),
                text.clone(),
                ConfigFormat::Yaml,
            ) {
                Ok(f) => Ok(Arc::new(f)),
                Err(error) => Err(Arc::new(InvalidFile {
                    path: path.to_path_buf(),
                    shown,
                    text,
                    error,
                })),
            },
        )
    }

    fn is_dir(&self, dir: &Path) -> bool {
        self.0.keys().any(|p| p.starts_with(dir))
    }
}

fn composed(files: &Files, primary: &str) -> Composed {
    let place = Place {
        project_root: Path::new("/p"),
        experiment: Path::new("/p/exp"),
    };
    compose(files.file(primary), &place, files)
}

fn has(c: &Composed, path: &str) -> bool {
    c.tree.lookup(path).found
}

#[test]
fn nemo_rl_inheritance() {
    let files = Files::new(&[
        (
            "/p/exp/configs/grpo_math_1B.yaml",
            "loss_fn:\n  kl: 0.01\ncheckpointing:\n  keep_top_k: 3\n",
        ),
        (
            "/p/exp/configs/grpo_megatron.yaml",
            "defaults: grpo_math_1B.yaml\npolicy:\n  megatron: {enabled: true}\n",
        ),
        (
            "/p/exp/configs/recipes/llm/big.yaml",
            "defaults: ../../grpo_megatron.yaml\ngrpo:\n  steps: 20\n",
        ),
        ("/p/exp/configs/sft.yaml", "sft:\n  val_period: 10\n"),
        (
            "/p/exp/configs/sft_vlm.yaml",
            "defaults:\n  - sft.yaml\nsft:\n  val_batches: 1\n",
        ),
        (
            "/p/exp/configs/sft_avlm.yaml",
            "defaults:\n  - sft_vlm.yaml\npolicy:\n  x: 1\n",
        ),
    ]);
    let c = composed(&files, "/p/exp/configs/recipes/llm/big.yaml");
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    for key in [
        "checkpointing.keep_top_k",
        "loss_fn.kl",
        "policy.megatron.enabled",
        "grpo.steps",
    ] {
        assert!(has(&c, key), "{key}");
    }
    assert_eq!(c.files.len(), 3);
    let c = composed(&files, "/p/exp/configs/sft_avlm.yaml");
    assert!(has(&c, "sft.val_period") && has(&c, "sft.val_batches") && has(&c, "policy.x"));
    assert!(!has(&c, "sft.val_perid"));
    assert!(c.judged("anything"));
    // A key's origin names the file it was written in.
    let at = c.tree.lookup("sft.val_period").deepest;
    assert_eq!(
        &*c.files[c.tree.node(at).origin.file as usize].shown,
        "exp/configs/sft.yaml"
    );
}

/// verl's layout: a recipe config with a search path into the framework's config folder,
/// whose trainer config is composed of group options with packages, nested groups (`../optim`)
/// and plain configs of the same group.
fn verl() -> Files {
    Files::new(&[
        (
            "/p/recipe/dapo/config/dapo_trainer.yaml",
            "hydra:\n  searchpath:\n    - file://verl/trainer/config\ndefaults:\n  - ppo_trainer\n  - _self_\ndata:\n  gen_batch_size: 1\n",
        ),
        (
            "/p/verl/trainer/config/ppo_trainer.yaml",
            "defaults:\n  - actor@actor_rollout_ref.actor: dp_actor\n  - data@data: legacy_data\n  - reward_manager@reward_manager\n  - algorithm@algorithm.rollout_correction: rollout_correction\n  - _self_\ntrainer:\n  total_epochs: 30\n",
        ),
        (
            "/p/verl/trainer/config/actor/dp_actor.yaml",
            "defaults:\n  - ../optim@optim: fsdp\n  - actor\n  - _self_\nstrategy: fsdp\n",
        ),
        ("/p/verl/trainer/config/actor/actor.yaml", "ppo_epochs: 1\n"),
        ("/p/verl/trainer/config/optim/fsdp.yaml", "lr: 1.0e-6\nlr_warmup_steps: -1\nbetas: [0.9, 0.999]\n"),
        ("/p/verl/trainer/config/optim/adam.yaml", "lr: 1.0e-3\namsgrad: false\n"),
        ("/p/verl/trainer/config/data/legacy_data.yaml", "train_files: x\n"),
        ("/p/verl/trainer/config/reward_manager.yaml", "name: naive\n"),
        ("/p/verl/trainer/config/algorithm/rollout_correction.yaml", "rollout_is_threshold: null\n"),
    ])
}

#[test]
fn hydra_groups_packages_and_search_paths() {
    let files = verl();
    let c = composed(&files, "/p/recipe/dapo/config/dapo_trainer.yaml");
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    for key in [
        "actor_rollout_ref.actor.optim.lr",
        "actor_rollout_ref.actor.optim.lr_warmup_steps",
        "actor_rollout_ref.actor.optim.betas.1",
        "actor_rollout_ref.actor.ppo_epochs",
        "actor_rollout_ref.actor.strategy",
        "algorithm.rollout_correction.rollout_is_threshold",
        "reward_manager.name",
        "data.train_files",
        "data.gen_batch_size",
        "trainer.total_epochs",
        "hydra.searchpath",
    ] {
        assert!(has(&c, key), "{key}");
    }
    for key in [
        "actor_rollout_ref.actor.optim.lr_warmup_step",
        "optim.lr",
        "actor.ppo_epochs",
        "actor_rollout_ref.actor.optim.betas.2",
    ] {
        assert!(!has(&c, key), "{key}");
    }
}

#[test]
fn overrides_win_from_the_primary_down() {
    let mut files = verl();
    files.0.insert(
        PathBuf::from("/p/recipe/dapo/config/adam.yaml"),
        "hydra:\n  searchpath:\n    - file://verl/trainer/config\ndefaults:\n  - ppo_trainer\n  - override /optim@actor_rollout_ref.actor.optim: adam\n  - _self_\n".into(),
    );
    // The override names the group and package of the entry deep in the tree.
    let c = composed(&files, "/p/recipe/dapo/config/adam.yaml");
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert!(has(&c, "actor_rollout_ref.actor.optim.amsgrad"));
    assert!(!has(&c, "actor_rollout_ref.actor.optim.lr_warmup_steps"));
}

#[test]
fn search_paths_fall_back_to_the_experiment() {
    let files = Files::new(&[
        (
            "/p/exp/main.yaml",
            "hydra:\n  searchpath: [file://conf]\ndefaults: [base]\n",
        ),
        ("/p/exp/conf/base.yaml", "k: 1\n"),
    ]);
    let c = composed(&files, "/p/exp/main.yaml");
    assert!(c.problems.is_empty() && has(&c, "k"));
}

#[test]
fn what_cannot_be_resolved_is_never_guessed() {
    let files = Files::new(&[
        (
            "/p/exp/main.yaml",
            "hydra:\n  searchpath:\n    - pkg://verl.trainer.config\ndefaults:\n  - ppo_trainer\n  - _self_\na: 1\n",
        ),
        ("/p/exp/loop_a.yaml", "defaults: loop_b.yaml\n"),
        ("/p/exp/loop_b.yaml", "defaults: loop_a.yaml\n"),
        ("/p/exp/chosen.yaml", "defaults:\n  - model: ???\n  - optional logger: none\n  - _self_\nmodel:\n  x: 1\nb: 2\n"),
        ("/p/exp/broken_base.yaml", "defaults: bad.yaml\n"),
        ("/p/exp/bad.yaml", "a: [1\n"),
        ("/p/exp/outside.yaml", "defaults: ../../etc/x.yaml\n"),
        ("/etc/x.yaml", "secret: 1\n"),
    ]);
    let c = composed(&files, "/p/exp/main.yaml");
    assert!(!c.judged("a"));
    assert_eq!(c.problems.len(), 1);
    let p = &c.problems[0];
    assert_eq!(
        &p.text[p.span.start as usize..p.span.end as usize],
        "ppo_trainer"
    );
    assert_eq!(
        p.kind,
        ProblemKind::Missing {
            name: "ppo_trainer".into(),
            searched: vec![
                "exp".into(),
                "pkg://verl.trainer.config (a Python package: not read)".into()
            ],
        }
    );
    let c = composed(&files, "/p/exp/loop_a.yaml");
    assert!(matches!(
        c.problems[..],
        [Problem {
            kind: ProblemKind::Cycle(_),
            ..
        }]
    ));
    let c = composed(&files, "/p/exp/chosen.yaml");
    assert!(c.problems.is_empty());
    assert!(!c.judged("model.y") && !c.judged("model") && c.judged("b") && c.judged("models.y"));
    let c = composed(&files, "/p/exp/broken_base.yaml");
    assert!(
        matches!(&c.problems[..], [Problem { kind: ProblemKind::Invalid(m), .. }] if m.starts_with("line "))
    );
    assert!(!c.judged("x"));
    let c = composed(&files, "/p/exp/outside.yaml");
    assert!(matches!(
        c.problems[..],
        [Problem {
            kind: ProblemKind::Missing { .. },
            ..
        }]
    ));
    assert!(!has(&c, "secret"));
}

#[test]
fn self_order_and_package_headers() {
    let files = Files::new(&[
        ("/p/e/base.yaml", "a:\n  b: 1\n"),
        (
            "/p/e/self_first.yaml",
            "defaults:\n  - _self_\n  - base\na: 5\n",
        ),
        ("/p/e/self_last.yaml", "defaults:\n  - base\na: 5\n"),
        ("/p/e/g/global.yaml", "# @package _global_\ntop: 1\n"),
        ("/p/e/g/plain.yaml", "inner: 1\n"),
        (
            "/p/e/headers.yaml",
            "defaults:\n  - g: global\n  - g@_here_: plain\n  - g@x.y: plain\n",
        ),
    ]);
    assert!(has(&composed(&files, "/p/e/self_first.yaml"), "a.b"));
    assert!(!has(&composed(&files, "/p/e/self_last.yaml"), "a.b"));
    let c = composed(&files, "/p/e/headers.yaml");
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert!(has(&c, "top") && has(&c, "inner") && has(&c, "x.y.inner"));
}

#[test]
fn bounded_by_depth() {
    let mut files = Vec::new();
    for i in 0..(MAX_DEPTH + 5) {
        files.push((
            format!("/p/e/c{i}.yaml"),
            format!("defaults: c{}.yaml\nk{i}: 1\n", i + 1),
        ));
    }
    let files = Files(
        files
            .into_iter()
            .map(|(p, t)| (PathBuf::from(p), t))
            .collect(),
    );
    let c = composed(&files, "/p/e/c0.yaml");
    assert!(matches!(
        c.problems[..],
        [Problem {
            kind: ProblemKind::TooLarge,
            ..
        }]
    ));
    assert!(!c.judged("k0"));
}

#[test]
fn packages_as_hydra_places_them() {
    assert_eq!(final_package("", None, None, "optim"), "optim");
    assert_eq!(
        final_package("a.b", Some("optim"), None, "../optim"),
        "a.b.optim"
    );
    assert_eq!(final_package("a.b", None, Some("_global_"), "g"), "");
    assert_eq!(final_package("a.b", None, Some("x.y"), "g"), "x.y");
    assert_eq!(final_package("a.b", Some("_here_"), None, "g"), "a.b");
    assert_eq!(final_package("a", Some("_global_.z"), None, "g"), "z");
    assert_eq!(final_package("", None, None, "db/mysql"), "db.mysql");
    assert_eq!(clean("actor/../optim").as_deref(), Some("optim"));
    assert_eq!(clean("../x"), None);
    assert_eq!(
        normalize(Path::new("/p/a/../b/./c")),
        PathBuf::from("/p/b/c")
    );
}
