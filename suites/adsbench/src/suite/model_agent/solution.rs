//! The model agent as the suite's solutions `react` and
//! `function-calling`: one scenario's episode per solve, the model from the
//! sweep's provider (a local model, or any OpenAI-compatible server).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use adfarm_agent::{Limits, Protocol};
use adfarm_proto::{Item, Output, Role, Score, SolutionSpec, Verdict};
use adfarm_suite::{CallEstimate, DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::prompt::prompt_version;
use super::tools::REQUEST_CHARS;
use super::{Decision, ModelAgent};
use crate::suite::assignment::Assignment;
use crate::suite::scenario::{Scenario, DEFAULT_DAYS};

/// Name of the ReAct model agent.
pub const REACT: &str = "react";
/// Name of the function-calling model agent.
pub const FUNCTION_CALLING: &str = "function-calling";
/// Both.
pub const MODEL_AGENTS: [&str; 2] = [REACT, FUNCTION_CALLING];

/// Turns per decision when `params.max_turns` is not set: enough to read
/// the account and the day's metrics, change it and end the decision.
pub const DEFAULT_MAX_TURNS: u32 = 6;
/// Turns a decision takes on average, for the cost estimate: read the
/// account and the day's metrics, change it, end the decision.
pub const TURNS_PER_DECISION: u32 = 3;
/// The largest `params.max_turns` accepted.
pub const MAX_TURNS_LIMIT: u32 = 32;

/// Parameters a model agent takes.
const PARAMS: [&str; 2] = ["max_turns", "observation_chars"];

/// The advertiser's words when the scenario brings none: what every
/// scenario's owner wants of the account.
pub fn brief(scenario: &Scenario) -> String {
    format!(
        "Get as many conversions as the account can at a good cost, keeping each day's spend \
near the average daily budget of {:.2}. Keep the account safe: follow the kill switch rule.",
        scenario.budget_micros as f64 / 1e6
    )
}

impl ModelAgent {
    /// The agent a solution entry describes.
    ///
    /// # Errors
    /// [`DataError::Param`] naming `params.<name>`: an unknown parameter or
    /// a value out of range.
    pub fn from_spec(spec: &SolutionSpec) -> Result<ModelAgent, DataError> {
        let protocol = match spec.name.as_str() {
            REACT => Protocol::React,
            FUNCTION_CALLING => Protocol::FunctionCalling,
            other => {
                return Err(DataError::Param {
                    field: "name".into(),
                    reason: format!("{other} is not a model agent"),
                })
            }
        };
        if let Some(k) = spec
            .params
            .as_object()
            .and_then(|o| o.keys().find(|k| !PARAMS.contains(&k.as_str())))
        {
            return Err(DataError::Param {
                field: format!("params.{k}"),
                reason: format!("{} takes only {}", spec.name, PARAMS.join(", ")),
            });
        }
        let number = |key: &str, range: std::ops::RangeInclusive<u64>, default: u64| match spec
            .params
            .get(key)
        {
            None => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| range.contains(n))
                .ok_or_else(|| DataError::Param {
                    field: format!("params.{key}"),
                    reason: format!(
                        "must be an integer from {} to {}, got {v}",
                        range.start(),
                        range.end()
                    ),
                }),
        };
        let max_turns = number(
            "max_turns",
            1..=u64::from(MAX_TURNS_LIMIT),
            u64::from(DEFAULT_MAX_TURNS),
        )? as u32;
        let observation_chars = number(
            "observation_chars",
            500..=100_000,
            adfarm_agent::OBSERVATION_CHARS as u64,
        )? as usize;
        Ok(ModelAgent {
            protocol,
            limits: Limits {
                max_turns,
                observation_chars,
                reply_chars: REQUEST_CHARS,
                argument_chars: REQUEST_CHARS,
                ..Limits::default()
            },
            max_tokens: spec.max_tokens,
            temperature: spec.temperature,
        })
    }

    /// What a solve job of `spec` on `item` costs in model calls: one
    /// conversation per decision of the item's scenario (its horizon over
    /// its cadence: 14 for 14 days decided daily, 56 decided every 6 hours),
    /// [`TURNS_PER_DECISION`] turns each (fewer when `max_turns` is lower),
    /// each prompt carrying the rules, the tool schemas and the turns so
    /// far. An item that does not read counts as the default scenario; the
    /// solve reports it.
    pub fn estimate(spec: &SolutionSpec, item: &Item) -> CallEstimate {
        let turns = ModelAgent::from_spec(spec)
            .map_or(DEFAULT_MAX_TURNS, |a| a.limits.max_turns)
            .min(TURNS_PER_DECISION);
        let decisions = Assignment::of(item)
            .ok()
            .and_then(|a| a.scenario().ok())
            .map_or(DEFAULT_DAYS, |s| s.decisions());
        CallEstimate {
            calls: decisions * turns,
            overhead_tokens: 3_000,
            reads_response: false,
            output_tokens: Some(200),
        }
    }
}

