//! AD-Bench as a suite, in process: params are checked with their field,
//! items carry their whole setting, the declared stages form a valid
//! pipeline, and solve → replay → score → pass-at-k → report gives the
//! oracle 100% and a mutant its label, with a failed run counted as wrong.

use adfarm_adbench::suite::dataset::{Params, Setting, DATASET, MAX_PER_TIER};
use adfarm_adbench::suite::judge::JUDGE;
use adfarm_adbench::suite::stages::{CORRECT, COVERAGE, PASS_AT_K, REPLAY, SCORE};
use adfarm_adbench::tasks::{load, shipped, tasks_root, Split};
use adfarm_adbench::AdBench;
use adfarm_llm::{ChatRequest, Choice, Completion, LlmError, Provider, ToolCall};
use adfarm_proto::report::{Section, Value as Cell};
use adfarm_proto::{
    Cell as Coordinates, Item, JobId, JobResult, Pipeline, Role, SweepSpec, Variant, Verdict, SOLVE,
};
use adfarm_suite::{
    DataError, Models, ReportInput, Solution, StageJob, StageModels, Suite, SweepView,
};
use async_trait::async_trait;
use serde_json::json;

use crate::{calculator, no_tokens};

fn suite() -> AdBench {
    AdBench::with_calculator(calculator())
}

fn field(params: serde_json::Value) -> String {
    match Params::read(&params).and_then(|p| p.select()) {
        Err(DataError::Param { field, .. }) => field,
        other => panic!("{params}: {other:?}"),
    }
}

