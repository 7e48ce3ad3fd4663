//! One conversation: the script's opening messages, then at most
//! `max_turns` model turns. A turn's calls run in order on the blocking
//! pool (a tool may take seconds: a sandboxed child process, a market
//! advancing), all before the next turn.
//!
//! How it ends is the script's [`Ending`]:
//! - [`Ending::Answer`]: a reply without calls is the answer (the model
//!   is offered the tools with `tool_choice` Auto);
//! - [`Ending::Tool`]: only a tool ends it ([`Toolbox::ended`]); a reply
//!   without calls is told [`Script::no_call`] and uses a turn. Function
//!   calling then asks with `tool_choice` Required: text is never the
//!   right move, and a local model writes a schema-constrained call only
//!   when one is required. The closing question, if any, is asked once
//!   the tools ended it, offering no tools.
//!
//! Design decisions:
//! - a malformed turn runs nothing, gets a correction naming the fault and
//!   uses a turn; it counts as a tool-less turn too (an
//!   instruction-following failure);
//! - context overflow ends the conversation with [`End::ContextOverflow`]
//!   and no answer; only real model failures (transport, status, budget,
//!   configuration) are errors;
//! - every size is bounded: a reply past [`Limits::reply_chars`] or a
//!   call past [`Limits::argument_chars`] is a malformed turn whose echo
//!   is cut; observations are cut at `observation_chars` by
//!   [`Observed::shown`]; a conversation storing more than
//!   [`EPISODE_BYTES`] ends;
//! - nothing in a [`Transcript`] depends on timing, so the same replies
//!   give the same bytes.

use std::sync::Arc;

use adfarm_llm::{ChatRequest, Completion, LlmError, Message, Provider, Tool, ToolChoice};
use serde::{Deserialize, Serialize};

use crate::overflow::is_context_overflow;
use crate::turn::{self, Call, FormatError, RawCall};
use crate::{function_calling, react};

/// How the agent calls tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// ReAct tags in plain text.
    React,
    /// OpenAI function calling.
    FunctionCalling,
}

/// Characters of an observation the model reads by default: about 1,500
/// tokens, a page of a table.
pub const OBSERVATION_CHARS: usize = 6000;

/// A conversation's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Model turns before the conversation is cut (the closing call not
    /// counted).
    pub max_turns: u32,
    /// Calls one turn may make.
    pub max_calls_per_turn: u32,
    /// Characters of an observation the model reads.
    pub observation_chars: usize,
    /// Characters one reply may be, its text and every call's arguments
    /// ([`turn::MAX_REPLY_CHARS`] by default).
    pub reply_chars: usize,
    /// Characters one call's arguments may be
    /// ([`turn::MAX_ARGUMENT_CHARS`] by default). A suite whose tools take
    /// large requests by design raises both, so its tools, not the loop,
    /// answer an oversized one.
    pub argument_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_turns: 12,
            max_calls_per_turn: 8,
            observation_chars: OBSERVATION_CHARS,
            reply_chars: turn::MAX_REPLY_CHARS,
            argument_chars: turn::MAX_ARGUMENT_CHARS,
        }
    }
}

/// Sampling of every model call of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Output cap per call.
    pub max_tokens: u32,
    /// Temperature (0 = greedy).
    pub temperature: f32,
    /// Seed.
    pub seed: u64,
}

/// What the model reads of a tool's answer.
pub trait Observed {
    /// The tool that answered.
    fn tool(&self) -> &str;
    /// The id the answer is stored under, when the suite keeps results.
    fn result_id(&self) -> Option<&str> {
        None
    }
    /// The text as shown, at most `max_chars` characters.
    fn shown(&self, max_chars: usize) -> String;
}

/// A suite's tools and the state they act on.
pub trait Toolbox: Send + Sync + 'static {
    /// What the calls change (an episode's bookkeeping, a market).
    type State: Send + 'static;
    /// A call's answer.
    type Observation: Observed + Clone + Serialize + Send + 'static;
    /// The tools offered, with their JSON Schemas.
    fn specs(&self) -> &[Tool];
    /// Runs one checked call (its tool is one of [`Toolbox::specs`], its
    /// arguments a JSON object). Whatever the arguments say, this answers:
    /// a bad call is an observation, not a panic.
    fn call(&self, state: &mut Self::State, call: &Call) -> Self::Observation;
    /// Whether the calls so far ended the conversation.
    fn ended(&self, state: &Self::State) -> bool;
}

