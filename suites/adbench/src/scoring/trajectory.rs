//! Trajectory coverage: each reference step is matched by an agent call
//! with the same tool and equal key arguments (id lists as sets, dates as
//! resolved, required `fields` a subset of those requested), placed after
//! the calls matching the steps it waits for, so reordered or parallel
//! calls count and an inverted dependency does not. A `search` counts when
//! a needed entry is in its top 3; a calculator when it printed the
//! reference value.
//!
//! A data step the agent reached another way counts too: the step is judged
//! by the data obtained, not the literal call (as BFCL and tau-bench check
//! state rather than path). It is covered when the agent fetched data over
//! the reference step's days (a call whose `begin`..`end` or `date` spans
//! them) and its successful observations hold every cell the reference
//! step obtained that the task reads (the columns later steps or the answer
//! name; every numeric cell when a step reads the whole result), each found
//! as the same column's value in a row of such a call, as the sum of that
//! column over one such result (grouping by DATE and adding up), or printed
//! by the agent's calculator after such a call. The days are asked for
//! because a rounded rate (a CTR of 1.23%) can recur on other days.

use serde_json::Value;

use super::episode::Episode;
use super::numbers::numbers;
use crate::replay::answer::round2;
use crate::replay::calculator_tool::CALCULATOR;
use crate::replay::Replay;
use crate::tasks::{Step, Task};
use crate::tools::spec::{SEARCH, SUMMARIZE_RESULTS};
use crate::world::Day;

/// How a task's reference steps were matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// Per reference step: the index of the agent call matching it (for a
    /// step covered by data, the call that completed the data).
    pub matched: Vec<Option<usize>>,
    /// Steps covered by the data the agent obtained rather than by a
    /// matching call.
    pub by_data: Vec<String>,
    /// Steps whose only matching calls came before a step they wait for.
    pub inverted: Vec<String>,
    /// Steps whose tool was called, but never with matching key args.
    pub key_arg_mismatch: Vec<String>,
}

impl Coverage {
    /// Every reference step matched.
    pub fn complete(&self) -> bool {
        self.matched.iter().all(Option::is_some)
    }

    /// Share of reference steps matched, 0..=1.
    pub fn step_share(&self) -> f64 {
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
    let mut by_data = Vec::new();
    let mut inverted = Vec::new();
    let mut mismatch = Vec::new();
    let obtained = Obtained::of(episode);
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
        if let Some(&i) = candidates.iter().find(|&&i| i >= floor) {
            used[i] = true;
            matched[s] = Some(i);
            continue;
        }
        // One wide call may serve a step and the step after it.
        if let Some(i) = data_step(step)
            .then(|| needed(task, s, reference))
            .flatten()
            .and_then(|need| obtained.completed_at(&need, window(&reference.calls[s].args)))
            .filter(|&i| i + 1 >= floor)
        {
            matched[s] = Some(i);
            by_data.push(step.id.clone());
            continue;
        }
        if !candidates.is_empty() {
            inverted.push(step.id.clone());
        } else if episode.calls.iter().any(|c| c.tool == step.tool) {
            mismatch.push(step.id.clone());
        }
    }
    Coverage {
        matched,
        by_data,
        inverted,
        key_arg_mismatch: mismatch,
    }
}

/// Steps that fetch platform data (not search, arithmetic or the summary).
pub(crate) fn data_step(step: &Step) -> bool {
    step.tool != SEARCH && step.tool != CALCULATOR && step.tool != SUMMARIZE_RESULTS
}

/// A cell's value as compared: numbers rounded to 2 decimals.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Number(f64),
    Text(String),
}

impl Cell {
    fn of(v: &Value) -> Option<Cell> {
        match v {
            Value::Number(n) => n.as_f64().map(|x| Cell::Number(round2(x))),
            Value::String(s) => Some(Cell::Text(s.trim().to_string())),
            _ => None,
        }
    }
}

fn rows(text: &str) -> Option<Vec<serde_json::Map<String, Value>>> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("rows")?
        .as_array()?
        .iter()
        .map(|r| r.as_object().cloned())
        .collect()
}