#[test]
fn the_shipped_tasks_are_the_files_in_the_tree() {
    for split in [Split::Public, Split::Holdout] {
        let ids = |t: Vec<adfarm_adbench::tasks::Task>| {
            t.into_iter()
                .map(|t| (t.id.clone(), t.question.clone(), t.steps.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(shipped(split).expect("shipped")),
            ids(load(&tasks_root(), split).expect("files"))
        );
    }
}

#[test]
fn params_are_checked_with_their_field() {
    assert_eq!(field(json!({"split": "train"})), "params.split");
    assert_eq!(field(json!({"env_dates": []})), "params.env_dates");
    assert_eq!(
        field(json!({"env_dates": ["2026-07-25", "2026-02-30"]})),
        "params.env_dates[1]"
    );
    assert_eq!(
        field(json!({"env_dates": ["2026-07-25", "2026-07-25"]})),
        "params.env_dates[1]"
    );
    assert_eq!(
        field(json!({"env_dates": ["1999-01-01"]})),
        "params.env_dates[0]"
    );
    assert_eq!(field(json!({"hour": 24})), "params.hour");
    assert_eq!(field(json!({"per_tier": 0})), "params.per_tier");
    assert_eq!(
        field(json!({"tasks": ["L1-001", "L9-999"]})),
        "params.tasks[1]"
    );
    assert_eq!(field(json!({"dates": []})), "params.dates");

    let s = suite();
    let check = |name: &str, params: serde_json::Value| {
        s.check_solution(&adfarm_suite::solution_entry(name, "p", 64, params))
    };
    assert!(check("react", json!({"max_turns": 6})).is_ok());
    assert!(matches!(
        check("react", json!({"max_turns": 0})),
        Err(DataError::Param { field, .. }) if field == "params.max_turns"
    ));
    assert!(matches!(
        check("oracle", json!({"max_turns": 6})),
        Err(DataError::Param { .. })
    ));
    assert!(matches!(
        check("reflexion", json!({})),
        Err(DataError::UnknownSolution { .. })
    ));
}

#[test]
fn a_per_tier_cut_above_the_maximum_is_refused_by_field() {
    assert!(Params::read(&json!({ "per_tier": MAX_PER_TIER })).is_ok());
    for n in [MAX_PER_TIER + 1, 1_000_000_000_000] {
        match Params::read(&json!({ "per_tier": n })) {
            Err(DataError::Param { field, reason }) => {
                assert_eq!(field, "params.per_tier");
                assert!(reason.contains("at most 10000"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn items_are_tasks_on_dates_and_carry_their_setting() {
    let s = suite();
    let params = json!({"env_dates": ["2026-07-25", "2026-08-03"], "per_tier": 2});
    let items: Vec<Item> = s
        .items(DATASET, &params)
        .expect("items")
        .map(|i| i.expect("an item"))
        .collect();
    assert_eq!(items.len(), 2 * 3 * 2);
    assert_eq!(items[0].id, "L1-001@2026-07-25");
    assert_eq!(items[6].id, "L1-001@2026-08-03");
    let setting = Setting::of(&items[6]).expect("a setting");
    assert_eq!(setting.task.id, "L1-001");
    assert_eq!(setting.date.to_string(), "2026-08-03");
    assert_eq!(setting.split, Split::Public);
    assert_eq!(setting.item(), items[6]);
    // The holdout split is never in a default sweep.
    let default: Vec<Item> = s
        .items(DATASET, &json!({}))
        .expect("items")
        .map(|i| i.expect("an item"))
        .collect();
    assert_eq!(default.len(), 90);
    let holdout = s
        .items(DATASET, &json!({"split": "holdout"}))
        .expect("items")
        .count();
    assert_eq!(holdout, 30);
    assert!(s.items("questions", &json!({})).is_err());
}

fn sweep() -> SweepSpec {
    serde_json::from_value(json!({
        "name": "s",
        "seeds": [1, 2, 3],
        "suites": [{"name": "adbench", "datasets": ["tasks"], "params": {"per_tier": 1}}],
        "solutions": [{"name": "oracle", "provider": "none"}, {"name": "invented-number", "provider": "none"}],
        "providers": [],
    }))
    .expect("a sweep")
}

fn result(
    stage: &str,
    solution: &str,
    seed: u64,
    item: &Item,
    out: adfarm_suite::StageOutput,
) -> JobResult {
    JobResult {
        id: JobId(format!("{stage}-{solution}-{seed}-{}", item.id)),
        stage: stage.into(),
        cell: Coordinates {
            suite: "adbench".into(),
            dataset: DATASET.into(),
            solution: solution.into(),
            seed,
        },
        item: item.id.clone(),
        judge: None,
        output: out.output,
        scores: out.scores,
        usage: vec![],
    }
}

fn value(scores: &[adfarm_proto::Score], metric: &str) -> f64 {
    match scores
        .iter()
        .find(|s| s.metric == metric)
        .map(|s| &s.verdict)
    {
        Some(Verdict::Score(v)) => *v,
        other => panic!("{metric}: {other:?}"),
    }
}

/// Plays one episode of `agent` (a scripted one: it calls no model) and
/// stores it as the solve result of `solution`.
async fn episode(agent: &dyn Solution, solution: &str, seed: u64, item: &Item) -> JobResult {
    let models = Models {
        llm: &NoModel,
        embedder: None,
    };
    let solved = agent.solve(item, models, seed).await.expect("an episode");
    result(
        SOLVE,
        solution,
        seed,
        item,
        adfarm_suite::StageOutput {
            output: Some(solved.output),
            scores: solved.scores,
        },
    )
}

/// The suite's report sections over `results`.
fn report(s: &AdBench, spec: &SweepSpec, results: &[JobResult]) -> Vec<Section> {
    s.report(&ReportInput {
        spec,
        suite: &spec.suites[0],
        cells: &[],
        results,
    })
    .expect("sections")
}

/// Runs one stage job of `s` and stores its output as a result.
#[allow(clippy::too_many_arguments)]
async fn run_stage(
    s: &AdBench,
    name: &str,
    solution: &str,
    seed: u64,
    item: &Item,
    inputs: Vec<Option<JobResult>>,
    variant: &Variant,
    llm: Option<&dyn Provider>,
) -> JobResult {
    let coords = Coordinates {
        suite: "adbench".into(),
        dataset: DATASET.into(),
        solution: solution.into(),
        seed,
    };
    let out = s
        .run_stage(
            StageJob {
                stage: name,
                cell: &coords,
                item,
                variant,
                solution: None,
                inputs: &inputs,
            },
            StageModels {
                llm,
                embedder: None,
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", item.id));
    let mut r = result(name, solution, seed, item, out);
    r.judge = variant.column.clone();
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solve_replay_score_and_pass_at_k_give_the_oracle_full_marks() {
    let s = suite();
    let spec = sweep();
    let stages = s
        .stages(SweepView {
            spec: &spec,
            suite: &spec.suites[0],
        })
        .expect("stages");
    Pipeline {
        solutions: vec![0, 1],
        stages: stages.clone(),
    }
    .check()
    .expect("a valid pipeline");
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, [REPLAY, SCORE, PASS_AT_K]);

    let items: Vec<Item> = s
        .items(DATASET, &spec.suites[0].params)
        .expect("items")
        .map(|i| i.expect("an item"))
        .collect();
    assert_eq!(items.len(), 3);
    let variant = Variant::none();
    let mut results = Vec::new();
    for item in &items {
        let truth = run_stage(&s, REPLAY, "", 0, item, vec![], &variant, None).await;
        for solution in ["oracle", "invented-number"] {
            let agent = s
                .solution(
                    &spec
                        .solutions
                        .iter()
                        .find(|x| x.name == solution)
                        .expect("named")
                        .clone(),
                )
                .expect("a solution");
            let mut scored = Vec::new();
            for seed in [1, 2, 3] {
                let run = episode(agent.as_ref(), solution, seed, item).await;
                let score = run_stage(
                    &s,
                    SCORE,
                    solution,
                    seed,
                    item,
                    vec![Some(truth.clone()), Some(run.clone())],
                    &variant,
                    None,
                )
                .await;
                if solution == "oracle" {
                    assert_eq!(value(&score.scores, CORRECT), 100.0, "{}", item.id);
                    assert_eq!(value(&score.scores, COVERAGE), 100.0, "{}", item.id);
                } else {
                    assert_eq!(value(&score.scores, "label-Hal"), 100.0, "{}", item.id);
                }
                results.push(run);
                scored.push(score);
            }
            // The third run failed: Pass@k counts it as wrong.
            let inputs = if solution == "oracle" {
                vec![Some(scored[0].clone()), Some(scored[1].clone()), None]
            } else {
                scored.iter().cloned().map(Some).collect()
            };
            let passk = run_stage(&s, PASS_AT_K, solution, 0, item, inputs, &variant, None).await;
            if solution == "oracle" {
                assert!((value(&passk.scores, "pass@1") - 200.0 / 3.0).abs() < 1e-9);
                assert_eq!(value(&passk.scores, "pass@3"), 100.0);
                assert_eq!(value(&passk.scores, "pass^3"), 0.0);
            }
            results.extend(scored);
            results.push(passk);
        }
        results.push(truth);
    }

    let sections = report(&s, &spec, &results);
    let t = &sections[0].tables[0];
    assert_eq!(t.id, "pass-at-k");
    let col = |id: &str| t.columns.iter().position(|c| c.id == id).expect(id);
    let oracle = &t.rows[0];
    assert_eq!(oracle[0], Some(Cell::Text("oracle".into())));
    assert_eq!(oracle[col("overall-pass@3")], Some(Cell::Number(1.0)));
    match oracle[col("overall-pass@1")] {
        Some(Cell::Number(x)) => assert!((x - 2.0 / 3.0).abs() < 1e-9),
        ref other => panic!("{other:?}"),
    }
    // Table 3 counts the wrong episodes only: the mutant's answers are
    // right (its invented figure is beside the right one), so none shows
    // there, while the all-episodes table keeps its Hal on every episode.
    let mutant_all = |id: &str| {
        let t = sections[0]
            .tables
            .iter()
            .find(|t| t.id == id)
            .unwrap_or_else(|| panic!("table {id}"));
        let col = |c: &str| t.columns.iter().position(|x| x.id == c).expect(c);
        let row = t
            .rows
            .iter()
            .find(|r| {
                r[0] == Some(Cell::Text("invented-number".into()))
                    && r[col("tier")] == Some(Cell::Text("All".into()))
            })
            .expect("the mutant's row")
            .clone();
        (row, col("Hal"), col("err"), col("episodes"))
    };
    let (wrong, hal, err, episodes) = mutant_all("failures");
    assert_eq!(wrong[hal], Some(Cell::Integer(0)));
    assert_eq!(wrong[err], Some(Cell::Integer(0)));
    assert_eq!(wrong[episodes], Some(Cell::Integer(9)));
    let (all, hal, err, episodes) = mutant_all("labels-all-episodes");
    assert_eq!(all[hal], Some(Cell::Integer(9)));
    assert_eq!(all[err], Some(Cell::Integer(9)));
    assert_eq!(all[episodes], Some(Cell::Integer(9)));
}

/// A judge that says Hal exactly when the agent's final answer is not the
/// reference answer, and no other label; it grades the answer right only
/// when it is the reference answer word for word.
struct AnswerJudge;

#[async_trait]
impl Provider for AnswerJudge {
    fn model(&self) -> &str {
        "answer-judge"
    }
    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let case = &req.messages[1].content;
        let after = |tag: &str| {
            let at = case.find(tag).expect(tag) + tag.len();
            case[at..].lines().next().unwrap_or_default().to_string()
        };
        let hal = after("Reference answer: ") != after("Agent's final answer: ");
        assert_eq!(req.tools.len(), 1, "one verdict tool");
        Ok(Completion {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: "v".into(),
                name: req.tools[0].name.clone(),
                arguments: json!({"TE": false, "PE": false, "IF": false, "CE": false, "Hal": hal, "LC": false, "Correct": !hal})
                    .to_string(),
            }],
            usage: no_tokens("answer-judge", Role::Judge),
        })
    }
    async fn choose(&self, _req: &ChatRequest, _options: &[String]) -> Result<Choice, LlmError> {
        panic!("the judge only chats")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_is_set_against_the_checks_and_rows_follow_entry_labels() {
    let s = suite();
    let spec: SweepSpec = serde_json::from_value(json!({
        "name": "s",
        "seeds": [1],
        "judges": ["critic"],
        "suites": [{"name": "adbench", "datasets": ["tasks"], "params": {"per_tier": 1}}],
        "solutions": [
            {"name": "oracle", "provider": "a", "label": "oracle on a"},
            {"name": "invented-number", "provider": "b", "label": "mutant on b"},
        ],
        "providers": [
            {"name": "a", "kind": "local", "model": "model-a", "requests_per_minute": 60},
            {"name": "b", "kind": "local", "model": "model-b", "requests_per_minute": 60},
            {"name": "critic", "kind": "local", "model": "critic-model", "requests_per_minute": 60},
        ],
    }))
    .expect("a sweep");
    let stages = s
        .stages(SweepView {
            spec: &spec,
            suite: &spec.suites[0],
        })
        .expect("stages");
    let judge = stages
        .iter()
        .find(|st| st.name == JUDGE)
        .expect("a judge stage");
    assert_eq!(judge.after, [REPLAY, SOLVE, SCORE]);
    assert_eq!(judge.variants.len(), 1);
    let judge_variant = judge.variants[0].clone();

    let plain = Variant::none();
    let mut results = Vec::new();
    for item in s.items(DATASET, &spec.suites[0].params).expect("items") {
        let item = item.expect("an item");
        let truth = run_stage(&s, REPLAY, "", 0, &item, vec![], &plain, None).await;
        for entry in &spec.solutions {
            let label = entry.label();
            let agent = s.solution(entry).expect("a solution");
            let run = episode(agent.as_ref(), label, 1, &item).await;
            let scored = run_stage(
                &s,
                SCORE,
                label,
                1,
                &item,
                vec![Some(truth.clone()), Some(run.clone())],
                &plain,
                None,
            )
            .await;
            let judged = run_stage(
                &s,
                JUDGE,
                label,
                1,
                &item,
                vec![Some(truth.clone()), Some(run.clone()), Some(scored.clone())],
                &judge_variant,
                Some(&AnswerJudge),
            )
            .await;
            assert_eq!(value(&judged.scores, "judged"), 100.0);
            results.extend([run, scored, judged]);
        }
    }
    let sections = report(&s, &spec, &results);
    // Rows carry the entries' labels and their own providers' models.
    let t2 = &sections[0].tables[0];
    let named: Vec<(Option<Cell>, Option<Cell>)> = t2
        .rows
        .iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    assert_eq!(
        named,
        [
            (
                Some(Cell::Text("oracle on a".into())),
                Some(Cell::Text("model-a".into()))
            ),
            (
                Some(Cell::Text("mutant on b".into())),
                Some(Cell::Text("model-b".into()))
            ),
        ]
    );
    // The judge flags Hal exactly where the checks do (the mutant's three
    // episodes): κ = 1 on Hal; every other label both say no, κ undefined.
    let t = sections[0]
        .tables
        .iter()
        .find(|t| t.id == "judge-agreement")
        .expect("an agreement table");
    let col = |id: &str| t.columns.iter().position(|c| c.id == id).expect(id);
    let row = |label: &str| {
        t.rows
            .iter()
            .find(|r| r[col("label")] == Some(Cell::Text(label.into())))
            .unwrap_or_else(|| panic!("row {label}"))
    };
    let hal = row("Hal");
    assert_eq!(hal[col("judge")], Some(Cell::Text("critic".into())));
    assert_eq!(hal[col("model")], Some(Cell::Text("critic-model".into())));
    assert_eq!(hal[col("pairs")], Some(Cell::Integer(6)));
    assert_eq!(hal[col("judge-yes")], Some(Cell::Integer(3)));
    assert_eq!(hal[col("checks-yes")], Some(Cell::Integer(3)));
    assert_eq!(hal[col("kappa")], Some(Cell::Number(1.0)));
    assert_eq!(row("TE")[col("kappa")], None);
    assert_eq!(row("All")[col("pairs")], Some(Cell::Integer(36)));
    assert_eq!(row("All")[col("kappa")], Some(Cell::Number(1.0)));
    assert_eq!(row("All")[col("unreadable")], Some(Cell::Integer(0)));

    // The judge as a grader: it agrees with the rules on the oracle's clear
    // answers; the mutant's numeric answers (the reference beside an
    // invented figure) are ambiguous to the rules, which take the first
    // value (right), and the judge, deciding them, calls them wrong.
    let g = sections[0]
        .tables
        .iter()
        .find(|t| t.id == "llm-grader")
        .expect("an llm-grader table");
    let gcol = |id: &str| g.columns.iter().position(|c| c.id == id).expect(id);
    let grow = |agent: &str| {
        g.rows
            .iter()
            .find(|r| r[gcol("solution")] == Some(Cell::Text(agent.into())))
            .unwrap_or_else(|| panic!("row {agent}"))
    };
    let oracle = grow("oracle on a");
    assert_eq!(oracle[gcol("graded")], Some(Cell::Integer(3)));
    assert_eq!(oracle[gcol("agreement")], Some(Cell::Number(1.0)));
    assert_eq!(oracle[gcol("ambiguous")], Some(Cell::Integer(0)));
    assert_eq!(oracle[gcol("with-judge")], Some(Cell::Number(1.0)));
    let mutant = grow("mutant on b");
    let Some(Cell::Integer(ambiguous)) = mutant[gcol("ambiguous")] else {
        panic!("{mutant:?}")
    };
    assert!(ambiguous >= 1, "{mutant:?}");
    assert_eq!(mutant[gcol("decided")], Some(Cell::Integer(ambiguous)));
    assert_eq!(mutant[gcol("rules")], Some(Cell::Number(1.0)));
    assert_eq!(
        mutant[gcol("with-judge")],
        Some(Cell::Number((3 - ambiguous) as f64 / 3.0))
    );
}

/// A provider that fails the test if called: scripted agents call no model.
struct NoModel;

#[async_trait]
impl Provider for NoModel {
    fn model(&self) -> &str {
        "none"
    }
    async fn chat(&self, _req: &ChatRequest) -> Result<Completion, LlmError> {
        panic!("a scripted agent called the model")
    }
    async fn choose(&self, _req: &ChatRequest, _options: &[String]) -> Result<Choice, LlmError> {
        panic!("a scripted agent called the model")
    }
}