/// How a conversation ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// A reply without calls is the answer.
    Answer,
    /// Only a tool ends it; then `closing`, when set, is asked with no
    /// tools and its reply is the answer.
    Tool {
        /// The closing question.
        closing: Option<String>,
    },
}

/// What the agent is told: the suite's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The protocol it runs under.
    pub protocol: Protocol,
    /// The opening messages (the system prompt and the brief).
    pub opening: Vec<Message>,
    /// The correction after a reply without calls, under [`Ending::Tool`].
    pub no_call: String,
    /// How it ends.
    pub ending: Ending,
    /// What a too-long reply's correction adds (the tools' own limits).
    pub reply_note: String,
}

/// One model turn of the tool phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// What the model wrote (ReAct: the whole reply; function calling:
    /// the text beside its calls).
    pub text: String,
    /// Indices into the conversation's calls of the calls this turn ran.
    pub calls: Vec<usize>,
    /// Why the turn was rejected, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_error: Option<FormatError>,
}

/// Tokens over the conversation's model calls. Whether a call came from
/// the cache is left out: a rerun served from the cache is the same run,
/// byte for byte (the worker meters what it actually paid).
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

    /// Adds another conversation's tokens.
    pub fn merge(&mut self, other: Tokens) {
        self.model_calls += other.model_calls;
        self.input += other.input;
        self.output += other.output;
    }
}

/// Why a conversation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// A tool ended it ([`Ending::Tool`]); the closing question, if any,
    /// was answered.
    Closed,
    /// A reply without calls answered ([`Ending::Answer`]).
    Answered,
    /// `max_turns` turns passed.
    TurnLimit,
    /// The conversation outgrew the model's context.
    ContextOverflow,
    /// What the conversation stored passed [`EPISODE_BYTES`].
    StoreLimit,
}

/// What one conversation may store (its turns' text, calls and
/// observations as JSON): it ends ([`End::StoreLimit`], no answer) after
/// the turn that passes it. One turn adds at most a reply of
/// [`Limits::reply_chars`] and `max_calls_per_turn` calls with their
/// observations, so a stored conversation stays under this plus one
/// turn.
pub const EPISODE_BYTES: usize = 1 << 20;

/// A finished conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript<S, O> {
    /// The tools' state at the end.
    pub state: S,
    /// Every call that ran, in order.
    pub calls: Vec<Call>,
    /// Their answers, in the same order.
    pub observations: Vec<O>,
    /// The tool phase, turn by turn.
    pub turns: Vec<Turn>,
    /// The calls each rejected turn wrote, as written, by turn index (a
    /// suite that records them does so in its own terms).
    pub rejected: Vec<(usize, Vec<RawCall>)>,
    /// Turns that ran no call (malformed ones included).
    pub toolless: u32,
    /// Tokens spent.
    pub usage: Tokens,
    /// Why it ended.
    pub end: End,
    /// The answer: the closing reply ([`End::Closed`]) or the reply
    /// without calls ([`End::Answered`]); empty otherwise.
    pub answer: String,
}

/// The conversation so far.
struct Agent<'t, T: Toolbox> {
    script: Script,
    toolbox: &'t Arc<T>,
    limits: Limits,
    sampling: Sampling,
    messages: Vec<Message>,
    /// `None` only while a turn's calls run.
    state: Option<T::State>,
    calls: Vec<Call>,
    observations: Vec<T::Observation>,
    turns: Vec<Turn>,
    rejected: Vec<(usize, Vec<RawCall>)>,
    toolless: u32,
    usage: Tokens,
    /// JSON bytes of the turns, calls and observations recorded so far.
    stored: usize,
}

/// Bytes `v` takes as JSON.
fn json_bytes<V: Serialize + ?Sized>(v: &V) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// What a turn's reply amounts to.
enum Reply {
    /// Calls to run.
    Calls(Vec<Call>),
    /// No call: the answer, or a correction.
    Toolless,
    /// Malformed: nothing runs.
    Rejected(FormatError, Vec<RawCall>),
}

