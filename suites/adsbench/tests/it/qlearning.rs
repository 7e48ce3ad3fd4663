//! The tabular Q-learning baseline end to end: training is a pure function
//! of the scenario, the parameters and the sweep's seed, its market seeds
//! are disjoint from the evaluated scenario's, the sweep's seed changes
//! its exploration, the trained agent acts only by noted keyword-bid
//! updates with its table frozen, the training record round-trips through
//! JSON, the `train` stage trains each entry per seed and that seed's
//! solve plays that table, the solution's parameters are checked by
//! field; and (ignored) the comparison with `fixed-bid` and the bandits
//! the README tables.

use super::bandits::assert_arm_changes;
use super::stored_result;
use adfarm_adsbench::suite::assignment::Assignment;
use adfarm_adsbench::suite::gauntlet::DATASET;
use adfarm_adsbench::suite::outcome::{self, Outcome};
use adfarm_adsbench::suite::qlearning::stage::TRAIN;
use adfarm_adsbench::suite::qlearning::{
    self, training_seeds, QAgent, QConfig, Trained, STATES, TRAIN_SEED_OFFSET,
};
use adfarm_adsbench::suite::scenario::Scenario;
use adfarm_adsbench::suite::{Scripted, FIXED_BID, LINUCB, Q_LEARNING, THOMPSON};
use adfarm_adsbench::AdsBench;
use adfarm_proto::{Cell, Item, JobResult, Output, Scope, SolutionSpec, SweepSpec, Variant};
use adfarm_suite::{DataError, Models, NoModel, StageJob, StageModels, Suite, SweepView};
use serde_json::json;
use std::collections::BTreeSet;

/// The bandits' small scenario of `seed`: 3 days, 4,000 searches a day, a
/// decision every 6 hours.
fn small(seed: u64) -> Scenario {
    Scenario {
        seed,
        start_date: "2025-03-03".into(),
        days: 3,
        opportunities_per_day: 4_000.0,
        cadence: 6,
        ..Scenario::nth(0)
    }
}

fn spec(name: &str, params: serde_json::Value) -> SolutionSpec {
    adfarm_suite::solution_entry(name, "none", 64, params)
}

/// Three training episodes: enough to visit states, quick in debug.
fn short() -> QConfig {
    QConfig {
        episodes: 3,
        ..QConfig::default()
    }
}

/// The scripted account's keyword bids, micros (the arms' base).

#[test]
fn training_gives_the_same_table_bytes_from_the_same_seeds() {
    let s = small(1);
    let a = qlearning::train(&s, &short(), 1, || true).expect("trains");
    let b = qlearning::train(&s, &short(), 1, || true).expect("trains");
    assert_eq!(a.table.bytes(), b.table.bytes());
    assert_eq!(a, b);
    assert!(a.table.visited() > 0, "the table learned something");
    assert_eq!(a.table.values.len(), STATES);
    // Every training episode ran its twelve decisions and explored some.
    assert!(a.episodes.iter().all(|e| e.decisions == 12), "{a:?}");
    assert!(a.episodes.iter().any(|e| e.explored > 0), "{a:?}");
    let other = qlearning::train(&small(2), &short(), 1, || true).expect("trains");
    assert_ne!(a.table.bytes(), other.table.bytes(), "another scenario");
}

#[test]
fn training_seeds_are_disjoint_from_the_evaluated_scenarios_seed() {
    let s = small(7);
    let trained = qlearning::train(&s, &short(), 1, || true).expect("trains");
    let seeds: Vec<u64> = trained.episodes.iter().map(|e| e.seed).collect();
    assert_eq!(seeds, [1_000_007, 1_000_008, 1_000_009]);
    assert_eq!(seeds, training_seeds(7, 3));
    assert_eq!(trained.scenario_seed, 7);
    // No training seed is the scenario's own, nor a generated scenario's
    // (1 to 1,000), for any generated scenario and the largest run.
    for seed in 1..=1_000u64 {
        for t in training_seeds(seed, qlearning::MAX_EPISODES) {
            assert_ne!(t, seed);
            assert!(t > 1_000, "{seed}: {t}");
        }
    }
    // Near the top of the range the seeds wrap and still miss it.
    let top = u64::MAX - 2;
    let wrapped = training_seeds(top, 8);
    assert!(wrapped.iter().all(|t| *t != top), "{wrapped:?}");
    assert_eq!(wrapped[0], top.wrapping_add(TRAIN_SEED_OFFSET));
}

