//! The `counter` suite: the smallest suite with tools, a
//! [`Scope::Runs`](adfarm_proto::Scope::Runs) stage and a report section, a
//! worked example of the suite seam. An agent must make a counter reach a
//! target through two tools; pass@1 and pass@n over the sweep's seeds
//! follow once all of an item's runs are settled.
//!
//! - [`task`]: the generated dataset (`default`, `params.items` tasks);
//! - [`env`]: the environment, a counter behind the `add` and `read` tools;
//! - [`episode`]: the trajectory an episode records in `Output.meta`;
//! - [`check`]: the deterministic checker (reached, format errors, turns);
//! - [`agent`]: the `agent` solution, a loop of model calls with tools;
//! - [`echo`]: the `echo` solution, a baseline that calls nothing;
//! - [`pass_at_k`]: the `pass-at-k` stage (its estimator is
//!   [`adfarm_suite::stats::pass_at_k`]);
//! - [`report`]: the pass@k table of the report.
//!
//! Design decision: an episode is a pure function of the task, the seed
//! and the model's replies. Every turn is one plain model call, so the
//! farm's cache replays a killed or repeated episode call by call without
//! asking the provider again, and the environment needs no state of its
//! own between jobs.

pub mod agent;
pub mod check;
pub mod echo;
pub mod env;
pub mod episode;
pub mod pass_at_k;
pub mod report;
pub mod task;

use adfarm_proto::report::Section;
use adfarm_proto::{Item, SolutionSpec, Stage, SOLVE};
use adfarm_suite::{
    CallEstimate, DataError, ItemIter, JobError, ReportInput, Solution, StageJob, StageModels,
    StageOutput, Suite, SweepView,
};
use agent::{Agent, AGENT, DEFAULT_MAX_TURNS};
use async_trait::async_trait;
use echo::ECHO;
use pass_at_k::{Runs, PASS_AT_K};
use std::sync::Arc;

/// Name of the suite in sweep files.
pub const SUITE: &str = "counter";

/// Prompt tokens per agent call beyond the task: instructions, the two
/// tool schemas and the earlier turns, on average.
const AGENT_OVERHEAD_TOKENS: u32 = 120;

/// The counter suite.
pub struct CounterSuite;

