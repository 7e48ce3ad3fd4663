//! Failure labels (multi-label), from the paper's error taxonomy:
//! - TE: a reference step not reached whose tool was never called, a stray
//!   tool (one the reference does not use and whose calls served no step;
//!   the calculator is never stray), or a dependency violation;
//! - PE: a call rejected for its arguments, or the right tool called
//!   without the reference's key arguments;
//! - IF: a turn without a tool call;
//! - CE: a calculator failure, or a wrong answer from the right data;
//! - Hal: a number in the answer that is in no observation or the question;
//! - LC: context overflow, or more than twice the reference's calls with
//!   a call repeated.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::episode::Episode;
use super::grade::Grade;
use super::numbers::numbers;
use super::trajectory::{data_step, Coverage};
use crate::replay::answer::round2;
use crate::replay::calculator_tool::CALCULATOR;
use crate::tasks::Task;
use crate::tools::spec::SUMMARIZE_RESULTS;

/// A failure label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Label {
    /// Tool error: missing or stray tool, dependency violation.
    TE,
    /// Parameter error: schema or key-argument mismatch.
    PE,
    /// Instruction following: a turn without a tool call.
    IF,
    /// Computation error.
    CE,
    /// Hallucination: answer numbers from nowhere.
    Hal,
    /// Long context: overflow, or long and repetitive.
    LC,
}

impl Label {
    /// Every label, in the paper's column order.
    pub const ALL: [Label; 6] = [
        Label::TE,
        Label::PE,
        Label::IF,
        Label::CE,
        Label::Hal,
        Label::LC,
    ];
}

/// Error codes of calls rejected for their arguments.
const ARGUMENT_CODES: [&str; 4] = [
    "bad-argument",
    "missing-argument",
    "unknown-argument",
    "not-an-object",
];

/// Labels one episode given its grade and coverage.
pub fn labels(
    task: &Task,
    episode: &Episode,
    coverage: &Coverage,
    grade: Grade,
) -> BTreeSet<Label> {
    let mut out = BTreeSet::new();
    let reference_tools: BTreeSet<&str> = task.steps.iter().map(|s| s.tool.as_str()).collect();
    let called: BTreeSet<&str> = episode.calls.iter().map(|c| c.tool.as_str()).collect();
    // A step reached another way (its data obtained) is not a missing tool,
    // and a tool whose call served a step is not stray.
    let missing = task
        .steps
        .iter()
        .zip(&coverage.matched)
        .any(|(s, m)| m.is_none() && !called.contains(s.tool.as_str()));
    let serving: BTreeSet<&str> = coverage
        .matched
        .iter()
        .flatten()
        .map(|&i| episode.calls[i].tool.as_str())
        .collect();
    // The calculator is never stray: doing the arithmetic there rather
    // than where the reference did it is a valid path.
    let stray = called
        .iter()
        .any(|t| !reference_tools.contains(t) && !serving.contains(t) && *t != CALCULATOR);
    let refused = episode
        .observations
        .iter()
        .any(|o| o.error_code.as_deref() == Some("dependency"));
    if missing || stray || refused || !episode.flags.is_empty() || !coverage.inverted.is_empty() {
        out.insert(Label::TE);
    }
    let rejected = episode.observations.iter().any(|o| {
        o.error_code
            .as_deref()
            .is_some_and(|c| ARGUMENT_CODES.contains(&c))
    });
    let key_miss = coverage
        .key_arg_mismatch
        .iter()
        .any(|id| task.step(id).is_some_and(data_step));
    if rejected || key_miss {
        out.insert(Label::PE);
    }
    if episode.toolless_turns > 0 {
        out.insert(Label::IF);
    }
    let calc_failed = episode
        .observations
        .iter()
        .any(|o| o.tool == CALCULATOR && !o.ok() && o.error_code.as_deref() == Some("tool-failed"));
    // The right data: every data step matched.
    let data_ok = task
        .steps
        .iter()
        .zip(&coverage.matched)
        .filter(|(s, _)| s.tool != CALCULATOR && s.tool != SUMMARIZE_RESULTS)
        .all(|(_, m)| m.is_some());
    if calc_failed || (grade == Grade::Wrong && data_ok && task.answer.is_some()) {
        out.insert(Label::CE);
    }
    let seen: Vec<f64> = episode
        .observations
        .iter()
        .flat_map(|o| numbers(&o.text))
        .chain(numbers(&task.question))
        .map(round2)
        .collect();
    if numbers(&episode.final_text)
        .into_iter()
        .any(|n| !seen.contains(&round2(n)))
    {
        out.insert(Label::Hal);
    }
    let repeated = episode
        .calls
        .iter()
        .enumerate()
        .any(|(i, c)| episode.calls[..i].contains(c));
    if episode.context_overflow || (episode.calls.len() > 2 * task.steps.len() && repeated) {
        out.insert(Label::LC);
    }
    out
}