#[test]
fn the_trained_agent_acts_only_by_noted_bid_updates_with_its_table_frozen() {
    let s = small(1);
    let trained = qlearning::train(&s, &short(), 1, || true).expect("trains");
    let mut agent = QAgent::frozen(trained.table.clone());
    let o = outcome::run(&s, &mut agent, || true).expect("runs");
    assert_eq!(o.failed_decisions, 0, "every API call was valid");
    assert_eq!(o.decisions, 12);
    assert_eq!(
        agent.table().bytes(),
        trained.table.bytes(),
        "evaluation leaves the table as trained"
    );
    let steps = agent.steps();
    assert_eq!(steps.len(), 12);
    assert!(steps.iter().all(|st| st.arm == st.greedy && !st.explored));
    let (last, scored) = steps.split_last().expect("steps");
    assert!(scored.iter().all(|st| st.reward.is_some()));
    assert_eq!(last.reward, None, "nothing reads the last interval");
    // Every change is a keyword bid at base × the noted arm, and the note
    // cites the cost it read.
    let changes = o.changes.as_ref().expect("a change set");
    let moved = steps.iter().any(|st| st.arm != 2);
    assert_eq!(!changes.is_empty(), moved, "a change exactly when off ×1.0");
    assert_arm_changes(Q_LEARNING, changes);
    // The solution's episode is this one: it trains the same table, then
    // plays it frozen.
    let solution = Scripted::from_spec(&spec(Q_LEARNING, json!({"episodes": 3})))
        .expect("q-learning")
        .episode(&s, 1, None, || true)
        .expect("runs");
    assert_eq!(solution.digest, o.digest);
}

/// A sweep of `fixed-bid` and two `q-learning` entries (3 and 4
/// training episodes), seeds 1 and 2.
fn sweep() -> SweepSpec {
    serde_json::from_value(json!({
        "name": "q",
        "suites": [{"name": "adsbench", "datasets": ["scenarios"]}],
        "solutions": [
            {"name": FIXED_BID, "provider": "none"},
            {"name": Q_LEARNING, "provider": "none", "params": {"episodes": 3}},
            {"name": Q_LEARNING, "label": "q-long", "provider": "none", "params": {"episodes": 4}}
        ],
        "providers": [{"name": "none", "kind": "openai-compatible", "model": "none",
                       "requests_per_minute": 1.0}],
        "seeds": [1, 2]
    }))
    .expect("a sweep")
}

