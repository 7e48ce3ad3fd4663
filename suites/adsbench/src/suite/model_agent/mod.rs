//! The model-driven agent: any provider's model manages the account through
//! the Ads API's tools ([`tools`]) on the shared agent loop
//! ([`adfarm_agent`]), under ReAct tags or function calling.
//!
//! An episode runs on the simulated clock. At each decision point (every
//! `cadence` hours, as for the scripted agents) the agent gets a fresh
//! conversation: the system prompt ([`prompt`]), then the time, the
//! account and the brief; it searches, mutates and reads its change
//! history until it calls `end_decision` (or its turns run out); then the
//! market advances to the next decision point. A fresh conversation per
//! decision keeps every prompt bounded however long the episode; what the
//! agent did before is in its change history, which it can read.
//!
//! Every model call goes through the farm's gateway, cached by request: a
//! killed episode replays from the cache at no cost, and two runs give the
//! same bytes, embedded or distributed (the market is a pure function of
//! its seed and the agent's calls).

pub mod operation;
pub mod prompt;
pub mod report;
mod solution;
pub mod tools;

pub use solution::{brief, Transcript, FUNCTION_CALLING, MODEL_AGENTS, REACT, TRANSCRIPT_METRICS};

use std::sync::Arc;

use adfarm_agent::{Ending, Limits, Protocol, Sampling, Script, Tokens};
use adfarm_llm::{LlmError, Message, Provider};
use serde::{Deserialize, Serialize};

use super::harness::{ApiRun, Harness};
use crate::sandbox::{AdsClient, Sandbox};
use tools::{AdsTools, Desk};

/// What one decision came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The simulated time it was made at, `YYYY-MM-DD HH:MM`.
    pub at: String,
    /// Model turns it took.
    pub turns: u32,
    /// Turns rejected as malformed.
    pub format_errors: u32,
    /// Tool calls that ran.
    pub calls: u32,
    /// How the conversation ended (`closed`: `end_decision` was called).
    pub end: adfarm_agent::End,
    /// Google's error codes the API answered the decision's calls with,
    /// in call order (`QueryError.BAD_FIELD_NAME`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// A model agent's episode: the harness's counts and change set, and each
/// decision's conversation in brief.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRun {
    /// What the harness recorded (the change set among it).
    pub api: ApiRun,
    /// Each decision, in order.
    pub decisions: Vec<Decision>,
    /// API requests the API refused (its errors in the observation).
    pub refused: u32,
    /// Tokens over every model call.
    pub usage: Tokens,
    /// The cause the agent reported, on a task that asks for one.
    pub diagnosis: Option<String>,
}

/// The agent: its protocol and bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelAgent {
    /// How it calls tools.
    pub protocol: Protocol,
    /// Bounds of one decision's conversation.
    pub limits: Limits,
    /// Output tokens per call.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f32,
}

impl ModelAgent {
    /// Runs one episode of `llm` on `sandbox` under `harness`, telling it
    /// `brief` at every decision and, when `causes` are given, offering
    /// `report_diagnosis` over them; `keep_going` is checked before every
    /// tick.
    ///
    /// # Errors
    /// Only the model's own failures (transport, status, budget); the job
    /// is then retried whole, its finished calls answered from the cache.
    #[allow(clippy::too_many_arguments)]
    pub async fn episode(
        &self,
        llm: &dyn Provider,
        sandbox: Sandbox,
        mut harness: Harness,
        brief: &str,
        causes: Option<&[&str]>,
        seed: u64,
        keep_going: Arc<dyn Fn() -> bool + Send + Sync>,
    ) -> Result<(Sandbox, ModelRun), LlmError> {
        let tools = Arc::new(match causes {
            Some(causes) => AdsTools::diagnosing(causes),
            None => AdsTools::default(),
        });
        let system = prompt::system(self.protocol, &self.limits, tools_specs(&tools));
        let sampling = Sampling {
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            seed,
        };
        let (cadence, floor) = (
            harness.plan().brief.cadence_hours,
            harness.plan().brief.roas_floor,
        );
        let total = harness.decision_points(sandbox.market());
        let mut desk = Desk::new(sandbox);
        let mut decisions = Vec::new();
        let mut usage = Tokens::default();
        loop {
            // The market's ticks are CPU work: off the async runtime.
            let stop = Arc::clone(&keep_going);
            let (h, d, point) = tokio::task::spawn_blocking(move || {
                let point = harness.to_next_decision(&mut desk.sandbox, &mut || stop());
                (harness, desk, point)
            })
            .await
            .map_err(|e| LlmError::Infra(format!("the market thread failed: {e}")))?;
            (harness, desk) = (h, d);
            let Some(now) = point else { break };
            desk.decided = false;
            desk.committed = 0;
            let (changes_before, refused_before) = (desk.changes.len(), desk.refused);
            let situation = prompt::Situation {
                brief,
                customer_id: desk.sandbox.customer_id(),
                date: desk.sandbox.today(),
                minute: now.tick * (24 * 60 / crate::market::TICKS_PER_DAY),
                decision: decisions.len() as u32 + 1,
                decisions: total,
                cadence_hours: cadence,
                roas_floor: floor,
            };
            let script = Script {
                protocol: self.protocol,
                opening: vec![
                    Message::system(system.clone()),
                    Message::user(prompt::situation(&situation)),
                ],
                no_call: prompt::no_call(self.protocol),
                ending: Ending::Tool { closing: None },
                reply_note: String::new(),
            };
            let t = adfarm_agent::run(llm, Arc::clone(&tools), desk, script, self.limits, sampling)
                .await?;
            usage.merge(t.usage);
            decisions.push(Decision {
                at: format!(
                    "{} {:02}:{:02}",
                    situation.date,
                    situation.minute / 60,
                    situation.minute % 60
                ),
                turns: t.turns.len() as u32,
                format_errors: t.turns.iter().filter(|x| x.format_error.is_some()).count() as u32,
                calls: t.calls.len() as u32,
                end: t.end,
                errors: t
                    .observations
                    .iter()
                    .flat_map(|o| o.errors.iter().cloned())
                    .collect(),
            });
            desk = t.state;
            let made = desk.changes[changes_before..].to_vec();
            // A decision "fails" as a scripted one does: the API refused a request.
            harness.decided(&desk.sandbox, made, desk.refused > refused_before);
        }
        let (refused, diagnosis) = (desk.refused, desk.diagnosis.take());
        let api = harness.finish();
        Ok((
            desk.sandbox,
            ModelRun {
                api,
                decisions,
                refused,
                usage,
                diagnosis,
            },
        ))
    }
}

fn tools_specs(tools: &AdsTools) -> &[adfarm_llm::Tool] {
    adfarm_agent::Toolbox::specs(tools)
}
