//! Scripted agents as plain trajectories, to check the scorer end to end:
//! the `Oracle` replays the reference and answers it; each mutant breaks
//! one thing and should earn its failure label (no account list → TE,
//! wrong dates → PE, a tool-less turn → IF, wrong arithmetic → CE, an
//! invented number → Hal). A mutant answers from its own results, as an
//! agent would, so where its mutation changes the data its answer is
//! wrong and the answer metric is tested too.
//!
//! A script is a [`Plan`]: its calls, turns without a tool and answer.
//! [`episode`] plays it directly; [`ScriptedModel`] writes it turn by turn
//! through an agent protocol, so the agent loop is checked by the same
//! labels.
//!
//! - `model`: the plan as a chat model's replies;
//! - `own`: a mutant's own run of the reference, and its answer read from
//!   what that run returned.

mod model;
pub mod own;

pub use model::ScriptedModel;

use serde::{Deserialize, Serialize};

use crate::replay::{Answer, Replay};
use crate::scoring::Episode;
use crate::tasks::{AnswerKind, Task};
use crate::tools::spec::GET_USER_ACCOUNT_LIST;
use crate::tools::{Call, Platform};

/// A scripted agent (serde names as [`Script::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Script {
    /// The reference, answered.
    Oracle,
    /// Skips `get_user_account_list`.
    NoAccountList,
    /// Asks for every date one day early.
    WrongDates,
    /// Spends a turn without a tool call.
    ToollessTurn,
    /// Computes the final value wrongly (times 1.1) from the right data.
    WrongArithmetic,
    /// Adds a number found in no observation.
    InventedNumber,
}

impl Script {
    /// Every script, the oracle first.
    pub const ALL: [Script; 6] = [
        Script::Oracle,
        Script::NoAccountList,
        Script::WrongDates,
        Script::ToollessTurn,
        Script::WrongArithmetic,
        Script::InventedNumber,
    ];

    /// Kebab-case name, for model names and reports.
    pub fn name(self) -> &'static str {
        match self {
            Script::Oracle => "oracle",
            Script::NoAccountList => "no-account-list",
            Script::WrongDates => "wrong-dates",
            Script::ToollessTurn => "toolless-turn",
            Script::WrongArithmetic => "wrong-arithmetic",
            Script::InventedNumber => "invented-number",
        }
    }
}

/// What a script does on one task.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Its calls, in order.
    pub calls: Vec<Call>,
    /// For each call, the index of the reference step it plays.
    pub steps: Vec<usize>,
    /// Turns it spends without a tool call (before any call).
    pub toolless_turns: u32,
    /// Its final answer.
    pub answer: String,
}

/// The number an invented-number mutant adds: in no observation.
pub const INVENTED: &str = "98765.43";

/// The reference answer as an agent would write it.
pub fn answer_text(answer: Option<&Answer>) -> String {
    match answer {
        None => "The platform does not provide what this needs, so I cannot answer it.".into(),
        Some(Answer::Number(n)) => format!("The answer is {n}."),
        Some(Answer::IdList(ids)) if ids.is_empty() => "None qualify.".into(),
        Some(Answer::IdList(ids)) => format!(
            "The IDs are {}.",
            ids.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(Answer::Bool(b)) => if *b { "Yes." } else { "No." }.into(),
        Some(Answer::Choice(c)) | Some(Answer::Text(c)) => format!("The answer is {c}."),
    }
}

/// The reference step the task's answer is read from (its index in
/// `task.steps`), or None for a task without an answer.
pub fn answer_step(task: &Task) -> Option<usize> {
    let head = task.answer.as_ref()?.from.split(['.', '[']).next()?;
    task.steps.iter().position(|s| s.id == head)
}

impl Plan {
    /// The call that plays reference step `step`, if the plan makes one.
    pub fn call_of(&self, step: usize) -> Option<usize> {
        self.steps.iter().position(|&s| s == step)
    }
}

/// The episode `script` plays on `task`, or None when the mutation does
/// not apply to it (no account list to skip, no dates, no computed number).
pub fn episode(
    script: Script,
    task: &Task,
    reference: &Replay,
    platform: &Platform,
) -> Option<Episode> {
    let p = plan(script, task, reference, platform)?;
    Some(Episode::play(
        platform,
        p.calls,
        &p.answer,
        p.toolless_turns,
    ))
}

/// What `script` does on `task`, or None when the mutation does not apply
/// to it. The oracle copies the reference; a mutant plays the reference
/// with its mutation on `platform` and answers from what its own calls
/// returned (see [`own`]), so a mutation that changes the data changes the
/// answer.
pub fn plan(script: Script, task: &Task, reference: &Replay, platform: &Platform) -> Option<Plan> {
    let mut mutation = own::Mutation::default();
    let mut toolless = 0;
    match script {
        Script::Oracle => {
            return Some(Plan {
                calls: reference.calls.clone(),
                steps: (0..reference.calls.len()).collect(),
                toolless_turns: 0,
                answer: answer_text(reference.answer.as_ref()),
            })
        }
        Script::NoAccountList => {
            mutation.skip = Some(
                task.steps
                    .iter()
                    .position(|s| s.tool == GET_USER_ACCOUNT_LIST)?,
            );
        }
        Script::WrongDates => {
            if !reference
                .calls
                .iter()
                .any(|c| own::shift_dates(&mut c.args.clone()))
            {
                return None;
            }
            mutation.shift_dates = true;
        }
        Script::ToollessTurn => toolless = 1,
        Script::WrongArithmetic => {
            let spec = task.answer.as_ref()?;
            if !matches!(spec.kind, AnswerKind::Number | AnswerKind::Percent)
                || !spec.from.ends_with(".output")
            {
                return None;
            }
            let at = answer_step(task)?;
            own::slip(reference.calls.get(at)?.args["code"].as_str()?)?;
            mutation.slip_at = Some(at);
        }
        Script::InventedNumber => {}
    }
    let run = own::play(task, reference, platform, &mutation)?;
    let answer = run.answer(task);
    let mut text = match &answer {
        Some(a) => answer_text(Some(a)),
        None if task.answer.is_none() => answer_text(None),
        None => own::NO_ANSWER.to_string(),
    };
    match script {
        // A slip that leaves the value as it was is no slip (1.1 × 0).
        Script::WrongArithmetic if answer == reference.answer => return None,
        Script::InventedNumber => text.push_str(&format!(" The previous figure was {INVENTED}.")),
        _ => {}
    }
    Some(Plan {
        calls: run.calls,
        steps: run.steps,
        toolless_turns: toolless,
        answer: text,
    })
}
