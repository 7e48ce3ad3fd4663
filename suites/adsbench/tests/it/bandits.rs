//! The bandit baselines end to end: `linucb` and `thompson` through the
//! harness on a small scenario (3 days, 4,000 searches a day, a decision
//! every 6 hours), acting only by noted keyword-bid updates, replaying
//! byte for byte, logging exact propensities, drawing from the sweep's
//! seed on the scenario's market; the OPE gate on a real
//! bandit log, and its verdicts in the report from the stored solves'
//! logs; the solutions' parameters; and (ignored)
//! the comparison with `fixed-bid` the README tables.

use super::stored_result;
use adfarm_adsbench::suite::bandit::{BanditLog, ARMS, BASE_ARM, FEATURES};
use adfarm_adsbench::suite::change_log::Change;
use adfarm_adsbench::suite::gauntlet::shipped;
use adfarm_adsbench::suite::ope_gate::{evaluate, GateSettings, Target};
use adfarm_adsbench::suite::ope_gate_section::OPE_GATE;
use adfarm_adsbench::suite::outcome::Outcome;
use adfarm_adsbench::suite::scenario::Scenario;
use adfarm_adsbench::suite::{Scripted, FIXED_BID, LINUCB, THOMPSON};
use adfarm_adsbench::AdsBench;
use adfarm_proto::report::Value;
use adfarm_proto::{Item, JobResult, SolutionSpec, SweepSpec, SOLVE};
use adfarm_suite::{DataError, Models, NoModel, ReportInput, Suite};
use serde_json::json;
use std::collections::BTreeSet;

/// The small scenario of `seed`.
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

fn bandit(name: &str) -> Scripted {
    Scripted::from_spec(&spec(name, json!({}))).expect("a bandit")
}

/// `name`'s episode of `s` under sweep seed 1.
fn episode(name: &str, s: &Scenario) -> Outcome {
    bandit(name).episode(s, 1, None, || true).expect("runs")
}

fn log(o: &Outcome) -> &BanditLog {
    o.bandit
        .as_ref()
        .expect("a bandit's outcome carries its log")
}

/// The scripted account's keyword bids, micros (the bandits' base).
const BASE_BIDS: [i64; 4] = [1_200_000, 900_000, 1_000_000, 700_000];

/// Every change is a keyword bid at a base bid × the arm its note names,
/// and the note cites the pace and the cost the agent read.
pub(crate) fn assert_arm_changes(name: &str, changes: &[Change]) {
    for c in changes {
        assert_eq!(c.operation, "update");
        assert!(c.resource.contains("adGroupCriteria"), "{c:?}");
        assert_eq!(c.fields.keys().collect::<Vec<_>>(), ["cpc_bid_micros"]);
        let note = c.note.as_deref().unwrap_or_default();
        let prefix = format!("{name}: arm ×");
        assert!(note.starts_with(&prefix), "{note}");
        assert!(
            note.contains("; pace ") && note.contains(" h cost "),
            "{note}"
        );
        let m: f64 = note[prefix.len()..]
            .split(';')
            .next()
            .and_then(|x| x.parse().ok())
            .expect("the multiplier");
        assert!(ARMS.contains(&m), "{note}");
        let bid: i64 = c.fields["cpc_bid_micros"].parse().expect("micros");
        assert!(
            BASE_BIDS
                .iter()
                .any(|b| (*b as f64 * m).round() as i64 == bid),
            "{bid} is no base bid × {m}"
        );
    }
}

