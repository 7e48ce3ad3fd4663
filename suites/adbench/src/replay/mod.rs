//! Ground truth by replay: a task's reference trajectory, its templates
//! resolved step by step against the world at the job's date D (and hour
//! H), played through the platform; the answer is read from the final
//! observations by the task's answer spec. A replay is a pure function of
//! (task, seed, D, H), so two replays give identical bytes.
//!
//! - `calculator_tool`: the calculator as a platform tool;
//! - `answer`: typed answers and reading them from observations.

pub mod answer;
pub mod calculator_tool;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tasks::{template, Task};
use crate::tools::spec::SEARCH;
use crate::tools::{Call, Config, Observation, Outcome, Platform};
use crate::world::{Day, World, WorldError};
pub use answer::Answer;
use calculator_tool::{Backend, CalculatorTool};

/// The platform reference trajectories replay on: lenient dependencies
/// (the loader already checked them) and the in-process calculator.
///
/// # Errors
/// [`WorldError`] when the date or hour is out of range.
pub fn reference_platform(seed: u64, today: Day, hour: u8) -> Result<Platform, WorldError> {
    let world = World::new(seed, today, hour)?;
    Ok(Platform::new(world, Config::default())
        .with_tool(Box::new(CalculatorTool::new(Backend::InProcess))))
}

/// A replayed reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// Task id.
    pub task: String,
    /// The calls made, templates resolved.
    pub calls: Vec<Call>,
    /// One observation per call.
    pub observations: Vec<Observation>,
    /// How the reference ended.
    pub outcome: Option<Outcome>,
    /// The reference answer (none for an Unresolved task).
    pub answer: Option<Answer>,
}

/// Why a reference did not replay cleanly: a broken task or a world it
/// does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task {task}, step {step}: {message}")]
pub struct ReplayError {
    /// Task id.
    pub task: String,
    /// Step id, or `answer`.
    pub step: String,
    /// Cause.
    pub message: String,
}

/// Parses an observation's text, with its step's result id as `rid`: what
/// templates and answer specs read.
pub fn parsed(obs: &Observation) -> Value {
    let mut v: Value = serde_json::from_str(&obs.text).unwrap_or(Value::Null);
    if let (Value::Object(m), Some(id)) = (&mut v, &obs.result_id) {
        m.insert("rid".into(), Value::String(id.clone()));
    }
    v
}

/// Replays `task`'s reference on `platform`.
///
/// # Errors
/// [`ReplayError`] on an unresolved template, an error observation, a
/// search that misses its entry, or an answer that cannot be read.
pub fn replay(task: &Task, platform: &Platform) -> Result<Replay, ReplayError> {
    let world = platform.world();
    let fail = |step: &str, message: String| ReplayError {
        task: task.id.clone(),
        step: step.to_string(),
        message,
    };
    let user = world
        .users()
        .get(task.user)
        .ok_or_else(|| fail("-", format!("the world has no user #{}", task.user)))?
        .id;
    let mut state = crate::tools::EpisodeState::default();
    let mut calls = Vec::with_capacity(task.steps.len());
    let mut observations: Vec<Observation> = Vec::with_capacity(task.steps.len());
    let mut seen: Vec<(String, Value)> = Vec::new();
    for step in &task.steps {
        let lookup = |id: &str| seen.iter().find(|(s, _)| s == id).map(|(_, v)| v.clone());
        let ctx = template::Context {
            today: world.today(),
            user,
            steps: &lookup,
        };
        let args = template::resolve(&step.args, &ctx).map_err(|e| fail(&step.id, e))?;
        let obs = platform.call(&mut state, &step.tool, &args);
        if !obs.ok() {
            return Err(fail(&step.id, format!("error observation: {}", obs.text)));
        }
        // A reference never leans on the platform's leniency.
        if let Some(flag) = obs.flags.first() {
            return Err(fail(&step.id, format!("dependency flag: {}", flag.detail)));
        }
        if step.tool == SEARCH && !step.entry.is_empty() {
            let v = parsed(&obs);
            let ids: Vec<&str> = v["rows"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r["ID"].as_str())
                .collect();
            if !step.entry.iter().any(|e| ids.contains(&e.as_str())) {
                return Err(fail(
                    &step.id,
                    format!("search returned {ids:?}, none of {:?}", step.entry),
                ));
            }
        }
        seen.push((step.id.clone(), parsed(&obs)));
        calls.push(Call {
            tool: step.tool.clone(),
            args,
        });
        observations.push(obs);
    }
    let answer = match &task.answer {
        None => None,
        Some(spec) => {
            let head = spec.from.split(['.', '[']).next().unwrap_or("");
            let obs = seen
                .iter()
                .find(|(s, _)| s == head)
                .map(|(_, v)| v)
                .ok_or_else(|| fail("answer", format!("no step {head}")))?;
            Some(answer::read(spec, obs).map_err(|e| fail("answer", e))?)
        }
    };
    Ok(Replay {
        task: task.id.clone(),
        calls,
        observations,
        outcome: state.outcome,
        answer,
    })
}
