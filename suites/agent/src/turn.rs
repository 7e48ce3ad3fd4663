//! One model turn's calls as written (a tool name and JSON text), checked
//! into calls of the offered tools, and the ways a turn can be malformed.
//! Both protocols check the same way, so a malformed turn means the same
//! thing whichever protocol wrote it: nothing of it runs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use adfarm_llm::Tool;

/// One tool call as it runs and as a trajectory stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// Tool name.
    pub tool: String,
    /// JSON arguments.
    pub args: Value,
}

/// Longest arguments one call may carry by default, in characters of its
/// JSON text: room for a 4000-character code snippet however it is
/// escaped.
pub const MAX_ARGUMENT_CHARS: usize = 16_000;

/// Longest reply one turn may be by default (its text and every call's
/// arguments), in characters. A longer reply runs nothing, and the
/// conversation and the record keep only its first `reply_chars`.
pub const MAX_REPLY_CHARS: usize = 64_000;

/// What stands in for the cut part of an echoed reply or argument.
const ECHO_NOTE: &str = "...[cut: past the turn's length limit]";

/// `text` within `max` characters, [`ECHO_NOTE`] included when cut.
pub fn cut_echo(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text
        .chars()
        .take(max.saturating_sub(ECHO_NOTE.chars().count()))
        .collect();
    out.push_str(ECHO_NOTE);
    out
}

/// [`FormatError::ReplyTooLong`] when a reply of `text` and the calls
/// `raw` is longer than `max` characters; `note` goes at the end of the
/// correction (a suite names its own tools' limits there).
pub fn check_length(
    text: &str,
    raw: &[RawCall],
    note: &str,
    max: usize,
) -> Result<(), FormatError> {
    let chars = text.chars().count() + raw.iter().map(|c| c.input.chars().count()).sum::<usize>();
    if chars > max {
        return Err(FormatError::ReplyTooLong {
            chars,
            max,
            note: note.to_string(),
        });
    }
    Ok(())
}

/// A call as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments as JSON text.
    pub input: String,
}

/// Why a turn was rejected. Entries count from 1, as the model reads them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum FormatError {
    /// The reply has no `<plan>…</plan>`.
    #[error("the reply has no <plan>…</plan>")]
    NoPlan,
    /// A tag is opened and never closed.
    #[error("<{tag}> is never closed")]
    Unclosed {
        /// The tag.
        tag: String,
    },
    /// `<tools>` comes before `<plan>`.
    #[error("<tools> comes before <plan>; write the plan first")]
    ToolsBeforePlan,
    /// More than one `<tools>` block.
    #[error("the reply has more than one <tools> block")]
    SecondTools,
    /// Something other than `<tool>` entries inside `<tools>`.
    #[error("<tools> holds text outside its <tool> entries: {text:?}")]
    StrayText {
        /// The first characters of it.
        text: String,
    },
    /// An entry lacks `<TOOL_NAME>` or `<INPUT>`.
    #[error("<tool> entry {entry} has no <{tag}>")]
    MissingTag {
        /// 1-based entry.
        entry: usize,
        /// The tag.
        tag: String,
    },
    /// A `TOOL_NAME:` line without an `INPUT:` line after it.
    #[error("entry {entry} (TOOL_NAME: {name}) has no INPUT: line after it")]
    MissingInput {
        /// 1-based entry.
        entry: usize,
        /// The name written.
        name: String,
    },
    /// A call entry written outside the `<tools>` block.
    #[error("a tool entry is written outside <tools>…</tools>; only entries inside the block run")]
    EntriesOutsideTools,
    /// A call names a tool that is not offered.
    #[error("call {entry} names {name:?}, which is not a tool; the tools are {known}")]
    UnknownTool {
        /// 1-based entry.
        entry: usize,
        /// The name written.
        name: String,
        /// The tools offered, comma-separated.
        known: String,
    },
    /// A call's arguments are not JSON.
    #[error("the INPUT of call {entry} ({tool}) is not valid JSON: {message}")]
    BadJson {
        /// 1-based entry.
        entry: usize,
        /// The tool.
        tool: String,
        /// The parser's message.
        message: String,
    },
    /// A call's arguments are JSON but not an object.
    #[error("the INPUT of call {entry} ({tool}) must be a JSON object")]
    NotAnObject {
        /// 1-based entry.
        entry: usize,
        /// The tool.
        tool: String,
    },
    /// A call's arguments are longer than the turn allows.
    #[error("the INPUT of call {entry} ({tool}) is {chars} characters; a call's INPUT may be at most {max}")]
    ArgumentsTooLong {
        /// 1-based entry.
        entry: usize,
        /// The tool.
        tool: String,
        /// Characters written.
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// The reply is longer than the turn allows.
    #[error("the reply is {chars} characters; a turn may be at most {max}{note}")]
    ReplyTooLong {
        /// Characters written (text and arguments).
        chars: usize,
        /// The limit.
        max: usize,
        /// What the suite adds to the correction; not stored, since it is
        /// a function of the suite and not of the reply.
        #[serde(skip)]
        note: String,
    },
    /// More calls than a turn allows.
    #[error("{count} calls in one turn; at most {max} are allowed")]
    TooManyCalls {
        /// Calls written.
        count: usize,
        /// The limit.
        max: u32,
    },
}

