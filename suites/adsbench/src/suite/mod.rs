//! Ads-Bench as an AdFarm suite: the `scenarios` dataset (seeded markets),
//! the scripted API agents as solutions (`fixed-bid`, `pacing`, `rules`),
//! the model agents (`react`, `function-calling`), a report
//! section of daily KPIs against Google's budget caps, and one of the
//! off-policy estimators on the Open Bandit Dataset sample.
//!
//! - this file: the [`Suite`] impl;
//! - [`scenario`]: the `scenarios` dataset, seeded market scenarios;
//! - [`agents`]: the agent trait (a decision every `cadence` hours) and
//!   the scripted agents, acting only through the Ads API;
//! - [`rules`]: the rule-based baseline (the kill switch, then pacing);
//! - [`assignment`]: what a solve runs, a scenario or a gauntlet task, for
//!   every agent alike;
//! - [`bandit`]: the bandit baselines (`linucb`, `thompson`) over bid
//!   multipliers, logging their propensities;
//! - [`qlearning`]: the tabular Q-learning baseline (`q-learning`) over
//!   the bandits' arms, trained by its `train` stage on seeds disjoint
//!   from the scenario's, then greedy with its table frozen;
//! - [`ope_gate`]: the OPE gate on agents: another policy's value from a
//!   bandit's log, against the logging policy's mean reward;
//! - [`ope_gate_section`]: its verdicts in the report, from the bandit
//!   baselines' stored logs;
//! - [`harness`]: runs an episode: decisions, ticks, owner events, the
//!   kill-switch triggers as they become observable;
//! - [`kill_switch`]: the triggers' rules and the pure verdict on them;
//! - [`model_agent`]: a model managing the account through the API's
//!   tools on the shared agent loop, a conversation per decision;
//! - [`change_log`]: an episode's change set, kept as the agent commits it;
//! - [`patch`]: an episode's change set as requests that replay on its
//!   start state; `command` prints it (`adfarm adsbench patch`);
//! - [`gauntlet`]: the `gauntlet` dataset, 60 graded tasks as TOML files;
//! - [`outcome`]: one scenario under one agent, run to its end and scored;
//! - [`policy`]: advertising policy over the text an agent creates or
//!   enables;
//! - [`redteam`]: 20 red-team scenarios (drains, policy traps, API
//!   faults, prompt injections) in the gauntlet's format, and what an
//!   episode under attack records;
//! - [`baselines`]: the `baselines` stage, per scenario: doing nothing and
//!   the best constant bid multiplier in hindsight;
//! - [`composite`]: the composite score per agent, in the report;
//! - `solutions`: the agents as [`Solution`]s, episodes on a blocking thread;
//! - `report`: the daily tables;
//! - [`review`]: what people review (two agents' change sets on one
//!   scenario);
//! - `ope_section`: the OPE experiment's table, from the pinned asset.
//!
//! Design decision: an episode's KPIs are scored in the solve job (a pure
//! function of the scenario and the agent's calls), the farm's report
//! tables them per solution like any other metric; the one declared stage,
//! `baselines`, runs each scenario's reference episodes once for every
//! agent, and the composite is computed at report time from both, with
//! the sweep's weights and prices.

pub mod agents;
pub mod assignment;
pub mod bandit;
pub mod baselines;
pub mod change_log;
mod command;
pub mod composite;
pub mod gauntlet;
pub mod harness;
pub mod kill_switch;
pub mod model_agent;
pub mod ope_gate;
pub mod ope_gate_section;
mod ope_section;
pub mod outcome;
pub mod patch;
pub mod policy;
pub mod qlearning;
pub mod redteam;
mod report;
pub mod review;
pub mod rules;
pub mod scenario;
mod solutions;
pub mod utility;

pub use ope_section::OPE_OBD;

pub use solutions::{
    Scripted, DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS, FIXED_BID, LINUCB, PACING, Q_LEARNING,
    RULES, SOLUTIONS, THOMPSON,
};

use crate::ope::classic::{self, Classic, ClassicError};
use crate::ope::{DEFAULT_RESAMPLES, OBP};
use crate::score::Weights;
use adfarm_proto::asset::Pin;
use adfarm_proto::report::Section;
use adfarm_proto::{Item, SolutionSpec, Stage};
use adfarm_suite::{
    CallEstimate, CommandError, DataError, ItemIter, JobError, ReportInput, Reviewables, Solution,
    StageJob, StageModels, StageOutput, Suite, SuiteContext, SweepView, Toolbox,
};
use async_trait::async_trait;
use baselines::{Baselines, BASELINES};
use model_agent::{ModelAgent, MODEL_AGENTS};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Name of the suite in sweep files.
pub const SUITE: &str = "adsbench";

