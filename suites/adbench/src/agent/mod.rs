//! AD-Bench's agents: a model answers a task's question by calling the
//! platform's tools over turns, under one of two protocols, and the
//! episode is recorded for scoring.
//!
//! - `prompt`: system prompts, corrections and the closing question (versioned);
//! - `react`: the paper's `<plan>`/`<tools>` tags, read and written;
//! - `function_calling`: OpenAI `tools` and tool messages;
//! - `turn`: a turn's calls checked against the tools, and format errors;
//! - `overflow`: telling context overflow from model failures.
//!
//! An episode: the system prompt and the question, then at most
//! `max_turns` model turns. A turn's calls run in order on the blocking
//! pool (the calculator's child can take seconds), all before the next
//! turn. `summarize_results` ends the tool phase; one more call, offering
//! no tools, asks for the final answer ([`prompt::FINAL_ANSWER`]).
//!
//! Design decisions:
//! - a malformed turn runs nothing, gets a correction naming the fault and
//!   uses a turn; it counts as a tool-less turn too (it is an
//!   instruction-following failure, the IF label's evidence);
//! - at the turn limit the final answer is not asked: without a declared
//!   outcome the answer cannot grade correct, and a forced guess would only
//!   add noise to the failure labels;
//! - context overflow ends the episode with `context_overflow` set and no
//!   final answer; only real model failures (transport, status, budget,
//!   configuration) are errors;
//! - every size is bounded: a reply past [`turn::MAX_REPLY_CHARS`] or a
//!   call past [`turn::MAX_ARGUMENT_CHARS`] is a malformed turn whose echo
//!   is cut; observations are cut at `observation_chars` with the reason
//!   inside it; an episode storing more than [`EPISODE_BYTES`] ends;
//! - nothing in a [`Run`] depends on timing, so the same replies give the
//!   same bytes.

pub mod function_calling;
pub mod overflow;
pub mod prompt;
pub mod react;
pub mod turn;

use std::sync::Arc;

use adfarm_llm::{ChatRequest, Completion, LlmError, Message, Provider, ToolChoice};
use serde::{Deserialize, Serialize};

pub use overflow::is_context_overflow;
pub use prompt::{FC_PROMPT_VERSION, REACT_PROMPT_VERSION};
pub use turn::FormatError;

use crate::scoring::Episode;
use crate::tools::{Call, EpisodeState, Observation, Platform, OBSERVATION_CHARS};
use crate::world::Day;

/// How the agent calls tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// The paper's tags in plain text.
    React,
    /// OpenAI function calling.
    FunctionCalling,
}

impl Protocol {
    /// The version of its prompt protocol, part of a score's identity.
    pub fn prompt_version(self) -> &'static str {
        match self {
            Protocol::React => REACT_PROMPT_VERSION,
            Protocol::FunctionCalling => FC_PROMPT_VERSION,
        }
    }
}

/// An episode's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Model turns before the episode is cut (the closing call not counted).
    pub max_turns: u32,
    /// Calls one turn may make.
    pub max_calls_per_turn: u32,
    /// Characters of an observation the model reads.
    pub observation_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_turns: 12,
            max_calls_per_turn: 8,
            observation_chars: OBSERVATION_CHARS,
        }
    }
}

/// Sampling of every model call of the episode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Output cap per call.
    pub max_tokens: u32,
    /// Temperature (0 = greedy).
    pub temperature: f32,
    /// Seed.
    pub seed: u64,
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

/// One model turn of the tool phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// What the model wrote (ReAct: the whole reply; function calling:
    /// the text beside its calls).
    pub text: String,
    /// Indices into the episode's calls of the calls this turn ran.
    pub calls: Vec<usize>,
    /// Why the turn was rejected, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_error: Option<FormatError>,
}

/// Tokens over the episode's model calls. Whether a call came from the
/// cache is left out: a rerun served from the cache is the same run, byte
/// for byte (the worker meters what it actually paid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tokens {
    /// Model calls answered (the closing call included).
    pub model_calls: u32,
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
}

