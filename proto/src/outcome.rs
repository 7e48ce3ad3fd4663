//! What a job leaves behind: its result (output, scores, usage) or, when it
//! cannot succeed, a failure with the reason.

use crate::job::{Cell, JobId};
use serde::{Deserialize, Serialize};

/// Who a model call was made for; cost is reported per role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Producing the response under test.
    Generation,
    /// Scoring a response.
    Judge,
    /// Embedding texts for metrics or retrieval.
    Embedding,
    /// An agent's turns in an episode (the system under test).
    Agent,
    /// A simulated environment's own model calls (users, other parties).
    Environment,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 5] = [
        Role::Generation,
        Role::Judge,
        Role::Embedding,
        Role::Agent,
        Role::Environment,
    ];

    /// Stable name for labels and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Generation => "generation",
            Role::Judge => "judge",
            Role::Embedding => "embedding",
            Role::Agent => "agent",
            Role::Environment => "environment",
        }
    }

    /// Parses [`Role::as_str`] output.
    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// Where token counts came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsageSource {
    /// The provider's `usage` field.
    Reported,
    /// Counted with a tokenizer (an estimate for remote models).
    Counted,
}

/// Tokens of one model call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Usage {
    /// Model name.
    pub model: String,
    /// Role of the call.
    pub role: Role,
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
    /// Served from the AdFarm cache: no provider call, no cost.
    pub cached: bool,
    /// Reported by the provider or counted here.
    pub source: UsageSource,
    /// Wall time of the provider call that produced the reply, retries and
    /// rate-limit waits excluded. A cached reply keeps the time of the call
    /// that made it, so a response's latency does not depend on which job
    /// happened to make a shared call first.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub latency_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A metric value, or why there is none. An unparsable judge reply or an
/// undefined metric is counted as unscored, never as 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A score (0–100 for benchmark metrics).
    Score(f64),
    /// No score, with the reason (e.g. `parse-failure`, `no-ad`).
    Unscored(String),
}

/// One metric of one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Metric name.
    pub metric: String,
    /// The value or why there is none.
    pub verdict: Verdict,
}

/// The generated text (and suite data) that follow-up jobs consume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// Final response text.
    pub text: String,
    /// Solution-specific data (selected ad, injection slot, ...).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub meta: serde_json::Value,
}

/// A finished job, stored once per job id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// The job.
    pub id: JobId,
    /// Its stage ([`crate::stage::SOLVE`] or a declared one).
    pub stage: String,
    /// Suite, dataset, solution, seed.
    pub cell: Cell,
    /// Id of the dataset item, so reports pair the results about one item
    /// (a response and its judges' verdicts) in one pass over the store.
    #[serde(default)]
    pub item: String,
    /// Scorer: the judge of a judge job, or the ablation embedder of an
    /// ablation embed-metrics job (the tally's judge column; see
    /// [`crate::tally::NO_JUDGE`]). `None` for every other job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// Generated output (generate jobs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    /// Metric values.
    pub scores: Vec<Score>,
    /// Model calls made for this job.
    pub usage: Vec<Usage>,
}

/// A job that will not succeed, with the reason (a dead letter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The job (or a hash of an unreadable message).
    pub id: JobId,
    /// Its stage, when known.
    pub stage: Option<String>,
    /// Bounded error code (e.g. `http-4xx`, `bad-message`, `budget`).
    pub code: String,
    /// Human-readable reason; never contains secrets.
    pub reason: String,
    /// Deliveries/attempts made.
    pub attempts: u32,
}