#[test]
fn the_bandits_act_only_by_noted_bid_updates_and_log_exact_propensities() {
    for name in [LINUCB, THOMPSON] {
        let o = episode(name, &small(1));
        assert_eq!(o.failed_decisions, 0, "{name}: every API call was valid");
        assert_eq!(o.decisions, 12, "{name}: every 6 hours for 3 days");
        let log = log(&o);
        assert_eq!(log.policy, name);
        assert_eq!(log.rounds.len(), 12, "{name}: one round per decision");
        for (i, r) in log.rounds.iter().enumerate() {
            assert_eq!(r.at, 12 * i as u64, "{name}");
            assert_eq!(r.context.len(), FEATURES.len());
            assert!(r.context.iter().all(|x| x.is_finite()), "{name}: {r:?}");
            assert!(r.propensity > 0.0 && r.propensity <= 1.0, "{name}: {r:?}");
            assert_eq!(r.propensity, r.distribution[r.arm], "{name}: {r:?}");
            let total: f64 = r.distribution.iter().sum();
            assert!((total - 1.0).abs() < 1e-9, "{name}: {r:?}");
            // ε = 0.1 over five arms: no arm under 0.02.
            assert!(r.distribution.iter().all(|p| *p >= 0.02 - 1e-12), "{name}");
        }
        let (last, scored) = log.rounds.split_last().expect("rounds");
        assert!(scored.iter().all(|r| r.reward.is_some()), "{name}");
        assert_eq!(last.reward, None, "{name}: nothing reads the last interval");
        assert!(
            scored.iter().any(|r| r.reward != Some(0.0)),
            "{name}: the rewards move"
        );
        // Every change is a keyword bid at base × the noted arm.
        let changes = o.changes.as_ref().expect("a change set");
        assert!(
            !changes.is_empty(),
            "{name}: it moved off ×1.0 at least once"
        );
        assert_arm_changes(name, changes);
    }
}