impl Tokens {
    fn add(&mut self, c: &Completion) {
        self.model_calls += 1;
        self.input += c.usage.input;
        self.output += c.usage.output;
    }
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

/// What one episode may store (its turns' text, calls and observations as
/// JSON): the episode ends ([`End::StoreLimit`], no final answer) after
/// the turn that passes it. One turn adds at most a reply of
/// [`turn::MAX_REPLY_CHARS`] and `max_calls_per_turn` calls with their
/// observations, so a stored run stays under twice this.
pub const EPISODE_BYTES: usize = 1 << 20;

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

/// The conversation and the episode so far.
struct Agent<'p> {
    protocol: Protocol,
    platform: &'p Arc<Platform>,
    limits: Limits,
    sampling: Sampling,
    messages: Vec<Message>,
    state: EpisodeState,
    calls: Vec<Call>,
    observations: Vec<Observation>,
    turns: Vec<Turn>,
    toolless: u32,
    usage: Tokens,
    /// JSON bytes of the turns, calls and observations recorded so far.
    stored: usize,
}

/// Bytes `v` takes as JSON.
fn json_bytes<T: Serialize + ?Sized>(v: &T) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

impl Agent<'_> {
    fn request(&self, closing: bool) -> ChatRequest {
        let mut req = ChatRequest::new(self.messages.clone());
        req.max_tokens = self.sampling.max_tokens;
        req.temperature = self.sampling.temperature;
        req.seed = self.sampling.seed;
        if !closing {
            match self.protocol {
                Protocol::React => req.stop = vec![react::STOP.to_string()],
                Protocol::FunctionCalling => {
                    req.tools = self.platform.specs().to_vec();
                    req.tool_choice = Some(ToolChoice::Required);
                }
            }
        }
        req
    }

    /// The model's reply, or None when the conversation no longer fits.
    async fn ask(
        &mut self,
        llm: &dyn Provider,
        closing: bool,
    ) -> Result<Option<Completion>, LlmError> {
        match llm.chat(&self.request(closing)).await {
            Ok(c) => {
                self.usage.add(&c);
                Ok(Some(c))
            }
            Err(e) if is_context_overflow(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Runs `calls` in order on the blocking pool.
    async fn execute(
        &mut self,
        calls: Vec<Call>,
    ) -> Result<(Vec<usize>, Vec<Observation>), LlmError> {
        let platform = Arc::clone(self.platform);
        let mut state = std::mem::take(&mut self.state);
        let work = calls.clone();
        let (state, observations) = tokio::task::spawn_blocking(move || {
            let obs: Vec<Observation> = work
                .iter()
                .map(|c| platform.call(&mut state, &c.tool, &c.args))
                .collect();
            (state, obs)
        })
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => LlmError::Infra(format!("tool calls were cancelled: {e}")),
        })?;
        self.state = state;
        let first = self.calls.len();
        self.calls.extend(calls);
        self.observations.extend(observations.iter().cloned());
        Ok(((first..self.calls.len()).collect(), observations))
    }

    /// Plays one turn's reply: runs its calls or answers why not.
    async fn play(&mut self, reply: Completion) -> Result<(), LlmError> {
        let specs = self.platform.specs();
        let max = self.limits.max_calls_per_turn;
        let chars = self.limits.observation_chars;
        let (text, checked, assistant) = match self.protocol {
            Protocol::React => {
                let checked = turn::check_length(&reply.text, &[])
                    .and_then(|()| react::parse(&reply.text))
                    .and_then(|r| turn::check(&r.calls, specs, max));
                let text = turn::cut_echo(&reply.text, turn::MAX_REPLY_CHARS);
                (text.clone(), checked, Message::assistant(text))
            }
            Protocol::FunctionCalling => {
                let raw = function_calling::raw_calls(&reply);
                let checked = turn::check_length(&reply.text, &raw)
                    .and_then(|()| turn::check(&raw, specs, max));
                let earlier = self.messages.iter().map(|m| m.tool_calls.len()).sum();
                let assistant = function_calling::assistant(&reply, earlier, max);
                (assistant.content.clone(), checked, assistant)
            }
        };
        self.messages.push(assistant.clone());
        let (calls_before, observations_before) = (self.calls.len(), self.observations.len());
        let mut record = Turn {
            text,
            calls: Vec::new(),
            format_error: None,
        };
        match checked {
            Ok(calls) if calls.is_empty() => {
                self.toolless += 1;
                self.messages.push(Message::user(match self.protocol {
                    Protocol::React => react::NO_CALL,
                    Protocol::FunctionCalling => prompt::NO_CALL,
                }));
            }
            Ok(calls) => {
                let (ran, obs) = self.execute(calls).await?;
                record.calls = ran;
                match self.protocol {
                    Protocol::React => self
                        .messages
                        .push(Message::user(react::results(&obs, chars))),
                    Protocol::FunctionCalling => self
                        .messages
                        .extend(function_calling::results(&assistant, &obs, chars)),
                }
            }
            Err(e) => {
                self.toolless += 1;
                match self.protocol {
                    Protocol::React => self.messages.push(Message::user(react::rejected(&e))),
                    // Only a reply with calls can be malformed: each gets its answer.
                    Protocol::FunctionCalling => self
                        .messages
                        .extend(function_calling::rejected(&assistant, &e)),
                }
                record.format_error = Some(e);
            }
        }
        self.stored += json_bytes(&record)
            + json_bytes(&self.calls[calls_before..])
            + json_bytes(&self.observations[observations_before..]);
        self.turns.push(record);
        Ok(())
    }

    /// Asks for the final answer after `summarize_results`.
    fn close(&mut self) {
        match self.messages.last_mut() {
            // ReAct: the closing question rides on the last results message.
            Some(m) if self.protocol == Protocol::React => {
                m.content.push_str("\n\n");
                m.content.push_str(prompt::FINAL_ANSWER);
            }
            _ => self.messages.push(Message::user(prompt::FINAL_ANSWER)),
        }
    }

    fn finish(self, end: End, final_text: String) -> Run {
        Run {
            protocol: self.protocol,
            prompt_version: self.protocol.prompt_version().to_string(),
            episode: Episode {
                calls: self.calls,
                observations: self.observations,
                flags: self.state.flags,
                outcome: self.state.outcome,
                final_text,
                toolless_turns: self.toolless,
                context_overflow: end == End::ContextOverflow,
            },
            turns: self.turns,
            usage: self.usage,
            end,
        }
    }
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
    let system = match protocol {
        Protocol::React => prompt::react_system(&brief, &limits, platform.specs()),
        Protocol::FunctionCalling => prompt::function_calling_system(&brief, &limits),
    };
    let mut agent = Agent {
        protocol,
        platform: &platform,
        limits,
        sampling,
        messages: vec![
            Message::system(system),
            Message::user(prompt::question(&brief)),
        ],
        state: EpisodeState::default(),
        calls: Vec::new(),
        observations: Vec::new(),
        turns: Vec::new(),
        toolless: 0,
        usage: Tokens::default(),
        stored: 0,
    };
    for _ in 0..limits.max_turns {
        let Some(reply) = agent.ask(llm, false).await? else {
            return Ok(agent.finish(End::ContextOverflow, String::new()));
        };
        agent.play(reply).await?;
        if agent.stored > EPISODE_BYTES {
            return Ok(agent.finish(End::StoreLimit, String::new()));
        }
        if agent.state.ended() {
            agent.close();
            return Ok(match agent.ask(llm, true).await? {
                Some(answer) => agent.finish(End::Summarized, answer.text),
                None => agent.finish(End::ContextOverflow, String::new()),
            });
        }
    }
    Ok(agent.finish(End::TurnLimit, String::new()))
}
