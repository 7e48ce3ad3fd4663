//! AD-Bench's agents: a model answers a task's question by calling the
//! platform's tools over turns, under one of two protocols, on the shared
//! agent loop ([`adfarm_agent`]), and the episode is recorded for scoring.
//!
//! - `prompt`: system prompts, corrections and the closing question (versioned);
//! - this file: the platform as the loop's toolbox, and the episode record.
//!
//! An episode: the system prompt and the question, then at most
//! `max_turns` model turns. `summarize_results` ends the tool phase; one
//! more call, offering no tools, asks for the final answer
//! ([`prompt::FINAL_ANSWER`]).
//!
//! Design decisions:
//! - at the turn limit the final answer is not asked: without a declared
//!   outcome the answer cannot grade correct, and a forced guess would only
//!   add noise to the failure labels;
//! - context overflow ends the episode with `context_overflow` set and no
//!   final answer; only real model failures are errors.

pub mod prompt;

use std::sync::Arc;

use adfarm_agent::{Ending, Observed, Script, Toolbox};
use adfarm_llm::{LlmError, Message, Provider, Tool};
use serde::{Deserialize, Serialize};

pub use adfarm_agent::{
    function_calling, is_context_overflow, react, turn, FormatError, Limits, Protocol, Sampling,
    Tokens, Turn, EPISODE_BYTES,
};
pub use prompt::{FC_PROMPT_VERSION, REACT_PROMPT_VERSION};

use crate::scoring::Episode;
use crate::tools::{Call, EpisodeState, Observation, Platform};
use crate::world::Day;

/// The version of a protocol's prompt, part of a score's identity.
pub fn prompt_version(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::React => REACT_PROMPT_VERSION,
        Protocol::FunctionCalling => FC_PROMPT_VERSION,
    }
}

/// What the agent is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Brief<'a> {
    /// The task's question.
    pub question: &'a str,
    /// The advertiser's user id.
    pub user_id: u64,
    /// Today, which the question's dates are relative to.
    pub today: Day,
    /// The hour; today's data covers the hours before it.
    pub hour: u8,
}

/// Why an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// `summarize_results` was called and the final answer asked.
    Summarized,
    /// `max_turns` turns passed without `summarize_results`.
    TurnLimit,
    /// The conversation outgrew the model's context.
    ContextOverflow,
    /// What the episode stored passed [`EPISODE_BYTES`].
    StoreLimit,
}

/// A finished episode with its transcript summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The protocol it ran under.
    pub protocol: Protocol,
    /// Its prompt version.
    pub prompt_version: String,
    /// What scoring reads.
    pub episode: Episode,
    /// The tool phase, turn by turn.
    pub turns: Vec<Turn>,
    /// Tokens spent.
    pub usage: Tokens,
    /// Why it ended.
    pub end: End,
}

impl Observed for Observation {
    fn tool(&self) -> &str {
        &self.tool
    }

    fn result_id(&self) -> Option<&str> {
        self.result_id.as_deref()
    }

    fn shown(&self, max_chars: usize) -> String {
        self.cut(max_chars)
    }
}

impl Toolbox for Platform {
    type State = EpisodeState;
    type Observation = Observation;

    fn specs(&self) -> &[Tool] {
        Platform::specs(self)
    }

    fn call(&self, state: &mut EpisodeState, call: &Call) -> Observation {
        Platform::call(self, state, &call.tool, &call.args)
    }

    fn ended(&self, state: &EpisodeState) -> bool {
        state.ended()
    }
}

/// What a too-long reply's correction adds: the limits a reply meets first.
fn reply_note() -> String {
    format!(
        " (a call's INPUT at most {}, calculator code at most {})",
        turn::MAX_ARGUMENT_CHARS,
        adfarm_calculator::CODE_CHARS
    )
}

/// Runs one episode of `llm` answering `brief` on `platform`.
///
/// # Errors
/// Only the model's own failures (transport, status, budget,
/// configuration): whatever the agent does wrong, context overflow
/// included, is recorded in the [`Run`].
pub async fn run(
    protocol: Protocol,
    llm: &dyn Provider,
    platform: Arc<Platform>,
    brief: Brief<'_>,
    limits: Limits,
    sampling: Sampling,
) -> Result<Run, LlmError> {
    let (system, no_call) = match protocol {
        Protocol::React => (
            prompt::react_system(&brief, &limits, platform.specs()),
            prompt::REACT_NO_CALL,
        ),
        Protocol::FunctionCalling => (
            prompt::function_calling_system(&brief, &limits),
            prompt::NO_CALL,
        ),
    };
    let script = Script {
        protocol,
        opening: vec![
            Message::system(system),
            Message::user(prompt::question(&brief)),
        ],
        no_call: no_call.to_string(),
        ending: Ending::Tool {
            closing: Some(prompt::FINAL_ANSWER.to_string()),
        },
        reply_note: reply_note(),
    };
    let t = adfarm_agent::run(
        llm,
        platform,
        EpisodeState::default(),
        script,
        limits,
        sampling,
    )
    .await?;
    let end = match t.end {
        adfarm_agent::End::Closed => End::Summarized,
        adfarm_agent::End::ContextOverflow => End::ContextOverflow,
        adfarm_agent::End::StoreLimit => End::StoreLimit,
        // A reply without calls is corrected, never the answer, here.
        adfarm_agent::End::TurnLimit | adfarm_agent::End::Answered => End::TurnLimit,
    };
    Ok(Run {
        protocol,
        prompt_version: prompt_version(protocol).to_string(),
        episode: Episode {
            calls: t.calls,
            observations: t.observations,
            flags: t.state.flags,
            outcome: t.state.outcome,
            final_text: t.answer,
            toolless_turns: t.toolless,
            context_overflow: end == End::ContextOverflow,
        },
        turns: t.turns,
        usage: t.usage,
        end,
    })
}