/// Columns of step `id`'s result that the task reads, or None when some
/// step reads the whole result (by its result id) or nothing names it.
fn columns_read(task: &Task, id: &str) -> Option<Vec<String>> {
    let mut texts: Vec<String> = task.steps.iter().map(|s| s.args.to_string()).collect();
    if let Some(a) = &task.answer {
        texts.push(format!("${{{}}}", a.from));
    }
    let mut columns = Vec::new();
    for text in &texts {
        let open = format!("${{{id}.");
        for (at, _) in text.match_indices(&open) {
            let rest = &text[at + open.len()..];
            let path = &rest[..rest.find('}')?];
            let column = path.strip_prefix("rows[")?.split_once("].")?.1;
            columns.push(column.to_string());
        }
    }
    (!columns.is_empty()).then_some(columns)
}

/// The cells the reference step at `s` obtained that the task reads, or
/// None when it obtained none (an empty result is not matched by data).
fn needed(task: &Task, s: usize, reference: &Replay) -> Option<Vec<(String, Cell)>> {
    let rows = rows(&reference.observations.get(s)?.text)?;
    let columns = columns_read(task, &task.steps[s].id);
    let mut out = Vec::new();
    for row in &rows {
        for (k, v) in row {
            let wanted = match &columns {
                Some(cs) => cs.contains(k),
                None => v.is_number(),
            };
            if let Some(c) = Cell::of(v).filter(|_| wanted) {
                out.push((k.clone(), c));
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The days a call's arguments ask for: `begin`..=`end`, or one `date`.
fn window(args: &Value) -> Option<(Day, Day)> {
    let day = |k: &str| args.get(k).and_then(Value::as_str).and_then(Day::parse);
    match (day("begin"), day("end"), day("date")) {
        (Some(b), Some(e), _) => Some((b, e)),
        (_, _, Some(d)) => Some((d, d)),
        _ => None,
    }
}

/// What the agent's successful calls obtained, call by call.
struct Obtained {
    /// Per call: the days it asked for.
    windows: Vec<Option<(Day, Day)>>,
    /// Per call: (column, cell) of every row, and each numeric column's sum.
    cells: Vec<Vec<(String, Cell)>>,
    /// Per call: numbers its calculator printed.
    printed: Vec<Vec<f64>>,
}

impl Obtained {
    fn of(episode: &Episode) -> Obtained {
        let mut cells = Vec::new();
        let mut printed = Vec::new();
        let windows = episode.calls.iter().map(|c| window(&c.args)).collect();
        for o in &episode.observations {
            let mut here = Vec::new();
            let mut numbers_here = Vec::new();
            if o.ok() && o.tool == CALCULATOR {
                numbers_here = numbers(&output_of(&o.text))
                    .into_iter()
                    .map(round2)
                    .collect();
            } else if let Some(rows) = o.ok().then(|| rows(&o.text)).flatten() {
                let mut sums: Vec<(String, f64)> = Vec::new();
                for row in &rows {
                    for (k, v) in row {
                        if let Some(c) = Cell::of(v) {
                            here.push((k.clone(), c));
                        }
                        if let Some(x) = v.as_f64() {
                            match sums.iter_mut().find(|(c, _)| c == k) {
                                Some((_, t)) => *t += x,
                                None => sums.push((k.clone(), x)),
                            }
                        }
                    }
                }
                if rows.len() > 1 {
                    here.extend(sums.into_iter().map(|(k, t)| (k, Cell::Number(round2(t)))));
                }
            }
            cells.push(here);
            printed.push(numbers_here);
        }
        Obtained {
            windows,
            cells,
            printed,
        }
    }

    /// Call `i` asked for every day of `days` (any call, where the
    /// reference step names no days).
    fn spans(&self, i: usize, days: Option<(Day, Day)>) -> bool {
        match (days, self.windows[i]) {
            (None, _) => true,
            (Some((b, e)), Some((from, to))) => from <= b && e <= to,
            (Some(_), None) => false,
        }
    }

    /// The first call by which every needed cell has been obtained over
    /// `days`.
    fn completed_at(&self, need: &[(String, Cell)], days: Option<(Day, Day)>) -> Option<usize> {
        let mut found = vec![false; need.len()];
        let mut spanned = false;
        for i in 0..self.cells.len() {
            let spans = self.spans(i, days);
            spanned |= spans;
            for (f, (column, cell)) in found.iter_mut().zip(need) {
                *f = *f
                    || (spans && self.cells[i].iter().any(|(k, c)| k == column && c == cell))
                    || (spanned && matches!(cell, Cell::Number(x) if self.printed[i].contains(x)));
            }
            if found.iter().all(|f| *f) {
                return Some(i);
            }
        }
        None
    }
}