/// The Ads-Bench suite.
#[derive(Debug, Clone, Default)]
pub struct AdsBench {
    /// The host's assets directory, where the OBD sample is; `None` (the
    /// default, for tests of the rest): the report has no OPE section.
    assets_dir: Option<PathBuf>,
    /// The OBD experiment, once computed (it depends on the asset alone).
    obd: Arc<OnceLock<Classic>>,
}

impl AdsBench {
    /// The suite as a host serves it, reading the pinned assets it declares
    /// from `ctx`.
    pub fn new(ctx: &SuiteContext) -> AdsBench {
        AdsBench {
            assets_dir: Some(ctx.assets_dir.clone()),
            obd: Arc::default(),
        }
    }

    /// The OBD experiment on the assets under `assets`, computed once.
    fn obd_experiment(&self, assets: &Path) -> Result<&Classic, ClassicError> {
        if let Some(c) = self.obd.get() {
            return Ok(c);
        }
        let c = classic::run(assets, DEFAULT_RESAMPLES)?;
        Ok(self.obd.get_or_init(|| c))
    }
}

#[async_trait]
impl Suite for AdsBench {
    fn name(&self) -> &'static str {
        SUITE
    }

    fn datasets(&self) -> Vec<String> {
        vec![
            scenario::DATASET.into(),
            gauntlet::DATASET.into(),
            redteam::DATASET.into(),
        ]
    }

    /// The Open Bandit Dataset sample, for the off-policy evaluation part.
    fn assets(&self) -> Vec<&'static Pin> {
        vec![&OBP]
    }

    fn solutions(&self) -> Vec<String> {
        SOLUTIONS
            .iter()
            .chain(MODEL_AGENTS.iter())
            .map(|s| s.to_string())
            .collect()
    }

    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
        match dataset {
            gauntlet::DATASET => gauntlet::dataset::items(params),
            redteam::DATASET => redteam::items(params),
            _ => scenario::items(dataset, params),
        }
    }

    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError> {
        // Checked here so a bad scenario or weight fails the sweep file,
        // not a job.
        scenario::scenarios(&sweep.suite.params)?;
        Weights::from_params(&sweep.suite.params)?;
        qlearning::stage::check_disjoint(sweep)?;
        let mut stages = vec![baselines::stage()];
        stages.extend(qlearning::stage::stage(sweep));
        Ok(stages)
    }

    fn estimate(&self, stage: &str, solution: &SolutionSpec, item: &Item) -> CallEstimate {
        // The scripted agents call no model.
        if stage == adfarm_proto::SOLVE && MODEL_AGENTS.contains(&solution.name.as_str()) {
            return ModelAgent::estimate(solution, item);
        }
        CallEstimate::default()
    }

    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError> {
        self.solution(spec).map(|_| ())
    }

    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError> {
        if MODEL_AGENTS.contains(&spec.name.as_str()) {
            return Ok(Arc::new(ModelAgent::from_spec(spec)?));
        }
        Ok(Arc::new(Scripted::from_spec(spec)?))
    }

    async fn run_stage(
        &self,
        job: StageJob<'_>,
        _models: StageModels<'_>,
    ) -> Result<StageOutput, JobError> {
        if job.stage == qlearning::stage::TRAIN {
            return qlearning::stage::run(job).await;
        }
        if job.stage != BASELINES {
            return Err(JobError::Data(DataError::Param {
                field: job.stage.into(),
                reason: format!(
                    "the {SUITE} suite declares only {BASELINES} and {}",
                    qlearning::stage::TRAIN
                ),
            }));
        }
        let assignment = assignment::Assignment::of(job.item)?;
        let id = job.item.id.clone();
        // The episodes are CPU work: off the async runtime.
        let computed =
            tokio::task::spawn_blocking(move || Baselines::of_assignment(&assignment, &id))
                .await
                .map_err(|e| DataError::Param {
                    field: format!("item {}", job.item.id),
                    reason: format!("the baselines thread failed: {e}"),
                })??;
        Ok(computed.output())
    }

    fn command(&self) -> Option<clap::Command> {
        Some(command::command())
    }

    async fn run_command(
        &self,
        matches: &clap::ArgMatches,
        toolbox: &dyn Toolbox,
    ) -> Result<(), CommandError> {
        print!("{}", command::run(self, matches, toolbox).await?);
        Ok(())
    }

    fn report(&self, input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        let mut sections = report::sections(input);
        let weights = Weights::from_params(&input.suite.params)?;
        sections.extend(gauntlet::report::section(input));
        sections.extend(composite::section(input, &weights));
        sections.extend(ope_gate_section::section(
            input,
            &ope_gate::GateSettings::default(),
        ));
        sections.extend(model_agent::report::section(input));
        if let Some(assets) = &self.assets_dir {
            sections.push(ope_section::section(
                &input.suite.name,
                self.obd_experiment(assets),
            ));
        }
        Ok(sections)
    }

    fn reviews(&self, input: &ReportInput<'_>) -> Result<Reviewables, DataError> {
        Ok(review::reviewables(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_proto::{Cell, JobId, JobResult, SweepSpec, Verdict, SOLVE};
    use adfarm_suite::NoModel;
    use scenario::MAX_SCENARIOS;
    use serde_json::json;

    fn spec(name: &str, params: serde_json::Value) -> SolutionSpec {
        adfarm_suite::solution_entry(name, "none", 64, params)
    }

    fn field(r: Result<(), DataError>) -> String {
        match r {
            Err(DataError::Param { field, .. }) => field,
            other => panic!("{other:?}"),
        }
    }

    fn sweep(params: serde_json::Value) -> SweepSpec {
        serde_json::from_value(json!({
            "name": "s",
            "seeds": [1],
            "suites": [{"name": "adsbench", "datasets": ["scenarios"], "params": params}],
            "solutions": [{"name": "pacing", "provider": "none"}, {"name": "fixed-bid", "provider": "none"}],
            "providers": [],
        }))
        .expect("a sweep")
    }

    #[test]
    fn parameters_are_checked_at_plan_time_with_their_field() {
        let s = AdsBench::default();
        assert!(s.check_solution(&spec(FIXED_BID, json!({}))).is_ok());
        assert!(s
            .check_solution(&spec(PACING, json!({"target_cpa_micros": 9_000_000})))
            .is_ok());
        assert_eq!(
            field(s.check_solution(&spec(FIXED_BID, json!({"bid_micros": -1})))),
            "params.bid_micros"
        );
        assert_eq!(
            field(s.check_solution(&spec(PACING, json!({"bid_micros": 1_000_000})))),
            "params.bid_micros"
        );
        assert!(s
            .check_solution(&spec(RULES, json!({"target_cpa_micros": 9_000_000})))
            .is_ok());
        assert_eq!(
            field(s.check_solution(&spec(RULES, json!({"target_cpa_micros": 1})))),
            "params.target_cpa_micros"
        );
        let unknown = s.check_solution(&spec("echo", json!({}))).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("valid: fixed-bid, pacing, rules"),
            "{unknown}"
        );

        let bad = sweep(json!({"scenarios": [{"days": 500}]}));
        let err = s
            .stages(SweepView {
                spec: &bad,
                suite: &bad.suites[0],
            })
            .unwrap_err();
        assert!(
            matches!(err, DataError::Param { ref field, .. } if field == "params.scenarios[0].days"),
            "{err}"
        );
        let good = sweep(json!({"scenarios": 2}));
        assert_eq!(
            s.stages(SweepView {
                spec: &good,
                suite: &good.suites[0],
            })
            .expect("valid"),
            [baselines::stage()]
        );
        // The composite's weights are checked with the sweep, by field.
        let heavy = sweep(json!({"scenarios": 2, "weights": {"business": 0.9}}));
        let err = s
            .stages(SweepView {
                spec: &heavy,
                suite: &heavy.suites[0],
            })
            .unwrap_err();
        assert!(
            matches!(err, DataError::Param { ref field, .. } if field == "params.weights"),
            "{err}"
        );
        assert_eq!(s.assets(), [&OBP]);
        assert!(OBP.is_sdist());
    }

    #[test]
    fn a_sweep_evaluating_a_seed_q_learning_trains_on_is_refused_at_plan_time() {
        let s = AdsBench::default();
        let planned =
            |datasets: serde_json::Value, params: serde_json::Value, q: serde_json::Value| {
                let spec: SweepSpec = serde_json::from_value(json!({
                    "name": "s",
                    "seeds": [1],
                    "suites": [{"name": "adsbench", "datasets": datasets, "params": params}],
                    "solutions": [{"name": "fixed-bid", "provider": "none"}, q],
                    "providers": [],
                }))
                .expect("a sweep");
                s.stages(SweepView {
                    spec: &spec,
                    suite: &spec.suites[0],
                })
                .map(|stages| stages.len())
            };
        let q = json!({"name": "q-learning", "provider": "none"});
        // Scenario 0 (seed 5) trains on 1,000,005 to 1,000,012 by default.
        let meets = json!({"scenarios": [{"seed": 5}, {"seed": 1_000_007}]});
        match planned(json!(["scenarios"]), meets.clone(), q.clone()) {
            Err(DataError::Param { field, reason }) => {
                assert_eq!(field, "params.scenarios[1].seed");
                assert!(reason.contains("seed 1000007"), "{reason}");
                assert!(reason.contains("`q-learning`"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        // Two training episodes stop short of it; without q-learning no
        // seed is trained on.
        let short = json!({"name": "q-learning", "provider": "none", "params": {"episodes": 2}});
        let stages = planned(json!(["scenarios"]), meets.clone(), short).expect("plans");
        assert_eq!(stages, 2, "baselines and train");
        let fixed = json!({"name": "pacing", "provider": "none"});
        assert_eq!(
            planned(json!(["scenarios"]), meets, fixed).expect("plans"),
            1
        );
        // The built-in tasks train apart from every seed they evaluate.
        let all = json!(["scenarios", "gauntlet", "redteam"]);
        assert_eq!(planned(all, json!({}), q).expect("plans"), 2);
    }

    #[test]
    fn count_parameters_at_absurd_values_are_refused_with_their_maximum() {
        let s = AdsBench::default();
        let refused = |params: serde_json::Value| {
            let spec = sweep(params);
            match s.stages(SweepView {
                spec: &spec,
                suite: &spec.suites[0],
            }) {
                Err(DataError::Param { field, reason }) => (field, reason),
                other => panic!("{other:?}"),
            }
        };
        let many: Vec<serde_json::Value> = (0..=MAX_SCENARIOS).map(|_| json!({})).collect();
        for (params, field, max) in [
            (
                json!({"scenarios": 1_000_000_000_000u64}),
                "params.scenarios",
                "1000",
            ),
            (json!({"scenarios": many}), "params.scenarios", "1000"),
            (
                json!({"scenarios": [{"days": 1_000_000_000_000u64}]}),
                "params.scenarios[0].days",
                "120",
            ),
            (
                json!({"scenarios": [{}, {"opportunities_per_day": 1e12}]}),
                "params.scenarios[1].opportunities_per_day",
                "200000",
            ),
        ] {
            let (got, reason) = refused(params);
            assert_eq!(got, field);
            assert!(reason.contains(max), "{field}: {reason}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_solve_runs_the_episode_and_the_report_tables_its_days() {
        let s = AdsBench::default();
        let items: Vec<_> = s
            .items(
                scenario::DATASET,
                &json!({"scenarios": [{"days": 3, "start_date": "2025-03-30"}]}),
            )
            .expect("valid")
            .map(|i| i.expect("generated"))
            .collect();
        let llm = NoModel;
        let models = adfarm_suite::Models {
            llm: &llm,
            embedder: None,
        };
        let sol = s.solution(&spec(PACING, json!({}))).expect("pacing");
        let solved = sol.solve(&items[0], models, 1).await.expect("an episode");
        let again = sol.solve(&items[0], models, 2).await.expect("an episode");
        assert_eq!(solved, again, "the sweep's seed does not enter");
        let metrics: Vec<&str> = solved.scores.iter().map(|x| x.metric.as_str()).collect();
        assert_eq!(metrics, outcome::METRICS);
        let Verdict::Score(over_b) = solved.scores[6].verdict else {
            panic!("{:?}", solved.scores[6])
        };
        assert!((0.0..=2.0).contains(&over_b), "{over_b}");

        let spec = sweep(json!({"scenarios": 1}));
        let result = JobResult {
            id: JobId("j".into()),
            stage: SOLVE.into(),
            cell: Cell {
                suite: SUITE.into(),
                dataset: scenario::DATASET.into(),
                solution: PACING.into(),
                seed: 1,
            },
            item: items[0].id.clone(),
            judge: None,
            output: Some(solved.output),
            scores: solved.scores,
            usage: vec![],
        };
        let sections = s
            .report(&ReportInput {
                spec: &spec,
                suite: &spec.suites[0],
                cells: &[],
                results: std::slice::from_ref(&result),
            })
            .expect("a section");
        let t = &sections[0].tables[0];
        assert_eq!(t.id, "daily-pacing-scenario-0");
        // Three days (two in March, one in April) and the total.
        assert_eq!(t.rows.len(), 4);
        assert_eq!(
            t.rows[2][1],
            Some(adfarm_proto::report::Value::Text("2025-04-01".into()))
        );
        assert!(s
            .report(&ReportInput {
                spec: &spec,
                suite: &spec.suites[0],
                cells: &[],
                results: &[],
            })
            .expect("no section")
            .is_empty());
    }
}