#[async_trait]
impl Suite for CounterSuite {
    fn name(&self) -> &'static str {
        SUITE
    }

    fn datasets(&self) -> Vec<String> {
        vec![task::DATASET.into()]
    }

    fn solutions(&self) -> Vec<String> {
        vec![AGENT.into(), ECHO.into()]
    }

    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
        task::items(dataset, params)
    }

    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError> {
        task::item_count(&sweep.suite.params)?;
        Ok(vec![pass_at_k::stage()])
    }

    fn estimate(&self, stage: &str, solution: &SolutionSpec, _item: &Item) -> CallEstimate {
        if stage != SOLVE || solution.name != AGENT {
            return CallEstimate::default();
        }
        // An upper bound, as the solution's max_tokens is for the output.
        let turns = Agent::from_spec(solution).map_or(DEFAULT_MAX_TURNS, |a| a.max_turns);
        CallEstimate {
            calls: turns,
            overhead_tokens: AGENT_OVERHEAD_TOKENS,
            reads_response: false,
            output_tokens: None,
        }
    }

    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError> {
        if spec.name == ECHO {
            if let Some(name) = spec.params.as_object().and_then(|o| o.keys().next()) {
                return Err(DataError::Param {
                    field: format!("params.{name}"),
                    reason: format!("{ECHO} takes no parameters"),
                });
            }
        }
        self.solution(spec).map(|_| ())
    }

    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError> {
        match spec.name.as_str() {
            AGENT => Ok(Arc::new(Agent::from_spec(spec)?)),
            ECHO => Ok(Arc::new(echo::SOLUTION)),
            other => Err(DataError::UnknownSolution {
                suite: SUITE.into(),
                solution: other.into(),
                valid: format!("{AGENT}, {ECHO}"),
            }),
        }
    }

    async fn run_stage(
        &self,
        job: StageJob<'_>,
        _models: StageModels<'_>,
    ) -> Result<StageOutput, JobError> {
        if job.stage != PASS_AT_K {
            return Err(JobError::Data(DataError::Param {
                field: job.stage.into(),
                reason: format!("the counter suite declares only {PASS_AT_K}"),
            }));
        }
        Ok(Runs::of(job.inputs).output())
    }

    fn report(&self, input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        Ok(report::sections(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{FORMAT_ERRORS, REACHED, TURNS};
    use adfarm_agent::testing::Scripted;
    use adfarm_proto::{Cell, Item, Variant, Verdict};
    use adfarm_suite::Models;
    use serde_json::json;

    fn spec(name: &str, params: serde_json::Value) -> SolutionSpec {
        adfarm_suite::solution_entry(name, "p", 64, params)
    }

    #[test]
    fn solutions_are_checked_at_plan_time_with_their_field() {
        let s = CounterSuite;
        assert!(s
            .check_solution(&spec(AGENT, json!({"max_turns": 3})))
            .is_ok());
        assert!(s.check_solution(&spec(ECHO, json!({}))).is_ok());
        let field = |r: Result<(), DataError>| match r {
            Err(DataError::Param { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            field(s.check_solution(&spec(ECHO, json!({"max_turns": 3})))),
            "params.max_turns"
        );
        assert_eq!(
            field(s.check_solution(&spec(AGENT, json!({"max_turns": 99})))),
            "params.max_turns"
        );
        let unknown = s.check_solution(&spec("answer", json!({}))).unwrap_err();
        assert!(
            unknown.to_string().contains("valid: agent, echo"),
            "{unknown}"
        );
    }

    #[test]
    fn the_estimate_counts_the_agents_turns_and_nothing_else() {
        let s = CounterSuite;
        let agent = spec(AGENT, json!({"max_turns": 3}));
        let item = item();
        assert_eq!(s.estimate(SOLVE, &agent, &item).calls, 3);
        assert_eq!(s.estimate(SOLVE, &spec(ECHO, json!({})), &item).calls, 0);
        assert_eq!(
            s.estimate(PASS_AT_K, &agent, &item),
            CallEstimate::default()
        );
    }

    fn item() -> Item {
        task::Task::nth(1).item(1)
    }

    #[tokio::test]
    async fn echo_answers_the_task_and_never_calls_the_model() {
        let llm = Scripted::new(vec![]);
        let sol = CounterSuite.solution(&spec(ECHO, json!({}))).expect("echo");
        let models = Models {
            llm: &llm,
            embedder: None,
        };
        let solved = sol.solve(&item(), models, 1).await.expect("no call");
        assert!(llm.requests().is_empty());
        assert_eq!(solved.output.text, item().input);
        let scores: Vec<(&str, &Verdict)> = solved
            .scores
            .iter()
            .map(|s| (s.metric.as_str(), &s.verdict))
            .collect();
        assert_eq!(
            scores,
            [
                (REACHED, &Verdict::Score(0.0)),
                (FORMAT_ERRORS, &Verdict::Score(0.0)),
                (TURNS, &Verdict::Score(0.0))
            ]
        );
    }

    #[tokio::test]
    async fn the_declared_stage_scores_an_items_runs() {
        let s = CounterSuite;
        let sweep: adfarm_proto::SweepSpec = serde_json::from_value(json!({
            "name": "s",
            "suites": [{"name": "counter", "datasets": ["default"], "params": {"items": 2}}],
            "solutions": [{"name": "agent", "provider": "p"}],
            "providers": [],
        }))
        .expect("a sweep");
        let stages = s
            .stages(SweepView {
                spec: &sweep,
                suite: &sweep.suites[0],
            })
            .expect("valid params");
        assert_eq!(stages, [pass_at_k::stage()]);

        let cell = Cell {
            suite: SUITE.into(),
            dataset: task::DATASET.into(),
            solution: AGENT.into(),
            seed: 0,
        };
        let (it, none, failed) = (item(), Variant::none(), [None, None]);
        let job = |stage| StageJob {
            stage,
            cell: &cell,
            item: &it,
            variant: &none,
            solution: None,
            inputs: &failed,
        };
        let out = s
            .run_stage(job(PASS_AT_K), StageModels::default())
            .await
            .expect("runs");
        assert_eq!(out.scores.len(), 2);
        assert!(out
            .scores
            .iter()
            .all(|sc| sc.verdict == Verdict::Score(0.0)));
        assert!(s
            .run_stage(job("judge"), StageModels::default())
            .await
            .is_err());
    }
}
