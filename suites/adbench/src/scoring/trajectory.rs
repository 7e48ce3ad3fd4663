//! Trajectory coverage: each reference step is matched by an agent call
//! with the same tool and equal key arguments (id lists as sets, dates as
//! resolved, required `fields` a subset of those requested), placed after
//! the calls matching the steps it waits for, so reordered or parallel
//! calls count and an inverted dependency does not. A `search` counts when
//! a needed entry is in its top 3; a calculator when it printed the
//! reference value.

use serde_json::Value;

use super::episode::Episode;
use super::numbers::numbers;
use crate::replay::answer::round2;
use crate::replay::calculator_tool::CALCULATOR;
use crate::replay::Replay;
use crate::tasks::Task;
use crate::tools::spec::SEARCH;

/// How a task's reference steps were matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// Per reference step: the index of the agent call matching it.
    pub matched: Vec<Option<usize>>,
    /// Steps whose only matching calls came before a step they wait for.
    pub inverted: Vec<String>,
    /// Steps whose tool was called, but never with matching key args.
    pub key_arg_mismatch: Vec<String>,
}

impl Coverage {
    /// Share of reference steps matched, 0..=1.
    pub fn fraction(&self) -> f64 {
        if self.matched.is_empty() {
            return 1.0;
        }
        self.matched.iter().filter(|m| m.is_some()).count() as f64 / self.matched.len() as f64
    }
}

/// An id or a list of ids as a sorted set of their text.
fn id_set(v: &Value) -> Option<Vec<String>> {
    let items = v.as_array()?;
    let mut s: Vec<String> = items
        .iter()
        .map(|x| match x {
            Value::String(s) => s.trim().to_string(),
            other => other.to_string(),
        })
        .collect();
    s.sort();
    s.dedup();
    Some(s)
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.trim().to_string(),
        other => other.to_string(),
    }
}

/// True when the agent's value for key argument `key` matches the reference's.
pub fn key_arg_matches(key: &str, reference: &Value, agent: Option<&Value>) -> bool {
    let Some(agent) = agent else { return false };
    if key == "fields" {
        let (Some(need), Some(got)) = (id_set(reference), id_set(agent)) else {
            return false;
        };
        return need.iter().all(|f| got.contains(f));
    }
    match (id_set(reference), id_set(agent)) {
        (Some(a), Some(b)) => a == b,
        (None, None) => scalar(reference) == scalar(agent),
        _ => false,
    }
}

fn printed_value_matches(reference: &str, agent: &str) -> bool {
    let want = numbers(reference);
    if want.is_empty() {
        return reference.trim() == agent.trim() || agent.contains(reference.trim());
    }
    let got: Vec<f64> = numbers(agent).into_iter().map(round2).collect();
    want.iter().all(|w| got.contains(&round2(*w)))
}

fn output_of(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["output"].as_str().map(str::to_string))
        .unwrap_or_default()
}

fn call_matches(
    task: &Task,
    step_index: usize,
    reference: &Replay,
    episode: &Episode,
    i: usize,
) -> bool {
    let step = &task.steps[step_index];
    let call = &episode.calls[i];
    let obs = &episode.observations[i];
    if call.tool != step.tool || !obs.ok() {
        return false;
    }
    match step.tool.as_str() {
        SEARCH if !step.entry.is_empty() => step
            .entry
            .iter()
            .any(|e| obs.text.contains(&format!("\"ID\":\"{e}\""))),
        SEARCH => true,
        CALCULATOR => printed_value_matches(
            &output_of(&reference.observations[step_index].text),
            &output_of(&obs.text),
        ),
        _ => {
            let want = &reference.calls[step_index].args;
            step.key_args
                .iter()
                .all(|k| key_arg_matches(k, &want[k], call.args.get(k)))
        }
    }
}

/// Matches `episode` against the task's replayed reference (same date).
pub fn coverage(task: &Task, reference: &Replay, episode: &Episode) -> Coverage {
    let mut matched: Vec<Option<usize>> = vec![None; task.steps.len()];
    let mut used = vec![false; episode.calls.len()];
    let mut inverted = Vec::new();
    let mut mismatch = Vec::new();
    for (s, step) in task.steps.iter().enumerate() {
        // The earliest position allowed: after every matched predecessor.
        let floor = step
            .after
            .iter()
            .filter_map(|a| task.steps.iter().position(|x| &x.id == a))
            .filter_map(|p| matched[p])
            .map(|i| i + 1)
            .max()
            .unwrap_or(0);
        let candidates: Vec<usize> = (0..episode.calls.len())
            .filter(|&i| !used[i] && call_matches(task, s, reference, episode, i))
            .collect();
        match candidates.iter().find(|&&i| i >= floor) {
            Some(&i) => {
                used[i] = true;
                matched[s] = Some(i);
            }
            None if !candidates.is_empty() => inverted.push(step.id.clone()),
            None if episode.calls.iter().any(|c| c.tool == step.tool) => {
                mismatch.push(step.id.clone())
            }
            None => {}
        }
    }
    Coverage {
        matched,
        inverted,
        key_arg_mismatch: mismatch,
    }
}
