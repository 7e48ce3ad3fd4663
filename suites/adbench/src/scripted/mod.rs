//! Scripted agents as plain trajectories, to check the scorer end to end:
//! the `Oracle` replays the reference and answers it; each mutant breaks
//! one thing and should earn its failure label (no account list → TE,
//! wrong dates → PE, a tool-less turn → IF, wrong arithmetic → CE, an
//! invented number → Hal).
//!
//! A script is a [`Plan`]: its calls, turns without a tool and answer.
//! [`episode`] plays it directly; [`ScriptedModel`] writes it turn by turn
//! through an agent protocol, so the agent loop is checked by the same
//! labels.
//!
//! - `model`: the plan as a chat model's replies.

mod model;

pub use model::ScriptedModel;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::replay::calculator_tool::CALCULATOR;
use crate::replay::{Answer, Replay};
use crate::scoring::Episode;
use crate::tasks::{AnswerKind, Task};
use crate::tools::spec::GET_USER_ACCOUNT_LIST;
use crate::tools::{Call, Platform};
use crate::world::Day;

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

/// Renumbers result ids `rN` in calculator code after result `removed` is gone.
fn renumber(code: &str, removed: usize) -> String {
    let b = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < b.len() {
        let starts = b[i] == b'r'
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if starts {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if !(j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_')) {
                let n: usize = code[i + 1..j].parse().unwrap_or(0);
                out.push_str(&format!("r{}", if n > removed { n - 1 } else { n }));
                i = j;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn shift_dates(args: &mut Value) -> bool {
    let mut shifted = false;
    for key in ["begin", "end", "date"] {
        if let Some(d) = args.get(key).and_then(Value::as_str).and_then(Day::parse) {
            args[key] = Value::String(d.plus(-1).to_string());
            shifted = true;
        }
    }
    shifted
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
/// to it. `platform` runs the reference's calculator code for the
/// wrong-arithmetic mutant, which reports what its slip printed.
pub fn plan(script: Script, task: &Task, reference: &Replay, platform: &Platform) -> Option<Plan> {
    let mut calls: Vec<Call> = reference.calls.clone();
    let mut steps: Vec<usize> = (0..calls.len()).collect();
    let mut text = answer_text(reference.answer.as_ref());
    let mut toolless = 0;
    match script {
        Script::Oracle => {}
        Script::NoAccountList => {
            let at = calls.iter().position(|c| c.tool == GET_USER_ACCOUNT_LIST)?;
            let rid = reference.observations[at].result_id.as_deref()?;
            let removed: usize = rid.trim_start_matches('r').parse().ok()?;
            calls.remove(at);
            steps.remove(at);
            for c in calls.iter_mut().filter(|c| c.tool == CALCULATOR) {
                let code = renumber(c.args["code"].as_str()?, removed);
                c.args["code"] = Value::String(code);
            }
        }
        Script::WrongDates => {
            let mut any = false;
            for c in &mut calls {
                any |= shift_dates(&mut c.args);
            }
            if !any {
                return None;
            }
        }
        Script::ToollessTurn => toolless = 1,
        Script::WrongArithmetic => {
            let spec = task.answer.as_ref()?;
            if !matches!(spec.kind, AnswerKind::Number | AnswerKind::Percent)
                || !spec.from.ends_with(".output")
            {
                return None;
            }
            if reference.answer == Some(Answer::Number(0.0)) {
                return None; // 1.1 × 0 is still right
            }
            let step = spec.from.split('.').next()?;
            let at = task.steps.iter().position(|s| s.id == step)?;
            let code = calls[at].args["code"].as_str()?;
            let i = code.rfind("print(")?;
            let close = code.rfind(')').filter(|&j| j > i)?;
            let wrong = format!(
                "{}print(1.1 * ({})){}",
                &code[..i],
                &code[i + 6..close],
                &code[close..].trim_start_matches(')')
            );
            calls[at].args["code"] = Value::String(wrong);
            // The agent reports what its wrong code printed.
            let printed = Episode::play(platform, calls.clone(), "", 0).observations[at]
                .text
                .clone();
            let v: Value = serde_json::from_str(&printed).ok()?;
            let printed = v["output"].as_str()?.trim().to_string();
            if printed
                .parse::<f64>()
                .ok()
                .map(crate::replay::answer::round2)
                == reference.answer.as_ref().and_then(|a| match a {
                    Answer::Number(n) => Some(*n),
                    _ => None,
                })
            {
                return None; // the slip did not change the value
            }
            text = format!("The answer is {printed}.");
        }
        Script::InventedNumber => text.push_str(&format!(" The previous figure was {INVENTED}.")),
    }
    Some(Plan {
        calls,
        steps,
        toolless_turns: toolless,
        answer: text,
    })
}