/// The stored result of a `train` job on `item` under sweep seed `seed`.
fn stored(item: &Item, solution: &str, seed: u64, output: Output) -> JobResult {
    stored_result(TRAIN, solution, &item.id, seed, output, Vec::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_train_stage_trains_each_entry_per_seed_and_that_seeds_solve_plays_its_table() {
    let suite = AdsBench::default();
    let sweep = sweep();
    let view = SweepView {
        spec: &sweep,
        suite: &sweep.suites[0],
    };
    let stages = suite.stages(view).expect("stages");
    let train = stages
        .iter()
        .find(|s| s.name == TRAIN)
        .expect("a train stage");
    assert!(train.read_by_solve && train.after.is_empty());
    assert_eq!(train.scope, Scope::Run, "one job per item, entry and seed");
    assert_eq!(train.solutions, [Q_LEARNING, "q-long"]);
    let mut plain = sweep.clone();
    plain.solutions.truncate(1);
    let plain_view = SweepView {
        spec: &plain,
        suite: &plain.suites[0],
    };
    assert!(
        suite
            .stages(plain_view)
            .expect("stages")
            .iter()
            .all(|s| s.name != TRAIN),
        "no q-learning, no training"
    );

    // The job trains the entry's table on the item's scenario under its
    // cell's seed.
    let item = small(1).item(0);
    let entry = &sweep.solutions[1];
    let cell = Cell {
        suite: "adsbench".into(),
        dataset: "scenarios".into(),
        solution: Q_LEARNING.into(),
        seed: 1,
    };
    let none = Variant::none();
    fn job<'a>(
        cell: &'a Cell,
        item: &'a Item,
        variant: &'a Variant,
        entry: &'a SolutionSpec,
    ) -> StageJob<'a> {
        StageJob {
            stage: TRAIN,
            cell,
            item,
            variant,
            solution: Some(entry),
            inputs: &[],
        }
    }
    let out = suite
        .run_stage(job(&cell, &item, &none, entry), StageModels::default())
        .await
        .expect("trains")
        .output
        .expect("an output");
    let trained: Trained = serde_json::from_value(out.meta.clone()).expect("a trained record");
    assert_eq!(
        trained,
        qlearning::train(&small(1), &short(), 1, || true).expect("trains")
    );
    assert_eq!(trained.sweep_seed, 1);

    // That seed's solve plays the table: the same episode as a solve
    // that trains for itself; another seed's solve refuses it.
    let llm = NoModel;
    let models = Models {
        llm: &llm,
        embedder: None,
    };
    let solution = suite.solution(entry).expect("q-learning");
    let result = stored(&item, Q_LEARNING, 1, out);
    let own = solution.solve(&item, models, 1).await.expect("solves");
    let read = solution
        .solve_reading(&item, models, 1, std::slice::from_ref(&result))
        .await
        .expect("solves");
    assert_eq!(read, own);
    let err = solution
        .solve_reading(&item, models, 2, std::slice::from_ref(&result))
        .await
        .expect_err("seed 1's table");
    assert!(
        err.to_string()
            .contains("trained under sweep seed 1, not 2"),
        "{err}"
    );
    // A table trained with other parameters is refused, naming the stage.
    let long = suite.solution(&sweep.solutions[2]).expect("q-long");
    let err = long
        .solve_reading(&item, models, 1, std::slice::from_ref(&result))
        .await
        .expect_err("another entry's table");
    assert!(
        err.to_string().contains("scenario-0: train")
            && err.to_string().contains("trained with other parameters"),
        "{err}"
    );

    // A gauntlet task trains on the scenario it runs as, and its solves
    // play that table frozen through the task: the same episode as a
    // solve that trains for itself.
    let task = suite
        .items(DATASET, &json!({}))
        .expect("the gauntlet")
        .next()
        .expect("a task")
        .expect("an item");
    let out = suite
        .run_stage(job(&cell, &task, &none, entry), StageModels::default())
        .await
        .expect("runs")
        .output
        .expect("an output");
    let on_task: Trained = serde_json::from_value(out.meta.clone()).expect("a trained record");
    let as_scenario = Assignment::of(&task)
        .expect("a task")
        .scenario()
        .expect("its scenario");
    assert_eq!(
        on_task,
        qlearning::train(&as_scenario, &short(), 1, || true).expect("trains")
    );
    let task_result = stored(&task, Q_LEARNING, 1, out);
    assert_eq!(
        solution
            .solve_reading(&task, models, 1, std::slice::from_ref(&task_result))
            .await
            .expect("solves"),
        solution.solve(&task, models, 1).await.expect("solves")
    );
    // Another item's table is refused, naming the seeds.
    let err = solution
        .solve_reading(&task, models, 1, &[result])
        .await
        .expect_err("the scenario's table");
    assert!(
        err.to_string().contains(&format!(
            "trained for scenario seed 1, not {}",
            as_scenario.seed
        )),
        "{err}"
    );
}

#[test]
fn the_training_record_round_trips_through_json() {
    let trained = qlearning::train(&small(3), &short(), 1, || true).expect("trains");
    let text = serde_json::to_string(&trained).expect("serialises");
    let back: Trained = serde_json::from_str(&text).expect("parses");
    assert_eq!(back, trained);
    assert_eq!(back.table.bytes(), trained.table.bytes());
    assert_eq!(serde_json::to_string(&back).expect("serialises"), text);
}

