//! The OpenAI-compatible HTTP client (OpenAI, vLLM, llama.cpp server,
//! Ollama and most hosted APIs), one call per method: retries, limits and
//! caching wrap it elsewhere.
//!
//! - [`client`]: [`OpenAiClient`], its transport, chat and embeddings;
//! - [`wire`]: the request and reply JSON (tools in OpenAI's shape);
//! - [`tools`]: tool calls a caller can run, and the one re-ask of a bad one;
//! - [`choice`]: closed choice, constrained where the server can, parsed
//!   and re-asked where it cannot;
//! - [`retry`]: the retry policy [`with_retries`] the gateway wraps calls in;
//! - [`secret`]: API keys that print as `***`.
//!
//! Design decision: a bad reply is re-asked once inside the client (an
//! unmatched choice, an unusable tool call) and then answered with "none",
//! never an error, so a model's format mistakes are scored, not retried as
//! transport faults.

mod choice;
mod client;
mod retry;
mod secret;
mod tools;
mod wire;

pub use choice::match_option;
pub use client::{OpenAiClient, REPLY_BYTES_PER_TOKEN};
pub use retry::{
    backoff_policy, parse_retry_after, with_retries, BACKOFF_BASE, BACKOFF_MAX, RETRY_AFTER_MAX,
};
pub use secret::Secret;
