//! AD-Bench as an AdFarm suite.
//!
//! - `dataset`: the `tasks` dataset, one item per task × environment date;
//! - `solutions`: model agents (ReAct, function calling) and scripted ones;
//! - `stages`: `replay` (ground truth), `score` (per episode), `pass-at-k`,
//!   and `judge` (an optional LLM second opinion on the labels);
//! - `report`: the paper's Table 2 and Table 3 layouts, coverage and cost;
//! - `headline`: its benchmark version and leaderboard metrics (Pass@1,
//!   Pass@3, coverage overall and per tier);
//! - `review`: what people review (the agent's answer against the
//!   reference, an episode on the judge's questions);
//! - `command`: `adfarm adbench replay` and `adfarm adbench check`.
//!
//! An episode is a solved item: the solve job plays the whole episode (the
//! agent's turns and the platform's answers) and stores it; the CPU-lane
//! stages grade it, so re-scoring never re-runs a model.

pub mod command;
pub mod dataset;
pub mod headline;
pub mod judge;
pub mod report;
pub mod review;
pub mod solutions;
pub mod stages;

use std::sync::Arc;

use adfarm_calculator::{run_stdio, Calculator};
use adfarm_proto::report::Section;
use adfarm_proto::{Item, SolutionSpec, Stage, SOLVE};
use adfarm_suite::{
    Benchmark, CallEstimate, ChildEntry, CommandError, DataError, Headlines, ItemIter, JobError,
    ReportInput, Reviewables, Solution, StageJob, StageModels, StageOutput, Suite, SweepView,
    Toolbox,
};
use async_trait::async_trait;

use solutions::{Agent, FUNCTION_CALLING, REACT};

/// Name of the suite in sweep files.
pub const SUITE: &str = "adbench";

/// The calculator child's subcommand: `adfarm adbench calculator`.
pub const CALCULATOR_ENTRY: &str = "calculator";

/// The AD-Bench suite.
pub struct AdBench {
    calculator: Result<Calculator, String>,
}

impl AdBench {
    /// The suite as the `adfarm` binary serves it: agents' calculator code
    /// runs in this executable's `adbench calculator` child.
    pub fn new() -> AdBench {
        AdBench {
            calculator: std::env::current_exe()
                .map(|exe| Calculator::new(exe, [SUITE, CALCULATOR_ENTRY]))
                .map_err(|e| e.to_string()),
        }
    }

    /// The suite with calculator children run by `calculator` (tests use
    /// the crate's own `adbench-calculator` binary).
    pub fn with_calculator(calculator: Calculator) -> AdBench {
        AdBench {
            calculator: Ok(calculator),
        }
    }
}

impl Default for AdBench {
    fn default() -> AdBench {
        AdBench::new()
    }
}

#[async_trait]
impl Suite for AdBench {
    fn name(&self) -> &'static str {
        SUITE
    }

    fn datasets(&self) -> Vec<String> {
        vec![dataset::DATASET.into()]
    }

    fn solutions(&self) -> Vec<String> {
        solutions::names()
    }

    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
        dataset::items(dataset, params)
    }

    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError> {
        // Checked here so a bad parameter fails the sweep file, not a job.
        dataset::Params::read(&sweep.suite.params)?.select()?;
        Ok(stages::declared(&sweep.spec.judges))
    }

    fn estimate(&self, stage: &str, solution: &SolutionSpec, _item: &Item) -> CallEstimate {
        if stage == judge::JUDGE {
            // One verdict call: the question, both trajectories with cut
            // observations, six booleans back.
            return CallEstimate {
                calls: 1,
                overhead_tokens: 1_500,
                reads_response: false,
                output_tokens: Some(60),
            };
        }
        let model_agent = [REACT, FUNCTION_CALLING].contains(&solution.name.as_str());
        if stage != SOLVE || !model_agent {
            return CallEstimate::default();
        }
        // The paper's agents take 3.25–4.15 steps: about five turns and the
        // answer call, each prompt carrying the nine tool schemas (~2k
        // tokens) and the turns so far.
        CallEstimate {
            calls: 6,
            overhead_tokens: 4_000,
            reads_response: false,
            output_tokens: Some(200),
        }
    }

    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError> {
        Agent::from_spec(spec, Err(String::new())).map(|_| ())
    }

    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError> {
        Ok(Arc::new(Agent::from_spec(spec, self.calculator.clone())?))
    }

    async fn run_stage(
        &self,
        job: StageJob<'_>,
        models: StageModels<'_>,
    ) -> Result<StageOutput, JobError> {
        let job = stages::Job::of(&job);
        if job.stage == judge::JUDGE {
            return judge::run(&job, models.llm).await;
        }
        // Replays take milliseconds to a few hundred: off the async threads.
        tokio::task::spawn_blocking(move || stages::run(&job))
            .await
            .map_err(|e| {
                JobError::Data(DataError::Param {
                    field: "stage".into(),
                    reason: format!("the stage job panicked: {e}"),
                })
            })?
    }

    fn command(&self) -> Option<clap::Command> {
        Some(command::command())
    }

    async fn run_command(
        &self,
        matches: &clap::ArgMatches,
        _toolbox: &dyn Toolbox,
    ) -> Result<(), CommandError> {
        print!("{}", command::run(matches)?);
        Ok(())
    }

    fn child_entries(&self) -> &'static [ChildEntry] {
        &[ChildEntry {
            name: CALCULATOR_ENTRY,
            run: run_stdio,
        }]
    }

    fn report(&self, input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        Ok(report::sections(input))
    }

    fn benchmark(&self, sweep: SweepView<'_>) -> Result<Option<Benchmark>, DataError> {
        headline::benchmark(&sweep.suite.params).map(Some)
    }

    fn headlines(&self, input: &ReportInput<'_>) -> Result<Headlines, DataError> {
        Ok(headline::headlines(input))
    }

    fn reviews(&self, input: &ReportInput<'_>) -> Result<Reviewables, DataError> {
        let questions = review::Questions::of(&input.suite.params)?;
        Ok(review::reviewables(input, &questions))
    }
}
