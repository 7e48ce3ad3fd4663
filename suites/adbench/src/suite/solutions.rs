//! The suite's solutions: agents that play an episode on the item's world.
//!
//! - `react` and `function-calling`: a model (any provider) as the agent,
//!   through the paper's tags or the OpenAI `tools` protocol;
//! - `oracle` and the mutants (`no-account-list`, `wrong-dates`,
//!   `toolless-turn`, `wrong-arithmetic`, `invented-number`): scripted
//!   models played through the ReAct protocol, so the scorer and the
//!   protocol are checked end to end on every task without a model.
//!
//! Each episode's calculator runs agent code in a sandboxed child process
//! (this binary's `adfarm adbench calculator`).
//!
//! Params of the model agents, each optional: `max_turns` (12),
//! `max_calls_per_turn` (8), `observation_chars` (6000).

use std::sync::Arc;

use adfarm_calculator::Calculator;
use adfarm_proto::{Item, Output, Role, SolutionSpec};
use adfarm_suite::{DataError, JobError, Models, Solution, Solved};
use async_trait::async_trait;
use serde_json::Value;

use super::dataset::Setting;
use crate::agent::{self, Brief, Limits, Protocol, Sampling};
use crate::replay::calculator_tool::{Backend, CalculatorTool};
use crate::replay::{reference_platform, replay};
use crate::scripted::{Script, ScriptedModel};
use crate::tools::{Config, Platform};
use crate::world::World;

/// The model agent on the paper's ReAct tags.
pub const REACT: &str = "react";
/// The model agent on OpenAI function calling.
pub const FUNCTION_CALLING: &str = "function-calling";

/// Scripted solutions and their scripts.
pub const SCRIPTED: [(&str, Script); 6] = [
    ("oracle", Script::Oracle),
    ("no-account-list", Script::NoAccountList),
    ("wrong-dates", Script::WrongDates),
    ("toolless-turn", Script::ToollessTurn),
    ("wrong-arithmetic", Script::WrongArithmetic),
    ("invented-number", Script::InventedNumber),
];

/// Every solution name.
pub fn names() -> Vec<String> {
    [REACT, FUNCTION_CALLING]
        .into_iter()
        .chain(SCRIPTED.iter().map(|(n, _)| *n))
        .map(str::to_string)
        .collect()
}

/// Who plays the agent.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Player {
    /// The sweep's model, on a protocol.
    Model(Protocol),
    /// A scripted model, on the ReAct protocol.
    Scripted(Script),
}

/// An agent solution.
pub struct Agent {
    name: String,
    player: Player,
    limits: Limits,
    sampling: (u32, f32),
    calculator: Result<Calculator, String>,
}

const PARAMS: [&str; 3] = ["max_turns", "max_calls_per_turn", "observation_chars"];

fn bad(field: &str, reason: String) -> DataError {
    DataError::Param {
        field: format!("params.{field}"),
        reason,
    }
}

fn limits(params: &Value) -> Result<Limits, DataError> {
    let mut l = Limits::default();
    let empty = serde_json::Map::new();
    let obj = match params {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => return Err(bad("", format!("must be a table, got {other}"))),
    };
    if let Some(k) = obj.keys().find(|k| !PARAMS.contains(&k.as_str())) {
        return Err(bad(
            k,
            format!("unknown field; valid: {}", PARAMS.join(", ")),
        ));
    }
    let positive = |name: &str, max: u64| -> Result<Option<u64>, DataError> {
        obj.get(name)
            .map(|v| {
                v.as_u64()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| bad(name, format!("must be an integer in 1..={max}, got {v}")))
            })
            .transpose()
    };
    if let Some(n) = positive("max_turns", 100)? {
        l.max_turns = n as u32;
    }
    if let Some(n) = positive("max_calls_per_turn", 64)? {
        l.max_calls_per_turn = n as u32;
    }
    if let Some(n) = positive("observation_chars", 1_000_000)? {
        l.observation_chars = n as usize;
    }
    Ok(l)
}