impl<T: Toolbox> Agent<'_, T> {
    fn request(&self, closing: bool) -> ChatRequest {
        let mut req = ChatRequest::new(self.messages.clone());
        req.max_tokens = self.sampling.max_tokens;
        req.temperature = self.sampling.temperature;
        req.seed = self.sampling.seed;
        if !closing {
            match self.script.protocol {
                Protocol::React => req.stop = vec![react::STOP.to_string()],
                Protocol::FunctionCalling => {
                    req.tools = self.toolbox.specs().to_vec();
                    req.tool_choice = Some(match self.script.ending {
                        Ending::Answer => ToolChoice::Auto,
                        Ending::Tool { .. } => ToolChoice::Required,
                    });
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
    ) -> Result<(Vec<usize>, Vec<T::Observation>), LlmError> {
        let toolbox = Arc::clone(self.toolbox);
        let mut state = self.state.take().expect("the state is back between turns");
        let work = calls.clone();
        let (state, observations) = tokio::task::spawn_blocking(move || {
            let obs: Vec<T::Observation> =
                work.iter().map(|c| toolbox.call(&mut state, c)).collect();
            (state, obs)
        })
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => LlmError::Infra(format!("tool calls were cancelled: {e}")),
        })?;
        self.state = Some(state);
        let first = self.calls.len();
        self.calls.extend(calls);
        self.observations.extend(observations.iter().cloned());
        Ok(((first..self.calls.len()).collect(), observations))
    }

    /// Reads a reply: its text as recorded, what it amounts to, and the
    /// assistant message the conversation keeps.
    fn read(&self, reply: &Completion) -> (String, Reply, Message) {
        let specs = self.toolbox.specs();
        let max = self.limits.max_calls_per_turn;
        let (reply_chars, argument_chars) = (self.limits.reply_chars, self.limits.argument_chars);
        let note = &self.script.reply_note;
        let verdict = |raw: Result<Vec<RawCall>, FormatError>| match raw {
            Ok(raw) if raw.is_empty() => Reply::Toolless,
            Ok(raw) => match turn::check(&raw, specs, max, argument_chars) {
                Ok(calls) => Reply::Calls(calls),
                Err(e) => Reply::Rejected(e, raw),
            },
            Err(e) => Reply::Rejected(e, Vec::new()),
        };
        match self.script.protocol {
            Protocol::React => {
                let raw = turn::check_length(&reply.text, &[], note, reply_chars)
                    .and_then(|()| react::parse(&reply.text))
                    .map(|r| r.calls);
                let text = turn::cut_echo(&reply.text, reply_chars);
                (text.clone(), verdict(raw), Message::assistant(text))
            }
            Protocol::FunctionCalling => {
                let raw = function_calling::raw_calls(reply);
                let checked = match turn::check_length(&reply.text, &raw, note, reply_chars) {
                    Ok(()) => verdict(Ok(raw)),
                    Err(e) => Reply::Rejected(e, raw),
                };
                let earlier = self.messages.iter().map(|m| m.tool_calls.len()).sum();
                let assistant = function_calling::assistant(reply, earlier, &self.limits);
                (assistant.content.clone(), checked, assistant)
            }
        }
    }

    /// Plays one turn's reply: runs its calls or answers why not. Returns
    /// true when the reply is the answer ([`Ending::Answer`]).
    async fn play(&mut self, reply: Completion) -> Result<bool, LlmError> {
        let chars = self.limits.observation_chars;
        let (text, reply, assistant) = self.read(&reply);
        self.messages.push(assistant.clone());
        let (calls_before, observations_before) = (self.calls.len(), self.observations.len());
        let mut record = Turn {
            text,
            calls: Vec::new(),
            format_error: None,
        };
        let mut answered = false;
        match reply {
            Reply::Toolless => {
                self.toolless += 1;
                match self.script.ending {
                    Ending::Answer => answered = true,
                    Ending::Tool { .. } => {
                        self.messages
                            .push(Message::user(self.script.no_call.clone()));
                    }
                }
            }
            Reply::Calls(calls) => {
                let (ran, obs) = self.execute(calls).await?;
                record.calls = ran;
                match self.script.protocol {
                    Protocol::React => self
                        .messages
                        .push(Message::user(react::results(&obs, chars))),
                    Protocol::FunctionCalling => self
                        .messages
                        .extend(function_calling::results(&assistant, &obs, chars)),
                }
            }
            Reply::Rejected(e, raw) => {
                self.toolless += 1;
                match self.script.protocol {
                    Protocol::React => self.messages.push(Message::user(react::rejected(&e))),
                    // Only a reply with calls can be malformed: each gets its answer.
                    Protocol::FunctionCalling => self
                        .messages
                        .extend(function_calling::rejected(&assistant, &e)),
                }
                record.format_error = Some(e);
                self.rejected.push((self.turns.len(), raw));
            }
        }
        self.stored += json_bytes(&record)
            + json_bytes(&self.calls[calls_before..])
            + json_bytes(&self.observations[observations_before..]);
        self.turns.push(record);
        Ok(answered)
    }

    /// Asks the closing question after a tool ended the conversation.
    fn close(&mut self, question: &str) {
        match self.messages.last_mut() {
            // ReAct: the closing question rides on the last results message.
            Some(m) if self.script.protocol == Protocol::React => {
                m.content.push_str("\n\n");
                m.content.push_str(question);
            }
            _ => self.messages.push(Message::user(question)),
        }
    }

    fn finish(mut self, end: End, answer: String) -> Transcript<T::State, T::Observation> {
        Transcript {
            state: self.state.take().expect("the state is back between turns"),
            calls: self.calls,
            observations: self.observations,
            turns: self.turns,
            rejected: self.rejected,
            toolless: self.toolless,
            usage: self.usage,
            end,
            answer,
        }
    }
}

