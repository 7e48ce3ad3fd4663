//! A script played as a chat model: each reply is the next turn of its
//! [`Plan`], written in whichever protocol the request speaks (ReAct tags
//! when it offers no tools, tool calls when it does), and the closing
//! question gets the plan's answer. Independent reference steps share a
//! turn; `summarize_results` has the last turn to itself.

use adfarm_llm::{
    estimate_tokens, ChatRequest, Choice, Completion, LlmError, Provider, Speaker, ToolCall,
};
use adfarm_proto::{Role, Usage, UsageSource};
use async_trait::async_trait;

use super::{plan, Plan, Script};
use crate::agent::{prompt, react, Limits};
use crate::replay::Replay;
use crate::tasks::Task;
use crate::tools::spec::SUMMARIZE_RESULTS;
use crate::tools::{Call, Platform};

/// A turn of the script: what it says and the calls it makes.
#[derive(Debug, Clone, PartialEq)]
struct ScriptedTurn {
    plan: String,
    calls: Vec<Call>,
}

/// A scripted agent as a [`Provider`].
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    name: String,
    turns: Vec<ScriptedTurn>,
    answer: String,
}

/// Groups a plan's calls into turns: a call joins the current turn unless
/// it waits for a step played there, the turn is full, or it ends the
/// episode.
fn group(p: &Plan, task: &Task, max_calls: usize) -> Vec<Vec<Call>> {
    let mut turns: Vec<Vec<Call>> = Vec::new();
    let mut steps_here: Vec<usize> = Vec::new();
    for (call, &step) in p.calls.iter().zip(&p.steps) {
        let waits = task
            .ancestors(&task.steps[step].id)
            .iter()
            .any(|a| steps_here.iter().any(|&s| task.steps[s].id == a.id));
        let full = steps_here.len() >= max_calls;
        if turns.is_empty() || waits || full || call.tool == SUMMARIZE_RESULTS {
            turns.push(Vec::new());
            steps_here.clear();
        }
        steps_here.push(step);
        turns
            .last_mut()
            .expect("a turn was pushed")
            .push(call.clone());
    }
    turns
}

fn say(calls: &[Call]) -> String {
    let tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
    match tools[..] {
        [SUMMARIZE_RESULTS] => "I have what the question needs, so I close the episode.".into(),
        _ => format!("Next I call {}.", tools.join(", ")),
    }
}

impl ScriptedModel {
    /// `script` on `task` (see [`plan`]), or None when it does not apply.
    /// Turns hold at most the default limit's calls.
    pub fn new(
        script: Script,
        task: &Task,
        reference: &Replay,
        platform: &Platform,
    ) -> Option<ScriptedModel> {
        let p = plan(script, task, reference, platform)?;
        let max = Limits::default().max_calls_per_turn as usize;
        let idle = ScriptedTurn {
            plan: "Let me think about the question before using any tool.".into(),
            calls: Vec::new(),
        };
        let turns = std::iter::repeat_n(idle, p.toolless_turns as usize)
            .chain(group(&p, task, max).into_iter().map(|calls| ScriptedTurn {
                plan: say(&calls),
                calls,
            }))
            .collect();
        Some(ScriptedModel {
            name: format!("scripted-{}", script.name()),
            turns,
            answer: p.answer,
        })
    }

    fn reply(&self, req: &ChatRequest) -> Result<(String, Vec<ToolCall>), LlmError> {
        if prompt::asks_final_answer(req) {
            return Ok((self.answer.clone(), Vec::new()));
        }
        let n = req
            .messages
            .iter()
            .filter(|m| m.role == Speaker::Assistant)
            .count();
        let turn = self.turns.get(n).ok_or_else(|| {
            LlmError::Config(format!(
                "{}: asked for turn {} of a {}-turn script",
                self.name,
                n + 1,
                self.turns.len()
            ))
        })?;
        if req.tools.is_empty() {
            return Ok((react::write(&turn.plan, &turn.calls), Vec::new()));
        }
        let before: usize = req.messages.iter().map(|m| m.tool_calls.len()).sum();
        let calls = turn
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: format!("call_{}", before + i),
                name: c.tool.clone(),
                arguments: c.args.to_string(),
            })
            .collect();
        Ok((turn.plan.clone(), calls))
    }
}

#[async_trait]
impl Provider for ScriptedModel {
    fn model(&self) -> &str {
        &self.name
    }

    async fn chat(&self, req: &ChatRequest) -> Result<Completion, LlmError> {
        let (text, tool_calls) = self.reply(req)?;
        let output = estimate_tokens(&text)
            + tool_calls
                .iter()
                .map(ToolCall::estimate_tokens)
                .sum::<u64>();
        Ok(Completion {
            text,
            tool_calls,
            usage: Usage {
                model: self.name.clone(),
                role: Role::Agent,
                input: req.estimate_prompt_tokens(),
                output,
                cached: false,
                source: UsageSource::Counted,
                latency_ms: 0,
            },
        })
    }

    async fn choose(&self, _req: &ChatRequest, _options: &[String]) -> Result<Choice, LlmError> {
        Err(LlmError::Config(format!(
            "{} plays agent turns; it does not choose",
            self.name
        )))
    }
}
