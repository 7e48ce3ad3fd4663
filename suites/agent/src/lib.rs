//! The agent loop every AdFarm agent suite runs: a model answers a brief
//! by calling a suite's tools over turns, under one of two protocols, and
//! the conversation is recorded for scoring.
//!
//! - [`conversation`]: the loop, over any [`Toolbox`], told what to say by a
//!   [`Script`];
//! - [`react`]: ReAct's `<plan>`/`<tools>` tags, read and written;
//! - [`function_calling`]: OpenAI `tools` and tool messages;
//! - [`turn`]: a turn's calls checked against the tools, and format errors;
//! - [`overflow`]: telling context overflow from model failures;
//! - [`testing`]: a scripted model, for suites' tests of their agents.
//!
//! The design decision a reader must know: a suite owns its words (the
//! system prompt, corrections, the closing question, and so its prompt
//! version) and its tools; this crate owns how a turn is read, checked,
//! run and answered, so a malformed turn, a context overflow or a runaway
//! reply means the same in every suite. Every model call is one plain
//! `Provider::chat` whose request is a function of the script, the seed
//! and the earlier replies, so the farm's cache replays a killed episode
//! turn by turn at no cost.

pub mod conversation;
pub mod function_calling;
pub mod overflow;
pub mod react;
pub mod testing;
pub mod turn;

pub use conversation::{
    run, End, Ending, Limits, Observed, Protocol, Sampling, Script, Tokens, Toolbox, Transcript,
    Turn, EPISODE_BYTES, OBSERVATION_CHARS,
};
pub use overflow::is_context_overflow;
pub use turn::{Call, FormatError, RawCall};