#[test]
fn a_bandit_episode_replays_byte_for_byte_from_the_scenario_and_sweep_seeds() {
    let s = small(2);
    for name in [LINUCB, THOMPSON] {
        let (a, b) = (episode(name, &s), episode(name, &s));
        assert_eq!(a.digest, b.digest, "{name}");
        assert_eq!(
            serde_json::to_string(&a).expect("json"),
            serde_json::to_string(&b).expect("json"),
            "{name}: the same outcome and log"
        );
    }
    let other = episode(LINUCB, &small(3));
    assert_ne!(log(&episode(LINUCB, &s)).rounds, log(&other).rounds);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bandits_episode_depends_on_the_sweeps_seed_and_a_fixed_bids_does_not() {
    let item = small(2).item(0);
    for name in [LINUCB, THOMPSON] {
        let mut episodes: Vec<Outcome> = Vec::new();
        for seed in 1..=5 {
            let r = stored(name, &item, seed).await;
            let meta = r.output.expect("an output").meta;
            episodes.push(serde_json::from_value(meta).expect("an outcome"));
        }
        // The same market: the first decision, before any draw acts,
        // reads the same context under every seed.
        let first = &log(&episodes[0]).rounds[0].context;
        assert!(
            episodes.iter().all(|o| &log(o).rounds[0].context == first),
            "{name}"
        );
        // Each sweep seed draws its own arms.
        let plays: BTreeSet<Vec<usize>> = episodes
            .iter()
            .map(|o| log(o).rounds.iter().map(|r| r.arm).collect())
            .collect();
        assert!(plays.len() > 1, "{name}: one play under five seeds");
        let digests: BTreeSet<&str> = episodes.iter().map(|o| o.digest.as_str()).collect();
        assert_eq!(digests.len(), plays.len(), "{name}");
        // The library's episode under a sweep seed is the solve's.
        assert_eq!(
            bandit(name)
                .episode(&small(2), 2, None, || true)
                .expect("runs")
                .digest,
            episodes[1].digest,
            "{name}"
        );
    }
    // Nothing of fixed-bid's is drawn: one episode whatever the seed.
    let one = stored(FIXED_BID, &item, 1).await;
    let two = stored(FIXED_BID, &item, 2).await;
    assert_eq!(one.output, two.output);
}

#[test]
fn the_ope_gate_judges_other_policies_from_a_real_bandit_log() {
    let s = small(1);
    let lin = episode(LINUCB, &s);
    let ts = episode(THOMPSON, &s);
    let settings = GateSettings {
        resamples: 2_000,
        seed: 1,
        alpha: 0.05,
    };
    let rewards: Vec<f64> = log(&lin).rewarded().map(|(_, r)| r).collect();
    let mean = rewards.iter().sum::<f64>() / rewards.len() as f64;
    for target in [
        Target::Arm(BASE_ARM),
        Target::Arm(ARMS.len() - 1),
        Target::Greedy(log(&ts).weights.clone()),
    ] {
        let g = evaluate(log(&lin), &target, &settings).expect("a verdict");
        assert_eq!(g.rounds, 11, "{target:?}");
        assert!((g.logging_mean - mean).abs() < 1e-12, "{g:?}");
        assert!(g.estimate.is_finite() && g.ipw.is_finite(), "{g:?}");
        assert!(g.lower <= g.estimate && g.estimate <= g.upper, "{g:?}");
        assert_eq!(g.passed, g.lower > g.logging_mean, "{g:?}");
    }
}

#[test]
fn the_bandits_are_solutions_whose_parameters_are_checked_with_their_field() {
    let suite = AdsBench::default();
    let names = suite.solutions();
    assert!(names.iter().any(|n| n == LINUCB) && names.iter().any(|n| n == THOMPSON));
    assert!(suite
        .check_solution(&spec(LINUCB, json!({"alpha": 0.5, "epsilon": 0.2})))
        .is_ok());
    assert!(suite
        .check_solution(&spec(THOMPSON, json!({"nu": 2, "epsilon": 1})))
        .is_ok());
    for (name, params, field) in [
        (LINUCB, json!({"alpha": 0}), "params.alpha"),
        (LINUCB, json!({"alpha": "wide"}), "params.alpha"),
        (LINUCB, json!({"epsilon": 1.5}), "params.epsilon"),
        (LINUCB, json!({"nu": 1}), "params.nu"),
        (THOMPSON, json!({"nu": -1}), "params.nu"),
        (THOMPSON, json!({"alpha": 1}), "params.alpha"),
    ] {
        match suite.check_solution(&spec(name, params.clone())) {
            Err(DataError::Param { field: got, .. }) => assert_eq!(got, field, "{params}"),
            other => panic!("{name} {params}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bandit_solve_carries_its_log_and_the_others_outputs_do_not() {
    let suite = AdsBench::default();
    let item = small(1).item(0);
    let llm = NoModel;
    let models = Models {
        llm: &llm,
        embedder: None,
    };
    let solved = suite
        .solution(&spec(THOMPSON, json!({})))
        .expect("thompson")
        .solve(&item, models, 1)
        .await
        .expect("an episode");
    let o: Outcome = serde_json::from_value(solved.output.meta).expect("an outcome");
    assert_eq!(log(&o).rounds.len(), 12);
    let fixed = suite
        .solution(&spec(FIXED_BID, json!({})))
        .expect("fixed-bid")
        .solve(&item, models, 1)
        .await
        .expect("an episode");
    assert!(
        fixed.output.meta.get("bandit").is_none(),
        "no log, no field"
    );
}

/// `solution`'s solve of `item` under sweep seed `seed`, as stored.
async fn stored(solution: &str, item: &Item, seed: u64) -> JobResult {
    let llm = NoModel;
    let models = Models {
        llm: &llm,
        embedder: None,
    };
    let solved = AdsBench::default()
        .solution(&spec(solution, json!({})))
        .expect("a solution")
        .solve(item, models, seed)
        .await
        .expect("an episode");
    stored_result(
        SOLVE,
        solution,
        &item.id,
        seed,
        solved.output,
        solved.scores,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_gives_the_ope_gates_verdict_for_each_bandit_from_its_stored_logs() {
    let items = [small(1).item(0), small(2).item(1)];
    let mut results = Vec::new();
    for name in [THOMPSON, FIXED_BID, LINUCB] {
        for item in &items {
            for seed in [1, 2] {
                results.push(stored(name, item, seed).await);
            }
            // A repeat of an episode must not count twice.
            let again = results.last().expect("stored").clone();
            results.push(again);
        }
    }
    let spec: SweepSpec = serde_json::from_value(json!({
        "name": "s", "seeds": [1, 2],
        "suites": [{"name": "adsbench", "datasets": ["scenarios"]}],
        "solutions": [
            {"name": LINUCB, "provider": "none"},
            {"name": FIXED_BID, "provider": "none"},
            {"name": THOMPSON, "provider": "none"},
        ],
        "providers": [],
    }))
    .expect("a sweep");
    let sections = AdsBench::default()
        .report(&ReportInput {
            spec: &spec,
            suite: &spec.suites[0],
            cells: &[],
            results: &results,
        })
        .expect("a report");
    let section = sections
        .iter()
        .find(|s| s.id == OPE_GATE)
        .expect("the OPE gate's section");
    let t = &section.tables[0];
    let col = |id: &str| t.columns.iter().position(|c| c.id == id).expect(id);
    // Each bandit against every constant arm, in the sweep's order;
    // fixed-bid logs nothing and has no row.
    assert_eq!(t.rows.len(), 2 * ARMS.len());
    for (i, row) in t.rows.iter().enumerate() {
        let (agent, arm) = ([LINUCB, THOMPSON][i / ARMS.len()], i % ARMS.len());
        assert_eq!(row[col("solution")], Some(Value::Text(agent.into())));
        // The agent's four episodes (two items × two seeds), once each, in
        // the order stored.
        let episodes: Vec<Outcome> = results
            .iter()
            .filter(|r| r.cell.solution == agent)
            .map(|r| serde_json::from_value(r.output.as_ref().expect("an output").meta.clone()))
            .collect::<Result<_, _>>()
            .expect("outcomes");
        let mut pooled = log(&episodes[0]).clone();
        for i in [1, 3, 4] {
            pooled.rounds.extend(log(&episodes[i]).rounds.clone());
        }
        let g = evaluate(&pooled, &Target::Arm(arm), &GateSettings::default()).expect("a verdict");
        assert_eq!(g.rounds, 44);
        assert_eq!(row[col("rounds")], Some(Value::Integer(44)));
        assert_eq!(row[col("estimate")], Some(Value::Number(g.estimate)));
        assert_eq!(row[col("lower")], Some(Value::Number(g.lower)));
        assert_eq!(row[col("logging")], Some(Value::Number(g.logging_mean)));
        let verdict = if g.passed { "passes" } else { "fails" };
        assert_eq!(row[col("verdict")], Some(Value::Text(verdict.into())));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bandit_solve_of_a_gauntlet_task_carries_its_log() {
    let task = shipped()
        .expect("the gauntlet loads")
        .into_iter()
        .find(|t| t.id == "control-easy-01")
        .expect("a control task");
    let r = stored(LINUCB, &task.item(), 1).await;
    let o: Outcome = serde_json::from_value(r.output.expect("an output").meta).expect("an outcome");
    assert!(!log(&o).rounds.is_empty());
    assert_eq!(log(&o).rounds.len() as u64, o.decisions);
}

/// Profit (conversion value − cost, currency units) of one episode.
fn profit(o: &Outcome) -> f64 {
    let t = o.totals();
    (t.value_micros - t.spend_micros) as f64 / 1e6
}

/// The README's comparison: 14 stationary days (no owner event, no red
/// team), 4,000 searches a day, a decision every 6 hours, seeds 1 to 5.
#[test]
#[ignore = "seven seconds; prints the README's tables"]
fn bandits_against_fixed_bid_on_stationary_scenarios() {
    let agents = [FIXED_BID, LINUCB, THOMPSON];
    let mut sums = [0.0; 3];
    let mut gates = Vec::new();
    println!("| seed | agent | spend | conversions | value | profit |");
    println!("|---:|---|---:|---:|---:|---:|");
    for seed in 1..=5 {
        let s = Scenario {
            days: 14,
            ..small(seed)
        };
        for (i, name) in agents.iter().enumerate() {
            let o = Scripted::from_spec(&spec(name, json!({})))
                .expect("a solution")
                .episode(&s, 1, None, || true)
                .expect("runs");
            let t = o.totals();
            sums[i] += profit(&o);
            println!(
                "| {seed} | {name} | {:.2} | {:.1} | {:.2} | {:.2} |",
                t.spend_micros as f64 / 1e6,
                t.conversions,
                t.value_micros as f64 / 1e6,
                profit(&o)
            );
            assert_eq!(o.failed_decisions, 0);
            if let Some(log) = &o.bandit {
                let g = evaluate(log, &Target::Arm(BASE_ARM), &GateSettings::default())
                    .expect("a verdict");
                gates.push(format!(
                    "| {seed} | {name} | {} | {:.3} | [{:.3}, {:.3}] | {:.3} | {:.3} | {} |",
                    g.rounds, g.estimate, g.lower, g.upper, g.ipw, g.logging_mean, g.passed
                ));
            }
        }
    }
    for (name, sum) in agents.iter().zip(sums) {
        println!("mean profit {name}: {:.2}", sum / 5.0);
    }
    println!("| seed | log | rounds | DR of ×1.0 | 95% CI | IPW | logging mean | passed |");
    println!("|---:|---|---:|---:|---|---:|---:|---|");
    for g in gates {
        println!("{g}");
    }
}