impl Agent {
    /// The solution `spec` names, its params checked.
    ///
    /// # Errors
    /// An unknown name, or a bad parameter (field below `params`).
    pub fn from_spec(
        spec: &SolutionSpec,
        calculator: Result<Calculator, String>,
    ) -> Result<Agent, DataError> {
        let player = match spec.name.as_str() {
            REACT => Player::Model(Protocol::React),
            FUNCTION_CALLING => Player::Model(Protocol::FunctionCalling),
            other => match SCRIPTED.iter().find(|(n, _)| *n == other) {
                Some((_, script)) => Player::Scripted(*script),
                None => {
                    return Err(DataError::UnknownSolution {
                        suite: super::SUITE.into(),
                        solution: other.into(),
                        valid: names().join(", "),
                    })
                }
            },
        };
        let limits = match player {
            Player::Model(_) => limits(&spec.params)?,
            Player::Scripted(_)
                if !spec.params.is_null() && spec.params != Value::Object(Default::default()) =>
            {
                return Err(bad("", "scripted agents take no params".into()))
            }
            Player::Scripted(_) => Limits::default(),
        };
        Ok(Agent {
            name: spec.name.clone(),
            player,
            limits,
            sampling: (spec.max_tokens, spec.temperature),
            calculator,
        })
    }

    /// The protocol the agent speaks.
    pub fn protocol(&self) -> Protocol {
        match self.player {
            Player::Model(p) => p,
            Player::Scripted(_) => Protocol::React,
        }
    }
}

fn episode_data(reason: String) -> JobError {
    JobError::Data(DataError::Param {
        field: "item".into(),
        reason,
    })
}

#[async_trait]
impl Solution for Agent {
    fn name(&self) -> &str {
        &self.name
    }

    fn role(&self) -> Role {
        Role::Agent
    }

    async fn solve(&self, item: &Item, models: Models<'_>, seed: u64) -> Result<Solved, JobError> {
        let setting = Setting::of(item)?;
        let calculator = self.calculator.clone().map_err(|e| {
            JobError::Data(DataError::Files {
                path: "adfarm adbench calculator".into(),
                reason: e,
            })
        })?;
        // Worlds take a few milliseconds to build: off the async threads.
        let (platform, scripted) = {
            let s = setting.clone();
            let player = self.player;
            tokio::task::spawn_blocking(move || -> Result<_, String> {
                let world = World::new(s.seed(), s.date, s.hour).map_err(|e| e.to_string())?;
                let platform = Platform::new(
                    world,
                    Config {
                        strict_dependencies: s.strict,
                    },
                )
                .with_tool(Box::new(CalculatorTool::new(Backend::Child(calculator))));
                let scripted = match player {
                    Player::Model(_) => None,
                    Player::Scripted(script) => {
                        let reference = reference_platform(s.seed(), s.date, s.hour)
                            .map_err(|e| e.to_string())?;
                        let r = replay(&s.task, &reference).map_err(|e| e.to_string())?;
                        // A mutation that does not apply to the task leaves
                        // the reference as it is: the mutant plays it.
                        let model = ScriptedModel::new(script, &s.task, &r, &platform)
                            .or_else(|| ScriptedModel::new(Script::Oracle, &s.task, &r, &platform))
                            .ok_or_else(|| format!("task {} has no scripted play", s.task.id))?;
                        Some(model)
                    }
                };
                Ok((Arc::new(platform), scripted))
            })
            .await
            .map_err(|e| episode_data(format!("building the world panicked: {e}")))?
            .map_err(episode_data)?
        };
        let user = platform
            .world()
            .users()
            .get(setting.task.user)
            .ok_or_else(|| episode_data(format!("the world has no user #{}", setting.task.user)))?
            .id;
        let brief = Brief {
            question: &setting.task.question,
            user_id: user,
            today: setting.date,
            hour: setting.hour,
        };
        let sampling = Sampling {
            max_tokens: self.sampling.0,
            temperature: self.sampling.1,
            seed,
        };
        let run = match &scripted {
            Some(model) => {
                agent::run(
                    self.protocol(),
                    model,
                    platform,
                    brief,
                    self.limits,
                    sampling,
                )
                .await?
            }
            None => {
                agent::run(
                    self.protocol(),
                    models.llm,
                    platform,
                    brief,
                    self.limits,
                    sampling,
                )
                .await?
            }
        };
        Ok(Solved {
            output: Output {
                text: run.episode.final_text.clone(),
                meta: serde_json::to_value(&run).expect("a run serialises"),
            },
            scores: Vec::new(),
        })
    }
}