/// What a model agent's solve stores beside the outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// The prompt protocol's version, part of the score's identity.
    pub prompt_version: String,
    /// Each decision's conversation in brief.
    pub decisions: Vec<Decision>,
    /// API requests refused.
    pub refused: u32,
    /// Model calls and tokens over the episode.
    pub usage: adfarm_agent::Tokens,
    /// The cause it reported, on a task that asks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<String>,
}

/// Sets its flag when dropped: the solve future was dropped, so the
/// market thread should stop at its next tick.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[async_trait]
impl Solution for ModelAgent {
    fn name(&self) -> &str {
        match self.protocol {
            Protocol::React => REACT,
            Protocol::FunctionCalling => FUNCTION_CALLING,
        }
    }

    fn role(&self) -> Role {
        Role::Agent
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let assignment = Assignment::of(item)?;
        let (scenario, sandbox, harness) = assignment.prepare(&item.id)?;
        let plan = harness.plan().clone();
        let causes = assignment.causes();
        let cancelled = Arc::new(AtomicBool::new(false));
        let guard = CancelOnDrop(Arc::clone(&cancelled));
        let keep_going = Arc::new(move || !cancelled.load(Ordering::Relaxed));
        let (sandbox, run) = self
            .episode(
                models.llm,
                sandbox,
                harness,
                &assignment.brief(),
                causes.as_deref(),
                seed,
                keep_going,
            )
            .await?;
        drop(guard);
        let graded = assignment.finish(
            &item.id,
            &scenario,
            &plan,
            &sandbox,
            run.api,
            run.diagnosis.as_deref(),
        )?;
        let transcript = Transcript {
            prompt_version: prompt_version(self.protocol).to_string(),
            decisions: run.decisions,
            refused: run.refused,
            usage: run.usage,
            diagnosis: run.diagnosis,
        };
        let t = graded.outcome.totals();
        let mut scores = graded.scores();
        scores.extend(transcript.scores());
        let mut meta = graded.meta();
        meta["transcript"] = serde_json::to_value(&transcript).expect("a transcript serialises");
        Ok(Solved {
            scores,
            output: Output {
                text: format!(
                    "{} on {}: {} decisions, spent {:.2} for {} clicks and {:.1} conversions; digest {}",
                    self.name(),
                    item.id,
                    transcript.decisions.len(),
                    t.spend_micros as f64 / 1e6,
                    t.clicks,
                    t.conversions,
                    graded.outcome.digest
                ),
                meta,
            },
        })
    }
}

/// Metric names of a model agent's own scores, after the episode's.
pub const TRANSCRIPT_METRICS: [&str; 3] = ["decisions-closed", "format-errors", "api-refusals"];

impl Transcript {
    /// The share of decisions the agent closed with `end_decision`, its
    /// malformed turns and the API requests refused.
    pub fn scores(&self) -> Vec<Score> {
        let closed = self
            .decisions
            .iter()
            .filter(|d| d.end == adfarm_agent::End::Closed)
            .count();
        let share =
            (!self.decisions.is_empty()).then(|| closed as f64 / self.decisions.len() as f64);
        let format_errors: u32 = self.decisions.iter().map(|d| d.format_errors).sum();
        vec![
            Score {
                metric: TRANSCRIPT_METRICS[0].into(),
                verdict: share
                    .map_or_else(|| Verdict::Unscored("no-decision".into()), Verdict::Score),
            },
            Score {
                metric: TRANSCRIPT_METRICS[1].into(),
                verdict: Verdict::Score(f64::from(format_errors)),
            },
            Score {
                metric: TRANSCRIPT_METRICS[2].into(),
                verdict: Verdict::Score(f64::from(self.refused)),
            },
        ]
    }
}
