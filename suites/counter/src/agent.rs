//! The `agent` solution: an episode is the shared agent loop
//! ([`adfarm_agent`]) with the counter's tools under function calling. Each
//! tool call of a reply runs against the environment and its result goes
//! back to the model, until the model answers text or its turns run out.
//! A turn the loop rejects (a tool that does not exist, arguments that are
//! not a JSON object) runs none of its calls; each is answered with why.
//!
//! Every turn is one plain `Provider::chat` call whose request is a
//! function of the task, the seed and the earlier replies, so the farm's
//! cache answers a replayed episode turn by turn at no cost.

use std::sync::Arc;

use crate::check;
use crate::env::{self, Counter, ToolError};
use crate::episode::{Call, End, Episode, Turn};
use crate::task::Task;
use adfarm_agent::{Ending, Limits, Observed, Protocol, Sampling, Script, Toolbox, Transcript};
use adfarm_llm::{LlmError, Message, Provider, Tool};
use adfarm_proto::{Item, Output, Role, SolutionSpec};
use adfarm_suite::{DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use serde::Serialize;

/// Name of the solution.
pub const AGENT: &str = "agent";
/// Turns when `params.max_turns` is not set.
pub const DEFAULT_MAX_TURNS: u32 = 4;
/// The largest `params.max_turns` accepted.
pub const MAX_TURNS_LIMIT: u32 = 16;

/// What the agent is told before the task.
pub const INSTRUCTIONS: &str = "You operate a counter through tools. `add` adds a step of 1, 2 \
or 3 to it and returns its new value; `read` returns its value. Make the counter hold the \
target exactly, then answer with one short sentence.";

/// The counter's tools, for the agent loop.
struct Tools {
    specs: Vec<Tool>,
}

/// What a call did: the counter after it, or why it could not run.
#[derive(Debug, Clone, Serialize)]
struct Answer {
    tool: String,
    outcome: Result<i64, String>,
    text: String,
}

impl Observed for Answer {
    fn tool(&self) -> &str {
        &self.tool
    }

    fn shown(&self, _max_chars: usize) -> String {
        // A value or a one-line error: always short.
        self.text.clone()
    }
}

impl Toolbox for Tools {
    type State = Counter;
    type Observation = Answer;

    fn specs(&self) -> &[Tool] {
        &self.specs
    }

    fn call(&self, counter: &mut Counter, call: &adfarm_agent::Call) -> Answer {
        let outcome: Result<i64, ToolError> = counter.call(&call.tool, &call.args);
        Answer {
            tool: call.tool.clone(),
            text: env::tool_result(&outcome),
            outcome: outcome.map_err(|e| e.code().to_string()),
        }
    }

    /// Only an answer in text ends an episode.
    fn ended(&self, _: &Counter) -> bool {
        false
    }
}

/// The counter's record of a finished conversation.
fn episode_of(task: Task, t: Transcript<Counter, Answer>) -> Episode {
    let mut rejected = t.rejected.into_iter().peekable();
    let turns: Vec<Turn> = t
        .turns
        .iter()
        .enumerate()
        .map(|(i, turn)| {
            let mut calls: Vec<Call> = turn
                .calls
                .iter()
                .map(|&j| Call {
                    tool: t.calls[j].tool.clone(),
                    arguments: t.calls[j].args.to_string(),
                    value: t.observations[j].outcome.clone().ok(),
                    error: t.observations[j].outcome.clone().err(),
                })
                .collect();
            if let (Some(e), Some((_, raw))) =
                (&turn.format_error, rejected.next_if(|(at, _)| *at == i))
            {
                calls = raw
                    .into_iter()
                    .map(|c| Call {
                        tool: c.name,
                        arguments: c.input,
                        value: None,
                        error: Some(e.code().to_string()),
                    })
                    .collect();
            }
            Turn {
                text: turn.text.clone(),
                calls,
            }
        })
        .collect();
    let end = match t.end {
        adfarm_agent::End::Answered | adfarm_agent::End::Closed => End::Answered,
        adfarm_agent::End::TurnLimit => End::TurnCap,
        adfarm_agent::End::ContextOverflow => End::ContextOverflow,
        adfarm_agent::End::StoreLimit => End::StoreLimit,
    };
    Episode {
        task,
        turns,
        end,
        counter: t.state.value(),
    }
}

/// The tool-using agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    /// Model calls per episode at most.
    pub max_turns: u32,
    /// Output tokens per call.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f32,
}