/// Runs one conversation of `llm` with `toolbox`, starting from `state`.
///
/// # Errors
/// Only the model's own failures (transport, status, budget,
/// configuration): whatever the agent does wrong, context overflow
/// included, is recorded in the [`Transcript`].
pub async fn run<T: Toolbox>(
    llm: &dyn Provider,
    toolbox: Arc<T>,
    state: T::State,
    script: Script,
    limits: Limits,
    sampling: Sampling,
) -> Result<Transcript<T::State, T::Observation>, LlmError> {
    let messages = script.opening.clone();
    let mut agent = Agent {
        script,
        toolbox: &toolbox,
        limits,
        sampling,
        messages,
        state: Some(state),
        calls: Vec::new(),
        observations: Vec::new(),
        turns: Vec::new(),
        rejected: Vec::new(),
        toolless: 0,
        usage: Tokens::default(),
        stored: 0,
    };
    for _ in 0..limits.max_turns {
        let Some(reply) = agent.ask(llm, false).await? else {
            return Ok(agent.finish(End::ContextOverflow, String::new()));
        };
        let answer = reply.text.clone();
        if agent.play(reply).await? {
            return Ok(agent.finish(End::Answered, answer));
        }
        if agent.stored > EPISODE_BYTES {
            return Ok(agent.finish(End::StoreLimit, String::new()));
        }
        let ended = agent.state.as_ref().is_some_and(|s| agent.toolbox.ended(s));
        if ended {
            let Ending::Tool {
                closing: Some(question),
            } = agent.script.ending.clone()
            else {
                return Ok(agent.finish(End::Closed, String::new()));
            };
            agent.close(&question);
            return Ok(match agent.ask(llm, true).await? {
                Some(answer) => agent.finish(End::Closed, answer.text),
                None => agent.finish(End::ContextOverflow, String::new()),
            });
        }
    }
    Ok(agent.finish(End::TurnLimit, String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{reply, Scripted};
    use serde_json::json;

    /// A lamp: `toggle` flips it, `done` ends the conversation.
    struct Lamp {
        specs: Vec<Tool>,
    }

    #[derive(Debug, Clone, Serialize)]
    struct Said(String, String);

    impl Observed for Said {
        fn tool(&self) -> &str {
            &self.0
        }
        fn shown(&self, _: usize) -> String {
            self.1.clone()
        }
    }

    impl Toolbox for Lamp {
        type State = (bool, bool);
        type Observation = Said;
        fn specs(&self) -> &[Tool] {
            &self.specs
        }
        fn call(&self, state: &mut (bool, bool), call: &Call) -> Said {
            match call.tool.as_str() {
                "toggle" => state.0 = !state.0,
                _ => state.1 = true,
            }
            Said(call.tool.clone(), json!({"on": state.0}).to_string())
        }
        fn ended(&self, state: &(bool, bool)) -> bool {
            state.1
        }
    }

    fn lamp() -> Arc<Lamp> {
        let object = json!({"type": "object", "properties": {}});
        Arc::new(Lamp {
            specs: ["toggle", "done"]
                .map(|name| Tool {
                    name: name.into(),
                    description: name.into(),
                    parameters: object.clone(),
                })
                .to_vec(),
        })
    }

    fn script(ending: Ending) -> Script {
        Script {
            protocol: Protocol::FunctionCalling,
            opening: vec![Message::system("s"), Message::user("turn the lamp on")],
            no_call: "call a tool".into(),
            ending,
            reply_note: String::new(),
        }
    }

    const SAMPLING: Sampling = Sampling {
        max_tokens: 16,
        temperature: 0.0,
        seed: 3,
    };

    #[tokio::test]
    async fn a_closing_tool_without_a_closing_question_ends_with_no_further_call() {
        let llm = Scripted::new(vec![
            reply("", &[("toggle", "{}")]),
            reply("thinking", &[]),
            reply("", &[("done", "{}")]),
        ]);
        let t = run(
            &llm,
            lamp(),
            (false, false),
            script(Ending::Tool { closing: None }),
            Limits::default(),
            SAMPLING,
        )
        .await
        .expect("scripted");
        assert_eq!(
            (t.end, t.state, t.turns.len(), t.toolless),
            (End::Closed, (true, true), 3, 1)
        );
        assert_eq!(t.answer, "");
        assert_eq!(t.usage.model_calls, 3);
        let seen = llm.requests();
        assert!(seen
            .iter()
            .all(|r| r.tool_choice == Some(ToolChoice::Required) && r.seed == 3));
        // The tool-less reply was told the script's correction.
        assert_eq!(
            seen[2].messages.last().expect("a message").content,
            "call a tool"
        );
    }

    #[tokio::test]
    async fn under_answer_ending_a_reply_without_calls_is_the_answer() {
        let llm = Scripted::new(vec![
            reply("", &[("toggle", "{}"), ("nope", "{}")]),
            reply("", &[("toggle", "{}")]),
            reply("It is on.", &[]),
        ]);
        let t = run(
            &llm,
            lamp(),
            (false, false),
            script(Ending::Answer),
            Limits::default(),
            SAMPLING,
        )
        .await
        .expect("scripted");
        assert_eq!((t.end, t.answer.as_str()), (End::Answered, "It is on."));
        // The turn naming an unknown tool ran nothing, its calls kept as written.
        assert_eq!(t.state, (true, false));
        assert_eq!(t.calls.len(), 1);
        assert_eq!(t.rejected.len(), 1);
        assert_eq!(t.rejected[0].0, 0);
        assert_eq!(t.rejected[0].1[1].name, "nope");
        let seen = llm.requests();
        assert!(seen.iter().all(|r| r.tool_choice == Some(ToolChoice::Auto)));
    }

    #[tokio::test]
    async fn the_turn_limit_ends_a_conversation_that_never_closes() {
        let llm = Scripted::new(vec![reply("", &[("toggle", "{}")]); 2]);
        let limits = Limits {
            max_turns: 2,
            ..Limits::default()
        };
        let t = run(
            &llm,
            lamp(),
            (false, false),
            script(Ending::Tool {
                closing: Some("answer".into()),
            }),
            limits,
            SAMPLING,
        )
        .await
        .expect("scripted");
        assert_eq!(
            (t.end, t.state, t.calls.len()),
            (End::TurnLimit, (false, false), 2)
        );
    }
}
