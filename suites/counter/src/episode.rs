//! The trajectory of one episode as it is stored in `Output.meta`: each
//! turn's text and tool calls with what the environment made of them, how
//! the episode ended and the counter's final value.

use crate::task::Task;
use serde::{Deserialize, Serialize};

/// One episode, from the task to the final counter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    /// The task.
    pub task: Task,
    /// One entry per model call, in order.
    pub turns: Vec<Turn>,
    /// Why it stopped.
    pub end: End,
    /// The counter's value at the end.
    pub counter: i64,
}

/// One model call of an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The reply's text (often empty on a turn that calls tools).
    pub text: String,
    /// The reply's tool calls, as run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<Call>,
}

/// One tool call and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// Tool name, as the model wrote it.
    pub tool: String,
    /// Arguments: as run (JSON), or as the model wrote them when its turn
    /// was rejected.
    pub arguments: String,
    /// The counter after the call, when the environment could run it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    /// Why it could not ([`crate::env::ToolError::code`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// The agent answered with text instead of calling a tool.
    Answered,
    /// The agent was still calling tools when its turns ran out.
    TurnCap,
    /// The conversation outgrew the model's context.
    ContextOverflow,
    /// The episode's record passed the agent loop's size bound.
    StoreLimit,
}

impl Turn {
    /// Whether the turn called tools and the environment could run none of
    /// them: a format error (a text answer is not one).
    pub fn is_format_error(&self) -> bool {
        !self.calls.is_empty() && self.calls.iter().all(|c| c.value.is_none())
    }
}

impl Episode {
    /// The agent's final answer: the text of the turn that ended the
    /// episode, empty when the turn cap ended it.
    pub fn answer(&self) -> &str {
        match (self.end, self.turns.last()) {
            (End::Answered, Some(t)) => &t.text,
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(value: Option<i64>) -> Call {
        Call {
            tool: "add".into(),
            arguments: "{}".into(),
            value,
            error: value.is_none().then(|| "bad-amount".into()),
        }
    }

    #[test]
    fn a_format_error_is_a_turn_of_calls_none_of_which_ran() {
        let turn = |calls| Turn {
            text: String::new(),
            calls,
        };
        assert!(turn(vec![call(None)]).is_format_error());
        assert!(!turn(vec![call(None), call(Some(3))]).is_format_error());
        assert!(!turn(vec![]).is_format_error());
    }

    #[test]
    fn the_answer_is_the_last_turns_text_unless_the_cap_ended_it() {
        let mut e = Episode {
            task: Task {
                start: 0,
                target: 1,
            },
            turns: vec![Turn {
                text: "Done.".into(),
                calls: vec![],
            }],
            end: End::Answered,
            counter: 0,
        };
        assert_eq!(e.answer(), "Done.");
        let json = serde_json::to_value(&e).expect("JSON");
        assert_eq!(json["end"], "answered");
        assert_eq!(serde_json::from_value::<Episode>(json).expect("parses"), e);
        e.end = End::TurnCap;
        assert_eq!(e.answer(), "");
    }
}