impl Agent {
    /// The agent a solution entry describes.
    ///
    /// # Errors
    /// [`DataError::Param`] naming `params.<name>`: an unknown parameter,
    /// or a `max_turns` outside 1..=[`MAX_TURNS_LIMIT`].
    pub fn from_spec(spec: &SolutionSpec) -> Result<Agent, DataError> {
        if let Some(other) = spec
            .params
            .as_object()
            .and_then(|o| o.keys().find(|k| *k != "max_turns"))
        {
            return Err(DataError::Param {
                field: format!("params.{other}"),
                reason: format!("{AGENT} takes only `max_turns`"),
            });
        }
        let max_turns = match spec.params.get("max_turns") {
            None => DEFAULT_MAX_TURNS,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=u64::from(MAX_TURNS_LIMIT)).contains(n))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| DataError::Param {
                    field: "params.max_turns".into(),
                    reason: format!("must be an integer from 1 to {MAX_TURNS_LIMIT}, got {v}"),
                })?,
        };
        Ok(Agent {
            max_turns,
            max_tokens: spec.max_tokens,
            temperature: spec.temperature,
        })
    }

    /// Runs one episode of `task` with `llm`.
    ///
    /// # Errors
    /// A model call that failed; the episode is then re-run whole by the
    /// farm, its finished turns answered from the cache.
    pub async fn episode(
        &self,
        task: Task,
        llm: &dyn Provider,
        seed: u64,
    ) -> Result<Episode, LlmError> {
        let script = Script {
            protocol: Protocol::FunctionCalling,
            opening: vec![Message::system(INSTRUCTIONS), Message::user(task.prompt())],
            no_call: String::new(),
            ending: Ending::Answer,
            reply_note: String::new(),
        };
        let limits = Limits {
            max_turns: self.max_turns,
            ..Limits::default()
        };
        let sampling = Sampling {
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            seed,
        };
        let tools = Arc::new(Tools {
            specs: env::tools(),
        });
        let t = adfarm_agent::run(
            llm,
            tools,
            Counter::new(task.start),
            script,
            limits,
            sampling,
        )
        .await?;
        Ok(episode_of(task, t))
    }
}

/// The trajectory as a solution's output: the final answer as text, the
/// episode in `meta`, scored by the checker.
pub fn solved(e: &Episode) -> Solved {
    Solved {
        output: Output {
            text: e.answer().to_string(),
            meta: serde_json::to_value(e).expect("an episode serialises"),
        },
        scores: check::scores(e),
    }
}

#[async_trait]
impl Solution for Agent {
    fn name(&self) -> &str {
        AGENT
    }

    fn role(&self) -> Role {
        Role::Agent
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let task = Task::of(item)?;
        let e = self.episode(task, models.llm, seed).await?;
        Ok(solved(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adfarm_agent::testing::{reply, Scripted};
    use adfarm_llm::Speaker;

    fn agent(max_turns: u32) -> Agent {
        Agent {
            max_turns,
            max_tokens: 32,
            temperature: 0.0,
        }
    }

    const TASK: Task = Task {
        start: 3,
        target: 6,
    };

    #[tokio::test]
    async fn an_episode_runs_each_call_and_sends_its_result_back() {
        let llm = Scripted::new(vec![
            reply("", &[(env::ADD, r#"{"amount": 2}"#), (env::READ, "{}")]),
            reply("", &[(env::ADD, r#"{"amount": 1}"#)]),
            reply("The counter is at 6.", &[]),
        ]);
        let e = agent(4).episode(TASK, &llm, 7).await.expect("scripted");
        assert_eq!((e.counter, e.end, e.turns.len()), (6, End::Answered, 3));
        assert_eq!(e.answer(), "The counter is at 6.");
        assert_eq!(e.turns[0].calls[1].value, Some(5));
        let seen = llm.requests();
        assert_eq!(seen.len(), 3);
        assert!(seen.iter().all(|r| r.seed == 7 && r.tools.len() == 2));
        // The last request holds both turns' calls, each answered.
        let last = &seen[2].messages;
        let results: Vec<&str> = last
            .iter()
            .filter(|m| m.role == Speaker::Tool)
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(
            results,
            [r#"{"value":5}"#, r#"{"value":5}"#, r#"{"value":6}"#]
        );
        assert_eq!(last[1].content, TASK.prompt());
        let s = solved(&e);
        assert_eq!(s.output.text, "The counter is at 6.");
        assert_eq!(s.output.meta["counter"], 6);
        assert!(check::reached_in(&s.scores));
    }

    #[tokio::test]
    async fn unusable_calls_are_answered_with_errors_and_the_cap_ends_the_episode() {
        let llm = Scripted::new(vec![
            reply("", &[("reset", "{}")]),
            reply("", &[(env::ADD, r#"{"amount": 9}"#)]),
            reply("", &[(env::ADD, r#"{"amount": 3}"#)]),
        ]);
        let e = agent(3).episode(TASK, &llm, 0).await.expect("scripted");
        assert_eq!((e.counter, e.end), (6, End::TurnCap));
        assert_eq!(e.turns.iter().filter(|t| t.is_format_error()).count(), 2);
        assert_eq!(e.turns[0].calls[0].error.as_deref(), Some("unknown-tool"));
        assert_eq!(e.answer(), "");
        let seen = llm.requests();
        let told = &seen[1].messages.last().expect("a tool result").content;
        assert!(
            told.contains("names \\\"reset\\\", which is not a tool"),
            "{told}"
        );
    }

    #[test]
    fn parameters_are_checked_with_their_field() {
        let spec = |params| adfarm_suite::solution_entry(AGENT, "p", 64, params);
        let a = Agent::from_spec(&spec(serde_json::json!({}))).expect("defaults");
        assert_eq!((a.max_turns, a.max_tokens), (DEFAULT_MAX_TURNS, 64));
        let set = Agent::from_spec(&spec(serde_json::json!({"max_turns": 2}))).expect("valid");
        assert_eq!(set.max_turns, 2);
        for (bad, field) in [
            (serde_json::json!({"max_turns": 0}), "params.max_turns"),
            (serde_json::json!({"max_turns": 17}), "params.max_turns"),
            (serde_json::json!({"turns": 2}), "params.turns"),
        ] {
            match Agent::from_spec(&spec(bad)) {
                Err(DataError::Param { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{other:?}"),
            }
        }
    }
}
