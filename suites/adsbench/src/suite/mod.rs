//! Ads-Bench as an AdFarm suite: the `scenarios` dataset (seeded markets),
//! the scripted API agents as solutions (`fixed-bid`, `pacing`), and a
//! report section of daily KPIs against Google's budget caps.
//!
//! - this file: the [`Suite`] impl;
//! - `solutions`: the agents as [`Solution`]s, episodes on a blocking thread;
//! - `report`: the daily tables.
//!
//! Design decision: scoring happens in the solve job. An episode's scores
//! are a pure function of the scenario and the agent (no judge, no model),
//! so the suite declares no stage of its own, and the farm's report tables
//! its scores per solution like any other metric.

mod report;
mod solutions;

pub use solutions::{
    Scripted, DEFAULT_BID_MICROS, DEFAULT_TARGET_CPA_MICROS, FIXED_BID, PACING, SOLUTIONS,
};

use crate::ope::OBP;
use crate::scenario;
use adfarm_proto::asset::Pin;
use adfarm_proto::report::Section;
use adfarm_proto::{SolutionSpec, Stage};
use adfarm_suite::{
    CallEstimate, DataError, ItemIter, JobError, ReportInput, Solution, StageJob, StageModels,
    StageOutput, Suite, SweepView,
};
use async_trait::async_trait;
use std::sync::Arc;

/// Name of the suite in sweep files.
pub const SUITE: &str = "adsbench";

/// The Ads-Bench suite.
pub struct AdsBench;

#[async_trait]
impl Suite for AdsBench {
    fn name(&self) -> &'static str {
        SUITE
    }

    fn datasets(&self) -> Vec<String> {
        vec![scenario::DATASET.into()]
    }

    /// The Open Bandit Dataset sample, for the off-policy evaluation part.
    fn assets(&self) -> Vec<&'static Pin> {
        vec![&OBP]
    }

    fn solutions(&self) -> Vec<String> {
        SOLUTIONS.iter().map(|s| s.to_string()).collect()
    }

    fn items(&self, dataset: &str, params: &serde_json::Value) -> Result<ItemIter, DataError> {
        scenario::items(dataset, params)
    }

    fn stages(&self, sweep: SweepView<'_>) -> Result<Vec<Stage>, DataError> {
        // Checked here so a bad scenario fails the sweep file, not a job.
        scenario::scenarios(&sweep.suite.params)?;
        Ok(Vec::new())
    }

    fn estimate(&self, _stage: &str, _solution: &SolutionSpec) -> CallEstimate {
        // The scripted agents call no model.
        CallEstimate::default()
    }

    fn check_solution(&self, spec: &SolutionSpec) -> Result<(), DataError> {
        Scripted::from_spec(spec).map(|_| ())
    }

    fn solution(&self, spec: &SolutionSpec) -> Result<Arc<dyn Solution>, DataError> {
        Ok(Arc::new(Scripted::from_spec(spec)?))
    }

    async fn run_stage(
        &self,
        job: StageJob<'_>,
        _models: StageModels<'_>,
    ) -> Result<StageOutput, JobError> {
        Err(JobError::Data(DataError::Param {
            field: job.stage.into(),
            reason: format!("the {SUITE} suite declares no stages"),
        }))
    }

    fn report(&self, input: &ReportInput<'_>) -> Result<Vec<Section>, DataError> {
        Ok(report::sections(input))
    }
}
