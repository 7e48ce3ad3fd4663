//! The report of a sweep: counts, leaderboard cells, usage and cost, dead
//! letters, and the sections its suites add. Built by the coordinator from
//! a store; written as JSON, CSV, Markdown or HTML.
//!
//! - this file: the report and its farm-wide parts;
//! - [`section`]: suite sections, their tables and plots, as data any
//!   renderer can draw without knowing the suite.

mod section;

pub use section::{
    Axis, Bars, Chart, Column, ColumnKind, Estimate, HeatMap, Key, Plot, Point, Scatter, Section,
    Table, Value,
};

use crate::outcome::{Failure, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A sweep's report (the JSON format is this struct).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`crate::FORMAT_VERSION`].
    pub format_version: u32,
    /// Sweep name.
    pub sweep: String,
    /// Sweep id.
    pub sweep_id: String,
    /// Planned, completed and failed jobs per stage.
    pub jobs: BTreeMap<String, JobCounts>,
    /// Leaderboard cells.
    pub cells: Vec<CellRow>,
    /// Usage and cost per model and role.
    pub usage: Vec<UsageRow>,
    /// Cost per role in USD.
    pub cost_by_role: BTreeMap<Role, f64>,
    /// Total spend in USD.
    pub cost_usd: f64,
    /// Configured budget.
    pub budget_usd: Option<f64>,
    /// True when the budget stopped the sweep before every job ran.
    pub stopped_by_budget: bool,
    /// Pre-run cost estimate in USD.
    pub estimated_cost_usd: f64,
    /// What the providers billed, per model and role: every call that
    /// reached a provider, repeats included (a redelivered job whose first
    /// result was lost calls again). `usage` counts each call once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub billed: Vec<BilledRow>,
    /// Set when the store lost an earlier registration of the sweep: Unix
    /// seconds of the present registration, the start of the interval
    /// `billed` covers (requests sent before it were erased with the store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billed_since_unix: Option<u64>,
    /// Dead-lettered jobs with their reasons (budget skips excluded).
    pub dead_letters: Vec<Failure>,
    /// What the sweep's suites add (their own tables and plots), suite by
    /// suite in sweep order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
}

/// Job counts of one stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobCounts {
    /// Jobs the sweep expands to.
    pub planned: i64,
    /// Jobs with a stored result.
    pub completed: i64,
    /// Dead-lettered jobs.
    pub failed: i64,
    /// Jobs not run because the budget was spent.
    pub skipped: i64,
}

/// One leaderboard cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellRow {
    /// Suite.
    pub suite: String,
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Judge (`-` for metrics without one; an ablation embedder's name for
    /// its embedding metrics).
    pub judge: String,
    /// Metric.
    pub metric: String,
    /// Scored values.
    pub n: i64,
    /// Values left unscored, by reason.
    pub unscored: BTreeMap<String, i64>,
    /// Mean.
    pub mean: Option<f64>,
    /// Sample standard deviation.
    pub std: Option<f64>,
    /// 95% CI half-width.
    pub ci95: Option<f64>,
}

/// The provider's bill for one model in one role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BilledRow {
    /// Model.
    pub model: String,
    /// Role.
    pub role: Role,
    /// Calls the provider answered.
    pub requests: i64,
    /// Input tokens.
    pub input_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
    /// USD.
    pub cost_usd: f64,
}

impl Report {
    /// Total of the providers' bills in USD.
    pub fn billed_usd(&self) -> f64 {
        self.billed.iter().map(|b| b.cost_usd).sum()
    }
}

/// Usage and cost of one model in one role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageRow {
    /// Model.
    pub model: String,
    /// Role.
    pub role: Role,
    /// Provider calls made.
    pub requests: i64,
    /// Calls answered from the cache.
    pub cached_requests: i64,
    /// Input tokens billed.
    pub input_tokens: i64,
    /// Output tokens billed.
    pub output_tokens: i64,
    /// Input + output tokens answered from the cache.
    pub cached_tokens: i64,
    /// Calls whose tokens were counted locally (estimates).
    pub estimated_requests: i64,
    /// USD.
    pub cost_usd: f64,
}
