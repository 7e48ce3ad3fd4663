//! Typed answers and how the reference answer is read from a replay's
//! observations by the task's [`AnswerSpec`]: numbers rounded to 2
//! decimals, id lists as sorted sets, yes/no, a choice, or text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tasks::template::follow;
use crate::tasks::{AnswerKind, AnswerSpec};

/// A reference answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// A number or percentage, rounded to 2 decimals.
    Number(f64),
    /// A set of ids, sorted.
    IdList(Vec<u64>),
    /// Yes (true) or no.
    Bool(bool),
    /// One of the task's choices.
    Choice(String),
    /// Free text.
    Text(String),
}

/// Rounds half away from zero to 2 decimals, as answers are compared.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().trim_end_matches('%').trim().parse().ok(),
        _ => None,
    }
}

fn id(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Reads the answer at `spec.from` from `observation` (the step's parsed
/// observation; `output` is a calculator's printed text).
///
/// # Errors
/// A description when the value is missing or not of the spec's kind.
pub fn read(spec: &AnswerSpec, observation: &Value) -> Result<Answer, String> {
    let path = match spec.from.find(['.', '[']) {
        Some(i) => spec.from[i..].trim_start_matches('.'),
        None => "",
    };
    let v = if path.is_empty() {
        observation.clone()
    } else {
        follow(observation, path)?
    };
    let bad = || format!("{} is not a {:?} answer: {v}", spec.from, spec.kind);
    Ok(match spec.kind {
        AnswerKind::Number | AnswerKind::Percent => {
            Answer::Number(round2(number(&v).ok_or_else(bad)?))
        }
        AnswerKind::IdList => {
            let items: Vec<Value> = match &v {
                Value::Array(a) => a.clone(),
                // A calculator prints ids separated by commas or spaces.
                Value::String(s) => s
                    .split([',', ' ', '\n'])
                    .filter(|p| !p.is_empty())
                    .map(|p| Value::String(p.to_string()))
                    .collect(),
                _ => return Err(bad()),
            };
            let mut ids = items
                .iter()
                .map(id)
                .collect::<Option<Vec<u64>>>()
                .ok_or_else(bad)?;
            ids.sort_unstable();
            ids.dedup();
            Answer::IdList(ids)
        }
        AnswerKind::Bool => match v.as_str().map(|s| s.trim().to_ascii_lowercase()) {
            Some(s) if s == "yes" || s == "true" => Answer::Bool(true),
            Some(s) if s == "no" || s == "false" => Answer::Bool(false),
            _ => Answer::Bool(v.as_bool().ok_or_else(bad)?),
        },
        AnswerKind::Choice => {
            let s = v.as_str().map(str::trim).ok_or_else(bad)?;
            if !spec.choices.iter().any(|c| c == s) {
                return Err(format!("{s:?} is not one of {:?}", spec.choices));
            }
            Answer::Choice(s.to_string())
        }
        AnswerKind::Text => Answer::Text(match &v {
            Value::String(s) => s.trim().to_string(),
            other => other.to_string(),
        }),
    })
}