impl FormatError {
    /// Bounded code, for reports.
    pub fn code(&self) -> &'static str {
        match self {
            FormatError::NoPlan => "no-plan",
            FormatError::Unclosed { .. } => "unclosed-tag",
            FormatError::ToolsBeforePlan => "tools-before-plan",
            FormatError::SecondTools => "second-tools",
            FormatError::StrayText { .. } => "stray-text",
            FormatError::MissingTag { .. } => "missing-tag",
            FormatError::MissingInput { .. } => "missing-input",
            FormatError::EntriesOutsideTools => "entries-outside-tools",
            FormatError::UnknownTool { .. } => "unknown-tool",
            FormatError::BadJson { .. } => "bad-json",
            FormatError::NotAnObject { .. } => "not-an-object",
            FormatError::TooManyCalls { .. } => "too-many-calls",
            FormatError::ArgumentsTooLong { .. } => "arguments-too-long",
            FormatError::ReplyTooLong { .. } => "reply-too-long",
        }
    }
}

/// Checks a turn's calls against the tools offered and the per-turn
/// limits: all of them become calls, or the turn is rejected.
///
/// # Errors
/// The first [`FormatError`] found, the count first.
pub fn check(
    raw: &[RawCall],
    tools: &[Tool],
    max_calls: u32,
    max_argument_chars: usize,
) -> Result<Vec<Call>, FormatError> {
    if raw.len() > max_calls as usize {
        return Err(FormatError::TooManyCalls {
            count: raw.len(),
            max: max_calls,
        });
    }
    raw.iter()
        .enumerate()
        .map(|(i, c)| {
            let entry = i + 1;
            let name = c.name.trim();
            if !tools.iter().any(|t| t.name == name) {
                return Err(FormatError::UnknownTool {
                    entry,
                    name: name.to_string(),
                    known: tools
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            let chars = c.input.chars().count();
            if chars > max_argument_chars {
                return Err(FormatError::ArgumentsTooLong {
                    entry,
                    tool: name.to_string(),
                    chars,
                    max: max_argument_chars,
                });
            }
            let args: Value =
                serde_json::from_str(c.input.trim()).map_err(|e| FormatError::BadJson {
                    entry,
                    tool: name.to_string(),
                    message: e.to_string(),
                })?;
            if !args.is_object() {
                return Err(FormatError::NotAnObject {
                    entry,
                    tool: name.to_string(),
                });
            }
            Ok(Call {
                tool: name.to_string(),
                args,
            })
        })
        .collect()
}
