//! The report of a sweep: counts, leaderboard cells, usage and cost, dead
//! letters. Built by the coordinator from a store's tally; written as JSON,
//! CSV or Markdown.

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
    /// Dead-lettered jobs with their reasons (budget skips excluded).
    pub dead_letters: Vec<Failure>,
    /// GEM-Bench tables (issue 4), when the sweep has a `gem` suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gem: Option<GemTables>,
}

/// Job counts of one kind.
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

/// A metric's summary in a GEM-Bench table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Scored values.
    pub n: i64,
    /// Values left unscored.
    pub unscored: i64,
    /// Mean.
    pub mean: Option<f64>,
    /// 95% CI half-width.
    pub ci95: Option<f64>,
}

/// The GEM-Bench tables of a sweep (paper Tables 3, 4, 5, 6, 7–9, and judge
/// agreement). Metric maps are keyed by metric name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GemTables {
    /// Table 3: per dataset × solution, the generation-time and embedding
    /// metrics (injection-rate, ad-selected, ctr, response-flow,
    /// response-coherence, ad-flow, ad-coherence).
    pub effectiveness: Vec<GemRow>,
    /// Judges, in sweep order.
    pub judges: Vec<String>,
    /// Tables 4 and 7–9: per dataset × solution × judge, the six judge
    /// metrics (and moderate-good-rate) and their Overall.
    pub judge_scores: Vec<GemJudgeRow>,
    /// Table 6: token cost per solution.
    pub cost: Vec<GemCostRow>,
    /// Weight of input tokens in the cost Overall.
    pub input_ratio: f64,
    /// Pairwise agreement of the judges.
    pub agreement: Vec<GemAgreement>,
    /// Ordinal Krippendorff's α over all judges' verdicts.
    pub alpha_all: Option<f64>,
    /// False when per-job results were not read (cost and agreement empty).
    pub per_job: bool,
    /// Table 5, the embedding-model ablation, when the sweep has
    /// `embedding_ablation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_ablation: Option<GemEmbeddingAblation>,
}

/// Table 5: the same responses scored by each embedding model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GemEmbeddingAblation {
    /// Embedders (provider names): the sweep's `embedder` first, then the
    /// `embedding_ablation` ones in sweep order.
    pub embedders: Vec<String>,
    /// One row per dataset × solution.
    pub rows: Vec<GemAblationRow>,
}

/// One dataset × solution of the embedding-model ablation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemAblationRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Embedder → embedding metric (response-flow, response-coherence,
    /// ad-flow, ad-coherence) → summary.
    pub metrics: BTreeMap<String, BTreeMap<String, Stat>>,
}

/// One row of the effectiveness table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Metric summaries.
    pub metrics: BTreeMap<String, Stat>,
}

/// One judge's scores of one solution on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemJudgeRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Judge.
    pub judge: String,
    /// The six judge metrics (and moderate-good-rate).
    pub metrics: BTreeMap<String, Stat>,
    /// Mean of the six judge metrics' means; `None` unless all six have one.
    pub overall: Option<f64>,
}

/// Token cost of one solution on one dataset, per response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemCostRow {
    /// Dataset.
    pub dataset: String,
    /// Solution.
    pub solution: String,
    /// Responses with recorded calls.
    pub responses: i64,
    /// Mean input tokens of the calls before the response is shown.
    pub ittft: Option<f64>,
    /// Mean output tokens of those calls.
    pub ottft: Option<f64>,
    /// input_ratio·ITTFT + OTTFT.
    pub overall: Option<f64>,
    /// Mean USD per response at the sweep's prices (cached calls included:
    /// they are the solution's cost).
    pub usd_per_response: Option<f64>,
    /// Mean seconds of model calls before the response is shown (cached
    /// calls count their original time). Measured, so it differs between
    /// runs and deployments where every other figure is identical.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_s: Option<f64>,
}

/// Agreement of two judges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GemAgreement {
    /// First judge.
    pub judge_a: String,
    /// Second judge.
    pub judge_b: String,
    /// Verdicts both judges scored.
    pub paired: i64,
    /// Cohen's κ on the verdict categories.
    pub kappa: Option<f64>,
    /// Ordinal Krippendorff's α of the two judges.
    pub alpha: Option<f64>,
    /// Kendall's τ-b of the two judges' Overall per solution.
    pub tau: Option<f64>,
}
