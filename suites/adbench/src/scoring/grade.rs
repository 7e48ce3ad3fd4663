//! Grading a final answer by the task's spec, against the reference answer
//! from replay: numbers equal after rounding to 2 decimals, id sets equal,
//! yes/no, one choice named, a text answer named (ignoring case).

use serde::Serialize;

use super::numbers::numbers;
use crate::replay::answer::round2;
use crate::replay::Answer;
use crate::tasks::AnswerSpec;
use crate::tools::Outcome;

/// Smallest number read as an id: smaller numbers in an answer are
/// counts, hours or money, not ids (the platform's ids have 6+ digits).
pub const MIN_ID: f64 = 100_000.0;

/// The verdict on one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Grade {
    /// Matches the reference.
    Correct,
    /// Does not.
    Wrong,
}

fn bool_word(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    lower
        .split(|c: char| !c.is_ascii_alphabetic())
        .find_map(|w| match w {
            "yes" | "true" => Some(true),
            "no" | "false" => Some(false),
            _ => None,
        })
}

/// True when `text` names `choice` as a whole word (FEMALE does not name MALE).
fn names(text: &str, choice: &str) -> bool {
    let inner = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(choice).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + choice.len()..].chars().next();
        !before.is_some_and(inner) && !after.is_some_and(inner)
    })
}

/// Grades `final_text` (and the outcome the agent declared) against the
/// reference. A task expecting Unresolved is correct when the agent says
/// Unresolved; a Resolved task needs a Resolved outcome and the answer.
pub fn grade(
    spec: Option<&AnswerSpec>,
    reference: Option<&Answer>,
    expected: Outcome,
    outcome: Option<Outcome>,
    final_text: &str,
) -> Grade {
    if outcome != Some(expected) {
        return Grade::Wrong;
    }
    let (Some(spec), Some(reference)) = (spec, reference) else {
        return Grade::Correct; // Unresolved, as expected
    };
    let ok = match reference {
        Answer::Number(r) => numbers(final_text).into_iter().any(|n| round2(n) == *r),
        Answer::IdList(ids) => {
            let mut got: Vec<u64> = numbers(final_text)
                .into_iter()
                .filter(|n| *n >= MIN_ID && n.fract() == 0.0)
                .map(|n| n as u64)
                .collect();
            got.sort_unstable();
            got.dedup();
            &got == ids
        }
        Answer::Bool(b) => bool_word(final_text) == Some(*b),
        Answer::Choice(c) => {
            let named: Vec<&String> = spec
                .choices
                .iter()
                .filter(|x| names(final_text, x))
                .collect();
            named.len() == 1 && named[0] == c
        }
        // The shipped text answers are single names (a city): graded as
        // named, ignoring case. Open-ended text would need an LLM judge,
        // which no shipped task requires.
        Answer::Text(t) => names(&final_text.to_lowercase(), &t.to_lowercase()),
    };
    if ok {
        Grade::Correct
    } else {
        Grade::Wrong
    }
}