#[test]
fn q_learning_is_a_solution_whose_parameters_are_checked_with_their_field() {
    let suite = AdsBench::default();
    assert!(suite.solutions().iter().any(|n| n == Q_LEARNING));
    let ok = Scripted::from_spec(&spec(
        Q_LEARNING,
        json!({"episodes": 4, "epsilon": 1, "alpha": 0.5, "gamma": 0}),
    ))
    .expect("valid");
    assert_eq!(
        ok,
        Scripted::QLearning(QConfig {
            episodes: 4,
            epsilon: 1.0,
            alpha: 0.5,
            gamma: 0.0,
        })
    );
    assert_eq!(
        Scripted::from_spec(&spec(Q_LEARNING, json!({}))).expect("defaults"),
        Scripted::QLearning(QConfig::default())
    );
    for (params, field) in [
        (json!({"episodes": 0}), "params.episodes"),
        (json!({"episodes": 65}), "params.episodes"),
        (json!({"episodes": 2.5}), "params.episodes"),
        (json!({"epsilon": 0}), "params.epsilon"),
        (json!({"alpha": 1.5}), "params.alpha"),
        (json!({"gamma": 1}), "params.gamma"),
        (json!({"nu": 1}), "params.nu"),
    ] {
        match suite.check_solution(&spec(Q_LEARNING, params.clone())) {
            Err(DataError::Param { field: got, .. }) => assert_eq!(got, field, "{params}"),
            other => panic!("{params}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q_learning_explores_from_the_sweeps_seed_on_the_same_training_markets() {
    // Training on the same market seeds under two sweep seeds explores
    // differently and learns two tables.
    let s = small(1);
    let one = qlearning::train(&s, &short(), 1, || true).expect("trains");
    let two = qlearning::train(&s, &short(), 2, || true).expect("trains");
    let seeds = |t: &Trained| t.episodes.iter().map(|e| e.seed).collect::<Vec<_>>();
    assert_eq!(seeds(&one), seeds(&two), "the same training markets");
    assert_eq!(seeds(&one), training_seeds(1, 3));
    assert_ne!(one.table.bytes(), two.table.bytes());
    // So a solve's episode depends on the sweep's seed.
    let suite = AdsBench::default();
    let item = s.item(0);
    let llm = NoModel;
    let models = Models {
        llm: &llm,
        embedder: None,
    };
    let solution = suite
        .solution(&spec(Q_LEARNING, json!({"episodes": 3})))
        .expect("q-learning");
    let mut digests = BTreeSet::new();
    for seed in 1..=3 {
        let a = solution
            .solve(&item, models, seed)
            .await
            .expect("an episode");
        let o: Outcome = serde_json::from_value(a.output.meta).expect("an outcome");
        assert_eq!(o.decisions, 12);
        assert!(o.bandit.is_none(), "no bandit log");
        digests.insert(o.digest);
    }
    assert!(digests.len() > 1, "one episode under three sweep seeds");
}

/// Profit (conversion value − cost, currency units) of one episode.
fn profit(o: &Outcome) -> f64 {
    let t = o.totals();
    (t.value_micros - t.spend_micros) as f64 / 1e6
}

/// The README's comparison: the bandits' 14 stationary days (no owner
/// event, no red team, 4,000 searches a day, a decision every 6 hours),
/// seeds 1 to 5, `q-learning` with its defaults.
#[test]
#[ignore = "about twenty seconds; prints the README's table"]
fn q_learning_against_fixed_bid_and_the_bandits_on_stationary_scenarios() {
    let agents = [FIXED_BID, LINUCB, THOMPSON, Q_LEARNING];
    let mut sums = [0.0; 4];
    println!("| seed | fixed-bid | linucb | thompson | q-learning | q-learning training profits |");
    println!("|---:|---:|---:|---:|---:|---|");
    for seed in 1..=5 {
        let s = Scenario {
            days: 14,
            ..small(seed)
        };
        let mut row = Vec::new();
        let mut training = Vec::new();
        for (i, name) in agents.iter().enumerate() {
            let o = if *name == Q_LEARNING {
                let (o, trained) =
                    qlearning::run(&s, &QConfig::default(), 1, || true).expect("runs");
                training = trained
                    .episodes
                    .iter()
                    .map(|e| format!("{:.0}", e.profit_micros as f64 / 1e6))
                    .collect();
                o
            } else {
                Scripted::from_spec(&spec(name, json!({})))
                    .expect("a solution")
                    .episode(&s, 1, None, || true)
                    .expect("runs")
            };
            assert_eq!(o.failed_decisions, 0);
            sums[i] += profit(&o);
            row.push(format!("{:.2}", profit(&o)));
        }
        println!("| {seed} | {} | {} |", row.join(" | "), training.join(", "));
    }
    let means: Vec<String> = sums.iter().map(|s| format!("{:.2}", s / 5.0)).collect();
    println!("| mean | {} | |", means.join(" | "));
}
