//! OpenAI function calling: the tools' schemas go as the request's
//! `tools`, the reply's `tool_calls` are the turn's calls, and each call
//! is answered by a tool message with its id.

use std::fmt::Write as _;

use adfarm_llm::{Completion, Message, ToolCall};

use crate::turn::{cut_echo, FormatError, RawCall};
use crate::Limits;
use crate::Observed;

/// Appends how to act to a system prompt (the tools travel as the
/// request's `tools`).
pub fn instructions(out: &mut String, max_calls: u32) {
    let _ = write!(
        out,
        "
# How to act
Act only through tool calls. Several calls in one reply run together, in order, before you \
see any result: make them together only when they do not need each other's results. At most \
{max_calls} calls a reply.
",
    );
}

/// The reply's calls as written.
pub fn raw_calls(c: &Completion) -> Vec<RawCall> {
    c.tool_calls
        .iter()
        .map(|t| RawCall {
            name: t.name.clone(),
            input: t.arguments.clone(),
        })
        .collect()
}

/// The reply as the conversation keeps it: every call with an id its
/// tool message can answer (`call_<n>`, counting the calls already in the
/// conversation as the local model does, for a provider that sent none).
/// What it echoes is bounded whatever the model wrote: at most
/// `max_calls_per_turn + 1` calls (enough to show one too many), each
/// call's arguments cut at `argument_chars` and the text at
/// `reply_chars` (see [`Limits`]); a reply that needed cutting is rejected
/// anyway.
pub fn assistant(c: &Completion, calls_before: usize, limits: &Limits) -> Message {
    let calls: Vec<ToolCall> = c
        .tool_calls
        .iter()
        .take(limits.max_calls_per_turn as usize + 1)
        .enumerate()
        .map(|(i, t)| ToolCall {
            id: if t.id.is_empty() {
                format!("call_{}", calls_before + i)
            } else {
                t.id.clone()
            },
            name: cut_echo(&t.name, limits.argument_chars),
            arguments: cut_echo(&t.arguments, limits.argument_chars),
        })
        .collect();
    let text = cut_echo(&c.text, limits.reply_chars);
    if calls.is_empty() {
        Message::assistant(text)
    } else {
        Message::tool_calls(text, calls)
    }
}

/// One tool message per call, each with its observation cut to `max_chars`.
pub fn results<O: Observed>(reply: &Message, observations: &[O], max_chars: usize) -> Vec<Message> {
    reply
        .tool_calls
        .iter()
        .zip(observations)
        .map(|(c, o)| Message::tool_result(c.id.clone(), o.shown(max_chars)))
        .collect()
}

/// One tool message per call of a rejected turn: each says why nothing ran.
pub fn rejected(reply: &Message, e: &FormatError) -> Vec<Message> {
    let text = serde_json::json!({
        "error": format!("{e}; nothing of this turn was run"),
        "code": e.code(),
    })
    .to_string();
    reply
        .tool_calls
        .iter()
        .map(|c| Message::tool_result(c.id.clone(), text.clone()))
        .collect()
}
