//! Ads-Bench's integration tests, one binary with one module per area:
//!
//! - `market_*`: the auction market engine (auctions, budgets, episodes,
//!   scripted policies);
//! - `gaql`: the simulated Ads API's query side, limits and mutate layer on
//!   the hand-built in-memory account;
//! - `sandbox`: the same API over the market's account;
//! - `ads`: ads (serving, the policy review, the API's errors) and search
//!   terms through the API;
//! - `ope_*`: the off-policy estimators (bias, obp fixtures, the Open Bandit
//!   Dataset sample);
//! - `api_agents`: the suite's scripted agents through the API, their
//!   outcomes and the report;
//! - `bandits`: the bandit baselines (`linucb`, `thompson`) through the
//!   harness, their logs, and the OPE gate on a real bandit log;
//! - `qlearning`: the tabular Q-learning baseline: deterministic training
//!   on seeds disjoint from the scenario's, frozen greedy play through the
//!   API, its parameters;
//! - `kill_switch`: the kill switch end to end (the budget-drain red team
//!   and its calm twin, the rule-based baseline, the decision cadence);
//! - `model_agent`: the model agent with a scripted model, and the API's
//!   answers to calls a model gets wrong;
//! - `gauntlet`: the 60 gauntlet tasks: loading, coverage, the oracle and
//!   the do-nothing agent on every task, collateral damage, diagnoses;
//! - `redteam`: the 20 red-team scenarios: loading, attack success of an
//!   obeying agent against a compliant one, the policy traps, API faults
//!   and retries, the budget drain's kill switch;
//! - `score`: the composite score and gates on hand-built episodes;
//! - `composite`: the same on real episodes, anchored by the baselines
//!   stage, and its report section;
//! - `fairness`: audience groups, gender exclusions, delivery per group,
//!   disparate impact and the fairness gate on real episodes;
//! - `patch`: episodes' change sets replayed on their start states.
//!
//! Fixtures stay under `tests/fixtures/`, found from `CARGO_MANIFEST_DIR`.

mod ads;
mod api_agents;
mod bandits;
mod composite;
mod fairness;
mod gaql;
mod gauntlet;
mod kill_switch;
mod market_auction;
mod market_budget;
mod market_episode;
mod market_policy;
mod market_setup;
mod model_agent;
mod ope_bias;
mod ope_fixtures;
mod ope_obd;
mod patch;
mod qlearning;
mod redteam;
mod sandbox;
mod score;

use adfarm_adsbench::suite::agents::ApiAgent;
use adfarm_adsbench::suite::assignment::Assignment;
use adfarm_adsbench::suite::gauntlet::Task;
use adfarm_adsbench::suite::harness::drive;
use adfarm_adsbench::suite::outcome::Outcome;
use adfarm_proto::{Cell, JobId, JobResult, Output, Score};

/// The outcome of `agent` on gauntlet `task`, as a solve runs it.
fn task_outcome(task: &Task, agent: &mut dyn ApiAgent) -> Outcome {
    let assignment = Assignment::Task(Box::new(task.clone()));
    let (scenario, mut sandbox, harness) = assignment.prepare("t").expect("prepared");
    let plan = harness.plan().clone();
    let run = drive(&mut sandbox, agent, harness, || true);
    assignment
        .finish("t", &scenario, &plan, &sandbox, run, None)
        .expect("finished")
        .outcome
}

/// A job result as the store holds it: `solution`'s `stage` job on `item`
/// of the `scenarios` dataset under sweep seed `seed`.
fn stored_result(
    stage: &str,
    solution: &str,
    item: &str,
    seed: u64,
    output: Output,
    scores: Vec<Score>,
) -> JobResult {
    JobResult {
        id: JobId(format!("{solution}-{stage}-{item}-{seed}")),
        stage: stage.into(),
        cell: Cell {
            suite: adfarm_adsbench::suite::SUITE.into(),
            dataset: "scenarios".into(),
            solution: solution.into(),
            seed,
        },
        item: item.into(),
        judge: None,
        output: Some(output),
        scores,
        usage: Vec::new(),
    }
}
