//! A fake OpenAI-compatible server for tests, load tests and local demos.
//!
//! - `config`: [`FakeLlmConfig`], seed, latency, rpm/tpm limits, fault rates.
//! - `server`: routes (`POST /v1/chat/completions`, `POST /v1/embeddings`,
//!   `GET /stats`, `POST /stats/reset`, `GET /health`) and [`Stats`].
//! - `answer`: request validation and OpenAI-shaped answers.
//! - `tools`: the `tools` API: checks, token counts and tool-call answers.
//! - `gen`: the hash-seeded PRNG, vocabulary text, schema-fitting JSON and
//!   bag-of-words embeddings (one space per model name).
//! - `limiter`: token buckets for the fake's own rate limit.
//!
//! The one decision to know: **everything is a function of the request**.
//! The answer is drawn from a PRNG seeded by `(seed, canonical body)`; the
//! fault of an attempt by `(seed, canonical body, attempt number of that
//! body)`. So the same request always gets the same text, a retry of a
//! request that drew a fault draws again (and usually succeeds), and two runs
//! of a sweep see the same faults (after `POST /stats/reset` or on a fresh
//! server). Tokens are whitespace-separated words: `prompt_tokens` counts the
//! words of all message contents, `completion_tokens` the words answered.
//! JSON is counted by its runs of letters and digits instead (compact JSON
//! has no spaces): each offered tool's `function` object (name, description,
//! parameters schema) and each tool call's name and arguments, in the
//! conversation for `prompt_tokens` and in the answer for
//! `completion_tokens`. The model named [`MISSING_MODEL`] answers 404, and
//! [`SILENT_MODEL`] answers every plain completion with empty content.
//!
//! Tools: a request with `tools` is answered with one call of one offered
//! tool (the `tool_choice` one when it names one, else drawn), arguments
//! generated to fit its parameters schema, `finish_reason: "tool_calls"`.
//! `tool_choice: "none"` answers text; `"required"` or a named tool always
//! calls; `"auto"` (or none) calls until the conversation holds
//! [`FakeLlmConfig::tool_results_before_text`] tool results (default 1, so
//! one call, then text), then answers text. `p_bad_tool_call` spoils a call
//! (arguments not JSON, or an unknown tool name), drawn per request body.
//! A `tool_script` replaces the drawn calls with chosen ones, the k-th
//! answering a conversation that holds k tool results, so a test drives a
//! client through exactly the calls it means to.
//! Tool turns are checked as OpenAI does: a `tool` message must answer a
//! call of the assistant turn before it, and every call must be answered
//! before the conversation goes on (else 400).

mod answer;
mod config;
mod gen;
mod limiter;
mod server;
mod tools;

pub use answer::{MISSING_MODEL, SILENT_MODEL};
pub use config::{ConfigError, FakeLlmConfig, ScriptedCall};
pub use gen::EMBEDDING_DIM;
pub use server::{router, Stats, TIMEOUT_HOLD};

use std::io;
use std::net::SocketAddr;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinHandle;

/// Binds `addr` (use `127.0.0.1:0` in tests for a free port) and serves the
/// fake on a spawned task until the handle is aborted.
///
/// Returns the bound address and the serving task.
///
/// # Errors
/// The configuration is invalid (`InvalidInput`) or the address cannot be bound.
pub async fn serve(
    cfg: FakeLlmConfig,
    addr: impl ToSocketAddrs,
) -> io::Result<(SocketAddr, JoinHandle<io::Result<()>>)> {
    let app = router(cfg).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, "Fake LLM server listening.");
    let task = tokio::spawn(async move { axum::serve(listener, app).await });
    Ok((bound, task))
}
